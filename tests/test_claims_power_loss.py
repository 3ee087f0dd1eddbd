"""Issue 11: the whole machine powering off or rebooting by itself under GPU load (claims family power_loss, rule
ticket.power_loss -> hardware_fault): the power supply's over-current protection tripped by the GPUs' transients.

The statements below are the reporters' own words from public threads (each with its URL), none of them a corpus
case. Actions of the reporter ("I rebooted the machine"), an engine process shutting down, questions and
negations must not be read as the machine losing power.
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def observed(text: str) -> list[claims.Claim]:
    return [c for c in claims.find(said(text), "power_loss") if not c.guess]


POWER_LOST = [
    # https://github.com/AnswerDotAI/fsdp_qlora/issues/41 (2x 4090)
    "Running fine-tuning with these settings makes my desktop instantly power off as soon as training starts.",
    # https://github.com/nlzy/vllm-gfx906/issues/65 (4x MI50, TP=4)
    "With 4 Mi50s (32GB), if I use tensor parallelism of 4 on any model, the computer restarts.",
    # https://github.com/sgl-project/sglang/issues/5146 (title)
    "[Bug] SGLang Causing Reboots/System shutdown after processing prompts.",
    # https://github.com/kijai/ComfyUI-FluxTrainer/issues/208
    "I experienced hard crashes that would immediately reboot my PC.",
    # https://github.com/huggingface/pytorch-image-models/issues/965
    "Tested 10 times, behavior is roughly the same, after 10-20epochs, desktop will shutdown.",
    # https://github.com/AUTOMATIC1111/stable-diffusion-webui/issues/15226 (title)
    "[Bug]: PC shuts down unceremoniously when trying to generate images",
]


@pytest.mark.parametrize("text", POWER_LOST)
def test_the_machine_losing_power_is_read(text):
    assert observed(text), text


NOT_POWER_LOST = [
    # the reporter's own actions
    "I rebooted the machine and the speed came back.",
    "After I restarted the computer, NCCL works again.",
    "I had to restart my PC to free the GPU.",
    "We need to reboot the machine every day.",
    "Please reboot the machine and try again.",
    "After a system reboot the GPUs show up again.",
    # a process, not the machine
    "INFO:     Shutting down",
    "The system restarts the worker process after the error.",
    "The server shuts down after the last request.",
    "The host shutdown script stops the containers.",
    # negations
    "My PC doesn't shut down, it just hangs.",
    "The computer never powers off, the process just dies.",
    "The machine is not shutting down, only the vLLM process crashes.",
]


@pytest.mark.parametrize("text", NOT_POWER_LOST)
def test_actions_processes_and_negations_are_not_read(text):
    assert not observed(text), text


@pytest.mark.parametrize("text", ["Does the machine reboot when this happens?",
                                  "I think the computer shuts off because the PSU is too small."])
def test_a_question_or_a_guess_is_only_a_guess(text):
    found = claims.find(said(text), "power_loss")
    assert found and all(c.guess for c in found)


def test_a_guess_about_the_cause_leaves_the_shutdown_seen():
    """(session 21 review) A guess word governs its own clause (claims.guess_scope): the shutdown told before it is
    observed, the PSU is the guess."""
    assert observed("The computer just shuts off, and I think it is the PSU.")


def test_a_power_loss_report_is_a_hardware_fault(tmp_path):
    # https://github.com/AnswerDotAI/fsdp_qlora/issues/41, its opening post
    (tmp_path / "issue.md").write_text(
        "# Dual GPU training instantly powers off my desktop\n\n"
        "Running fine-tuning with these settings makes my desktop instantly power off as soon as training starts:\n\n"
        "```\nexport CUDA_VISIBLE_DEVICES=0,1\npython train.py --model_name mistralai/Mixtral-8x7B-v0.1 "
        "--batch_size 1 --precision bf16 --train_type qlora\n```\n\n"
        "I have 2x 4090 GPUs, Ubuntu 22.04, PyTorch 2.2.1, CUDA 12.1.\n")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    assert any(f.rule == "ticket.power_loss" and f.is_problem for f in findings)
    assert ticket_verdict(facts, findings).category == "hardware_fault"


def test_a_reboot_done_by_the_reporter_is_no_hardware_fault(tmp_path):
    (tmp_path / "issue.md").write_text(
        "# TP=2 slower after driver update\n\nWith two 4090s and vLLM tensor-parallel-size 2 I get 20 tok/s. "
        "I rebooted the machine but it is still slow.\n")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    assert not any(f.rule == "ticket.power_loss" for f in findings)

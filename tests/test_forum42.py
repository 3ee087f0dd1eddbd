"""Issue 11 (session s42, pass forum42): forum threads about multi-GPU runs slower than one GPU.

The stored `pages` corpus holds few forum threads with their replies (tests/data/forum42/SOURCES.md lists what was
searched and dropped); three first posts were kept, each with the answer its thread settled on:

- discuss.pytorch.org 113545 (DDP on 8 GPUs 2x slower than one on ResNet-50/CIFAR-10, "is this expected for small
  models?"): the tool already answers expected_physics, pinned here.
- discuss.pytorch.org 59604 (4 GPUs not even 2x; nvidia-smi shows the GPU busy a few milliseconds, then 5-10 seconds
  at 0 %, "mostly GPU usage is 0%", while data is loaded): settled as the input pipeline (the reply: an lmdb dataset
  "would give good increase in performance"). The tool answered healthy: the 0 % figure was read, but nothing called
  it idle time or the run slow. claims' gpu_idle_words now also reads the idle share said with its figure ("mostly
  GPU usage is 0%", "GPU usage is mostly 0%", "0% most of the time"; NVML's utilization.gpu is the share of time a
  kernel runs), so ticket.gpu_utilisation answers host_bound.
- qa.1r1g.com 5005027051 (a Stack Overflow question in Chinese: HF Trainer on two V100 in a VM slower than one): the
  poster's own answer blames gradient_checkpointing, which the tool does not weigh; a strict xfail says why.
"""

from pathlib import Path

import pytest
from conftest import read_paste

from diagnose.commands.ticket import ticket_predictions
from rules import claims
from rules.engine import evaluate, ticket_verdict

DATA = Path(__file__).parent / "data" / "forum42"


def _judged(tmp_path: Path, text: str):
    """(verdict, {rule id: finding}) as `diagnose ticket` gives them for `text` pasted as one ticket.md."""
    facts = read_paste(tmp_path, text)
    findings = evaluate(facts, ticket_predictions(facts))
    return ticket_verdict(facts, findings), {f.rule: f for f in findings}


def test_ddp113545_small_model_on_eight_gpus_is_physics(tmp_path):
    verdict, _ = _judged(tmp_path, (DATA / "ddp113545.md").read_text())
    assert verdict.category == "expected_physics"


def test_fourgpu59604_idle_most_of_the_time_is_host_bound(tmp_path):
    verdict, found = _judged(tmp_path, (DATA / "fourgpu59604.md").read_text())
    assert verdict.category == "host_bound"
    assert found["ticket.gpu_utilisation"].category == "host_bound"


@pytest.mark.xfail(strict=True, reason="qa.1r1g.com/sf/ask/5005027051 (a Stack Overflow question in Chinese): the "
                   "poster's own answer puts the 2-GPU slowdown on gradient_checkpointing=true, which the tool does "
                   "not weigh; the VM ('虚拟机') with two V100s at SYS reads as ticket.vm_pcie_slow "
                   "(virtualization_no_p2p). "
                   "Why checkpointing costs more under DDP is unexplained in the thread, so no reading can be written")
def test_hftrainer1r1g_gradient_checkpointing_is_other(tmp_path):
    verdict, _ = _judged(tmp_path, (DATA / "hftrainer1r1g.md").read_text())
    assert verdict.category == "other"


# The GPU idle most of the time said with the figure nvidia-smi shows (claims' gpu_idle_words): probes, not threads.
@pytest.mark.parametrize("text", [
    "# 4 GPUs\n\nTraining on 4 GPUs, GPU usage is mostly 0% and the epoch takes as long as on one GPU. Is this normal?",
    "# 4 GPUs\n\nTraining on 4 GPUs, GPU util is 0% most of the time. Why?",
    "# 2 GPUs\n\nFine-tuning with DDP on two cards; most of the time GPU utilization is at 0%. Is this expected?",
])
def test_probe_idle_figure_most_of_the_time_is_host_bound(tmp_path, text):
    verdict, found = _judged(tmp_path, text)
    assert found["ticket.gpu_utilisation"].category == "host_bound"
    assert verdict.category == "host_bound"


@pytest.mark.parametrize("text", [
    # its memory's share, not the GPU's busy time
    "# 4 GPUs\n\nTraining on 4 GPUs, GPU memory usage is mostly 0% before the model loads. Is this normal?",
    # the idle state between requests
    "# 4 GPUs\n\nServing on 4 GPUs, GPU usage is mostly 0% when no requests come in. Is this normal?",
    # advice, a condition
    "# 4 GPUs\n\nTraining on 4 GPUs. If GPU usage is mostly 0%, should I raise num_workers? Mine shows 100%.",
    # ruled out
    "# 4 GPUs\n\nTraining on 4 GPUs. GPU usage is not mostly 0%. Is this normal?",
    # the CPU's
    "# 4 GPUs\n\nTraining on 4 GPUs. CPU usage is mostly 0% and GPU usage is 100%. Is this normal?",
])
def test_probe_idle_figure_near_misses_are_not_read(tmp_path, text):
    facts = read_paste(tmp_path, text)
    assert not [c for c in claims.claims(facts) if c.kind == "gpu_idle_words" and not c.negated and not c.guess]


# Probes (written for this pass, not from a thread): the swing the tool does read, and the near-miss that must keep
# its fault.
@pytest.mark.parametrize("text", [
    "# 4 GPUs barely faster\n\nTraining a CNN on 4 GPUs with DDP. GPU usage drops to 0% and then back to 100% every "
    "few seconds, the data loader is too slow. Is this normal?",
    "# multi gpu slow\n\nnvidia-smi shows the GPU is either at 100% or idle, and the GPUs wait for the next batch.",
])
def test_probe_swings_read_as_input(tmp_path, text):
    verdict, found = _judged(tmp_path, text)
    assert "ticket.input_starved" in found
    assert verdict.category == "host_bound"


def test_probe_hang_is_not_physics(tmp_path):
    text = ("# DDP on 8 GPUs hangs\n\nResNet-50 on CIFAR-10 with DDP on 8 GPUs hangs at the first all_reduce, while "
            "one GPU trains fine. Is this expected for small models?")
    verdict, _ = _judged(tmp_path, text)
    assert verdict.category != "expected_physics"

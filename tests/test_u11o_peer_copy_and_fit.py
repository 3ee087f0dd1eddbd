"""Four general capabilities built in issue 11 (session s11-11o) from development cases of batch u11b, each tested on
sentences written here (paraphrases and negations, none copied from a corpus case), on the development case, and on
another real public thread kept in tests/data/ut11o (SOURCES.md gives each thread's address):

- a copy from one GPU to another that lands zeros or wrong values is a broken peer path (ticket.p2p_corrupts);
- a line giving the outcome of a test on one board ("- With RTX3090, CUDA 11.4: OK") names a machine compared, not a
  board of the reporter's job (no ticket.mixed_gpus);
- one GPU, named by its index, busy while CUDA_VISIBLE_DEVICES offers two or more: one of several GPUs used;
- a model the catalog sizes above the GPUs' memory, under an engine that runs the rest on the CPU: host bound
  (ticket.model_over_vram).
"""

from pathlib import Path

import pytest
from test_ticket_questions import development_case

from diagnose.artifacts import issue_md
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Workload
from rules import claims
from rules.engine import evaluate, ticket_verdict
from rules.gpus_in_use import _one_index_busy, one_gpu_in_use
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "ut11o"


def issue(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def judged(facts: Facts):
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), {f.rule for f in findings}


def real(tmp_path, name: str) -> Facts:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "issue.md").write_text((DATA / f"{name}.md").read_text())
    return read_bundle([folder])


# --------------------------------------------------------------------------- peer copies landing wrong values

@pytest.mark.parametrize("text", [
    "# Copy bug\n\nCopying a tensor from cuda:0 to cuda:1 gives all zeros, while going through the CPU is right.",
    "# Wrong data\n\nWhen I move the weights between the GPUs the values are garbage; via host memory they are fine.",
    "# P2P\n\nA cudaMemcpyPeer from GPU0 to GPU1 returns incorrect data on this server.",
    "# Multi-GPU\n\nEvery tensor I send to another GPU arrives as a zero tensor.",
    "# Corruption\n\nWe see corrupted values whenever a buffer is transferred across the devices of this node.",
])
def test_a_peer_copy_landing_wrong_values_is_a_broken_peer_path(text):
    verdict, rules = judged(issue(text))
    assert "ticket.p2p_corrupts" in rules
    assert verdict.category == "p2p_disabled"


@pytest.mark.parametrize("text", [
    "# Copy\n\nCopying a tensor from cuda:0 to cuda:1 gives the right values.",
    "# Slow copy\n\nMoving the model between GPUs takes a long time.",
    "# Zeros\n\nThe loss is zero on cuda:0 after the first step.",  # no copy between GPUs
    "# Copy\n\nMoving a tensor from cuda:0 to cuda:1 gives a tensor of the right shape; the values are correct.",
])
def test_copies_without_wrong_values_are_no_broken_peer_path(text):
    _, rules = judged(issue(text))
    assert "ticket.p2p_corrupts" not in rules


def test_the_real_threads_copy_to_zeros_reads_as_a_broken_peer_path(tmp_path):
    # pytorch/pytorch#13803: "any attempt to copy tensors between devices fails silently unless the copy uses the CPU"
    verdict, rules = judged(real(tmp_path, "pytorch13803"))
    assert "ticket.p2p_corrupts" in rules and verdict.category == "p2p_disabled"


def test_the_development_case_copy_to_zeros_is_a_broken_peer_path_not_mixed_gpus(tmp_path):
    facts = development_case(tmp_path, "u11b04")
    verdict, rules = judged(facts)
    assert verdict.category == "p2p_disabled" and "ticket.mixed_gpus" not in rules


# --------------------------------------------------------------------------- a test's outcome on another board

@pytest.mark.parametrize("line", [
    "- With RTX3090, CUDA 11.4: OK",
    "* On the A6000: works",
    "- RTX 4090 -> same error",
    "1. Tested on V100: fails",
    "- With 2080 Ti, driver 535: no issues",
])
def test_a_line_giving_a_tests_outcome_on_a_board_names_a_machine_compared(line):
    (named,) = [g for g in issue_md._gpus_named([(1, line)]) if g[1]]
    assert named[2] is True


@pytest.mark.parametrize("line", [
    "- GPU: A100-PCIE-40GB X 4",
    "- 2x RTX 3090 24GB",
    "GPU 0: Tesla V100-SXM2-32GB",
    "- RTX 4090 (24 GB), driver 550",
])
def test_an_inventory_line_is_not_a_compared_machine(line):
    named = [g for g in issue_md._gpus_named([(1, line)]) if g[1]]
    assert named and not any(g[2] for g in named)


# --------------------------------------------------------------------------- one of the GPUs offered in use

@pytest.mark.parametrize("sentence,text", [
    ("nvidia-smi shows GPU-0 is being used.", "I set CUDA_VISIBLE_DEVICES=0,1. nvidia-smi shows GPU-0 is being used."),
    ("Only GPU 3 is busy.", "export CUDA_VISIBLE_DEVICES=2,3 and start the server. Only GPU 3 is busy."),
    ("I see GPU1 in use", "CUDA_VISIBLE_DEVICES='0, 1' ollama serve; I see GPU1 in use"),
])
def test_one_gpu_busy_of_several_made_visible_is_one_gpu_in_use(sentence, text):
    assert _one_index_busy(sentence, text) is not None


@pytest.mark.parametrize("sentence,text", [
    ("nvidia-smi shows GPU 0 and GPU 1 are being used.",
     "CUDA_VISIBLE_DEVICES=0,1. nvidia-smi shows GPU 0 and GPU 1 are being used."),  # two busy
    ("nvidia-smi shows GPU 1 is being used.",
     "CUDA_VISIBLE_DEVICES=1. nvidia-smi shows GPU 1 is being used."),  # one offered
    ("nvidia-smi shows GPU 2 is being used.", "nvidia-smi shows GPU 2 is being used."),  # nothing offered
])
def test_no_one_of_several_without_several_offered_and_one_busy(sentence, text):
    assert _one_index_busy(sentence, text) is None


def test_a_negated_busy_gpu_is_no_one_gpu_in_use():
    facts = issue("# GPUs\n\nI set CUDA_VISIBLE_DEVICES=0,1 but nvidia-smi shows GPU-0 is not being used.")
    assert one_gpu_in_use(facts) is None


def test_the_real_thread_with_one_device_visible_is_no_one_of_several(tmp_path):
    # ollama/ollama#17832: one device made visible at a time ("CUDA_VISIBLE_DEVICES=n"), GPU 1 always loaded
    text = (DATA / "ollama17832.md").read_text()
    for sentence in claims.sentences(text):
        assert _one_index_busy(sentence, text) is None


def test_the_development_case_one_of_two_m60_busy_is_the_default_placement(tmp_path):
    verdict, rules = judged(development_case(tmp_path, "u11b10"))
    assert "ticket.one_gpu_by_design" in rules and verdict.category == "healthy"


# --------------------------------------------------------------------------- a model larger than the GPUs' memory

@pytest.mark.parametrize("text", [
    "# Slow\n\nI run `ollama run llama3.1:70b` on one RTX 4090; the GPU sits at 10% and the CPU is busy.",
    "# Very slow\n\nollama run qwen2.5:72b on an RTX 3060 12GB takes minutes per answer.",
    "# GPU idle\n\nOllama Mixtral on a 16 GB A4000 barely uses the GPU.",
])
def test_a_model_larger_than_the_gpu_under_ollama_runs_partly_on_the_cpu(text):
    verdict, rules = judged(issue(text))
    assert "ticket.model_over_vram" in rules and verdict.category == "host_bound"


@pytest.mark.parametrize("text", [
    "# Slow\n\nI run `ollama run llama3.1:8b` on one RTX 4090 and the GPU sits at 10%.",  # fits
    "# Slow\n\nvllm serve meta-llama/Llama-3.1-70B on one RTX 4090 is slow.",  # vLLM keeps all in VRAM or fails
    "# Slow\n\nOllama deepseek-r1 on one RTX 4090 is slow.",  # sizeless: 1.5B to 671B
    "# Slow\n\n`ollama run llama3.1:70b` on one RTX 4090: `ollama ps` shows 100% GPU, 2 tokens/s.",  # a rate to judge
])
def test_no_model_over_vram_when_it_fits_the_engine_keeps_it_in_vram_or_the_size_is_unknown(text):
    _, rules = judged(issue(text))
    assert "ticket.model_over_vram" not in rules


@pytest.mark.parametrize("name", ["ollama6008", "ollama8963"])
def test_the_real_threads_models_larger_than_their_gpu_run_partly_on_the_cpu(tmp_path, name):
    # ollama/ollama#6008: llama3.1:70b on one RTX 4090; ollama/ollama#8963: deepseek-r1:671b on one V100 32 GB
    verdict, rules = judged(real(tmp_path, name))
    assert "ticket.model_over_vram" in rules and verdict.category == "host_bound"


def test_the_development_case_mixtral_on_a_16gb_a4000_is_host_bound(tmp_path):
    verdict, rules = judged(development_case(tmp_path, "u11b02"))
    assert "ticket.model_over_vram" in rules and verdict.category == "host_bound"


def test_a_github_address_is_no_model_and_ollama_names_its_library_tag():
    text = ("# GPU use\n\nOllama Mixtral uses 7% of the GPU.\n\n"
            "![img](https://github.com/ollama/ollama/assets/10485460/cafc29e9)")
    facts = issue(text)
    assert not [w.model for w in facts.of(Workload) if w.model]  # "ollama/ollama" is a repository, no model
    assert Subject.of(facts).model.key == "mixtral-8x7b"  # the library's `mixtral` pulls mixtral:8x7b
    assert Subject.of(issue("# Hi\n\nOllama Windows uses the CPU.")).model is None  # no library tag

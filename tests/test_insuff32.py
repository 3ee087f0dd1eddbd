"""Issue 11 (session s32, pass insuff32): tickets answered `insufficient_data` that a person decides.

Warm-up said in the counts and items people use. The first units of work of a process pay one-off costs (CUDA's lazy
module loading, a TensorRT engine's deserialisation and tactic set-up, a framework's session start); later ones run at
the steady rate, so "only the first ones are slow" is answered by ticket.explained. The reading
(rules.claims._FIRST_WORK) now also counts "the first and second picture", an item with a qualifier ("the first test
image", "the first input frame") and a call's product ("the first return result"). Real first posts are kept in
tests/data/insuff32 (threads and settled answers in its SOURCES.md); tensorrtx1407 is in tests/data/healthy31.
Negations, "the later ones are slow too", and near-misses that only share the words must not read as warm-up.
"""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from rules import catalog, claims
from rules.engine import evaluate, ticket_verdict
from tests.conftest import issue_bundle

DATA = Path(__file__).parent / "data"

# file -> the verdicts the thread's settled answer supports (all: the first calls are warm-up, nothing is broken)
REAL = {
    "insuff32/trafficlight1.md": {"healthy", "expected_physics"},
    "insuff32/djl1798.md": {"healthy", "expected_physics"},
    "insuff32/superglue23.md": {"healthy", "expected_physics"},
    "insuff32/tensorrtx91.md": {"healthy", "expected_physics"},
    "healthy31/tensorrtx1407.md": {"healthy", "expected_physics"},
}


def judged(tmp_path, name: str):
    folder = tmp_path / Path(name).stem
    folder.mkdir()
    (folder / "issue.md").write_text((DATA / name).read_text())
    facts = read_bundle([folder])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def test_every_new_paste_is_listed_with_its_thread():
    sources = (DATA / "insuff32" / "SOURCES.md").read_text()
    kept = {p.name for p in (DATA / "insuff32").glob("*.md") if p.name != "SOURCES.md"}
    assert kept == {Path(n).name for n in [*REAL, *CONTAINER] if n.startswith("insuff32/")}
    assert all(name in sources for name in kept)


@pytest.mark.parametrize("name", sorted(REAL))
def test_a_real_warm_up_question_is_answered_by_the_warm_up(tmp_path, name):
    verdict, findings = judged(tmp_path, name)
    assert verdict.category in REAL[name]
    assert any(f.rule == "ticket.explained" and "first calls" in f.title for f in findings)


def _first_slow(text: str) -> list:
    return [c for c in claims.claims(issue_bundle("# q\n\n" + text)) if c.kind == "first_calls_slow" and not c.negated]


@pytest.mark.parametrize("text", [
    # paraphrases the reading was not written from
    "The first and second photo take about 900 ms each, every photo after that takes 30 ms.",
    "On the Jetson the first input frame takes 2 seconds to detect, then each frame is 40 ms.",
    "Our service's first inference result is really slow (about 20 s), the later calls answer in 50 ms.",
    "The first test picture takes ages with TensorRT but the rest of the folder is quick.",
])
def test_warm_up_in_other_words_is_read(text):
    assert _first_slow(text)


@pytest.mark.parametrize("text", [
    # negations and "the later ones too": no warm-up
    "The first and second picture are not slow; every picture takes 300 ms.",
    "The first test image takes 5 seconds and all the later ones too.",
    # near-misses: the same words, no first-only slowness
    "My first results show 10 tok/s on two A100 with vLLM TP 2. Is that slow?",
    "I ran my first test on the GPU yesterday and the throughput was 300 images per second.",
    "The first picture shows the nvidia-smi output, the second one the vLLM log.",
])
def test_no_warm_up_where_none_is_said(text):
    assert not _first_slow(text)


def test_a_complaint_with_no_figure_and_no_hardware_stays_undecided(tmp_path):
    (tmp_path / "issue.md").write_text("# Inference is slow\n\nEvery image takes a long time to process with my "
                                       "model. What can I do?\n")
    facts = read_bundle([tmp_path / "issue.md"])
    assert ticket_verdict(facts, evaluate(facts)).category == "insufficient_data"


# --------------------------------------------------------------------------- a container's processes (PID namespace)
# rules/catalog/by_design.toml container_pids: the driver reports host PIDs a container's namespace cannot map, so
# nvidia-smi there lists no process and tools that list them show PIDs `ps` cannot find. Now also read in the words
# of gpustat#117, nvidia-docker#476 and nvtop#149.
CONTAINER = {
    "healthy31/gpustat117.md": {"healthy"},
    "insuff32/nvidiadocker476.md": {"healthy"},
    "insuff32/nvtop149.md": {"healthy"},
}
CONTAINER_TITLE = next(r["title"] for r in catalog.documented_behaviours() if r["key"] == "container_pids")


@pytest.mark.parametrize("name", sorted(CONTAINER))
def test_a_container_hiding_its_processes_is_answered_by_design(tmp_path, name):
    verdict, findings = judged(tmp_path, name)
    assert verdict.category in CONTAINER[name]
    assert any(f.rule == "ticket.documented_behaviour" and f.title == CONTAINER_TITLE for f in findings)


def _by_design(tmp_path, text: str) -> bool:
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path / "issue.md"])
    return any(f.rule == "ticket.documented_behaviour" and f.title == CONTAINER_TITLE for f in evaluate(facts))


@pytest.mark.parametrize("text", [
    # paraphrases the reading was not written from
    "# nvidia-smi in pod\n\nInside our Kubernetes pod nvidia-smi does not list the training processes, though the "
    "memory is 30 GB used. Is this a bug?",
    "# PIDs inside docker\n\nnvtop in my docker container: the process IDs it shows are wrong, ps does not know them.",
    "# empty process table\n\nThe GPU processes are not shown when I run nvidia-smi inside the container.",
])
def test_the_namespace_in_other_words_is_read(tmp_path, text):
    assert _by_design(tmp_path, text)


@pytest.mark.parametrize("text", [
    # no container: the processes may really be missing
    "# no processes\n\nnvidia-smi doesn't show any processes on my workstation while training runs. Why?",
    # the job is not on the GPU at all (the row's `unless`)
    "# nothing on the GPU\n\nIn the docker container nvidia-smi does not show my process and 0 MiB is used: the model "
    "runs on the CPU.",
    # a negation: the processes are listed
    "# slow in docker\n\nInside the container nvidia-smi shows my python process fine; generation is just slow at "
    "5 tok/s on an A10.",
    # the GPU, not a process, is what cannot be seen
    "# GPU missing\n\nThe driver cannot detect the GPU inside the docker container.",
])
def test_no_namespace_answer_where_none_is_said(tmp_path, text):
    assert not _by_design(tmp_path, text)


# --------------------------------------------------------------------------- a core busy while the engine idles
# ticket.idle_poll: vLLM's engine core and SGLang's scheduler poll their queues while idle (vLLM's VLLM_SLEEP_WHEN_IDLE
# and SGLang's --sleep-on-idle exist to stop it), so a core at 100 % with no request served is by design, not a host
# that starves the GPUs. Real first posts of three threads, kept by earlier passes.
IDLE = {
    "ut16h/sglang1315.md": {"healthy"},  # sglang#1315: "This is expected, and it is also acceptable"
    "ut29e/lmdeploy3783.md": {"healthy"},  # lmdeploy#3783: --tp 2, a thread at 100 % "even when the API is idle"
    "ut29e/sglang9863.md": {"healthy"},  # sglang#9863: the scheduler at 100 % "without any incomming requests"
}


@pytest.mark.parametrize("name", sorted(IDLE))
def test_a_core_busy_while_the_engine_idles_is_the_polling_loop(tmp_path, name):
    verdict, findings = judged(tmp_path, name)
    assert verdict.category in IDLE[name]
    assert any(f.rule == "ticket.idle_poll" for f in findings)
    assert not any(f.rule == "ticket.cpu_bound" for f in findings)


def _rules(tmp_path, text: str) -> set[str]:
    (tmp_path / "issue.md").write_text(text)
    return {f.rule for f in evaluate(read_bundle([tmp_path / "issue.md"]))}


@pytest.mark.parametrize("text", [
    # paraphrases
    "# vLLM uses a full core\n\nWith vllm serve and --tensor-parallel-size 2, htop shows two processes at 100% CPU "
    "even when there are no incoming requests.",
    "# High CPU at idle\n\nOur SGLang server sits at 100% CPU on one core while idle; the GPUs are at 0%.",
    "# SGLang CPU\n\nSGLang server on an H100: the CPU is at 100% when idle. Is this a bug?",
])
def test_idle_polling_in_other_words_is_read(tmp_path, text):
    assert "ticket.idle_poll" in _rules(tmp_path, text)


@pytest.mark.parametrize("text", [
    # one request measured alone: "no other requests" is a load, the CPU may well starve the GPU
    "# slow decode\n\nWith vLLM on an A100 and no other requests running, the CPU is at 100% and the GPU at 35%.",
    # a failure beside the idle core
    "# server hangs\n\nThe SGLang server hangs after the first request and the CPU is at 100% when there are no "
    "requests.",
    # under load: the host limit of ticket.cpu_bound, not the idle loop
    "# CPU bound?\n\nUnder 64 concurrent requests the vLLM process is at 100% CPU and the two GPUs at 40%.",
    # a quiet host with no work: no polling loop is said
    "# idle\n\nWhen there are no requests the CPU sits at 2% and the GPUs at 0%.",
    # the GPU's percentage at idle, not the CPU's
    "# GPU idle\n\nThe vLLM server's GPU is at 0% when idle and the CPU at 3%.",
])
def test_no_idle_polling_answer_where_none_is_said(tmp_path, text):
    assert "ticket.idle_poll" not in _rules(tmp_path, text)

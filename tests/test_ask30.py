"""Issue 11 (ask30): an insufficient_data answer asks first for what would decide the ticket. A ticket that says the
job works on one machine and not on another is decided by the difference between the two machines, so the first ask
is each machine's driver, CUDA/NCCL/PyTorch, engine version and topology (claims.machine_ab ->
rules.engine.MACHINE_AB_ASK), not one machine's topology. Real sentences from other threads in
tests/data/ask30/machine_ab.toml (URLs in SOURCES.md); the audited paste ggml-org/llama.cpp#3772 under ut24/.
A hang whose NCCL has shown itself in the ticket (a version line it printed, INFO lines, "stuck at init nccl") asks
first for NCCL's whole INFO log up to where it stops (rules.engine.nccl_spoke -> NCCL_HANG_ASK): nccl_hang.toml."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, reading_gaps, report_json, toml_cases

from diagnose.bundle import read_bundle
from rules import claims
from rules.engine import MACHINE_AB_ASK, NCCL_HANG_ASK, SYMPTOM_ASKS, symptom_ask

DATA = Path(__file__).parent / "data" / "ask30"
PASTES = Path(__file__).parent / "data"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "machine_ab"))
def test_one_machine_that_works_and_another_that_does_not_is_read(case):
    facts = case_facts(case)
    assert bool(claims.machine_ab(facts)) is case["ab"]
    assert (symptom_ask(facts) == MACHINE_AB_ASK) is case["ab"]


@pytest.mark.parametrize("case", toml_cases(DATA, "nccl_hang"))
def test_a_hang_whose_nccl_spoke_asks_for_the_whole_nccl_log(case):
    ask = symptom_ask(case_facts(case))
    assert ask == (NCCL_HANG_ASK if case["nccl"] else SYMPTOM_ASKS["hang"])


@pytest.mark.parametrize("paste", ["ut25/pytorch7019.md", "ut29h/dynamo1065.md"])
def test_public_hangs_with_nccl_output_ask_for_the_whole_nccl_log(paste):
    """https://github.com/pytorch/pytorch/issues/7019 (a DataParallel hang under PyTorch 0.4 printing "NCCL version
    2.1.15+cuda8.0"; settled: an /etc/nccl.conf in the image, which NCCL's INFO log shows) and ai-dynamo/dynamo#1065
    (a multi-node hang shown by PyTorch's NCCL watchdog timeout line). Before: py-spy, Xid and collect_env; now NCCL's
    whole INFO log first, with them."""
    verdict = report_json("ticket", str(PASTES / paste))["verdict"]
    assert verdict["category"] == "insufficient_data"
    assert verdict["summary"].startswith("Not enough evidence to decide. Next: attach " + NCCL_HANG_ASK)


@pytest.mark.parametrize("paste", ["ut23b/paddle246.md", "ut25/detectron219.md"])
def test_public_hangs_without_nccl_output_keep_their_ask(paste):
    """PaddlePaddle/Paddle#246 and facebookresearch/Detectron#219: hangs with no NCCL output in the paste keep the
    stacks-and-Xid ask (Detectron#219: a lead's own ask), not NCCL's log."""
    summary = report_json("ticket", str(PASTES / paste))["verdict"]["summary"]
    assert "Next: attach " in summary and NCCL_HANG_ASK not in summary
    assert "py-spy dump" in summary.split("Next: attach ", 1)[1].split(";")[0]


def test_public_llamacpp_3772_asks_both_machines_first():
    """https://github.com/ggml-org/llama.cpp/issues/3772: "works beautifully on my old box ... but it produces only
    garbage on my newly built box" (settled: driver 545 on one box, 535 on the other). Before: insufficient_data asking
    `nvidia-smi topo -m` from the node; now the versions and topology of both machines, first."""
    verdict = report_json("ticket", str(PASTES / "ut24" / "llamacpp3772.md"))["verdict"]
    assert verdict["category"] == "insufficient_data"
    assert verdict["summary"].startswith("Not enough evidence to decide. Next: attach " + MACHINE_AB_ASK)


@pytest.mark.parametrize("paste", [
    "ut28b/x1riser65.md",  # "re-sweep ... even if another host with the same cards already published one"
    "ut16/nccl1536.md",  # containers "distributed across different nodes" are faster: one job's placement
    "ut29c/trtllm147.md",  # "how do i communicate with another machine": a layout question
])
def test_public_pastes_naming_another_machine_are_no_machine_ab(paste):
    """Real pastes that name another machine without one working and the other not: no machine A/B is read."""
    assert claims.machine_ab(read_bundle([str(PASTES / paste)])) is None


def test_every_case_names_its_thread_and_the_reading_has_near_misses():
    near = {"machine_ab": lambda c: not c["ab"], "nccl_hang": lambda c: not c["nccl"]}
    assert reading_gaps(DATA, FAMILIES, near) == []

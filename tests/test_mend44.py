"""Issue 11 (mend44): a hang that one build of the software has and another does not, on the same GPUs, is no P2P
fault. The peer path is the hardware's and the driver's: an image, engine, PyTorch or NCCL release that runs the same
job on the same machine shows that the path delivers, and the build is the suspect. The claim (rules.claims
"build_hang") turns ticket.hang_on_pcie into an info lead; a hang on every build, a working side on other GPUs or
another machine, a hang a P2P setting cured, or a backend compared leaves the lead as it was. Real sentences in
tests/data/mend44/<reading>.toml (URLs in SOURCES.md)."""

from pathlib import Path

import pytest
import tomllib
from conftest import case_facts, case_report, finding, reading_gaps, report_json, threads_reused, toml_cases

from rules import claims

DATA = Path(__file__).parent / "data" / "mend44"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "build_hang"))
def test_build_hang_only_where_another_build_runs(case, tmp_path):
    assert any(not c.guess and not c.negated for c in claims.find(case_facts(case), "build_hang")) is case["build"]
    if "p2p_lead" in case:
        lead = finding(case_report(case, tmp_path), "ticket.hang_on_pcie")
        assert lead is not None and (lead["severity"] == "warning") is case["p2p_lead"]


def test_public_vllm_28283_cuda_image_hang_steps_aside_from_p2p():
    """https://github.com/vllm-project/vllm/issues/28283 (kept by ut29h, unscored): TP > 1 stuck at NCCL's start with
    the nvidia/cuda:13.0 image, fine with 12.9 on the same machine. Before: p2p_disabled 0.69 (ticket.hang_on_pcie);
    now the P2P finding is an info lead and no P2P verdict is given."""
    report = report_json("ticket", str(DATA.parent / "ut29h" / "vllm28283.md"))
    lead = finding(report, "ticket.hang_on_pcie")
    assert lead is not None and lead["severity"] == "info" and lead["confidence"] <= 0.25
    assert report["verdict"]["category"] != "p2p_disabled"


NEAR = {"build_hang": lambda c: not c["build"]}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    assert reading_gaps(DATA, FAMILIES, NEAR) == []


def test_no_thread_is_one_taken_before():
    """Not a thread of ut29h's pastes (the case this reading was written for)."""
    assert threads_reused(FAMILIES, ("ut29h",)) == []

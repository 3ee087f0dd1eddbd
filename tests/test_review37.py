"""Precision review of ut28e's readings of NCCL's newer paths (issue 11, review37), each tried on real lines and pastes
of threads none of them was written from (tests/data/review37/<reading>.toml, URLs in SOURCES.md): near-misses that
look alike but must not be read that way, beside positives. `xfail`: why a case still fails (strict); `mended`: what
it read before this review.

- fabric_failure: claims fabric_setup with _NVLS_OOM (NCCL's fabric hint set aside after an 'out of memory' bind);
- workarounds: a known NCCL setting read as making the failure go away (WORKAROUNDS, claims._effect);
- fabric_ask: workload.evidence_coverage asking for `nvidia-smi -q`'s Fabric section;
- no_nvswitch_board: the fabric manager failing on a GPU on no NVSwitch answered `healthy` (topology.no_nvswitch_board);
- nccl_advice: NCCL's printed "Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish ..." no setting (launch.ADVICE);
- nvl5_fix: the fabric fix naming NVLSM and the InfiniBand modules on NVLink 5 baseboards."""

from pathlib import Path

import pytest
import tomllib
from conftest import finding, reading_gaps, report_json, said, threads_reused, toml_cases

from diagnose.artifacts import launch
from rules import claims
from rules.ticket_rules import WORKAROUNDS

DATA = Path(__file__).parent / "data" / "review37"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def ticket(text: str, tmp_path: Path) -> dict:
    paste = tmp_path / "issue.md"
    paste.write_text(text)
    return report_json("ticket", str(paste))


@pytest.mark.parametrize("case", toml_cases(DATA, "fabric_failure"))
def test_an_nvls_failure_is_the_fabric_unless_memory_ran_out(case):
    assert bool(claims.find(said(case["text"]), "fabric_setup")) is case["fabric"]


@pytest.mark.parametrize("case", toml_cases(DATA, "workarounds"))
def test_a_setting_works_around_only_where_the_failure_went_away(case):
    fixes = [c for c in claims.find(said(case["text"]), "setting")
             if c.data["name"] in WORKAROUNDS and c.data.get("effect") == "fixes"]
    assert bool(fixes) is case["fixes"]


@pytest.mark.parametrize("case", toml_cases(DATA, "fabric_ask"))
def test_a_fabric_failure_asks_for_the_fabric_state(case, tmp_path):
    ask = finding(ticket(case["text"], tmp_path), "workload.evidence_coverage")
    assert bool(ask and "Fabric section" in (ask["fix"] or "")) is case["asks"]


@pytest.mark.parametrize("case", toml_cases(DATA, "no_nvswitch_board"))
def test_healthy_only_where_no_nvswitch_needs_the_fabric_manager(case, tmp_path):
    got = ticket(case["text"], tmp_path)["verdict"]["category"]
    assert (got == "healthy") is case["healthy"]
    if case.get("category"):
        assert got == case["category"]


@pytest.mark.parametrize("case", toml_cases(DATA, "nccl_advice"))
def test_the_reporters_own_nvls_setting_is_still_read(case):
    names = [getattr(s, "name", "") for s in launch.parse(case["text"], "issue.md")]
    assert ("NCCL_NVLS_ENABLE" in names) is case["setting"]


@pytest.mark.parametrize("case", toml_cases(DATA, "nvl5_fix"))
def test_nvlsm_is_named_only_on_nvlink5_baseboards(case, tmp_path):
    fixes = " ".join(f["fix"] or "" for f in ticket(case["text"], tmp_path)["findings"])
    assert ("NVLSM" in fixes) is case["nvlsm"]


# Readings for which this review found no untaken real positive (SOURCES.md says so).
LEFT = {"nccl_advice"}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    near = {"fabric_failure": lambda c: c["fabric"], "workarounds": lambda c: not c["fixes"],
            "fabric_ask": lambda c: not c["asks"], "no_nvswitch_board": lambda c: not c["healthy"],
            "nccl_advice": lambda c: c["setting"], "nvl5_fix": lambda c: not c["nvlsm"]}
    assert reading_gaps(DATA, FAMILIES, near, LEFT) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut28e)."""
    assert threads_reused(FAMILIES, ("ut28e",)) == []

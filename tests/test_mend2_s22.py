"""Mends of the ticket's readings of the reporter's words (issue 11, session 22, second pass), each tested on real
sentences kept with their threads in tests/data/mend2_s22/*.toml (`adapted` says where the words were put in another
form) and on near-misses that must keep their reading:

1. P2P switched off by the reporter ("with P2P disabled", NCCL_P2P_DISABLE=1) is a setting, not the system refusing
   peer access: ticket.p2p_refused says so, the figures being SHM's, and keeps "refused" for CUDA's and NCCL's words;
"""

from pathlib import Path

import pytest
import tomllib
from conftest import judged_issue, said, toml_cases

from rules import claims

DATA = Path(__file__).parent / "data" / "mend2_s22"
UT22A = Path(__file__).parent / "data" / "ut22a"


def _cases(name: str):
    return toml_cases(DATA, name)


def test_every_sentence_names_its_source():
    for path in DATA.glob("*.toml"):
        for case in tomllib.loads(path.read_text())["case"]:
            assert case["url"].startswith("https://github.com/"), (path.name, case["sentence"])


# --------------------------------------------------------------------------- 1. "with P2P disabled"

@pytest.mark.parametrize("case", _cases("p2p_off_by_setting"))
def test_p2p_off_by_the_reporters_setting(case):
    facts = said(case["sentence"])
    found = [c for c in claims.claims(facts) if c.kind == "no_p2p"]
    assert found, case["sentence"]
    assert claims.p2p_off_by_setting(facts, found[0]) is case["setting"], case["sentence"]


def test_nccl1130_is_judged_as_the_reporters_setting():
    # NVIDIA/nccl#1130: all_reduce_perf run with P2P disabled, 35 GB/s across NUMA nodes vs 24 GB/s within one
    verdict, found = judged_issue((UT22A / "nccl1130.md").read_text())
    f = found["ticket.p2p_refused"]
    assert verdict.category == f.category == "p2p_disabled"
    assert "refused" not in f.title and "reporter" in f.title, f.title
    assert "SHM" in f.summary and "compare" in f.fix.lower(), (f.summary, f.fix)
    assert any("P2P off by setting" in e.detail for e in f.evidence)


HANG = """# NCCL hangs with 4 GPUs

The all-reduce hangs when using 4 RTX A6000 GPUs. {said}
"""


def test_a_refusal_keeps_its_reading_and_a_workaround_names_the_hangs_cause():
    # the system's refusal (CUDA's p2pBandwidthLatencyTest words, NVIDIA/nccl#257) stays "refused"
    _, found = judged_issue(HANG.format(said="Device=0 CANNOT Access Peer Device=2"))
    assert "refused" in found["ticket.p2p_refused"].title
    # P2P switched off to get past the hang (NVIDIA/nccl#631): the setting, and the hang's usual cause
    _, found = judged_issue(HANG.format(said="With P2P disabled it works, but the all-reduce is slower."))
    f = found["ticket.p2p_refused"]
    assert "refused" not in f.title and "ACS" in f.fix, (f.title, f.fix)

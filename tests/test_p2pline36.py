"""Issue 11 (p2pline36): where "P2P is off" ends and "that is the platform's path" begins.

NCCL keeps P2P off between GPUs that hang off different CPUs (NCCL_P2P_LEVEL's widest level is SYS, the path across
the CPUs' interconnect; NVIDIA in NVIDIA/nccl#1603: "we normally disable P2P and bounce the communication via Host
(SHM) buffers instead"), so "P2P disabled (cards on separate NUMA nodes, SYS path)" reports NCCL's policy, not peer
access refused: claims.p2p_off_across_cpus, read by ticket.p2p_refused. A switchable cause (BIOS, ACS, IOMMU, driver),
the system's own refusal ("not supported"), or the same-node wording keep the refusal. Real pastes (URLs in their
folders' SOURCES.md) and paraphrases on both sides; the line's case list is tests/data/p2pline36/LINE.md.
"""

from pathlib import Path

import pytest
from conftest import report_json

DATA = Path(__file__).parent / "data"


def _verdict(path: Path) -> str:
    return report_json("ticket", str(path))["verdict"]["category"]


def _ticket(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "ticket.md"
    path.write_text(text)
    return report_json("ticket", str(path))


def _rule(report: dict, name: str) -> dict | None:
    return next((f for f in report["findings"] if f["rule"] == name), None)


def test_p40_p2p_off_on_sys_path_is_no_refusal():
    """sudoingX/qwen38-mtp#29: two Tesla P40 'P2P disabled (cards on separate NUMA nodes, SYS path)' in a
    speculative-decoding A/B; settled healthy (near-miss). Main answered p2p_disabled 0.69."""
    report = report_json("ticket", str(DATA / "w3c_s24" / "p40_mtp29.md"))
    assert report["verdict"]["category"] != "p2p_disabled"
    assert not any(f["category"] == "p2p_disabled" for f in report["findings"])


SLOW = ("# TP=2 decode slow on two A6000\n\nvLLM with --tensor-parallel-size 2 on two RTX A6000 gives only 18 tok/s "
        "for Llama-2-70B AWQ, which feels slow. ")


@pytest.mark.parametrize("said", [
    "P2P disabled, the pair crosses the UPI link between the two Xeons.",
    "No P2P between them (SYS path in topo -m).",
    "P2P is not available because the GPUs are on different sockets.",
    "Peer access is disabled as the cards sit on two NUMA nodes.",
])
def test_p2p_off_across_cpus_is_the_platform(tmp_path, said):
    """Paraphrases: P2P off with its reason, a path across CPU sockets or NUMA nodes, on a complaint: an
    expected_physics lead from ticket.p2p_refused, no p2p_disabled finding."""
    report = _ticket(tmp_path, SLOW + said)
    finding = _rule(report, "ticket.p2p_refused")
    assert finding is not None and finding["category"] == "expected_physics" and finding["severity"] == "info"
    assert not any(f["category"] == "p2p_disabled" for f in report["findings"])


@pytest.mark.parametrize("said", [
    "P2P is disabled even though both cards are on the same NUMA node.",
    "P2P is disabled by the BIOS, the cards are on separate NUMA nodes.",
    "P2P is disabled on this box.",
    "CUDA says peer access is not supported between these two devices; they are on different sockets.",
    "P2P is disabled and ACS is on, the cards are on separate NUMA nodes.",
])
def test_refusal_with_a_switchable_cause_stays_p2p_disabled(tmp_path, said):
    """Near-misses: the same-node wording, a switchable cause (BIOS, ACS) or the system's own refusal beside the
    socket words, or no reason at all, stay peer access refused."""
    finding = _rule(_ticket(tmp_path, SLOW + said), "ticket.p2p_refused")
    assert finding is not None and finding["category"] == "p2p_disabled"


def test_asked_whether_sockets_disable_p2p_is_not_the_platform(tmp_path):
    """A question ("is P2P off because they are on different sockets?") states nothing: no physics lead."""
    finding = _rule(_ticket(tmp_path, SLOW + "P2P is disabled. Is P2P off because they are on different sockets?"),
                    "ticket.p2p_refused")
    assert finding is None or finding["category"] == "p2p_disabled"


def test_no_complaint_no_lead(tmp_path):
    """P2P off across the CPUs said beside figures nobody calls slow: nothing to explain, no finding."""
    report = _ticket(tmp_path, "# numbers\n\n2x Tesla P40, llama.cpp, 11.7 tok/s baseline and 22.6 tok/s with a draft "
                               "model; P2P disabled (the GPUs span two NUMA nodes, SYS in topo -m).\n")
    assert _rule(report, "ticket.p2p_refused") is None


def test_p2p_set_off_across_sockets_stays_the_setting():
    """NVIDIA/nccl#1130: all_reduce_perf 'with P2P disabled' on GPUs across two sockets: the reporter's setting is
    read first (ticket.p2p_refused's off-by-setting finding), unchanged by the socket words."""
    report = report_json("ticket", str(DATA / "ut22a" / "nccl1130.md"))
    finding = _rule(report, "ticket.p2p_refused")
    assert finding is not None and finding["category"] == "p2p_disabled" and "setting" in finding["title"]


def test_p2p_refused_error_text_stays_p2p_disabled():
    """Real refusals stay: NVIDIA/nccl-tests#289-like error text is not touched; the development case of a
    custom all-reduce refused on two T4 (u9a02) keeps its p2p_disabled verdict."""
    case = DATA / "tickets" / "u9a02-sglang-0117-2xt4-kaggle-custom-allreduce-peer-access-not-supported"
    assert _verdict(case) == "p2p_disabled"


@pytest.mark.xfail(strict=True, reason="sgl-project/sglang#2961 settled expected_physics (maintainer: 'For 2080 that's "
                   "normal' of a 20 s prefill at TP 4); the board-class prior (ticket.symptom_prior) still names "
                   "p2p_disabled, and development cases on the same board (s012, u13a02) are settled p2p_disabled, so "
                   "the prior's category is not changed on one thread")
def test_2080ti_prefill_normal_is_physics():
    assert _verdict(DATA / "physics31" / "sglang2961.md") == "expected_physics"

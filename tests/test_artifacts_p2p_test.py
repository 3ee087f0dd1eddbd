"""p2pBandwidthLatencyTest parser (and health-check P2P lines) on real tickets and a full run.

STAND-IN: tests/data/hardware/p2p_full.txt (the "full run") was written by hand after the CUDA
sample's output; ticket attachments are real. Real public runs (2x RTX 5090 without peer access,
8x A100 over NVLink) are tested in test_artifacts_real_public.py (tests/data/hardware/real/).
"""

from pathlib import Path

from conftest import named, shared_path

from diagnose.artifacts import p2p_test
from diagnose.evidence import GpuFact, P2PStatus, PairBandwidth

DATA = Path(__file__).parent / "data" / "hardware"


def _bw(records, direction="bi", enabled=True, unit="GB/s"):
    return {(r.a, r.b): r for r in records if isinstance(r, PairBandwidth)
            and (r.direction, r.p2p_enabled, r.unit) == (direction, enabled, unit)}


def test_a40_cross_socket_matrices_with_cut_rows():
    text = shared_path("tickets", "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower",
                       "attachment2.txt").read_text()
    assert p2p_test.detect(text) > 0.8
    records = p2p_test.parse(text, "a2.txt")
    disabled, enabled = _bw(records, enabled=False), _bw(records)
    assert disabled[(0, 1)].value == 19.13 and disabled[(0, 1)].source == "a2.txt:3"
    assert enabled[(0, 1)].value == 101.60 and enabled[(2, 3)].value == 101.60
    assert enabled[(0, 2)].value == 50.07 and enabled[(0, 4)].value == 39.64
    assert (0, 0) not in enabled  # the diagonal is a GPU's copy to itself
    assert (3, 4) in enabled and (3, 5) not in enabled  # the paste cut row 3 at '41...'
    assert not any(r.a >= 4 for r in records)  # rows 4-7 are not in the paste


def test_h100_bidirectional_trailing_spaces():
    text = shared_path("tickets", "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", "attachment2.txt").read_text()
    enabled = _bw(p2p_test.parse(text, "a2.txt"))
    assert len(enabled) == 56
    assert enabled[(2, 1)].value == 773.25 and enabled[(7, 6)].value == 740.83
    assert min(r.value for r in enabled.values()) == 739.42


def test_health_check_p2p_lines():
    text = shared_path("tickets", "018-azurehpc-health-checks-162-h100-pcie-inactive-links-by-design",
                       "attachment1.log").read_text()
    bw = [r for r in p2p_test.parse(text, "a1.log") if isinstance(r, PairBandwidth)]
    assert [(r.a, r.b, r.value, r.source) for r in bw] == [(1, 0, 256.63, "a1.log:1"), (0, 1, 256.63, "a1.log:2")]


def test_full_run_devices_access_and_latency():
    records = named(p2p_test.parse((DATA / "p2p_full.txt").read_text(), "p"))
    gpus = [r for r in records if isinstance(r, GpuFact)]
    assert [(g.index, g.bus_id, g.catalog_key) for g in gpus][1] == (1, "0000:41:00.0", "rtx-4090")
    access = {(r.a, r.b): r for r in records if isinstance(r, P2PStatus)}
    assert len(access) == 6 and not any(r.ok for r in access.values())
    assert access[(0, 1)].status == "CANNOT" and access[(0, 1)].source == "p:5"
    assert _bw(records, "uni", False)[(0, 1)].value == 21.57
    assert _bw(records, "uni", True)[(2, 1)].value == 21.61
    latency = _bw(records, "uni", False, "us")
    assert latency[(0, 1)].value == 12.73 and len(latency) == 6  # the CPU block is skipped
    assert _bw(records, "uni", True, "us")[(1, 0)].value == 12.61


def test_rank_prefixed_and_spaced_paste():
    text = shared_path("tickets", "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", "attachment2.txt").read_text()
    prefixed = "\n".join("[1,0]<stdout>:" + line.replace(" ", "\t") for line in text.splitlines())
    assert _bw(p2p_test.parse(prefixed, "t"))[(2, 1)].value == 773.25


def test_a_description_naming_the_tool_is_not_its_output():
    text = shared_path("tickets", "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional", "ticket.toml").read_text()
    assert "p2pBandwidthLatencyTest" in text
    assert p2p_test.detect(text) < 0.5 and p2p_test.parse(text, "ticket.toml") == []


def test_two_runs_in_one_file_keep_both_access_tables():
    text = (DATA / "p2p_full.txt").read_text()
    second = text.replace("CANNOT Access Peer Device=1\n", "CAN Access Peer Device=1\n", 1)
    access = [r for r in p2p_test.parse(text + second, "p") if isinstance(r, P2PStatus)]
    assert len(access) == 12
    # p:66 is line 5 of the second run (61 + 5)
    assert [(r.ok, r.source) for r in access if (r.a, r.b) == (0, 1)] == [(False, "p:5"), (True, "p:66")]

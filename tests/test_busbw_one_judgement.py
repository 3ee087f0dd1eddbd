"""One busbw judgement (rules/nccl.py `nccl.busbw`) over the same figures, whatever carries them.

The node: the real RHEL AI 8x H100 VM recording (tests/recordings/h100-vm-rhel-ai-topo-nvlink.json,
`topo --matrix` NV18 on every pair) with an all_reduce sweep added to it. The same figures reach the
rules four ways: `diagnose node --replay`, `diagnose ticket` on that run's `--json` report, `diagnose
ticket` on an nccl-tests table beside the node's own `topo --matrix` text, and the reporter's words.
Each gives the same finding, severity and exit code; `diagnose fleet` keeps each node's own verdict.
"""

from __future__ import annotations

import json

import pytest
from conftest import REPO, diagnose

RECORDING = REPO / "tests" / "recordings" / "h100-vm-rhel-ai-topo-nvlink.json"
TOPO_TEXT = REPO / "tests" / "recordings" / "sources" / "h100-vm-rhel-ai-topo-nvlink.txt"
SIZES = (1 << 20, 64 << 20, 256 << 20)
H100 = "NVIDIA H100 80GB HBM3"


def _row(size: int, busbw: float) -> tuple[float, float]:
    """(time us, algbw) of an 8-rank all_reduce at `busbw` (nccl-tests: busbw = algbw x 2(n-1)/n)."""
    algbw = busbw * 8 / 14
    return size / algbw / 1e3, algbw


def recording(tmp_path, busbw: float, name: str = "node.json"):
    """The real recording with a probe sweep at `busbw` GB/s on all eight GPUs."""
    rec = json.loads(RECORDING.read_text())
    rec["results"] = [{"type": "CollectiveResult", "source": "probe:collectives", "op": "all_reduce",
                       "size_bytes": size, "time_us": _row(size, busbw)[0], "algbw_gbs": _row(size, busbw)[1],
                       "busbw_gbs": busbw, "nranks": 8, "nodes": 1, "group": list(range(8)), "tool": "diagnose"}
                      for size in SIZES]
    path = tmp_path / name
    path.write_text(json.dumps(rec))
    return path


def nccl_tests_table(busbw: float) -> str:
    """all_reduce_perf's own layout (nccl-tests 2.x, as in ../shared/tickets) with the same figures."""
    lines = ["# nThread 1 nGpus 8 minBytes 1048576 maxBytes 268435456 step: 2(factor) warmup iters: 5 iters: 20",
             "#", "# Using devices"]
    lines += [f"#  Rank  {i} Group  0 Pid  4242 on   rhel_ai device  {i} [0x{i:02x}] {H100}" for i in range(8)]
    lines += ["#", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time"
              "   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)"
              "  (GB/s)  (GB/s)       "]
    for size in SIZES:
        us, algbw = _row(size, busbw)
        lines.append(f"{size:>12} {size // 4:>13}     float     sum      -1 {us:>8.1f} {algbw:>7.2f} {busbw:>7.2f}"
                     f"      0 {us:>8.1f} {algbw:>7.2f} {busbw:>7.2f}      0")
    return "\n".join(lines + ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {busbw:.3f}", ""])


def busbw_findings(report: dict) -> list[tuple[str, str]]:
    return [(f["category"], f["severity"]) for f in report["findings"] if f["rule"] == "nccl.busbw"]


# 21 GB/s: a PCIe-level figure on NVSwitch (6 % of nvswitch3's typical 370); 150: NVLink in use at 41 %;
# 330: 89 %, a healthy HGX H100 (nccl-tests issue 212 and NVIDIA's DGX H100 figures sit at 360-480);
# 600: above the 450 GB/s line rate, which NVLS allows up to 450 x 2(n-1)/n = 787.5; 1200: above that
# ceiling, a figure no all-reduce on this node can give (misread or measured elsewhere).
@pytest.mark.parametrize("busbw, expected, code", [
    (21.0, ("pcie_fallback", "critical"), 1),
    (150.0, ("other", "warning"), 0),
    (330.0, ("healthy", "ok"), 0),
    (600.0, ("healthy", "ok"), 0),
    (1200.0, ("other", "warning"), 0),
])
def test_the_same_figures_give_the_same_finding_in_node_ticket_and_a_pasted_table(tmp_path, busbw, expected, code):
    rec = recording(tmp_path, busbw)
    node = diagnose("node", "--replay", rec, "--json", "-o", tmp_path / "n1.json")
    assert node.exit_code == code, node.output
    from_node = json.loads((tmp_path / "n1.json").read_text())
    assert busbw_findings(from_node) == [expected]

    again = diagnose("ticket", tmp_path / "n1.json", "--json")
    assert again.exit_code == code, again.output
    assert busbw_findings(json.loads(again.stdout)) == [expected]

    bundle = tmp_path / "ticket"
    bundle.mkdir()
    (bundle / "all_reduce_perf.txt").write_text(nccl_tests_table(busbw))
    (bundle / "topo.txt").write_text(TOPO_TEXT.read_text())
    pasted = diagnose("ticket", bundle, "--json")
    assert pasted.exit_code == code, pasted.output
    table = json.loads(pasted.stdout)
    assert busbw_findings(table) == [expected]
    if code:
        assert table["verdict"]["category"] == from_node["verdict"]["category"] == expected[0]
        assert table["verdict"]["confidence"] == from_node["verdict"]["confidence"]


@pytest.mark.parametrize("figure", ["a busbw of 21 GB/s", "busbw 168 Gb/s", "bus bandwidth of 21000 MB/s",
                                    "busbw: 19.56 GiB/s"])
def test_the_reporters_figure_in_any_unit_is_judged_as_the_table_is(tmp_path, figure):
    """Paraphrases of the same 21 GB/s (bits, megabytes, binary gigabytes): the same critical finding;
    the ticket's verdict rests on it, not on the 'is this normal?' physics prior."""
    (tmp_path / "issue.md").write_text(
        "# all_reduce_perf busbw on 8x H100 SXM\n\nOn one HGX H100 node (8 GPUs, NVSwitch) all_reduce_perf -b 8 -e 8G "
        f"-f 2 -g 8 gives {figure} at 8 GB. Is this normal?\n")
    result = diagnose("ticket", tmp_path, "--json")
    report = json.loads(result.stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "nccl.busbw"]
    assert (f["category"], f["severity"]) == ("pcie_fallback", "critical")
    assert f["evidence"][0]["measured"] == pytest.approx(21.0, rel=0.01)
    assert report["verdict"]["category"] == "pcie_fallback" and result.exit_code == 1


def test_a_figure_in_band_keeps_the_physics_answer(tmp_path):
    """The negation: 340 GB/s on the same node is what NVSwitch gives; no fault, exit 0."""
    (tmp_path / "issue.md").write_text(
        "# all_reduce_perf busbw on 8x H100 SXM\n\nOn one HGX H100 node (8 GPUs, NVSwitch) all_reduce_perf -b 8 -e 8G "
        "-f 2 -g 8 gives a busbw of 340 GB/s at 8 GB. Is this normal?\n")
    result = diagnose("ticket", tmp_path, "--json")
    report = json.loads(result.stdout)
    assert [f["severity"] for f in report["findings"] if f["rule"] == "nccl.busbw"] == ["ok"]
    assert report["verdict"]["category"] in ("expected_physics", "healthy") and result.exit_code == 0


def test_half_the_fabric_drops_the_physics_prior(tmp_path):
    """180 GB/s busbw on 8x H100 SXM (49 % of nvswitch3's 370): the answer must not say that nothing
    points at a fault while a finding says the figure is half of what the fabric gives."""
    (tmp_path / "issue.md").write_text(
        "# all_reduce_perf busbw low on 8x H100 SXM\n\nOn one HGX H100 node (8 GPUs, NVSwitch) all_reduce_perf "
        "-b 8 -e 8G -f 2 -g 8 gives a busbw of 180 GB/s at 8 GB. Is this normal?\n")
    report = json.loads(diagnose("ticket", tmp_path, "--json").stdout)
    assert report["verdict"]["category"] != "expected_physics"
    assert not [f for f in report["findings"] if f["rule"] == "ticket.symptom_prior"]
    (f,) = [f for f in report["findings"] if f["rule"] == "nccl.busbw"]
    assert f["severity"] == "warning" and "NVLink is in use" in f["summary"]


def test_fleet_keeps_each_nodes_own_critical_verdict(tmp_path):
    """Three nodes broken the same way: no outlier among them, yet each is critical, and so is the fleet."""
    reports = tmp_path / "fleet"
    reports.mkdir()
    for name in ("n1", "n2", "n3"):
        rec = recording(tmp_path, 21.0, f"{name}-rec.json")
        assert diagnose("node", "--replay", rec, "--json", "-o", reports / f"{name}.json").exit_code == 1
    result = diagnose("fleet", reports, "--json")
    assert result.exit_code == 1, result.output
    report = json.loads(result.stdout)
    own = [(f["title"].split(":")[0], f["category"], f["severity"]) for f in report["findings"]
           if f["rule"] == "fleet.node_verdict"]
    assert own == [(n, "pcie_fallback", "critical") for n in ("n1", "n2", "n3")]
    assert not [f for f in report["findings"] if f["rule"] == "fleet.outlier"]
    assert report["verdict"]["category"] == "pcie_fallback"


L40S = REPO / "tests" / "recordings" / "4x-l40s-pcie-two-sockets.json"
A40 = REPO / "tests" / "recordings" / "8x-a40-nvlink-pairs-two-sockets.json"


def _replayed(tmp_path, recording_path, gpus: int, busbw: float) -> dict:
    """The nccl.busbw finding of a real node recording with an all_reduce sweep at `busbw` on every GPU."""
    rec = json.loads(recording_path.read_text())
    algbw = busbw * gpus / (2 * (gpus - 1))
    rec["results"] = [{"type": "CollectiveResult", "source": "probe:collectives", "op": "all_reduce",
                       "size_bytes": size, "time_us": size / algbw / 1e3, "algbw_gbs": algbw,
                       "busbw_gbs": busbw, "nranks": gpus, "nodes": 1, "group": list(range(gpus)), "tool": "diagnose"}
                      for size in SIZES]
    path = tmp_path / "node.json"
    path.write_text(json.dumps(rec))
    report = json.loads(diagnose("node", "--replay", path, "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "nccl.busbw"]
    return f


@pytest.mark.parametrize("busbw, expected", [(60.0, ("other", "warning")), (30.0, ("healthy", "ok"))])
def test_a_ring_over_pcie_cannot_pass_the_link_rate(tmp_path, busbw, expected):
    """The real 4x L40S PCIe node: no in-network reduction, so a ring's busbw tops out at the Gen4 x16
    rate (31.5 GB/s per direction); 60 GB/s is a figure from elsewhere, never 'not an error'."""
    f = _replayed(tmp_path, L40S, 4, busbw)
    assert (f["category"], f["severity"]) == expected
    if expected[1] == "warning":
        assert "physically" in f["title"]
        assert any(e.get("expected") == 31.5 and "ring" in e["detail"] for e in f["evidence"])


@pytest.mark.parametrize("busbw, impossible", [(45.0, False), (80.0, True)])
def test_pcie_hops_between_nvlink_pairs_may_carry_both_ways(tmp_path, busbw, impossible):
    """The real 8x A40 node (NVLink pairs, PCIe between them): each GPU's PCIe link carries one ring
    direction each way, so the bound is twice its line rate; above that, impossible."""
    f = _replayed(tmp_path, A40, 8, busbw)
    assert ("physically" in f["title"]) is impossible
    assert f["severity"] == ("warning" if impossible else "ok")


@pytest.mark.parametrize("words, expected", [
    ("busbw 480 GB/s with NCCL_ALGO=NVLS", ("healthy", "ok")),  # NVLS's measured figure [R2][R3]
    ("-g 8 shows busbw 1200 GB/s at 8G", ("other", "warning")),  # above 450 x 2(8-1)/8 = 787.5
])
def test_the_reporters_words_get_the_nvls_ceiling_of_the_whole_switch(tmp_path, words, expected):
    """Without a GPU count the ceiling takes the largest group the NVSwitch holds (8), not a guess of
    two GPUs that would call NVLS's real 480 GB/s impossible."""
    (tmp_path / "issue.md").write_text(f"# all_reduce busbw on HGX H100\n\nOur HGX H100 node (NVSwitch) {words}. "
                                       "Is this normal?\n")
    report = json.loads(diagnose("ticket", tmp_path, "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "nccl.busbw"]
    assert (f["category"], f["severity"]) == expected
    assert any(e.get("expected") == 787.5 and "NVLS" in e["detail"] for e in f["evidence"])


@pytest.mark.parametrize("busbw, expected, code", [
    (21.0, ("pcie_fallback", "critical"), 1),
    (150.0, ("other", "warning"), 0),
])
def test_scaling_judges_its_node_files_busbw_as_ticket_does(tmp_path, busbw, expected, code):
    """`scaling --node` reads the same table (or node report) ticket reads: the same nccl.busbw
    finding, verdict and exit code, not expected_physics over a calibration from a broken fabric."""
    rec = recording(tmp_path, busbw)
    assert diagnose("node", "--replay", rec, "--json", "-o", tmp_path / "n1.json").exit_code == code
    table = tmp_path / "all_reduce_perf.txt"
    table.write_text(nccl_tests_table(busbw))
    runs = tmp_path / "itl.csv"
    runs.write_text("layout,batch,metric,value,engine\nTP2,1,itl_ms,34,vllm\nTP8,1,itl_ms,19,vllm\n")
    for node in (tmp_path / "n1.json", table):
        alone = diagnose("ticket", node, "--json")
        scaled = diagnose("scaling", runs, "--model", "llama-3-70b", "--gpu", "h100-sxm", "--node", node, "--json")
        assert (scaled.exit_code, alone.exit_code) == (code, code), scaled.output
        got, want = json.loads(scaled.stdout), json.loads(alone.stdout)
        assert busbw_findings(got) == busbw_findings(want) == [expected]
        if code:
            assert got["verdict"]["category"] == want["verdict"]["category"] == expected[0]

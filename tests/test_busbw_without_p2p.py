"""A pasted nccl-tests table on GPUs whose driver refuses PCIe peer-to-peer (catalog `pcie_p2p = false`,
GeForce) is judged against the path NCCL really takes there: through host memory (SHM), as the reporter's own
figure is and as `predict --gpu rtx-4090 --tp 8` says ("NCCL stages through host memory").

User-tester ut6 item 4: 8x RTX 4090, 11.2 GB/s busbw, was "46 % of what PCIe Gen4 x16 gives" (info,
verdict insufficient_data); the rule never read pcie_p2p.
"""

from __future__ import annotations

import json

import pytest
from conftest import diagnose

SIZES = (134217728, 268435456, 536870912, 1073741824)


def table(gpu: str, busbw: float, n: int = 8) -> str:
    """all_reduce_perf's own layout (nccl-tests 2.x) with `busbw` GB/s at every large size."""
    lines = [f"# nThread 1 nGpus {n} minBytes 256 maxBytes 1073741824 step: 2(factor) warmup iters: 20 iters: 100",
             "#", "# Using devices"]
    lines += [f"#  Rank  {i} Group  0 Pid   6151 on     ubuntu device  {i} [0x{i:02x}] NVIDIA {gpu}" for i in range(n)]
    lines += ["#", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time"
              "   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)"
              "  (GB/s)  (GB/s)       "]
    algbw = busbw * n / (2 * (n - 1))
    for size in SIZES:
        us = size / algbw / 1e3
        lines.append(f"{size:>12} {size // 4:>13}     float     sum      -1 {us:>8.0f} {algbw:>7.2f} {busbw:>7.2f}"
                     f"      0 {us:>8.0f} {algbw:>7.2f} {busbw:>7.2f}      0")
    return "\n".join(lines + ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {busbw:.2f}", ""])


def ticket(tmp_path, text: str, issue: str | None = None):
    (tmp_path / "nccl.txt").write_text(text)
    if issue:
        (tmp_path / "issue.md").write_text(issue)
    result = diagnose("ticket", tmp_path, "--json")
    return json.loads(result.output), result.exit_code


def busbw(report: dict) -> dict:
    return next(f for f in report["findings"] if f["rule"] == "nccl.busbw")


@pytest.mark.parametrize("gpu, value", [
    ("GeForce RTX 4090", 11.2),  # the tester's table: 46 % of the P2P figure
    ("GeForce RTX 4090", 6.5),  # another figure between the host-memory and the P2P figures
    ("GeForce RTX 3090", 9.0),  # another GeForce board, Gen4 too
])
def test_geforce_table_is_the_host_memory_path(tmp_path, gpu, value):
    report, code = ticket(tmp_path, table(gpu, value))
    f = busbw(report)
    assert (f["category"], f["severity"], code) == ("expected_physics", "info", 0)
    assert "peer-to-peer" in f["summary"] and "host memory" in f["summary"]
    assert any("pcie_p2p = false" in e["detail"] for e in f["evidence"])
    assert report["verdict"]["category"] == "expected_physics"


def test_same_verdict_as_the_reporters_words(tmp_path):
    """The table and the reporter's sentence carry the same figure: the same category."""
    report, _ = ticket(tmp_path, table("GeForce RTX 4090", 11.2))
    words = tmp_path / "words"
    words.mkdir()
    (words / "issue.md").write_text("# Is this normal?\n\n8x RTX 4090, nccl-tests all_reduce_perf busbw is "
                                    "11.2 GB/s. Is this normal?\n")
    said = json.loads(diagnose("ticket", words, "--json").output)
    assert report["verdict"]["category"] == said["verdict"]["category"] == "expected_physics"


def test_p2p_board_at_the_same_share_still_warns(tmp_path):
    """Negation: an RTX A6000 has PCIe P2P, so 11.2 GB/s (46 % of Gen4) is a slower path than it should take."""
    report, code = ticket(tmp_path, table("RTX A6000", 11.2))
    f = busbw(report)
    assert f["severity"] == "warning" and f["category"] != "expected_physics"
    assert not any("pcie_p2p" in e["detail"] for e in f["evidence"])


def test_far_below_the_host_memory_path_is_not_physics(tmp_path):
    """Under a quarter of the P2P figure (~6.1 GB/s over Gen4) is more than staging through host memory explains."""
    report, _ = ticket(tmp_path, table("GeForce RTX 4090", 1.0))
    assert busbw(report)["category"] != "expected_physics"


def test_the_shm_paths_own_figure_is_physics(tmp_path):
    """4x RTX 4090 in docker at 2.58 GB/s busbw from 128 MiB up (kalavai-client scripts/README.md @ 9588f6d,
    https://github.com/kalavai-net/kalavai-client/blob/9588f6d855491bdb59fcbb7ce6a13e8df2bee767/scripts/README.md,
    tests/data/collectives/nccltests-rtx4090-4gpu-kalavai-docker.csv): the healthy SHM path the predictor models
    (rules.collectives.shm_busbw_gbs), not 'slower than staging explains' as a quarter of the P2P figure
    (6.1 GB/s) called it."""
    from rules import catalog
    from rules.collectives import shm_busbw_gbs

    assert shm_busbw_gbs(catalog.interconnect("pcie4")) == pytest.approx(2.59, abs=0.005)
    report, code = ticket(tmp_path, table("GeForce RTX 4090", 2.58, n=4))
    f = busbw(report)
    assert (f["category"], f["severity"], code) == ("expected_physics", "info", 0)
    assert "2.59 GB/s busbw" in json.dumps(f)

"""(busbw33, issue 11) A pasted nccl-tests table answers only what it measured: the links among the ranks that ran, at
the sizes run (nccl-tests doc/PERFORMANCE.md). Where the table ran inside one node of a job that spans nodes, it is
judged against the node's own fabric, not the NICs, and its pass is context, not "healthy"; where the ticket compares
NCCL releases, a table that fits its fabric does not say the releases run alike. A table that is the complaint keeps
deciding, as before. The tables below are real: tests/data/collectives/nccltests-a100-40gb-oci-1x8-ocitutorials.csv
(8x A100-SXM4-40GB in one OCI node, its rows as printed); the prose around them is paraphrase."""
from pathlib import Path

from conftest import report_json

DATA = Path(__file__).parent / "data"
OCI_1X8 = DATA / "collectives" / "nccltests-a100-40gb-oci-1x8-ocitutorials.csv"


def _table(nccl: str = "") -> str:
    """The OCI 1x8 rows (64 MiB and up) as all_reduce_perf prints them, ranks all on one host."""
    rows = [line.split(",") for line in OCI_1X8.read_text().splitlines() if line.startswith("nccl,")]
    out = ["# nThread 1 nGpus 8 minBytes 67108864 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20",
           "#", "# Using devices"]
    out += [f"#   Rank  {i} Pid  4242 on  gpu-node-01 device  {i} [0x{i:02x}] NVIDIA A100-SXM4-40GB" for i in range(8)]
    out += [f"NCCL version {nccl}+cuda11.8"] if nccl else []
    out += ["#", "#" + " " * 53 + "out-of-place" + " " * 23 + "in-place",
            "#       size         count    type   redop     time   algbw   busbw  error"
            "     time   algbw   busbw  error",
            "#        (B)    (elements)                     (us)  (GB/s)  (GB/s)"
            "            (us)  (GB/s)  (GB/s)"]
    for _, _, _, n, _, size, time_us, busbw, *_ in rows:
        if int(size) >= 64 << 20:
            algbw = float(busbw) * int(n) / (2 * (int(n) - 1))
            out.append(f"{int(size):>12} {int(size) // 4:>13}   float     sum {float(time_us):>8.1f} {algbw:>7.2f} "
                       f"{float(busbw):>7.2f}  0e+00 {float(time_us):>8.1f} {algbw:>7.2f} {float(busbw):>7.2f}  0e+00")
    return "\n".join(out)


def _ticket(tmp_path: Path, text: str) -> dict:
    path = tmp_path / "issue.md"
    path.write_text(text)
    return report_json("ticket", str(path))


def _busbw(report: dict) -> dict:
    (f,) = [f for f in report["findings"] if f["rule"] == "nccl.busbw"]
    return f


def test_one_node_table_of_a_one_node_complaint_decides(tmp_path):
    """The table is the complaint (8 GPUs of one node, 235 GB/s on NVSwitch gen2): it passes and answers it."""
    r = _ticket(tmp_path, "# all_reduce_perf on our DGX A100 only reaches 235 GB/s, is that normal?\n\n"
                          "One node, 8x A100-SXM4-40GB.\n\n```\n" + _table() + "\n```\n")
    f = _busbw(r)
    assert f["severity"] == "ok" and f["confidence"] >= 0.6 and "NVSwitch gen2" in f["title"]
    assert "8 GiB message on 8 GPUs" in f["summary"]  # it says what it measured
    assert r["verdict"]["category"] in ("healthy", "expected_physics")


def test_one_node_table_of_a_multi_node_job_is_judged_on_the_node_and_is_context(tmp_path):
    """The same table pasted under a complaint about two nodes: it measured NVSwitch, not the NICs or GPUDirect RDMA,
    so it is judged against NVSwitch (not "above the NICs' line rate") and does not make the two-node job healthy."""
    r = _ticket(tmp_path, "# Training on 2 nodes much slower than on 1 node\n\n"
                          "We have 2 nodes, each with 8x A100-SXM4-40GB and 4x 200Gb InfiniBand. Training across "
                          "the two nodes is 3x slower per step than on one node. nccl-tests on one node:\n\n```\n"
                          + _table() + "\n```\n")
    f = _busbw(r)
    assert "NVSwitch gen2" in f["title"] and "line rate" not in f["title"]
    assert f["confidence"] < 0.5 and "inside one node" in f["summary"]
    assert r["verdict"]["category"] != "healthy"


def test_release_comparison_with_tables_that_fit_is_not_healthy(tmp_path):
    """Two releases' tables, each fitting NVSwitch gen2: the table's pass does not settle which release is faster."""
    r = _ticket(tmp_path, "# Step time grew after moving from NCCL 2.18.3 to 2.21.5\n\n"
                          "8x A100-SXM4-40GB in one node. Our training step is 15% slower with the new NCCL.\n\n"
                          "```\n" + _table("2.18.3") + "\n```\n\n```\n" + _table("2.21.5") + "\n```\n")
    f = _busbw(r)
    assert f["confidence"] < 0.5 and "compares NCCL releases" in f["summary"]
    assert r["verdict"]["category"] != "healthy"


def test_one_release_printed_keeps_the_pass(tmp_path):
    """Near-miss: one table, one release printed: no comparison, the pass decides as before."""
    r = _ticket(tmp_path, "# Is 235 GB/s busbw right for 8x A100?\n\n```\n" + _table("2.18.3") + "\n```\n")
    f = _busbw(r)
    assert f["severity"] == "ok" and f["confidence"] >= 0.6 and "Context only" not in f["summary"]


def test_kept_release_ab_paste_keeps_its_regression_verdict():
    """u107 (paraphrase e of nccl-tests by-version busbw, 2 x 8 A100): the reporter's release A/B decides; the table's
    "above the line rate" pass is context."""
    r = report_json("ticket", str(DATA / "paraphrases" / "u107-nccl-tests-2x8a100-busbw-by-version-e" / "issue.md"))
    assert r["verdict"]["category"] == "nccl_regression"
    assert _busbw(r)["confidence"] < 0.5


def test_short_table_on_a_known_fabric_keeps_its_cause():
    """A table clearly short of its fabric stays a cause (nccl#1161: 116.55 GB/s on a bridged H100 PCIe pair, 47 %)."""
    r = report_json("ticket", str(DATA / "issues" / "nccl-1161-h100-pcie-vs-a100-sxm4.md"))
    f = _busbw(r)
    assert f["severity"] == "warning" and "47%" in f["title"] and r["verdict"]["category"] == "other"


def test_geforce_table_without_p2p_stays_physics():
    """t013 (8x RTX 5090, 28 GB/s): what boards without PCIe P2P reach, expected physics as settled."""
    r = report_json("ticket", str(DATA / "paraphrases" / "t013-nccl-8x5090-allreduce-28gbs-a" / "issue.md"))
    assert _busbw(r)["category"] == "expected_physics" and r["verdict"]["category"] == "expected_physics"


def test_two_releases_asked_about_without_a_complaint_keep_the_pass(tmp_path):
    """Near-miss: two releases' tables put side by side with "is this fine?", nothing called slower: the tables are
    what is asked about, and they fit."""
    r = _ticket(tmp_path, "# Two nccl-tests runs\n\n8x A100-SXM4-40GB in one node. Here are both runs, is this "
                          "fine?\n\n```\n" + _table("2.18.3") + "\n```\n\n```\n" + _table("2.21.5") + "\n```\n")
    assert _busbw(r)["confidence"] >= 0.6 and r["verdict"]["category"] == "healthy"


def test_table_over_two_hosts_stays_a_network_table(tmp_path):
    """Near-miss: the same 8 ranks spread over two hosts (4 + 4) measured the network: judged against the NICs as
    before, never as a one-node table, however few its ranks."""
    table = _table().replace("gpu-node-01 device  4", "gpu-node-02 device  4")
    for i in (5, 6, 7):
        table = table.replace(f"gpu-node-01 device  {i}", f"gpu-node-02 device  {i}")
    r = _ticket(tmp_path, "# Training on 2 nodes much slower than on 1 node\n\nWe have 2 nodes, each with 8x "
                          "A100-SXM4-40GB and 4x 200Gb InfiniBand. nccl-tests across the two nodes, 4 GPUs on "
                          "each:\n\n```\n"
                          + table + "\n```\n")
    f = _busbw(r)
    assert "NVSwitch" not in f["title"] and "inside one node" not in f["summary"]

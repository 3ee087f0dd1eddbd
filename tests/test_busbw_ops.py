"""`nccl.busbw` judges each nccl-tests collective by the ceiling that applies to it (rules/nccl.py RING_OPS, LINK_OPS).

nccl-tests doc/PERFORMANCE.md normalises busbw so that all_reduce, all_gather, reduce_scatter, broadcast and reduce
compare with the same hardware peak (algbw x 2(n-1)/n, (n-1)/n, (n-1)/n, 1, 1): each is held to the typical figure of
its fabric; NVLS lifts only all-reduce's busbw past the line rate. alltoall and sendrecv have no documented typical
figure: only a figure their links cannot carry is judged, and across nodes nothing (part of an all-to-all stays on
NVLink: "some of those will be over NVLink", NVIDIA/nccl-tests#267).

The tables are nccl-tests' own layout (`<op>_perf` command line, '# Using devices' lines, out-of-place and in-place
columns) carrying figures the threads report:
- 8x H100 SXM all_gather_perf ~360 GB/s busbw (NVIDIA/nccl-tests#326, tests/data/extract30/nccltests326.md);
- 8x H100 SXM all_reduce_perf with NVLS ~476-480 GB/s busbw (NVIDIA/nccl-tests#290, "in the expected range for
  H100"; the DGX Cloud sample tests/data/collectives/nccltests-h100-dgx-8gpu-dgxc-sample.csv);
- 2x H100 sendrecv_perf plateauing at ~180 GB/s (NVIDIA/nccl-tests#268, tests/data/ut21a/ncclt268.md);
- 8x A100 SXM alltoall_perf (NVIDIA/nccl-tests#100) and 8x A100 sendrecv 195 GB/s (collectives-reference.md R13);
- the all_gather_perf rows of NVIDIA/nccl#1435 verbatim (tests/data/ut13/nccl1435_allgather_2gpu.txt).
"""

from __future__ import annotations

import shutil

import pytest
from conftest import REPO, judged_issue

H100 = "NVIDIA H100 80GB HBM3"
A100 = "NVIDIA A100-SXM4-80GB"
FACTOR = {"all_reduce": lambda n: 2 * (n - 1) / n, "all_gather": lambda n: (n - 1) / n,
          "reduce_scatter": lambda n: (n - 1) / n, "broadcast": lambda n: 1.0, "reduce": lambda n: 1.0,
          "alltoall": lambda n: (n - 1) / n, "sendrecv": lambda n: 1.0}
SIZES = (64 << 20, 256 << 20, 1 << 30)


def table(op: str, busbw: float, gpu: str = H100, ranks: int = 8, hosts: int = 1) -> str:
    """An `<op>_perf` run in nccl-tests' layout at `busbw` GB/s at its large sizes (algbw = busbw / the op's factor)."""
    per_host = ranks // hosts
    lines = [f"./build/{op}_perf -b 64M -e 1G -f 4 -g 1",
             "# nThread 1 nGpus 1 minBytes 67108864 maxBytes 1073741824 step: 4(factor) warmup iters: 5 iters: 20",
             "#", "# Using devices"]
    lines += [f"#  Rank {r:>2} Group  0 Pid {4000 + r} on node{r // per_host} device {r % per_host:>2} "
              f"[0x{r % per_host:02x}] {gpu}" for r in range(ranks)]
    lines += ["#", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time"
              "   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)"
              "  (GB/s)  (GB/s)       "]
    redop = "sum" if op in ("all_reduce", "reduce_scatter", "reduce") else "none"
    root = "0" if op in ("broadcast", "reduce") else "-1"
    algbw = busbw / FACTOR[op](ranks)
    for size in SIZES:
        us = size / algbw / 1e3
        count = size // 4 // (ranks if op in ("all_gather", "reduce_scatter", "alltoall") else 1)
        lines.append(f"{size:>12} {count:>13}     float {redop:>7} {root:>7} {us:>8.1f} {algbw:>7.2f} {busbw:>7.2f}"
                     f"      0 {us:>8.1f} {algbw:>7.2f} {busbw:>7.2f}      0")
    return "\n".join(lines + ["# Out of bounds values : 0 OK", f"# Avg bus bandwidth    : {busbw * 0.6:.3f}", ""])


def ticket(words: str, *tables: str) -> str:
    return f"# nccl-tests figures\n\n{words}\n\n" + "\n".join(f"```\n{t}```\n" for t in tables)


def busbw_of(text: str):
    return judged_issue(text)[1].get("nccl.busbw")


def busbw_findings(text: str) -> tuple:
    """(verdict, every nccl.busbw finding) of a pasted issue's text."""
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Facts
    from rules.engine import evaluate, ticket_verdict

    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), [f for f in findings if f.rule == "nccl.busbw"]


@pytest.mark.parametrize("op", ["all_gather", "reduce_scatter", "broadcast", "reduce"])
def test_a_ring_collective_at_its_fabrics_typical_busbw_matches(op):
    found = busbw_of(ticket("Is this busbw normal for 8 H100 SXM?", table(op, 360.0)))
    assert found is not None and found.severity == "ok" and "matches" in found.title
    word = op.replace("_", "-")
    assert f"largest {word} busbw" in found.evidence[0].detail and "all-reduce busbw on" not in found.evidence[0].detail
    assert any("PERFORMANCE.md" in str(e.source) for e in found.evidence)


def test_nvls_lifts_all_reduce_past_the_line_rate_but_not_all_gather():
    """480 GB/s is NVLS all-reduce on 8x H100 (nccl-tests#290); no all-gather can move that over 450 GB/s links."""
    ar = busbw_of(ticket("Is this busbw normal for 8 H100 SXM?", table("all_reduce", 480.0)))
    assert ar.severity == "ok" and "above the line rate" in ar.title
    ag = busbw_of(ticket("Is this busbw normal for 8 H100 SXM?", table("all_gather", 480.0)))
    assert (ag.category, ag.severity) == ("other", "warning") and "physically carry" in ag.title


def test_a_slow_all_gather_is_priced_by_its_own_figure():
    found = busbw_of(ticket("all_gather_perf on our 8x H100 node is slow.", table("all_gather", 40.0)))
    assert found.severity in ("warning", "critical") and found.category != "other"
    assert found.title.startswith("all_gather busbw") and "all_gather_perf" in found.fix


@pytest.mark.parametrize("op,busbw,gpu,ranks", [
    ("sendrecv", 180.0, H100, 2),     # nccl-tests#268: 2x H100 sendrecv plateau, no documented typical figure
    ("sendrecv", 195.0, A100, 8),     # collectives-reference.md R13
    ("alltoall", 120.0, A100, 8),     # nccl-tests#100: HGX A100 alltoall_perf
])
def test_alltoall_and_sendrecv_under_their_links_rate_are_not_judged(op, busbw, gpu, ranks):
    assert busbw_of(ticket("Is this expected?", table(op, busbw, gpu, ranks))) is None
    # the same figure as an all-reduce is judged (so the abstention is the op's, not a parse failure)
    assert busbw_of(ticket("Is this expected?", table("all_reduce", busbw, gpu, ranks))) is not None


@pytest.mark.parametrize("op", ["sendrecv", "alltoall"])
def test_alltoall_and_sendrecv_above_their_links_rate_are_impossible(op):
    found = busbw_of(ticket("Is this expected?", table(op, 400.0, A100, 8)))  # A100 NVLink: 300 GB/s a direction
    assert (found.category, found.severity) == ("other", "warning") and "physically carry" in found.title


def test_alltoall_across_nodes_is_not_judged_by_the_nics():
    """Some of a multi-node all-to-all rides NVLink inside each node (nccl-tests#267): the NICs bound nothing."""
    words = "Two nodes, 8 H100 each, one 400 Gb/s NDR NIC per GPU."
    assert busbw_of(ticket(words, table("alltoall", 60.0, H100, 16, hosts=2))) is None


def test_the_all_reduce_pass_answers_where_both_were_run():
    """A healthy all-gather never stands in for the all-reduce a tensor-parallel job runs."""
    found = busbw_of(ticket("8 H100 SXM: all_gather and all_reduce below.", table("all_gather", 360.0),
                            table("all_reduce", 200.0)))
    assert found.evidence[0].detail.startswith("largest all-reduce busbw") and found.severity != "ok"


def test_a_table_is_judged_by_its_busbw_column_not_algbw():
    """reduce_scatter over 8 ranks: algbw 411 GB/s is busbw 360 ((n-1)/n): judged at 360, a match."""
    found = busbw_of(ticket("8 H100 SXM reduce_scatter_perf:", table("reduce_scatter", 360.0)))
    assert found.evidence[0].measured == pytest.approx(360.0) and found.severity == "ok"


def test_nccl1435s_all_gather_rows_on_no_named_gpu_are_not_judged(tmp_path):
    """nccl#1435 pasted its all_gather_perf rows with no device lines and no GPU named: nothing says the fabric."""
    folder = tmp_path / "nccl1435"
    folder.mkdir()
    shutil.copy(REPO / "tests" / "data" / "ut13" / "nccl1435_allgather_2gpu.txt", folder / "issue.md")
    assert judged_issue(folder=folder)[1].get("nccl.busbw") is None


# A figure in the reporter's words is the collective its own line names: three threads read as all-reduce before.
@pytest.mark.parametrize("rel,op,value", [
    ("extract30/nccl1218.md", "all_gather", 200.0),          # NVIDIA/nccl#1218 "all_gather_perf only achieves 200GBps"
    ("healthy42/forum_hgx_a100_224173.md", "alltoall", 220.0),  # NVIDIA forum 224173 "alltoall ... 220GB/s"
    ("ut22b/nccltests331.md", "sendrecv", 73.0),             # NVIDIA/nccl-tests#331 "sendrecv_perf ... ~71–73 GB/s"
])
def test_a_typed_figure_keeps_the_collective_its_line_names(tmp_path, rel, op, value):
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Measurement

    text = (REPO / "tests" / "data" / rel).read_text()
    figures = [m for m in issue_md.parse(text, "issue.md") if isinstance(m, Measurement) and m.metric == "busbw_gbs"]
    assert [(m.op, m.value) for m in figures if m.value == value] == [(op, value)]
    folder = tmp_path / "t"
    folder.mkdir()
    shutil.copy(REPO / "tests" / "data" / rel, folder / "issue.md")
    found = judged_issue(folder=folder)[1].get("nccl.busbw")
    assert found is None or "all-reduce" not in found.evidence[0].detail


@pytest.mark.parametrize("line", [
    # all-reduce named beside it (nccl-tests#326: "all_gather and all_reduce ... ~360 GB/s for busbw")
    "I ran all_gather and all_reduce benchmark on 8 H100 and busbw is saturated at ~360 GB/s.",
    "all_reduce_perf gives busbw 150 GB/s, while alltoall_perf gives busbw 80 GB/s.",  # two collectives: unsaid whose
    "We broadcast the weights first; the nccl-tests busbw is 150 GB/s.",  # 'broadcast' the word, not the test
    "all_gather_perf and reduce_scatter_perf both show busbw 150 GB/s.",  # two other collectives: none picked
    # the collective is not the figure's subject: negated, asked about, another thread's, across a clause break or a
    # contrast, or all-reduce said as "AR" (read48c review of p48a)
    "We don't use alltoall at all; the nccl-tests busbw is only 90 GB/s on our 8x H100 SXM node.",
    "The nccl-tests busbw is only 90 GB/s on our 8x H100 SXM node; would alltoall be affected too?",
    "This is not a sendrecv problem: all our nccl-tests runs give busbw 60 GB/s on 8x A100.",
    "Similar to the alltoall issue in #1234, nccl-tests busbw is 100 GB/s here on 8x H100.",
    "nccl-tests AR busbw 100 GB/s but alltoall_perf fine on 8x H100.",
    "The MoE all-to-all is slow; nccl-tests shows busbw of 120 GB/s.",
])
def test_a_figure_whose_line_names_no_single_other_collective_stays_all_reduces(line):
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Measurement

    figures = [m for m in issue_md.parse(f"# slow\n\n{line}\n", "issue.md")
               if isinstance(m, Measurement) and m.metric == "busbw_gbs"]
    assert figures and all(m.op is None for m in figures)


def test_a_run_with_no_command_line_is_not_the_previous_runs_op():
    """Two runs pasted in one block, the second from its '# nThread' header on: its rows (sum, count x 4 = size) are
    an all-reduce, read afresh, not an all-gather inherited from the first run's command line."""
    from diagnose.artifacts import nccl_tests
    from diagnose.evidence import CollectiveResult

    second = table("all_reduce", 480.0).split("\n", 1)[1]  # its command line left off
    rows = [r for r in nccl_tests.parse(table("all_gather", 360.0) + second, "log") if isinstance(r, CollectiveResult)]
    assert {(r.op, r.busbw_gbs) for r in rows} == {("all_gather", 360.0), ("all_reduce", 480.0)}
    assert busbw_of(ticket("8 H100 SXM:", table("all_gather", 360.0) + second)).severity == "ok"


@pytest.mark.parametrize("op,factor_ok", [("reduce_scatter", True), ("broadcast", True), ("all_gather", False)])
def test_a_headed_run_with_no_command_line_is_guessed_by_its_busbw_factor(op, factor_ok):
    """No command line: reduce-scatter (sum, (n-1)/n) and broadcast (root, 1) read by nccl-tests' factor; all-gather
    prints as alltoall does ((n-1)/n, no redop, no root), so it stays unknown rather than guessed."""
    from diagnose.artifacts import nccl_tests
    from diagnose.evidence import CollectiveResult

    rows = [r for r in nccl_tests.parse(table(op, 300.0).split("\n", 1)[1], "log") if isinstance(r, CollectiveResult)]
    assert rows and {r.op for r in rows} == ({op} if factor_ok else {"unknown"})


def test_a_slow_other_collective_beside_a_passed_all_reduce_is_a_lead_with_no_fabric_cause():
    """Two DGX H100 nodes: all_reduce at 360 GB/s passed over the same NICs, so all_gather's 100 GB/s is no socket
    fallback: an info lead, and the all-reduce pass answers."""
    words = "Two DGX H100 nodes, 8x 400 Gb/s NDR each."
    runs = [table(op, bw, H100, 16, hosts=2).replace("./build/", "mpirun -np 16 ./build/")
            for op, bw in (("all_reduce", 360.0), ("all_gather", 100.0))]
    assert busbw_findings(ticket(words, runs[1]))[0].category == "socket_fallback"  # alone, judged by the NICs
    verdict, busbw = busbw_findings(ticket(words, *runs))
    assert verdict.category == "healthy"
    assert {(f.severity, f.category) for f in busbw} == {("ok", "healthy"), ("info", "other")}


def test_a_typed_slow_all_gather_beside_a_passed_all_reduce_table_is_no_pcie_fallback():
    verdict, busbw = busbw_findings(ticket("8x H100 SXM. The allgather in our model runs at 50 GB/s busbw.",
                                           table("all_reduce", 470.0)))
    assert verdict.category == "healthy"  # main's all-reduce pass, not its pcie_fallback
    assert busbw and all((f.category, f.severity) in (("healthy", "ok"), ("other", "info")) for f in busbw)
    lead = [f for f in busbw if f.severity == "info"]
    assert lead and lead[0].title.startswith("all-gather busbw is 50 GB/s")


def test_a_slow_other_collective_with_no_all_reduce_beside_it_is_still_judged():
    """The demotion needs a passed all-reduce: alone, a slow all-gather keeps its own finding."""
    verdict, busbw = busbw_findings(ticket("8x H100 SXM. all_reduce_perf is slow.", table("all_reduce", 100.0),
                                           table("all_gather", 40.0)))
    assert verdict.category != "healthy" and not any("beside an all-reduce" in f.title for f in busbw)
    assert any(f.title.startswith("all_gather busbw") for f in busbw)

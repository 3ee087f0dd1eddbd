"""nccl-tests output: real ticket attachments, pasted variants of them, and a fuzz test."""


import pytest
from artifact_fuzz import assert_survives_fuzz
from conftest import shared_path

from diagnose.artifacts import nccl_tests
from diagnose.evidence import (
    CollectiveResult,
    CollectiveSummary,
    GpuFact,
    Measurement,
    NcclEvent,
    NcclVersion,
    Workload,
)

TICKETS = "tickets"

# A real nccl-tests 2.x run over 24 ranks on A800 (a Kubeflow MPIJob write-up; only the last
# two device lines were pasted there), kept verbatim: the shared tickets hold no table with
# large messages, and the bus-bandwidth arithmetic needs one.
A800_24_RANKS = (
    "# nThread 1 nGpus 1 minBytes 536870912 maxBytes 2147483648 step: 2(factor) warmup iters: 5 iters: 20 "
    "agg iters: 1 validation: 1 graph: 0\n"
    """\
#
# Using devices
#  Rank 22 Group  0 Pid     65 on kubeflow-nccl-test-3-worker-10 device  0 [0x8a] NVIDIA A800-SXM4-80GB
#  Rank 23 Group  0 Pid     66 on kubeflow-nccl-test-3-worker-10 device  1 [0x8f] NVIDIA A800-SXM4-80GB
#
#                                                              out-of-place                       in-place          
#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw #wrong
#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)       
   536870912     134217728     float     sum      -1    24942   21.52   41.26      0    24966   21.50   41.22      0
  1073741824     268435456     float     sum      -1    49507   21.69   41.57      0    49613   21.64   41.48      0
  2147483648     536870912     float     sum      -1    97276   22.08   42.31      0    97204   22.09   42.34      0
# Out of bounds values : 0 OK
# Avg bus bandwidth    : 41.6967 
#
""")


def ticket_text(folder, name="attachment1.txt"):
    return shared_path(TICKETS, folder, name).read_text()


def of(records, cls):
    return [r for r in records if isinstance(r, cls)]


def test_real_table_with_root_column_006():
    text = ticket_text("006-nccl-949-a100-vm-internode-acs")
    assert nccl_tests.detect(text) >= 0.9
    results = of(nccl_tests.parse(text, "attachment1.txt"), CollectiveResult)
    assert len(results) == 6  # three sizes, out-of-place and in-place
    first_oop, first_ip = results[0], results[1]
    assert (first_oop.size_bytes, first_oop.count, first_oop.dtype, first_oop.time_us) == (8, 2, "float", 43.04)
    assert first_oop.in_place is False and first_ip.in_place is True and first_ip.time_us == 41.82
    assert first_oop.source == "attachment1.txt:5" and results[-1].source == "attachment1.txt:7"
    assert all(r.errors == 0 and r.busbw_gbs == 0.0 for r in results)
    # No command line names the op: sum, no root, count x 4 B == size is all_reduce.
    assert {r.op for r in results} == {"all_reduce"}


def test_real_device_lines_022():
    records = nccl_tests.parse(ticket_text("022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower"), "a1")
    gpus = of(records, GpuFact)
    assert [g.index for g in gpus] == list(range(8))
    assert {g.name for g in gpus} == {"A40"}
    assert gpus[0].bus_id == "0000:01:00.0" and gpus[7].bus_id == "0000:e1:00.0"
    assert gpus[0].source == "a1:6"
    (w,) = of(records, Workload)
    assert (w.gpu_count, w.nodes, w.framework) == (8, 1, "nccl-tests")
    assert not of(records, CollectiveResult)  # the paste stops at the column header


def test_real_version_header_and_two_hosts_043():
    records = nccl_tests.parse(ticket_text("043-nccl-1876-222-to-225-ring-pxn-drop-a100"), "a1")
    (version,) = of(records, NcclVersion)
    assert version.version == "2.27.3" and version.source == "a1:4"  # nccl-library=22703
    gpus = of(records, GpuFact)
    assert len(gpus) == 4 and gpus[3].bus_id == "0000:c8:00.0" and gpus[0].name == "NVIDIA A100-SXM-64GB"
    (w,) = of(records, Workload)
    assert (w.gpu_count, w.nodes) == (8, 2)  # lrdn1842 and lrdn1848


def test_real_one_line_summary_028():
    records = nccl_tests.parse(ticket_text("028-vllm-6610-gh200-multinode-pp-socket-and-expected", "attachment2.txt"),
                               "a2")
    values = {(m.metric, m.value) for m in of(records, Measurement)}
    assert values == {("busbw_gbs", 70.83), ("algbw_gbs", 70.83)}


def test_bus_bandwidth_arithmetic_and_footer():
    records = nccl_tests.parse(A800_24_RANKS, "run.log")
    results = of(records, CollectiveResult)
    assert len(results) == 6
    big = [r for r in results if r.size_bytes == 2147483648 and not r.in_place][0]
    assert (big.busbw_gbs, big.algbw_gbs, big.time_us, big.nranks) == (42.31, 22.08, 97276.0, 24)
    assert big.busbw_gbs == pytest.approx(big.algbw_gbs * 2 * 23 / 24, abs=0.05)
    assert not [e for e in of(records, NcclEvent) if e.kind == "inconsistent_bandwidth"]
    (summary,) = of(records, CollectiveSummary)
    assert summary.avg_busbw_gbs == 41.6967 and summary.nranks == 24 and summary.source == "run.log:14"


def test_edited_busbw_is_flagged():
    edited = A800_24_RANKS.replace("22.08   42.31", "22.08   84.62")  # someone doubled it by hand
    events = [e for e in nccl_tests.parse(edited, "x")
              if isinstance(e, NcclEvent) and e.kind == "inconsistent_bandwidth"]
    assert len(events) == 1 and events[0].source == "x:12" and events[0].data["column"] == "busbw"


def test_pasted_through_mpi_tags_crlf_and_colour():
    real = ticket_text("006-nccl-949-a100-vm-internode-acs")
    mangled = "\r\n".join(f"[1,0]<stdout>:\x1b[0m{line}" for line in real.splitlines())
    clean = [(r.size_bytes, r.time_us, r.in_place) for r in of(nccl_tests.parse(real, "a"), CollectiveResult)]
    assert [(r.size_bytes, r.time_us, r.in_place)
            for r in of(nccl_tests.parse(mangled, "a"), CollectiveResult)] == clean


def test_rows_tagged_by_the_launcher_at_the_start_and_mid_row():
    """nccl#1453's rows as posted: "[0]" before the row and again after the root and error cells (the
    launcher tags each write). They read as the same rows untagged, and the file is recognised (ut9b);
    a line whose leading [0] is content (gpustat's GPU index) keeps it."""
    from pathlib import Path

    from diagnose.artifacts.text import clean

    tagged = (Path(__file__).parent / "data" / "issues" / "nccl-1453-mpirun-rank-tagged-rows.txt").read_text()
    untagged = tagged.replace("[0]", " ")
    rows = [(r.size_bytes, r.time_us, r.busbw_gbs, r.in_place) for r in of(nccl_tests.parse(untagged, "a"),
                                                                            CollectiveResult)]
    assert len(rows) == 20 and (33554432, 2180.1, 29.5, False) in rows and (67108864, 24410.0, 5.27, False) in rows
    assert [(r.size_bytes, r.time_us, r.busbw_gbs, r.in_place)
            for r in of(nccl_tests.parse(tagged, "a"), CollectiveResult)] == rows
    assert nccl_tests.detect(tagged) == nccl_tests.detect(untagged) > 0
    assert clean("[0] # nThread 1 nGpus 1 minBytes 8").strip() == "# nThread 1 nGpus 1 minBytes 8"
    assert clean("[0] NVIDIA GeForce RTX 3090 | 45'C,  0 % |") == "[0] NVIDIA GeForce RTX 3090 | 45'C,  0 % |"


def test_old_generation_without_root_and_with_error_column():
    real = ticket_text("006-nccl-949-a100-vm-internode-acs")
    old = []
    for line in real.splitlines():
        cells = line.split()
        if "root" in cells:
            line = line.replace("root", "").replace("#wrong", "error")
        elif cells and cells[0].isdigit():
            cells.pop(4)  # drop the root cell
            cells[7] = cells[11] = "2e-07"
            line = "  ".join(cells)
        old.append(line)
    results = of(nccl_tests.parse("\n".join(old), "old"), CollectiveResult)
    assert len(results) == 6 and results[0].time_us == 43.04 and results[1].time_us == 41.82
    assert all(r.errors is None for r in results)  # a max-error float is not a count of wrong values


def test_cut_off_row_keeps_its_out_of_place_group():
    cut = A800_24_RANKS.split("# Out of bounds")[0].rstrip()[:-25]
    results = [r for r in of(nccl_tests.parse(cut, "c"), CollectiveResult) if r.size_bytes == 2147483648]
    assert [(r.in_place, r.time_us) for r in results] == [(False, 97276.0)]


def test_several_runs_in_one_file_take_their_op_from_the_command_line():
    text = ("$ ./build/all_gather_perf -b 8 -e 128M -f 2 -g 8\n" + A800_24_RANKS.replace("graph: 0", "graph: 1")
            + "\n$ ./build/all_reduce_perf -b 8 -e 128M -f 2 -g 8\n"
            + ticket_text("006-nccl-949-a100-vm-internode-acs"))
    results = of(nccl_tests.parse(text, "two"), CollectiveResult)
    assert {r.op for r in results[:6]} == {"all_gather"} and all(r.graph for r in results[:6])
    assert {r.op for r in results[6:]} == {"all_reduce"} and not any(r.graph for r in results[6:])


def test_rccl_trailing_columns_and_wrong_values():
    text = (
        "#       size         count      type   redop    root     time   algbw   busbw #wrong"
        "     time   algbw   busbw #wrong     algo     proto   nchannels\n"
        "   268435456      67108864     float     sum      -1   1377.7  194.84  365.33      3"
        "   1376.1  195.07  365.76      0    RING    SIMPLE          32\n"
    )
    records = nccl_tests.parse(text, "r")
    results = of(records, CollectiveResult)
    assert [(r.busbw_gbs, r.errors) for r in results] == [(365.33, 3), (365.76, 0)]
    assert results[0].nranks == 16  # from busbw/algbw = 2(n-1)/n
    assert any(e.kind == "nccl_tests_wrong" for e in of(records, NcclEvent))


def test_fuzz_never_raises():
    seeds = [A800_24_RANKS]
    for folder in ("006-nccl-949-a100-vm-internode-acs", "043-nccl-1876-222-to-225-ring-pxn-drop-a100",
                   "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower"):
        seeds.append(ticket_text(folder))
    assert_survives_fuzz(nccl_tests, seeds, n=200)


def test_the_nccl_1x_tests_device_lines_give_the_gpus():
    """NCCL 1.x's tests named each rank's GPU as "Rank 0 uses device 0 [0x02] <name>" (one process, no host)."""
    from diagnose.artifacts import nccl_tests
    from diagnose.evidence import GpuFact, Workload

    text = ("# Using devices\n#   Rank  0 uses device  0 [0x02] Tesla P100-PCIE-16GB\n"
            "#   Rank  1 uses device  1 [0x03] Tesla P100-PCIE-16GB\n")
    records = nccl_tests.parse(text, "out.txt")
    gpus = [r for r in records if isinstance(r, GpuFact)]
    assert [(g.index, g.name) for g in gpus] == [(0, "Tesla P100-PCIE-16GB"), (1, "Tesla P100-PCIE-16GB")]
    (w,) = [r for r in records if isinstance(r, Workload)]
    assert (w.gpu_count, w.nodes) == (2, 1)

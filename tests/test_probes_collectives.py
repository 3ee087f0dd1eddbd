"""The collective sweep machinery, for real, on gloo across local CPU processes."""

import time

import pytest

from diagnose.evidence import CollectiveResult, Facts
from probes import collectives
from probes.collectives import bandwidths, bus_factor, op_size, run_sweep
from probes.results import ProbeFailure
from rules.engine import evaluate

pytest.importorskip("torch")


def test_bus_factors_are_nccl_tests_definitions():
    # nccl-tests doc/PERFORMANCE.md: all_reduce 2(n-1)/n; all_gather, reduce_scatter (n-1)/n; broadcast, reduce 1
    assert bus_factor("all_reduce", 8) == pytest.approx(1.75)
    assert bus_factor("all_reduce", 2) == pytest.approx(1.0)
    assert bus_factor("all_gather", 8) == pytest.approx(0.875)
    assert bus_factor("reduce_scatter", 4) == pytest.approx(0.75)
    assert bus_factor("broadcast", 8) == bus_factor("reduce", 8) == 1.0
    with pytest.raises(ValueError):
        bus_factor("all_to_nowhere", 2)


def test_bandwidths_match_published_figures():
    # ../shared/docs/collectives-reference.md [R14], DGX H100 all_reduce kernel times with the
    # busbw quoted beside them: 8 GPUs 1 MiB 33 us (56 GB/s), 4 MiB 51 us (144);
    # 4 GPUs 64 MiB 295 us (341); 2 GPUs 64 MiB 228 us (294).
    for n, size, us, quoted in [(8, 1 << 20, 33, 56), (8, 4 << 20, 51, 144), (4, 64 << 20, 295, 341),
                                (2, 64 << 20, 228, 294)]:
        algbw, busbw = bandwidths("all_reduce", size, us, n)
        assert algbw == pytest.approx(size / (us * 1e-6) / 1e9)
        assert round(busbw) == quoted


def test_op_size_keeps_whole_elements_divisible_by_ranks():
    assert op_size("all_reduce", 8, 3) == 8
    assert op_size("all_gather", 8, 3) == 12  # 3 floats, one per rank
    assert op_size("reduce_scatter", 1000, 3) == 996
    assert collectives.sweep_sizes(8, 64, 2) == [8, 16, 32, 64]
    assert 16384 in collectives.decode_sizes()  # 8192 hidden x batch 1 x bf16


def test_tp_groups_are_node_halves_pairs():
    assert collectives.tp_groups([0, 1, 2, 3]) == [[0, 1, 2, 3], [0, 1], [2, 3], [0, 1], [2, 3]]
    assert collectives.tp_groups([0, 1]) == [[0, 1]]


@pytest.mark.slow
def test_gloo_sweep_three_ranks_reports_nccl_tests_semantics():
    sizes = [8, 4096, 1 << 16]
    rows = run_sweep(None, 3, sizes, timeout=90, iters=3, warmup=1, repeats=3)
    assert all(isinstance(r, CollectiveResult) for r in rows), rows
    assert {r.op for r in rows} == {"all_reduce", "all_gather", "reduce_scatter"}
    assert len(rows) == 9
    for r in rows:
        assert r.nranks == 3 and r.errors == 0 and r.time_us > 0 and not r.graph
        assert r.in_place is (r.op == "all_reduce")  # all_reduce runs on its buffer; the others write an output
        assert r.size_bytes == op_size(r.op, r.size_bytes, 3)
        assert r.algbw_gbs == pytest.approx(r.size_bytes / (r.time_us * 1e-6) / 1e9)
        factor = 2 * 2 / 3 if r.op == "all_reduce" else 2 / 3
        assert r.busbw_gbs == pytest.approx(r.algbw_gbs * factor)
    # a bigger message moves more bytes per second than 8 bytes, on any transport
    ar = {r.size_bytes: r for r in rows if r.op == "all_reduce"}
    assert ar[1 << 16].algbw_gbs > ar[8].algbw_gbs


@pytest.mark.slow
def test_a_rank_that_never_joins_is_killed_by_the_timeout_and_becomes_a_finding():
    start = time.monotonic()
    out = run_sweep(None, 3, [8], timeout=5, iters=2, warmup=1, repeats=1, missing_ranks=(2,))
    elapsed = time.monotonic() - start
    assert elapsed < 5 + 10, elapsed
    assert len(out) == 1 and isinstance(out[0], ProbeFailure)
    assert out[0].reason == "timeout" and "2 started ranks" in out[0].detail
    facts = Facts()
    facts.add(out)
    findings = [f for f in evaluate(facts) if f.rule == "node.probe_failed"]
    assert findings and findings[0].severity == "critical"
    assert "hung" in findings[0].title and findings[0].evidence[0].source.startswith("probe:collectives:gloo")

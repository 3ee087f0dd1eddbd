"""TensorRT-LLM v0.10-v0.11 served through the executor's in-flight batcher (NIM 1.0, the Triton backend) replays no
CUDA graph unless cuda_graph_mode is set, a runtime knob off by default (engines.toml trtllm-0.10): each step's
all-reduces are launched from the host and wait for the last rank's launch, a cost that grows with log2(TP) and is
absent at TP1. The plugin's custom all-reduce takes messages up to 16 MB on a pair and 8 MB beyond
(customAllReduceUtils.h getMaxRequiredWorkspaceSize), NCCL above.

Real inputs: NVIDIA NIM (TensorRT-LLM) GenAI-Perf runs at one request in flight, Llama-3-8B at TP1/TP2 and Llama-3-70B
at TP4/TP8 on DGX A100 and DGX H100 (tests/data/published/trtllm-nim-dli-*, source
https://github.com/wbing520/ai-performance-engineering/blob/0e25b2e236211ad01ed2221bd2c1cfa5b3f47b55/code/ch10_inference/inference_gpu_cluster_sizing/dataset/nim.csv)."""

import dataclasses
import statistics
from pathlib import Path

import pytest

from diagnose import published
from rules import catalog, collectives
from rules.roofline import tp_fabric
from rules.subject import model_named

PUBLISHED = Path(__file__).parent / "data" / "published"
NIM = sorted(PUBLISHED.glob("trtllm-nim-dli-*.csv"))


def _itl_rows():
    return [r for path in NIM for r in published.read(path) if r.metric == "itl_ms"]


def _error(row, engine) -> float:
    return 1.0 / published.expect(row, engine=engine).ratio(row.value) - 1.0


def test_eager_launches_shrink_each_tables_tp_trend_and_leave_tp1_alone():
    eager = catalog.engine("trtllm-0.10")
    assert not eager.cuda_graphs
    replayed = dataclasses.replace(eager, cuda_graphs=True)
    rows = _itl_rows()
    assert {r.tp for r in rows} == {1, 2, 4, 8}
    for r in rows:
        if r.tp == 1:
            assert published.expect(r, engine=eager).expected == pytest.approx(
                published.expect(r, engine=replayed).expected)
    for path in NIM:  # each table's median ITL error at its larger TP minus at its smaller: closer to none
        mine = [r for r in rows if r.table == path.name]
        lo, hi = min(r.tp for r in mine), max(r.tp for r in mine)

        def trend(engine, mine=mine, lo=lo, hi=hi):
            return (statistics.median(_error(r, engine) for r in mine if r.tp == hi)
                    - statistics.median(_error(r, engine) for r in mine if r.tp == lo))
        assert abs(trend(eager)) < abs(trend(replayed)), path.name
    # over every TP > 1 row, the median error moves toward zero
    over = [r for r in rows if r.tp > 1]
    assert abs(statistics.median(_error(r, eager) for r in over)) < abs(
        statistics.median(_error(r, replayed) for r in over))


def test_the_eager_cost_grows_with_the_rank_count():
    eager = catalog.engine("trtllm-0.10")
    replayed = dataclasses.replace(eager, cuda_graphs=True)
    added = {}
    for r in _itl_rows():
        if r.model == "llama-3-70b" and r.gpu == "h100-sxm" and r.dtype == "fp16" and (r.input_len, r.output_len) == (
                200, 200):
            added[r.tp] = published.expect(r, engine=eager).expected - published.expect(r, engine=replayed).expected
    assert set(added) == {4, 8} and 0 < added[4] < added[8]


@pytest.mark.parametrize("tp, tokens, kernel", [
    (2, 1000, True),    # Llama-3-8B: 1000 x 4096 x 2 B = 8.2 MB: under the pair's 16 MB
    (2, 2000, False),   # 16.4 MB: NCCL
    (4, 1000, False),   # 8.2 MB: over the 8 MB of 4 ranks
    (4, 400, True),
])
def test_the_plugin_takes_messages_up_to_its_buffer(tp, tokens, kernel):
    gpu, model, eng = catalog.gpu("h100-sxm"), model_named("llama-3-8b"), catalog.engine("trtllm-0.10")
    fabric, _ = tp_fabric(gpu, tp, 8)
    ar = collectives.expected(fabric, tp, tokens * model.hidden * 2, engine=eng, graphs=False, link_gbs=gpu.nvlink_gbs)
    assert ("custom" in ar.impl) is kernel

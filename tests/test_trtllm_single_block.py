"""TensorRT-LLM before v0.12 ran decode attention without multi-block mode unless built with it: one thread block walks
each KV head's whole cache, so at batch 1 the walk, not the HBM stream, sets the attention's time, and it does not
shrink with TP (engines.toml trtllm-0.10, calibration.toml [single_block_attention]).

Real inputs: NVIDIA NIM (TensorRT-LLM) GenAI-Perf runs at one request in flight, Llama-3-8B at TP1/TP2 and Llama-3-70B
at TP4/TP8 on DGX A100 and DGX H100 (tests/data/published/trtllm-nim-dli-*, source
https://github.com/wbing520/ai-performance-engineering/blob/0e25b2e236211ad01ed2221bd2c1cfa5b3f47b55/code/ch10_inference/inference_gpu_cluster_sizing/dataset/nim.csv).
The A100 70B table is validation: the cycles were fitted on the other three."""

import collections
from pathlib import Path

import pytest

from diagnose import published
from rules import catalog
from rules.roofline import Layout, predict

PUBLISHED = Path(__file__).parent / "data" / "published"
NIM = sorted(PUBLISHED.glob("trtllm-nim-dli-*.csv"))


@pytest.fixture(autouse=True)
def _published_models():
    catalog.configure([str(PUBLISHED / "models.toml")])
    yield
    catalog.configure()


def _growth(rows, engine=None):
    """(measured, expected) ITL growth from the 200/200 row to the 7000/1000 row of one (dtype, TP) group, in ms."""
    by = {(r.input_len, r.output_len): r for r in rows}
    short, long_ = by[(200, 200)], by[(7000, 1000)]
    over = {"engine": catalog.engine(engine)} if engine else {}
    return (long_.value - short.value,
            published.expect(long_, **over).expected - published.expect(short, **over).expected)


def _groups(path):
    groups = collections.defaultdict(list)
    for r in published.read(path):
        if r.metric == "itl_ms":
            groups[(r.dtype, r.tp)].append(r)
    return groups


@pytest.mark.parametrize("path", NIM, ids=lambda p: p.name)
def test_the_itl_grows_with_the_context_as_one_block_walks_it(path):
    """Each (dtype, TP) group's ITL growth from 200 to 7000 prompt tokens within 30 % of the measured one, where the
    multi-block profile of the same engine (trtllm, v0.12+) predicts under half of it."""
    for (dtype, tp), rows in _groups(path).items():
        measured, expected = _growth(rows)
        _, multi_block = _growth(rows, "trtllm")
        assert expected == pytest.approx(measured, rel=0.30), (path.name, dtype, tp, measured, expected)
        assert multi_block < 0.5 * measured, (path.name, dtype, tp, measured, multi_block)


def test_the_walk_does_not_shrink_with_tp():
    """Llama-3-70B on H100: the measured growth is the same at TP4 and TP8 (4.90 and 4.89 ms at 16-bit), as each rank's
    blocks walk as many tokens; so is the expected one, where the HBM stream's share would halve."""
    groups = _groups(PUBLISHED / "trtllm-nim-dli-llama-3-70b-h100-tp4-tp8.csv")
    for dtype in ("fp16", "fp8"):
        (m4, e4), (m8, e8) = _growth(groups[(dtype, 4)]), _growth(groups[(dtype, 8)])
        assert m8 == pytest.approx(m4, rel=0.05)
        assert e8 == pytest.approx(e4, rel=0.05)


def test_a_release_with_multi_block_mode_or_a_large_batch_is_not_slowed():
    """The walk binds only where few blocks share the GPU: at batch 64 (64 x 8 KV heads = 512 blocks on 132 SMs, four
    waves) the HBM stream of 64 caches is the longer, and v0.12+ (multi-block on) never walks alone."""
    model, gpu = catalog.model("llama-3-8b"), catalog.gpu("h100-sxm")

    def itl(engine, batch):
        return predict(model, gpu, Layout(tp=1), engine=catalog.engine(engine), batch=batch, prompt=7000,
                       output=1000).itl_ms_expected

    assert itl("trtllm-0.10", 1) > 1.15 * itl("trtllm", 1)
    assert itl("trtllm-0.10", 64) == pytest.approx(itl("trtllm", 64), rel=0.02)

"""What a llama.cpp layer split (-sm layer) costs, from its source, against the published llama-bench tables of
XiongjieDai/GPU-Benchmarks-on-LLM-Inference (1 to 8 GPUs in one machine, builds b2824-b2837):

- pipeline parallelism's rotating input copies make ggml-cuda drop its CUDA graphs, so a split runs as the eager twin;
- the hidden state crosses in F32 (4 bytes a value), staged through host memory where the board has no PCIe P2P;
- llm_load_tensors counts the output tensor as one more layer slot, so the last GPU holds fewer layers.
"""

from pathlib import Path

import pytest

from diagnose import published
from rules import catalog, collectives
from rules.roofline import Layout, predict

PUBLISHED = Path(__file__).parent / "data" / "published"


def _rows(table: str):
    return published.read(PUBLISHED / table)


def test_a_split_runs_as_the_eager_twin():
    eng = catalog.engine("llamacpp")
    assert catalog.split_twin(eng, 1) is eng
    assert catalog.split_twin(eng, 2).key == "llamacpp-eager"
    assert catalog.split_twin(catalog.engine("vllm"), 4).key == "vllm"  # engines that keep their graphs


@pytest.mark.parametrize("gpu", ["rtx-4090", "rtx-3090"])
def test_the_step_grows_once_at_the_first_split_not_per_gpu(gpu):
    """Published tg512 of Llama 3 8B Q4_K_M: the step grows from one GPU to two (graphs lost), then little per
    further GPU; the expected steps do the same, and track every GPU count within the band."""
    rows = sorted((r for r in _rows(f"llamacpp-xiongjiedai-{gpu.replace('-', '')}-layer-split-2024-05.csv")
                   if r.metric == "decode_tok_s" and r.model == "llama-3-8b" and r.dtype == "Q4_K_M"),
                  key=lambda r: r.pp)
    steps = [1e3 / published.expect(r).expected for r in rows]
    jump, rest = steps[1] - steps[0], (steps[-1] - steps[1]) / (rows[-1].pp - rows[1].pp)
    assert jump > 0.3 and 0 <= rest < jump / 10
    assert all(published.expect(r).verdict(r.value) == "inside" for r in rows)


def test_the_hand_over_is_f32_and_staged_without_p2p():
    ic = catalog.interconnect("pcie4")
    state = 512 * catalog.model("llama-3-8b").hidden * catalog.engine("llamacpp").hidden_state_bytes
    assert state == 512 * 4096 * 4
    assert catalog.engine("llamacpp").pp_handover == catalog.engine("llamacpp-eager").pp_handover == "copy"
    base = collectives.p2p_us(ic, 0, copy=True)
    assert collectives.p2p_us(ic, state, p2p=False, copy=True) - base == pytest.approx(
        2 * (collectives.p2p_us(ic, state, copy=True) - base))


def test_seventy_b_f16_fits_six_3090s_as_it_ran():
    """80 layers and the output over six 24 GB boards: layer i on GPU floor(i x 6 / 81), the output on the last, so
    no board holds 14 layers and the output (26 GB); the published tg512 ran (5.85 tok/s)."""
    row = next(r for r in _rows("llamacpp-xiongjiedai-rtx3090-layer-split-2024-05.csv")
               if r.model == "llama-3-70b" and r.dtype == "F16" and r.metric == "decode_tok_s")
    p = predict(catalog.model("llama-3-70b"), catalog.gpu("rtx-3090"), Layout(1, 6), prompt=1, output=512,
                dtype="fp16", quant_group="F16", engine=catalog.engine("llamacpp"), gpus_per_node=6)
    assert row.pp == 6 and p.fits and p.weights_gb_per_gpu < 24.6

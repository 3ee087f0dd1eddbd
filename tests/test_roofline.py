"""The roofline predictor against hand-checkable figures and published measurements."""

import dataclasses
import re

import pytest

try:
    import tomllib
except ModuleNotFoundError:  # Python 3.10
    import tomli as tomllib

from conftest import published_tables, shared_path

from diagnose import published
from diagnose.errors import InputError
from rules import catalog, collectives, roofline
from rules.roofline import Layout, experts_touched, tp_fabric, validity

IC = catalog.interconnect  # a fabric by key, resolved as a command or the predictor does


def predict(model, gpu, *args, engine=None, **kwargs):
    """roofline.predict with the names resolved first, as a command does at its boundary."""
    return roofline.predict(catalog.model(model), catalog.gpu(gpu), *args, engine=catalog.engine(engine), **kwargs)


@pytest.fixture(autouse=True)
def _bundled_catalog_only(monkeypatch):
    monkeypatch.delenv("DIAGNOSE_CATALOG", raising=False)
    catalog.configure()


# ---------------------------------------------------------------- Llama-3-70B on H100 SXM


def test_llama3_70b_weights_and_streamed_bytes():
    p1 = predict("llama-3-70b", "h100-sxm", Layout(tp=1), batch=1, context=1)
    assert p1.weights_gb_per_gpu == pytest.approx(141.1, abs=0.1)  # all weights, bf16
    assert p1.streamed_gb_per_step == pytest.approx(139.0, abs=0.05)  # embedding looked up, not read
    assert not p1.fits and p1.memory_shortfall_gb > 60


def test_llama3_70b_tp2_is_21ms_not_10():
    """TP=2 splits the 139 GB over two GPUs: 69.5 GB each at 3.35 TB/s, ~48 tok/s (not 96)."""
    p = predict("llama-3-70b", "h100-sxm", Layout(tp=2), batch=1, context=1)
    assert p.fits
    assert p.weights_ms == pytest.approx(20.75, abs=0.02)
    assert 1000 / p.weights_ms == pytest.approx(48.2, abs=0.1)
    assert p.bound == "memory"
    # the step adds the 160 all-reduces at the fabric's one-hop floor and line rate: ~21 ms, nowhere near the
    # 96 tok/s myth
    assert 20.75 < p.decode_step_ms < 21.5
    assert 46 < p.decode_tok_s < 48.2
    # roofline: memory and compute overlap, the all-reduce adds; expected: every term adds
    t = p.terms(expected=False)
    memory = t["weights_ms"] + t["kv_ms"] + t["activation_ms"]
    assert max(memory, t["compute_ms"]) + t["allreduce_ms"] + t["launch_ms"] == pytest.approx(t["step_ms"], abs=0.01)
    e = p.terms(expected=True)
    assert sum(v for k, v in e.items() if k != "step_ms") == pytest.approx(e["step_ms"], abs=0.01)
    # the expected step is slower than the roofline, and its band brackets it
    assert p.decode_step_ms < p.decode_step_ms_expected
    lo, hi = p.band(p.decode_step_ms_expected)
    assert lo < p.decode_step_ms_expected < hi


@pytest.mark.parametrize(
    "dtype, expected_ms",  # collectives-reference.md section 3.2 (FP8 weights, bf16 LM head)
    [("bf16", {1: 41.49, 2: 20.75, 4: 10.37, 8: 5.19}), ("fp8", {1: 21.06, 2: 10.53, 4: 5.27, 8: 2.63})],
)
def test_memory_term_table(dtype, expected_ms):
    for tp, ms in expected_ms.items():
        p = predict("llama-3-70b", "h100-sxm", Layout(tp=tp), batch=1, context=1, dtype=dtype)
        assert p.weights_ms == pytest.approx(ms, rel=0.005), (dtype, tp)


def test_kv_read_at_long_context_tp8():
    """One KV head per GPU at TP8: 32k context reads 1.34 GB per GPU per step, 0.40 ms. (The step is priced at the
    reply's middle: a 32k prompt puts it at 32k; a reply growing from 1k to 32k would read half.)"""
    p = predict("llama-3-70b", "h100-sxm", Layout(tp=8), batch=1, prompt=32768, context=32768)
    assert p.kv_ms == pytest.approx(0.40, abs=0.01)
    assert p.kv_gb_per_seq_per_gpu == pytest.approx(1.342, abs=0.002)


def test_allreduce_term_at_batch_1():
    """160 all-reduces of 16 KiB per token. The roofline takes each at the fabric's one-hop floor
    plus line rate; the expected figure at what NCCL, replayed in CUDA graphs, takes on 2/4/8
    H100s: its own ring/LL model (tuning.cc [R8], rules/collectives.py nvlink_ring), 6.6 + 2(n-1) x 0.6 us and the
    ring's bytes at its LL bandwidth, half the bus but no more than 141 GB/s (collectives-reference.md 3.3: 7.8 / 10.2
    / 15.0 us)."""
    t = catalog.nccl_tuning()
    ic = catalog.interconnect("nvswitch3")
    for tp in (2, 4, 8):
        p = predict("llama-3-70b", "h100-sxm", Layout(tp=tp), batch=1, context=1)
        assert p.allreduce_count_per_step == 160
        assert p.allreduce_bytes == 16384
        # a generic engine: NCCL, no custom kernel; NVLS only pays off for large messages
        assert p.allreduce_impl == "NCCL ring"
        ll_gbs = min(0.5 * ic.achieved_gbs, t["ll_max_one_node"]["caps"]["9.0"])
        by_hand = (t["base_us"]["ring"][0] + 2 * (tp - 1) * t["hw_nvlink_us"]["ring"][0]
                   + 2 * (tp - 1) / tp * 16384 / (ll_gbs * 1e3))
        assert by_hand == pytest.approx({2: 7.8, 4: 10.2, 8: 15.0}[tp], abs=0.25)
        assert p.allreduce_us_expected == pytest.approx(by_hand, abs=0.01)
        assert p.allreduce_ms_per_step_expected == pytest.approx(160 * by_hand / 1e3, abs=0.01)
        floor = ic.floor_us + (16384 / (ic.bandwidth_gbs * 1e3))  # NVSwitch reduces in the switch: bytes cross once
        assert p.allreduce_ms_per_step == pytest.approx(160 * floor / 1e3, abs=1e-3)
        assert p.allreduce_ms_per_step < p.allreduce_ms_per_step_expected
    # the all-reduce share of the step grows with TP: the reason TP scaling flattens
    shares = [predict("llama-3-70b", "h100-sxm", Layout(tp=t), context=1).allreduce_share_expected for t in (2, 4, 8)]
    assert shares == sorted(shares) and shares[-1] > 2 * shares[0]


def test_allreduce_implementations():
    from rules import collectives

    c = catalog.calibration().nccl
    ring = collectives.nccl(IC("nvlink4"), 2, 1 << 30)
    big = 1 << 30
    # ring bus factor: 8 ranks move 2*7/8 of the bytes, 2 ranks 2*1/2: the data term x1.75
    d2 = collectives.nccl(IC("nvlink4"), 2, big).us - (c["base_us"] + 2 * c["hop_us_nvlink"])
    d8 = collectives.nccl(IC("nvlink4"), 8, big, only="ring").us - (c["base_us"] + 14 * c["hop_us_nvlink"])
    assert d8 / d2 == pytest.approx(1.75, rel=1e-6) and ring.impl == "NCCL ring"
    # NVLS on NVSwitch gen3: for large messages it beats the ring (480 vs 370 GB/s bus bandwidth) ...
    nvls = collectives.nccl(IC("nvswitch3"), 8, big)
    assert nvls.impl == "NCCL NVLS" and nvls.us < collectives.nccl(IC("nvswitch3"), 8, big, only="ring").us
    # ... but not for a decode-sized message, where its fixed latency loses
    assert collectives.nccl(IC("nvswitch3"), 8, 16384).impl == "NCCL ring"
    # across nodes the tree's latency grows with log2(nodes), the ring's with the rank count
    ring_t = collectives.nccl(IC("ib-ndr"), 2048, 8, nodes=256, only="ring").us
    tree_t = collectives.nccl(IC("ib-ndr"), 2048, 8, nodes=256, only="tree").us
    assert collectives.nccl(IC("ib-ndr"), 2048, 8, nodes=256).impl == "NCCL tree" and tree_t < ring_t / 10
    # without PCIe peer-to-peer NCCL goes through host memory: slower than P2P at every size
    for size in (8, 1 << 20, 1 << 26):
        assert collectives.nccl(IC("pcie4"), 4, size, p2p=False).us > collectives.nccl(IC("pcie4"), 4, size).us


def test_engine_all_reduce_choice():
    """vLLM's custom kernel under 8 MiB on all-to-all NVLink and on a PCIe pair; NCCL beyond, on
    4 PCIe GPUs, and across nodes (custom_all_reduce.py should_custom_ar)."""
    from rules import collectives

    vllm = catalog.engine("vllm")
    assert collectives.expected(IC("nvswitch3"), 8, 16384, engine=vllm).impl == "vllm custom"
    assert collectives.expected(IC("nvswitch3"), 8, 64 << 20, engine=vllm).impl.startswith("NCCL")
    assert collectives.expected(IC("pcie4"), 2, 16384, engine=vllm).impl == "vllm custom"
    assert collectives.expected(IC("pcie4"), 4, 16384, engine=vllm).impl == "NCCL ring"
    # no P2P: no custom kernel, NCCL via host memory
    assert collectives.expected(IC("pcie4"), 2, 16384, engine=vllm, p2p=False).impl == "NCCL SHM"
    assert collectives.expected(IC("ib-ndr"), 16, 16384, engine=vllm, nodes=2).impl.startswith("NCCL")
    ft = catalog.engine("fastertransformer")
    assert collectives.expected(IC("nvswitch3"), 8, 16384, engine=ft).impl == "NCCL ring"
    # a predicted decode step uses it: TP8 Llama-3-70B on H100 under vLLM runs its custom kernel
    p = predict("llama-3-70b", "h100-sxm", Layout(tp=8), engine="vllm")
    assert p.allreduce_impl == "vllm custom" and p.engine == "vllm"
    # a board without PCIe P2P (RTX 4090, stock driver) is modelled with NCCL's SHM path, not P2P latency
    p4090 = predict("llama-3-8b", "rtx-4090", Layout(tp=2))
    shm = collectives.nccl(IC("pcie4"), 2, p4090.allreduce_bytes, p2p=False)
    assert p4090.allreduce_us_expected == pytest.approx(shm.us, abs=0.01)


def test_expected_bandwidth_falls_as_tp_shrinks_each_gpus_matrices():
    """Every kernel has a fixed cost, so the bandwidth a step achieves falls with the bytes per
    kernel: the implied MBU of published runs falls from ~0.7 at TP1 to 0.3-0.4 at TP8."""
    mbu = [predict("llama-2-7b", "a100-80gb-sxm", Layout(tp=t), engine="gpt-fast").mbu_implied for t in (1, 2, 4, 8)]
    assert mbu == sorted(mbu, reverse=True) and mbu[0] > 0.6 and mbu[-1] < 0.45


def test_quantisation_scales_and_fp8_kv_cache():
    from rules import shapes

    # int4 with a 16-bit scale and zero point per group of 32: 0.5 + 4/32 bytes per weight, +25 %
    assert shapes.bytes_per_param("int4", 32) == pytest.approx(0.625)
    assert shapes.bytes_per_param("int4") == pytest.approx(0.5 + 4 / 128)  # AWQ/GPTQ's default group of 128
    assert shapes.bytes_per_param("fp8") == 1.0
    a = predict("llama-3-70b", "h100-sxm", Layout(tp=4), dtype="int4", quant_group=32)
    b = predict("llama-3-70b", "h100-sxm", Layout(tp=4), dtype="int4", quant_group=128)
    assert a.weights_gb_per_gpu > b.weights_gb_per_gpu and a.weights_ms > b.weights_ms
    # an FP8 checkpoint: FP8 KV cache where the engine does so (TensorRT-LLM's FP8 recipe; the generic default),
    # vLLM's 'auto' keeps the 16-bit cache: half the KV capacity
    assert predict("deepseek-v3", "h200-sxm", Layout(tp=8)).kv_dtype == "fp8"
    assert predict("llama-3-70b", "h100-sxm", Layout(tp=4), dtype="fp8", engine="trtllm").kv_dtype == "fp8"
    vllm = predict("llama-3-70b", "h100-sxm", Layout(tp=4), dtype="fp8", engine="vllm")
    gen = predict("llama-3-70b", "h100-sxm", Layout(tp=4), dtype="fp8")
    assert vllm.kv_dtype == "bf16"
    assert gen.kv_gb_per_seq_per_gpu == pytest.approx(vllm.kv_gb_per_seq_per_gpu / 2, rel=1e-3)


def test_prefill_is_compute_bound_and_ttft_follows_flops():
    p = predict("llama-3-70b", "h100-sxm", Layout(tp=8), batch=1, prompt=2048, context=2048)
    assert p.prefill_bound == "compute"
    flops = 2 * catalog.model("llama-3-70b").decoder_params() * 2048 / 8
    gemm_ms = flops / 989e12 * 1e3
    # 160 all-reduces of 2048 x 8192 x 2 B = 32 MiB each come on top (no overlap assumed)
    ar_ms = 160 * collectives.roofline_us(IC("nvswitch3"), 8, 2048 * 8192 * 2) / 1e3
    assert gemm_ms + ar_ms < p.ttft_ms < 1.05 * (gemm_ms + ar_ms)  # + attention, logits
    assert p.ttft_ms_expected > p.ttft_ms


def test_memory_fit_and_max_sequences():
    """By hand, for a generic engine (engines.toml: 90 % of memory, 8192 activation tokens, 0.5 GB
    of CUDA graphs, 0.5 GB of communication buffers)."""
    p = predict("llama-3-70b", "h100-sxm", Layout(tp=4), batch=1, context=8192)
    usable = 80 * 2**30 / 1e9 * 0.9  # "80GB" is 80 GiB
    weights = 141.1 / 4  # the bf16 weights above, split over 4 ranks
    assert p.weights_gb_per_gpu == pytest.approx(weights, abs=0.02)
    # activations of an 8192-token pass: the gate/up output (2 x 28672 / 4 wide) + 4 hidden-wide buffers, 2 B each,
    # plus 256 sequences' fp32 logits over the 128,256-token vocabulary
    activations = (8192 * (2 * 28672 / 4 + 4 * 8192) * 2 + 256 * 128256 * 4) / 1e9
    reserved = activations + 0.5 + 0.5
    assert p.reserved_gb == pytest.approx(reserved, abs=0.01)
    assert p.kv_budget_gb == pytest.approx(usable - weights - reserved, abs=0.02)  # 40.13 GB
    per_seq = 8192 * 327680 / 4 / 1e9  # 80 layers x 8 KV heads x 128 x 2 (K, V) x 2 bytes per token
    assert p.max_concurrent_seqs == int((usable - weights - reserved) // per_seq) == 59
    big = predict("llama-3-70b", "h100-sxm", Layout(tp=4), batch=p.max_concurrent_seqs + 1, context=8192)
    assert not big.fits and 0 < big.memory_shortfall_gb <= per_seq + 0.01
    assert any(pr.code == "does_not_fit" and "short by" in pr.message for pr in big.problems)


# ---------------------------------------------------------------- MoE, PP, cross-node


def test_moe_reads_active_experts_at_batch_1_and_more_with_batch():
    m = catalog.model("mixtral-8x7b")
    assert experts_touched(m, 1) == pytest.approx(2)
    assert experts_touched(m, 64) == pytest.approx(8, abs=0.01)
    one = roofline.predict(m, catalog.gpu("h100-sxm"), Layout(tp=2), batch=1, context=1)
    many = roofline.predict(m, catalog.gpu("h100-sxm"), Layout(tp=2), batch=64, context=1)
    decode_bytes = (m.active_params() - m.embedding_params()) * 2 / 1e9  # batch-1 decode reads active params
    assert one.streamed_gb_per_step == pytest.approx(decode_bytes, rel=0.01)
    assert many.streamed_gb_per_step == pytest.approx((m.params() - m.embedding_params()) * 2 / 1e9, rel=0.01)


def test_pipeline_parallel_bubble_and_latency():
    tp2 = predict("llama-3-70b", "h100-sxm", Layout(tp=2), batch=1, context=1)
    pp2 = predict("llama-3-70b", "h100-sxm", Layout(tp=1, pp=2), batch=1, context=1)
    assert pp2.fits and pp2.pp_bubble_fraction == 0.5
    assert pp2.decode_step_ms > 1.9 * tp2.weights_ms  # PP does not cut per-token latency
    full = predict("llama-3-70b", "h100-sxm", Layout(tp=1, pp=2), batch=2, context=1)
    assert full.pp_bubble_fraction == 0
    assert full.decode_tok_s_total > 1.9 * pp2.decode_tok_s_total


def test_tp_across_nodes_uses_the_network():
    gpu = catalog.gpu("h100-sxm")
    assert tp_fabric(gpu, 8, 8)[0].key == "nvswitch3"
    assert tp_fabric(gpu, 16, 8) == (catalog.interconnect("ib-ndr"), 2)
    assert tp_fabric(catalog.gpu("l40s"), 4, 8)[0].key == "pcie4"
    assert tp_fabric(catalog.gpu("h100-pcie"), 4, 8)[0].key == "pcie5"  # bridges pair GPUs only
    assert tp_fabric(catalog.gpu("h100-pcie"), 2, 8)[0].bandwidth_gbs == 300  # bridge, capped
    p = predict("llama-3-405b", "h100-sxm", Layout(tp=16), batch=1)
    assert any(pr.category == "cross_node_tp" for pr in p.problems)
    q = predict("llama-3-405b", "h100-sxm", Layout(tp=8, pp=2), batch=1)
    # every one of TP16's all-reduces crosses InfiniBand; TP8 x PP2 keeps them on NVLink
    assert p.allreduce_us_expected > q.allreduce_us_expected + catalog.calibration().nccl["hop_us_network"]
    assert p.allreduce_ms_per_step_expected > 2 * q.allreduce_ms_per_step_expected


def test_expected_never_beats_roofline():
    for model, gpu, tp, batch, dtype in [
        ("llama-3-8b", "l40s", 1, 1, "bf16"), ("llama-3-70b", "a100-80gb-sxm", 4, 32, "bf16"),
        ("mixtral-8x7b", "h100-sxm", 2, 16, "fp8"), ("deepseek-v3", "h200-sxm", 8, 8, "fp8"),
        ("gemma-2-27b", "rtx-4090", 2, 4, "int4"),
    ]:
        p = predict(model, gpu, Layout(tp=tp), batch=batch, dtype=dtype)
        assert p.decode_step_ms_expected > p.decode_step_ms
        assert p.ttft_ms_expected > p.ttft_ms
        assert p.decode_tok_s_expected < p.decode_tok_s


def test_bad_arguments():
    with pytest.raises(InputError, match="unknown dtype"):
        predict("llama-3-8b", "h100-sxm", dtype="fp4")
    with pytest.raises(InputError, match="--mbu"):
        predict("llama-3-8b", "h100-sxm", mbu=1.5)
    with pytest.raises(InputError, match="closest known"):
        predict("llama-3-8", "h100-sxm")


# ---------------------------------------------------------------- TP divisibility table

DOC_ROWS = {
    "Llama-2-7B": "llama-2-7b", "Llama-2-13B": "llama-2-13b", "Llama-2-70B": "llama-2-70b",
    "Llama-3/3.1 8B": "llama-3-8b", "Llama-3/3.1/3.3 70B": "llama-3-70b", "Llama-3/3.1 405B": "llama-3-405b",
    "Mistral-7B": "mistral-7b", "Mixtral-8x7B": "mixtral-8x7b", "Mixtral-8x22B": "mixtral-8x22b",
    "Qwen2.5-7B": "qwen2.5-7b", "Qwen2.5-14B": "qwen2.5-14b", "Qwen2.5-32B": "qwen2.5-32b",
    "Qwen2.5-72B": "qwen2.5-72b", "Qwen3-32B": "qwen3-32b", "Qwen3-235B-A22B": "qwen3-235b-a22b",
    "DeepSeek-V3/R1": "deepseek-v3", "Gemma-2-9B": "gemma-2-9b", "Gemma-2-27B": "gemma-2-27b",
    "Phi-3-mini": "phi-3-mini", "Falcon-180B": "falcon-180b", "GPT-OSS-120B": "gpt-oss-120b",
}


def _doc_divisibility():
    text = shared_path("docs", "model-configs.md").read_text()
    section = text.split("Computed validity per TP")[1].split("Pipeline parallelism")[0]
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 7 and cells[0] in DOC_ROWS:
            yield DOC_ROWS[cells[0]], cells[1:6], cells[6]


def _our_cell(model, tp):
    problems = validity(model, tp)
    if any(p.severity == "error" for p in problems):
        return "no", None
    rep = next((p for p in problems if p.code == "kv_replicated"), None)
    return "ok", int(re.search(r"x(\d+)", rep.message).group(1)) if rep else None


def test_tp_divisibility_table_is_reproduced():
    rows = list(_doc_divisibility())
    assert len(rows) == len(DOC_ROWS)
    for key, cells, fp8_cell in rows:
        model = catalog.model(key)
        for tp, cell in zip((1, 2, 4, 8, 16), cells):
            verdict, rep = _our_cell(model, tp)
            if cell.startswith("**no**"):
                assert verdict == "no", (key, tp, cell)
                continue
            assert verdict == "ok", (key, tp, cell)
            doc_rep = re.search(r"×(\d+)", cell)
            assert rep == (int(doc_rep.group(1)) if doc_rep else None), (key, tp, cell)
        if fp8_cell.startswith("n/a"):
            continue
        doc_ok = {int(t) for t in re.findall(r"\b(\d+)\b", fp8_cell.split("(")[0])}
        ours = {tp for tp in (2, 4, 8, 16) if not any(p.code == "fp8_block" for p in validity(model, tp, dtype="fp8"))}
        assert ours == doc_ok, (key, fp8_cell)


# ---------------------------------------------------------------- never slower than measured

# Published all-reduce times (collectives-reference.md section 1): (fabric, GPU for the link
# cap, ranks, nodes, bytes, measured us, source). busbw rows are converted to time with
# t = bytes x 2(n-1)/n / busbw.
KIB, MIB, GIB = 1 << 10, 1 << 20, 1 << 30


def _t(size, n, busbw_gbs):
    return size * 2 * (n - 1) / n / (busbw_gbs * 1e3)


R14_SIZES = (16 * KIB, 256 * KIB, MIB, 4 * MIB, 16 * MIB, 64 * MIB)  # the six message sizes of each R14 table

MEASURED_ALLREDUCE = [
    *[("nvswitch3", "h100-sxm", 8, 1, s, t, "R14") for s, t in zip(R14_SIZES, (29, 38, 33, 51, 112, 324))],
    *[("nvswitch3", "h100-sxm", 4, 1, s, t, "R14") for s, t in zip(R14_SIZES, (38, 41, 42, 47, 90, 295))],
    *[("nvswitch3", "h100-sxm", 2, 1, s, t, "R14") for s, t in zip(R14_SIZES, (11, 40, 42, 42, 71, 228))],
    ("nvswitch3", "h100-sxm", 2, 1, 64 * KIB, 6.0, "R6"),
    ("nvswitch3", "h100-sxm", 8, 1, 8 * GIB, _t(8 * GIB, 8, 480), "R2"),
    *[("nvswitch3", "h100-sxm", n, 1, 1048576, t, "R7") for n, t in ((2, 19.9), (4, 31.1), (8, 33.8))],
    *[("nvswitch3", "h100-sxm", n, 1, 512, t, "R7") for n, t in ((2, 3.7), (4, 4.8), (8, 5.9))],
    ("nvswitch3", "h100-sxm", 8, 1, 58_000_000, _t(58_000_000, 8, 150), "R5"),
    *[("nvswitch2", "a100-80gb-sxm", n, 1, 8, t, "R11") for n, t in ((2, 10), (4, 16.88), (8, 33.7))],
    *[("nvswitch2", "a100-80gb-sxm", 8, 1, s, t, "R14") for s, t in zip(R14_SIZES, (26, 61, 40, 98, 254, 649))],
    *[("nvswitch2", "a100-80gb-sxm", 4, 1, s, t, "R14") for s, t in zip(R14_SIZES, (18, 62, 63, 85, 198, 553))],
    *[("nvswitch2", "a100-80gb-sxm", 2, 1, s, t, "R14") for s, t in zip(R14_SIZES, (46, 43, 55, 65, 136, 401))],
    ("nvswitch2", "a100-80gb-sxm", 8, 1, GIB, _t(GIB, 8, 235), "R10"),
    ("nvlink3", "a100-80gb-sxm", 2, 1, 12 * 10**9, _t(12 * 10**9, 2, 208), "R12"),
    ("nvlink4", "h100-pcie", 2, 1, GIB, _t(GIB, 2, 116.3), "R15"),
    ("pcie4", "rtx-4090", 6, 1, 32 * MIB, _t(32 * MIB, 6, 24.58), "R16"),
    ("pcie4", "rtx-4090", 8, 1, 8, 42.1, "R17"),
    ("pcie5", "rtx-4090", 8, 1, 8, 24.5, "R19"),
    ("pcie5", "rtx-4090", 8, 1, MIB, _t(MIB, 8, 24.55), "R19"),
    ("pcie5", "rtx-4090", 8, 1, 32 * MIB, _t(32 * MIB, 8, 45.70), "R19"),
    *[("roce-200", "h100-sxm", 16, 2, s, t, "R21")
      for s, t in ((8, 135.8), (16 * KIB, 138.6), (MIB, 203), (64 * MIB, 1262), (GIB, 6759), (8 * GIB, 47535))],
    ("ib-hdr", "a100-40gb-sxm", 24, 3, 128 * MIB, _t(128 * MIB, 24, 96), "R22"),
    *[("ib-hdr", "a100-80gb-sxm", 16, 2, s, t, "R14") for s, t in ((16 * KIB, 71), (MIB, 512), (64 * MIB, 6625))],
    ("ib-ndr", "h200-sxm", 1984, 248, 512 * MIB, _t(512 * MIB, 1984, 350), "R25"),
]


@pytest.mark.parametrize("fabric, gpu, n, nodes, size, measured_us, source", MEASURED_ALLREDUCE)
def test_allreduce_roofline_never_slower_than_published(fabric, gpu, n, nodes, size, measured_us, source):
    if nodes == 1:
        ic, _ = tp_fabric(catalog.gpu(gpu), n, 8, interconnect=fabric)
    else:
        ic = catalog.interconnect(fabric)
    assert collectives.roofline_us(ic, n, size, nodes=nodes) <= measured_us * 1.001, source


def _ticket_measurements(name, gpu_key):
    """(layout, batch, metric, value) from a real ticket's ticket.toml (never expected.toml)."""
    data = tomllib.loads(shared_path("tickets", name, "ticket.toml").read_text())
    model = catalog.model(data["workload"]["model"])
    for m in data["measured"]:
        if "batch" in m and m["metric"] in ("decode_tok_s", "output_tok_s"):
            yield model, gpu_key, m["tp"], m["batch"], m["metric"], m["value"]


@pytest.mark.parametrize(
    "ticket, gpu_key",
    [
        # "A100 80GB ... with full NVLink": the SXM part (the faster of the two 80 GB rows)
        ("078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1", "a100-80gb-sxm"),
        ("079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline", "h200-sxm"),
    ],
)
def test_decode_roofline_never_slower_than_measured(ticket, gpu_key):
    rows = list(_ticket_measurements(ticket, gpu_key))
    assert rows
    for model, gpu, tp, batch, metric, value in rows:
        p = roofline.predict(model, catalog.gpu(gpu), Layout(tp=tp), batch=batch, dtype=model.checkpoint_dtype,
                             prompt=128, context=128)
        roof = p.decode_tok_s if metric == "decode_tok_s" else p.decode_tok_s_total
        assert value <= roof, (ticket, tp, batch, metric, value, roof)


def test_bridged_h100_pcie_pair_expects_its_links_at_nvlink_efficiency():
    """2x H100 PCIe over an NVLink bridge: 300 GB/s per direction (600 bidirectional, gpus-specs [S1])
    at NVLink's documented protocol efficiency (~370 of 450 GB/s, nccl-tests#212 [R2]; ~20 of each
    link's 25 GB/s, nccl-tests#149) is ~247 GB/s busbw. nccl#1161's 115.4-116.3 GB/s [R15] is the
    complaint, under half of that, not the typical figure; the roofline still sits below it."""
    from rules import collectives

    ic, _ = tp_fabric(catalog.gpu("h100-pcie"), 2, 8)
    assert ic.bandwidth_gbs == 300 and ic.achieved_gbs == pytest.approx(300 * 370 / 450)
    assert "0 links" not in ic.name
    for size, measured_busbw in ((1 << 30, 115.4), (4 << 30, 116.3)):
        t = collectives.expected(ic, 2, size).us  # n = 2: busbw = algbw = bytes / time
        assert measured_busbw / (size / t / 1e3) < 0.5
        assert collectives.roofline_us(ic, 2, size) < size / (measured_busbw * 1e3)


def test_per_query_head_decode_attention_is_cuda_core_bound_at_a_large_gqa_group():
    """TensorRT-LLM's masked MHA runs one thread block per query head (its early XQA kernel, as in v0.8-v0.9,
    covers only head_dim 128 with 8 query heads per KV head): every query head loads and multiplies
    each element of its KV head itself, so Falcon-180B (29 query heads per KV head) pays 29x the
    CUDA-core work per KV element. Published: TensorRT-LLM v0.8.0 H200 FP8 TP4 batch 1024 runs
    128/2048 at 990 tok/s/GPU and 128/128 at 1116: the longer context costs ~113 ms more per step
    for ~20 GB more KV per GPU, ~24x the time its bytes take at HBM speed."""
    from rules import step_model

    cal = catalog.calibration()
    trt, mmha = catalog.engine("trtllm-xqa8"), catalog.engine("trtllm-mmha")
    falcon, llama = catalog.model("falcon-180b"), catalog.model("llama-2-70b")
    h200 = catalog.gpu("h200-sxm")

    def setting(model, engine):
        fabric = tp_fabric(h200, 4, 8)[0]
        return step_model.Setting(model, h200, engine, cal, 4, "fp8", "fp8", fabric)

    assert not step_model.grouped_attention(setting(falcon, trt))  # head_dim 64, 29 per KV head: no XQA
    assert step_model.grouped_attention(setting(llama, trt))  # 128:8 is XQA's shape
    assert not step_model.grouped_attention(setting(llama, mmha))  # v0.5: no XQA at all
    assert step_model.grouped_attention(setting(falcon, catalog.engine("vllm")))  # "any": GQA-aware kernel
    # by hand: 1024 sequences x 1000 tokens x 80 layers, 232/4 query heads x 64 x (K and V) elements each,
    # x kv8 operations at the FP32 FMA rate (67 TFLOPS / 2)
    token_layers = 1024 * 1000 * 80
    by_hand = token_layers * 58 * 64 * 2 * cal.per_head_ops["kv8"] / (67e6 / 2)
    assert step_model.per_head_attention_us(setting(falcon, trt), token_layers) == pytest.approx(by_hand)
    # the decode step at 2k context is slower under masked MHA than under a GQA-aware kernel, by more than
    # the KV bytes take: the KV stream is not what bounds it
    kw = dict(batch=1024, prompt=128, output=2048, dtype="fp8")
    per_head = predict("falcon-180b", "h200-sxm", Layout(tp=4), engine="trtllm-xqa8", **kw)
    grouped = predict("falcon-180b", "h200-sxm", Layout(tp=4), engine="generic", kv_dtype="fp8", **kw)
    assert per_head.itl_ms_expected - grouped.itl_ms_expected > 2 * per_head.expected_terms["kv_ms"]
    assert per_head.assumptions["decode_attention"].startswith("one thread block per query head")
    assert grouped.assumptions["decode_attention"].startswith("grouped")
    # a short context keeps it small: the work grows with the KV it reads
    short = predict("falcon-180b", "h200-sxm", Layout(tp=4), engine="trtllm-xqa8", batch=1024, prompt=128,
                    output=128, dtype="fp8")
    assert short.itl_ms_expected < per_head.itl_ms_expected


def test_current_trtllm_xqa_covers_gqa_groups_up_to_32():
    """TensorRT-LLM's XQA JIT path (default since the v0.10 pre-releases) takes any GQA group of 2-32 query heads
    per KV head at a head_dim multiple of 16 up to 256 (decoderXQAImplJIT/kernelUtils.cpp); plain MHA and larger
    groups stay on masked MHA. The `trtllm` profile follows it; `trtllm-xqa8` keeps v0.6-v0.9's 128:8 kernel.
    NVIDIA's v1.0 perf-overview gives Llama-3.1-405B FP8 on 8 x H200 5,348 output tok/s at 128/2048 (max load;
    docs/calibration-figures.md R30): at batch 1024 the current profile's band holds it, the v0.9 one's does not."""
    from rules import step_model

    cal = catalog.calibration()
    h200 = catalog.gpu("h200-sxm")
    fabric = tp_fabric(h200, 8, 8)[0]

    def grouped(model, engine):
        return step_model.grouped_attention(step_model.Setting(
            catalog.model(model), h200, catalog.engine(engine), cal, 8, "fp8", "fp8", fabric))

    for model in ("llama-3-8b", "llama-3-405b", "falcon-180b", "llama-2-70b"):  # groups 4, 16, 29 at 64, 8
        assert grouped(model, "trtllm"), model
    assert not grouped("llama-3-8b", "trtllm-xqa8") and not grouped("llama-3-405b", "trtllm-xqa8")
    assert not grouped("gpt-j-6b", "trtllm") and not grouped("llama-2-7b", "trtllm")  # MHA: masked MHA
    row = published.Row("perf-overview v1.0", "trtllm", "h200-sxm", 8, "llama-3-405b", "fp8", 8, 1, 1024, 128, 2048,
                        "output_tok_s_total", 5348)
    assert published.expect(row).verdict(row.value) == "inside"
    assert published.expect(row, engine=catalog.engine("trtllm-xqa8")).verdict(row.value) != "inside"


def test_parallel_block_reduces_twice_per_layer_before_trtllm_0_7_1():
    """TensorRT-LLM before v0.7.1 built Falcon's attention and MLP each with its own all-reduce; v0.7.1 sums
    the two outputs first ('Optimize AllReduce for parallel attention on Falcon and GPT-J'). Falcon-180B
    (80 parallel layers) at TP8 runs 160 all-reduces per pass on the v0.5 profile, 80 on the later one, and
    a sequential Llama 160 on both; the roofline keeps the fewest an engine can run."""
    from rules import shapes, step_model

    cal = catalog.calibration()
    h100 = catalog.gpu("h100-sxm")
    fabric = tp_fabric(h100, 8, 8)[0]
    falcon, llama = catalog.model("falcon-180b"), catalog.model("llama-2-70b")

    def count(model, engine):
        s = step_model.Setting(model, h100, catalog.engine(engine), cal, 8, "fp8", "fp8", fabric)
        return step_model.pass_terms(s, sequences=8, tokens_per_seq=1, context=512, prefill=False).allreduces

    assert (count(falcon, "trtllm-mmha"), count(falcon, "trtllm")) == (160, 80)
    assert (count(llama, "trtllm-mmha"), count(llama, "trtllm")) == (160, 160)
    assert shapes.allreduces_per_pass(falcon, 8) == 80
    kw = dict(batch=96, prompt=128, output=2048, dtype="fp8")
    old = predict("falcon-180b", "h100-sxm", Layout(tp=8), engine="trtllm-mmha", **kw)
    # one count for every consumer (scaling, capture, predict's text): the engine's, the expected time's own
    assert old.allreduce_count_per_step == 160
    assert old.expected_terms["allreduce_ms"] == pytest.approx(160 * old.allreduce_us_expected / 1e3, rel=1e-3)
    new = predict("falcon-180b", "h100-sxm", Layout(tp=8), engine="trtllm", **kw)
    assert new.allreduce_count_per_step == 80
    # scaling's calibrated terms recompute the collectives from that count: the same time as predict's
    from rules import scaling
    terms, _ = scaling._calibrated_terms(old, h100, scaling.Calibration(), old.allreduce_us_expected)
    assert terms["allreduce_ms"] == pytest.approx(old.expected_terms["allreduce_ms"], rel=1e-3)


def test_trtllm_0_5_reduces_with_nccl_and_launches_from_the_host():
    """TensorRT-LLM v0.5.0 built and benchmarked with its defaults: the custom all-reduce is a build flag
    (--use_custom_all_reduce, off unless passed) and gptSessionBenchmark replays CUDA graphs only with
    --enable_cuda_graph, so its Falcon-180B FP8 TP8 step reduces with NCCL and launches every kernel from the
    host; the same kernels under trtllm-mmha (v0.6.1 with an FP8 KV cache) reduce with the custom kernel."""
    kw = dict(batch=96, prompt=128, output=2048, dtype="fp8")
    v05 = predict("falcon-180b", "h100-sxm", Layout(tp=8), engine="trtllm-0.5", **kw)
    v061 = predict("falcon-180b", "h100-sxm", Layout(tp=8), engine="trtllm-mmha", **kw)
    assert v05.allreduce_impl.startswith("NCCL") and not v061.allreduce_impl.startswith("NCCL")
    assert v05.assumptions["cuda_graphs"] is False and v061.assumptions["cuda_graphs"] is True
    assert v05.allreduce_us_expected > v061.allreduce_us_expected
    assert v05.allreduce_count_per_step == v061.allreduce_count_per_step == 160  # the same kernels otherwise
    assert v05.decode_step_ms_expected > v061.decode_step_ms_expected
    # a version as a ticket or table spells it finds the profile
    assert {catalog.engine(n).key for n in ("trtllm-v0.5", "tensorrt-llm-0.5", "trtllm-0.5.0")} == {"trtllm-0.5"}


def test_turbomind_int4_layer_runs_gate_up_and_silu_as_one_kernel():
    """LMDeploy TurboMind fuses gate, up and SiLU into one GEMM only for 4-bit weights (fused_up_and_gate_ is
    kINT4; LlamaFfnLayer's kFusedSiluFfn): its int4 decode layer runs one kernel fewer than its 16-bit one, so
    the expected step is shorter by one kernel's fixed time per layer. Other engines and dtypes keep their count."""
    lmd = catalog.engine("lmdeploy")
    assert (lmd.layer_kernels("int4"), lmd.layer_kernels("fp16")) == (7, lmd.kernels_per_layer) == (7, 8)
    assert catalog.engine("vllm").layer_kernels("int4") == catalog.engine("vllm").kernels_per_layer
    kw = dict(batch=1, prompt=1, output=512, dtype="int4")
    fused = predict("llama-2-7b", "rtx-4090", Layout(tp=1), engine="lmdeploy", **kw)
    unfused = roofline.predict(catalog.model("llama-2-7b"), catalog.gpu("rtx-4090"), Layout(tp=1),
                               engine=dataclasses.replace(lmd, int4_kernels_per_layer=0), **kw)
    assert (fused.assumptions["kernels_per_layer"], unfused.assumptions["kernels_per_layer"]) == (7, 8)
    one_kernel_per_layer = 32 * (lmd.kernel_overhead_us or catalog.calibration().kernel_overhead_us) / 1e3
    assert unfused.decode_step_ms_expected - fused.decode_step_ms_expected == pytest.approx(one_kernel_per_layer,
                                                                                            rel=0.2)
    # the 16-bit path is untouched
    assert predict("llama-2-7b", "rtx-4090", Layout(tp=1), engine="lmdeploy", batch=1, prompt=1, output=512,
                   dtype="fp16").assumptions["kernels_per_layer"] == 8


def test_every_published_table_stating_trtllm_0_5_takes_its_profile():
    """Any table whose Conditions line names TensorRT-LLM v0.5 runs the v0.5 profile (its build and benchmark
    defaults), and no other table does."""
    seen = 0
    for name, conditions, engines in published_tables():
        if re.search(r"TensorRT-LLM v0\.5\b", conditions):
            seen += 1
            assert engines == {"trtllm-0.5"}, name
        else:
            assert "trtllm-0.5" not in engines, name
    assert seen >= 4


def test_elementwise_traffic_reads_the_ffn_once_without_a_gate():
    """Beside its GEMMs a layer moves its activations through norms and residual adds (6 x hidden per token)
    and its MLP activation kernel: SiLU x gate reads two ffn-wide tensors and writes one (3 x ffn), a plain
    GELU (GPT-J, GPT-3, Falcon) reads one and writes one (2 x ffn). GPT-J's 2048-token prefill on one L40S
    checked by hand: the activation term is the GEMMs' own input and output plus that traffic."""
    from rules import shapes, step_model

    cal = catalog.calibration()
    l40s = catalog.gpu("l40s")
    gptj = catalog.model("gpt-j-6b")
    s = step_model.Setting(gptj, l40s, catalog.engine("trtllm"), cal, 1, "fp8", "fp8", tp_fabric(l40s, 1, 8)[0])
    t = step_model.pass_terms(s, sequences=1, tokens_per_seq=2048, context=2048, prefill=True)
    bw = s.stream_bw()
    gemm_io = sum(2048 * (m.k + m.n) * 2.0 * m.groups for m in shapes.layer_matrices(gptj, 1, False)) * gptj.layers
    head_io = (gptj.hidden + gptj.vocab) * 2.0  # the LM head runs on the last token only
    elementwise = 2048 * (6 * gptj.hidden + 2 * gptj.ffn) * 2.0 * gptj.layers
    assert t.activation_ms == pytest.approx((gemm_io + head_io + elementwise) / bw / 1e3, rel=1e-6)


def test_unfused_context_attention_writes_every_score_matrix_to_memory():
    """FasterTransformer's GPT runs its prompt attention unfused unless FMHA_ENABLE=ON: QK^T as a batched
    GEMM (K = head_dim) into FP32 scores, a masked softmax to 16 bits, PV as a second batched GEMM, each over
    the full prompt x prompt square (engines.toml context_score_bytes). At batch 64 x 512 tokens GPT-350M's
    16 heads x 24 layers write 6.4 GB of scores per prefill, about as much time as its GEMMs take; the
    published table (gpt_guide.md, A100) runs 64 x 512/32 in 529 ms, which a fused-attention model missed
    by 44 %."""
    from pathlib import Path

    from diagnose import published
    from rules import step_model

    catalog.configure([str(Path(__file__).parent / "data" / "published" / "models.toml")])
    ft, generic = catalog.engine("fastertransformer"), catalog.engine("generic")
    assert ft.context_score_bytes == 4.0 and generic.context_score_bytes == 0.0
    gpt, a100 = catalog.model("ft-gpt-350m"), catalog.gpu("a100-80gb-sxm")
    cal = catalog.calibration()

    def prefill(engine):
        s = step_model.Setting(gpt, a100, engine, cal, 1, "fp16", "fp16", tp_fabric(a100, 1, 8)[0])
        return s, step_model.pass_terms(s, sequences=64, tokens_per_seq=512, context=512, prefill=True)

    s, unfused = prefill(ft)
    parts = step_model.unfused_attention(s, 64, 512)
    square = 64 * 16 * 512**2  # score elements per layer
    assert [b for b, _, _ in parts] == [square * 4, square * 6, square * 2]  # write FP32; read it, write 16-bit; read
    assert parts[0][1] == parts[2][1] == 2 * square * 64  # full square, no causal skip
    assert parts[0][2] < parts[2][2]  # QK^T's K is head_dim deep (64): a shallow, slow GEMM
    by_hand = 24 * square * 12 / (a100.hbm_gbs * 1e6 * cal.stream_efficiency)  # ms of score traffic
    _, fused = prefill(generic)
    assert unfused.activation_ms - fused.activation_ms == pytest.approx(by_hand, rel=0.01)
    assert unfused.total_ms > 1.3 * fused.total_ms
    # the published rows: every batch of the 512-token table inside the 35 % target, the largest too
    table = Path(__file__).parent / "data" / "published" / "ft-gpt_guide-gpt350m-a100-tp1.csv"
    rows = [r for r in published.read(table) if r.input_len == 512]
    errors = {r.batch: 1.0 / published.expect(r).ratio(r.value) - 1.0 for r in rows}
    assert max(abs(e) for e in errors.values()) <= 0.35
    fused_ft = dataclasses.replace(ft, context_score_bytes=0.0)  # as under FMHA_ENABLE=ON
    without = {r.batch: 1.0 / published.expect(r, engine=fused_ft).ratio(r.value) - 1.0 for r in rows}
    assert without[64] < errors[64] - 0.08  # the score traffic closes a quarter of the gap at batch 64


def test_fastertransformer_pipeline_microbatches_and_drained_steps():
    """FasterTransformer's getLocalBatchSize: batch / pp sequences per microbatch when pp divides
    the batch, else the whole batch, halved while it holds more than 1024 tokens; and every decode
    step runs all its microbatches through all stages before the next (ParallelGpt's loop)."""
    from rules.roofline import engine_microbatches

    ft, vllm = catalog.engine("fastertransformer"), catalog.engine("vllm")
    assert engine_microbatches(ft, 256, 128, 3) == 32  # 256 -> 128 -> ... -> 8 sequences x 128 tokens = 1024
    assert engine_microbatches(ft, 256, 1, 3) == 1  # 3 does not divide 256: one microbatch, no overlap
    assert engine_microbatches(ft, 256, 1, 4) == 4
    assert engine_microbatches(ft, 4, 1, 3) == 1
    assert engine_microbatches(ft, 64, 1, 1) == 1
    assert engine_microbatches(vllm, 256, 1, 3) == 3  # one per stage
    # NeMo's FasterTransformer sweep, GPT-3 20B, 8 x A100 TP8, batch 256, 200/200 tokens: adding stages
    # does not shorten the decode step (measured ~26-29 ms per step at PP1..PP4): each step drains
    from pathlib import Path

    catalog.configure([str(Path(__file__).parent / "data" / "published" / "models.toml")])
    steps = {pp: predict("nemo-gpt3-20b", "a100-80gb-sxm", Layout(tp=8, pp=pp), batch=256, prompt=200, output=200,
                         engine="fastertransformer").itl_ms_expected for pp in (1, 2, 4)}
    assert min(steps.values()) > 0.75 * steps[1]
    overlapped = predict("nemo-gpt3-20b", "a100-80gb-sxm", Layout(tp=8, pp=4), batch=256, prompt=200, output=200,
                         engine="generic").itl_ms_expected
    assert overlapped < 0.75 * steps[4]
    assert predict("nemo-gpt3-20b", "a100-80gb-sxm", Layout(tp=8, pp=4), batch=256, prompt=200, output=200,
                   engine="fastertransformer").assumptions["pp_microbatches"] == {"decode": 4, "prefill": 64,
                                                                                  "step_drains": True}


def test_memory_and_math_overlap_imperfectly_near_the_ridge_point():
    """A kernel's time is the p-norm of its stream and its math (calibration.toml overlap_p): the
    larger far from the ridge point, more than either near it."""
    from rules import step_model

    p = catalog.calibration().overlap_p
    assert step_model.overlapped(100.0, 1.0, p) == pytest.approx(100.0, rel=0.01)  # a decode GEMV: its stream
    assert step_model.overlapped(10.0, 10.0, p) == pytest.approx(10.0 * 2 ** (1 / p))
    assert step_model.overlapped(3.0, 4.0, 1.0) == pytest.approx(7.0)  # p = 1: nothing overlaps
    assert step_model.overlapped(0.0, 0.0, p) == 0.0


def test_turbomind_2023_samples_the_first_token_from_a_decode_step():
    """TurboMind up to v0.1.0a1 prefilled a prompt but its last token and ran that token in the first decode step
    (LlamaBatch::ContextDecode, engines.toml lmdeploy-0.1a1): LMDeploy's 1-token prompt on one A100 reaches its
    first token in 11 ms, one decode step (its ITL is 9 ms) and the request's host time, not a prefill pass plus
    the 5 ms per request the fit needed before. 2048 tokens: their prefill and a step, inside the band. 128 tokens
    (22 ms) sit below the band: the prefill of 127 tokens is priced at ~17 ms with calibration.toml's overlap_p at
    its floor, a value the full fit took while this step was not counted (a refit is pending, not done here)."""
    from pathlib import Path


    table = Path(__file__).parent / "data" / "published" / "lmdeploy-a100-static-llama-2-7b-ebe90bc.csv"
    rows = published.read(table)
    ttft = {r.input_len: r for r in rows if r.metric == "ttft_ms" and r.output_len == 128}
    itl = next(r for r in rows if r.metric == "itl_ms" and r.input_len == 1 and r.batch == 1)
    one, short, long = (published.expect(ttft[n]) for n in (1, 128, 2048))
    assert one.verdict(ttft[1].value) == long.verdict(ttft[2048].value) == "inside"
    assert published.expect(itl).expected < one.expected < published.expect(itl).expected + 2.0
    unified = dataclasses.replace(catalog.engine("lmdeploy-0.1a1"), first_token_step=False)
    assert published.expect(ttft[1], engine=unified).expected < one.expected  # a 1-token prefill pass, no step
    assert catalog.engine("lmdeploy 0.0.14").key == "lmdeploy-0.1a1"
    assert catalog.engine("lmdeploy 0.4.0").key == "lmdeploy"
    assert short.verdict(ttft[128].value) == "faster"  # the known miss above


def test_grouped_expert_gemms_run_below_the_dense_rate():
    """Fused-MoE prefill gathers each expert's tokens and pads them to its block, so its GEMMs
    reach a share of the dense rate (calibration.toml expert_gemm_efficiency): a large Mixtral
    prefill slows with it, a dense model's does not."""
    import dataclasses

    cal = catalog.calibration()
    assert 0.3 <= cal.expert_gemm_efficiency <= 1.0
    kw = dict(batch=64, prompt=1000, output=50, engine="vllm")
    ttft = {}
    for eff in (1.0, 0.5):
        with catalog.trial_calibration(dataclasses.replace(cal, expert_gemm_efficiency=eff)):
            ttft[eff] = [predict(m, "a100-80gb-sxm", Layout(tp=2), **kw).ttft_batch_ms_expected
                         for m in ("mixtral-8x7b", "llama-2-13b")]
    assert ttft[0.5][1] == pytest.approx(ttft[1.0][1])  # dense: no expert GEMM
    # 64 x 1000 tokens: compute-bound expert GEMMs set most of the prefill, so half their rate costs > 1.5x
    assert ttft[0.5][0] > 1.5 * ttft[1.0][0]


def test_a_tp_group_waits_for_its_slowest_gpu():
    """Every all-reduce waits for the last rank, so a TP group of N runs at its slowest GPU's pace:
    cv x E[max of N standard normals] of its GPU time (calibration.toml [sync]); nothing at TP1."""
    import dataclasses

    from rules import step_model

    assert step_model.expected_max_normal(1) == 0.0
    assert step_model.expected_max_normal(2) == pytest.approx(1 / 3.14159265 ** 0.5, abs=1e-3)  # 1/sqrt(pi)
    assert step_model.expected_max_normal(8) == pytest.approx(1.4236, abs=1e-3)
    cal = catalog.calibration()
    kw = dict(batch=1, prompt=128, output=128, engine="vllm")
    steps = {}
    for cv in (0.0001, 0.03):
        with catalog.trial_calibration(dataclasses.replace(cal, gpu_speed_cv=cv)):
            steps[cv] = {tp: predict("llama-2-70b", "h100-sxm", Layout(tp=tp), **kw).expected_terms for tp in (1, 8)}
    one, eight = steps[0.03][1], steps[0.03][8]
    assert one == steps[0.0001][1]  # one GPU waits for nobody
    gpu_ms = sum(eight[k] for k in ("weights_ms", "kv_ms", "activation_ms", "compute_ms", "overhead_ms"))
    # the wait is its own term: the all-reduces themselves do not change with the spread
    assert eight["allreduce_ms"] == steps[0.0001][8]["allreduce_ms"]
    assert eight["wait_ms"] == pytest.approx(0.03 * 1.4236 * gpu_ms, rel=0.01)
    assert steps[0.0001][8]["wait_ms"] == pytest.approx(0.0001 * 1.4236 * gpu_ms, abs=1e-4)  # terms: 4 decimals
    assert one["wait_ms"] == 0.0


def test_weight_only_dequantisation_hides_under_the_weight_stream_until_it_exceeds_it():
    """A W4A16 / W8A16 GEMM multiplies in 16 bits, so each int4/int8 weight it reads is unpacked,
    converted and scaled on the CUDA cores first (calibration.toml [dequant]), once per pass, at the
    FP32 FMA rate. A well-made kernel converts each tile in registers while the next one streams in
    (Marlin reaches near the ideal 4x over FP16 at batch 1-32), so a kernel takes the larger of its
    stream and its conversion: nothing where the conversion is the faster (an H100: 67 FP32 TFLOPS for
    3.35 TB/s; an RTX 4090: 82.6 for 1.0 TB/s), the excess where it is the slower (an A100: 19.5 for
    2.0 TB/s at 6 operations per weight); none for 16-bit or FP8 weights or a matrix kept in 16 bits."""
    from rules import shapes, step_model

    cal = catalog.calibration()
    assert 1.0 <= cal.dequant_ops["int4"] <= 12.0 and 0.5 <= cal.dequant_ops["int8"] <= 8.0
    llama, mixtral = catalog.model("llama-2-7b"), catalog.model("mixtral-8x7b")
    a100, h100 = catalog.gpu("a100-80gb-sxm"), catalog.gpu("h100-sxm")
    gptfast = catalog.engine("gpt-fast")

    def setting(model, gpu, dtype):
        return step_model.Setting(model, gpu, gptfast, cal, 1, dtype, "bf16", tp_fabric(gpu, 1, 8)[0])

    up = next(m for m in shapes.layer_matrices(llama, 1, False) if m.name == "gate_up")
    # by hand: 2 x 11008 x 4096 weights x int4's operations at 19.5 TFLOPS / 2 FMAs per microsecond
    by_hand = 2 * 11008 * 4096 * cal.dequant_ops["int4"] / (19.5e6 / 2)
    assert step_model.dequant_us(setting(llama, a100, "int4"), up) == pytest.approx(by_hand)
    assert step_model.dequant_us(setting(llama, h100, "int4"), up) == pytest.approx(by_hand * 19.5 / 67)
    for dtype in ("bf16", "fp8"):
        assert step_model.dequant_us(setting(llama, a100, dtype), up) == 0.0
    router = next(m for m in shapes.layer_matrices(mixtral, 1, True, 2.0) if m.name == "router")
    assert step_model.dequant_us(setting(mixtral, a100, "int4"), router) == 0.0

    def itl(gpu, ops, engine="gpt-fast"):
        with catalog.trial_calibration(dataclasses.replace(cal, dequant_ops={**cal.dequant_ops, "int4": ops})):
            return predict("llama-2-7b", gpu, Layout(tp=1), batch=1, prompt=5, output=200, dtype="int4",
                           engine=engine).itl_ms_expected

    free = {g: itl(g, 1e-6) for g in ("a100-80gb-sxm", "h100-sxm")}
    # 6 operations per weight: under the H100's stream (hidden, the step unchanged), over the A100's
    assert itl("h100-sxm", 6.0) == pytest.approx(free["h100-sxm"], abs=1e-4)
    assert itl("a100-80gb-sxm", 6.0) > 1.3 * free["a100-80gb-sxm"]
    # below the stream the count does not matter at all; above it the step grows with it
    assert itl("a100-80gb-sxm", 1.0) == pytest.approx(free["a100-80gb-sxm"], abs=1e-4)
    assert itl("a100-80gb-sxm", 8.0) > itl("a100-80gb-sxm", 6.0)
    # the calibrated count on LMDeploy's RTX 4090 (published W4A16 batch-1 decode): hidden entirely
    assert (itl("rtx-4090", cal.dequant_ops["int4"], "lmdeploy")
            == pytest.approx(itl("rtx-4090", 1e-6, "lmdeploy"), abs=1e-4))


def test_vllm_mixtral_before_its_fused_moe_ran_whole_experts_on_every_token():
    """vLLM's MixtralMoE before PR 2542 (mixtral_quant.py after it) gives each TP rank experts / tp
    whole experts and runs each on every token: at TP8 every GPU reads a whole expert per layer at
    batch 1, where the fused kernel reads two experts' eighths, and computes 8 / 2 = 4x the expert
    FLOPs. Published (PR 2542, H100 TP8, 1000 + 50 tokens, batch 1): 590 ms before, 459 ms after."""
    from pathlib import Path

    from diagnose import published
    from rules import shapes

    mixtral = catalog.model("mixtral-8x7b")
    dense = [m for m in shapes.layer_matrices(mixtral, 8, True, 8.0, dense_experts=True) if m.expert]
    sparse = [m for m in shapes.layer_matrices(mixtral, 8, True, 2.0) if m.expert]
    expert = 3 * 4096 * 14336  # one expert's gate, up and down weights
    assert sum(m.params for m in dense) == expert  # one whole expert per GPU
    assert sum(m.params for m in sparse) == 2 * expert / 8
    assert all(m.tokens_share == 1.0 and not m.grouped for m in dense)  # every token, plain GEMMs
    # 2 x rows x params: FLOPs per token 4x the top-2 router's
    assert (sum(m.tokens_share * m.params for m in dense) / sum(m.tokens_share * m.params for m in sparse)
            == pytest.approx(mixtral.experts / mixtral.experts_active))
    catalog.configure([str(Path(__file__).parent / "data" / "published" / "models.toml")])
    tables = Path(__file__).parent / "data" / "published"
    b1 = {}
    for name in ("master", "fusedmoe"):
        row = next(r for r in published.read(tables / f"vllm-pr2542-mixtral-8x7b-h100-tp8-{name}.csv") if r.batch == 1)
        b1[name] = (row.value, published.expect(row).expected)
    assert b1["master"][0] - b1["fusedmoe"][0] == pytest.approx(131)  # measured: 590 - 459 ms
    # the expected figures differ by the whole expert read 49 decode steps long, as the measurements do
    assert b1["master"][1] - b1["fusedmoe"][1] == pytest.approx(131, rel=0.4)


def test_a_fused_moe_kernel_at_untuned_block_sizes_has_its_own_expert_rate():
    """vLLM's fused-MoE Triton kernel without a config file for the GPU and expert shape runs fixed
    default block sizes (engines.toml vllm-moe-untuned): its grouped expert GEMMs take that
    profile's own fitted rate (a share of the dense rate, capped per SM); a dense model runs exactly
    as under vllm."""
    from rules import step_model

    untuned, vllm = catalog.engine("vllm-moe-untuned"), catalog.engine("vllm")
    assert untuned.expert_gemm_sm_tflops > 0 and not vllm.expert_gemm_sm_tflops
    assert (untuned.host_ms_per_step, untuned.host_ms_per_request) == (vllm.host_ms_per_step, vllm.host_ms_per_request)
    kw = dict(batch=64, prompt=1000, output=50)
    dense = [predict("llama-2-13b", "a100-80gb-sxm", Layout(tp=2), engine=e, **kw).ttft_batch_ms_expected
             for e in ("vllm", "vllm-moe-untuned")]
    assert dense[0] == pytest.approx(dense[1])
    moe = {e: predict("mixtral-8x7b", "a100-80gb-sxm", Layout(tp=2), engine=e, **kw).ttft_batch_ms_expected
           for e in ("vllm", "vllm-moe-untuned")}
    a100 = catalog.gpu("a100-80gb-sxm")
    setting = {e: step_model.Setting(catalog.model("mixtral-8x7b"), a100, catalog.engine(e), catalog.calibration(), 2,
                                     "bf16", "bf16", tp_fabric(a100, 2, 8)[0]) for e in ("vllm", "vllm-moe-untuned")}
    # each expert's 16,000 rows of the 64,000-token prompt batch (gate and up: 14,336 wide at TP2)
    dense_rate = setting["vllm"].tensor_rate("bf16", 16000, 14336, 4096)
    ratio = (step_model.expert_rate(setting["vllm"], dense_rate)
             / step_model.expert_rate(setting["vllm-moe-untuned"], dense_rate))
    # a 64 x 1000-token prefill is set mostly by its compute-bound expert GEMMs: it moves with their rate,
    # by most of the rates' ratio (the attention, dense GEMMs and all-reduces do not move)
    slower = moe["vllm-moe-untuned"] / moe["vllm"]
    assert (slower > 1) == (ratio > 1)
    assert abs(slower - 1) > 0.7 * abs(ratio - 1)


def test_an_untuned_fused_moe_kernel_runs_at_a_rate_per_sm_not_a_share_of_the_tensor_peak():
    """vLLM's fused MoE at its default block sizes adds ~127 ms per extra 1000-token sequence on two A100s
    (PR 3240) and ~28.5 ms on eight H100s (PR 2542): about the same TFLOPS per SM on both GPUs, where a share
    of the tensor peak would make the H100s 3x faster (engines.toml expert_gemm_sm_tflops). So the expected
    figure follows both published tables from batch 1 to 64 without an error that grows with the batch."""
    from pathlib import Path

    from diagnose import published
    from rules import step_model

    untuned = catalog.engine("vllm-moe-untuned")
    assert untuned.expert_gemm_sm_tflops > 0 and not catalog.engine("vllm").expert_gemm_sm_tflops
    cal = catalog.calibration()
    rates = {}
    for gpu in ("a100-80gb-sxm", "h100-sxm"):
        g = catalog.gpu(gpu)
        s = step_model.Setting(catalog.model("mixtral-8x7b"), g, untuned, cal, 8, "bf16", "bf16", tp_fabric(g, 8, 8)[0])
        dense = s.tensor_rate("bf16", 8192, 4096, 4096)
        rates[gpu] = step_model.expert_rate(s, dense)
    # a large grouped GEMM on an H100 runs at the SM ratio over an A100 (132 / 108), not the tensor ratio (~3)
    assert rates["h100-sxm"] / rates["a100-80gb-sxm"] < 1.5

    catalog.configure([str(Path(__file__).parent / "data" / "published" / "models.toml")])
    tables = Path(__file__).parent / "data" / "published"
    for name in ("vllm-pr2542-mixtral-8x7b-h100-tp8-fusedmoe.csv", "vllm-pr3240-mixtral-8x7b-a100-tp2-main.csv"):
        errors = {r.batch: 1 / published.expect(r).ratio(r.value) - 1 for r in published.read(tables / name)}
        assert {1, 64} <= set(errors)
        assert max(abs(e) for e in errors.values()) < 0.2, (name, errors)
        assert abs(errors[64] - errors[1]) < 0.2, (name, errors)  # was -37 % against +2 % on the H100s


def test_vllm_pays_its_worker_hand_off_only_when_the_model_spans_several_processes():
    """vLLM hands every step to its other worker processes (V0: broadcast_tensor_dict; V1: a shared-memory
    queue there and back), a host cost TP1 does not pay (engines.toml multiprocess_ms_per_step). SGLang and
    TensorRT-LLM run one scheduler loop per rank and pay none. The term adds to the expected step and to
    every decode step of the end-to-end latency, never to the roofline."""
    vllm = catalog.engine("vllm")
    assert vllm.multiprocess_ms_per_step > 0
    for key in ("vllm-moe-dense", "vllm-moe-untuned"):  # vLLM of the same era, same scheduler
        assert catalog.engine(key).multiprocess_ms_per_step == vllm.multiprocess_ms_per_step
    assert catalog.engine("sglang").multiprocess_ms_per_step == catalog.engine("trtllm").multiprocess_ms_per_step == 0
    kw = dict(batch=1, prompt=128, output=65)
    one, two = (predict("llama-2-7b", "a100-80gb-sxm", Layout(tp=tp), engine="vllm", **kw) for tp in (1, 2))
    assert one.expected_terms["host_ms"] == vllm.host_ms_per_step
    assert two.expected_terms["host_ms"] == pytest.approx(vllm.host_ms_per_step + vllm.multiprocess_ms_per_step)
    assert two.assumptions["multiprocess_ms_per_step"] == vllm.multiprocess_ms_per_step
    assert one.assumptions["multiprocess_ms_per_step"] == 0
    # PP spans processes too: a TP1 PP2 step pays it
    pp = predict("llama-2-7b", "a100-80gb-sxm", Layout(tp=1, pp=2), engine="vllm", **kw)
    assert pp.expected_terms["host_ms"] == pytest.approx(two.expected_terms["host_ms"])
    # the 64 decode steps after the first token each pay it once: the end-to-end latency moves by exactly
    # 64 x the hand-off against the same TP2 prediction without it
    bare = roofline.predict(catalog.model("llama-2-7b"), catalog.gpu("a100-80gb-sxm"), Layout(tp=2),
                            engine=dataclasses.replace(vllm, multiprocess_ms_per_step=0.0), **kw)
    assert two.e2e_latency_ms_expected - bare.e2e_latency_ms_expected == pytest.approx(
        64 * vllm.multiprocess_ms_per_step, abs=0.01)
    assert two.decode_step_ms == bare.decode_step_ms  # the roofline holds no host time


@pytest.mark.parametrize("gpu", ["a100-80gb-sxm", "h100-sxm", "l40s", "rtx-4090", "a10g"])
@pytest.mark.parametrize("rows", [16, 256, 4096, 65536])
def test_an_untuned_fused_moe_kernel_is_never_faster_than_the_tuned_one(gpu, rows):
    """Default block sizes can only lose to a config tuned for the GPU and shape: where the per-SM cap does
    not bind (a GeForce, an A10G, a small batch) the untuned kernel runs at the tuned kernels' share, not above
    it (a share of its own once made it 1.36x faster than tuned there)."""
    from rules import step_model

    g, cal = catalog.gpu(gpu), catalog.calibration()
    rate = {}
    for e in ("vllm", "vllm-moe-untuned"):
        s = step_model.Setting(catalog.model("mixtral-8x7b"), g, catalog.engine(e), cal, 2, "bf16", "bf16",
                               tp_fabric(g, 2, 8)[0])
        rate[e] = step_model.expert_rate(s, s.tensor_rate("bf16", rows, 14336, 4096))
    assert rate["vllm-moe-untuned"] <= rate["vllm"]

"""Hybrid linear-attention models (Qwen3-Next, Qwen3.5, Qwen3.6): three Gated DeltaNet layers to one full-attention
layer, so only a quarter of the layers grow a KV cache (issue 11, s14).

Shapes as the model cards list them: https://huggingface.co/Qwen/Qwen3.6-27B ("16 x (3 x (Gated DeltaNet -> FFN) ->
1 x (Gated Attention -> FFN))", attention 24 Q / 4 KV heads of 256, DeltaNet 48 V / 16 QK heads of 128),
https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct (48 layers, 12 x (3 + 1), 512 experts, 10 routed + 1
shared). The tickets below are paraphrases written for this test (no case's words), each with its negation.
"""

import json

import pytest
from conftest import diagnose

from rules import catalog, shapes

CARD_27B = dict(hidden_size=5120, intermediate_size=17408, num_hidden_layers=64, num_attention_heads=24,
                num_key_value_heads=4, head_dim=256, vocab_size=248320, tie_word_embeddings=False,
                linear_num_key_heads=16, linear_num_value_heads=48, linear_key_head_dim=128,
                linear_value_head_dim=128, linear_conv_kernel_dim=4, attn_output_gate=True,
                full_attention_interval=4, max_position_embeddings=262144, model_type="qwen3_5_text")


def test_only_the_full_attention_layers_hold_kv():
    m = catalog.model("Qwen/Qwen3.6-27B")
    assert m.is_hybrid and m.full_attention_layers == 16
    # 16 layers x K and V x 4 heads x 256 x 2 bytes, where a dense reading of all 64 layers gives 4x that
    assert m.kv_bytes_per_token(2.0) == 16 * 2 * 4 * 256 * 2
    # at a context, the DeltaNet state (48 layers x (48 heads x 128 x 128 + 3 conv steps x 10240)) is shared out
    state = 48 * (48 * 128 * 128 + 3 * (2 * 16 * 128 + 48 * 128)) * 2
    assert m.linear_state_bytes(2.0) == state
    assert m.kv_bytes_per_token(2.0, context=8192) == pytest.approx(65536 + state / 8192)


def test_a_dense_model_is_unchanged():
    m = catalog.model("qwen3-32b")
    assert not m.is_hybrid and m.linear_state_bytes() == 0
    assert m.kv_bytes_per_token(2.0, context=8192) == 64 * 2 * 8 * 128 * 2
    assert shapes.attended(m, 4096) == 4096


def test_hybrid_attends_the_context_only_in_its_full_layers():
    m = catalog.model("qwen3-next-80b-a3b")
    assert shapes.attended(m, 4096) == pytest.approx(4096 * 12 / 48)


@pytest.mark.parametrize("name, key", [
    ("Qwen/Qwen3.6-27B-FP8", "qwen3.6-27b"),  # https://huggingface.co/Qwen/Qwen3.6-27B-FP8
    ("qwen3.5:27b", "qwen3.6-27b"),  # https://ollama.com/library/qwen3.5
    ("unsloth/Qwen3.6-35B-A3B-GGUF", "qwen3.6-35b-a3b"),  # https://huggingface.co/unsloth/Qwen3.6-35B-A3B-GGUF
    ("Qwen/Qwen3-Next-80B-A3B-Thinking", "qwen3-next-80b-a3b"),
])
def test_names_as_written(name, key):
    from rules.subject import model_named
    assert model_named(name).key == key


def test_other_sizes_keep_their_own_shape():
    """Qwen3.5-397B-A17B (https://huggingface.co/Qwen/Qwen3.5-397B-A17B) has its own row since s25: it must not borrow
    the 35B's shape; a Qwen3.5 size the catalog lacks stays unknown."""
    from rules.subject import model_named
    m = model_named("Qwen/Qwen3.5-397B-A17B")
    assert m.key == "qwen3.5-397b-a17b" and m.experts == 512
    with pytest.raises(catalog.UnknownName):
        model_named("Qwen/Qwen3.5-9B")


def _config(tmp_path, text):
    path = tmp_path / "config.json"
    path.write_text(json.dumps({"architectures": ["Qwen3_5ForConditionalGeneration"], "model_type": "qwen3_5",
                                "text_config": text}))
    return catalog.model_from_config(path)


def test_config_json_with_layer_types_counts_as_the_catalog_row(tmp_path):
    types = (["linear_attention"] * 3 + ["full_attention"]) * 16
    m = _config(tmp_path, {**CARD_27B, "layer_types": types})
    row = catalog.model("qwen3.6-27b")
    assert m.full_attention_every == 4 and m.params() == row.params()
    assert m.kv_bytes_per_token() == row.kv_bytes_per_token()


def test_config_json_without_layer_types_uses_the_interval(tmp_path):
    m = _config(tmp_path, {**CARD_27B, "full_attention_interval": 2})
    assert m.full_attention_layers == 32


def test_config_json_of_a_dense_model_listing_full_layers_is_not_hybrid(tmp_path):
    """transformers writes layer_types for plain Qwen3 too, every entry full_attention
    (https://huggingface.co/Qwen/Qwen3-8B/blob/main/config.json shape): no linear layers, KV on all of them."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(model_type="qwen3", hidden_size=4096, intermediate_size=12288,
                                    num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8,
                                    head_dim=128, vocab_size=151936, layer_types=["full_attention"] * 36)))
    m = catalog.model_from_config(path)
    assert not m.is_hybrid and m.kv_bytes_per_token(2.0) == 36 * 2 * 8 * 128 * 2


@pytest.mark.parametrize("text, category, figure", [
    ("Running Qwen3.6-27B-AWQ on a single RTX 3090 with vLLM, one request at a time: 38 tok/s decode. Is that "
     "normal?", "expected_physics", "38 tok/s"),
    ("Qwen3-Next-80B-A3B-Instruct-FP8 on 2x H100 80GB, tensor parallel 2, vLLM, one user: I only get 9 tok/s.",
     "other", "9 tok/s"),
    ("Qwen3.5-35B-A3B Q4_K_M in llama.cpp on one RTX 4090, fully offloaded: 150 tokens/s generation. normal?",
     "expected_physics", "150 tok/s"),
])
def test_a_figure_for_a_hybrid_model_gets_an_expected_figure(tmp_path, text, category, figure):
    (tmp_path / "issue.md").write_text(f"# speed\n\n{text}\n")
    report = json.loads(diagnose("ticket", str(tmp_path / "issue.md"), "--json", "--fail-on", "never").stdout)
    assert report["verdict"]["category"] == category, report["verdict"]
    assert figure in report["verdict"]["summary"] and "expected" in report["verdict"]["summary"]


def test_an_unknown_hybrid_size_is_not_judged(tmp_path):
    (tmp_path / "issue.md").write_text("# speed\n\nQwen3.5-9B on 8x H100, TP8, vLLM, one user: 30 tok/s. "
                                       "Is that normal?\n")
    report = json.loads(diagnose("ticket", str(tmp_path / "issue.md"), "--json", "--fail-on", "never").stdout)
    assert report["verdict"]["category"] != "expected_physics", report["verdict"]


# Gemma 3: one global layer in six, the others a 1024-token window (512 on the 1B): https://arxiv.org/abs/2503.19786
# section 2 and https://huggingface.co/google/gemma-3-27b-it/blob/main/config.json (sliding_window_pattern 6).

def test_gemma3_windows_five_layers_in_six():
    m = catalog.model("gemma3:27b")
    assert m.local_layers == 52  # 62 layers, layers 6, 12, ... 60 global
    per_layer = 2 * 16 * 128 * 2
    assert m.kv_bytes_per_token(2.0) == 62 * per_layer  # no context: the full-context upper bound
    assert m.kv_bytes_per_token(2.0, context=32768) == pytest.approx((10 + 52 * 1024 / 32768) * per_layer)
    assert shapes.attended(m, 32768) == pytest.approx((10 * 32768 + 52 * 1024) / 62)
    assert m.kv_bytes_per_token(2.0, context=1024) == 62 * per_layer  # inside the window every layer holds it all


def test_gemma2_still_alternates():
    m = catalog.model("gemma-2-9b")
    assert m.local_layers == 21 and m.global_every == 0


def _gemma3_config(tmp_path, **extra):
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(model_type="gemma3_text", hidden_size=1152, intermediate_size=6912,
                                    num_hidden_layers=26, num_attention_heads=4, num_key_value_heads=1, head_dim=256,
                                    vocab_size=262144, sliding_window=512, **extra)))
    return catalog.model_from_config(path)


def test_gemma3_config_json_reads_its_windows(tmp_path):
    """As transformers 4.5x writes a Gemma 3 config: the pattern (underscored) and the layer list."""
    types = (["sliding_attention"] * 5 + ["full_attention"]) * 4 + ["sliding_attention"] * 2
    m = _gemma3_config(tmp_path, _sliding_window_pattern=6, layer_types=types)
    assert m.local_layers == 22 and m.sliding_window == 512
    assert m.kv_bytes_per_token(2.0) == catalog.model("gemma-3-1b").kv_bytes_per_token(2.0)
    assert m.kv_bytes_per_token(2.0, 8192) == catalog.model("gemma-3-1b").kv_bytes_per_token(2.0, 8192)


def test_a_config_whose_layers_are_all_full_has_no_window(tmp_path):
    """Negation: Qwen2/Qwen3 configs carry a sliding_window with use_sliding_window false and every layer
    full_attention: no layer is windowed."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(model_type="qwen3", hidden_size=4096, intermediate_size=12288,
                                    num_hidden_layers=36, num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                                    vocab_size=151936, sliding_window=4096, use_sliding_window=False,
                                    layer_types=["full_attention"] * 36)))
    assert catalog.model_from_config(path).local_layers == 0


def _gemma3_4b_config(tmp_path, types):
    """Gemma 3 4B's text_config (https://huggingface.co/google/gemma-3-4b-it/blob/main/config.json: 34 layers,
    8 heads, 4 KV heads of 256, window 1024) with a layer_types list as transformers writes it (layer i is full
    when (i + 1) % 6 == 0, Gemma3TextConfig), or any other list."""
    path = tmp_path / "config.json"
    path.write_text(json.dumps(dict(model_type="gemma3_text", hidden_size=2560, intermediate_size=10240,
                                    num_hidden_layers=34, num_attention_heads=8, num_key_value_heads=4, head_dim=256,
                                    vocab_size=262208, sliding_window=1024, layer_types=types)))
    return catalog.model_from_config(path)


def test_gemma3_4b_layer_types_keep_their_counts(tmp_path):
    """34 layers with a full one every sixth: 5 full (layers 6, 12, ... 30), 29 local, as the catalog row counts
    them; a period rounded from the list (34 / 5 -> 7) gave 30 local layers."""
    types = ["full_attention" if (i + 1) % 6 == 0 else "sliding_attention" for i in range(34)]
    m = _gemma3_4b_config(tmp_path, types)
    row = catalog.model("gemma-3-4b")
    assert m.local_layers == 29 == row.local_layers
    assert m.kv_bytes_per_token(2.0, 32768) == row.kv_bytes_per_token(2.0, 32768)


def test_more_full_than_local_layers_are_counted_as_listed(tmp_path):
    """Negation of a period: three full layers to one windowed one is 26 full, 8 local of 34 (a rounded period
    made every second layer local, 17)."""
    types = (["full_attention"] * 3 + ["sliding_attention"]) * 8 + ["full_attention"] * 2
    m = _gemma3_4b_config(tmp_path, types)
    assert m.local_layers == 8
    per_layer = 2 * 4 * 256 * 2
    assert m.kv_bytes_per_token(2.0, 8192) == pytest.approx((26 + 8 * 1024 / 8192) * per_layer)


def test_a_hybrid_list_that_is_no_period_is_counted_as_listed(tmp_path):
    """A list of 64 layers whose last eight are all full attention (not Qwen's 3 + 1 all through): 42 linear,
    22 full, where a rounded period (64 / 22 -> 3) counted 21 full layers."""
    types = (["linear_attention"] * 3 + ["full_attention"]) * 14 + ["full_attention"] * 8
    m = _config(tmp_path, {**CARD_27B, "layer_types": types})
    assert m.full_attention_layers == 22
    assert m.kv_bytes_per_token(2.0) == 22 * 2 * 4 * 256 * 2
    assert m.linear_state_bytes(2.0) == 42 * (48 * 128 * 128 + 3 * (2 * 16 * 128 + 48 * 128)) * 2


# Qwen3-Next-80B-A3B, https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct/blob/main/config.json: 48 layers,
# full_attention_interval 4 (12 full, 36 Gated DeltaNet), 2 KV heads of 256, linear_num_key_heads 16,
# linear_num_value_heads 32, key and value head dims 128, linear_conv_kernel_dim 4.
NEXT_KV = 12 * 2 * 2 * 256  # attention K and V elements per token, whole model
NEXT_STATE = 36 * (32 * 128 * 128 + 3 * (2 * 16 * 128 + 32 * 128)) * 2  # bytes per sequence, bf16: 39,518,208


@pytest.mark.parametrize("tp, kv_per_gpu, state_per_gpu", [
    (1, NEXT_KV * 2, NEXT_STATE),
    (4, NEXT_KV * 2 * 2 / 4, NEXT_STATE / 4),  # 2 KV heads on 4 ranks: each copied twice; 16 key heads split 4 ways
    (8, NEXT_KV * 2 * 4 / 8, NEXT_STATE / 8),  # KV copied four times; the state still split 8 ways, never copied
])
def test_the_state_is_split_over_the_linear_heads_not_replicated_like_kv(tp, kv_per_gpu, state_per_gpu):
    m = catalog.model("qwen3-next-80b-a3b")
    assert NEXT_STATE == 39_518_208 and m.linear_state_bytes(2.0) == NEXT_STATE
    assert shapes.linear_state_bytes_per_gpu(m, tp) == state_per_gpu
    assert shapes.kv_bytes_per_token_per_gpu(m, tp, 1, "bf16", 8192) == pytest.approx(kv_per_gpu
                                                                                     + state_per_gpu / 8192)


def test_an_fp8_kv_cache_halves_the_kv_not_the_state():
    """--kv-cache-dtype fp8 stores attention K and V in one byte; the state stays in the model dtype (vLLM's
    mamba_cache_dtype 'auto')."""
    m = catalog.model("qwen3-next-80b-a3b")
    assert shapes.kv_bytes_per_token_per_gpu(m, 1, 1, "fp8", 8192) == pytest.approx(NEXT_KV + NEXT_STATE / 8192)
    assert shapes.kv_bytes_per_token_per_gpu(m, 8, 1, "fp8", 8192) == pytest.approx(NEXT_KV * 4 / 8
                                                                                    + NEXT_STATE / 8 / 8192)


def test_decode_reads_and_writes_the_state():
    """One decode step, batch 2, 8192 tokens: the attention KV and the state read, the state written back."""
    from rules import roofline
    m = catalog.model("qwen3-next-80b-a3b")
    assert roofline.decode_work(m, 1, 2, 8192, "bf16", "bf16").kv_bytes == pytest.approx(
        2 * (8192 * NEXT_KV * 2 + 2 * NEXT_STATE))
    assert roofline.decode_work(m, 8, 2, 8192, "bf16", "bf16").kv_bytes == pytest.approx(
        2 * (8192 * NEXT_KV * 2 * 4 / 8 + 2 * NEXT_STATE / 8))
    dense = roofline.decode_work(catalog.model("qwen3-32b"), 4, 2, 8192, "bf16", "bf16")
    assert dense.kv_bytes == pytest.approx(2 * 8192 * 64 * 2 * 8 * 128 * 2 / 4)  # no state, nothing written


@pytest.mark.parametrize("key, tp", [("gemma-3-27b", 1), ("qwen3-next-80b-a3b", 4), ("qwen3-32b", 1)])
def test_the_step_model_reads_the_cache_the_roofline_counts(key, tp):
    """Decode at 32768 tokens, 4 sequences on H100: the step model's KV time is the roofline's KV bytes at the
    attention stream rate. It multiplied the per-token bytes (already averaged over windows and linear layers) by
    the attended keys (averaged again): Gemma 3 27B read 0.84 ms of 4.49, Qwen3-Next 0.16 of 0.61; a dense model
    was right."""
    from rules import roofline, step_model
    cal, gpu, eng = catalog.calibration(), catalog.gpu("h100-sxm"), catalog.engine("vllm")
    m = catalog.model(key)
    s = step_model.Setting(m, gpu, eng, cal, tp, "bf16", "bf16", catalog.interconnect("nvlink4"), 1, True,
                           None, None, None)
    t = step_model.pass_terms(s, sequences=4, tokens_per_seq=1, context=32768, prefill=False)
    kv_bw = gpu.hbm_gbs * 1e3 * (eng.attention_efficiency or cal.attention_efficiency)
    assert t.kv_ms == pytest.approx(roofline.decode_work(m, tp, 4, 32768, "bf16", "bf16").kv_bytes / kv_bw / 1e3)

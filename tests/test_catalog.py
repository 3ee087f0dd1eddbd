"""The bundled catalogs against the reference docs, name mapping, and user catalog files."""

import json
import re

import pytest
from conftest import shared_path

from diagnose.errors import InputError
from rules import catalog

# Parameter counts (billions) as model-configs.md prints them ("computed", matching the
# publicly quoted sizes). Transcribed here so the test does not depend on the catalog's own
# published_params_b field.
DOC_PARAMS_B = {
    "llama-2-7b": 6.74, "llama-2-13b": 13.02, "llama-2-70b": 68.98, "llama-3-8b": 8.03,
    "llama-3-70b": 70.55, "llama-3-405b": 405.85, "mistral-7b": 7.24, "qwen2.5-7b": 7.62,
    "qwen2.5-14b": 14.77, "qwen2.5-32b": 32.76, "qwen2.5-72b": 72.71, "qwen3-32b": 32.76,
    "gemma-2-9b": 9.24, "gemma-2-27b": 27.23, "phi-3-mini": 3.82, "falcon-180b": 178.6,
    "mixtral-8x7b": 46.70, "mixtral-8x22b": 140.63, "qwen3-235b-a22b": 235.1,
    "deepseek-v3": 671.0, "gpt-oss-120b": 116.8,
}
DOC_ACTIVE_B = {"mixtral-8x7b": 12.88, "mixtral-8x22b": 39.16, "qwen3-235b-a22b": 22.2,
                "deepseek-v3": 37.6, "gpt-oss-120b": 5.7}


def test_every_doc_model_is_in_the_catalog_and_counts_within_1_percent():
    assert set(DOC_PARAMS_B) <= set(catalog.models())
    for key, published in DOC_PARAMS_B.items():
        got = catalog.model(key).params() / 1e9
        assert abs(got / published - 1) < 0.01, (key, got, published)
    for key, published in DOC_ACTIVE_B.items():
        got = catalog.model(key).active_params() / 1e9
        assert abs(got / published - 1) < 0.01, (key, got, published)


def test_llama3_70b_weights_and_kv():
    m = catalog.model("llama-3-70b")
    assert round(m.params() * 2 / 1e9, 1) == 141.1  # bf16 weights
    assert m.kv_bytes_per_token(2) == 327_680  # 320 KiB per token
    assert m.decoder_params() == 68_452_352_000  # collectives-reference.md section 3.1
    assert m.lm_head_params() == 1_050_673_152


def test_mla_and_sliding_window_kv():
    assert catalog.model("deepseek-v3").kv_bytes_per_token(2) == 70_272
    gemma = catalog.model("gemma-2-9b")
    assert gemma.kv_bytes_per_token(2) == 336 * 1024
    # at 8192 context half the layers hold only the 4096-token window
    assert gemma.kv_bytes_per_token(2, context=8192) == pytest.approx(336 * 1024 * 0.75)


@pytest.mark.parametrize(
    "name, key",
    [
        ("llama-3-70b", "llama-3-70b"),
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3-70b"),
        ("Llama 3.1 405B", "llama-3-405b"),  # as ticket 076 writes it
        ("LLaMA-2-13B", "llama-2-13b"),  # ticket 056
        ("openai/gpt-oss-120b", "gpt-oss-120b"),
        ("deepseek-ai/DeepSeek-V3", "deepseek-v3"),
        ("Qwen/Qwen2.5-72B-Instruct", "qwen2.5-72b"),
    ],
)
def test_model_names(name, key):
    assert catalog.model(name).key == key


def test_unknown_names_suggest_closest():
    with pytest.raises(InputError, match="closest known: .*llama-3-70b"):
        catalog.model("llama-3-75b")
    with pytest.raises(InputError, match="closest known: .*h100-sxm"):
        catalog.gpu("h100-sxn")
    with pytest.raises(InputError, match="unknown interconnect"):
        catalog.interconnect("nvlink9")


def _doc_gpu_names():
    """Section 4 of gpu-specs.md: (device id, NVML name) per row."""
    text = shared_path("docs", "gpu-specs.md").read_text()
    section = text.split("## 4.")[1].split("Mapping caveats")[0]
    rows = []
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) < 3 or not re.match(r"^[0-9A-F]{4}", cells[1]):
            continue
        names = re.findall(r"`([^`]+)`", cells[2])
        rows.append((cells[1][:4], names[0]))
    return rows


def test_every_doc_gpu_maps_by_device_id_and_by_name():
    rows = _doc_gpu_names()
    assert len(rows) >= 19
    for dev, name in rows:
        by_id = catalog.find_gpu(pci_device_id=dev)
        by_name = catalog.find_gpu(name=name)
        assert by_id is not None, (dev, name)
        assert by_name is not None, name
        assert by_id.key == by_name.key, (dev, name)


def test_device_id_decides_before_the_name():
    # nvidia-smi --query-gpu=pci.device_id prints 0x233010DE
    assert catalog.find_gpu("NVIDIA H200", pci_device_id="0x233010DE").key == "h100-sxm"
    assert catalog.find_gpu(pci_device_id="10de:20b5").key == "a100-80gb-pcie"
    assert catalog.find_gpu(pci_device_id=0x20B210DE).key == "a100-80gb-sxm"
    # plain "NVIDIA H100" (2339, 94 GB SXM) must not become the 80 GB row; a China SKU gets
    # its own row (reduced NVLink), never the H100's
    assert catalog.find_gpu("NVIDIA H100") is None
    h800 = catalog.find_gpu("NVIDIA H800", pci_device_id="0x232410DE")
    assert h800.key == "h800-sxm" and h800.nvlink_gbs < catalog.gpu("h100-sxm").nvlink_gbs


def test_gpu_rows_carry_the_doc_figures():
    h100 = catalog.gpu("h100-sxm")
    assert (h100.memory_gb, h100.hbm_gbs, h100.bf16_tflops, h100.fp8_tflops) == (80, 3350, 989, 1979)
    assert (h100.nvlink_gen, h100.nvlink_links, h100.nvlink_gbs, h100.sms, h100.tdp_w) == (4, 18, 450, 132, 700)
    assert catalog.gpu("a100-80gb-sxm").fp8_tflops == 0
    assert catalog.gpu("rtx-4090").nvlink_gbs == 0
    for g in catalog.gpus().values():
        assert g.interconnect in catalog.interconnects()
        assert g.hbm_gbs > 0 and g.bf16_tflops > 0 and g.memory_gb > 0


def test_interconnects_cover_the_issue_list():
    keys = set(catalog.interconnects())
    assert {"nvlink2", "nvlink3", "nvlink4", "nvlink5", "nvswitch3", "pcie3", "pcie4", "pcie5",
            "ib-hdr", "ib-ndr", "ib-xdr", "roce-400"} <= keys
    for ic in catalog.interconnects().values():
        assert 0 < ic.achieved_gbs <= ic.bandwidth_gbs, ic.key


def test_bundled_tables_read_on_first_use_equal_the_whole_catalog(monkeypatch):
    """Without user files each table is read from its own bundled file when first used: the tables
    must be those a read of every bundled file gives, so each file holds its own table only."""
    monkeypatch.delenv("DIAGNOSE_CATALOG", raising=False)
    catalog.configure()
    whole = catalog._Catalog()
    for name in catalog.BUNDLED:
        catalog._load_file(whole, str(catalog.CATALOG_DIR / name))
    lazy = catalog._BundledTables()
    assert "gpu" not in vars(lazy)  # nothing read before a lookup
    for table in catalog.TABLE_FILES:
        assert getattr(lazy, table) == getattr(whole, table) and getattr(whole, table), table
    assert catalog.gpus() == whole.gpu and catalog.engines() == whole.engine


def test_user_catalog_adds_and_replaces(tmp_path, monkeypatch):
    extra = tmp_path / "mine.toml"
    extra.write_text(
        """
[gpu.my-h100]
name = "My H100"
memory_gb = 80
hbm_gbs = 3000
bf16_tflops = 900
fp8_tflops = 1800
fp32_tflops = 60
nvlink_gen = 4
nvlink_links = 18
nvlink_gbs = 450
pcie_gen = 5
pcie_lanes = 16
tdp_w = 700
sms = 132
interconnect = "nvswitch3"

[model.llama-3-8b]
name = "Llama-3-8B patched"
layers = 2
hidden = 4096
heads = 32
kv_heads = 8
head_dim = 128
ffn = 14336
vocab = 128256
"""
    )
    monkeypatch.setenv("DIAGNOSE_CATALOG", str(extra))
    catalog.configure()
    assert catalog.gpu("my-h100").hbm_gbs == 3000
    assert catalog.model("llama-3-8b").layers == 2
    assert catalog.gpu("h100-sxm").hbm_gbs == 3350  # bundled rows still there


@pytest.mark.parametrize(
    "text, field",
    [
        ('[gpu.x]\nname = "x"\n', "missing field 'memory_gb'"),
        ('[model.x]\nname="x"\nlayers="many"\nhidden=1\nheads=1\nkv_heads=1\nhead_dim=1\nffn=1\nvocab=1\n', "'layers'"),
        ('[model.x]\nname="x"\nlayerz=2\n', "unknown field 'layerz'"),
        ("[gpus.x]\nname = 1\n", "unknown table"),
        ("[gpu.x\n", "not valid TOML"),
        ('[interconnect.x]\nname="x"\nkind="wire"\nbandwidth_gbs=1\nachieved_gbs=1\nlatency_us=1\n', "'kind'"),
        ('[engine.x]\nname="x"\ncuda_graphs=true\nkernels_per_layer=8\nint4_kernels_per_layer=-1\nlaunch_us=4\n'
         'host_ms_per_step=1\nhost_ms_per_request=1\n', "'int4_kernels_per_layer' must be a non-negative"),
        ('[engine.x]\nname="x"\ncuda_graphs=true\nkernels_per_layer=7\nlaunch_us=4\nhost_ms_per_step=1\n'
         'host_ms_per_request=1\ngrouped_decode_attention=["128x8"]\n', "'grouped_decode_attention' entry '128x8'"),
        ('[engine.x]\nname="x"\ncuda_graphs=true\nkernels_per_layer=7\nlaunch_us=4\nhost_ms_per_step=1\n'
         'host_ms_per_request=1\npp_graphs_flips=["8507=2026-03-24", "5505=2025-05-27"]\n', "'pp_graphs_flips'"),
        ('[engine.x]\nname="x"\ncuda_graphs=true\nkernels_per_layer=7\nlaunch_us=4\nhost_ms_per_step=1\n'
         'host_ms_per_request=1\nkernel_bands=["6000=2025-08-01=6", "5000=2025-07-01=5"]\n', "'kernel_bands'"),
        ('[engine.x]\nname="x"\ncuda_graphs=true\nkernels_per_layer=7\nlaunch_us=4\nhost_ms_per_step=1\n'
         'host_ms_per_request=1\nkernel_bands=["5100-5000=2025-07-01=5"]\n', "'kernel_bands'"),
        ('[engine.x]\nname="x"\ncuda_graphs=true\nkernels_per_layer=7\nlaunch_us=4\nhost_ms_per_step=1\n'
         'host_ms_per_request=1\nkernel_bands=["5000=2025-07-01"]\n', "'kernel_bands'"),
    ],
)
def test_malformed_catalog_names_file_and_field(tmp_path, text, field):
    bad = tmp_path / "bad.toml"
    bad.write_text(text)
    catalog.configure([str(bad)])
    with pytest.raises(InputError) as info:
        catalog.gpus()
    assert str(bad) in str(info.value) and field in str(info.value)


def test_hf_config_json(tmp_path):
    cfg = {
        "_name_or_path": "meta-llama/Meta-Llama-3-70B", "model_type": "llama",
        "num_hidden_layers": 80, "hidden_size": 8192, "num_attention_heads": 64,
        "num_key_value_heads": 8, "intermediate_size": 28672, "vocab_size": 128256,
        "tie_word_embeddings": False, "torch_dtype": "bfloat16",
    }
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    m = catalog.model(str(path))
    assert m.params() == catalog.model("llama-3-70b").params()
    assert catalog.model(str(tmp_path)).params() == m.params()  # a directory holding config.json

    moe = {"model_type": "deepseek_v3", "num_hidden_layers": 61, "hidden_size": 7168,
           "num_attention_heads": 128, "num_key_value_heads": 128, "intermediate_size": 18432,
           "moe_intermediate_size": 2048, "n_routed_experts": 256, "num_experts_per_tok": 8,
           "n_shared_experts": 1, "first_k_dense_replace": 3, "q_lora_rank": 1536,
           "kv_lora_rank": 512, "qk_nope_head_dim": 128, "qk_rope_head_dim": 64,
           "v_head_dim": 128, "vocab_size": 129280, "tie_word_embeddings": False,
           "quantization_config": {"quant_method": "fp8"}}
    path.write_text(json.dumps(moe))
    ds = catalog.model(str(path))
    assert ds.params() == catalog.model("deepseek-v3").params()
    assert ds.checkpoint_dtype == "fp8"


@pytest.mark.parametrize(
    "content, field",
    [
        ('{"hidden_size": 8192}', "num_hidden_layers"),
        ('{"num_hidden_layers": 80, "hidden_size": "big", "num_attention_heads": 64, "vocab_size": 1}', "hidden_size"),
        ("{not json", "not valid JSON"),
    ],
)
def test_malformed_config_json_names_file_and_field(tmp_path, content, field):
    path = tmp_path / "config.json"
    path.write_text(content)
    with pytest.raises(InputError) as info:
        catalog.model(str(path))
    assert str(path) in str(info.value) and field in str(info.value)

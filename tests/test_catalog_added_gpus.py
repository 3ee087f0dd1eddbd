"""The commonly reported GPUs added to rules/catalog/gpus.toml: every row loads, resolves from its NVML name and
from the spellings people use, takes no other row's spelling, and its figures agree with the datasheet figures
its sources cite (bus width x data rate, SMs x cores x clock)."""

import pytest

from rules import catalog
from rules.catalog import find_gpu, find_gpu_family

# key: (memory bus bits, data rate Gbps per pin, FP32 cores per SM) as the row's cited pages give them
ADDED = {
    "rtx-a5000": (384, 16, 128), "rtx-a4500": (320, 16, 128), "rtx-a2000": (192, 12, 128),
    "rtx-a2000-12gb": (192, 12, 128), "quadro-rtx-6000": (384, 14, 64), "rtx-3090-ti": (384, 21, 128),
    "rtx-3080-ti": (384, 19, 128), "rtx-3070": (256, 14, 128), "rtx-4080": (256, 22.4, 128),
    "rtx-4070-ti": (192, 21, 128), "rtx-4060-ti-16gb": (128, 18, 128), "rtx-5080": (256, 30, 128),
    "rtx-4090-d": (384, 21, 128), "tesla-p40": (384, 7.2, 128), "tesla-p4": (256, 6, 128),
    "tesla-k80": (384, 5, 192), "tesla-m40": (384, 6, 128), "v100-pcie-16gb": (4096, 1.752, 64),
    "v100-pcie-32gb": (4096, 1.752, 64), "v100s-pcie": (4096, 2.214, 64), "titan-v": (3072, 1.7, 64),
    "gtx-1080": (256, 10, 128), "gtx-1070": (256, 8, 128),
    # issue 11: named in public threads (tests/test_catalog_thread_gpus.py)
    "quadro-rtx-8000": (384, 14, 64), "rtx-5880-ada": (384, 20, 128), "a2": (128, 12.5, 128),
    # issue 11 k: professional and GeForce cards users post
    "rtx-2000-ada": (128, 14, 128), "rtx-4000-ada": (160, 18, 128), "rtx-4000-sff-ada": (160, 14, 128),
    "rtx-4500-ada": (192, 18, 128), "rtx-5000-ada": (256, 18, 128), "a16": (128, 12.5, 128),
    "rtx-a5500": (384, 16, 128), "rtx-4070": (192, 21, 128), "rtx-4060": (128, 17, 128), "rtx-5070": (192, 28, 128),
    "rtx-5060": (128, 28, 128), "rtx-2080": (256, 14, 64), "rtx-2080-super": (256, 15.5, 64), "rtx-2060": (192, 14, 64),
    "rtx-4090-laptop": (256, 18, 128),
}


@pytest.mark.parametrize("key", sorted(ADDED))
def test_each_added_row_loads_cites_a_url_and_maps_from_its_nvml_name_and_device_id(key):
    spec = catalog.gpu(key)
    assert any(s.startswith("https://") for s in spec.sources)
    assert spec.max_clock_mhz > 0 and spec.nvml_names
    for name in spec.nvml_names:
        assert find_gpu(name=name).key == key
    for dev in spec.pci_device_ids:
        assert find_gpu(pci_device_id=f"0x{dev}10DE").key == key


@pytest.mark.parametrize("key", sorted(ADDED))
def test_figures_agree_with_bus_width_data_rate_and_clock(key):
    spec = catalog.gpu(key)
    bus_bits, gbps, cores = ADDED[key]
    assert spec.hbm_gbs == pytest.approx(bus_bits * gbps / 8, rel=0.02)
    assert spec.fp32_tflops == pytest.approx(spec.sms * cores * 2 * spec.max_clock_mhz / 1e6, rel=0.02)
    assert spec.bf16_tflops >= spec.fp32_tflops and spec.tflops("fp16") >= spec.bf16_tflops


@pytest.mark.parametrize("text, key", [
    ("RTX A5000", "rtx-a5000"), ("A5000", "rtx-a5000"), ("NVIDIA RTX A5000", "rtx-a5000"),
    ("RTX A4500", "rtx-a4500"), ("A2000", "rtx-a2000"), ("RTX A2000 12GB", "rtx-a2000-12gb"),
    ("Quadro RTX 6000", "quadro-rtx-6000"), ("3090Ti", "rtx-3090-ti"), ("RTX 3090 Ti", "rtx-3090-ti"),
    ("3080 Ti", "rtx-3080-ti"), ("RTX 3070", "rtx-3070"), ("RTX 4080", "rtx-4080"), ("4070 Ti", "rtx-4070-ti"),
    ("RTX 4060 Ti 16GB", "rtx-4060-ti-16gb"), ("RTX 5080", "rtx-5080"), ("RTX 4090 D", "rtx-4090-d"),
    ("4090D", "rtx-4090-d"), ("P40", "tesla-p40"), ("Tesla P40", "tesla-p40"), ("Tesla P4", "tesla-p4"),
    ("Tesla K80", "tesla-k80"), ("K80", "tesla-k80"), ("Tesla M40", "tesla-m40"), ("V100 PCIe", "v100-pcie-16gb"),
    ("V100 PCIe 32GB", "v100-pcie-32gb"), ("V100S", "v100s-pcie"), ("Titan V", "titan-v"),
    ("GTX 1080", "gtx-1080"), ("GTX 1070", "gtx-1070"),
])
def test_common_spellings_resolve(text, key):
    assert find_gpu_family(text).key == key


@pytest.mark.parametrize("text, key", [
    ("V100", "v100-sxm2-32gb"), ("V100 16GB", "v100-sxm2-16gb"), ("RTX 6000 Ada", "rtx-6000-ada"),
    ("RTX A6000", "rtx-a6000"), ("RTX 4090", "rtx-4090"), ("3090", "rtx-3090"), ("3080", "rtx-3080"),
    ("1080 Ti", "gtx-1080-ti"), ("P100", "p100-pcie-16gb"), ("RTX A4000", "rtx-a4000"),
])
def test_added_rows_take_no_other_rows_spelling(text, key):
    assert find_gpu_family(text).key == key


# (review of issue 11 q) real cards the catalog lacks, whose neighbour's name begins with theirs; (issue 11 k) a bare
# "RTX 4000" / "RTX 5000" is Turing's Quadro card or people's "RTX 4000 series", not the RTX 4000 / 5000 Ada
@pytest.mark.parametrize("text", ["A500", "Tesla M60", "RTX 4000", "RTX 5000", "RTX 2000", "Quadro RTX 4000",
                                  "RTX 4050"])
def test_near_miss_names_stay_unmapped(text):
    # the catalog has no row for these: a neighbour's figures would be wrong for them
    assert find_gpu_family(text) is None


@pytest.mark.parametrize("text, key", [
    ("RTX 4060 Ti", "rtx-4060-ti-16gb"), ("RTX 4070 Ti", "rtx-4070-ti"), ("L40", "l40"), ("L40S", "l40s"),
    ("A100 80GB", "a100-80gb-sxm"), ("H100", "h100-sxm"), ("RTX 4090 D", "rtx-4090-d"),
    ("A10G", "a10g"),  # its "10G" is the name, not a 10 GB size (it was the A100 40GB's row)
    ("A100-40GB", "a100-40gb-sxm"), ("V100 16GB", "v100-sxm2-16gb"),
    # (review of issue 11 q) the AGX Orin named with its size is that module; unsized, the 64GB row (NVML's Orin)
    ("AGX Orin 32GB", "agx-orin-32gb"), ("Jetson AGX Orin 32GB", "agx-orin-32gb"), ("AGX Orin", "agx-orin-64gb"),
    ("Orin", "agx-orin-64gb"), ("Jetson AGX Orin 64GB", "agx-orin-64gb"),
])
def test_a_card_named_whole_still_maps_to_its_row(text, key):
    assert find_gpu_family(text).key == key


@pytest.mark.parametrize("text", ["RTX 4080 SUPER", "4080 Super"])
def test_a_super_card_has_its_own_row_not_the_plain_cards(text):
    # (issue 11 q added the SUPER rows: the plain 4080's figures would be wrong for them)
    assert find_gpu_family(text).key == "rtx-4080-super"


def test_geforce_since_ampere_has_no_pcie_p2p_and_workstation_cards_do():
    geforce = ["rtx-3090-ti", "rtx-3080-ti", "rtx-3070", "rtx-4080", "rtx-4070-ti", "rtx-4060-ti-16gb", "rtx-5080",
               "rtx-4090-d"]
    assert not any(catalog.gpu(k).pcie_p2p for k in geforce)
    assert all(catalog.gpu(k).pcie_p2p for k in ("rtx-a5000", "rtx-a4500", "tesla-p40", "v100s-pcie"))
    bridged = {k for k in ADDED if catalog.gpu(k).nvlink_bridged}
    assert bridged == {"rtx-a5000", "rtx-a4500", "quadro-rtx-6000", "quadro-rtx-8000", "rtx-3090-ti", "rtx-a5500",
                       "rtx-2080", "rtx-2080-super"}
    assert not any(catalog.gpu(k).pcie_p2p for k in ("rtx-4070", "rtx-4060", "rtx-5070", "rtx-5060"))
    assert all(catalog.gpu(k).pcie_p2p for k in ("rtx-2000-ada", "rtx-4500-ada", "rtx-5000-ada", "a16", "rtx-a5500"))


def test_the_4090_d_has_its_own_row_with_fewer_sms():
    d, full = catalog.gpu("rtx-4090-d"), catalog.gpu("rtx-4090")
    assert find_gpu(name="NVIDIA GeForce RTX 4090 D").key == "rtx-4090-d"
    assert (d.sms, full.sms) == (114, 128) and d.hbm_gbs == full.hbm_gbs
    assert d.bf16_tflops / full.bf16_tflops == pytest.approx(114 / 128, rel=0.02)


# (issue 11 k) the plain cards beside the Ti / SUPER / SFF ones, and the professional names as owners write them
@pytest.mark.parametrize("text, key", [
    ("RTX 4060", "rtx-4060"), ("GeForce RTX 4060", "rtx-4060"), ("RTX 4060 Ti", "rtx-4060-ti-16gb"),
    ("RTX 4070", "rtx-4070"), ("4070", "rtx-4070"), ("RTX 4070 Ti", "rtx-4070-ti"),
    ("RTX 4070 SUPER", "rtx-4070-super"), ("RTX 5070", "rtx-5070"), ("RTX 5070 Ti", "rtx-5070-ti"),
    ("RTX 5060", "rtx-5060"), ("RTX 5060 Ti", "rtx-5060-ti-16gb"),
    ("RTX A5500", "rtx-a5500"), ("A5500", "rtx-a5500"), ("NVIDIA A16", "a16"), ("A16", "a16"),
    ("RTX 2000 Ada", "rtx-2000-ada"), ("RTX 4000 Ada", "rtx-4000-ada"), ("RTX 4000 SFF Ada", "rtx-4000-sff-ada"),
    ("RTX 4000 SFF", "rtx-4000-sff-ada"), ("RTX 4500 Ada", "rtx-4500-ada"), ("RTX 5000 Ada", "rtx-5000-ada"),
    ("NVIDIA RTX 4000 SFF Ada Generation", "rtx-4000-sff-ada"), ("2x RTX 4500 Ada", "rtx-4500-ada"),
    ("RTX 2080", "rtx-2080"), ("RTX 2080 SUPER", "rtx-2080-super"), ("RTX 2080 Ti", "rtx-2080-ti"),
    ("RTX 2060", "rtx-2060"), ("NVIDIA GeForce RTX 4090 Laptop GPU", "rtx-4090-laptop"),
    ("RTX 4090 Laptop", "rtx-4090-laptop"), ("4090 mobile", "rtx-4090-laptop"), ("RTX 4090", "rtx-4090"),
])
def test_issue_11k_rows_resolve_as_people_write_them(text, key):
    assert catalog.resolve_gpu(text).key == key


# Dense tensor rate per SM and clock: Ada / Ampere professional cards run FP16 with FP32 accumulate at 1024 FLOP per
# SM per clock (the datasheets' sparse FP8 / 4), GeForce Ada and Blackwell at 512 (half their FP16-accumulate rate).
# (The RTX 4000 Ada is left out: NVIDIA quotes its tensor rate below its boost clock, see its row.)
@pytest.mark.parametrize("key, per_sm_clock", [
    ("rtx-2000-ada", 1024), ("rtx-4000-sff-ada", 1024), ("rtx-4500-ada", 1024), ("rtx-5000-ada", 1024),
    ("rtx-a5500", 1024), ("a16", 1024), ("rtx-4070", 512), ("rtx-4060", 512), ("rtx-5070", 512),
    ("rtx-5060", 512), ("rtx-4090-laptop", 512),
])
def test_dense_tensor_rate_is_sms_times_clock(key, per_sm_clock):
    spec = catalog.gpu(key)
    assert spec.bf16_tflops == pytest.approx(spec.sms * per_sm_clock * spec.max_clock_mhz / 1e6, rel=0.02)


@pytest.mark.parametrize("key", ["rtx-2080", "rtx-2080-super", "rtx-2060"])
def test_turing_geforce_tensor_rate_is_fp16_only(key):
    # Turing: FP16 tensor cores (512 FLOP per SM per clock with FP32 accumulate on GeForce), no BF16 (= the FP32 rate)
    spec = catalog.gpu(key)
    assert spec.fp16_tflops == pytest.approx(spec.sms * 512 * spec.max_clock_mhz / 1e6, rel=0.02)
    assert spec.bf16_tflops == spec.fp32_tflops and spec.fp8_tflops == 0


# (r13a) Each issue-11k row against the figure its source prints, through the conversion that figure's footnote states:
# Ada professional datasheets print FP8 with sparsity ("Effective FP8 TFLOPS using sparsity", the RTX 5000 Ada
# datasheet's footnote 4) = 4x dense FP16 / FP32 accumulate; Ampere datasheets FP16 with sparsity = 2x dense; GeForce
# Ada "AI TOPS" FP8 with sparsity = 8x dense FP16 / FP32 accumulate, Blackwell FP4 with sparsity = 16x. (key: printed
# tensor figure, divisor, printed GB/s, printed GB)
PRINTED = {
    "rtx-2000-ada": (191.9, 4, 224, 16), "rtx-4000-ada": (327.6, 4, 360, 20), "rtx-4000-sff-ada": (306.8, 4, 280, 20),
    "rtx-4500-ada": (634.0, 4, 432, 24), "rtx-5000-ada": (1044.4, 4, 576, 32), "a16": (35.9, 2, 200, 16),
    "rtx-a5500": (272.8, 2, 768, 24), "rtx-4070": (466, 8, 504, 12), "rtx-4060": (242, 8, 272, 8),
    "rtx-5070": (988, 16, 672, 12), "rtx-5060": (614, 16, 448, 8),
}


@pytest.mark.parametrize("key", sorted(PRINTED))
def test_row_carries_its_printed_figures(key):
    tensor, divisor, gbs, gb = PRINTED[key]
    spec = catalog.gpu(key)
    assert spec.bf16_tflops == pytest.approx(tensor / divisor, rel=0.01)
    assert (spec.hbm_gbs, spec.memory_gb) == (gbs, gb)


def test_rows_say_which_figures_were_not_read_from_nvidia():
    # 11k's NVIDIA links were never opened: each says so, so nobody takes a recalled figure for a read one
    text = (catalog.CATALOG_DIR / "gpus.toml").read_text()
    block = text[text.index("# Issue 11 k: professional and GeForce cards"):]
    nvidia = [ln for ln in block.splitlines() if ln.lstrip().startswith('"https://www.nvidia.com')]
    assert nvidia and all("not opened" in ln or "as quoted" in ln for ln in nvidia)

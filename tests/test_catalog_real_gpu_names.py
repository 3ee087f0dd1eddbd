"""GPUs the project meets in real tickets, captures and public samples map to catalog rows.

The names are collected from the real files (captures' TARGET_INFO_GPU, ticket bundles and
public samples read by the tool's own bundle reader), never typed in here; the figures checked
by hand come from the sources each row cites.
"""

import re
import sqlite3

import pytest
from conftest import REPO, shared_path

from diagnose.bundle import read_bundle
from diagnose.evidence import GpuFact
from rules import catalog, roofline
from rules.subject import Subject

REAL_SAMPLES = REPO / "tests" / "data" / "hardware" / "real"

# A name that says nothing about the product: only the PCI device ID can map it.
# RTX 5090 on drivers older than the card; a name the nvidia-smi table cut to fit its column (the Windows host's table
# in https://github.com/microsoft/WSL/issues/9134)
PLACEHOLDER_NAMES = {"NVIDIA Graphics Device", "NVIDIA GeForce ..."}

# Reporters' free text (ticket.toml [hardware] gpu) that fits several rows; the tool must not
# pick one of them silently.
AMBIGUOUS_TEXT = {
    "NVIDIA A100": "A100 40/80 GB, SXM4 or PCIe",
    "NVIDIA A100 80GB": "A100 80 GB SXM4 or PCIe",
    "NVIDIA H100 80GB": "H100 SXM5 or PCIe",
    "NVIDIA H100": "2339 (94 GB) and 2330 (80 GB) both exist",
    "A100-SXM4": "A100 SXM4 40 or 80 GB",
    "V100": "V100 SXM2/PCIe, 16 or 32 GB",
    "V100 PCIe": "16 or 32 GB",
    "NVIDIA GH200": "GH200 with 96 GB HBM3 or 144 GB HBM3e",
    "NVIDIA A800": "A800 SXM4 or PCIe, 40 or 80 GB",
    "laptop NVIDIA GPU": "no product named",
}

# Rows added for this project's GPUs (the bundled gpu-specs.md rows are tested in test_catalog.py).
PRE_AMPERE = ["titan-rtx", "rtx-2070", "rtx-2070-super", "t4", "gtx-1080-ti", "gtx-1050",
              "gtx-1050-3gb", "p100-pcie-16gb", "p100-sxm2"]


@pytest.fixture(autouse=True)
def _no_user_catalog(monkeypatch):
    monkeypatch.delenv("DIAGNOSE_CATALOG", raising=False)
    catalog.configure()
    yield
    catalog.configure()


# --------------------------------------------------------------------------- collecting names


def _capture_gpus() -> list[dict]:
    """One dict per distinct GPU in the real captures' TARGET_INFO_GPU (read-only)."""
    found = {}
    for path in sorted(shared_path("captures").glob("*.sqlite")):
        con = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
        try:
            if not con.execute("SELECT 1 FROM sqlite_master WHERE name = 'TARGET_INFO_GPU'").fetchone():
                continue
            rows = con.execute(
                "SELECT name, totalMemory, memoryBandwidth, smCount, l2CacheSize FROM TARGET_INFO_GPU").fetchall()
        finally:
            con.close()
        for name, mem, bw, sms, l2 in rows:
            found.setdefault((name, mem), {"file": path.name, "name": name, "memory_b": mem,
                                           "bandwidth_bs": bw, "sms": sms, "l2_b": l2})
    assert found, "no capture holds TARGET_INFO_GPU"
    return list(found.values())


def _bundles() -> list[tuple[str, object]]:
    """(label, facts) for every real ticket folder and every real public sample file."""
    out = [(t.name, read_bundle(t)) for t in sorted(shared_path("tickets").iterdir()) if t.is_dir()]
    out += [(p.name, read_bundle(p)) for p in sorted(REAL_SAMPLES.iterdir()) if p.suffix != ".md"]
    return out


def _machine_gpus(bundles) -> list[tuple[str, str | None, str | None]]:
    """(label, name, device id) of every GPU an NVML/nvidia-smi/NCCL output in the bundles names."""
    out = []
    for label, facts in bundles:
        for g in facts.of(GpuFact):
            if g.name or g.pci_device_id:
                out.append((label, g.name, g.pci_device_id))
    return out


@pytest.fixture(scope="module")
def bundles():
    return _bundles()


# --------------------------------------------------------------------------- captures


def test_every_capture_gpu_maps_by_name():
    names = {g["name"] for g in _capture_gpus()}
    assert len(names) >= 8
    missing = sorted(n for n in names if catalog.find_gpu(name=n) is None)
    assert not missing, f"capture GPU names without a catalog row: {missing}"


def test_capture_gpus_agree_with_their_rows():
    """SM count and memory bandwidth the CUDA driver reported match the row's published figures."""
    for g in _capture_gpus():
        spec = catalog.find_gpu(name=g["name"])
        mem_gb = g["memory_b"] / 1e9
        if abs(mem_gb / spec.memory_gb - 1) > 0.10:
            # Another memory variant shares the NVML name: the row must say so, and the device
            # ID (which captures do not record) picks the variant.
            assert "same NVML name" in spec.notes, (g["file"], g["name"], mem_gb, spec.key)
            continue
        bw_gbs = g["bandwidth_bs"] / 1e9
        assert g["sms"] == spec.sms, (g["file"], spec.key, g["sms"], spec.sms)
        assert bw_gbs <= spec.hbm_gbs * 1.03, (g["file"], spec.key, bw_gbs, spec.hbm_gbs)
        if "laptop" not in spec.key:  # laptop memory clocks are OEM-configured, never above spec
            assert bw_gbs >= spec.hbm_gbs * 0.97, (g["file"], spec.key, bw_gbs, spec.hbm_gbs)


def test_gtx_1050_3gb_capture_matches_its_row_by_device_id():
    g = next(g for g in _capture_gpus() if g["name"] == "NVIDIA GeForce GTX 1050")
    spec = catalog.find_gpu(name=g["name"], pci_device_id="10de:1c83")
    assert spec.key == "gtx-1050-3gb"
    assert spec.sms == g["sms"] == 6
    assert spec.hbm_gbs == pytest.approx(g["bandwidth_bs"] / 1e9, rel=0.01)  # 84 GB/s, 96-bit
    assert spec.l2_mb * 2**20 == g["l2_b"]  # 768 KB


# --------------------------------------------------------------------------- tickets and samples


def test_every_gpu_named_by_a_tool_in_tickets_and_samples_maps(bundles):
    gpus = _machine_gpus(bundles)
    assert len({n for _, n, _ in gpus if n}) >= 8
    unmapped = []
    for label, name, dev in gpus:
        spec = catalog.find_gpu(name=name, pci_device_id=dev)
        if name in PLACEHOLDER_NAMES and not dev:
            assert spec is None, (label, name)  # a placeholder name decides nothing
        elif spec is None:
            unmapped.append((label, name, dev))
    assert not unmapped, f"GPUs named in real outputs without a catalog row: {unmapped}"


def test_reporters_gpu_text_maps_or_is_left_undecided(bundles):
    """Through the rules' own lookup: a product name maps; a name that fits several rows does not."""
    seen = 0
    for label, facts in bundles:
        text = facts.workload().gpu
        if not text:  # only ticket.toml states the reporter's GPU
            continue
        seen += 1
        bare = re.sub(r"\s*\(.*?\)", "", text).strip()
        by_text = catalog.find_gpu(name=text) or catalog.find_gpu(name=bare)
        if bare in AMBIGUOUS_TEXT:
            assert by_text is None, (label, text, by_text and by_text.key)
            continue
        if bare in NOT_NVML_FORM:
            continue  # see test_reporters_product_names_with_memory_size
        spec = Subject.of(facts).gpu
        assert by_text is not None and spec is not None, (label, text)
    assert seen >= 20


# The reporter's product name plus memory size, in no NVML form; find_gpu matches exact NVML
# names, keys and row names only (rules/catalog.py), so these stay unknown until it learns to
# drop the "NVIDIA " prefix and a memory size equal to the row's.
NOT_NVML_FORM = {"NVIDIA TITAN RTX 24GB": "titan-rtx", "NVIDIA GeForce RTX 3060 12GB": "rtx-3060"}


@pytest.mark.parametrize("text, key", sorted(NOT_NVML_FORM.items()))
def test_reporters_product_names_with_memory_size(text, key):
    assert catalog.find_gpu(name=text).key == key


def test_memory_size_must_agree_and_be_unambiguous():
    assert catalog.find_gpu(name="NVIDIA TITAN RTX 12GB") is None
    assert catalog.find_gpu(name="NVIDIA A100 80GB") is None


def test_ticket_a800_maps_by_its_device_id(bundles):
    """Ticket 036 says only 'NVIDIA A800'; its NCCL topology dump carries device 0x20f5."""
    facts = dict(bundles)["036-nccl-1329-a800-vm-4gpu-no-p2p-flat-topology"]
    named = Subject.of(facts)
    spec, source = named.gpu, named.gpu_source
    assert spec.key == "a800-80gb-pcie"
    assert spec.nvlink_gbs == 200  # 400 GB/s bidirectional, not the A100's 600
    assert "attachment1.txt" in source


# --------------------------------------------------------------------------- lookups


@pytest.mark.parametrize(
    "name, dev, key",
    [
        ("NVIDIA GeForce GTX 1050", "0x1C8310DE", "gtx-1050-3gb"),  # id picks the 3 GB variant
        ("NVIDIA GeForce GTX 1050", None, "gtx-1050"),
        ("NVIDIA Graphics Device", "0x2B8510DE", "rtx-5090"),  # placeholder name, real id
        ("NVIDIA H100 80GB HBM3", "10de:2324", "h800-sxm"),  # id wins over a contradicting name
        ("NVIDIA A800", "0x20f5", "a800-80gb-pcie"),
        ("NVIDIA A800-SXM4-80GB", None, "a800-80gb-sxm"),
        ("NVIDIA H800 PCIe", None, "h800-pcie"),
        ("NVIDIA H20", None, "h20"),
        ("NVIDIA L20", None, "l20"),
        ("NVIDIA GH200 480GB", None, "gh200-96gb"),
        ("NVIDIA GH200 144G HBM3e", None, "gh200-144gb"),
        ("Tesla P100-SXM2-16GB", None, "p100-sxm2"),
        ("NVIDIA RTX A4000", None, "rtx-a4000"),
        ("RTX A6000", None, "rtx-a6000"),  # pre-R470 drivers drop "NVIDIA "
        ("NVIDIA TITAN RTX", None, "titan-rtx"),
        ("GeForce RTX 2070", None, "rtx-2070"),
    ],
)
def test_find_gpu_new_rows(name, dev, key):
    assert catalog.find_gpu(name=name, pci_device_id=dev).key == key


def test_no_device_id_or_nvml_name_points_at_two_rows():
    by_id, by_name = {}, {}
    for g in catalog.gpus().values():
        for dev in g.pci_device_ids:
            assert by_id.setdefault(dev, g.key) == g.key, (dev, by_id[dev], g.key)
        for name in g.nvml_names:
            norm = re.sub(r"[^0-9a-z]", "", name.lower())
            assert by_name.setdefault(norm, g.key) == g.key, (name, by_name[norm], g.key)


# --------------------------------------------------------------------------- figures


def test_hand_checked_figures():
    g = catalog.gpu
    assert (g("rtx-3090").memory_gb, g("rtx-3090").hbm_gbs, g("rtx-3090").sms,
            g("rtx-3090").bf16_tflops) == (24, 936, 82, 71)
    assert (g("rtx-3090").nvlink_links, g("rtx-3090").nvlink_gbs) == (4, 56.25)  # GA102 bridge
    assert g("a40").nvlink_gbs == 56.25 and g("a40").hbm_gbs == 696 and g("a40").bf16_tflops == 149.7
    # China SKUs: 400 GB/s bidirectional NVLink = 200 per direction; compute as A100 / H100
    for key, base in (("a800-80gb-sxm", "a100-80gb-sxm"), ("h800-sxm", "h100-sxm")):
        assert g(key).nvlink_gbs == 200 < g(base).nvlink_gbs
        assert (g(key).bf16_tflops, g(key).hbm_gbs, g(key).fp8_tflops) == (g(base).bf16_tflops, g(base).hbm_gbs,
                                                                           g(base).fp8_tflops)
    assert (g("h20").bf16_tflops, g("h20").hbm_gbs, g("h20").nvlink_gbs, g("h20").memory_gb) == (148, 4000, 450, 96)
    assert (g("gh200-96gb").memory_gb, g("gh200-144gb").memory_gb, g("gh200-144gb").hbm_gbs) == (96, 144, 4900)
    assert (g("rtx-5090").memory_gb, g("rtx-5090").hbm_gbs, g("rtx-5090").sms,
            g("rtx-5090").pcie_gen) == (32, 1792, 170, 5)
    assert (g("t4").fp16_tflops, g("t4").tdp_w, g("t4").sms) == (65.1, 70, 40)
    assert (g("titan-rtx").fp16_tflops, g("titan-rtx").nvlink_gbs) == (130.5, 50)
    assert g("p100-sxm2").fp16_tflops == 2 * g("p100-sxm2").fp32_tflops
    assert (g("gtx-1080-ti").memory_gb, g("gtx-1080-ti").hbm_gbs, g("gtx-1080-ti").sms) == (11, 484, 28)
    assert (g("l20").memory_gb, g("l20").hbm_gbs, g("rtx-a4000").bf16_tflops) == (48, 864, 76.7)


def test_pre_ampere_rows_have_no_native_bf16_or_fp8():
    for key in PRE_AMPERE:
        spec = catalog.gpu(key)
        assert spec.bf16_tflops == spec.fp32_tflops, key  # BF16 emulated at the FP32 rate
        assert spec.fp8_tflops == 0, key
        assert spec.tflops("fp16") >= spec.tflops("bf16"), key


def test_reduced_nvlink_slows_the_predicted_all_reduce():
    """Same model and layout on A100/A800 and H100/H800: same memory time, slower all-reduce."""
    for slow, fast in (("a800-80gb-sxm", "a100-80gb-sxm"), ("h800-sxm", "h100-sxm")):
        p_slow = roofline.predict(catalog.model("llama-3-70b"), catalog.gpu(slow), roofline.Layout(tp=8), batch=64)
        p_fast = roofline.predict(catalog.model("llama-3-70b"), catalog.gpu(fast), roofline.Layout(tp=8), batch=64)
        assert p_slow.memory_ms == pytest.approx(p_fast.memory_ms)
        assert p_slow.allreduce_ms_per_step > p_fast.allreduce_ms_per_step
        assert p_slow.decode_step_ms > p_fast.decode_step_ms


# Rows no probe can tell apart from another row, reached only by the name a ticket writes: NVML names every Orin
# module "Orin (nvgpu)" and an integrated GPU has no PCI id, so only "AGX Orin 32GB" written out selects that module.
NAMED_ONLY = {"agx-orin-32gb"}


def test_new_rows_cite_sources():
    new = [k for k, g in catalog.gpus().items()
           if any(s.startswith(("http", "capture ", "OGKM", "PCIIDS", "tests/")) for s in g.sources)]
    assert len(new) >= 25
    for key in new:
        spec = catalog.gpu(key)
        assert any(s.startswith("http") for s in spec.sources) or "PCIIDS" in spec.sources, key
        assert spec.confidence in ("H", "M", "L"), key
        assert spec.nvml_names or spec.pci_device_ids or key in NAMED_ONLY, key

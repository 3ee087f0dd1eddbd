"""Live GPU checks (skipped without an NVIDIA driver): real NVML, CUDA kernels, NCCL."""

import subprocess

import pytest

from diagnose.evidence import CollectiveResult, GpuFact
from probes import nvml
from probes.recording import LiveSession

pytestmark = pytest.mark.gpu


def test_nvml_inventory_matches_nvidia_smi():
    records, missing = nvml.collect(LiveSession())
    gpus = [r for r in records if isinstance(r, GpuFact)]
    out = subprocess.run(["nvidia-smi", "--query-gpu=index,name,pci.bus_id,memory.total",
                          "--format=csv,noheader,nounits"],
                         capture_output=True, text=True, check=True).stdout.strip().splitlines()
    assert len(gpus) == len(out) and not missing
    for g, line in zip(gpus, out):
        index, name, bus, mem = [c.strip() for c in line.split(",")]
        assert g.index == int(index) and g.name == name
        assert g.bus_id == nvml.normalise_bus_id(bus)
        assert abs(g.memory_total_mib - float(mem)) <= 1


def test_kernels_hbm_and_gemm_against_the_catalog():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    from probes import kernels
    from rules.catalog import find_gpu

    spec = find_gpu(name=torch.cuda.get_device_name(0))
    hbm = kernels.hbm_bandwidth(0)
    gemm = kernels.gemm_tflops(0, "bf16")
    assert hbm.value > 0 and gemm.value > 0
    if spec:
        assert hbm.value > 0.5 * spec.hbm_gbs, (hbm.value, spec.hbm_gbs)
        assert gemm.value > 0.3 * spec.bf16_tflops, (gemm.value, spec.bf16_tflops)
    gemv = kernels.gemv(0)
    assert all(m.value < 1.2 * hbm.value for m in gemv)  # streaming a weight cannot beat the copy much


def test_nccl_sweep_with_cuda_graphs():
    torch = pytest.importorskip("torch")
    if torch.cuda.device_count() < 2:
        pytest.skip("needs two GPUs for NCCL")
    from probes.collectives import run_sweep

    rows = run_sweep([0, 1], 2, [8, 1 << 20, 2 << 20, 64 << 20], timeout=180)
    assert all(isinstance(r, CollectiveResult) for r in rows), rows
    assert all(r.errors == 0 for r in rows)
    assert max(r.busbw_gbs for r in rows) > 1.0
    graphs = {(r.op, r.size_bytes) for r in rows if r.graph}
    assert ("all_reduce", 2 << 20) in graphs  # the largest decode all-reduce, under a CUDA graph
    assert not [r for r in rows if r.graph and r.size_bytes > 2 << 20]


def test_pcie_read_under_load_and_host_copies():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    from probes import kernels

    session = LiveSession()
    nvml.collect(session, [0])
    fact = nvml.gpu_fact(session, 0)
    loaded = kernels.pcie_under_load(session, fact)
    assert loaded.pcie_read_under_load and loaded.pcie_gen_current >= 1
    assert any(a.get("tag") == "under_load" for a in session.answers)  # recorded for the replay
    h2d, d2h = kernels.host_copies(0)
    assert h2d.value > 1.0 and d2h.value > 1.0  # GB/s; a Gen3 x16 link gives ~12


def test_nccl_on_one_gpu_initialises_and_validates():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    from probes.collectives import run_sweep

    rows = run_sweep([0], 1, [8, 1 << 20], ("all_reduce",), timeout=120)
    assert rows and all(isinstance(r, CollectiveResult) and r.errors == 0 for r in rows), rows
    assert {r.size_bytes for r in rows if not r.graph} == {8, 1 << 20}
    # One rank, in place: NCCL enqueues no GPU work, so its CUDA graph is empty and gives no row (the lent
    # H200 timed such a replay at 0.69 us for 8 B and 1 MiB alike before: h200-vm-one-gpu-live-record.json).
    assert not [r for r in rows if r.graph], rows


def test_fabric_info_is_read_live_through_a_pointer():
    session = LiveSession()
    session.nvml("nvmlInit")
    value = session.get("nvml", "nvmlDeviceGetGpuFabricInfo", 0)
    entry = [a for a in session.answers if a["call"] == "nvmlDeviceGetGpuFabricInfo"][0]
    # Hopper and later answer a state (a single GPU: Not Supported); older GPUs NotSupported.
    assert (value is not None and value["state"] in (0, 1, 2, 3)
            or entry.get("error") in ("NotSupported", "FunctionNotFound"))


def test_kernels_in_a_spawned_process_and_graphs_at_decode_sizes():
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    from functools import partial

    from probes import kernels, runner
    from probes.collectives import run_sweep

    records = runner._run_step(runner.Step("HBM, GEMM, GEMV on GPU0", partial(kernels.single_gpu, 0, 0), 300,
                                           isolated=True))
    assert {m.metric for m in records} == {"hbm_gbs", "gemm_tflops", "gemv_gbs"}, records
    rows = run_sweep([0], 1, [2 << 20], ("all_reduce",), timeout=120)
    assert [r.size_bytes for r in rows if not r.graph] == [2 << 20], rows  # the largest decode all-reduce


def test_torchrun_entry_point_on_one_gpu(tmp_path):
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    import json
    import sys

    out = tmp_path / "sweep.json"
    subprocess.run([sys.executable, "-m", "torch.distributed.run", "--nproc-per-node", "1", "-m", "probes.multinode",
                    "--sizes", "8,1048576", "--ops", "all_reduce", "--timeout", "120", "--json", "-o", str(out)],
                   check=True, timeout=180)
    rows = json.loads(out.read_text())["facts"]["collective_result"]
    assert rows and all(r["errors"] == 0 for r in rows)


def test_weight_gemm_reads_its_weight_from_hbm():
    """A one-token GEMV over a 128 MiB weight cycled past L2 cannot beat the datasheet HBM rate (a time below
    it would mean the weight came from L2) and on a healthy GPU reaches at least half of it."""
    torch = pytest.importorskip("torch")
    if not torch.cuda.is_available():
        pytest.skip("torch has no CUDA")
    from probes import kernels
    from rules.catalog import find_gpu

    us = kernels.weight_gemm_us(1, 8192, 8192, "bf16")
    gbs = 8192 * 8192 * 2 / us / 1e3
    spec = find_gpu(name=torch.cuda.get_device_name(0))
    assert us > 0
    if spec:
        assert 0.5 * spec.hbm_gbs < gbs <= spec.hbm_gbs, (gbs, spec.hbm_gbs)

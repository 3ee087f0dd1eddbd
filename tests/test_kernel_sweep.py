"""The weight-GEMM sweep (scripts/kernel_sweep.py) and the real H200 sweeps it recorded
(tests/data/hardware/kernels, SOURCES.md), as benchmarks/kernel_accuracy.py reads them."""

import csv
import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from rules import catalog

REPO = Path(__file__).resolve().parent.parent
KERNELS = REPO / "tests" / "data" / "hardware" / "kernels"


def _module(path: Path):
    spec = importlib.util.spec_from_file_location(path.stem, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


sweep = _module(REPO / "scripts" / "kernel_sweep.py")
accuracy = _module(REPO / "benchmarks" / "kernel_accuracy.py")
SWEEPS = sorted(KERNELS.glob("*.csv"))


def test_shapes_are_the_tp_shards_of_the_models_config():
    """Llama-3-70B (hidden 8192, 64 query / 8 KV heads of 128, FFN 28672, vocab 128256) at TP8."""
    shards = {(m, n, k) for _, tp, m, n, k in sweep.sweep_shapes(["llama-3-70b"], [8]) if tp == 8}
    assert shards == {("qkv", 1280, 8192), ("o_proj", 8192, 1024), ("gate_up", 7168, 8192), ("down", 8192, 3584),
                      ("lm_head", 16032, 8192)}


def test_a_shape_two_models_share_is_timed_once():
    """Mistral-7B's layers have Llama-3-8B's shapes (hidden 4096, 32 / 8 heads of 128, FFN 14336); only its LM head
    (vocab 32000, not 128256) is its own."""
    shapes = sweep.sweep_shapes(["llama-3-8b", "mistral-7b"], [1])
    assert [(m, matrix) for m, _, matrix, _, _ in shapes][-2:] == [("llama-3-8b", "lm_head"), ("mistral-7b", "lm_head")]
    assert len(shapes) == 6


@pytest.mark.parametrize("path", SWEEPS, ids=lambda p: p.name)
def test_recorded_sweeps_are_physical(path):
    """No recorded GEMM beats the datasheet: its weight bytes need at least the HBM time (faster would mean L2 served
    it, which a step walking every layer's weights does not get) and its FLOPs at least the dense tensor time."""
    rows = accuracy.load(path)
    assert len(rows) > 300
    for r in rows:
        gpu = catalog.find_gpu(r["gpu_name"])
        m, n, k, us = int(r["m"]), int(r["n"]), int(r["k"]), float(r["us"])
        assert int(r["weight_bytes"]) == n * k * accuracy.BYTES[r["dtype"]]
        assert us >= int(r["weight_bytes"]) / (gpu.hbm_gbs * 1e3), r
        assert us >= 2 * m * n * k / (gpu.tflops(r["dtype"]) * 1e6), r


def test_recorded_shapes_are_the_catalogs():
    """The sweep recorded what the catalog's models give today: a changed model config shows here."""
    rows = accuracy.load(KERNELS / "h200-llama-3-sweep.csv")
    recorded = {(r["model"], int(r["tp"]), r["matrix"], int(r["n"]), int(r["k"])) for r in rows}
    assert recorded == set(sweep.sweep_shapes(["llama-3-8b", "llama-3-70b"], [1, 2, 4, 8]))


def test_one_token_gemvs_give_fixed_time_and_bandwidth():
    """The least-squares line through the H200's one-token bf16 GEMVs: a few microseconds fixed and most of the
    4.8 TB/s datasheet bandwidth."""
    rows = [r for r in accuracy.load(KERNELS / "h200-llama-3-sweep.csv") if r["dtype"] == "bf16" and r["m"] == "1"]
    fixed, gbs = accuracy.fixed_and_bandwidth(rows)
    assert 2 < fixed < 10
    assert 0.8 * 4800 < gbs < 4800


def test_kernel_accuracy_prints_every_regime(capsys):
    assert accuracy.main([]) == 0
    out = capsys.readouterr().out
    for label in ("decode GEMV", "near the ridge", "prefill", "run to run", "one-token GEMVs", "4096-token GEMMs"):
        assert label in out
    assert "h200-llama-3-sweep.csv: 560 GEMMs on NVIDIA H200" in out


def test_sweep_without_cuda_is_one_line_and_exit_2(tmp_path):
    pytest.importorskip("torch")
    import torch

    if torch.cuda.is_available():
        pytest.skip("this machine has a GPU")
    out = subprocess.run([sys.executable, str(REPO / "scripts" / "kernel_sweep.py"), str(tmp_path / "x.csv")],
                         capture_output=True, text=True)
    assert out.returncode == 2
    assert out.stderr.strip().splitlines() == ["kernel_sweep: torch sees no CUDA GPU"]
    assert not (tmp_path / "x.csv").exists()


def test_sources_name_every_recorded_file():
    sources = (KERNELS / "SOURCES.md").read_text()
    for path in KERNELS.iterdir():
        if path.name != "SOURCES.md":
            assert path.name in sources, path.name


def test_header_names_gpu_torch_and_cuda():
    for path in SWEEPS:
        first = path.read_text().splitlines()[0]
        assert first.startswith("# NVIDIA H200; torch ") and "CUDA 13.0" in first
        assert next(csv.reader([path.read_text().splitlines()[1]])) == sweep.FIELDS

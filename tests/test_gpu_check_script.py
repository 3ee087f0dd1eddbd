"""scripts/gpu_check.sh cannot run here (no GPU); what can be checked without one is checked:
its syntax, the plan it prints in a dry run, and that it fails loudly on a machine without a
driver, leaving the two files the device tool brings back."""

import os
import shutil
import subprocess
import tarfile
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "gpu_check.sh"


def _run(dest, **env):
    return subprocess.run(["bash", str(SCRIPT), str(dest)], capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, **env))


def test_the_script_parses():
    assert subprocess.run(["bash", "-n", str(SCRIPT)]).returncode == 0


def test_a_dry_run_lists_every_step_and_leaves_only_the_summary(tmp_path):
    out = _run(tmp_path, GPU_CHECK_DRY_RUN="1")
    assert out.returncode == 0, out.stderr
    summary = (tmp_path / "summary.txt").read_text()
    for step in ("nvidia-smi -q", "topo -p2p r", "diagnose node --quick", "diagnose node --standard",
                 "diagnose node --replay", "replay agrees, something was measured", "kernels vs catalog", "pytest"):
        assert f"would run: {step}" in summary, step
    assert "download.pytorch.org/whl/cu" in summary  # the torch it would install if the present one cannot
    assert [p.name for p in tmp_path.iterdir()] == ["summary.txt"]


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has a driver")
def test_without_a_driver_it_fails_loudly_and_still_packs_its_output(tmp_path):
    out = _run(tmp_path)
    assert out.returncode == 1
    summary = (tmp_path / "summary.txt").read_text()
    assert "FAIL: nvidia-smi not found" in summary and "PASS" not in summary
    (tarball,) = tmp_path.glob("gpu-check-*.tar.gz")
    with tarfile.open(tarball) as tar:
        assert any(name.endswith("summary.txt") for name in tar.getnames())
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([tarball.name, "summary.txt"])

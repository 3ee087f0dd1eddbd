"""Every probe step has a deadline: a hang in the NVML inventory, a GPU copy, a collective or the
multi-node sweep becomes a critical finding and `diagnose node` still reports. Also: which GPUs
CUDA can be measured on (CUDA_VISIBLE_DEVICES, MIG), and a torch that cannot use the driver."""

import json
import multiprocessing
import os
import subprocess
import sys
import time
from functools import partial
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli
from diagnose.evidence import GpuFact
from probes import kernels, runner
from probes.recording import LiveSession, ReplaySession
from probes.results import ProbeFailure
from rules.engine import evaluate

REPO = Path(__file__).resolve().parents[1]
RECORDINGS = REPO / "tests" / "recordings"


def _critical_hang(facts, step):
    (f,) = [f for f in evaluate(facts) if f.rule == "node.probe_failed" and step in f.title]
    assert f.severity == "critical" and "hung" in f.title
    return f


def test_a_hung_nvml_inventory_is_cut_off_and_the_report_still_prints(monkeypatch):
    # A driver that never answers (a GPU stuck in recovery, a wedged nvidia-persistenced).
    monkeypatch.setattr(LiveSession, "_nvml", lambda self, call, args: time.sleep(3600))
    start = time.monotonic()
    result = CliRunner().invoke(cli, ["node", "--quick", "--timeout", "1", "--json"])
    assert time.monotonic() - start < 15
    report = json.loads(result.output)
    (f,) = [f for f in report["findings"] if f["rule"] == "node.probe_failed"]
    assert f["severity"] == "critical" and "NVML inventory" in f["title"]
    assert result.exit_code == 1  # a critical finding, not a tool failure (3) or bad input (2)


def test_a_hung_gpu_copy_in_its_own_process_is_killed():
    # The P2P matrix and kernel timings run in a spawned process: a copy over a broken link that
    # never returns cannot be interrupted in-process, but its process can be killed.
    step = runner.Step("P2P copy matrix", partial(time.sleep, 3600), 2.0, isolated=True)
    start = time.monotonic()
    (f,) = runner._run_step(step)
    assert time.monotonic() - start < 10
    assert (f.probe, f.reason) == ("P2P copy matrix", "timeout") and "process was killed" in f.detail
    assert not [p for p in multiprocessing.active_children() if p.is_alive()]


def test_an_isolated_step_that_fails_says_why():
    # CUDA device 4096 exists nowhere: no CUDA here, an invalid device ordinal on a GPU machine (device 0 ran
    # fine on the lent H200, so the step did not fail there).
    (f,) = runner._run_step(runner.Step("HBM, GEMM, GEMV on GPU0", partial(kernels.single_gpu, 0, 4096), 60,
                                        isolated=True))
    assert f.reason == "error" and f.probe == "HBM, GEMM, GEMV on GPU0"


@pytest.mark.slow
def test_after_one_collective_hangs_the_other_groups_are_skipped(monkeypatch):
    # gloo ranks in local processes: the first group's rank 1 never joins, so its sweep hangs until
    # its timeout; the next group would hang the same way, so it is not run at all.
    from probes import collectives

    hang = runner.Step("collectives on GPUs 0,1", partial(collectives.run_sweep, None, 2, [1024], ("all_reduce",),
                                                           timeout=3, missing_ranks=(1,)), 3 + runner.GRACE)
    fine = runner.Step("collectives on GPUs 2,3", partial(collectives.run_sweep, None, 2, [1024], ("all_reduce",),
                                                          timeout=30), 30)
    monkeypatch.setattr(runner, "plan", lambda *a, **k: [hang, fine])
    monkeypatch.setattr(runner, "_measurements_blocked", lambda indices, facts=None: None)
    monkeypatch.setattr(runner.nvml, "collect", lambda s, g: ([], []))
    start = time.monotonic()
    facts = runner.run(LiveSession())
    assert time.monotonic() - start < 20
    reasons = {(f.probe, f.reason) for f in facts.of(ProbeFailure)}
    assert reasons == {("collectives", "timeout"), ("collectives on GPUs 2,3", "skipped")}
    (f,) = [f for f in evaluate(facts) if f.rule == "node.probe_failed" and f.severity == "critical"]
    assert "collective sweep" in f.title


@pytest.mark.slow
def test_a_multinode_rank_that_never_joins_ends_in_a_timeout_report(tmp_path):
    # torchrun's environment for rank 0 of 2; rank 1 is never started, so init waits for it.
    env = dict(os.environ, RANK="0", WORLD_SIZE="2", LOCAL_RANK="0", LOCAL_WORLD_SIZE="1",
               MASTER_ADDR="127.0.0.1", MASTER_PORT=str(29500 + os.getpid() % 1000), PYTHONPATH=str(REPO))
    out = tmp_path / "sweep.json"
    start = time.monotonic()
    proc = subprocess.run([sys.executable, "-m", "probes.multinode", "--backend", "gloo", "--sizes", "1024",
                           "--ops", "all_reduce", "--timeout", "3", "--json", "-o", str(out)],
                          capture_output=True, text=True, env=env, timeout=60, cwd=REPO)
    assert time.monotonic() - start < 30
    assert proc.returncode == 1, proc.stderr[-500:]
    (failure,) = json.loads(out.read_text())["facts"]["probe_failure"]
    assert failure["reason"] == "timeout" and "2-rank sweep" in failure["detail"]


def test_pcie_not_labelled_under_load_when_the_load_never_ran():
    # No CUDA here: the copies cannot start. The old probe slept 1 s, swallowed the error and
    # labelled the idle reading "under load"; now the reading is not taken at all.
    session = ReplaySession(RECORDINGS / "2x-gtx1080ti-pcie-gen1-reading.json")
    fact = GpuFact("probe:nvml:gpu1", index=1, pcie_gen_current=1, pcie_gen_max=3)
    with pytest.raises(RuntimeError, match="did not start"):
        kernels.pcie_under_load(session, fact)
    assert fact.pcie_read_under_load is None and fact.pcie_gen_current == 1


@pytest.mark.parametrize("torch_cuda, driver, available, words", [
    ("13.0", "12.4", False, "built for CUDA 13.0 but the driver supports CUDA 12.4"),
    ("12.8", "12.4", False, "built for CUDA 12.8 but the driver supports CUDA 12.4"),
    ("12.1", "12.4", False, "sees no usable GPU"),
    (None, "12.4", False, "CPU-only build"),
])
def test_a_torch_that_cannot_use_the_driver_is_said_once(torch_cuda, driver, available, words):
    # Driver 550 supports CUDA 12.4 (nvidia-smi's "CUDA Version"); cu128/cu130 wheels need newer.
    assert words in runner.torch_mismatch("2.9.0", torch_cuda, driver, available)
    assert runner.torch_mismatch("2.9.0", "12.4", "12.4", True) is None


def _gpus(name):
    facts = runner.run(ReplaySession(RECORDINGS / name))
    return facts.of(GpuFact)


def test_cuda_visible_devices_maps_cuda_ordinals_to_nvml_gpus():
    gpus = _gpus("hgx-h100-nvlink-status-mig-disabled.json")  # UUIDs as nvidia-smi nvlink -s printed them
    assert runner.cuda_devices(gpus, None)[0] == {0: 0, 1: 1}
    assert runner.cuda_devices(gpus, "1")[0] == {1: 0}  # Slurm --gres: CUDA's device 0 is NVML's GPU1
    assert runner.cuda_devices(gpus, "GPU-dd3b269a,GPU-4039dfe4")[0] == {1: 0, 0: 1}  # UUID prefixes, in order
    devices, notes = runner.cuda_devices(gpus, "1", order="FASTEST_FIRST")
    assert devices == {} and "FASTEST_FIRST" in notes[0]


def test_a_mig_gpu_is_not_measured():
    gpus = _gpus("2x-a100-sxm-one-gpu-in-mig-mode.json")
    devices, notes = runner.cuda_devices(gpus, None)
    assert devices == {0: 0} and "GPU1 is in MIG mode" in notes[0]


def test_a_hung_torch_or_cuda_check_is_cut_off(monkeypatch):
    # `import torch` / cudaGetDeviceCount on a wedged driver: the check itself has a deadline.
    gpu = GpuFact("probe:nvml:gpu0", index=0, name="NVIDIA H100 80GB HBM3")
    monkeypatch.setattr(runner.nvml, "collect", lambda s, g: ([gpu], []))
    monkeypatch.setattr(runner, "_measurements_blocked", lambda indices, facts=None: time.sleep(3600))
    start = time.monotonic()
    facts = runner.run(LiveSession(), "quick", timeout=1)
    assert time.monotonic() - start < 15
    _critical_hang(facts, "torch and CUDA check")
    assert not [r for r in facts.records if type(r).__name__ == "CollectiveResult"]

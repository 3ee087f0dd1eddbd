"""The one recording made live on real hardware: `scripts/gpu_check.sh` on a lent one-GPU H200 (2026-12-04).

Its replay must give what the live run gave, its NVML inventory must agree with `nvidia-smi -q` taken on the
same machine a few seconds earlier, and its kernel measurements check constants the predictor took from
published benchmarks (catalog matmul_max, calibration stream_efficiency) on a card they were not fitted on."""

import dataclasses
import json
import statistics

from test_node_replays import RECORDINGS, replay

from diagnose.artifacts import smi_query
from diagnose.evidence import CollectiveResult, GpuFact, Measurement
from probes.collectives import EMPTY_GRAPH
from rules.catalog import calibration, find_gpu

NAME = "h200-vm-one-gpu-live-record.json"
SOURCES = RECORDINGS / "sources" / "h200-vm-one-gpu-live"


def _verdict_rows(findings):
    return sorted((f["rule"], f["category"], f["severity"]) for f in findings)


def test_the_replay_gives_the_live_runs_findings_and_verdict():
    live = json.loads((SOURCES / "node-standard.json").read_text())
    _, findings, verdict = replay(NAME)
    assert _verdict_rows([dataclasses.asdict(f) for f in findings]) == _verdict_rows(live["findings"])
    assert verdict.category == live["verdict"]["category"] == "healthy"


def test_nvml_and_nvidia_smi_q_of_the_same_machine_agree():
    facts, _, _ = replay(NAME)
    (nvml,) = facts.of(GpuFact)
    (smi,) = [r for r in smi_query.parse((SOURCES / "nvidia-smi-q.txt").read_text(), "q") if isinstance(r, GpuFact)]
    steady = ("index", "name", "uuid", "bus_id", "pci_device_id", "memory_total_mib", "pcie_gen_current",
              "pcie_gen_max", "pcie_width_current", "pcie_width_max", "pcie_replay_counter", "power_limit_w",
              "sm_clock_mhz", "sm_clock_max_mhz", "clock_event_reasons", "ecc_mode", "ecc_uncorrected_volatile",
              "remapped_rows_pending", "persistence_mode", "compute_mode", "mig_mode", "virtualization_mode")
    assert {k: getattr(nvml, k) for k in steady} == {k: getattr(smi, k) for k in steady}
    assert abs(nvml.temperature_c - smi.temperature_c) <= 3 and abs(nvml.power_draw_w - smi.power_draw_w) <= 10
    # A lone SXM board in a VM: NVML answers 'not supported' where nvidia-smi prints N/A, and no link is judged.
    assert nvml.catalog_key == "h200-sxm" and nvml.fabric_state == "Not Supported" and smi.fabric_state is None


def test_measured_kernels_bear_out_the_predictors_constants():
    facts, _, _ = replay(NAME)
    spec, cal = find_gpu(name="NVIDIA H200"), calibration()
    by = {}
    for m in facts.of(Measurement):
        by.setdefault(m.metric, []).append(m.value)
    (gemm,) = by["gemm_tflops"]
    # matmul_max 0.803 came from published mamf-finder runs on other H200s; this card gave 788 / 989 = 0.797.
    assert abs(gemm / spec.bf16_tflops - spec.matmul_max) < 0.03
    # stream_efficiency 0.837 was fitted to engines' decode rates on other boards; a bf16 weight of 384 MiB
    # streamed at batch 1, 8 and 32 gave 4065, 3725, 4028 GB/s of 4800: median share 0.839.
    assert abs(statistics.median(by["gemv_gbs"]) / spec.hbm_gbs - cal.stream_efficiency) < 0.03
    assert 0.8 < by["hbm_gbs"][0] / spec.hbm_gbs < 0.95  # a device copy reaches ~0.88 of the datasheet
    # Host copies over Gen5 x16: 63 GB/s line rate per direction, copies reach ~85 % of it.
    assert all(0.75 < by[k][0] / 63.0 < 0.95 for k in ("h2d_gbs", "d2h_gbs"))


def test_one_rank_nccl_rows_are_host_overhead_not_a_link():
    """The one-rank all-reduce moves nothing: eager calls took ~21.5 us at 8 B and 1 MiB alike (the
    process group's per-call cost), busbw 0. The graph rows timed an empty capture (torch warned so);
    probes.collectives now leaves such rows out."""
    facts, _, _ = replay(NAME)
    rows = facts.of(CollectiveResult)
    eager = [r.time_us for r in rows if not r.graph]
    assert len(eager) == 2 and max(eager) / min(eager) < 1.1 and all(r.busbw_gbs == 0 for r in rows)
    # The words probes.collectives looks for are the ones torch printed there.
    assert EMPTY_GRAPH in (SOURCES / "node-standard.log").read_text()


def test_the_text_report_prints_each_unit_with_its_value_only():
    """The first replay of this recording printed 'batch 8 GB/s': the unit column took the batch column too."""
    from click.testing import CliRunner

    from diagnose.cli import cli

    out = CliRunner().invoke(cli, ["node", "--replay", str(RECORDINGS / NAME)]).output
    (gemv8,) = [line.split() for line in out.splitlines() if line.split()[1:2] == ["gemv_gbs"] and "3,725" in line]
    assert gemv8 == ["0", "gemv_gbs", "bf16", "3,725", "GB/s", "8"]
    assert "78.2 / 700.0" in out  # NVML's 78152 mW, to a tenth of a watt
    assert "A one-rank row moves no data between GPUs" in " ".join(out.split())

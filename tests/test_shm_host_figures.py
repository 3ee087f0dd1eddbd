"""An all-reduce on boards whose driver refuses PCIe peer-to-peer (GeForce) is judged against NCCL's SHM path, and
that path's figure is the host's: its copy between GPUs without peer access where the ticket pastes
p2pBandwidthLatencyTest's 'Unidirectional P2P=Disabled' matrix, else its CPU's PCIe generation where the ticket names
the CPU, else PCIe Gen3 (rules.nccl.without_p2p, rules.common.host_copy_gbs / host_cpu). Before session 22 the ticket
always took the Gen3 guess: NVIDIA/nccl-tests#287's 4x RTX 5090 at 27.3 GB/s read as "1053 % of" a 2.59 GB/s path.

Real inputs:
- NVIDIA/nccl-tests#287 (https://github.com/NVIDIA/nccl-tests/issues/287): the reporter's 4-GPU all_reduce_perf
  (tests/data/collectives/nccltests-rtx5090-4gpu-genoa-nop2p-issue287.csv, the printed out-of-place rows laid out as
  all_reduce_perf prints them) and their p2pBandwidthLatencyTest of a sibling host in the same thread
  (tests/data/hardware/real/p2p_bandwidth_2x_rtx5090_no_peer_access.txt: 38.24 and 38.92 GB/s P2P=Disabled);
- ticket t013 (8x RTX 5090, "CPU :intel 8480+ *2", 28 GB/s busbw; tests/data/paraphrases/t013-*), whose CPU is a
  Sapphire Rapids Xeon (PCIe 5.0 root ports);
- CPU names as people write them, from public files: "CPU: Intel 8480+ (56 cores)" (a Llama-2 fine-tuning README),
  "2× Intel 8480+ CPUs (56 cores each)" (NUS HPC's Hopper cluster page), "2x Xeon 8480C" (vllm-project/vllm-omni
  PR 6288's description), "2x Intel 8480c" (the Linux sched_ext source comment)."""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

import pytest
from conftest import diagnose, said

from rules import claims, offload

DATA = Path(__file__).parent / "data"
ISSUE287 = DATA / "collectives" / "nccltests-rtx5090-4gpu-genoa-nop2p-issue287.csv"
P2P_MATRIX = DATA / "hardware" / "real" / "p2p_bandwidth_2x_rtx5090_no_peer_access.txt"


def issue287_table() -> str:
    """The reporter's printed rows (size, time, busbw) in all_reduce_perf's layout, 4 GPUs under one process."""
    rows = [r for r in csv.DictReader(ln for ln in ISSUE287.read_text().splitlines() if not ln.startswith("#"))]
    n = 4
    lines = [f"# nThread 1 nGpus {n} minBytes 8 maxBytes 134217728 step: 2(factor) warmup iters: 5 iters: 20 agg "
             "iters: 1 validation: 1 graph: 0", "#", "# Using devices"]
    lines += [f"#  Rank  {i} Group  0 Pid 2168673 on   GENOA-01 device  {i} [0x{0x20 * i + 1:02x}] NVIDIA GeForce RTX "
              "5090" for i in range(n)]
    lines += ["#", "#       size         count      type   redop    root     time   algbw   busbw #wrong     time"
              "   algbw   busbw #wrong",
              "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)"
              "  (GB/s)  (GB/s)       "]
    for r in rows:
        size, us, busbw = int(r["size_bytes"]), float(r["time_us"]), float(r["busbw_gbs"])
        algbw = size / us / 1e3
        lines.append(f"{size:>12} {size // 4:>13}     float     sum      -1 {us:>8.1f} {algbw:>7.2f} {busbw:>7.2f}"
                     f"      0 {us:>8.1f} {algbw:>7.2f} {busbw:>7.2f}      0")
    return "\n".join(lines + ["# Out of bounds values : 0 OK", ""])


def busbw_finding(folder: Path) -> tuple[dict, dict]:
    report = json.loads(diagnose("ticket", folder, "--json").output)
    return report, next(f for f in report["findings"] if f["rule"] == "nccl.busbw")


def _expected_shm(finding: dict) -> float:
    return float(re.search(r"moves about ([\d.]+) GB/s busbw", finding["summary"]).group(1))


def test_the_pasted_host_copy_prices_the_shm_path(tmp_path):
    (tmp_path / "nccl.txt").write_text(issue287_table())
    (tmp_path / "p2p.txt").write_text(P2P_MATRIX.read_text())
    report, f = busbw_finding(tmp_path)
    assert (f["category"], report["verdict"]["category"]) == ("expected_physics", "expected_physics")
    # the matrix names the boards "NVIDIA Graphics Device" (the early driver's placeholder): no second GPU model
    assert not any(x["rule"] == "ticket.mixed_gpus" for x in report["findings"])
    # 0.702 (calibration [nccl] shm_copy_share) x 38.58 GB/s, the mean of the two P2P=Disabled cells
    assert _expected_shm(f) == pytest.approx(0.702 * (38.24 + 38.92) / 2, abs=0.1)
    assert "on this host" in f["summary"] and "38.6 GB/s as measured" in f["summary"]
    assert "27.26 GB/s is 101% of it" in f["summary"] or "27.3 GB/s is 101% of it" in f["summary"]
    copy = next(e for e in f["evidence"] if "P2P=Disabled" in e["detail"])
    assert copy["measured"] == 38.6 and copy["source"].startswith("p2p.txt:")


def test_without_the_matrix_the_table_alone_keeps_the_gen3_guess(tmp_path):
    """The same table with nothing said of the host: PCIe Gen3 to host memory, assumed, as before."""
    (tmp_path / "nccl.txt").write_text(issue287_table())
    _, f = busbw_finding(tmp_path)
    assert _expected_shm(f) == pytest.approx(2.59, abs=0.02)
    assert "a host nothing is said of" in f["summary"] and "assumed: no host CPU given" in f["summary"]


def test_a_named_cpu_gives_its_root_ports_generation():
    """t013: "CPU :intel 8480+ *2" is a Sapphire Rapids Xeon (PCIe 5.0): the 5090's Gen5 x16 link at full rate,
    0.2343 x 63 x 0.702 = 10.4 GB/s, not the Gen3 guess's 2.6; 28 GB/s stays inside (270 %)."""
    _, f = busbw_finding(DATA / "paraphrases" / "t013-nccl-8x5090-allreduce-28gbs-a")
    assert _expected_shm(f) == pytest.approx(10.4, abs=0.05)
    assert "the root ports of 'intel 8480+'" in f["summary"] and "on this host" in f["summary"]
    assert any(e["detail"].startswith('host CPU: "') for e in f["evidence"])


@pytest.mark.parametrize("sentence, family", [
    ("CPU: Intel 8480+ (56 cores), Memory usage: 140GB", "Sapphire Rapids"),
    ("GPU Nodes: 6, each with 8× NVIDIA H100-80GB GPUs, 2× Intel 8480+ CPUs (56 cores each)", "Sapphire Rapids"),
    ("A community benchmark on 2x Xeon 8480C reported the following comparison", "Sapphire Rapids"),
    ("On some multi-socket machines (e.g. 2x Intel 8480c), this can live-lock the machine", "Sapphire Rapids"),
    ("Intel(R) Xeon(R) Platinum 8358 CPU @ 2.60GHz", "Ice Lake-SP"),  # lscpu's form keeps its reading
    ("Xeon Gold 6248R", "Cascade Lake-SP"),
])
def test_a_xeon_scalable_model_is_read_with_or_without_its_tier_word(sentence, family):
    cpus = [c.data["cpu"] for c in claims.host_platform(said(sentence)) if c.data.get("cpu")]
    assert cpus and family in offload.cpu_family(cpus[0])[0]["family"]


@pytest.mark.parametrize("sentence", [
    "I run it on an Intel 6700K with 32 GB of RAM",  # a Core model (K suffix, generation digit 7): no Xeon
    "My old Intel 3570K box has two 3090s",
    "Intel(R) Xeon(R) CPU @ 2.20GHz",  # a cloud VM's lscpu: no model number to read
])
def test_core_models_and_unnumbered_xeons_are_no_xeon_scalable(sentence):
    cpus = [c.data["cpu"] for c in claims.host_platform(said(sentence)) if c.data.get("cpu")]
    assert not any(offload.cpu_family(c) and "Xeon Scalable" in offload.cpu_family(c)[0]["family"] for c in cpus)

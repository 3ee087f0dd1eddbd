"""Node rules on node facts: measured rates against what the catalog and the topology imply."""

import itertools
import json

from diagnose.evidence import CollectiveResult, Facts, GpuFact, Measurement, NcclSetting, NvLinkFact, TopologyPath
from probes import nvml
from probes.collectives import bandwidths
from probes.recording import ReplaySession
from rules.engine import evaluate

H100 = "NVIDIA H100 80GB HBM3"


def node(n=8, path="NV18", **gpu):
    facts = Facts()
    facts.add([GpuFact(f"probe:nvml:gpu{i}", index=i, name=H100, **gpu) for i in range(n)])
    paths = {(a, b): path(a, b) if callable(path) else path for a, b in itertools.combinations(range(n), 2)}
    # nvlinks as probes/nvml.py fills it: the # of NV#
    facts.add([TopologyPath("probe:nvml:topology", f"GPU{a}", f"GPU{b}", p, int(p[2:]) if p.startswith("NV") else 0)
               for (a, b), p in paths.items()])
    return facts


def allreduce(size, us, group, graph=False):
    algbw, busbw = bandwidths("all_reduce", size, us, len(group))
    return CollectiveResult("probe:collectives:nccl:" + ",".join(map(str, group)), "all_reduce", size, us, algbw,
                            busbw, nranks=len(group), group=list(group), graph=graph, tool="diagnose (nccl)")


def rules(facts, prefix):
    return [f for f in evaluate(facts, only=[prefix])]


def test_busbw_like_published_dgx_h100_is_not_flagged():
    facts = node()
    # collectives-reference.md [R14]: 8x H100 64 MiB all_reduce in 324 us (busbw 362 GB/s)
    facts.add(allreduce(64 << 20, 324, range(8)))
    (f,) = rules(facts, "nccl.busbw")
    assert f.severity == "ok"


def test_busbw_far_below_nvlink_with_p2p_disabled_names_the_cause():
    facts = node()
    facts.add(NcclSetting("probe:host:env", "NCCL_P2P_DISABLE", "1"))
    # the same 64 MiB at PCIe-through-host speed: 20x slower
    facts.add(allreduce(64 << 20, 6480, range(8)))
    (f,) = rules(facts, "nccl.busbw")
    assert f.category == "shm_fallback" and f.severity == "critical"
    assert "NCCL_P2P_DISABLE=1" in f.summary
    assert f.evidence[0].expected == 370.0  # catalog nvswitch3: typical nccl-tests busbw


def test_busbw_below_topology_across_sockets_blames_numa():
    facts = node(4, path=lambda a, b: "SYS" if (a < 2) != (b < 2) else "PIX", pcie_gen_max=4)
    for g in facts.of(GpuFact):
        g.numa_node = 0 if g.index < 2 else 1
    facts.add(allreduce(256 << 20, 100000, range(4)))  # 4 GB/s busbw over PCIe Gen4 (expected ~25)
    (f,) = rules(facts, "nccl.busbw")
    assert f.category == "numa_affinity"


def test_small_message_latency_and_cuda_graphs():
    facts = node(2)
    facts.add(allreduce(8, 62.0, [0, 1]), allreduce(8, 9.0, [0, 1], graph=True))
    found = {f.category: f for f in rules(facts, "node.small_message_latency")}
    assert set(found) == {"launch_bound"}  # graphs bring it to 9 us: the link is fine, launches are not
    facts = node(2)
    facts.add(allreduce(8, 80.0, [0, 1]), allreduce(8, 70.0, [0, 1], graph=True))
    (f,) = rules(facts, "node.small_message_latency")
    assert f.category == "latency_bound_small_batch" and f.evidence[0].measured == 70.0


def test_hbm_and_gemm_against_the_catalog():
    facts = node(2)
    facts.add(Measurement("probe:kernels:hbm:gpu0", "hbm_gbs", 2950.0, "GB/s", gpu=0),
              Measurement("probe:kernels:hbm:gpu1", "hbm_gbs", 1400.0, "GB/s", gpu=1),
              Measurement("probe:kernels:gemm:bf16:gpu0", "gemm_tflops", 720.0, "TFLOP/s", gpu=0, dtype="bf16"))
    facts.of(GpuFact)[1].clock_event_reasons = ["hw_thermal_slowdown"]
    hbm = rules(facts, "node.hbm_below_catalog")
    assert [(f.severity, f.category) for f in hbm] == [("warning", "throttling")]
    assert "GPU1" in hbm[0].title and hbm[0].evidence[0].expected == 3350.0
    gemm = rules(facts, "node.gemm_below_catalog")
    assert [f.severity for f in gemm] == ["ok"]


def test_tp_groups_on_a_box_of_nvlink_pairs():
    # 4 GPUs, NVLink bridges on 0-1 and 2-3, the pairs on different sockets (like ticket 022's A40 box)
    facts = node(4, path=lambda a, b: "NV4" if (a, b) in ((0, 1), (2, 3)) else "SYS")
    (f,) = rules(facts, "node.tp_groups")
    assert f.severity == "info" and "2" in f.title and "TP4 (SYS)" in f.summary
    (ok,) = rules(node(8), "node.tp_groups")
    assert ok.severity == "ok" and "TP 2, 4, 8" in ok.title


def test_tp_groups_quote_the_measured_busbw():
    facts = node(4, path="NV4")
    facts.add(allreduce(64 << 20, 400, [0, 1]), allreduce(64 << 20, 900, [2, 3]), allreduce(64 << 20, 600, range(4)))
    (f,) = rules(facts, "node.tp_groups")
    quoted = {e.detail.split(":")[0]: e.measured for e in f.evidence if e.unit == "GB/s"}
    assert quoted["TP2"] == round(bandwidths("all_reduce", 64 << 20, 900, 2)[1], 1)  # the slower pair decides
    assert "TP4" in quoted


def _fabric(state, status, tmp_path):
    answers = [{"call": "nvmlInit", "args": [], "value": True}, {"call": "nvmlDeviceGetCount", "args": [], "value": 1},
               {"call": "nvmlDeviceGetName", "args": [0], "value": H100},
               {"call": "nvmlDeviceGetGpuFabricInfo", "args": [0], "value": {"state": state, "status": status}}]
    path = tmp_path / f"fabric-{state}-{status}.json"
    path.write_text(json.dumps({"format": "diagnose.node-recording/1", "meta": {}, "answers": answers}))
    facts = Facts()
    facts.add(nvml.collect(ReplaySession(path))[0])
    return facts


def test_fabric_status_counts_only_once_the_state_is_completed(tmp_path):
    # nvml.h: nvmlGpuFabricInfo_t.status is valid only when state is COMPLETED. A single H100 in a VM
    # answers state 0 (Not Supported); a booting HGX answers 1/2 with a status that means nothing yet.
    for state, status in ((0, 999), (1, 999), (2, 999)):
        facts = _fabric(state, status, tmp_path)
        assert facts.of(GpuFact)[0].fabric_status is None
        assert not [f for f in rules(facts, "topology.fabric_manager") if f.severity == "critical"]
    pending = rules(_fabric(2, 999, tmp_path), "topology.fabric_manager")
    assert [f.severity for f in pending] == ["warning"] and "In Progress" in pending[0].title
    assert rules(_fabric(0, 999, tmp_path), "topology.fabric_manager") == []
    failed = rules(_fabric(3, 999, tmp_path), "topology.fabric_manager")
    assert [f.severity for f in failed] == ["critical"] and "error 999" in failed[0].evidence[0].detail
    assert [f.severity for f in rules(_fabric(3, 0, tmp_path), "topology.fabric_manager")] == ["ok"]


def test_inactive_nvlinks_of_a_mig_gpu_are_not_a_fault():
    facts = node(n=2, path="SYS")
    facts.of(GpuFact)[1].mig_mode = True
    facts.add([NvLinkFact(f"probe:nvml:gpu1:link{k}", gpu=1, link=k, active=False) for k in range(18)])
    assert not [f for f in rules(facts, "topology.nvlink_links") if f.severity == "critical"]
    facts.of(GpuFact)[1].mig_mode = False  # the same readings on a GPU outside MIG: links are down
    assert [f.severity for f in rules(facts, "topology.nvlink_links")] == ["critical"]


def test_pcie_busbw_expectation_uses_the_link_width_and_skips_boards_without_p2p():
    # Two GPUs behind the CPU at Gen4 x8 (common on workstation boards): 15.75 GB/s per direction,
    # ~12.6 GB/s busbw expected. 10 GB/s is normal there; against an x16 figure it read as half.
    facts = node(2, path="PHB", pcie_gen_max=4, pcie_width_max=8)
    facts.add(allreduce(256 << 20, 2 * (256 << 20) / 2 / 10e9 * 1e6, [0, 1]))  # busbw 10 GB/s
    assert [f.severity for f in rules(facts, "nccl.busbw")] == ["ok"]
    facts = node(2, path="PHB", pcie_gen_max=4, pcie_width_max=16)
    facts.add(allreduce(256 << 20, 2 * (256 << 20) / 2 / 10e9 * 1e6, [0, 1]))
    (f,) = rules(facts, "nccl.busbw")
    assert f.severity == "warning" and f.evidence[0].expected == 24.5  # catalog pcie4: typical busbw
    # RTX 4090: the stock driver refuses P2P, NCCL goes through host memory; no PCIe P2P figure applies
    facts = Facts()
    facts.add([GpuFact(f"probe:nvml:gpu{i}", index=i, name="NVIDIA GeForce RTX 4090", pcie_gen_max=4, pcie_width_max=16)
               for i in range(2)])
    facts.add(TopologyPath("probe:nvml:topology", "GPU0", "GPU1", "PHB"))
    facts.add(allreduce(256 << 20, 2 * (256 << 20) / 2 / 3e9 * 1e6, [0, 1]))
    assert not [f for f in rules(facts, "nccl.busbw") if f.is_problem and f.severity != "info"]


def test_no_nvml_but_collectives_ran_does_not_say_only_host_checks_ran():
    """NVML missing (a container without libnvidia-ml) while the collectives ran through CUDA: the
    finding says what ran instead of 'Only the host checks ran' beside a collectives table."""
    from diagnose.evidence import CollectiveResult, Facts, Note
    from rules.node_rules import no_gpu

    facts = Facts()
    facts.extend([Note("probe:nvml", "no_gpu", "no NVIDIA driver found (libnvidia-ml.so is not installed)"),
                  CollectiveResult("probe:collectives", "all_reduce", 1 << 20, 40.0, 26.2, 45.9, nranks=8)])
    (f,) = no_gpu(facts)
    assert "Only the host checks ran" not in f.summary
    assert "1 collective measurement(s) ran" in f.summary and f.evidence[-1].measured == 1


def test_a_cpu_gloo_sweep_is_not_judged_against_the_gpu_links():
    """`diagnose node --cpu-ranks` runs all_reduce over gloo between CPU processes: host memory, not NVLink."""
    facts = node()
    facts.add(CollectiveResult("probe:collectives:gloo", "all_reduce", 256 << 20, 1e6, 0.27, 0.47, nranks=2,
                               tool="diagnose (gloo)"))
    assert rules(facts, "nccl.busbw") == []
    facts.add(allreduce(256 << 20, 100000, range(8)))  # the same box's NCCL sweep at 4.7 GB/s still is
    assert [f.severity for f in rules(facts, "nccl.busbw")] == ["critical"]

"""Per-NUMA-node memory tables (numastat -p/-c/-m, numactl -H) and GPU -> NUMA listings (issue 11, formats not
read), and the rule that reads them: a process's host memory on a node its GPUs are not on.

Every table is real public output in tests/data/hardware/real/ (sources in SOURCES.md there). The rule tests put
two real outputs from different threads into one set of facts: they are the rule's inputs, not a case.
"""

from pathlib import Path

from conftest import judged_issue

from diagnose.artifacts import detect, gpu_numa, numastat
from diagnose.evidence import Facts, GpuFact, NumaMemory, Workload
from rules.engine import evaluate, ticket_verdict
from rules.host import numa_memory

REAL = Path(__file__).parent / "data" / "hardware" / "real"
TICKETS = Path(__file__).parent / "data" / "tickets"
KTRANSFORMERS = "u14a02-ktransformers-2x-8592es-768g-use-numa-8-9-tps-memory-not-doubled"  # a development case


def _read(name: str, module=numastat):
    return module.parse((REAL / name).read_text(), name)


def _by_node(records):
    return {r.node: r for r in records}


def test_numastat_p_one_process_reads_its_total_row_per_node():
    # https://github.com/numactl/numactl/issues/45: bash under `numactl --membind=1`, 1.14 MB still on node 0
    rows = _read("numastat_p_bash_membind1_numactl45.txt")
    assert [(r.node, r.used_mb, r.pid, r.process) for r in rows] == [(0, 1.14, 98621, "bash"), (1, 0.18, 98621, "bash")]
    assert rows[0].source.endswith(":6")  # the first row of the table


def test_numastat_m_p_gives_the_process_and_each_nodes_totals():
    # https://github.com/ikawrakow/ik_llama.cpp/pull/278: llama-server with 385 GB of huge pages on node 0
    rows = _read("numastat_m_p_llama_server_ikllama278.txt")
    process = _by_node(r for r in rows if r.process)
    system = _by_node(r for r in rows if r.process is None)
    assert (process[0].used_mb, process[1].used_mb, process[0].process) == (388826.62, 5.54, "llama-server")
    assert (system[0].total_mb, system[0].free_mb, system[0].used_mb) == (771710.76, 3487.92, 768222.84)
    assert system[1].free_mb == 4793.30
    # the "Token Unaccepted not in hash table." lines and the rows after MemUsed carry no node totals
    assert len(rows) == 4


def test_compact_system_table_and_numactl_hardware():
    # https://github.com/numactl/numactl/issues/115 (numastat -cm, integers)
    system = _by_node(_read("numastat_cm_two_nodes_numactl115.txt"))
    assert [(n, r.total_mb, r.free_mb, r.used_mb) for n, r in system.items()] == [
        (0, 1007, 953, 54), (1, 988, 900, 87)]
    # https://github.com/ggml-org/llama.cpp/pull/1556 (numactl -H): used = size - free
    nodes = _by_node(_read("numactl_h_2x_e5_2698bv3_llamacpp1556.txt"))
    assert (nodes[0].total_mb, nodes[0].free_mb, nodes[0].used_mb) == (128792, 126491, 2301)
    assert nodes[1].cpus.startswith("16 17 18") and nodes[1].process is None


def test_several_pids_one_row_each():
    # https://github.com/performancecopilot/pcp/pull/2527: the summary view, one node column
    rows = _read("numastat_p_pcp_summary_view_pcp2527.txt")
    assert [(r.pid, r.process, r.node, r.used_mb) for r in rows] == [
        (2, "kthreadd", 0, 0.0), (1740, "dbus-daemon", 0, 6.7), (5620, "libvirt-dbus", 0, 12.71),
        (2868087, "dbus-daemon", 0, 5.79)]


def test_a_paste_without_title_or_total_row_sums_the_rows():
    # the dev case's paste (https://github.com/kvcache-ai/ktransformers/issues/896) lost the title, the aligned
    # columns and the Total row: Huge + Heap + Stack + Private per node
    text = (TICKETS / KTRANSFORMERS / "issue.md").read_text()
    rows = [r for r in numastat.parse(text, "issue.md") if r.process is not None]
    assert [(r.node, r.used_mb) for r in rows] == [(0, round(76.14 + 0.13 + 214382.25, 2)),
                                                  (1, round(969.67 + 173962.04, 2))]


def test_numastat_is_not_read_from_other_outputs():
    for text in ("node 0 has 8 GPUs, node 1 has 8 GPUs",  # cluster nodes, not NUMA nodes
                 "Total 3.2 GB\nHeap profile: 12 MB",
                 "| GPU | Node 0 | Node 1 |\n| 0 | NV12 | SYS |"):
        assert numastat.detect(text) == 0.0, text


def test_gpu_numa_listings_by_bus_id_and_by_index():
    # https://github.com/kubernetes-sigs/dra-driver-nvidia-gpu/pull/1165: 8x L4, /sys/bus/pci/devices/*/numa_node
    rows = _read("gpu_numa_sysfs_8x_l4_dra1165.txt", gpu_numa)
    assert [(g.bus_id, g.numa_node) for g in rows][::4] == [("0000:9f:00.0", 0), ("0000:ae:00.0", 1)]
    # https://github.com/ROCm/legacy-rocm-build/issues/4740 (rocm-smi --showtoponuma): Node and Affinity lines
    rows = _read("rocm_smi_showtoponuma_8gpu_rocm4740.txt", gpu_numa)
    assert [(g.index, g.numa_node) for g in rows] == [(i, i // 4) for i in range(8)]
    # paraphrased listings as people write them by hand, and the grep form of the sysfs file
    for text, want in (("GPU0 -> NUMA 1\nGPU1 -> NUMA 1", [(0, 1), (1, 1)]),
                       ("GPU 3: NUMA node 0", [(3, 0)]),
                       ("gpu 2 => numa_node=1", [(2, 1)])):
        assert gpu_numa.detect(text) >= 0.5 and [(g.index, g.numa_node) for g in gpu_numa.parse(text, "x")] == want
    (g,) = gpu_numa.parse("/sys/bus/pci/devices/0000:17:00.0/numa_node:-1", "x")
    assert (g.bus_id, g.numa_node) == ("0000:17:00.0", -1)


def test_gpu_numa_ignores_lines_that_are_not_listings():
    for text in ("0000:17:00.0 3D controller", "0000:17:00.0 1",  # one bare pair: could be anything
                 "GPU 0: NVIDIA A100-SXM4-80GB (UUID: GPU-1234)", "GPU0 NUMA affinity is wrong?"):
        assert gpu_numa.detect(text) == 0.0, text
    # the topo matrix's NUMA Affinity column is the topo parser's
    assert "gpu_numa" not in dict(detect((REAL / "topo_m_2x_rtx5090_phb.txt").read_text()))


def _facts(*records):
    facts = Facts()
    facts.add(*records)
    return facts


def _llama_server_and_gpus(visible: str | None):
    process = [r for r in _read("numastat_m_p_llama_server_ikllama278.txt") if r.process]
    gpus = _read("rocm_smi_showtoponuma_8gpu_rocm4740.txt", gpu_numa)
    extra = [Workload("launch", cuda_visible_devices=visible)] if visible else []
    return _facts(*process, *gpus, *extra)


def test_memory_on_the_node_its_gpus_are_not_on():
    # llama-server's 388 GB sit on node 0; GPUs 4-7 hang off node 1
    (f,) = numa_memory(_llama_server_and_gpus("4,5,6,7"))
    assert (f.category, f.severity, f.confidence) == ("numa_affinity", "warning", 0.6)
    assert "100% of llama-server (PID 3635)'s host memory is on NUMA node 0" in f.title
    assert f.evidence[0].measured == 388827 and f.evidence[0].source.endswith(":5")
    assert f.evidence[1].measured == "1"


def test_no_finding_when_the_memory_is_near_its_gpus_or_small():
    assert list(numa_memory(_llama_server_and_gpus("0"))) == []  # GPU0 is on node 0, with the memory
    assert list(numa_memory(_llama_server_and_gpus(None))) == []  # every GPU in use: node 0 is one of theirs
    bash = _read("numastat_p_bash_membind1_numactl45.txt")  # 14 % on node 1, of 1.3 MB: a shell, no workload
    gpus = [GpuFact("t", index=0, numa_node=1)]
    assert list(numa_memory(_facts(*bash, *gpus))) == []


def test_split_memory_without_gpu_nodes_is_weaker_evidence():
    rows = [NumaMemory("n:1", 0, used_mb=214458.52, process=""), NumaMemory("n:1", 1, used_mb=174931.71, process="")]
    (f,) = numa_memory(_facts(*rows))
    assert f.confidence == 0.5 and "45% of the process's host memory is on a second NUMA node" == f.title
    # the node tables alone (numastat -m, numactl -H) say nothing about a process
    assert list(numa_memory(_facts(*_read("numastat_cm_two_nodes_numactl115.txt")))) == []


def test_a_gpu_numa_listing_alone_is_context_not_a_verdict():
    facts = _facts(*_read("rocm_smi_showtoponuma_8gpu_rocm4740.txt", gpu_numa))
    findings = evaluate(facts)
    verdict = ticket_verdict(facts, findings)
    assert verdict.category != "numa_affinity"
    assert "host.numa_memory" not in {f.rule for f in findings}


def test_the_ktransformers_case_reads_its_numastat():
    # https://github.com/kvcache-ai/ktransformers/issues/896: one copy of the weights split over both sockets; the
    # thread's label is host_bound, numa_affinity accepted
    verdict, found = judged_issue(folder=TICKETS / KTRANSFORMERS)
    assert found["host.numa_memory"].evidence[0].measured == 174932
    assert verdict.category in ("host_bound", "numa_affinity")

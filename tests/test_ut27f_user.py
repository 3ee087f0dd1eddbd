"""Defects found by answering real tickets that paste profiler or monitor output, as a performance engineer (session
s27, pass ut27f, issue 11; tests/data/ut27f/SOURCES.md gives each thread's address, the answer it established and the
verdict before and after), fixed in general and tested on the pastes that showed them, on other threads' sentences and
on real near-misses:

- a collective that hangs only under Nsight Compute (ncu serializes kernel launches, so an NCCL kernel waiting for
  its peers never finishes) was answered as a blocked peer-to-peer path, or asked for py-spy dumps
  (claims "profiler_hang", ticket.profiler_hang, the P2P lead lowered in ticket.hang_on_pcie);
- a kernel's share of GPU time said with a verb ("ncclAllReduceRingLLKernel used 13.4% of cuda resources ... for
  model calculation") was read as each GPU's memory filled by the engine's reservation (claims "memory_per_gpu");
- a lead its own rule rated below the lead floor (evidence against its category) was listed as "Also seen" in the
  verdict (rules.engine.verdict);
- a version joined to a tool's name in a pasted command ("nsight-compute-2021.2/ncu ... ./all_reduce_perf") was read as
  a 2021.2 GB/s busbw (issue_md.BARE_FIGURE).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut27f"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def observed(kind: str, text: str) -> bool:
    """Does the reporter state a claim of `kind` in `text` as an observation (not negated, not a guess)?"""
    return any(not c.guess for c in claims.find(said(text), kind))


# --------------------------------------------------------------------------- a hang under Nsight Compute

@pytest.mark.parametrize("name", ["ft114.md", "nccl536.md", "nccltests101.md", "nccl466.md", "nsighttraining4.md"])
def test_a_hang_under_nsight_compute_is_answered_as_the_profiler(name):
    """Each thread's answer: ncu serializes kernel launches, so NCCL kernels cannot be profiled that way (nccl#536
    "yes, it is normal ... ncu will serializes kernel launches"; FasterTransformer#114 "use nsight systems")."""
    r = verdict(name)
    assert r["verdict"]["category"] == "other"
    assert "p2p_disabled" not in r["verdict"]["summary"]  # the stepped-down P2P lead is no "Also seen"
    lead = finding(r, "ticket.profiler_hang")
    assert lead and lead["severity"] == "warning" and lead["confidence"] >= 0.5
    assert "nsys profile" in lead["fix"] and "-k regex:" in lead["fix"]
    assert "nsight-compute/ProfilingGuide" in " ".join(lead["references"])
    p2p = finding(r, "ticket.hang_on_pcie")
    assert p2p is None or p2p["confidence"] <= 0.25  # the blocked-path lead, if any, stays below a verdict
    # nothing asked that the reporter already gave (the run without the profiler completes)
    assert not any("without ncu" in (f.get("ask") or "") for f in r["findings"])


def test_the_ncu_warning_line_alone_is_read():
    """NVIDIA/nsight-training#4: Nsight Compute's own line, quoted by the reporter, says the launch is waiting."""
    assert observed("profiler_hang", "> ==WARNING== Launching the workload is taking more time than expected. If this "
                                     "continues to hang, terminate the profile and re-try by profiling the range of "
                                     "all related launches using '--replay-mode range'.")


@pytest.mark.parametrize("text", [
    # NVIDIA/nccl#750 (first post): a hang with CUDA_LAUNCH_BLOCKING, no profiler
    "It seems to be a regression in v2.13 (2.10 should work) that when I run a simple MLP model (with all reduce) will "
    "hang when CUDA_LAUNCH_BLOCKING is present. The hang happens on all ranks with 100% GPU spinning on something.",
    # NVIDIA/nccl-tests#339 (first post): Nsight Compute on NCCL, an error and no hang
    "Hi, I'm trying to profile the allreduce kernel using Nsight compute to get statistics on occupancy/warp "
    "states/stalls. The larger goal is to compare these stats when the communication is co-located with other "
    "workloads. However, I run into an unhandled error when running the test with allreduce.",
    # NVIDIA/nccl#1063 (comment): a hang, and "profiler hooks" as a way to debug it
    "The hang is persistent and happens randomly after several minutes of 100% load. Currently, we replace GPU pods "
    "one by one to determine who the bad guy is. I guess that we could implement it outside of the library by using "
    "CUDA profiler hooks and tracking the streams.",
    # NVIDIA/nccl#1033 (first post): a hang with some GPUs at 100 % in nvidia-smi
    "But the program hangs up at the end of the training of an epoch, there is no more output, and some GPUs are 100% "
    "occupied, while others are 0%.",
])
def test_hangs_without_nsight_compute_are_no_profiler_hang(text):
    assert not observed("profiler_hang", text)


# --------------------------------------------------------------------------- a kernel's share is not memory

def test_nccl403_kernel_share_is_not_memory_filled_by_design():
    """NVIDIA/nccl#403: 13.4 % of the GPU's time in an NCCL kernel was answered "Each GPU's memory is filled by design";
    sjeaugey's answer is about NCCL's SMs and time (NCCL_MAX_NCHANNELS; desync; interference), never memory."""
    r = verdict("nccl403.md")
    explained = finding(r, "ticket.explained")
    assert explained is None or "memory" not in explained["title"]
    assert not observed("memory_per_gpu", "Through nsys, ncclAllReduceRingLLKernel used 13.4% of cuda resources, "
                                          "which caused the cuda resources for model calculation to be occupied, "
                                          "and the model calculation was time-consuming.")


@pytest.mark.parametrize("text", [
    # the sentences the memory reading was written from (rules.claims comments) keep their reading
    "It uses 90% of the VRAM for a 7B model.",
    "nvidia-smi shows 74 GB used even though the weights are only 15 GB.",
    "It grabs 43 GiB of GPU memory but the model itself should be 26 GB.",
])
def test_memory_said_with_a_verb_is_still_memory(text):
    assert observed("memory_per_gpu", text)


# --------------------------------------------------------------------------- a version in a path is no busbw

def test_a_version_in_a_tool_path_is_no_busbw():
    """NVIDIA/nccl-tests#101: "/usr/local/cuda-9.2/nsight-compute-2021.2/ncu ... ./all_reduce_perf -g 8 -n 1" gave a
    2021.2 GB/s busbw and a "more than NVSwitch can carry" finding."""
    r = verdict("nccltests101.md")
    assert not [m for m in r["facts"].get("measurement", []) if m["metric"] in ("busbw_gbs", "algbw_gbs")]
    assert finding(r, "nccl.busbw") is None


# --------------------------------------------------------------------------- answers left as they were (SOURCES.md)

def test_horovod969_two_machines_topologies_are_not_one_box():
    """horovod/horovod#969: two machines' `topo -m` pasted one after the other ("Faster Machine:" / "Slower one:") were
    read as one box whose GPUs hang off 3 NUMA nodes ("GPU0,1,2,3 on CPUs 0-11" beside "GPU0,1 on CPUs 0-3,8-11"):
    one GPU index placed twice is two machines, so no placement is stated. The thread's answer (alsrgv: dual-root
    servers do better than single-root ones; the slower machine's CPU is a lower grade) is not drawn: no verdict."""
    r = verdict("horovod969.md")
    assert finding(r, "node.numa_placement") is None
    assert r["verdict"]["category"] == "insufficient_data"


def test_one_machines_topology_keeps_its_placement():
    """The faster machine's matrix of the same thread alone (GPU0,1 on CPUs 0-3,8-11, GPU2,3 on CPUs 4-7,12-15): two
    NUMA nodes, stated as before."""
    from diagnose.artifacts import topo
    from diagnose.evidence import Facts

    text = (DATA / "horovod969.md").read_text()
    block = text.split("```")[1]  # the first pasted matrix, "Faster Machine:"
    facts = Facts()
    for rec in topo.parse(block, "faster.txt"):
        facts.add(rec)
    from rules.node_rules import numa_placement
    found = numa_placement(facts)
    assert found and found[0].title.startswith("The GPUs hang off 2 NUMA nodes")

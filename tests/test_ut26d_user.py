"""Defects found by answering real "is my all-reduce bandwidth normal?" threads as a support engineer (session s26,
pass ut26d, tests/data/ut26d; SOURCES.md gives each thread's address, the answer it established and the verdict
before and after), fixed in general and tested on the paste that showed them, on real lines of other threads, and on
real near-misses:

- an MPI launcher called by its path ("/usr/mpi/gcc/openmpi-4.1.7a1/bin/mpirun ... -np 40 -H a:8,...", NVIDIA/nccl
  #1368) was not read as a launcher: the nccl-tests run counted 1 rank on one node, and a 5-node busbw was judged
  against the NVSwitch inside one node (launch.LAUNCHER_PATH);
- a network's rate named right after the figure ("8 V100s and 100Gbps network", NVIDIA/nccl#398) was read as a
  measured all-reduce rate, and judged critical against NVLink (issue_md.NETWORK_AFTER);
- a shortfall tied to a GPUDirect RDMA switch by its pre-2.4 name ("when I set ... NCCL_IB_CUDA_SUPPORT=1, the
  all_reduce_perf result is way worse", NVIDIA/nccl-tests#19) was answered "nothing is broken"
  (ticket_questions._TRANSPORT_OFF);
- a collective-benchmark ticket whose figures are screenshots or linked logs was asked for an engine's launch line,
  batch and CUDA graphs (engine._COLLECTIVE_ASK).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from diagnose.artifacts import issue_md, launch
from diagnose.evidence import Measurement, Workload
from rules.ticket_questions import fault_context

DATA = Path(__file__).parent / "data" / "ut26d"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def nccl_tests_run(line: str) -> Workload:
    return next(w for w in launch.parse(line, "issue.md") if isinstance(w, Workload) and w.framework == "nccl-tests")


def busbw_said(text: str) -> list[float]:
    return [m.value for m in issue_md.parse(text, "issue.md") if isinstance(m, Measurement)
            and m.metric == "busbw_gbs"]


# --------------------------------------------------------------------------- a launcher called by its path

@pytest.mark.parametrize("line, ranks, nodes", [
    # NVIDIA/nccl#1368: five hosts of eight ranks, HPC-X/MLNX_OFED's Open MPI called by its path
    ("/usr/mpi/gcc/openmpi-4.1.7a1/bin/mpirun --allow-run-as-root -np 40 -H 100.64.40.36:8,100.64.40.39:8,"
     "100.64.40.41:8,100.64.40.42:8,100.64.40.43:8  --timestamp-output -x NCCL_SOCKET_IFNAME=bond0 "
     "-x NCCL_ALGO=Ring /root/nccl_apps/nccl-test/all_reduce_perf -b 1M -e 1G -g 1 -f 2", 40, 5),
    # NVIDIA/nccl#398 (zarzen's comment of 2020-10-06): Amazon's Open MPI, one rank on each of two hosts
    ("$ /opt/amazon/openmpi/bin/mpirun -np 2 -H ip-172-31-0-112:1,ip-172-31-13-129:1 -bind-to none -map-by slot "
     "-x NCCL_TREE_THRESHOLD=0 /home/ubuntu/nccl-tests/build/all_reduce_perf -b 8M -e 256M -c 1 -f 2 -n 50", 2, 2),
])
def test_a_launcher_called_by_its_path_is_the_launcher(line, ranks, nodes):
    w = nccl_tests_run(line)
    assert (w.gpu_count, w.nodes) == (ranks, nodes)


def test_a_bare_launcher_reads_as_before():
    """Near-miss: the same line with a bare `mpirun` (NVIDIA/nccl-tests#112's command) was read already."""
    w = nccl_tests_run("mpirun -np 16 -H host1:8,host2:8 -bind-to none -map-by slot -x NCCL_IB_HCA=mlx5_0 "
                       "--allow-run-as-root ./build/all_reduce_perf -b 1G -e 8G -f 2")
    assert (w.gpu_count, w.nodes) == (16, 2)


def test_another_mpi_tool_by_its_path_is_no_launcher():
    """Near-miss: MVAPICH's `mpirun_rsh` is another program; its path is not stripped as mpirun's."""
    assert launch.LAUNCHER_PATH.sub("", "/usr/mpi/gcc/mvapich2/bin/mpirun_rsh -np 2 a b ./x") \
        .startswith("/usr/mpi/gcc/mvapich2/bin/mpirun_rsh")


def test_nccl_1368_five_nodes_are_not_judged_against_nvswitch():
    """The 5-node Ring/Tree figures are the network's: no NVSwitch figure is their reference."""
    r = verdict("nccl1368.md")
    assert r["verdict"]["category"] == "expected_physics"
    assert "NVSwitch" not in r["verdict"]["summary"]
    assert finding(r, "ticket.algorithms_compared")


# --------------------------------------------------------------------------- a network's rate is no measurement

def test_a_network_rate_named_after_the_figure_is_not_measured():
    text = ("I tested NCCL performance on two cloud servers (aws-p3dn instance, which equipped with 8 V100s and "
            "100Gbps network) with nccl-tests.")  # NVIDIA/nccl#398
    assert busbw_said(text) == []


def test_a_network_rate_said_as_measured_stays_measured():
    """Near-miss (a paraphrase of NVIDIA/nccl#700's complaint): a measuring word in the figure's clause keeps a rate
    followed by "network" the test's figure (78 Gb/s = 9.75 GB/s)."""
    assert busbw_said("With nccl-tests between the two nodes I only got 78Gbps network throughput.") == [9.75]


@pytest.mark.parametrize("text, value", [
    # near-misses: a measured rate beside the test's name stays measured
    ("I use nccl-tests on two A100  machines, each machine has 8 *100 Gbps network nic. \n"
     "Bandwidth can reach 600Gbps. Does this bandwidth value meet the expectation?", 75.0),  # NVIDIA/nccl#495
    ("nccl all-reduce between two nodes  only 86GB/s。There is a big gap compared to the theoretical value",
     86.0),  # NVIDIA/nccl#1048
])
def test_a_measured_rate_beside_the_test_stays_measured(text, value):
    assert value in busbw_said(text)


def test_nccl_398_is_no_longer_a_critical_pcie_fallback():
    """Blind, "100Gbps network" was read as a 12.5 GB/s all-reduce and judged critical against NVLink 2; the thread's
    answer is that more ranks per node drive the TCP sockets with more CPU threads. Nothing measured is left in
    the paste to judge, so no verdict."""
    r = verdict("nccl398.md")
    assert r["verdict"]["category"] == "insufficient_data"
    assert not finding(r, "nccl.busbw")


# --------------------------------------------------------------------------- a GPUDirect RDMA switch by its old name

def test_a_shortfall_under_nccl_ib_cuda_support_is_no_normal_behaviour():
    r = verdict("nccltests19.md")
    assert r["verdict"]["category"] != "expected_physics"
    assert not finding(r, "ticket.nothing_broken")


@pytest.mark.parametrize("name", ["NCCL_IB_CUDA_SUPPORT", "NCCL_NET_GDR_READ"])
def test_gdr_switches_are_fault_context(name):
    facts = said(f"With {name}=1 set the all_reduce_perf busbw is way worse than all_gather_perf.")
    from diagnose.evidence import NcclSetting

    facts.add(NcclSetting("issue.md:1", name, "1"))
    assert fault_context(facts) is not None


def test_a_switch_set_to_zero_is_no_fault_context():
    """Near-miss: "NCCL_IB_DISABLE=0" (NVIDIA/nccl-tests#19's words) keeps InfiniBand on: nothing switched off."""
    from diagnose.evidence import NcclSetting

    facts = said("when I set NCCL_IB_DISABLE=0 the all_reduce_perf result is lower than I hoped")
    facts.add(NcclSetting("issue.md:1", "NCCL_IB_DISABLE", "0"))
    assert fault_context(facts) is None


# --------------------------------------------------------------------------- what to attach for a collective test

@pytest.mark.parametrize("name", ["nccltests19.md", "nccl325.md"])
def test_a_collective_ticket_asks_for_the_test_output_not_an_engine_launch(name):
    summary = verdict(name)["verdict"]["summary"]
    assert "nccl-tests output as text" in summary
    assert "CUDA graphs on or off" not in summary


# --------------------------------------------------------------------------- blind answers the tool stands behind

def test_nccltests_130_a_question_without_a_measurement_is_no_fault():
    """How to compute all-to-all bandwidth, asked without a figure: nothing is judged broken."""
    assert verdict("nccltests130.md")["verdict"]["category"] in ("healthy", "insufficient_data")

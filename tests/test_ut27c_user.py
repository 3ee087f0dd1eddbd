"""Defects found by answering real tickets from cloud instances, VMs and containers as a support engineer (session s27,
pass ut27c, tests/data/ut27c; SOURCES.md gives each thread's address, the answer it established and the verdict before
and after), fixed in general and tested on the pastes that showed them, on other real lines, and on real near-misses:

- aws-ofi-nccl's "Unable to register memory (type = 2) ... RC: -22, Error: Invalid argument" got the locked-memory
  fix (ulimit -l); on EFA it is NCCL 2.19+ over the Libfabric of an EFA installer before 1.29.1, and the same line on
  HPE Slingshot had another cause, so the EFA row holds only where the ticket names EFA (a row's `context`);
- a topology or graph XML a cloud image or plugin injects (Azure's NCCL_GRAPH_FILE in /etc/nccl.conf, aws-ofi-nccl's
  static p5.48xl-topo.xml) that does not describe the GPUs the job uses: "XML Import Channel : dev N not found" and
  "Attribute arch of node cpu not found" were read as a generic software error, or not at all;
- "fi_info -p efa ... fi_getinfo: -61 (No data available)" in a container (no EFA device passed in) was not read, and
  "EFA installer version : 1.39.0" was read as NCCL 1.39.0, a too-old-NCCL verdict;
- a bare "p4" beside AWS's instance families ("works fine on p4 and p4de") was read as NVIDIA's Tesla P4 card;
- an init failure the catalog marks as before any traffic still asked for a multi-node NCCL log of the network path.
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from diagnose.artifacts.issue_md import GPU_NAME
from rules import claims

DATA = Path(__file__).parent / "data" / "ut27c"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def error_row(report: dict) -> str | None:
    """The catalog row ticket.known_error names, from its evidence."""
    f = finding(report, "ticket.known_error")
    return f["evidence"][0]["detail"].split("(")[1].split(",")[0] if f else None


# --------------------------------------------------------------------------- GPU memory registration refused (EFA)

def test_ofi584_p4d_register_memory_einval_is_the_efa_installer_and_nccl_mismatch():
    r = verdict("ofi584.md")
    assert r["verdict"]["category"] == "nccl_regression"
    assert error_row(r) == "efa_libfabric_nccl_mismatch"
    fix = finding(r, "ticket.known_error")["fix"]
    assert "1.29.1" in fix and "FI_EFA_SET_CUDA_SYNC_MEMOPS=0" in fix
    assert "ulimit" not in fix  # not the locked-memory limit


def test_awsome203_the_bare_line_names_no_fabric_so_both_causes_are_given():
    """The paste is the error line alone: nothing says EFA, so no EFA verdict, but the fix leads with both causes."""
    r = verdict("awsome203.md")
    assert error_row(r) == "ofi_gpu_memory_refused"
    assert r["verdict"]["category"] == "other"
    fix = finding(r, "ticket.known_error")["fix"]
    assert "EFA installer to 1.29.1" in fix and "Slingshot" in fix and "ulimit" not in fix


def test_perlmutter_near_miss_the_same_line_over_slingshot_is_no_efa_verdict():
    """PRONTOLab/GB-25: the identical RC -22 line on Perlmutter (cxi provider, 'via NET/AWS Libfabric'), fixed by the
    CUDA compat library: the EFA row must not claim it."""
    r = verdict("perlmutter_gb25.md")
    assert error_row(r) == "ofi_gpu_memory_refused"
    assert r["verdict"]["category"] != "nccl_regression"


def test_the_locked_memory_row_keeps_its_own_messages():
    """Near-miss: a verbs registration refused for memory (nccl-tests#206) is still the memlock limit."""
    found = claims.known_errors(said("NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory"))
    assert [c.data["error"].id for c in found] == ["rdma_resources"]


# --------------------------------------------------------------------------- injected topology and graph files

@pytest.mark.parametrize("name", ["nccl1240.md", "azhpc327.md"])
def test_azure_graph_file_for_more_gpus_than_the_job_has(name):
    r = verdict(name)
    assert error_row(r) == "nccl_graph_file_mismatch"
    assert r["verdict"]["category"] == "other"
    fix = finding(r, "ticket.known_error")["fix"]
    assert "NCCL_GRAPH_FILE" in fix and "/etc/nccl.conf" in fix


@pytest.mark.parametrize("name", ["ofi476.md", "awsome519.md"])
def test_p5_static_topology_file_on_a_subset_of_gpus(name):
    r = verdict(name)
    assert error_row(r) == "nccl_topo_file_cpu_attributes"
    assert "aws-ofi-nccl plugin to 1.11" in finding(r, "ticket.known_error")["fix"]
    # an init failure before any traffic: no multi-node log of the network path is asked for
    assert not finding(r, "nccl.gdr")
    assert not finding(r, "workload.evidence_coverage")


def test_ofi476_p4_beside_p4de_is_the_instance_family_not_a_tesla_p4():
    r = verdict("ofi476.md")
    assert "tesla-p4" not in str(r["findings"]) and "tesla-p4" not in str(r["facts"])


# --------------------------------------------------------------------------- EFA not visible in a container

def test_ofi879_fi_getinfo_61_in_a_container_is_the_efa_device_not_passed_in():
    r = verdict("ofi879.md")
    assert error_row(r) == "efa_device_not_visible"
    assert r["verdict"]["category"] == "other"
    assert not finding(r, "nccl.version_floor")  # the EFA installer's 1.39.0 is no NCCL release
    assert "--device=/dev/infiniband/uverbs0" in finding(r, "ticket.known_error")["fix"]


# --------------------------------------------------------------------------- releases of the AWS stack beside NCCL's

@pytest.mark.parametrize("text, versions", [
    # aws/aws-ofi-nccl#879: the EFA installer's release, no NCCL release named
    ("I have followed the tutorial here (https://docs.aws.amazon.com/AWSEC2/latest/UserGuide/efa-start-nccl.html)\n"
     "EFA installer version : 1.39.0", []),
    # aws/aws-ofi-nccl#803: NCCL's line beside the plugin's and Libfabric's
    ("NCCL INFO NCCL version 2.23.4+cuda12.4\nNCCL INFO NET/OFI Initializing aws-ofi-nccl 1.12.1-aws\n"
     "NCCL INFO NET/OFI Using Libfabric version 1.22", ["2.23.4"]),
    # aws/aws-ofi-nccl#64's title: NCCL's release read, the plugin's not
    ("bad performance on two p4 instances (nccl-v2.7.8, aws-ofi-nccl-v1.1.2)", ["2.7.8"]),
])
def test_nccl_versions_leave_the_aws_network_stack_out(text, versions):
    assert claims.nccl_versions(text) == versions


@pytest.mark.parametrize("text, names", [
    ("nccl tested failed on aws p5 nodes but works fine on p4 and p4de", []),  # aws/aws-ofi-nccl#476
    ("bad performance on two p4 instances (nccl-v2.7.8, aws-ofi-nccl-v1.1.2)", []),  # aws/aws-ofi-nccl#64
    # near-miss: the card named as a card
    ("Inference on NVIDIA Tesla P4 GPU is slow ~5.3s", ["P4"]),  # matterport/Mask_RCNN#1270
])
def test_p4_is_the_tesla_card_only_outside_aws_instance_talk(text, names):
    assert [m.group(1) for m in GPU_NAME.finditer(text)] == names


# --------------------------------------------------------------------------- a TCP-only cloud network

def test_nccltests83_azure_tcp_network_is_no_infiniband_fallback():
    """Azure VMs 'connected over TCP/IP', NCCL_IB_DISABLE=1 in the launch line, 1.7 against the 2.5 GB/s expected.
    sjeaugey: NCCL's bandwidth is the slowest socket's times the sockets (more threads/sockets, single-flow tuning); no
    InfiniBand exists to turn back on, so no confident 'unset NCCL_IB_DISABLE'."""
    r = verdict("nccltests83.md")
    assert not finding(r, "nccl.socket_fallback")
    assert finding(r, "ticket.tcp_only")
    assert not (r["verdict"]["category"] == "socket_fallback" and r["verdict"]["confidence"] >= 0.7)


@pytest.mark.parametrize("text, tcp", [
    ("In a VM scale set on Azure connected over TCP/IP, I can get 25Gbps unidirectional bandwidth", True),  # #83
    # near-miss: a process connecting to a port is no network between nodes (NVIDIA/nccl#879's torch log)
    ("The client socket has connected to [10-67-131-4.card-16-final-4509-master-0.aip-svc-85.svc.cluster.local]:23456 "
     "on [10-67-131-4.card-16-final-4509-master-0.aip-svc-85.svc.cluster.local]:54414.", False),
])
def test_a_network_named_tcp_ip_is_ethernet_alone(text, tcp):
    assert bool(claims.find(said(text), "tcp_only")) is tcp


@pytest.mark.parametrize("text, symptom", [
    ("NCCL unable to use full TCP bandwidth in Azure", None),  # NVIDIA/nccl-tests#83's title: a speed, no failure
    ("Cannot access EFA devices from docker container", "error"),  # aws/aws-ofi-nccl#879's title: a failure
])
def test_a_bandwidth_not_used_in_full_is_no_error(text, symptom):
    said_symptom = (claims.symptom_quote(said(text)) or (None, None, None))[2]
    assert (said_symptom if said_symptom == "error" else None) == symptom

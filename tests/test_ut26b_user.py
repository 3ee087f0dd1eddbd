"""Defects found by answering real public threads about hangs, init failures, transports and the NVSwitch fabric as a
support engineer (session s26, pass ut26b, tests/data/ut26b; SOURCES.md gives each thread's address, the answer it
established and the verdict before and after), fixed in general and tested on the pastes that showed them, on real
sentences of other threads, and on real near-misses:

- CUDA's error 802 written by its number ("fails with CUDA 802", "CUDA Error 802"), and the fabric manager's state
  said with a release number inside the sentence ("... (driver 580.126.09 / CUDA 13.0) shows State: In Progress"),
  were not read as the NVSwitch fabric not ready (huggingface/huggingface_hub#4128 was answered `other`);
- a driver change on an NVSwitch board (8x H100 SXM on a P5) was answered with a downgrade and a bug report, not with
  the fabric manager that must match the driver (pytorch/pytorch#129749: the service had failed on the mismatch);
- a RoCE transfer failing with status 12 was answered gdr_disabled from 'via NET/IB' lines without GDRDMA
  (pytorch/pytorch#81628, cured by NCCL_IB_GID_INDEX=3): a job whose transfers fail has no GDR question yet, and the
  ask now names `show_gids` and the GID index;
- a stuck all_reduce_perf (a C/CUDA binary) was asked for a `py-spy dump` (NVIDIA/nccl-tests#200).
"""

from pathlib import Path

import pytest
from conftest import judged_issue, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut26b"


def judged(name: str):
    return judged_issue((DATA / name).read_text())


# --------------------------------------------------------------------------- the pastes, as answered

def test_hfhub_4128_fabric_manager_in_progress_is_the_fabric():
    verdict, findings = judged("hfhub4128.md")
    assert verdict.category == "nvlink_down"
    f = findings["ticket.fabric_setup"]
    assert "nvidia-fabricmanager" in f.fix and "Completed" in f.fix


def test_pytorch_35710_error_802_stays_the_fabric():
    """Held-out check: the thread's fix (the fabric manager, pytorch/pytorch#35710 comment 901013741) kept."""
    verdict, _ = judged("pytorch35710.md")
    assert verdict.category == "nvlink_down"


def test_pytorch_129749_driver_change_on_an_nvswitch_board_asks_for_the_fabric_manager_first():
    r = report_json("ticket", str(DATA / "pytorch129749.md"))
    f = next(f for f in r["findings"] if f["rule"] == "ticket.driver_change")
    assert f["fix"].startswith("First check `systemctl status nvidia-fabricmanager`")
    assert "535.161.08" in f["title"] and "550.54.15" in f["title"]
    # the board is named with where it came from: the instance type's catalog row
    board = f["evidence"][1]
    assert "NVSwitch board" in board["detail"] and "P5 instance" in board["source"]


def test_a_driver_change_without_an_nvswitch_board_keeps_the_plain_fix():
    """Near-miss, vllm-project/vllm#1801: a driver update breaking TP on a workstation (no NVSwitch GPU named)."""
    _, findings = judged_issue(
        "# Nvidia drivers 545.29.02 broken --tensor-parallel-size\n\nI just upgraded my drivers to 545.29.02 and it "
        "has broken being able to run models larger than a single GPU ram for me with vLLM.\n\nIf I pass in "
        "`--tensor-parallel-size 2`, things just hang when trying to create the engine.\n")
    f = findings.get("ticket.driver_change")
    assert f is not None and "fabricmanager" not in f.fix and "fabric manager" not in f.summary


def test_pytorch_81628_a_failing_roce_transfer_is_no_gdr_verdict():
    verdict, findings = judged("pytorch81628.md")
    assert verdict.category == "insufficient_data"
    gdr = findings["nccl.gdr"]
    assert gdr.severity == "info" and gdr.confidence <= 0.3
    ask = findings["ticket.ib_transfer_error"]
    assert "show_gids" in ask.ask and "GID index" in ask.summary
    assert any(e.detail == "the NIC's link layer" and e.measured == "RoCE" for e in ask.evidence)


def test_nccl_426_roce_from_the_ports_link_layer():
    """ibv_devinfo's 'link_layer: Ethernet' is RoCE (rdma-core's ibv_devinfo): the GID index is asked for."""
    verdict, findings = judged("nccl426.md")
    assert verdict.category == "insufficient_data"
    ask = findings["ticket.ib_transfer_error"]
    assert "show_gids" in ask.ask
    assert any(e.measured == "Ethernet (RoCE)" for e in ask.evidence)
    # an all_reduce_perf error: no PyTorch to run collect_env for
    assert "collect_env" not in verdict.summary and "failing all_reduce_perf" in verdict.summary


def test_the_same_log_without_its_failure_keeps_the_gdr_finding():
    """Control: the pytorch#81628 lines without the failed transfer still say GDR is not used, as before."""
    text = "\n".join(line for line in (DATA / "pytorch81628.md").read_text().splitlines()
                     if "Got completion" not in line)
    _, findings = judged_issue(text)
    gdr = findings["nccl.gdr"]
    assert gdr.category == "gdr_disabled" and gdr.severity == "warning" and gdr.confidence == 0.6


def test_a_transfer_error_without_roce_named_is_not_asked_for_gids():
    """Near-miss, NVIDIA/nccl#1405 (a comment's log): status 12 with no 'NET/IB : Using ... /RoCE' line: the link
    layer is not shown, so no GID sentence and no show_gids ask."""
    _, findings = judged_issue(
        "Also get vendor err 129, then 249:\n```\nkp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : "
        "Got completion from peer 10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv) localGid "
        "fd00:1148:9000:5000:4:200:3:ff22 remoteGidsfd00:1148:9000:5000:4:200:3:ff1f\nkp-ddp-worker-0:3468:3905 [4] "
        "NCCL INFO transport/net.cc:1302 -> 6\n```\n")
    ask = findings["ticket.ib_transfer_error"]
    assert "show_gids" not in ask.ask and "GID index" not in ask.summary


def test_nccl_tests_200_a_stuck_all_reduce_perf_is_not_asked_for_py_spy():
    verdict, findings = judged("nccltests200.md")
    assert verdict.category == "insufficient_data"
    assert "py-spy" not in verdict.summary
    assert "gdb -p <pid>" in verdict.summary and "MLNX_OFED / HPC-X" in verdict.summary


def test_a_python_hang_still_asks_for_py_spy():
    """Near-miss, pytorch/pytorch#75658: a torch.distributed hang is Python: py-spy reads it."""
    from conftest import said as words

    from rules.engine import NCCL_TESTS_HANG_ASK, symptom_ask

    python = words("`torch.distributed.init_process_group` hangs with 4 gpus with `backend=\"NCCL\"` but not "
                   "`\"gloo\"`. Running a torch.distributed process on multiple 4 NVIDIA A100 80G gpus using `NCCL` "
                   "backend hangs.")
    assert "py-spy dump" in symptom_ask(python)
    binary = judged_issue((DATA / "nccltests200.md").read_text())
    assert NCCL_TESTS_HANG_ASK in binary[0].summary


def test_nccl_769_gid_index_error_names_the_gid_index():
    """Held-out check: the known ibv_modify_qp message's fix points at the GID index and show_gids."""
    _, findings = judged("nccl769.md")
    f = findings["ticket.known_error"]
    assert "NCCL_IB_GID_INDEX" in f.fix and "show_gids" in f.fix


@pytest.mark.parametrize("name", ["nanogpt55.md"])
def test_no_evidence_stays_undecided(name):
    """karpathy/nanoGPT#55 was cured by NCCL_IB_DISABLE=1; nothing in the paste shows the network."""
    verdict, _ = judged(name)
    assert verdict.category == "insufficient_data"


# --------------------------------------------------------------------------- the words, on other threads

def fabric(text: str) -> bool:
    return bool([c for c in claims.find(said(text), "fabric_setup") if not c.negated])


@pytest.mark.parametrize("text", [
    # huggingface/huggingface_hub#4128
    "The Fabric Manager state at job start on h200x4 (cu130-nightly, driver 580.126.09 / CUDA 13.0) shows State: In "
    "Progress, Status: N/A, GPU Fabric GUID: N/A.",
    "vLLM at TP=1 on h200x4 also fails with CUDA 802 (CUDA_VISIBLE_DEVICES=0, tensor_parallel_size=1, "
    "Qwen/Qwen2.5-0.5B, same traceback at cudaGetDeviceCount).",
    # huggingface/huggingface_hub#4134
    "[warmup] fabric manager never reported Completed; trying anyway",
    # pytorch/pytorch#35710
    "THCudaCheck FAIL file=/opt/conda/conda-bld/pytorch_1579022034529/work/aten/src/THC/THCGeneral.cpp line=50 "
    "error=802 : system not yet initialized",
])
def test_fabric_not_ready_in_words(text):
    assert fabric(text)


@pytest.mark.parametrize("text", [
    # NVIDIA/nccl#2150: a RoCE LAG's bonding mode, IEEE 802.3ad
    "Bonding Mode: IEEE 802.3ad Dynamic link aggregation",
    "802.3ad info",
    # NVIDIA/nccl#1015: a bonded RoCE NIC, no fabric manager
    "Our RoCE bonding network bandwidth can reach 180+ GB/s on each single NIC(mlx5_bond_x) when using ib_write_bw "
    "tool.",
])
def test_other_802s_are_not_cuda(text):
    assert not fabric(text)


# --------------------------------------------------------------------------- the GID table beside a RoCE failure

def test_nccl_769_the_gid_table_names_the_routable_index():
    """NVIDIA/nccl#769: ibv_devinfo -v's GID table beside 'Call to ibv_modify_qp failed': index 3 is the RoCE v2 GID
    of the NIC's IPv4 address, 0 and 1 are link-local (the thread's answer: index 1 is link-local, not routed)."""
    _, findings = judged("nccl769.md")
    f = findings["ticket.roce_gid"]
    assert f.title == "The pasted GID table: index 3 is the RoCE v2 GID of 200.0.209.6; 0, 1 link-local"
    assert "NCCL_IB_GID_INDEX=3" in f.fix
    assert [e.expected for e in f.evidence] == ["routable", "link-local"]


def test_a_forced_link_local_gid_index_is_the_cause():
    """The same paste with the index the reporter set ('when set GID Index to 1') as NCCL reads it, the env var."""
    text = (DATA / "nccl769.md").read_text().replace("to run all_reduce_perf", "to run all_reduce_perf "
                                                     "(NCCL_IB_GID_INDEX=1)")
    _, findings = judged_issue(text)
    f = findings["ticket.roce_gid"]
    assert f.severity == "warning" and f.title == "NCCL_IB_GID_INDEX=1 names a link-local GID"
    assert "fe80::ac0:ebff:feda:1cfb" in f.summary and "NCCL_IB_GID_INDEX=3" in f.fix


SHOW_GIDS_1131 = """$ show_gids
DEV     PORT    INDEX   GID                                     IPv4            VER     DEV
---     ----    -----   ---                                     ------------    ---     ---
mlx5_0  1       0       fe80:0000:0000:0000:a288:c2ff:fe5b:03ec                 v1      ens3np0
mlx5_0  1       1       fe80:0000:0000:0000:a288:c2ff:fe5b:03ec                 v2      ens3np0
mlx5_0  1       2       0000:0000:0000:0000:0000:ffff:0b00:0048 11.0.0.72       v1      ens3np0
mlx5_0  1       3       0000:0000:0000:0000:0000:ffff:0b00:0048 11.0.0.72       v2      ens3np0
"""


def test_show_gids_rows_are_read():
    """NVIDIA/nccl#1131's show_gids: index 3 (v2, 11.0.0.72) routable, 0 and 1 link-local."""
    rows = claims.gid_table(said(SHOW_GIDS_1131))
    assert [(r["index"], r["version"], r["ipv4"], r["link_local"]) for r in rows] == [
        (0, "v1", None, True), (1, "v2", None, True), (2, "v1", "11.0.0.72", False), (3, "v2", "11.0.0.72", False)]


def test_a_gid_table_without_a_failure_says_nothing():
    """Near-miss, NVIDIA/nccl#1131: the table and a forced routable index (3), no failing connection in the paste."""
    _, findings = judged_issue("NCCL does not work with GID 3 or 1 (RoCEv2), but work with GID 0.\n\n```\n"
                               + SHOW_GIDS_1131 + "```\n\n-x NCCL_IB_GID_INDEX=3\n")
    assert "ticket.roce_gid" not in findings

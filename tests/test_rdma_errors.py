"""NCCL's InfiniBand/RoCE failures by family (issue 11), read from NCCL's own strings (src/misc/ibvwrap.cc wraps every
verbs call: "Call to <ibv_call> failed[ with error <strerror>]"; src/transport/net_ib/*.cc: "NET/IB : Unable to open
device", "Got completion from peer ... with status=...") and each landing in one category whether the line comes in an
attached NCCL log, a block pasted in the issue or a sentence:
- the NIC unusable at start (ibv_open_device) -> NCCL on sockets (socket_fallback);
- memory or queues refused (ibv_reg_mr*, ibv_create_qp/cq) -> the locked-memory limit (other, catalog rdma_resources);
- the queue pair refused (ibv_modify_qp) -> NCCL's own hints, cross-rail NICs or the GID index (other, rdma_qp_connect);
- a failed transfer (Got completion ... with error N) -> no cause named; the fabric checks are asked for."""

import pytest
from conftest import judged_issue

from diagnose.artifacts import nccl_log
from diagnose.evidence import NcclEvent

# NCCL's lines as public threads quote them (each prefixed as NCCL prints it)
RESOURCES = [
    # https://github.com/NVIDIA/nccl-tests/issues/206 (ulimit -l was 8192 under mpirun)
    "node1:1:1 [0] misc/ibvwrap.cc:278 NCCL WARN Call to ibv_reg_mr_iova2 failed with error Cannot allocate memory",
    # https://github.com/NVIDIA/nccl/issues/562 (slurm + pyxis)
    "hai-a100-3:3778851:3779883 [4] ibvwrap.c:130 NCCL WARN Call to ibv_create_qp failed",
    # https://github.com/NVIDIA/nccl/issues/1129 (docker)
    "node08:6561:6620 [0] misc/ibvwrap.cc:280 NCCL WARN Call to ibv_create_qp failed",
    # https://github.com/NVIDIA/nccl/issues/380
    "spark01:2683:2826 [0] misc/ibvwrap.cc:268 NCCL WARN Call to ibv_create_cq failed",
]
# https://github.com/NVIDIA/nccl-tests/issues/185
QP_CONNECT = "dgxh100-3:2152176:2152299 [0] misc/ibvwrap.cc:187 NCCL WARN Call to ibv_modify_qp failed with error " \
             "Network is unreachable"
HEAD = "# all-reduce across two nodes fails at init\n\nTorch DDP on 2 nodes x 8 A100 in docker stops at NCCL init.\n\n"


def _three_forms(tmp_path, line: str):
    """(verdict, rules) of the line in an attached log, in a block pasted in an issue, and quoted in a sentence."""
    att = tmp_path / "att"
    att.mkdir()
    (att / "issue.md").write_text(HEAD)
    (att / "nccl.log").write_text("node1:1:1 [0] NCCL INFO NET/IB : Using [0]mlx5_0:1/IB ; OOB ib0:10.0.0.1<0>\n"
                                  f"{line}\nnode1:1:1 [0] NCCL INFO transport/net_ib.cc:360 -> 2\n")
    return [judged_issue(folder=att), judged_issue(HEAD + f"```\n{line}\n```\n"),
            judged_issue(HEAD.replace("init.", f'init; the log says "{line.split("] ", 1)[1]}".'))]


@pytest.mark.parametrize("line", RESOURCES)
def test_resources_refused_is_the_memlock_limit_in_every_form(tmp_path, line):
    for verdict, rules in _three_forms(tmp_path, line):
        assert rules["ticket.known_error"].title.endswith("rdma resources")
        assert verdict.category == "other"
        assert "ulimit -l" in rules["ticket.known_error"].fix
        assert "nccl.socket_fallback" not in rules  # the NIC was opened: no fallback to sockets


def test_queue_pair_refused_gives_nccls_own_hints(tmp_path):
    for verdict, rules in _three_forms(tmp_path, QP_CONNECT):
        assert rules["ticket.known_error"].title.endswith("rdma qp connect")
        assert verdict.category == "other"
        assert "NCCL_CROSS_NIC=0" in rules["ticket.known_error"].fix


def test_nic_unusable_at_start_is_still_sockets():
    """shared ticket 030 (NVIDIA/nccl#451): ibv_open_device failed, so NCCL used sockets; the unusable-device lines
    stay the socket fallback's, not a resource row."""
    def kinds(line):
        return {e.kind for e in nccl_log.parse(line, "nccl.log") if isinstance(e, NcclEvent)}

    assert "ib_unavailable" in kinds("host:1:1 [0] misc/ibvwrap.cc:212 NCCL WARN Call to ibv_open_device failed")
    assert "ib_unavailable" in kinds("host:1:1 [0] transport/net_ib.cc:148 NCCL WARN NET/IB : Unable to open device "
                                     "mlx5_bond_0")
    for line in RESOURCES + [QP_CONNECT]:
        assert "ib_unavailable" not in kinds(line)


@pytest.mark.parametrize("text", [
    HEAD + "There is no `Call to ibv_create_qp failed` in any rank's log; it just hangs.",
    HEAD + "Could it be a memlock problem, like Call to ibv_reg_mr failed?",
])
def test_a_line_ruled_out_or_asked_about_is_no_error(text):
    _, rules = judged_issue(text)
    assert "ticket.known_error" not in rules


@pytest.mark.parametrize("line, status", [
    # https://github.com/NVIDIA/nccl/issues/1405 (2.19+ wording)
    ("kp-ddp-worker-0:3468:3905 [4] ib_plugin.c:1615 NCCL WARN NET/IB : Got completion from peer "
     "10.216.210.236<54862> with status=12 opcode=0 len=0 vendor err 129 (Recv)", "12"),
    # https://github.com/NVIDIA/nccl/issues/214 (before 2.12)
    ("node:1:1 [0] transport/net_ib.cu:788 NCCL WARN NET/IB : Got completion with error 4, opcode 1, len 21938, "
     "vendor err 81", "4"),
    # https://github.com/NVIDIA/nccl/issues/1710 (a NIC event, no status)
    ("node201:127799:127863 [0] transport/net_ib.cc:101 NCCL WARN NET/IB : mlx5_0:1 Got async event : local access "
     "violation work queue error", None),
])
def test_a_failed_transfer_names_no_cause_and_asks_for_the_fabric(tmp_path, line, status):
    for verdict, rules in _three_forms(tmp_path, line):
        assert "ticket.known_error" not in rules
        f = rules["ticket.ib_transfer_error"]
        assert "ib_write_bw" in f.fix and verdict.category == "insufficient_data"
        assert (f"status {status}," in f.summary) == bool(status)


def test_a_system_error_naming_a_verbs_call_is_no_shm_lead():
    """nccl-tests#206 forced IB on one node inside a container: 'unhandled system error' beside the failing verbs
    call is that call's, not /dev/shm's."""
    text = ("# nccl-tests on one node, IB forced\n\nRunning all_reduce_perf in a docker container on a single node "
            "with NCCL_SHM_DISABLE=1.\n\n```\n" + RESOURCES[0] + "\nTest NCCL failure common.cu:958 'unhandled "
            "system error'\n```\n")
    verdict, rules = judged_issue(text)
    assert "ticket.system_error_in_container" not in rules
    assert verdict.category == "other"

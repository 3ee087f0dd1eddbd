"""Ticket words the user tester found misread after the ut6 run (fix h16): a setting the reporter says is off read
as in use. Each is tried on the reporter's sentence, paraphrases written here and a negation."""

import pytest
from test_ticket_failure_rules import fired
from test_transport_words import issue_verdict

from diagnose.artifacts import launch
from diagnose.evidence import NcclSetting

# --------------------------------------------------------------------------- 1. a setting said to be off

IB_LOG = ("the log shows `NET/IB : Using [0]mlx5_0:1/IB [1]mlx5_1:1/IB` and `via NET/IB/0/GDRDMA` on every channel. "
          "all_reduce_perf across both nodes: busbw 360 GB/s at 8 GB. Is this normal?\n")


@pytest.mark.parametrize("said", [
    "We do not set NCCL_IB_DISABLE=1;",  # the reporter's sentence
    "NCCL_IB_DISABLE=1 is not set;",
    "We never use NCCL_IB_DISABLE=1;",
    "We removed NCCL_IB_DISABLE=1;",
    "We don't export `NCCL_IB_DISABLE=1` anywhere;",
])
def test_an_ib_setting_said_to_be_off_is_not_a_socket_fallback(tmp_path, said):
    assert not [r for r in launch.parse(said, "issue.md") if isinstance(r, NcclSetting)]
    answer, findings = issue_verdict(tmp_path, "Two DGX H100 nodes. " + said + " " + IB_LOG)
    assert not fired(findings, "nccl.socket_fallback") and answer.category != "socket_fallback"


@pytest.mark.parametrize("said", [
    "We do not set NCCL_P2P_DISABLE=1 on this box.",
    "NCCL_P2P_DISABLE=1 is not set anywhere.",
    "We removed NCCL_P2P_DISABLE=1 last week.",
])
def test_a_p2p_setting_said_to_be_off_is_not_p2p_disabled(tmp_path, said):
    assert not [r for r in launch.parse(said, "issue.md") if isinstance(r, NcclSetting)]
    _, findings = issue_verdict(tmp_path, "Two DGX H100 nodes. " + said + " " + IB_LOG)
    assert not fired(findings, "topology.p2p_forced_off")
    assert not [f for f in findings if f.category == "p2p_disabled" and f.severity != "ok"]


@pytest.mark.parametrize("said", ["We set NCCL_IB_DISABLE=1 on both nodes;", "export NCCL_IB_DISABLE=1;"])
def test_a_setting_said_in_use_is_still_read(tmp_path, said):
    assert [r.value for r in launch.parse(said, "issue.md") if isinstance(r, NcclSetting)] == ["1"]
    _, findings = issue_verdict(tmp_path, "Two DGX H100 nodes. " + said.replace("IB", "P2P") + " " + IB_LOG)
    assert fired(findings, "topology.p2p_forced_off")

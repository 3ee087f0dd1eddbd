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


# --------------------------------------------------------------------------- 2. one P2P workaround, one judgment

L4_HANG = "4x L4 on one bare-metal server. vLLM --tensor-parallel-size 4 hangs at startup. "


def _p2p_judged(findings):
    return {(f.rule, f.severity) for f in findings if f.category in ("p2p_disabled", "virtualization_no_p2p")
            and f.rule in ("topology.p2p_forced_off", "ticket.setting_works_around")}


@pytest.mark.parametrize("said", [
    "It only works with NCCL_P2P_DISABLE=1.",
    "With NCCL_P2P_DISABLE=1 it launches every time.",  # the reporter's sentence
    "With NCCL_P2P_DISABLE=1 it starts fine.",
    "Once NCCL_P2P_DISABLE=1 is exported the server comes up reliably.",
])
def test_a_p2p_workaround_gets_one_severity_whatever_the_wording(tmp_path, said):
    answer, findings = issue_verdict(tmp_path, L4_HANG + said + "\n")
    assert _p2p_judged(findings) == {("topology.p2p_forced_off", "critical"),
                                      ("ticket.setting_works_around", "critical")}
    assert answer.category == "p2p_disabled"
    assert not [f for f in findings if f.fix.startswith("Unset NCCL_P2P_DISABLE")]


@pytest.mark.parametrize("said", [
    "With NCCL_P2P_DISABLE=1 it does not launch either.",
    "Even with NCCL_P2P_DISABLE=1 it never starts fine.",
])
def test_a_p2p_setting_that_does_not_make_it_launch_is_no_workaround(tmp_path, said):
    _, findings = issue_verdict(tmp_path, L4_HANG + said + "\n")
    assert not fired(findings, "ticket.setting_works_around")


@pytest.mark.parametrize("said", [
    "Setting NCCL_P2P_DISABLE=1 did not help, it still hangs.",  # the reporter's sentence
    "NCCL_P2P_DISABLE=1 made no difference: still hangs.",
    "We exported NCCL_P2P_DISABLE=1 and it still hangs.",
])
def test_p2p_switched_off_without_effect_lowers_the_p2p_lead(tmp_path, said):
    answer, findings = issue_verdict(tmp_path, L4_HANG + said + "\n")
    assert not fired(findings, "ticket.setting_works_around")
    if "exported" not in said:  # tried and said of no help: not the job's setting; exported: in use, still judged
        assert not fired(findings, "topology.p2p_forced_off")
    (hang,) = [f for f in findings if f.rule == "ticket.hang_on_pcie"]
    assert hang.severity == "info" and hang.confidence < 0.5 and "NCCL_P2P_DISABLE=1" not in hang.fix
    assert answer.category != "p2p_disabled"


def test_a_hang_without_p2p_tried_keeps_p2p_the_first_suspect(tmp_path):
    _, findings = issue_verdict(tmp_path, L4_HANG + "NCCL 2.21, driver 550.\n")
    (hang,) = [f for f in findings if f.rule == "ticket.hang_on_pcie"]
    assert hang.severity == "warning" and "NCCL_P2P_DISABLE=1" in hang.fix


@pytest.mark.parametrize("where", ["4x L4 in one VM on GCP", "4x L4 in a KVM virtual machine"])
def test_a_p2p_workaround_in_a_vm_is_the_hypervisor_and_its_fix_one_a_tenant_can_do(tmp_path, where):
    answer, findings = issue_verdict(tmp_path, where + ", vLLM with --pipeline-parallel-size 4. It hangs at startup. "
                                     "With NCCL_P2P_DISABLE=1 it launches every time.\n")
    judged = [f for f in findings if f.rule in ("topology.p2p_forced_off", "ticket.setting_works_around")
              and f.severity != "ok"]
    assert judged and {f.category for f in judged} == {"virtualization_no_p2p"}
    assert all("hypervisor" in f.fix and "iommu=pt" not in f.fix for f in judged)
    assert answer.category == "virtualization_no_p2p"

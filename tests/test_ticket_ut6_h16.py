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


@pytest.mark.parametrize("said", ["We set NCCL_IB_DISABLE=1;", "export NCCL_IB_DISABLE=1;"])
def test_nccl_quoted_on_infiniband_contradicts_a_socket_fallback(tmp_path, said):
    _, findings = issue_verdict(tmp_path, "Two DGX H100 nodes. " + said + " " + IB_LOG)
    assert not fired(findings, "nccl.socket_fallback")


@pytest.mark.parametrize("said", ["We set NCCL_IB_DISABLE=1;", "export NCCL_IB_DISABLE=1;"])
def test_the_ib_setting_without_nccl_quoted_on_infiniband_is_still_the_socket_fallback(tmp_path, said):
    answer, findings = issue_verdict(tmp_path, "Two DGX H100 nodes. " + said + " all_reduce_perf across both nodes: "
                                     "busbw 12 GB/s at 8 GB.\n")
    assert fired(findings, "nccl.socket_fallback") and answer.category == "socket_fallback"

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


# --------------------------------------------------------------------------- 6. bad input is exit 2 in ticket too


@pytest.mark.parametrize("value", ["nan", "inf", "-inf", '"nan"'])
@pytest.mark.parametrize("command", ["ticket", "scaling"])
def test_a_measured_value_that_is_no_number_is_bad_input(tmp_path, value, command):
    from conftest import diagnose

    (tmp_path / "ticket.toml").write_text(f'[[measured]]\nmetric="decode_tok_s"\nvalue={value}\ntp=1\n'
                                          '[hardware]\ngpu="H100 SXM"\n[workload]\nmodel="llama-3-8b"\n')
    result = diagnose(command, tmp_path / "ticket.toml" if command == "scaling" else tmp_path)
    assert result.exit_code == 2 and "decode_tok_s" in result.stderr and "finite" in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1


def test_a_finite_measured_value_still_reads(tmp_path):
    from conftest import diagnose

    (tmp_path / "ticket.toml").write_text('[[measured]]\nmetric="decode_tok_s"\nvalue=95.0\ntp=1\n'
                                          '[hardware]\ngpu="H100 SXM"\n[workload]\nmodel="llama-3-8b"\n')
    assert diagnose("ticket", tmp_path, "--json").exit_code in (0, 1)


@pytest.mark.parametrize("name, data", [("empty.sqlite", b""), ("x.nsys-rep", b"hello\n"),
                                        ("run.sqlite", b"not a database\n"), ("old.qdrep", b"")])
def test_a_capture_named_on_the_command_line_that_is_none_is_bad_input(tmp_path, name, data):
    from conftest import diagnose

    (tmp_path / name).write_bytes(data)
    result = diagnose("ticket", tmp_path / name)
    assert result.exit_code == 2 and name in result.stderr and "not an nsys SQLite export" in result.stderr
    # the same file inside a ticket folder is one unreadable attachment among others, listed in the answer
    (tmp_path / "issue.md").write_text("Two nodes of 8x H100, all_reduce busbw 360 GB/s. Is this normal?\n")
    assert diagnose("ticket", tmp_path, "--json", "--fail-on", "never").exit_code == 0


# --------------------------------------------------------------------------- 8. a title question is a guess

REASONS = ("nvidia-smi -q says HW Slowdown : Not Active, SW Thermal Slowdown : Not Active, SW Power Cap : Active "
           "while running vLLM at full load on one L4{limit}. Llama-3-8B, 14 tok/s batch 1. Is my GPU throttling?\n")


def _titled(tmp_path, title, body, verdict=False):
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate, ticket_verdict

    (tmp_path / "issue.md").write_text(f"# {title}\n\n{body}")
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    return (ticket_verdict(facts, findings), findings) if verdict else findings


@pytest.mark.parametrize("title", ["throttling?", "Power cap?", "GPU throttling issue?", "NCCL bug?"])
def test_a_bare_question_is_a_guess(title):
    from rules import claims

    assert claims._guessed("# " + title) and claims._guessed(title)


@pytest.mark.parametrize("title", ["Why so slow?", "The GPU is throttling at 72 W under load and decode is slow"])
def test_a_why_question_or_a_statement_is_no_guess(title):
    from rules import claims

    assert not claims._guessed(title)


@pytest.mark.parametrize("title", ["throttling?", "power cap?", "thermal throttling maybe?"])
def test_the_cited_clock_reason_is_the_active_one_not_the_title(tmp_path, title):
    findings = _titled(tmp_path, title, REASONS.format(limit=""))
    (f,) = [f for f in findings if f.rule == "ticket.clock_power"]
    assert "SW Power Cap : Active" in f.evidence[0].detail and title not in f.evidence[0].detail


@pytest.mark.parametrize("limit", [" (72 W limit)", " with its 72 W power limit", " (power limit is 72 W)"])
def test_sw_power_cap_at_the_rated_limit_under_load_is_by_design(tmp_path, limit):
    findings = _titled(tmp_path, "throttling?", REASONS.format(limit=limit))
    (f,) = [f for f in findings if f.rule == "ticket.clock_power"]
    assert f.category == "expected_physics" and f.severity == "info"
    assert [(e.measured, e.expected) for e in f.evidence if e.unit == "W"] == [(72.0, 72.0)]


def test_sw_power_cap_at_a_lowered_limit_is_still_throttling(tmp_path):
    findings = _titled(tmp_path, "throttling?", REASONS.format(limit=" (power limit set to 40 W)"))
    assert {f.category for f in findings if f.rule in ("ticket.clock_power", "ticket.power_limit")
            and f.severity != "ok"} == {"throttling"}


def test_hw_slowdown_beside_the_power_cap_is_no_design_limit(tmp_path):
    body = REASONS.format(limit=" (72 W limit)").replace("HW Slowdown : Not Active", "HW Slowdown : Active")
    findings = _titled(tmp_path, "throttling?", body)
    (f,) = [f for f in findings if f.rule == "ticket.clock_power"]
    assert f.category == "throttling"


# --------------------------------------------------------------------------- minor: nothing measured yet

ASKED = ("Someone on Discord said a RTX 3060 12GB should give about 24.61 tokens/s eval rate on mistral 7B q4_0 "
         "with ollama. Is that right? {said}\n")


@pytest.mark.parametrize("said", [
    "I have not tried yet.",  # the reporter's sentence
    "We haven't tested it so far.",
    "I'm planning to buy one next month.",
    "I didn't run it yet, the card arrives Friday.",
])
def test_a_question_before_anything_ran_is_not_called_healthy(tmp_path, said):
    answer, findings = _titled(tmp_path, "RTX 3060 12GB ollama mistral", ASKED.format(said=said), verdict=True)
    assert answer.category == "insufficient_data"
    (f,) = [f for f in findings if f.rule == "ticket.nothing_broken"]
    assert f.category == "insufficient_data" and "measured figure" in f.fix


@pytest.mark.parametrize("said", ["I tried it and it works as described.", "Have you tried it yet?"])
def test_a_question_after_a_run_is_still_answered(tmp_path, said):
    answer, findings = _titled(tmp_path, "RTX 3060 12GB ollama mistral", ASKED.format(said=said), verdict=True)
    assert [f.category for f in findings if f.rule == "ticket.nothing_broken"] == ["healthy"]
    assert answer.category == "healthy"

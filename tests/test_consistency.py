"""The same evidence gives the same verdict category, severity and exit code in every command.

`capture`, `scaling` and `ticket` each read the bundled TP=8 capture whose recorded launch line
sets NCCL_P2P_DISABLE=1 and whose all-reduce runs at PCIe speed: each must lead with the setting
(the cause the evidence shows), as critical, and exit 1 under the default --fail-on. The healthy
TP=4 capture must give no critical finding and exit 0 in each of them.
"""

from __future__ import annotations

import json
import re
import shutil

import pytest
from click.testing import CliRunner
from conftest import REPO, shared_path

from diagnose.cli import cli

SAMPLES = REPO / "samples" / "captures"
PCIE = SAMPLES / "tp8_pcie_fallback.sqlite"
HEALTHY = SAMPLES / "tp4_nvlink_healthy.sqlite"


def _run(*args):
    result = CliRunner().invoke(cli, [str(a) for a in args] + ["--json"], prog_name="diagnose")
    assert result.exit_code in (0, 1), (args, result.exit_code, result.stderr)
    return json.loads(result.stdout), result.exit_code


def _lead(report):
    top = report["findings"][0]
    return report["verdict"]["category"], top["category"], top["severity"]


@pytest.fixture(scope="module")
def broken():
    # scaling needs two layouts; the healthy TP=4 file beside the broken TP=8 one adds no problem
    return {"capture": _run("capture", PCIE), "ticket": _run("ticket", PCIE), "scaling": _run("scaling", HEALTHY, PCIE)}


def test_broken_allreduce_same_cause_severity_and_exit_code(broken):
    seen = {cmd: (_lead(report), code) for cmd, (report, code) in broken.items()}
    # H100 SXM (the capture names it): an NVSwitch board, so P2P off means SHM instead of NVLink
    assert set(seen.values()) == {(("shm_fallback", "shm_fallback", "critical"), 1)}, seen


def test_the_cause_cites_the_launch_line_and_the_measurement(broken):
    for cmd, (report, _) in broken.items():
        top = report["findings"][0]
        sources = " ".join(e["source"] for e in top["evidence"])
        assert "META_DATA_CAPTURE" in sources, (cmd, sources)  # the recorded launch line
        assert "The measurement agrees" in top["summary"], (cmd, top["summary"])


def test_healthy_capture_exits_zero_everywhere():
    for cmd in ("capture", "ticket"):
        report, code = _run(cmd, HEALTHY)
        assert code == 0, cmd
        assert not any(f["severity"] == "critical" for f in report["findings"]), cmd


STRAGGLER = sorted(SAMPLES.glob("straggler_rank*.sqlite"))


@pytest.fixture(scope="module")
def straggler_folder(tmp_path_factory):
    # a ticket folder holding one run's per-rank exports, as a reporter attaches them
    folder = tmp_path_factory.mktemp("straggler-ticket")
    for f in STRAGGLER:
        shutil.copyfile(f, folder / f.name)
    return folder


def test_per_rank_exports_give_the_straggler_in_capture_and_ticket(straggler_folder):
    assert len(STRAGGLER) == 4
    runs = {"capture": _run("capture", *STRAGGLER), "ticket files": _run("ticket", *STRAGGLER),
            "ticket folder": _run("ticket", straggler_folder)}
    seen = {cmd: (_lead(report), code) for cmd, (report, code) in runs.items()}
    assert set(seen.values()) == {(("straggler", "straggler", "critical"), 1)}, seen
    # the same checks ran on the same evidence: ticket judges the captures as capture does
    rules = {cmd: sorted({f["rule"] for f in report["findings"]}) for cmd, (report, _) in runs.items()}
    assert rules["ticket files"] == rules["capture"] == rules["ticket folder"], rules


def test_ticket_on_a_capture_runs_the_capture_checks_capture_runs():
    # capture.allreduce_fabric needs the prediction for the recorded model: ticket makes it too
    rules = {cmd: {f["rule"]: f["severity"] for f in _run(cmd, PCIE)[0]["findings"]} for cmd in ("capture", "ticket")}
    assert rules["ticket"] == rules["capture"], rules
    assert rules["ticket"]["capture.allreduce_fabric"] == "critical"


def test_checks_that_passed_name_each_rule_once():
    for fmt in ("md", "terminal"):
        result = CliRunner().invoke(cli, ["ticket", *map(str, STRAGGLER), "--format", fmt], prog_name="diagnose")
        line = " ".join(result.stdout.split("Checks that passed")[1].split("\n\n")[0].split())
        assert line.count("capture.launch_bound") == 1, (fmt, line)


@pytest.mark.parametrize("batch", [(), ("--batch", "8")])
def test_scaling_expects_what_capture_expects_and_reads_the_recorded_batch(batch):
    """The TP=8 capture's broken all-reduce (103 us a call) is a measurement: it must not raise the
    expected step it is compared with. Without --batch, scaling reads --max-num-seqs 8 from the
    recorded launch line, as capture does."""
    given = ("--model", "llama-3-70b", "--gpu", "h100-sxm")
    rows = {r["tp"]: r for r in _run("scaling", HEALTHY, PCIE, *given, *batch)[0]["predictions"]["scaling"]["rows"]}
    for tp, path in ((4, HEALTHY), (8, PCIE)):
        expected = _run("capture", path, *given)[0]["predictions"]["expected"]
        assert "batch=8" in expected["source"]
        assert rows[tp]["batch"] == 8
        assert rows[tp]["expected"] == pytest.approx(expected["step_ms"], abs=1e-3), tp
    tp8 = rows[8]
    assert tp8["ratio"] == pytest.approx(tp8["measured"] / tp8["expected"], abs=1e-3) and tp8["ratio"] > 1
    assert tp8["status"] == "comm_broken"
    # the measured all-reduce still splits the measured step (it is where the time went)
    assert tp8["terms"]["allreduce_ms"] == pytest.approx(tp8["allreduce_count"] * tp8["allreduce_measured_us"] / 1e3,
                                                         abs=0.01)


def test_a_quoted_title_keeps_its_acronym(broken):
    """scaling's cause quotes scaling.broken_layout, whose title starts with the layout: "TP8: ...",
    never "tP8: ..."; an ordinary first word is lower-cased inside the sentence."""
    summary = broken["scaling"][0]["findings"][0]["summary"]
    assert "The measurement agrees: TP8: each all-reduce" in summary, summary
    summary = broken["capture"][0]["findings"][0]["summary"]
    quoted = summary.split("The measurement agrees: ", 1)[1]
    assert quoted[0].islower() or quoted.split(" ", 1)[0].isupper(), quoted


def test_a_ticket_with_another_run_beside_the_ranks_keeps_them_apart(tmp_path):
    """Per-rank exports (names differing only in the rank) are one run; a capture of another run in
    the same ticket is read alone, never as a fifth rank of the straggler run."""
    for f in [*STRAGGLER, HEALTHY]:
        shutil.copyfile(f, tmp_path / f.name)
    ticket, code = _run("ticket", tmp_path)
    alone, _ = _run("capture", *STRAGGLER)
    assert (_lead(ticket), code) == (("straggler", "straggler", "critical"), 1)
    assert ticket["findings"][0]["title"] == alone["findings"][0]["title"]
    assert sorted(row[1] for row in ticket["tables"]["Attachments read"]["rows"]) == ["nsys_sqlite"] * 5


def test_a_tp_the_heads_refuse_is_critical_where_it_is_the_run_and_a_warning_on_a_capture_that_ran():
    """Review item 5: Llama-3-70B (64 heads) at TP=3 was a predict warning (exit 0): a split the heads
    refuse cannot run, so predict (a what-if) and ticket 056 (vLLM #596: Llama-2-13B, 40 heads, TP=3 on
    3x 3090, the reporter's own layout) are critical. ut10b #4: `capture --tp 3` on a capture that ran
    (and records tp=4) was the same critical, exit 1, on a healthy run; there the command line is what
    cannot be right, so it is a warning about it (other, exit 0), as capture.layout_does_not_fit."""
    ticket = next(shared_path("tickets").glob("056-*"))
    runs = {"predict": _run("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "3"),
            "ticket": _run("ticket", ticket)}
    seen = {}
    for cmd, (report, code) in runs.items():
        (f,) = [f for f in report["findings"] if f["category"] == "tp_not_dividing_heads" and f["severity"] != "ok"]
        seen[cmd] = (report["verdict"]["category"], f["severity"], code, f["title"].split(": ")[-1])
    assert set(seen.values()) == {("tp_not_dividing_heads", "critical", 1, "the layout cannot run")}, seen
    report, code = _run("capture", HEALTHY, "--model", "llama-3-70b", "--tp", "3")
    (f,) = [f for f in report["findings"] if f["rule"] == "workload.tp_not_dividing_heads"]
    assert (f["category"], f["severity"], code) == ("other", "warning", 0), (f, code)
    assert f["title"].startswith("--tp 3 (command line) cannot be the captured run's layout"), f["title"]
    assert not [x for x in report["findings"] if x["category"] == "tp_not_dividing_heads" and x["severity"] != "ok"]
    recorded = [x for x in report["findings"] if x["rule"] == "capture.given_vs_recorded"]
    assert recorded and "tp=4" in recorded[0]["title"]  # the same report names what the capture recorded


def test_a_figure_beyond_the_roofline_is_the_same_input_error_in_capture_scaling_and_ticket(tmp_path):
    """A measured figure better than the roofline (more than 100 % of the HBM peak) is a measurement or
    input error in every command, never a pass: the healthy TP=4 capture's 18.6 ms step taken as Llama-3-70B
    at batch 256 moves more bytes a step than the H100's 3.35 TB/s can (104 % of it), and a ticket.toml
    stating 500 decode tok/s for one Llama-3-70B stream on TP=8 is 2.6x its 189 tok/s roofline."""
    report, code = _run("capture", HEALTHY, "--model", "llama-3-70b", "--tp", "4", "--batch", "256")
    (step,) = [f for f in report["findings"] if f["rule"] == "capture.step_vs_prediction"]
    assert step["severity"] == "warning" and "beats the roofline" in step["title"], step["title"]
    hbm = next(e for e in step["evidence"] if e["detail"].startswith("achieved HBM bandwidth"))
    assert hbm["measured"] > hbm["expected"]  # the figure it rests on: more than the datasheet peak
    seen = {"capture": (report["verdict"]["category"], report["verdict"]["confidence"], step["severity"], code)}
    (tmp_path / "ticket.toml").write_text(
        'description = "vLLM TP8 llama-3-70b slow"\n[hardware]\ngpu = "NVIDIA H100 80GB HBM3"\ngpu_count = 8\n'
        '[software]\nframework = "vllm"\n[workload]\nmodel = "meta-llama/Meta-Llama-3-70B-Instruct"\ntp = 8\n'
        'batch = 1\n[[measured]]\nmetric = "decode_tok_s"\nvalue = 500\ntp = 8\n')
    for cmd in ("ticket", "scaling"):
        report, code = _run(cmd, tmp_path / "ticket.toml")
        top = report["findings"][0]
        assert "beats the roofline" in top["title"], (cmd, top["title"])
        seen[cmd] = (report["verdict"]["category"], report["verdict"]["confidence"], top["severity"], code)
    assert set(seen.values()) == {("other", 0.8, "warning", 0)}, seen


def test_layouts_the_heads_refuse_are_the_same_critical_in_predict_and_scaling(tmp_path):
    """Llama-2-7B has 32 heads: TP3 and TP6 cannot run. `predict --tp 3,6` said so while `scaling` on
    measurements at TP3/TP6 called them expected physics and recommended "TP3 DP2"; both now give the same
    critical findings and verdict, and scaling judges neither layout nor offers one as an alternative."""
    given = ("--model", "llama-2-7b", "--gpu", "a100-80gb-sxm")
    (tmp_path / "runs.csv").write_text("layout,batch,metric,value\nTP3,1,decode_tok_s,100\nTP6,1,decode_tok_s,150\n")
    runs = {"predict": _run("predict", *given, "--tp", "3,6"),
            "scaling": _run("scaling", tmp_path / "runs.csv", *given)}
    seen = {}
    for cmd, (report, code) in runs.items():
        bad = [(f["title"], f["severity"]) for f in report["findings"] if f["category"] == "tp_not_dividing_heads"]
        seen[cmd] = (report["verdict"]["category"], code, tuple(bad))
    assert seen["predict"] == seen["scaling"], seen
    assert seen["scaling"][:2] == ("tp_not_dividing_heads", 1) and len(seen["scaling"][2]) == 2, seen
    scaling = runs["scaling"][0]
    assert scaling["predictions"]["scaling"]["dp_alternative"] is None
    assert {r["status"] for r in scaling["predictions"]["scaling"]["rows"]} == {"invalid_layout"}
    assert not any(f["category"] == "expected_physics" for f in scaling["findings"])


def test_a_term_measured_broken_is_not_offered_as_physics():
    """TP4 healthy beside the TP8 capture whose all-reduce takes 103 us a call: scaling.broken_layout names
    the 16.5 ms of broken all-reduce. No expected_physics finding may present that measured term as
    "(modelled)" physics or give TP8 a second expected step (it was 30.5 ms beside the table's 20.4 ms)."""
    report, _ = _run("scaling", HEALTHY, PCIE, "--model", "llama-3-70b", "--gpu", "h100-sxm", "--batch", "8")
    tp8 = next(r for r in report["predictions"]["scaling"]["rows"] if r["tp"] == 8)
    assert tp8["status"] == "comm_broken"
    assert sum(tp8["expected_terms"].values()) == pytest.approx(tp8["expected"], abs=1e-3)
    assert tp8["terms"]["allreduce_ms"] > 3 * tp8["expected_terms"]["allreduce_ms"]  # the split keeps the measurement
    physics = [f for f in report["findings"] if f["category"] == "expected_physics"]
    assert not [f for f in physics if f["rule"] == "scaling.term_grows_with_tp"], physics
    for f in physics:
        for e in f["evidence"]:
            assert e["expected"] != pytest.approx(tp8["terms"]["allreduce_ms"], abs=0.01), (f["rule"], e)
    expected_steps = {round(float(m), 1) for f in report["findings"]
                      for m in re.findall(r"expected ([\d.]+) ms step", f["title"] + f["summary"])}
    assert expected_steps <= {round(tp8["expected"], 1), round(next(
        r for r in report["predictions"]["scaling"]["rows"] if r["tp"] == 4)["expected"], 1)}, expected_steps


LAUNCH = ("NCCL_P2P_DISABLE=1 python -m vllm.entrypoints.openai.api_server "
          "--model meta-llama/Meta-Llama-3-70B-Instruct --tensor-parallel-size {tp}\n")


def test_p2p_switched_off_is_one_category_per_interconnect_whatever_carries_it(broken, tmp_path):
    """NCCL_P2P_DISABLE=1 on H100 SXM: the capture (its device name) and a ticket with the same variable
    beside the node's NV18 `topo --matrix` (the RHEL AI recording's source) both give shm_fallback: SHM
    instead of NVLink. On L40S (PCIe only, catalog) the same line is p2p_disabled, which roughly halves."""
    nvlink = tmp_path / "nvlink"
    nvlink.mkdir()
    (nvlink / "launch.txt").write_text(LAUNCH.format(tp=8))
    shutil.copy(REPO / "tests" / "recordings" / "sources" / "h100-vm-rhel-ai-topo-nvlink.txt", nvlink / "topo.txt")
    report, code = _run("ticket", nvlink)
    (f,) = [f for f in report["findings"] if f["rule"] == "topology.p2p_forced_off"]
    capture = next(f for f in broken["capture"][0]["findings"] if f["rule"] == "topology.p2p_forced_off")
    assert (f["category"], f["severity"], code) == (capture["category"], capture["severity"], 1) == (
        "shm_fallback", "critical", 1)
    assert "NVLink" in capture["title"] and "NVLink" in f["title"]

    pcie = tmp_path / "pcie"
    pcie.mkdir()
    (pcie / "launch.txt").write_text(LAUNCH.format(tp=4))
    (pcie / "ticket.toml").write_text('[hardware]\ngpu = "NVIDIA L40S"\ngpu_count = 4\n')
    report, _ = _run("ticket", pcie)
    (f,) = [f for f in report["findings"] if f["rule"] == "topology.p2p_forced_off"]
    assert f["category"] == "p2p_disabled" and "halves" in f["summary"]


def test_a_slow_base_layout_gives_one_verdict_and_exit_code_in_ticket_and_scaling():
    """The README's TP2-slower sample (vLLM#22331, shared ticket 078): the batch-1 split that physics explains leads
    in both commands (one verdict), and both exit 1 under --fail-on warning. TP1 at x1.29 its expected step is
    'other' in both, an info lead in both (rules.beyond_band in ticket, scaling's base layout: the band holds 95 % of
    healthy runs, and healthy published tables have such a base, tests/test_published.py)."""
    folder = REPO / "samples" / "tickets" / "gptoss-tp2-slower"
    seen = {}
    for cmd, rule in (("ticket", "ticket.measured_vs_expected"), ("scaling", "scaling.base_efficiency")):
        report, code = _run(cmd, folder, "--fail-on", "warning")
        (band,) = [f for f in report["findings"] if f["rule"] == rule]
        seen[cmd] = (report["verdict"]["category"], band["category"], band["severity"], code)
    assert set(seen.values()) == {("latency_bound_small_batch", "other", "info", 1)}, seen

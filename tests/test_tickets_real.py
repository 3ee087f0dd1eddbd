"""Every real ticket bundle in ../shared/tickets gets its expected verdict through the real CLI.

The answer key (expected.toml) is read here, by the test, never by the tool: the CLI is given
a copy of the bundle without it, so the tool could not peek even by accident.
"""

import functools
import json
import re
import shutil
import tempfile
from pathlib import Path

import pytest
import tomllib
from click.testing import CliRunner
from conftest import REPO, SHARED, diagnose, shared_path

from diagnose.cli import cli

TICKETS = (sorted(p for p in (SHARED / "tickets").glob("*/") if (p / "expected.toml").exists())
           if (SHARED / "tickets").exists() else [])


def _readme_rows() -> dict[str, list[str]]:
    """The README's table of verdicts on the shared tickets (between its tickets markers), by ticket."""
    text = (REPO / "README.md").read_text()
    table = text.split("<!-- tickets:start -->", 1)[1].split("<!-- tickets:end -->", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.strip().splitlines()[2:]]
    return {r[0]: r[1:] for r in rows}


def test_the_readme_table_lists_every_shared_ticket():
    shared_path("tickets")
    assert sorted(_readme_rows()) == [p.name for p in TICKETS]


@pytest.mark.parametrize("bundle", TICKETS, ids=[p.name[:3] for p in TICKETS])
def test_the_readme_table_says_what_the_tool_gives(bundle):
    """The README's row of a ticket is its answer key's label and the verdict the tool gives today
    (python scripts/readme_tickets.py rewrites the table)."""
    expected = tomllib.loads((bundle / "expected.toml").read_text())
    verdict = _report(bundle)["verdict"]
    row = [expected["label"], verdict["category"], f"{verdict['confidence']:.2f}"]
    assert _readme_rows().get(bundle.name) == row, "README ticket table is stale: run python scripts/readme_tickets.py"


def _without_answer(bundle, tmp_path):
    copy = tmp_path / "bundle"
    shutil.copytree(bundle, copy, ignore=shutil.ignore_patterns("expected.toml"))
    return copy


def _run(args):
    return diagnose("ticket", *args)


@functools.cache
def _report(bundle):
    """The JSON report `diagnose ticket` gives on a copy of the bundle without its answer key (read once
    for the verdict test and the README table test)."""
    with tempfile.TemporaryDirectory() as tmp:
        result = _run([_without_answer(bundle, Path(tmp)), "--json", "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def test_tickets_present():
    shared_path("tickets")
    assert len(TICKETS) >= 20


@pytest.mark.parametrize("bundle", TICKETS, ids=[p.name[:3] for p in TICKETS])
def test_real_ticket_verdict(bundle):
    expected = tomllib.loads((bundle / "expected.toml").read_text())
    report = _report(bundle)
    got = report["verdict"]["category"]
    accepted = {expected["label"], *expected.get("acceptable", [])}
    if not expected.get("diagnosable", True):
        accepted.add("insufficient_data")  # the honest answer when the decisive evidence is absent
    assert got in accepted, (got, report["verdict"]["summary"], [f["rule"] for f in report["findings"][:5]])
    if got == "insufficient_data":
        assert "attach" in report["verdict"]["summary"]
    else:
        assert 0 < report["verdict"]["confidence"] <= 1
    # every finding's evidence says where its numbers came from
    for f in report["findings"]:
        for e in f["evidence"]:
            assert e["source"], f["rule"]
        if f["severity"] in ("critical", "warning") and f["rule"].startswith(
                ("topology.", "nccl.", "host.", "health.", "workload.")):
            assert f["fix"] and f["references"], f["rule"]  # a problem always says what to do and where to read


def test_default_output_is_markdown_with_quoted_evidence(tmp_path):
    bundle = _without_answer(shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm"), tmp_path)
    result = _run([bundle, "--fail-on", "never"])
    assert result.exit_code == 0
    out = result.output
    assert out.startswith("## diagnose ticket report")
    assert "**Verdict: `shm_fallback`**" in out
    assert "attachment2.log:1" in out and "NCCL_P2P_LEVEL" in out
    assert "**Fix:**" in out


def test_terminal_and_fail_on(tmp_path):
    bundle = _without_answer(shared_path("tickets", "030-nccl-451-docker-ibv-open-device-failed-socket"), tmp_path)
    result = _run([bundle, "--format", "terminal"])
    assert result.exit_code == 1  # a critical finding at the default --fail-on critical
    assert "socket_fallback" in result.output


def test_files_instead_of_a_folder():
    folder = shared_path("tickets", "027-torchtitan-853-ci-container-shm-16mb-h100")
    result = _run([folder / "attachment1.log", "--json", "--fail-on", "never"])
    assert json.loads(result.output)["verdict"]["category"] == "shm_too_small"


def test_missing_path_is_bad_input():
    result = CliRunner().invoke(cli, ["ticket", "/nonexistent/ticket"])
    assert result.exit_code == 2
    assert result.stderr.count("\n") == 1 and "/nonexistent/ticket: no such file" in result.stderr


def test_nothing_useful_asks_for_artifacts(tmp_path):
    (tmp_path / "ticket.toml").write_text('description = "TP is slow. Please help."\n')
    result = _run([tmp_path, "--json", "--fail-on", "never"])
    v = json.loads(result.output)["verdict"]
    assert v["category"] == "insufficient_data"
    assert "topo -m" in v["summary"] and "NCCL_DEBUG=INFO" in v["summary"]
    md = _run([tmp_path, "--fail-on", "never"]).output
    assert "### What to attach next" in md and "nvidia-smi topo -m" in md


def test_what_to_attach_is_a_field_not_prose():
    """An insufficient_data finding carries the artifact it needs in `ask`; the attach-next table is built
    from it, and the fix sentence around it stays prose."""
    path = shared_path("tickets", "021-nvtop-6-gen1-at-idle-false-alarm")
    report = json.loads(_run([path, "--json", "--fail-on", "never"]).output)
    gaps = [f for f in report["findings"] if f["ask"]]
    assert {f["rule"] for f in gaps} >= {"topology.pcie_link", "workload.evidence_coverage"}
    assert all(f["category"] == "insufficient_data" and f["fix"] == "attach " + f["ask"] for f in gaps)
    rows = {tuple(r) for r in report["tables"]["What to attach next"]["rows"]}
    assert {(f["rule"], f["ask"]) for f in gaps} <= rows


def test_system_cuda_is_not_the_cuda_nccl_was_built_for():
    """022 states `[software] cuda = "11.0"` (the host's CUDA) on an nccl-tests ticket with no NCCL log:
    only NCCL's own `NCCL version 2.x.y+cudaXX.Y` line says which runtime the library was built for,
    so no CUDA-graph build warning, and nothing about it in the verdict."""
    report = json.loads(_run([shared_path("tickets", "022-nccl-tests-74-a40-epyc-nps4-cross-socket-p2p-slower"),
                              "--json", "--fail-on", "never"]).output)
    assert "ticket.nccl_build" not in {f["rule"] for f in report["findings"]}
    assert "nccl_regression" not in report["verdict"]["summary"]


def test_the_fallback_ask_never_asks_for_what_the_ticket_holds(tmp_path):
    """A vague complaint with a real `nvidia-smi topo -m` attached (080's DGX H100 matrix): still
    insufficient_data, but the ask names only what is missing."""
    (tmp_path / "ticket.toml").write_text('description = "Inference is slow. Please help."\n')
    shutil.copy(shared_path("tickets", "080-vllm-13855-dgx-h100-pin-vllm-to-numa-region", "attachment1.txt"),
                tmp_path / "topo.txt")
    report = json.loads(_run([tmp_path, "--json", "--fail-on", "never"]).output)
    v = report["verdict"]
    assert v["category"] == "insufficient_data", v
    asked = v["summary"] + json.dumps(report["tables"].get("What to attach next", {}))
    assert "topo -m" not in asked and "NCCL_DEBUG=INFO" in asked


def test_a_pcie_link_pasted_without_its_device_line_names_a_gpu_not_unknown():
    """019 pastes `LnkCap`/`LnkSta` lines without lspci's device header: the title names the GPU the
    ticket describes (one model), never the parser's placeholder bus id."""
    report = json.loads(_run([shared_path("tickets", "019-janhq-183-4090-riser-pcie-gen1-downgraded"),
                              "--json", "--fail-on", "never"]).output)
    titles = [f["title"] for f in report["findings"] if f["rule"] == "topology.pcie_link"]
    assert titles == ["PCIe link of a GPU (NVIDIA GeForce RTX 4090) trained at 2.5 GT/s of 16 GT/s"]
    assert "unknown" not in report["verdict"]["summary"]


def test_a_fix_never_asks_for_an_attachment_the_ticket_holds():
    """Ticket 030 attaches its NCCL_DEBUG=INFO log (read as nccl_log): no finding's fix asks for it again."""
    path = shared_path("tickets", "030-nccl-451-docker-ibv-open-device-failed-socket")
    report = json.loads(_run([path, "--json", "--fail-on", "never"]).output)
    assert "nccl_log" in " ".join(r[1] for r in report["tables"]["Attachments read"]["rows"])
    assert not [f["rule"] for f in report["findings"] if re.search(r"(?i)attach[^.;]*NCCL_DEBUG", f["fix"])]


@pytest.mark.parametrize("case", ["066", "043", "022"])
def test_physics_prior_gives_way_to_a_named_fault(case, tmp_path):
    """A ticket whose checks name a cause at warning or worse never also says 'nothing shows a broken link'."""
    bundle = next(p for p in TICKETS if p.name.startswith(case))
    report = json.loads(_run([_without_answer(bundle, tmp_path), "--json", "--fail-on", "never"]).output)
    assert any(f["severity"] in ("warning", "critical") for f in report["findings"])
    assert not [f for f in report["findings"] if f["rule"] == "ticket.symptom_prior"
                and f["category"] == "expected_physics"]
    assert "Nothing in the ticket" not in json.dumps(report["findings"])


def test_figures_of_an_unmodelled_launch_are_marked_not_judged(tmp_path):
    """Ticket 079 runs SGLang with --enable-dp-attention: its tok/s figures are listed as not judged, not dropped."""
    bundle = next(p for p in TICKETS if p.name.startswith("079"))
    report = json.loads(_run([_without_answer(bundle, tmp_path), "--json", "--fail-on", "never"]).output)
    marked = [f for f in report["findings"] if f["rule"] == "ticket.unmodelled_figures"]
    assert len(marked) == 1 and "--enable-dp-attention is not modelled" in marked[0]["title"]
    rows = {(e["measured"], e["expected"]) for e in marked[0]["evidence"]}
    for value in ("30.29 tok/s", "206.32 tok/s", "760.52 tok/s"):
        assert (value, "not judged (not modelled)") in rows
    assert report["verdict"]["category"] != "other"


def test_tp_groups_cites_the_pair_that_leaves_nvlink(tmp_path):
    """Ticket 033 (DGX-1): TP8 is host-routed, so its evidence row is a SYS pair, not an NVLink one."""
    bundle = next(p for p in TICKETS if p.name.startswith("033"))
    report = json.loads(_run([_without_answer(bundle, tmp_path), "--json", "--fail-on", "never"]).output)
    (tp,) = [f for f in report["findings"] if f["rule"] == "node.tp_groups"]
    assert "TP8 (SYS)" in tp["summary"]
    (row,) = [e for e in tp["evidence"] if e["detail"].startswith("TP8:")]
    assert row["measured"] == "SYS"
    assert all(e["measured"].startswith("NV") for e in tp["evidence"] if e["detail"].startswith(("TP2:", "TP4:")))


def test_band_and_roofline_sit_in_the_expected_column(tmp_path):
    """Ticket 078: the reporter's rate is the only measured figure; the band and the roofline are what it is
    compared with."""
    bundle = next(p for p in TICKETS if p.name.startswith("078"))
    report = json.loads(_run([_without_answer(bundle, tmp_path), "--json", "--fail-on", "never"]).output)
    rows = [e for f in report["findings"] for e in f["evidence"]
            if e["detail"].startswith(("expected band", "roofline"))]
    assert rows
    assert all(e["measured"] is None and e["expected"] is not None for e in rows), rows

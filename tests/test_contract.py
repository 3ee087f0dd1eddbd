"""The report contract: findings, verdict, JSON schema, exit codes."""

import json
import re
import subprocess
import sys

import pytest
from conftest import shared_path

from diagnose.evidence import Facts, GpuFact, Workload
from diagnose.findings import CATEGORIES, Finding, Report, Verdict
from rules.engine import fails, verdict


def finding(category="p2p_disabled", severity="critical", confidence=0.9, rule="t.rule"):
    return Finding(rule=rule, category=category, severity=severity, confidence=confidence,
                   title="t", summary="s", evidence=[{"source": "a.txt:3", "detail": "d", "measured": 1.0}])


def test_categories_are_design_md_names():
    """Exactly the names DESIGN.md lists under 'Root-cause categories', in its order."""
    design = shared_path("docs", "DESIGN.md").read_text()
    section = design.split("**Root-cause categories**", 1)[1].split("\n\n", 1)[0]
    listed = re.findall(r"`([a-z0-9_]+)`", section)
    assert len(listed) == 26
    assert tuple(listed) == CATEGORIES


def test_unknown_category_and_severity_rejected():
    with pytest.raises(ValueError):
        finding(category="slow")
    with pytest.raises(ValueError):
        finding(severity="bad")
    with pytest.raises(ValueError):
        finding(confidence=1.5)


def test_report_json_roundtrip_and_order():
    r = Report(kind="ticket", findings=[finding(severity="info", category="other"), finding()],
               verdict=Verdict("p2p_disabled", 0.9, "x"), facts={"nan": float("nan")})
    data = json.loads(json.dumps(r.to_dict()))
    assert data["schema"] == "diagnose.report/1"
    assert set(data) >= {"schema", "kind", "tool_version", "inputs", "facts", "predictions", "findings", "verdict"}
    assert [f["severity"] for f in data["findings"]] == ["critical", "info"]
    assert data["facts"]["nan"] is None
    again = Report.from_dict(data)
    assert again.findings[0].evidence[0].source == "a.txt:3"


def test_verdict_picks_worst_then_healthy_then_insufficient():
    assert verdict([finding(severity="warning", category="numa_affinity"), finding()]).category == "p2p_disabled"
    ok = finding(severity="ok", category="healthy")
    assert verdict([ok]).category == "healthy"
    v = verdict([], missing=["the NCCL_DEBUG=INFO log"])
    assert v.category == "insufficient_data" and "NCCL_DEBUG=INFO" in v.summary
    # a plain informational note is never the verdict
    assert verdict([finding(severity="info", category="other")]).category == "insufficient_data"


def test_fail_on_thresholds():
    fs = [finding(severity="warning", category="throttling")]
    assert not fails(fs, "critical")
    assert fails(fs, "warning")
    assert not fails(fs, "never")
    assert not fails([finding(severity="ok", category="healthy")], "info")


def test_facts_merge_workload_first_source_wins():
    facts = Facts()
    facts.add(Workload(source="ticket.toml", tp=8), Workload(source="cmd.txt:1", tp=4, model="m", eager=True))
    facts.add([GpuFact(source="smi.txt:3", index=0)])
    w = facts.workload()
    assert (w.tp, w.model, w.eager) == (8, "m", True)
    assert "gpu_fact" in facts.to_dict()


def test_help_does_not_import_heavy_modules():
    code = ("import sys; from click.testing import CliRunner; from diagnose.cli import cli; "
            "r = CliRunner().invoke(cli, ['--help']); assert r.exit_code == 0, r.output; "
            "print(','.join(m for m in ('pandas', 'torch', 'numpy', 'rich') if m in sys.modules))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == ""


def test_version_and_module_entry():
    out = subprocess.run([sys.executable, "-m", "diagnose", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and "diagnose" in out.stdout


def test_a_critical_gap_is_never_healthy():
    """Passed checks cannot outweigh a critical check that could not run (no GPU answered)."""
    passed = finding(severity="ok", category="healthy", confidence=0.9, rule="host.shm")
    gap = finding(severity="critical", category="insufficient_data", rule="node.no_gpu")
    assert verdict([passed]).category == "healthy"
    v = verdict([passed, gap])
    assert v.category == "insufficient_data" and v.summary.startswith("t: s")
    assert verdict([passed, finding(severity="info", category="insufficient_data")]).category == "healthy"

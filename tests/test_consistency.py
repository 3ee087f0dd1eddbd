"""The same evidence gives the same verdict category, severity and exit code in every command.

`capture`, `scaling` and `ticket` each read the bundled TP=8 capture whose recorded launch line
sets NCCL_P2P_DISABLE=1 and whose all-reduce runs at PCIe speed: each must lead with the setting
(the cause the evidence shows), as critical, and exit 1 under the default --fail-on. The healthy
TP=4 capture must give no critical finding and exit 0 in each of them.
"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner

from conftest import REPO
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
    assert set(seen.values()) == {(("p2p_disabled", "p2p_disabled", "critical"), 1)}, seen


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

"""`--format md` is paste-ready: no local folders, no empty unit column, passing checks in one line,
references once, byte counts in readable units, and no 'attach next' once a confident verdict names
the cause. (Inert text from attachments: tests/test_injection.py.)"""

from __future__ import annotations

from click.testing import CliRunner

from conftest import REPO
from diagnose.cli import cli

TICKET = REPO / "samples" / "tickets" / "p2p-level-loc"


def _md(*args) -> str:
    result = CliRunner().invoke(cli, [str(a) for a in args] + ["--format", "md", "--fail-on", "never"])
    assert result.exit_code == 0, result.stderr
    return result.stdout


def test_ticket_markdown_is_paste_ready():
    md = _md("ticket", TICKET.resolve())
    assert str(REPO) not in md and "/work/" not in md  # the folder's name, not this machine's path
    assert "paths=p2p-level-loc" in md
    assert "| source | detail | measured | expected |" in md and "| unit |" not in md
    assert "**ok**" not in md and "**Checks that passed:** `topology.nvlink_links`" in md
    references = [line for line in md.splitlines() if "docs.nvidia.com" in line]
    assert len(references) == 1 and references[0].startswith("**References:** <https://")


def test_no_attach_next_once_the_cause_is_certain_and_bytes_are_readable():
    md = _md("capture", REPO / "samples" / "captures" / "tp8_pcie_fallback.sqlite")
    assert "Verdict: `p2p_disabled`" in md
    coverage = md.split("workload.evidence_coverage")[1].split("\n\n**")[0]
    assert "**Fix:** attach" not in coverage  # the verdict names the cause at 0.94
    node = _md("node", "--replay", REPO / "tests" / "recordings" / "recorded-vm-without-driver.json")
    assert "23.5 GiB" in node and "25276514304" not in node

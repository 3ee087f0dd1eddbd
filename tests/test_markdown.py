"""`--format md` is paste-ready: no local folders, no empty unit column, passing checks in one line,
references once, byte counts in readable units, and no 'attach next' once a confident verdict names
the cause. (Inert text from attachments: tests/test_injection.py.)"""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner
from conftest import REPO, shared_path

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
    assert "Verdict: `shm_fallback`" in md
    coverage = md.split("workload.evidence_coverage")[1].split("\n\n**")[0]
    assert "**Fix:** attach" not in coverage  # the verdict names the cause at 0.94
    node = _md("node", "--replay", REPO / "tests" / "recordings" / "recorded-vm-without-driver.json")
    assert "23.5 GiB" in node and "25276514304" not in node


CONFIDENT_TICKETS = ["027-torchtitan-853-ci-container-shm-16mb-h100", "056-vllm-596-3x3090-llama2-13b-40-heads-tp3",
                     "058-sonar-1114-aphrodite-enforce-eager-tp2-3060", "076-vllm-6938-llama-multinode-tp64-vs-tp8-pp8"]


@pytest.mark.parametrize("name", CONFIDENT_TICKETS + ["tp8_pcie_fallback"], ids=lambda n: n[:3])
def test_no_attach_next_table_under_a_confident_ticket_verdict(name):
    """The README's rule, in every text format of `ticket`: once a confident verdict names the cause there
    is no "What to attach next" table and no "attach X" fix; JSON keeps each finding's `ask` as data."""
    path = (REPO / "samples" / "captures" / "tp8_pcie_fallback.sqlite" if name.startswith("tp8")
            else shared_path("tickets", name))
    report = json.loads(CliRunner().invoke(cli, ["ticket", str(path), "--json", "--fail-on", "never"]).stdout)
    assert report["verdict"]["confidence"] >= 0.75 and any(f["ask"] for f in report["findings"])
    assert "What to attach next" not in report["tables"]
    md = _md("ticket", path)
    assert "What to attach next" not in md and "**Fix:** attach" not in md
    terminal = CliRunner().invoke(cli, ["ticket", str(path), "--format", "terminal", "--fail-on", "never"]).stdout
    assert "What to attach next" not in terminal and "Fix: attach" not in terminal


@pytest.mark.parametrize("fmt", ["md", "html"])
def test_no_local_folder_in_a_report_to_share(fmt):
    """A config.json given by absolute path reaches the evidence ('config:/home/...'): the shared
    report names the file only, as its reader knows it."""
    config = REPO / "samples/bench/llama-3.2-3b-config.json"
    args = ["scaling", str(REPO / "samples/bench/llmd-llama-3.2-3b-l40s-tp1-dp4.json"), "--model", str(config),
            "--gpu", "l40s", "--format", fmt]
    result = CliRunner().invoke(cli, args, prog_name="diagnose")
    assert result.exit_code == 0, result.stderr
    assert str(REPO) not in result.stdout
    assert "config:llama-3.2-3b-config.json" in result.stdout


def test_code_span_bar_is_escaped_only_inside_a_table(tmp_path):
    """Ticket 033 asks for `lsmod | grep ...`: in prose a `\\|` inside a code span prints the backslash,
    in a table cell it is needed to keep the cell whole."""
    bundle = next(shared_path("tickets").glob("033-*"))
    md = _md("ticket", bundle)
    lines = [line for line in md.splitlines() if "lsmod" in line]
    prose = [line for line in lines if not line.startswith("|")]
    cells = [line for line in lines if line.startswith("|")]
    assert prose and cells
    assert all("`lsmod | grep -E 'nvidia_peermem|nv_peer_mem'`" in line for line in prose)
    assert all("`lsmod \\| grep -E 'nvidia_peermem\\|nv_peer_mem'`" in line for line in cells)

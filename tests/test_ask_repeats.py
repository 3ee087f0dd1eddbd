"""A ticket asks for each command once: a lead's ask for `nvidia-smi topo -m` is not followed by the coverage
check's ask for the same command (public pastes kept in tests/data, run through the CLI)."""

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.cli import cli

DATA = Path(__file__).parent / "data"


def _report(paste: str) -> dict:
    result = CliRunner().invoke(cli, ["ticket", str(DATA / paste), "--json"])
    return json.loads(result.output)


@pytest.mark.parametrize("paste", ["ut22a/vllm8087.md", "ut24/llamacpp3772.md", "ut21b/llamacpp21719.md"])
def test_topology_is_asked_for_once(paste):
    report = _report(paste)
    rows = report["tables"]["What to attach next"]["rows"]
    assert sum(artifact.count("`nvidia-smi topo -m`") for _, artifact in rows) == 1
    assert report["verdict"]["summary"].count("`nvidia-smi topo -m`") == 1


def test_asks_for_different_commands_all_stay():
    # an NCCL-test failure across nodes: the failing run's log, the GDR check and the IB checks are three asks
    rows = _report("ut26b/nccl426.md")["tables"]["What to attach next"]["rows"]
    assert [check for check, _ in rows] == ["ticket.symptom", "nccl.gdr", "ticket.ib_transfer_error"]

"""Every `diagnose` example in README.md and in each command's --help runs as written on a clean
clone: the inputs it names ship in samples/ (or tests/data/), and it ends in exit 0 or 1 (a
finding at or above --fail-on), never 2 (bad input) or 3 (tool failure).

Examples that need a GPU run only where one is (`gpu` mark); examples that need a results
database filled by earlier runs, or a cluster, are listed in NEEDS with the reason.
"""

from __future__ import annotations

import glob
import re
import shlex

import pytest
from click.testing import CliRunner
from conftest import REPO

from diagnose.cli import cli
from diagnose.commands import COMMANDS

# Examples that cannot run from a clean clone by nature, and why.
NEEDS = {
    "diagnose compare 41 42": "two runs stored earlier in the results database",
    "diagnose fleet /shared/fleet/$SLURM_JOB_ID": "a Slurm job's shared folder",
    "diagnose fleet --db /shared/diagnose.db": "a shared results database",
    "diagnose history": "runs stored earlier with --save",
}


def _readme_examples() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    found = []
    for block in re.findall(r"```(?:bash)?\n(.*?)```", text, re.S):
        found += [line for line in _joined(block) if line.startswith("diagnose ")]
    found += re.findall(r"\| `(diagnose [^`]+)`", text)
    found += [m for cell in re.findall(r"`(diagnose [^`]+)`, ", text) for m in [cell]]
    return found


def _help_examples() -> list[str]:
    found = []
    for command in COMMANDS:
        doc = command.help or ""
        if "Examples:" in doc:
            found += [line for line in _joined(doc.split("Examples:", 1)[1]) if line.startswith("diagnose ")]
    return found


def _joined(text: str) -> list[str]:
    """Lines with backslash continuations joined, comments and pipes cut off."""
    lines = re.sub(r"\\\s*\n\s*", " ", text).splitlines()
    out = []
    for line in lines:
        line = line.strip()
        line = re.split(r"\s+#\s|\s\|\s", line)[0].strip()
        if line:
            out.append(line)
    return out


EXAMPLES = sorted(set(_readme_examples() + _help_examples()))


def test_examples_are_found():
    assert len(EXAMPLES) >= 30, EXAMPLES  # the parser still sees the README's and the helps' examples


@pytest.mark.parametrize("example", EXAMPLES)
def test_example_runs(example, tmp_path, monkeypatch):
    need = next((why for start, why in NEEDS.items() if example.startswith(start)), None)
    if need:
        pytest.skip(f"needs {need}")
    args = shlex.split(example)[1:]
    if args[0] == "node" and "--replay" not in args:
        pytest.skip("probes the GPUs of this machine (tests/test_probes_gpu.py runs them where a GPU is)")
    # run where the example's relative paths resolve, writing -o files into a scratch folder
    for name in ("samples", "tests"):
        (tmp_path / name).symlink_to(REPO / name)
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("DIAGNOSE_DB", str(tmp_path / "runs.db"))
    args = [m for a in args for m in (sorted(glob.glob(a)) or [a] if "*" in a else [a])]
    result = CliRunner().invoke(cli, args, prog_name="diagnose")
    assert result.exit_code in (0, 1), (example, result.exit_code, result.stderr[-400:])


def test_goodput_example_gives_what_the_readme_says(monkeypatch):
    monkeypatch.chdir(REPO)
    (example,) = [e for e in EXAMPLES if "qwq-32b" in e and "--slo" in e]
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    assert "goodput: TP4 x 2 replicas, 1,320 tok/s" in readme
    result = CliRunner().invoke(cli, shlex.split(example)[1:], prog_name="diagnose", env={"COLUMNS": "200"})
    assert "TP4 x 2 replicas gives the most goodput on 8 GPUs: 1320 tok/s" in result.stdout, result.stdout[-800:]


def _said(pattern: str) -> tuple[str, ...]:
    """What README.md quotes where `pattern` finds it (whitespace joined: the README wraps lines)."""
    text = " ".join((REPO / "README.md").read_text(encoding="utf-8").split())
    found = re.search(pattern, text)
    assert found, pattern
    return found.groups()


def _titles(*args: str) -> list[str]:
    import json

    result = CliRunner().invoke(cli, [*args, "--json"], prog_name="diagnose")
    assert result.exit_code in (0, 1), result.stderr
    return [f["title"] for f in json.loads(result.stdout)["findings"]]


def test_readme_quotes_what_scaling_prints():
    """The Decomposition paragraph quotes the runs.csv example's headline; the Verdict paragraph
    the headline of the gpt-oss ticket whose unexplained rest outweighs every modelled term."""
    (quote,) = _said(r'on `samples/scaling/runs\.csv`: "([^"]+)"')
    assert quote in _titles("scaling", "samples/scaling/runs.csv", "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm")
    (quote,) = _said(r'`samples/tickets/gptoss-tp2-slower/`: "([^"]+)"')
    assert "not explained by the model" in quote
    assert any(t.startswith(quote) for t in _titles("scaling", "samples/tickets/gptoss-tp2-slower/"))

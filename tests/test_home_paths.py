"""A leading `~` in a path option is the home folder, in the check and in the use alike. The shell expands it only
at the start of a word, so `--output=~/x.json` reaches the program as typed: the writability check used to expand it
and pass, then the writer wrote to a literal ./~ folder and failed after the run (exit 2 with nothing written).
HOME is a temporary folder; the recording is the project's sample."""

import json
import shutil
from pathlib import Path

from conftest import diagnose

RECORDING = Path(__file__).resolve().parents[1] / "samples" / "node" / "recording.json"


def _node(home, *args):
    return diagnose("node", *args, "--json", "--fail-on", "never", env={"HOME": str(home)})


def test_output_under_home_is_written_there(tmp_path, monkeypatch):
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.chdir(tmp_path)  # a literal ./~ folder would be made here
    result = _node(home, "--replay", RECORDING, "--output=~/node.json")
    assert result.exit_code == 0, result.stderr
    assert json.loads((home / "node.json").read_text())["kind"] == "node"
    assert not (tmp_path / "~").exists()


def test_a_missing_folder_under_home_is_refused_before_the_run(tmp_path):
    home = tmp_path / "home"
    home.mkdir()
    result = _node(home, "--replay", RECORDING, "--output=~/nowhere/node.json")
    assert result.exit_code == 2
    assert f"folder {home / 'nowhere'} does not exist" in result.stderr
    assert result.stdout == ""


def test_replay_under_home(tmp_path, monkeypatch):
    """An input path with `~` is read from the home folder, as an output is written there."""
    home = tmp_path / "home"
    home.mkdir()
    shutil.copy(RECORDING, home / "rec.json")
    monkeypatch.chdir(tmp_path)
    replayed = _node(home, "--replay=~/rec.json")
    assert replayed.exit_code == 0, replayed.stderr
    assert json.loads(replayed.stdout)["kind"] == "node"

"""Every command through the real CLI: the exit-code and stderr contract of DESIGN.md.

Bad usage or unreadable input: exactly one line on stderr starting with `diagnose:`, exit 2, no
traceback, nothing on stdout. Findings at or above --fail-on: exit 1; `--fail-on never`: 0.
`--json` always parses as diagnose.report/1, `--format md` renders, `-o FILE` writes the file
and prints nothing. Inputs are the bundled samples, the NVML recordings and (where present) the
real tickets; the broken files are made from them (cut short, emptied) or are plain junk.
"""

from __future__ import annotations

import json
import os
import random
import re
import shutil

import click
import pytest
from click.testing import CliRunner
from conftest import REPO, diagnose, shared_path

from diagnose.cli import DiagnoseGroup, cli
from diagnose.errors import ProbeError

SAMPLES = REPO / "samples" / "captures"
HEALTHY = SAMPLES / "tp4_nvlink_healthy.sqlite"
PCIE = SAMPLES / "tp8_pcie_fallback.sqlite"
RECORDINGS = REPO / "tests" / "recordings"
DGX = RECORDINGS / "dgx-h100-topo-numa.json"
NO_DRIVER = RECORDINGS / "recorded-vm-without-driver.json"
SCALING_CSV = REPO / "tests" / "data" / "scaling" / "gpt-fast-llama-2-7b-a100.csv"
REPORT_KEYS = {"schema", "kind", "tool_version", "inputs", "facts", "predictions", "findings", "verdict"}


@pytest.fixture(scope="module", autouse=True)
def _no_results_database():
    """A developer's $DIAGNOSE_DB would store every run here and add a 'saved as run' line."""
    with pytest.MonkeyPatch.context() as mp:
        mp.delenv("DIAGNOSE_DB", raising=False)
        yield


run = diagnose


def assert_bad_input(result, *needles):
    """Exit 2, one `diagnose:` line on stderr naming the problem, nothing on stdout."""
    assert result.exit_code == 2, (result.exit_code, result.stdout[-500:], result.stderr)
    assert result.stdout == "", result.stdout[:500]
    lines = result.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("diagnose: "), result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr
    for needle in needles:
        assert needle.lower() in lines[0].lower(), (needle, lines[0])


# ---------------------------------------------------------------- broken inputs, made once


@pytest.fixture(scope="module")
def junk(tmp_path_factory):
    """One of each kind of unreadable file a user hands over by mistake."""
    d = tmp_path_factory.mktemp("junk")
    data = HEALTHY.read_bytes()
    files = {
        "missing": d / "missing.sqlite",
        "directory": d / "a-folder",
        "empty": d / "empty.sqlite",
        "truncated_header": d / "cut-5k.sqlite",
        "truncated_half": d / "cut-half.sqlite",
        "binary": d / "junk.bin",
        "text": d / "junk.txt",
        "latin1": d / "latin1.txt",
    }
    files["directory"].mkdir()
    files["empty"].write_bytes(b"")
    files["truncated_header"].write_bytes(data[:5000])
    files["truncated_half"].write_bytes(data[: len(data) // 2])
    files["binary"].write_bytes(random.Random(0).randbytes(4096))
    files["text"].write_text("the model was slow yesterday, please advise\n")
    files["latin1"].write_bytes("caf\xe9 d\xe9bit \xff\xfe lent\n".encode("latin-1"))
    return files


FILE_KINDS = ["missing", "directory", "empty", "truncated_header", "truncated_half", "binary", "text", "latin1"]

# How each command takes one input file (the file goes where FILE is).
FILE_COMMANDS = {
    "capture": ["capture", "FILE"],
    "compare": ["compare", "FILE", str(HEALTHY)],
    "fleet": ["fleet", "FILE"],
    "node": ["node", "--replay", "FILE"],
    "scaling": ["scaling", "FILE", "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm"],
    "scaling --node": ["scaling", str(SCALING_CSV), "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm",
                       "--node", "FILE"],
    "predict --model": ["predict", "--model", "FILE", "--gpu", "h100-sxm"],
    "predict --catalog": ["predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--catalog", "FILE"],
    "history --db": ["history", "--db", "FILE"],
}
# A ticket is a bundle: an unreadable attachment is reported in the answer, not fatal; a
# missing path and an empty folder are bad input. The results store creates an absent file
# only when saving; an empty file is a valid empty SQLite database to it.
TOLERATED = {
    ("predict --catalog", "empty"),  # an empty TOML file is a catalog with nothing to add
}



@pytest.mark.parametrize("kind", FILE_KINDS)
@pytest.mark.parametrize("command", list(FILE_COMMANDS))
def test_unreadable_input_is_one_line_and_exit_2(junk, command, kind):
    if (command, kind) in TOLERATED:
        pytest.skip("a valid (empty) input for this option")
    args = [str(junk[kind]) if a == "FILE" else a for a in FILE_COMMANDS[command]]
    result = run(*args)
    assert_bad_input(result)
    if kind in ("missing", "directory", "empty"):  # the line says which file
        assert junk[kind].name in result.stderr, result.stderr


@pytest.mark.parametrize("command", ["capture", "scaling"])
def test_a_damaged_capture_is_called_damaged(junk, command):
    """Not 'no measurements found': the user must learn the export was cut short."""
    args = FILE_COMMANDS[command]
    result = run(*[str(junk["truncated_header"]) if a == "FILE" else a for a in args])
    assert_bad_input(result, "cut-5k.sqlite", "damaged")


@pytest.mark.parametrize("kind", ["missing", "directory"])
def test_ticket_missing_path_or_empty_folder_is_bad_input(junk, kind):
    assert_bad_input(run("ticket", junk[kind]), junk[kind].name)


@pytest.mark.parametrize("kind", ["gzip", "xz", "bzip2", "zip"])
def test_a_compressed_export_says_how_to_unpack_it(tmp_path, kind):
    """ut10b #12: `capture x.sqlite.gz` said only 'not an SQLite file'. A real export packed by each
    tool (stdlib writers of the same formats) is named as such, with the command that unpacks it."""
    import bz2
    import gzip
    import lzma
    import zipfile

    data = HEALTHY.read_bytes()
    path = tmp_path / f"capture.sqlite.{kind}"
    if kind == "zip":
        with zipfile.ZipFile(path, "w") as z:
            z.writestr("capture.sqlite", data)
    else:
        path.write_bytes({"gzip": gzip.compress, "xz": lzma.compress, "bzip2": bz2.compress}[kind](data))
    assert_bad_input(run("capture", path), "not an SQLite file", f"{kind}-compressed")
    plain = tmp_path / "notes.sqlite"
    plain.write_text("not a capture")
    assert_bad_input(run("capture", plain), "not an SQLite file")
    assert run("capture", plain).stderr.rstrip().endswith("notes.sqlite: not an SQLite file")


def test_ticket_refuses_a_damaged_export_it_was_named(junk):
    """Named on the command line, a damaged export is bad input in `ticket` as in `capture`."""
    assert_bad_input(run("ticket", junk["truncated_header"]), "cut-5k.sqlite", "damaged")


@pytest.mark.parametrize("kind", ["empty", "truncated_header", "binary", "text", "latin1"])
def test_ticket_reports_an_unreadable_attachment_and_asks_for_more(junk, tmp_path, kind):
    """In a ticket folder, an attachment that cannot be read is listed as such, and the answer asks for more."""
    shutil.copy(junk[kind], tmp_path / junk[kind].name)
    result = run("ticket", tmp_path, "--json")
    assert result.exit_code == 0, result.stderr
    report = json.loads(result.stdout)
    assert report["verdict"]["category"] == "insufficient_data"
    (row,) = report_table(report, "Attachments read")["rows"]
    assert row[0] == junk[kind].name and row[2] in (0, 1)
    expected = {"empty": "empty (0 bytes)", "truncated_header": "unreadable: ", "binary": "binary",
                "text": "unrecognised", "latin1": "unrecognised"}[kind]
    assert row[1].startswith(expected), row


def report_table(report: dict, title: str) -> dict:
    """A table of a report's JSON (the JSON carries the tables the terminal prints)."""
    tables = report.get("tables") or {}
    assert title in tables, sorted(tables)
    return tables[title]


# ---------------------------------------------------------------- names and option values


@pytest.mark.parametrize("args, suggestion", [
    (["predict", "--model", "llama-3-70", "--gpu", "h100-sxm"], "llama-3-70b"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxn"], "h100-sxm"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--interconnect", "nvlnk4"], "nvlink4"),
    (["predict", "--model", "mixtral-8x7", "--gpu", "a100-80gb-sxm"], "mixtral-8x7b"),
    (["plan", "--model", "qwen2.5-72", "--gpu", "h100-sxm", "--gpus", "8", "--context", "4096"], "qwen2.5-72b"),
    (["plan", "--model", "llama-3-8b", "--gpu", "rtx-4900", "--gpus", "2", "--context", "4096"], "rtx-4090"),
    (["scaling", str(SCALING_CSV), "--model", "llama-2-7", "--gpu", "a100-80gb-sxm"], "llama-2-7b"),
    (["scaling", str(SCALING_CSV), "--model", "llama-2-7b", "--gpu", "a100-80gb-sxmm"], "a100-80gb-sxm"),
    (["capture", str(HEALTHY), "--model", "llama-3-70", "--tp", "4"], "llama-3-70b"),
    (["capture", str(HEALTHY), "--gpu", "h100-sxn"], "h100-sxm"),
])
def test_unknown_names_suggest_the_closest(args, suggestion):
    assert_bad_input(run(*args), suggestion)


@pytest.mark.parametrize("value", ["0", "1,x", ",", "-1", "2.5", "1,,0"])
def test_invalid_tp_lists(value):
    result = run("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", f"--tp={value}")
    assert_bad_input(result, "--tp")


@pytest.mark.parametrize("args, needle", [
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--batch=0"], "--batch"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--pp=a"], "--pp"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "8", "--tp", "3"], "--tp"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--mbu", "1.5"], "--mbu"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--mfu", "nan"], "--mfu"),
    (["predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--prompt", "4096", "--context", "100"], "--context"),
    (["predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--context", "1000000"], "131072-token window"),
    (["scaling", str(SCALING_CSV), "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm", "--prompt", "8192"], "window"),
    (["capture", str(HEALTHY), "--tp", "0"], "--tp"),
    (["compare", str(HEALTHY), str(HEALTHY), "--tp", "0"], "--tp"),
    (["node", "--replay", str(DGX), "--gpus", "x"], "--gpus"),
    (["node", "--replay", str(DGX), "--gpus=-1"], "--gpus"),
    (["node", "--replay", str(DGX), "--gpus", "9"], "--gpus"),
    (["plan", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "0", "--context", "4096"], "--gpus"),
    (["plan", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--gpus", "2", "--context", "4096", "--slo", "itl=fast"],
     "slo"),
    (["scaling", str(SCALING_CSV), "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm", "--slo", "p95"], "slo"),
    (["predict", "--model", "llama-3-70b"], "--gpu"),  # a required option missing
    (["ticket"], "paths"),  # a required argument missing
    (["no-such-command"], "no-such-command"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--format", "pdf"], "--format"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--fail-on", "sometimes"], "--fail-on"),
])
def test_bad_option_values(args, needle):
    assert_bad_input(run(*args), needle)


@pytest.mark.parametrize("args, needle", [
    (["node", "--replay", str(DGX), "--record", "x.json"], "--record"),
    (["node", "--cpu-ranks", "1"], "--cpu-ranks"),
    (["fleet"], "--db"),
    (["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--json", "--format", "md"], "--json"),
])
def test_conflicting_or_incomplete_options(args, needle, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    assert_bad_input(run(*args), needle)
    assert not (tmp_path / "x.json").exists()


def test_history_bad_since(tmp_path):
    db = tmp_path / "runs.db"
    saved = run("predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--save", env={"DIAGNOSE_DB": str(db)})
    assert saved.exit_code == 0
    assert_bad_input(run("history", "--db", db, "--since", "yesterday-ish"), "yesterday-ish")


def test_usage_errors_use_the_same_one_line_form():
    """click's own usage errors (missing option, bad choice) read like every other error: one
    line with the help command to run, not click's three-line usage block."""
    result = run("predict", "--model", "llama-3-70b")
    assert result.stderr.strip() == "diagnose: missing option '--gpu' (see 'diagnose predict --help')"


def test_no_command_prints_the_help():
    result = run()
    assert result.exit_code == 2 and "Commands:" in result.output


# ---------------------------------------------------------------- -o FILE


@pytest.mark.parametrize("target", ["directory", "under_a_file", "missing_parent"])
def test_unwritable_output_path(tmp_path, target):
    (tmp_path / "a-file").write_text("x")
    path = {"directory": tmp_path, "under_a_file": tmp_path / "a-file" / "r.json",
            "missing_parent": tmp_path / "no" / "such" / "r.json"}[target]
    result = run("predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--json", "-o", path)
    assert_bad_input(result, str(path.name if target == "directory" else path))


@pytest.mark.parametrize("target", ["under_a_file", "missing_parent"])
def test_unwritable_record_path_fails_before_probing(tmp_path, target):
    """`--record` and `-o` are checked before the probes run, not after ten minutes of them."""
    (tmp_path / "a-file").write_text("x")
    path = {"under_a_file": tmp_path / "a-file" / "rec.json", "missing_parent": tmp_path / "no" / "rec.json"}[target]
    assert_bad_input(run("node", "--quick", "--record", path), "--record")
    assert_bad_input(run("node", "--quick", "-o", path), "-o")


@pytest.mark.parametrize("folder", ["/sys/kernel", "/proc/self"])
@pytest.mark.parametrize("option", ["--stats-dir", "-o", "--record"])
def test_output_in_a_pseudo_filesystem_is_bad_input_before_any_work(folder, option):
    """/sys and /proc take no new files, even for root (where os.access says yes): every option
    that names an output is exit 2 naming the path at parse time, never an OSError at the end."""
    target = folder if option == "--stats-dir" else f"{folder}/report.json"
    args = ("node", "--replay", DGX) if option == "--record" else ("capture", PCIE)
    result = run(*args, option, target)
    assert_bad_input(result, target)
    assert "cannot write in" in result.stderr


def test_output_through_a_link_writes_the_file_it_points_to(tmp_path):
    """`-o LINK` fills the file behind the link and leaves the link a link (a rename would replace it)."""
    real, link = tmp_path / "real.txt", tmp_path / "out"
    real.write_text("")
    link.symlink_to(real)
    assert run("capture", HEALTHY, "--json", "-o", link, "--fail-on", "never").exit_code == 0
    assert link.is_symlink() and json.loads(real.read_text())["schema"] == "diagnose.report/1"


def test_output_to_a_stdout_link_with_stdout_redirected_feeds_the_redirect(tmp_path):
    """The `-o /dev/stdout > r.html` idiom, with a link of our own to /proc/self/fd/1 instead of the
    system's /dev/stdout: the report lands in r.html and the link stays a link."""
    import subprocess
    import sys

    link, out = tmp_path / "stdout", tmp_path / "r.html"
    link.symlink_to("/proc/self/fd/1")
    with open(out, "w") as fh:
        done = subprocess.run([sys.executable, "-m", "diagnose", "capture", str(HEALTHY), "--format", "html",
                               "-o", str(link)], stdout=fh, stderr=subprocess.PIPE, text=True, cwd=REPO,
                              env={**os.environ, "DIAGNOSE_CACHE": "off"}, timeout=120)
    assert done.returncode == 0, done.stderr
    assert link.is_symlink() and os.readlink(link) == "/proc/self/fd/1"
    assert out.read_text().rstrip().endswith("</html>")
    assert not [p for p in tmp_path.iterdir() if p.name.startswith(".")]  # no temp file left beside the link


def test_stats_dir_that_is_a_file_is_bad_input(tmp_path):
    (tmp_path / "a-file").write_text("x")
    assert_bad_input(run("capture", PCIE, "--stats-dir", tmp_path / "a-file"), "not a folder")


# ---------------------------------------------------------------- every command on good inputs


def good_invocations(tmp_path):
    """One real run of every report command (compare and fleet on node reports made here)."""
    node_a, node_b = tmp_path / "node-a.json", tmp_path / "node-b.json"
    for path, recording in ((node_a, DGX), (node_b, RECORDINGS / "hgx-h100-smi-p2p-bidirectional.json")):
        result = run("node", "--replay", recording, "--json", "-o", path, "--fail-on", "never")
        assert result.exit_code == 0, result.stderr
    return {
        "predict": ["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "1,2,4,8"],
        "plan": ["plan", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "8", "--context", "8192",
                 "--concurrency", "64", "--dtype", "fp8"],
        "scaling": ["scaling", SCALING_CSV, "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm"],
        "node": ["node", "--replay", DGX],
        "ticket": ["ticket", RECORDINGS.parent / "data" / "hardware" / "topo_p2p_and_nvlink_e.txt"],
        "capture": ["capture", PCIE, "--model", "llama-3-70b", "--tp", "8", "--batch", "8"],
        "compare (reports)": ["compare", node_a, node_b],
        "compare (captures)": ["compare", HEALTHY, PCIE],
        "fleet": ["fleet", node_a, node_b],
    }


COMMANDS = ["predict", "plan", "scaling", "node", "ticket", "capture", "compare (reports)", "compare (captures)",
            "fleet"]


@pytest.fixture(scope="module")
def invocations(tmp_path_factory):
    return good_invocations(tmp_path_factory.mktemp("good"))


@pytest.fixture(scope="module")
def json_reports(invocations):
    out = {}
    for name, args in invocations.items():
        result = run(*args, "--json", "--fail-on", "never")
        out[name] = result
    return out


@pytest.mark.parametrize("name", COMMANDS)
def test_json_is_the_report_contract(json_reports, name):
    result = json_reports[name]
    assert result.exit_code == 0, result.stderr
    assert result.stderr == ""
    report = json.loads(result.stdout)
    assert report["schema"] == "diagnose.report/1"
    assert set(report) >= REPORT_KEYS
    assert report["verdict"]["category"] and 0 <= report["verdict"]["confidence"] <= 1
    for f in report["findings"]:
        assert f["rule"] and f["title"] and f["severity"] in ("critical", "warning", "info", "ok")
        for e in f["evidence"]:
            assert e["source"], (f["rule"], e)


@pytest.mark.parametrize("name", COMMANDS)
def test_markdown_renders(invocations, name):
    result = run(*invocations[name], "--format", "md", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.startswith("## diagnose ") and "**Verdict: `" in result.stdout


@pytest.mark.parametrize("name", COMMANDS)
def test_html_renders(invocations, name):
    result = run(*invocations[name], "--format", "html", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.lstrip().lower().startswith("<!doctype html") and result.stdout.rstrip().endswith("</html>")


@pytest.mark.parametrize("name", COMMANDS)
def test_output_file_gets_the_report_and_stdout_stays_empty(invocations, name, tmp_path):
    path = tmp_path / "report.json"
    result = run(*invocations[name], "--json", "-o", path, "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "" and result.stderr == ""
    assert json.loads(path.read_text())["schema"] == "diagnose.report/1"


def test_unusable_results_database_costs_the_save_not_the_report(tmp_path, junk):
    """$DIAGNOSE_DB saves every run: a file that is no database still gets the report printed,
    then one stderr line saying it was not saved, exit 3 (the store failed, not the input)."""
    result = run("predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tp", "1", "--json",
                 env={"DIAGNOSE_DB": str(junk["binary"])})
    assert result.exit_code == 3, (result.exit_code, result.stderr)
    assert json.loads(result.stdout)["schema"] == "diagnose.report/1"
    (line,) = result.stderr.splitlines()
    assert line.startswith("diagnose: the report was printed but not saved: ") and "results database" in line


def test_bad_input_leaves_no_half_written_output_file(tmp_path):
    path = tmp_path / "report.json"
    assert_bad_input(run("capture", tmp_path / "nope.sqlite", "--json", "-o", path))
    assert not path.exists()


# ---------------------------------------------------------------- exit codes 0 / 1


@pytest.mark.parametrize("args", [
    ["node", "--replay", NO_DRIVER],  # node.no_gpu is critical
    ["capture", PCIE, "--model", "llama-3-70b", "--tp", "8"],  # all-reduce off NVLink
])
def test_critical_finding_exits_1_and_never_exits_0(args):
    result = run(*args)
    assert result.exit_code == 1, result.stderr
    assert "CRITICAL" in result.stdout
    assert run(*args, "--fail-on", "never").exit_code == 0


def test_fail_on_warning_is_stricter_than_critical():
    args = ["predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "1,8"]  # TP1 does not fit: a warning
    assert run(*args).exit_code == 0
    assert run(*args, "--fail-on", "warning").exit_code == 1


def test_real_ticket_with_a_critical_cause_exits_1(tmp_path):
    bundle = shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm")
    copy = tmp_path / "ticket"
    shutil.copytree(bundle, copy, ignore=shutil.ignore_patterns("expected.toml"))
    result = run("ticket", copy, "--json")
    report = json.loads(result.stdout)
    worst = {f["severity"] for f in report["findings"]}
    assert result.exit_code == (1 if "critical" in worst else 0)
    assert run("ticket", copy, "--fail-on", "never").exit_code == 0


# ---------------------------------------------------------------- the tool failing: exit 3


def _group_with(exc):
    group = DiagnoseGroup("diagnose")

    @group.command("boom")
    def boom():
        raise exc

    return group


@pytest.mark.parametrize("exc, line", [
    (ProbeError("collective sweep timed out after 60 s"), "diagnose: collective sweep timed out after 60 s"),
    (RuntimeError("unexpected\nstate"), "diagnose: internal error: RuntimeError: unexpected state"),
])
def test_tool_failure_is_one_line_and_exit_3(exc, line):
    result = CliRunner().invoke(_group_with(exc), ["boom"], prog_name="diagnose")
    assert result.exit_code == 3
    assert result.stderr.splitlines()[0].startswith(line) and len(result.stderr.splitlines()) == 1


# ---------------------------------------------------------------- the piped terminal report


@pytest.mark.parametrize("name", COMMANDS)
def test_piped_tables_keep_header_words_whole(invocations, json_reports, name):
    """Piped output is 120 columns: a header may wrap between words, never inside one
    ("prefil l", "layo ut"), and no line is padded with trailing blanks."""
    result = run(*invocations[name], "--format", "terminal", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    text = result.stdout
    lines = text.splitlines()
    assert max(map(len, lines)) <= 120
    assert not [line for line in lines if line != line.rstrip()]
    report = json.loads(json_reports[name].stdout)
    for title, table in (report.get("tables") or {}).items():
        if not table["rows"]:
            continue  # printed as "TITLE: none"
        # a "unit" column is printed inside its numbers' cells (review item 14), not as a column
        for word in {w for c in table["columns"] if c != "unit" for w in str(c).split()}:
            assert re.search(rf"(?<!\S){re.escape(word)}(?!\S)", text), (title, word)


def test_catalog_figures_are_expectations_not_measurements(tmp_path):
    """A datasheet number is what the measurement is compared with; shown as 'measured' it
    reads as if the tool had measured the catalog."""
    bundle = shared_path("tickets", "071-nccl-1264-hgx-h100-p2p-749-of-900-bidirectional")
    copy = tmp_path / "ticket"
    shutil.copytree(bundle, copy, ignore=shutil.ignore_patterns("expected.toml"))
    report = json.loads(run("ticket", copy, "--json").stdout)
    rows = [e for f in report["findings"] for e in f["evidence"] if e["detail"].startswith("catalog")]
    assert rows
    for e in rows:
        assert e["measured"] is None and e["expected"] is not None, e


def test_history_pointed_at_a_capture_leaves_it_alone(tmp_path):
    copy = tmp_path / "capture.sqlite"
    shutil.copy(HEALTHY, copy)
    before = copy.read_bytes()
    result = run("history", "--db", copy)
    assert copy.read_bytes() == before and not (tmp_path / "capture.sqlite-wal").exists()
    assert_bad_input(result, "capture.sqlite")


def test_capture_says_when_the_given_tp_contradicts_the_capture():
    report = json.loads(run("capture", HEALTHY, "--model", "llama-3-70b", "--tp", "64", "--json").stdout)
    text = json.dumps(report["findings"])
    assert "64" in text and report["verdict"]["category"] != "healthy"


def test_capture_says_when_the_given_gpu_contradicts_the_capture():
    report = json.loads(run("capture", PCIE, "--gpu", "a100-80gb-sxm", "--model", "llama-3-70b", "--tp", "8",
                            "--json", "--fail-on", "never").stdout)
    assert any("H100" in f["summary"] and "a100" in f["summary"].lower() for f in report["findings"])


def test_capture_refuses_the_same_file_twice():
    assert_bad_input(run("capture", HEALTHY, HEALTHY), HEALTHY.name)


def test_fleet_counts_a_report_file_once(tmp_path):
    path = tmp_path / "node.json"
    run("node", "--replay", DGX, "--json", "-o", path, "--fail-on", "never")
    report = json.loads(run("fleet", path, path, path, "--json", "--fail-on", "never").stdout)
    assert len(report_table(report, "Fleet")["rows"]) == 1


def test_history_piped_is_as_wide_as_the_reports(tmp_path):
    db = tmp_path / "runs.db"
    run("predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--save", env={"DIAGNOSE_DB": str(db)})
    lines = run("history", "--db", db).stdout.splitlines()
    assert max(map(len, lines)) <= 120 and all(line == line.rstrip() for line in lines)


def test_per_step_all_reduce_count_matches_the_model_layers():
    """Llama-3-70B has 80 layers, so a TP decode step runs 2 x 80 all-reduces; the PCIe sample
    holds 4 steps with 161 each (one more for the logits)."""
    report = json.loads(run("capture", PCIE, "--model", "llama-3-70b", "--tp", "8", "--batch", "8", "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "capture.step_vs_prediction"]
    (row,) = [e for e in f["evidence"] if e["detail"] == "all-reduce kernels per step"]
    assert row["expected"] == 160
    assert abs(row["measured"] - 160) <= 2, row


# ---------------------------------------------------------------- --help


ALL_COMMANDS = ["capture", "compare", "fleet", "history", "node", "plan", "predict", "rules", "scaling", "ticket"]


def test_every_command_is_registered_whatever_was_imported_first():
    """A command module imported before diagnose.cli (as a test may do) must not leave the group half built."""
    import subprocess
    import sys

    code = ("import diagnose.commands.node; from diagnose.cli import cli; from click.testing import CliRunner; "
            "r = CliRunner().invoke(cli, ['ticket', '--help']); print(r.exit_code, sorted(cli.list_commands(None)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO).stdout
    assert out.strip() == f"0 {ALL_COMMANDS}"


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_command_help_has_a_summary_and_examples(command):
    result = run(command, "--help")
    assert result.exit_code == 0
    assert "Examples:" in result.stdout and f"diagnose {command}" in result.stdout.split("Examples:")[1]


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_every_option_says_what_it_does(command):
    """An option listed with only '[default: 8; x>=1]' leaves a newcomer guessing what it sets."""
    cmd = cli.get_command(None, command)
    bare = [p.opts[0] for p in cmd.params if isinstance(p, click.Option) and not (p.help or "").strip()]
    assert not bare, bare


WIDE_EXAMPLES = {}


@pytest.mark.parametrize("command", ALL_COMMANDS)
def test_help_fits_an_80_column_terminal(command, request):
    if command in WIDE_EXAMPLES:
        request.applymarker(pytest.mark.xfail(strict=True, reason=f"{WIDE_EXAMPLES[command]}: an example line is wider "
                                              "than 80 columns (break it with ' \\')"))
    wide = [line for line in run(command, "--help").stdout.splitlines() if len(line) > 80]
    assert not wide, wide


def test_command_list_summaries_are_not_cut_off():
    result = run("--help")
    commands = result.stdout.split("Commands:")[1]
    assert "..." not in commands, commands
    for name in ALL_COMMANDS:
        assert re.search(rf"^  {name}\s+\S", commands, re.M), name



# ---------------------------------------------------------------- numbers as a reader takes them


def test_byte_counts_read_in_binary_units():
    """/dev/shm of 25,276,514,304 bytes: the terminal says 23.5 GiB (the JSON keeps the bytes). The
    shm check passes, so it is one name on the 'Checks that passed' line, not a table."""
    result = run("node", "--replay", NO_DRIVER, "--fail-on", "never")
    (line,) = [x for x in result.stdout.splitlines() if "shm_bytes" in x]
    assert "23.5 GiB" in line and "25276514304" not in line, line
    report = json.loads(run("node", "--replay", NO_DRIVER, "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "host.shm_too_small"]
    assert f["severity"] == "ok" and f["evidence"][0]["measured"] == 25276514304
    assert "host.shm_too_small" in [x for x in result.stdout.splitlines() if x.startswith("Checks that passed")][0]


def test_pcie_pair_rates_say_which_direction():
    """50 GB/s over PCIe Gen4 x16 is only possible both ways at once; the evidence says so."""
    report = json.loads(run("node", "--replay", RECORDINGS / "8x-a40-nvlink-pairs-two-sockets.json", "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "host.cross_socket_p2p"]
    assert "(bidirectional)" in f["summary"]
    assert all("bidirectional" in e["detail"] for e in f["evidence"] if e["unit"] == "GB/s")
    (ok,) = [f for f in report["findings"] if f["rule"] == "topology.pair_bandwidth"]
    assert "90%–90%" not in ok["title"] and "90% of the NVLink line rate" in ok["title"]


@pytest.mark.parametrize("capture", ["fuser_h100x8node_matmul_2024_6.sqlite", "fuser_h200_crossentropy_2025_1.sqlite",
                                     "recon_a100x4_cupy_2023_1.sqlite", "memfusion_rtx3090x4_trt_2023_1.sqlite"])
def test_gpu_memory_is_what_cuda_reports(capture):
    """The marketed "80GB" is binary: the memory the planner and predictor fill is within 2% of the
    total CUDA reported in real captures (decimal GB would hide ~6% of every GPU)."""
    import sqlite3

    from rules import catalog

    path = shared_path("captures", capture)
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        name, total = db.execute("SELECT name, totalMemory FROM TARGET_INFO_GPU LIMIT 1").fetchone()
    spec = catalog.find_gpu(name=name)
    assert spec is not None, name
    assert spec.memory_bytes == pytest.approx(total, rel=0.02), (name, spec.key)


def test_plan_fallback_states_its_capacity_from_its_own_numbers():
    """256 users of Llama-3-70B FP8 at 8k: the most output tok/s comes from TP4 x DP2; for a stricter
    latency SLO the layout that goes lowest at one sequence per replica is TP8 x DP1 (TP1 x DP8, once
    offered, cannot go below 32.7 ms where TP4 x DP2 reaches 16.6 ms by capping its batch). The
    fallback finding states its capacity from the table's numbers, whichever way they go."""
    result = run("plan", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--gpus", "8", "--context", "8192",
                 "--concurrency", "256", "--dtype", "fp8", "--json")
    plan = json.loads(result.stdout)["predictions"]["plan"]
    chosen, fb = plan["chosen"], plan["fallback"]
    assert fb is not None and fb["itl_ms_one"] < chosen["itl_ms_one"]
    assert fb["itl_ms_one"] == min(o["itl_ms_one"] for o in plan["options"])
    (f,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "plan.slo"]
    assert f"drops below {chosen['itl_ms_one']:.1f} ms" in f["fix"]
    held = f"{fb['total_slots']} concurrent sequences instead of {chosen['total_slots']}"
    if fb["total_slots"] < chosen["total_slots"]:
        assert f"it holds {held}" in f["summary"] and "with fewer weight copies" not in f["summary"]
    else:
        assert f"with fewer weight copies it holds {held}" in f["summary"]


@pytest.mark.parametrize("model, pp, severity", [("deepseek-v3", 2, "info"), ("llama-3-8b", 6, "warning")])
def test_uneven_pp_split_evidence_is_the_layer_count(model, pp, severity):
    """61 layers over PP2: the largest stage has 31 against 30.5 (2% slower), a note. 32 layers over
    PP6: 6 against 5.33 (12.5%), a warning. The evidence is the layers, not an unrelated all-reduce time."""
    report = json.loads(run("predict", "--model", model, "--gpu", "h200", "--tp", "1", "--pp", pp, "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "predict.layout_warning"]
    assert f["severity"] == severity
    (e,) = f["evidence"]
    assert e["unit"] == "layers" and e["measured"] > e["expected"]


def test_an_empty_table_says_none_instead_of_a_bare_header(tmp_path):
    """Two node reports with nothing measured in common (the DGX H100 links, the A40 P2P matrix): the
    comparison table has no rows."""
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    run("node", "--replay", DGX, "--json", "-o", a, "--fail-on", "never")
    run("node", "--replay", RECORDINGS / "8x-a40-nvlink-pairs-two-sockets.json", "--json", "-o", b,
        "--fail-on", "never")
    report = json.loads(run("compare", a, b, "--json").stdout)
    empty = [t for t, table in report["tables"].items() if not table["rows"]]
    assert empty
    text = run("compare", a, b).stdout
    for title in empty:
        assert f"{title}: none" in text


def test_ticket_names_a_recognised_attachment_it_could_not_parse(tmp_path):
    """A reporter's ticket.toml with a TOML error is listed as unreadable, not as read."""
    bundle = shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm")
    copy = tmp_path / "ticket"
    shutil.copytree(bundle, copy, ignore=shutil.ignore_patterns("expected.toml"))
    (copy / "ticket.toml").write_text('[hardware\ngpu = "A100"\n')
    report = json.loads(run("ticket", copy, "--json", "--fail-on", "never").stdout)
    (row,) = [r for r in report_table(report, "Attachments read")["rows"] if r[0] == "ticket.toml"]
    assert "unreadable: not valid TOML" in row[1], row
    assert_bad_input(run("ticket", copy / "ticket.toml"), "ticket.toml", "not valid TOML")


def test_a_ticket_file_named_twice_is_read_once():
    """attachment1.txt named three times: its 12 active NVLinks of GPU 0 stay 12, not 36 (GPU 1's list
    is cut off by '...': not reported)."""
    bundle = shared_path("tickets", "010-nccl-tests-228-a100-p2p-level-loc-forces-shm")
    report = json.loads(run("ticket", bundle / "attachment1.txt", bundle / "attachment1.txt",
                            bundle / "attachment2.log", bundle / "ticket.toml", bundle / "attachment1.txt",
                            "--json", "--fail-on", "never").stdout)
    read = [r[0] for r in report_table(report, "Attachments read")["rows"]]
    assert read == ["attachment1.txt", "attachment2.log", "ticket.toml"]
    (f,) = [f for f in report["findings"] if f["rule"] == "topology.nvlink_links"]
    assert f["evidence"][0]["measured"] == 12
    assert f["title"].endswith("(12 on GPU 0)")  # the cut GPU 1 is not reported, never "1 on GPU 1" (review item 11)


@pytest.mark.parametrize("extreme", [["--mbu", "0.00001"], ["--mfu", "0.000001"], ["--batch", "100000"],
                                     ["--prompt", "1"]])
def test_predict_survives_extreme_but_valid_values(extreme):
    """Any value the options accept gives a report, never an internal error (rates that round to 0)."""
    result = run("predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tp", "1,2", *extreme,
                 "--json", "--fail-on", "never")
    assert result.exit_code == 0, result.stderr
    assert json.loads(result.stdout)["schema"] == "diagnose.report/1"


def test_plan_wording_on_three_t4s():
    """Llama-3-8B bf16 does not fit one 16 GB T4 and no TP divides 3 GPUs and 32 heads: PP3, said plainly."""
    report = json.loads(run("plan", "--model", "llama-3-8b", "--gpu", "t4", "--gpus", "3", "--context", "2048",
                            "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "plan.recommendation"]
    assert "TP1, the largest TP that divides 3 GPU(s), 32 heads and 8 KV heads, does not fit" in f["summary"]
    assert "1 replica." in f["summary"] and "At 1 sequence per replica" in f["summary"]


def test_no_fit_advice_names_only_smaller_dtypes():
    """DeepSeek-V3 is already FP8: the advice is int4, not 'fp8/int4'."""
    result = run("plan", "--model", "deepseek-v3", "--gpu", "h100-sxm", "--gpus", "8", "--context", "8192")
    assert_bad_input(result, "does not fit", "--dtype int4)")
    assert "fp8/int4" not in result.stderr


def test_scaling_names_how_a_capture_step_was_measured():
    report = json.loads(run("scaling", HEALTHY, PCIE, "--model", "llama-3-70b", "--gpu", "h100-sxm", "--batch", "8",
                            "--json", "--fail-on", "never").stdout)
    (table,) = [t for title, t in report["tables"].items() if title.startswith("Scaling:")]
    how = [row[table["columns"].index("as")] for row in table["rows"]]
    assert how == ["step median", "step median"]


def test_ideal_scaling_is_labelled_as_such(tmp_path):
    """Ticket 078: TP2 decodes at 77 tok/s against TP1's 90; the 180 it is compared with is ideal linear
    scaling, not a prediction, and the evidence says so."""
    bundle = shared_path("tickets", "078-vllm-22331-gptoss-120b-a100-tp2-slower-than-tp1")
    copy = tmp_path / "ticket"
    shutil.copytree(bundle, copy, ignore=shutil.ignore_patterns("expected.toml"))
    report = json.loads(run("ticket", copy, "--json", "--fail-on", "never").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "workload.latency_bound_small_batch"]
    (row,) = [e for e in f["evidence"] if e["source"].startswith("ticket.toml") and e["expected"] is not None]
    assert row["expected"] == 180.0 and "ideal scaling" in row["detail"]
    # "A100" is read as a GPU family, so the calibrated speed-up stands beside the ideal one. The ticket names vLLM
    # without its release: the newest release's profile (vllm-0.14: no host step, no hand-off to the second worker)
    # gives it: TP2 halves the ~2.93 ms weight stream and adds 72 all-reduces (0.43 ms) and the wait for the slower
    # GPU (0.10 ms), while the kernels' fixed cost (2.18 ms) stays: 5.15 -> 4.22 ms, x1.22 (cited as
    # prediction:expected, not the roofline's, ut9a item 11; V0's 1.68 ms host step and 1.0 ms hand-off made it ~x1.0)
    (predicted,) = [e for e in f["evidence"] if e["source"] == "prediction:expected"]
    assert predicted["measured"] == 0.86 and 1.15 < predicted["expected"] < 1.3


def test_an_invalid_tp_is_one_finding_with_every_reason_and_the_valid_sizes():
    """Llama-3-70B at TP3: 64 heads, 8 KV heads and FFN 28672 all refuse it; one finding, heads first,
    and the evidence names the sizes that work."""
    report = json.loads(run("predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "3,8", "--json").stdout)
    (f,) = [f for f in report["findings"] if f["rule"] == "predict.invalid_layout"]
    assert f["summary"].startswith("64 attention heads are not divisible by TP=3")
    assert "FFN 28672" in f["summary"] and "Valid TP sizes up to 64: 1, 2, 4, 8, 16, 32, 64." in f["summary"]
    assert len(f["evidence"]) == 3 and all(e["expected"] == "TP in {1, 2, 4, 8, 16, 32, 64}" for e in f["evidence"])


@pytest.mark.parametrize("command", ["capture", "node", "ticket", "compare"])
def test_output_never_overwrites_an_input(tmp_path, command):
    """`-o` naming one of the inputs would replace a capture, recording or attachment with the report."""
    capture, recording = tmp_path / "run.sqlite", tmp_path / "node.json"
    shutil.copy(HEALTHY, capture)
    shutil.copy(DGX, recording)
    args, target = {"capture": (["capture", capture], capture), "node": (["node", "--replay", recording], recording),
                    "ticket": (["ticket", recording], recording),
                    "compare": (["compare", f"{capture},{capture}", HEALTHY], capture)}[command]
    before = target.read_bytes()
    assert_bad_input(run(*args, "-o", target), "one of the inputs")
    assert target.read_bytes() == before


def test_output_and_record_must_differ(tmp_path):
    path = tmp_path / "node.json"
    assert_bad_input(run("node", "--quick", "--record", path, "-o", path), "--record")
    assert not path.exists()


def test_a_ctrl_c_wrapped_by_python_is_still_an_abort(monkeypatch, tmp_path):
    """A Ctrl-C that lands while a module defines a class reaches the CLI as RuntimeError ('Error calling __set_name__
    on ...', its cause the KeyboardInterrupt): seen in tests/test_capture_forked.py under load. It is an abort (130,
    'diagnose: aborted'), not an internal error."""
    from click.testing import CliRunner

    import diagnose.bundle
    from diagnose.cli import cli

    def interrupted(paths):
        try:
            raise KeyboardInterrupt
        except KeyboardInterrupt as exc:
            raise RuntimeError("Error calling __set_name__ on 'Field' instance 'kinds' in 'FileRead'") from exc

    monkeypatch.setattr(diagnose.bundle, "read_bundle", interrupted)
    (tmp_path / "issue.md").write_text("TP=2 is slow.\n")
    result = CliRunner().invoke(cli, ["ticket", str(tmp_path)], prog_name="diagnose")
    assert result.exit_code == 130 and result.stderr.split() == ["diagnose:", "aborted"], result.stderr
    # an error that is no interrupt stays an internal error (exit 3)
    monkeypatch.setattr(diagnose.bundle, "read_bundle", lambda paths: 1 / 0)
    result = CliRunner().invoke(cli, ["ticket", str(tmp_path)], prog_name="diagnose")
    assert result.exit_code == 3 and "internal error: ZeroDivisionError" in result.stderr

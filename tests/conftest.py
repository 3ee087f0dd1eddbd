import os
from pathlib import Path

import pytest

# A crashing rule must fail the tests, not hide as a finding.
os.environ.setdefault("DIAGNOSE_STRICT", "1")
# No analysis read back from ~/.cache: a test must run the code it tests (tests/test_capture_cache.py
# turns the cache on, in a folder of its own).
os.environ["DIAGNOSE_CACHE"] = "off"
# The reports are tested as a pipe lays them out (120 columns) unless a test sets a width: a terminal's COLUMNS, or
# the 80 x 24 that pytest-xdist's workers inherit, would lay the tables out otherwise.
for _size in ("COLUMNS", "LINES"):
    os.environ.pop(_size, None)

REPO = Path(__file__).resolve().parent.parent
SHARED = REPO.parent / "shared"


def shared_path(*parts) -> Path:
    """A path under ../shared, or skip the test with the reason."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        pytest.skip(f"{path} is absent (the project's shared reference folder is not beside the checkout)")
    return path


def published_tables():
    """(file name, its '# Conditions:' line, the engines its rows name) of every table in tests/data/published."""
    for path in sorted((Path(__file__).parent / "data" / "published").glob("*.csv")):
        lines = path.read_text().splitlines()
        conditions = next((x for x in lines if x.startswith("# Conditions:")), "")
        engines = {x.split(",")[0] for x in lines if x and not x.startswith("#") and not x.startswith("engine,")}
        yield path.name, conditions, engines


# a ticket.toml stating one decode rate of one GPU at batch 1 (format: description, gpu, framework, model, rate)
ONE_GPU_RATE_TOML = """description = "{description}"
[hardware]
gpu = "{gpu}"
gpu_count = 1
[software]
framework = "{framework}"
[workload]
model = "{model}"
tp = 1
batch = 1
[[measured]]
metric = "decode_tok_s"
value = {rate}
tp = 1
batch = 1
"""


def measured_vs_expected(folder, name, text):
    """The ticket.measured_vs_expected finding of a bundle holding one file `name` with `text`."""
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate

    folder.mkdir(exist_ok=True)
    (folder / name).write_text(text)
    (f,) = [f for f in evaluate(read_bundle([folder])) if f.rule == "ticket.measured_vs_expected"]
    return f


def llama8b_itl_predict_and_scaling(folder, engine: str, itl_ms: float) -> tuple[dict, dict]:
    """Llama-3-8B on one H100, one request, 512-token prompts, 256 out, run by `engine`: predict's layout, and
    scaling's row for a measured ITL of `itl_ms` (both commands exit 0 or 1)."""
    import json

    pred = diagnose("predict", "--model", "llama-3-8b", "--gpu", "h100-sxm", "--tp", "1", "--engine", engine,
                    "--prompt", "512", "--output-len", "256", "--json")
    assert pred.exit_code == 0, pred.output
    runs = folder / "itl.csv"
    runs.write_text(f"layout,batch,metric,value,engine\nTP1,1,itl_ms,{itl_ms},{engine}\n")
    scal = diagnose("scaling", runs, "--model", "llama-3-8b", "--gpu", "h100-sxm", "--prompt", "512", "--context",
                    "768", "--json")
    assert scal.exit_code in (0, 1), scal.output
    (row,) = json.loads(scal.stdout)["predictions"]["scaling"]["rows"]
    return json.loads(pred.stdout)["predictions"]["layouts"][0], row


def diagnose(*args, env=None):
    """Run `diagnose ARGS...` in-process, as the shell would; a crash (not an exit) fails the test."""
    from click.testing import CliRunner

    from diagnose.cli import cli

    result = CliRunner().invoke(cli, [str(a) for a in args], prog_name="diagnose", env=env)
    assert result.exception is None or isinstance(result.exception, SystemExit), result.exception
    return result


def report_json(*args, env=None) -> dict:
    """`diagnose ARGS... --json --fail-on never` as a parsed report (exit 0 asserted)."""
    import json

    result = diagnose(*args, "--json", "--fail-on", "never", env=env)
    assert result.exit_code == 0, result.output + result.stderr
    return json.loads(result.stdout)


def named(records):
    """Parsed records with each GPU named by its catalog row, as the pipeline does for a command."""
    from diagnose.evidence import Facts
    from diagnose.pipeline import name_catalog_rows

    facts = Facts()
    facts.add(list(records))
    name_catalog_rows(facts)
    return records


def pytest_collection_modifyitems(config, items):
    """Skip @pytest.mark.gpu tests where no NVIDIA driver answers."""
    if _gpu_present():
        return
    skip = pytest.mark.skip(reason="needs an NVIDIA GPU and driver (NVML found none)")
    for item in items:
        if "gpu" in item.keywords:
            item.add_marker(skip)


def _gpu_present() -> bool:
    try:
        import pynvml

        pynvml.nvmlInit()
        count = pynvml.nvmlDeviceGetCount()
        pynvml.nvmlShutdown()
        return count > 0
    except Exception:
        return False


@pytest.fixture(autouse=True)
def _bundled_catalog_only(monkeypatch):
    """Each test starts from the bundled catalogs and no results store: a user's $DIAGNOSE_CATALOG or an earlier
    test's --catalog must not leak in (the CLI configures the catalog module globally)."""
    from rules import catalog

    monkeypatch.delenv("DIAGNOSE_CATALOG", raising=False)
    monkeypatch.delenv("DIAGNOSE_DB", raising=False)  # never save test runs into a developer's store
    catalog.configure()
    yield
    catalog.configure()


def judged_issue(text: str | None = None, folder: Path | None = None):
    """(verdict, {rule id: finding}) of `diagnose ticket` on a pasted issue's text, or on a folder read as a bundle."""
    from diagnose.artifacts import issue_md
    from diagnose.bundle import read_bundle
    from diagnose.evidence import Facts
    from rules.engine import evaluate, ticket_verdict

    if folder is not None:
        facts = read_bundle([folder])
    else:
        facts = Facts()
        facts.add(*issue_md.parse(text, "issue.md"))
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), {f.rule: f for f in findings}


def read_paste(tmp_path: Path, text: str):
    """The facts `diagnose ticket` reads from `text` kept as one pasted ticket.md; fails if it was not read as a ticket
    (every check on its facts would then be empty)."""
    from diagnose.bundle import read_bundle

    path = tmp_path / "ticket.md"
    path.write_text(text)
    facts = read_bundle([path])
    assert facts.files[0].kinds, "the paste was not read as a ticket: the check below would be empty"
    return facts


def judged_kept_paste(tmp_path: Path, rel: str):
    """(verdict, {rule id: finding}) of `diagnose ticket` on the kept paste tests/data/<rel>, as a bundle's issue.md."""
    import shutil

    folder = tmp_path / Path(rel).stem
    folder.mkdir()
    shutil.copy(REPO / "tests" / "data" / rel, folder / "issue.md")
    return judged_issue(folder=folder)


def issue_bundle(text: str):
    """The facts `diagnose ticket` reads from a bundle folder holding `text` as its issue.md."""
    import tempfile

    from diagnose.bundle import read_bundle

    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp) / "ticket"
        folder.mkdir()
        (folder / "issue.md").write_text(text)
        return read_bundle([folder])


def judged_file(tmp_path: Path, data: Path, name: str):
    """judged_issue of data/<name>.md copied into a bundle folder of its own (as issue.md)."""
    folder = tmp_path / name
    folder.mkdir()
    (folder / "issue.md").write_text((data / f"{name}.md").read_text())
    return judged_issue(folder=folder)


@pytest.fixture
def fitter(monkeypatch):
    """scripts/fit_predictor.py as a module (it is a script, not a package)."""
    import importlib.util
    import sys

    spec = importlib.util.spec_from_file_location("fit_predictor", Path(__file__).parent.parent / "scripts"
                                                  / "fit_predictor.py")
    module = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "fit_predictor", module)  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


def toml_cases(folder: Path, name: str) -> list:
    """The [[case]] tables of folder/name.toml (name with or without ".toml"), one pytest.param each ("name-i"): the
    real sentences the review and mend passes keep with their threads. A case that carries `xfail` (the reason a
    reading still misses it) is a strict xfail, so it fails the day the reading starts to hold."""
    import tomllib

    name = name.removesuffix(".toml")
    cases = tomllib.loads((folder / f"{name}.toml").read_text())["case"]
    return [pytest.param(c, id=f"{name}-{i}", marks=[pytest.mark.xfail(reason=c["xfail"], strict=True)]
                         if c.get("xfail") else []) for i, c in enumerate(cases)]


def unsourced_cases(folder: Path) -> list:
    """(file, sentence) of each [[case]] in folder/*.toml whose url is no GitHub address: every kept sentence names
    the thread it came from."""
    import tomllib

    return [(path.name, case.get("sentence")) for path in sorted(folder.glob("*.toml"))
            for case in tomllib.loads(path.read_text())["case"] if not case["url"].startswith("https://github.com/")]


def unlisted_cases(folder: Path) -> list:
    """(file, url) of each [[case]] in folder/*.toml whose url is no GitHub address or is missing from the folder's
    SOURCES.md: every kept case names its thread, and the thread is listed with its answer."""
    import tomllib

    sources = (folder / "SOURCES.md").read_text()
    return [(path.name, case["url"]) for path in sorted(folder.glob("*.toml"))
            for case in tomllib.loads(path.read_text())["case"]
            if not (case["url"].startswith("https://github.com/") and case["url"] in sources)]


def threads_reused(families: dict, dirs: tuple, also: tuple = ()) -> list:
    """(reading, url) of each review case whose thread appears in the data folders `dirs` (their .md and .toml files)
    or in the test files `also`: a review tries its readings on threads they were not written from."""
    root = Path(__file__).parent
    used = "".join(p.read_text() for d in dirs for p in (root / "data" / d).rglob("*")
                   if p.is_file() and p.suffix in (".md", ".toml"))
    used += "".join((root / name).read_text() for name in also)
    ends = (" ", "\n", ")", ",", '"', ";", "'", "#", "|")
    return [(name, case["url"]) for name, family in families.items() for case in family["case"]
            if any(case["url"] + end in used for end in ends)]


def case_facts(case: dict):
    """The facts of a kept case's title and text as a pasted issue, its subject resolved as rules.engine does."""
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Facts
    from rules.subject import Subject

    facts = Facts()
    facts.add(*issue_md.parse(f"# {case['title']}\n\n{case['text']}\n", "issue.md"))
    facts.subject = Subject.of(facts)
    return facts


def case_report(case: dict, tmp_path: Path) -> dict:
    """`diagnose ticket --json` on a kept case's title and text pasted as an issue."""
    ticket = tmp_path / "t.md"
    ticket.write_text(f"# {case['title']}\n\n{case['text']}\n")
    return report_json("ticket", str(ticket))


def reading_gaps(folder: Path, families: dict, near: dict, left=()) -> list[str]:
    """The readings of a precision review whose kept cases miss its shape: a family named unlike its file, a case whose
    thread is no GitHub address listed in folder/SOURCES.md, no near-miss (`near(case)` true) among its cases, or no
    positive unless `left` names it (no untaken real positive was found). Every family has a `near` and every `near`
    a family."""
    sources = (folder / "SOURCES.md").read_text()
    gaps = sorted(set(families) ^ set(near))
    for name, family in families.items():
        cases = family["case"]
        if family["family"] != name or name not in near \
                or not all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in cases) \
                or not any(near[name](c) for c in cases) or not (any(not near[name](c) for c in cases) or name in left):
            gaps.append(name)
    return gaps


def said(text: str):
    """Facts holding one description note with `text`: the reporter's words alone, as the claim readers see them."""
    from diagnose.evidence import Facts, Note

    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def finding(report: dict, rule: str) -> dict | None:
    """The first finding of `rule` in a parsed --json report, or None."""
    return next((f for f in report["findings"] if f["rule"] == rule), None)


def strict_miss(case: str, reason: str):
    """A pytest.param for a paste the tool does not yet answer as its thread settled: a strict xfail naming why."""
    return pytest.param(case, marks=pytest.mark.xfail(strict=True, reason=reason), id=case)

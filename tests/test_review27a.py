"""Precision review of session 26's readings, part A (issue 11, review27a): ut26a's remedy tried, prospective
scaling question, layouts said alike, rates per layout and training job; ut26c's planned GPUs, several boards against
one and llama.cpp's --tensor-split; scope26's sum over streams. Each is tried on real sentences and pastes of threads
none of them was written from (tests/data/review27a/<reading>.toml, URLs in SOURCES.md): positives it must read and
near-misses (`near`) that look alike but must not be read that way. `xfail`: why a case still fails (strict);
`mended`: what it read before this review's mends."""

import tempfile
from pathlib import Path

import pytest
import tomllib
from conftest import finding, report_json, said

from diagnose.artifacts import issue_md, launch
from diagnose.evidence import Workload
from rules import claims
from rules.ticket_figures import training_job

DATA = Path(__file__).parent / "data" / "review27a"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _cases(name: str) -> list:
    return [pytest.param(c, id=f"{name}-{i}", marks=[pytest.mark.xfail(reason=c["xfail"], strict=True)]
                         if c.get("xfail") else []) for i, c in enumerate(FAMILIES[name]["case"])]


@pytest.mark.parametrize("case", _cases("remedy"))
def test_a_remedy_that_did_not_work_is_no_error(case):
    assert claims.symptom_quote(said(case["text"]))[2] == case["symptom"]


@pytest.mark.parametrize("case", _cases("layout_asked"))
def test_the_prospective_scaling_question(case):
    assert bool(claims.layout_speed_asked(said(case["text"]))) is case["asked"]


@pytest.mark.parametrize("case", _cases("alike"))
def test_two_layouts_said_alike(case):
    assert bool(claims.more_gpus_no_gain(said(case["text"]))) is case["no_gain"]


@pytest.mark.parametrize("case", _cases("rates_by_layout"))
def test_a_rate_per_gpu_count(case):
    assert sorted(claims.rates_by_layout(said(case["text"]))) == case["layouts"]


@pytest.mark.parametrize("case", _cases("training"))
def test_a_training_job(case):
    assert training_job(said(case["text"])) is case["training"]
    if "data_parallel" in case:
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "issue.md").write_text(case["text"] + "\n")
            lead = finding(report_json("ticket", tmp), "ticket.symptom_prior")
        answered = bool(lead) and lead["title"].startswith("Data-parallel training")
        assert answered is case["data_parallel"]


@pytest.mark.parametrize("case", _cases("planned"))
def test_gpus_planned_are_not_the_machines(case):
    read = [(w.gpu or "", w.gpu_count or 0) for w in issue_md.parse(case["text"], "post.md")
            if isinstance(w, Workload) and (w.gpu or w.gpu_count)]
    assert read == [tuple(g) for g in case["gpus"]]


@pytest.mark.parametrize("case", _cases("tensor_split"))
def test_tensor_split_counts_the_gpus(case):
    assert [w.gpu_count for w in launch.parse(case["text"], "run.sh") if w.gpu_count] == case["counts"]


@pytest.mark.parametrize("case", _cases("scope"))
def test_a_sum_over_streams_against_one_stream(case):
    ref = claims.reference_rate(case["text"])
    scope = ref.data.get("scope") if ref else None
    want = case.get("scope")
    assert (None if scope is None else (scope["what"], scope["count"])) == \
        (None if want is None else (want["what"], want.get("count")))


def test_every_case_names_its_thread_and_none_was_taken_before():
    """Each URL is in SOURCES.md, and none is a thread the readings were written from or an earlier review's."""
    sources = (DATA / "SOURCES.md").read_text()
    root = Path(__file__).parent / "data"
    used = "".join(p.read_text() for d in ("ut26a", "ut26c", "scope26", "review26") for p in (root / d).rglob("*")
                   if p.is_file() and p.suffix in (".md", ".toml"))
    for name, family in FAMILIES.items():
        assert family["family"] == name
        for case in family["case"]:
            assert case["url"] in sources, case["url"]
            assert not any(case["url"] + end in used for end in (" ", "\n", ")", ",", '"', ";", "'", "#")), case["url"]
        assert any(c.get("near") for c in family["case"]), name  # every reading meets real near-misses


@pytest.mark.parametrize("case", _cases("prompt_rate"))
def test_a_pipeline_label_keeps_the_decode_rates(case):
    kept = [m for m in issue_md.parse(case["text"], "post.md") if getattr(m, "metric", "") == "decode_tok_s"]
    assert bool(kept) is case["kept"]

"""Two readings of the reporter's words (issue 11, session 25, mend2): a release of the engine said to work, and GPU
utilisation said loosely.

A release said to work ("works fine with vLLM 0.6.6.post1", "Rolling back to `v0.6.0` resolves the issue", "Working
version: 0.6.6.post1") becomes the good side of the release A/B where a failing release is named too, and the release
the answer's fix pins. A utilisation said as a range ("sits at ~10-20%"), as a ceiling ("不超过20%", "not used more than
35%"), bare ("the GPU-Util is usually 0") or per card ("when one GPU is 100%, the other is 0%") becomes the same
gpu_util readings a parsed nvidia-smi gives. Real sentences in tests/data/mend2_25/*.toml, each with its URL,
near-misses beside them; the readers were written from the vocabulary, not from these sentences."""

import re
from pathlib import Path

import pytest
import tomllib

from rules import claims
from rules.engine import evaluate, ticket_findings
from tests.conftest import said, toml_cases

DATA = Path(__file__).parent / "data" / "mend2_25"


def _cases(name: str) -> list:
    return toml_cases(DATA, name)


def _base(release: str) -> str:
    return re.match(r"\d+\.\d+(?:\.\d+)?", release).group(0)


def test_every_case_names_its_source():
    sources = (DATA / "SOURCES.md").read_text()
    for name in ("releases.toml", "utilisation.toml"):
        for case in tomllib.loads((DATA / name).read_text())["case"]:
            assert case["url"].startswith("https://github.com/") and case["url"] in sources, case["url"]


@pytest.mark.parametrize("case", _cases("releases.toml"))
def test_a_release_said_to_work(case):
    works = claims.release_works(case["text"])
    assert (works[3] if works else "") == case["works"]
    compared = claims.find(said(case["text"]), "engine_versions_compared")
    if case["failing"]:
        (c,) = compared
        good = case.get("good") or _base(case["works"])  # (the release left by an upgrade, where none is said to work)
        assert case["failing"] in c.data["versions"] and c.data["good"] == good
    else:
        assert not any(c.data.get("good") and c.data["good"] not in case["works"] for c in compared)


@pytest.mark.parametrize("case", [c for c in _cases("releases.toml") if c.values[0]["failing"]])
def test_the_fix_pins_the_release_said_to_work(case):
    facts = said(case["text"])
    lead = next(f for f in ticket_findings(facts, evaluate(facts)) if f.rule == "ticket.engine_versions")
    good = case.get("good") or case["works"]  # as written, its suffix kept ("0.6.6.post1")
    assert f" {good} (the release that worked, per the report)" in lead.fix
    assert lead.fix.startswith("Pin ")


def test_an_error_with_a_release_said_to_work_pins_it():
    # vllm-project/vllm#22126: the error in the description, "it works in 9.2" in the reporter's comment
    text = ("I get this error when trying to load GLM-4.5-Air-FP8 with vLLM on two 6000 blackwell gpus:\n\n"
            "```\nValueError: <class 'transformers.models.glm4_moe.modeling_glm4_moe.Glm4MoeModel'> does not "
            "support tensor parallel yet!\n```\n\n--tensor-parallel-size 2  seems broken for Blackwell 6000 pro since "
            "version 10. it works in 9.2 but the models I want to use are not supported in the older version")
    facts = said(text)
    findings = ticket_findings(facts, evaluate(facts))
    pinned = [f for f in findings if f.fix and "9.2 (the release that worked, per the report)" in f.fix]
    assert pinned, [(f.rule, f.fix) for f in findings]


@pytest.mark.parametrize("case", _cases("utilisation.toml"))
def test_utilisation_said_loosely_reads_as_nvidia_smi_would(case):
    read = [c for c in claims.claims(said(case["text"])) if c.kind == "gpu_util" and not c.negated]
    assert sorted([c.data.get("low", c.data["percent"]), c.data["percent"]] for c in read) == sorted(case["readings"])
    if case.get("below"):
        assert all(c.data["below"] for c in read)


@pytest.mark.parametrize("text", [
    "GPU utilization never reaches 100% and generation is slow.",  # full share ruled out: not a reading
    "The GPU-Util won't go above 95 % while decoding.",
])
def test_a_ceiling_at_full_stays_ruled_out(text):
    (u,) = [c for c in claims.claims(said(text)) if c.kind == "gpu_util"]
    assert u.negated

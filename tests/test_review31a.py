"""Precision review of the readings session 27 merged from ut27a (issue 11, review31a), each tried on real sentences
of threads none of them was written from (tests/data/review31a/<reading>.toml, URLs in SOURCES.md): positives it
must read and near-misses that look alike but must not be read that way. `xfail`: why a case still fails (strict);
`mended`: what it read before this review.

- quant_flag: an engine's quantisation flag sets the weights' width, the checkpoint's name its bits (GPTQ-Int8);
- time_per_token: TGI's time per token is a latency, its other request timings are not;
- bitsandbytes_path: a run through bitsandbytes, not bitsandbytes as the faster reference of a slower run;
- quantised_original: a quantised checkpoint against its original, not a question nor two quantisations;
- time_then_output: a time before its token count, never paired with another run's count;
- instruct_names: a base name of an instruct-only catalog release resolves, another size or family does not;
- one_gpu: one GPU said, not boards counted before their name ("dual 4090");
- ep_layout: an expert-parallel layout run or named, not asked about, nor ONNX Runtime's execution providers."""

from pathlib import Path

import pytest
import tomllib
from conftest import issue_bundle, said, toml_cases

from diagnose.artifacts import figures, issue_md, launch
from diagnose.evidence import Workload
from rules import catalog, claims, quant_tradeoff, subject
from rules.common import one_gpu_job
from rules.ticket_rules import expert_layout

DATA = Path(__file__).parent / "data" / "review31a"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


@pytest.mark.parametrize("case", toml_cases(DATA, "quant_flag"))
def test_a_quantisation_flag_sets_the_weights_the_checkpoint_names(case):
    (w,) = [x for x in launch.parse(case["text"], "issue.md") if isinstance(x, Workload) and x.model]
    assert (w.dtype or "none") == case["dtype"]


@pytest.mark.parametrize("case", toml_cases(DATA, "time_per_token"))
def test_tgis_time_per_token_is_a_latency(case):
    m = issue_md.LATENCY.search(case["text"])
    assert (m.group(2) if m else "none") == case["ms"]


@pytest.mark.parametrize("case", toml_cases(DATA, "bitsandbytes_path"))
def test_bitsandbytes_is_the_runs_path_not_the_faster_reference(case):
    assert (quant_tradeoff.bitsandbytes_stated(said(case["text"])) is not None) is case["stated"]
    assert bool(list(quant_tradeoff.bitsandbytes_path(issue_bundle(case["text"])))) is case["fires"]


@pytest.mark.parametrize("case", toml_cases(DATA, "quantised_original"))
def test_a_quantised_checkpoint_against_its_original(case):
    assert bool(quant_tradeoff.quantised_loses(said(case["text"]))) is case["read"]


@pytest.mark.parametrize("case", toml_cases(DATA, "time_then_output"))
def test_a_time_pairs_only_with_its_own_output(case):
    assert [round(f.value, 2) for f in figures.counted_rates(case["text"])] == case["rates"]


@pytest.mark.parametrize("case", toml_cases(DATA, "instruct_names"))
def test_a_base_name_resolves_only_to_its_own_release(case):
    assert case["name"] in case["text"]
    hit = next((m for n in subject._model_names(case["name"]) if (m := catalog.find_model(n))), None)
    assert (hit.key if hit else "none") == case["key"]


@pytest.mark.parametrize("case", toml_cases(DATA, "one_gpu"))
def test_one_gpu_said_and_not_boards_counted(case):
    assert one_gpu_job(said(case["text"])) is case["one"]


@pytest.mark.parametrize("case", toml_cases(DATA, "ep_layout"))
def test_an_expert_parallel_layout_run_not_asked_about(case):
    assert (expert_layout(said(case["text"])) is not None) is case["layout"]
    assert bool(claims.tp_ep_compared(said(case["text"]))) is case["compared"]


# Readings for which this review found no untaken real thread on one side (SOURCES.md says which side).
LEFT = {"time_then_output"}


def test_every_case_names_its_thread_and_each_reading_has_near_misses_and_positives():
    sources = (DATA / "SOURCES.md").read_text()
    near = {"quant_flag": lambda c: c["dtype"] in ("none", "fp16", "bf16"),
            "time_per_token": lambda c: c["ms"] == "none",
            "bitsandbytes_path": lambda c: not c["fires"], "quantised_original": lambda c: not c["read"],
            "time_then_output": lambda c: True, "instruct_names": lambda c: c["key"] == "none",
            "one_gpu": lambda c: not c["one"], "ep_layout": lambda c: not c["layout"]}
    assert set(FAMILIES) == set(near)
    for name, family in FAMILIES.items():
        assert family["family"] == name
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        assert any(near[name](c) for c in family["case"]), name
        assert any(not near[name](c) for c in family["case"]) or name in LEFT, name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of ut27a's own sources."""
    own = (Path(__file__).parent / "data" / "ut27a" / "SOURCES.md").read_text()
    for family in FAMILIES.values():
        assert not [c["url"] for c in family["case"] if c["url"] in own]

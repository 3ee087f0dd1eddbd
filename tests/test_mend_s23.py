"""Mends of the ticket's readings of the reporter's words (issue 11, session 23), each tested on real sentences kept
with their threads in tests/data/mend_s23/*.toml (`adapted` says where the words were put in another form):

1. "several GPUs, only one used" is the engines' default placement (ticket.one_gpu_by_design) only where the model is
   known to fit one of the GPUs; with no model named the ticket asks for it, and says the fit is an assumption.
"""

from pathlib import Path

import pytest
from conftest import judged_issue, toml_cases, unsourced_cases

DATA = Path(__file__).parent / "data" / "mend_s23"


def _cases(name: str):
    return toml_cases(DATA, name)


def test_every_sentence_names_its_source():
    assert unsourced_cases(DATA) == []


# --------------------------------------------------------------------------- 1. one GPU used: does the model fit?

@pytest.mark.parametrize("case", _cases("one_gpu_fit"))
def test_one_gpu_by_design_only_where_the_model_fits(case):
    verdict, found = judged_issue(f"# Only one GPU is used\n\n{case['sentence']}\n")
    f = found.get("ticket.one_gpu_by_design")
    if case["fit"] == "no":
        assert f is None or f.category != "healthy", case["sentence"]
    elif case["fit"] == "yes":
        assert f is not None and f.category == "healthy" and "fits" in f.title, case["sentence"]
        assert "Assumed: the model fits" not in f.summary, f.summary  # the fit is the catalog's, not assumed
        assert verdict.category == "healthy"
    else:
        # no model named: nothing shows it fits; the answer says so and asks for the model
        assert f is not None and "if the model fits" in f.title.lower(), case["sentence"]
        # a healthy answer resting on it says what is missing (another rule may answer the ticket another way)
        assert verdict.category != "healthy" or "attach the model" in verdict.summary.lower(), verdict.summary


# --------------------------------------------------------------------------- 2. a release written informally

@pytest.mark.parametrize("case", _cases("engine_release_informal"))
def test_an_informal_release_is_read_after_the_engines_name(case):
    from diagnose.artifacts.text import engine_named, engine_release

    assert (engine_named(case["sentence"]) or "").lower() == case["engine"].lower(), case["sentence"]
    assert engine_release(case["sentence"], case["engine"]) == case.get("release"), case["sentence"]


def test_a_release_without_its_zero_major_is_the_engines_release_line():
    # vllm#22479's 'version 10' reaches the ticket's engine profile as 0.10 (a 0.x engine only)
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Facts, Workload

    facts = Facts()
    facts.add(*issue_md.parse("# Slow\n\nWith vllm version 10 on 4 A100 the model runs slower than before.\n",
                              "issue.md"))
    assert [w.framework for w in facts.of(Workload) if w.framework] == ["vllm 0.10"]


# --------------------------------------------------------------------------- 4. a GPU name nvidia-smi cut short

@pytest.mark.parametrize("case", _cases("smi_cut_names"))
def test_a_cut_gpu_name_takes_the_variant_its_memory_total_says(tmp_path, case):
    from diagnose.bundle import read_bundle
    from rules import catalog
    from rules.subject import Subject

    (tmp_path / "nvidia-smi.txt").write_text(case["smi"])
    subject = Subject.of(read_bundle([tmp_path / "nvidia-smi.txt"]))
    assert subject.gpu.key == case["key"], subject.gpu_source
    # the variant's own row: its bandwidth, not the default row's with another memory size
    assert subject.gpu.hbm_gbs == catalog.gpus()[case["key"]].hbm_gbs
    assert subject.gpu.memory_said is None or case["key"] in subject.gpu_source, subject.gpu_source


# --------------------------------------------------------------------------- 3. accelerate's device_map, max_memory

@pytest.mark.parametrize("case", _cases("device_map_split"))
def test_a_device_map_strategy_or_a_max_memory_of_several_gpus_is_a_layer_split(case):
    from conftest import said

    from rules import claims

    found = [c for c in claims.claims(said(case["sentence"])) if c.kind == "layer_split" and not c.negated]
    assert bool(found) is case["split"], case["sentence"]

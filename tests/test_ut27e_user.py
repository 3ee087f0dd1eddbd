"""Defects found by answering real "is this speed normal?" and "why is the second GPU not helping?" threads about local
engines on consumer and workstation GPUs as a support engineer (session s27, pass ut27e, tests/data/ut27e; SOURCES.md
gives each thread's address, the answer it established and the verdict before and after), fixed in general and tested
on the paste that showed them, on real sentences of other threads, and on real near-misses:

- "I have two 3090 graphics cards / Running Llama 3.1 70B Instruct Q4 is slow, is this normal?" (janhq/jan#3955, whose
  cause was layers left on the CPU) came back expected_physics from three priors, none with a figure: the rig named
  was read as a layout that grew (claims._RIG_OWNED), a bare 'slow' as a performance figure
  (ticket_rules._about_performance), and 'calls it slow' as a shortfall nothing broke (ticket_questions._plain_slow);
- LM Studio, which runs llama.cpp and splits a model by layers over the GPUs, was not read as a layer-split engine, so
  "55 tok/sec on the 5090, 40 tok/sec after I added the 3080" (lmstudio-ai/lmstudio-bug-tracker#1608) got no answer
  (gpus_in_use.LAYER_SPLIT_ENGINES: the llamacpp profile key);
- a Markdown table's "Prompt processing" column was read as decode rates (LostRuins/koboldcpp#1780;
  issue_md._column_label);
- a one-GPU ticket whose count is unsaid ("my P40 is only using about 70W", turboderp/exllama#75) was asked for a
  topology matrix and an all_reduce_perf run (common.one_gpu_job).
"""

from pathlib import Path

import pytest
from conftest import finding, judged_issue, report_json, said

from rules import claims
from rules.gpus_in_use import layer_split_engine

DATA = Path(__file__).parent / "data" / "ut27e"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- the pastes, as answered

def test_jan_3955_slow_with_no_figure_asks_for_the_rate_and_the_load_log():
    """The thread's cause was layers left on the CPU (the NGL setting): no physics verdict without a figure."""
    r = verdict("jan3955.md")
    assert r["verdict"]["category"] == "insufficient_data"
    lead = finding(r, "ticket.nothing_broken")
    assert lead["category"] == "insufficient_data"
    assert "offloaded N/N layers" in lead["ask"] and "tok/s" in lead["ask"]
    assert not finding(r, "ticket.scaling_question") and not finding(r, "ticket.symptom_prior")


def test_lmstudio_1608_split_onto_a_second_card_is_the_layer_split_answer():
    """55 tok/s on the RTX 5090 alone, 40 once LM Studio spread the model onto the RTX 3080: the thread's answer is
    to keep the model on the one GPU it fits (the layer split runs the cards one after another)."""
    r = verdict("lmstudio1608.md")
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.symptom_prior")
    assert lead["title"] == "A layer split adds GPUs for memory, not for speed"
    assert "fewest GPUs that hold the model (one if it fits)" in lead["fix"]


def test_ollama_3818_70b_on_one_4090_runs_partly_on_the_cpu():
    """Held from the blind run: the maintainer's answer (part of the model on the CPU), with the sizes it rests on."""
    r = verdict("ollama3818.md")
    assert r["verdict"]["category"] == "host_bound"
    ev = finding(r, "ticket.model_over_vram")["evidence"][0]
    assert ev["source"].startswith("prediction:roofline") and ev["unit"] == "GB"
    assert ev["measured"] > ev["expected"]  # weights + KV against the 4090's usable memory


def test_exllama_164_a_purchase_question_gets_no_verdict():
    """Asked before buying: nothing measured, so no verdict (the thread's answer, that PCIe lanes matter little to
    exllama's layer split, is left: SOURCES.md)."""
    assert verdict("exllama164.md")["verdict"]["category"] == "insufficient_data"


@pytest.mark.xfail(strict=True, reason="koboldcpp's 'lowvram' (KV cache in system RAM) is not read as a setting: "
                   "SOURCES.md, left")
def test_koboldcpp_1780_lowvram_keeps_the_kv_cache_on_the_cpu():
    assert verdict("koboldcpp1780.md")["verdict"]["category"] == "host_bound"


def test_exllamav2_40_reads_the_p40_decode_rate():
    """(left28) exllamav2's test_inference -s "** Position 1 + 127 tokens: 1.1905 t/s": the first line of the run is
    one stream's decode rate at the shortest context; the later positions are not read again."""
    r = verdict("exllamav2_40.md")
    rates = [(m["metric"], m["value"]) for m in r["facts"].get("measurement", []) if m["unit"] == "tok/s"]
    assert rates == [("decode_tok_s", 1.1905)]


# --------------------------------------------------------------------------- the rig owned is no layout grown

def test_the_rig_named_then_a_run_called_slow_is_no_scaling_claim():
    text = ("My DRAM is 64G\nI have two 3090 graphics cards\nRunning Llama 3.1 70B Instruct Q4 is slow, "
            "is this normal?")  # janhq/jan#3955
    assert claims.more_gpus_no_gain(said(text)) == []


def test_several_gpus_compared_with_one_stays_a_scaling_claim():
    """Near-miss: no rig owned, and the slowness compares the multi-GPU setup with one card."""
    text = ("A multi-GPU setup of Tesla P100s is very slow compared to a single RTX 4090. I am using the 0.1.22 "
            "version of ollama. Is there something wrong with the Teslas? Are they just bad GPUs?")  # ollama#2395
    assert claims.more_gpus_no_gain(said(text))
    found, rules = judged_issue(text)
    assert found.category == "expected_physics"
    assert "Called slow with no figure" not in getattr(rules.get("ticket.nothing_broken"), "title", "")


# --------------------------------------------------------------------------- 'slow' with a figure is judged as before

def test_a_slowness_with_figures_is_not_the_plain_slow_answer():
    """Near-miss: 'is that expected behaviour?' with two rates given is a figure to judge, not a word."""
    text = ("I am getting only about 60t/s compared to 85t/s in llama.cpp when running llama3-8B-q8_0. When I run "
            "ollama on RTX 4080 super, I get the same performance as in llama.cpp. I tried running both natively and "
            "in docker, results were the same.\n\nThat leads me to believe that something is not right, or is that "
            "expected behaviour? Thanks")  # ollama/ollama#5543
    _, rules = judged_issue(text)
    assert "Called slow with no figure" not in getattr(rules.get("ticket.nothing_broken"), "title", "")


# --------------------------------------------------------------------------- engines that split by layers

def test_lm_studio_is_a_layer_split_engine_and_vllm_tp_is_not():
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Facts

    def facts(text):
        f = Facts()
        f.add(*issue_md.parse(text, "issue.md"))
        return f

    assert layer_split_engine(facts((DATA / "lmstudio1608.md").read_text()))
    vllm = ('EXTRA_ARGS="--tensor-parallel-size 2 --language-model-only"\n'
            "GPU1: RTX 3060 12GB (PCI-e 4.0 x8 direct CPU)\nGPU2: RTX 3060 12GB (PCI-e 4.0 x4 direct CPU)\n"
            "seeing about 50 tokens per second at 49k")  # syv-ai/qwen38-27b-rtx3090#68
    assert not layer_split_engine(facts(vllm))


# --------------------------------------------------------------------------- a table column's header labels its rates

def test_a_prompt_processing_column_is_no_decode_rate():
    """'| Koboldcpp | 34 tokens/s | 5 tokens/s |' under '| | Prompt processing | Generation |': 34 and 1490 are prompt
    processing (LostRuins/koboldcpp#1780), 30 and 5 the decode rates the checks judge; the Generation column, beside
    it in the same rows, is the near-miss that must still be read."""
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Measurement

    records = issue_md.parse((DATA / "koboldcpp1780.md").read_text(), "issue.md")
    decode = sorted(m.value for m in records if isinstance(m, Measurement) and m.metric == "decode_tok_s")
    assert decode == [5.0, 30.0]


# --------------------------------------------------------------------------- one board named: no links to ask for

def test_one_board_named_asks_for_no_links_or_collectives():
    """'my P40 is only using about 70W while generating' (turboderp/exllama#75): one GPU, so the ask is its own state
    (`nvidia-smi -q`: clocks and power), not a topology matrix and an all_reduce_perf run."""
    summary = verdict("exllama75.md")["verdict"]["summary"]
    assert "`nvidia-smi -q`" in summary
    assert "all_reduce_perf" not in summary and "topo" not in summary


def test_several_gpus_in_words_keep_the_link_asks():
    """Near-miss: one board named with a count of several ("4x 2080Ti", ollama/ollama#2672), and two boards named
    (exllamav2#40: a P40 and a 3090), are not one GPU."""
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Facts
    from rules.common import one_gpu_job
    from rules.engine import evaluate

    for text in ("I have 4x 2080Ti 22G, it run very well, the model split to multi gpu",  # ollama/ollama#2672
                 (DATA / "exllamav2_40.md").read_text()):
        facts = Facts()
        facts.add(*issue_md.parse(text, "issue.md"))
        evaluate(facts)
        assert not one_gpu_job(facts)

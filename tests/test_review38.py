"""Precision review of the readings ut28f merged (issue 11, review38), each tried on real lines of threads none of
them was written from (tests/data/review38/<reading>.toml, URLs in SOURCES.md): near-misses that look alike but must
not be read that way, and the positives found untaken. `xfail`: why a case still fails (strict).

- looped_requests: issue_md._looped_requests, a pasted loop sending one item per generation call (batch 1), the fact
  rule ticket.one_request_per_call judges;
- spread_mean: figures.spread_mean, "40.96 ± 0.37 t/s" read as its mean;
- figure_dtype: issue_md._figure_dtype, a rate that names its own weights keeps them;
- other_vendor: Tenstorrent's names in rules.claims._OTHER_VENDOR;
- first_calls: a chat's units (messages, responses, replies) in rules.claims._FIRST_WORK."""

from pathlib import Path

import pytest
import tomllib
from conftest import reading_gaps, said, threads_reused, toml_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement
from rules import claims
from rules.subject import Subject

DATA = Path(__file__).parent / "data" / "review38"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _rates(text: str) -> list:
    return [m for m in issue_md.parse(text, "issue.md") if isinstance(m, Measurement) and m.metric == "decode_tok_s"]


@pytest.mark.parametrize("case", toml_cases(DATA, "looped_requests"))
def test_a_loop_is_one_request_per_item_only_when_each_call_gets_one(case):
    assert bool(issue_md._looped_requests([(1, case["text"])], "issue.md")) is case["looped"]


@pytest.mark.parametrize("case", toml_cases(DATA, "spread_mean"))
def test_a_figure_with_its_spread_is_its_mean_and_a_timed_spread_no_rate(case):
    assert [m.value for m in _rates(case["text"])] == case["rates"]


@pytest.mark.parametrize("case", toml_cases(DATA, "figure_dtype"))
def test_a_format_beside_a_rate_is_its_weights_only_when_it_names_them(case):
    rates = _rates(case["text"])
    assert rates  # each case states a rate
    assert [m.dtype for m in rates if m.dtype] == case["dtypes"]


@pytest.mark.parametrize("case", toml_cases(DATA, "other_vendor"))
def test_tenstorrent_names_are_another_vendor_and_look_alikes_are_not(case):
    facts = said(case["text"])
    facts.subject = Subject.of(facts)
    found = claims.other_vendor(facts)
    assert (found.data["name"] if found else "") == case["vendor"]


@pytest.mark.parametrize("case", toml_cases(DATA, "first_calls"))
def test_a_warm_up_is_read_and_a_steady_or_loading_slowness_is_not(case):
    assert bool(claims.find(said(case["text"]), "first_calls_slow")) is case["first_calls"]


# Readings for which this review found no untaken real positive (SOURCES.md says so).
LEFT = {"looped_requests", "figure_dtype"}


def test_every_case_names_its_thread_and_each_reading_has_near_misses():
    near = {"looped_requests": lambda c: not c["looped"], "spread_mean": lambda c: not c["rates"],
            "figure_dtype": lambda c: not c["dtypes"], "other_vendor": lambda c: not c["vendor"],
            "first_calls": lambda c: not c["first_calls"]}
    assert reading_gaps(DATA, FAMILIES, near, LEFT) == []


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (ut28f)."""
    assert threads_reused(FAMILIES, ("ut28f",), also=("test_ut28f_user.py",)) == []


# --------------------------------------------------------------------------- tightened by this review
# Three lines of public repository code and notes, found through the code index (which gives the text, not its
# repository's address; SOURCES.md, "Seen in real code"), on which a ut28f reading fired where it must not.

def test_a_sweep_of_a_setting_over_the_same_prompts_is_no_batch_of_one():
    """A nano-vllm logits test: the loop's item reaches only a sampling parameter and the prompt list is sliced, so
    the loop sweeps a setting (it read as one request per item before this review); the item reaching the prompt
    argument still reads (vllm#216's loop, a request body, a tokenized input unpacked into generate)."""
    sweep = ("for k in [k_value, -k_value]:\n    params = SamplingParams(temperature=0.8, max_tokens=5, logits_k=k)\n"
             "    outputs = llm.generate(prompts[:1], params)\n")
    assert issue_md._looped_requests([(1, sweep)], "issue.md") == []
    for block in ("for data in my_dataset:\n    llm.generate(data, sampling_params, ignore_eos=True)\n",
                  "for q in qs:\n    payload = {'prompt': q}\n    r = requests.post(url, json=payload)\n",
                  "for q in qs:\n    inputs = tok(q, return_tensors='pt')\n"
                  "    model.generate(**inputs, max_new_tokens=8)\n",
                  "for i in range(len(prompts)):\n    out = llm.generate(prompts[i], sp)\n"):
        assert len(issue_md._looped_requests([(1, block)], "issue.md")) == 1, block


def test_a_format_followed_by_kv_is_the_caches_not_the_weights():
    """A serving note: "4510 decode tok/s with FP8 KV vs 4520 BF16 KV" on Qwen3-30B-A3B (read as fp8 weights before
    this review). premAI#187's "with int4" still names the weights (test_ut28f_user)."""
    rates = _rates("Qwen3-30B-A3B on H100: 4510 decode tok/s with FP8 KV vs 4520 BF16 KV\n")
    assert [(m.value, m.dtype) for m in rates] == [(4510.0, None)]


def test_a_quiet_box_is_an_idle_machine_and_quietbox_tenstorrents():
    """A benchmark note: "At `--clock 900` on a quiet box (6 concurrent sims, 12 cores)" (another vendor before this
    review); tt-inference-server#40's "on QuietBox" stays Tenstorrent's."""
    for text, vendor in (("At `--clock 900` on a quiet box (6 concurrent sims, 12 cores): 0 timeouts in all six cells",
                          ""),
                         ("this model should run around 400 tokens / sec on QuietBox (which I am using)",
                          "QuietBox")):
        facts = said(text)
        facts.subject = Subject.of(facts)
        found = claims.other_vendor(facts)
        assert (found.data["name"] if found else "") == vendor


def test_a_step_time_beyond_the_roofline_names_no_uncounted_tokens():
    """The sample capture tp4_nvlink_healthy taken as Llama-3-70B at batch 256 beats the roofline (test_consistency):
    a profiled step time counts no tokens, so 'tokens counted that were never generated' (ut28f's cause, kept for a
    token rate: premAI#187, test_ut28f_user) is no cause there."""
    import json

    from click.testing import CliRunner

    from diagnose.cli import cli
    sample = Path(__file__).parent.parent / "samples" / "captures" / "tp4_nvlink_healthy.sqlite"
    result = CliRunner().invoke(cli, ["capture", str(sample), "--model", "llama-3-70b", "--tp", "4", "--batch", "256",
                                      "--json"], prog_name="diagnose")
    (step,) = [f for f in json.loads(result.stdout)["findings"] if f["rule"] == "capture.step_vs_prediction"]
    assert "beats the roofline" in step["title"] and "speculative decoding" in step["summary"]
    assert "never generated" not in step["summary"]

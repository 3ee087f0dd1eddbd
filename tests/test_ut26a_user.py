"""Defects found by answering real "more GPUs, no faster" and "is this expected?" threads as a support engineer
(session s26, pass ut26a, tests/data/ut26a; SOURCES.md gives each thread's address, the answer it established and
the verdict before and after), fixed in general and tested on the paste that showed them, on real sentences of other
threads, and on real near-misses:

- a remedy tried and said not to work ("NVIDIA_VISIBLE_DEVICES=0 prefix did not work for me",
  facebookresearch/ParlAI#2844) made a slow ticket a failure that asked for a traceback (claims._remedy_failed);
- the prospective scaling question in other words: "Can it take less time if I use 2* A100（80G）gpu?"
  (defog-ai/sqlcoder#37), "... load it only on a single GPU? Can it improve performance?" (ParlAI#2844)
  (claims.layout_speed_asked);
- two systems of different GPU counts whose speed is then said to be alike ("the response time of the two systems is
  almost the same", PromtEngineer/localGPT#696) came back healthy (claims._systems_alike);
- a rate given at each GPU count in the reporter's words in a unit the figure checks do not judge ("2GPU has 2.9it/s",
  "1GPU has 3.4it/s", wasiahmad/NeuralCodeSum#12) was asked for again (claims.rates_by_layout, engine.symptom_ask);
- a data-parallel training job whose steps per second fall on more GPUs (tensorflow/tensor2tensor#1110) was answered
  as tensor parallelism and sent to `diagnose predict --tp` (ticket.symptom_prior's training answer).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims

DATA = Path(__file__).parent / "data" / "ut26a"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- the pastes, as answered

@pytest.mark.parametrize("name", ["parlai2844.md", "localgpt696.md", "sqlcoder37.md"])
def test_more_gpus_no_faster_is_answered_as_the_scaling_question(name):
    """Each thread's answer: one reply does not get faster on more GPUs (a model that fits one GPU runs best on one)."""
    r = verdict(name)
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.scaling_question")
    assert lead and "fewest GPUs that hold the model" in lead["fix"]
    assert not finding(r, "ticket.nothing_broken")  # no "the behaviour asked about is normal" for a complaint


def test_parlai_2844_asks_for_no_traceback():
    """The slow ticket is no failure: nothing asks for the error output of a failing run."""
    r = verdict("parlai2844.md")
    assert "error output" not in r["verdict"]["summary"]
    assert "load it only on a single GPU" in str(finding(r, "ticket.scaling_question")["evidence"]) or \
        "improve performance" in str(finding(r, "ticket.scaling_question")["evidence"])


def test_localgpt_696_quotes_the_two_systems():
    ev = str(finding(verdict("localgpt696.md"), "ticket.scaling_question")["evidence"])
    assert "the two systems is almost the same" in ev


@pytest.mark.parametrize("name", ["linly80.md", "parlai4257.md", "t2t1110.md"])
def test_held_out_expected_answers_stay(name):
    """Held-out checks: the threads whose answer the tool gave blind keep it."""
    assert verdict(name)["verdict"]["category"] == "expected_physics"


# --------------------------------------------------------------------------- a remedy that did not work

def test_a_tried_prefix_is_not_the_failure():
    text = ("BlenderBot inference is very slow - takes more than 10 seconds\n\n"
            "NVIDIA_VISIBLE_DEVICES=0 prefix did not work for me.")  # facebookresearch/ParlAI#2844
    assert claims.symptom_quote(said(text))[2] == "slow"


def test_an_option_that_does_not_work_stays_a_failure():
    """Near-miss: the thing that fails is a feature of the program, not a remedy tried."""
    text = ("The `--max-gpu` option does not work. It is possible to make it work again, it is just that the "
            "necessary logic is missing in the PR")  # ikawrakow/ik_llama.cpp#1080
    assert claims.symptom_quote(said(text))[2] == "error"


# --------------------------------------------------------------------------- the scaling question, prospective

def test_less_time_with_two_gpus_is_asked():
    # defog-ai/sqlcoder#37
    assert claims.layout_speed_asked(said("Can it take less time if I use  2* A100（80G）gpu?"))


def test_it_improves_performance_points_back_at_the_layout():
    text = ("I also put attention that when the model is loaded, it loads itself into 4 Gpus in parallel, taking "
            "about 4Gb of memory on each.\nIs there a way to load it only on a single GPU? Can it improve "
            "performance?")  # facebookresearch/ParlAI#2844
    assert claims.layout_speed_asked(said(text))


@pytest.mark.parametrize("text", [
    # no layout in its paragraph: the pronoun points at nothing the scaling answer is about
    "Can it improve performance?",
    # another matter named, not a layout (pytorch/pytorch#23016)
    "Would it be possible to bump NCCL version to [2.4.8.1](https://github.com/NVIDIA/nccl/tree/v2.4.8-1) as it "
    "fixes a regression (suboptimal performances) when communicating over sockets in multi-nodes distributed setting.",
    # one GPU's time asked, no second layout (defog-ai/sqlcoder#37's title; "80G" is a size, not a count)
    "Generally , using an single A100 (80G) gpu, how long does it usually take for the model to answer one user "
    "question?",
])
def test_near_misses_ask_no_layout_question(text):
    assert not claims.layout_speed_asked(said(text))


# --------------------------------------------------------------------------- two systems said alike

def test_two_systems_of_different_counts_alike():
    text = ("I installed localGPT on two systems, one with 4xA100 GPU and the other with 8xH100 GPU. The test results "
            "show that the response time of the two systems is almost the same (10~20) seconds.")  # localGPT#696
    assert claims.more_gpus_no_gain(said(text))


@pytest.mark.parametrize("text", [
    # two environments of 4 and 8 GPUs run "the same" experiment, and their speeds differ (NVIDIA/nccl#381)
    "Use pytorch for resnet50 model training, test the training speed in two test environments: \nthe first "
    "environment is a 4 gpus Docker on a physical machine, the other environment is a physical machine (visible 8 "
    "gpus), the two environments run the same  4 gpu experiment found that the training speed of Docker is about 20% "
    "faster than that of the physical machine",
    # the same system with other cards, slower (NVIDIA/nccl#44)
    "I get about a 6x slowdown running on the exact same system but with Pascal instead of Maxwell cards.",
])
def test_near_misses_are_no_scaling_statement(text):
    assert not claims.more_gpus_no_gain(said(text))


# --------------------------------------------------------------------------- rates given at each layout, any unit

def test_neuralcodesum_12_is_not_asked_for_the_rates_it_gives():
    """Both layouts' it/s are in the paste: the answer asks for no "same benchmark at the smaller layout"."""
    r = verdict("neuralcodesum12.md")
    assert "smaller layout" not in r["verdict"]["summary"]
    assert claims.rates_by_layout(said("2GPU has 2.9it/s \n1GPU has 3.4it/s")) == {2: "2GPU has 2.9it/s", 1:
                                                                                  "1GPU has 3.4it/s"}


def test_a_line_with_two_counts_gives_no_layout_its_rate():
    """Near-miss: one line naming two layouts does not say whose each rate is (pytorch-labs/gpt-fast#111, kept in
    tests/data/ut12x; its tok/s are read by the figure readers, which split the clauses)."""
    line = ("I'm attempting to deploy llama2-7b-chat-hf on a server equipped with two V100 GPUs linked by NVLink, but "
            "I've encountered an issue where the tokens per second (token/s) performance is worse when utilizing both "
            "GPUs compared to just one. Specifically, with a single GPU, I achieve 29 tokens/s, but this drops to only "
            "17 tokens/s when employing tensor parallelism.")
    assert claims.rates_by_layout(said(line)) == {}


# --------------------------------------------------------------------------- data-parallel training

def test_t2t_1110_is_answered_as_data_parallel_training():
    lead = finding(verdict("t2t1110.md"), "ticket.symptom_prior")
    assert lead["title"] == "Data-parallel training: a step on more GPUs carries more examples"
    assert "--tp" not in lead["fix"] and "examples (samples or tokens) per second" in lead["fix"]


def test_a_served_fine_tune_is_no_training_job():
    """Near-miss: "wizardLLM-70b which is fine-tuned variant of llama2-70b ... using vLLM worker ... tensor-parallelism
    was set to 4" (lm-sys/FastChat#2746, kept in tests/data/ut13) is a model served, not trained."""
    r = report_json("ticket", str(DATA.parent / "ut13" / "fastchat2746.md"))
    assert "Data-parallel training" not in str(r["findings"])

"""Session s45, fixer C of the second read (fr45r2): misfires a reviewer proved with probes (/tmp/fr45c) in the first
fixers' changes, each fixed in its general mechanism. Probes are the reviewer's sentences, labelled probe; near-misses
keep the old reading."""

import time

import pytest
from conftest import issue_bundle as _facts

from diagnose.artifacts import issue_md, launch
from diagnose.artifacts.text import engines_named
from diagnose.evidence import Facts, Measurement, Note
from rules import claims, common, failure_words, gpus_in_use

TWO_BOARDS = "# llama-server slow on 2x RTX 3090\n\nI have 2x RTX 3090. "


# ------------------------------------------ 1. the none split's works-vs-more reading takes time linear in the line

@pytest.mark.parametrize("tail", ["works , ", "works, but , ", "fine ; while ", "ok , both , "])
def test_none_split_long_line_without_full_stop_is_fast(tail):
    line = "I run llama-server with -sm none and it " + tail * (5000 // len(tail))  # probe: 23 s before
    start = time.perf_counter()
    issue_md._none_split([(1, line)])
    assert time.perf_counter() - start < 0.5


def test_redos_ticket_is_fast():
    text = TWO_BOARDS + "I use -sm none and it " + "works , " * 620 + "\n"  # probe (/tmp/fr45c/redos.md): 32 s
    start = time.perf_counter()
    _facts(text)
    assert time.perf_counter() - start < 10


def test_none_split_works_vs_more_still_read():
    # near-misses from fr45 A2 keep their reading: the none run is the working one, set against one over both GPUs
    assert issue_md._none_split([(1, "With --split-mode none on one card it works; over both cards it is garbage.")]) \
        is None
    assert issue_md._none_split([(1, "With -sm none on one card it works fine, but over both GPUs it is slow.")]) \
        is None
    assert issue_md._none_split([(1, "We run -sm none on one card and it works fine.")]) == 1


# ------------------------------------------- 2. someone else's figure after a short object of the verb is a reference

@pytest.mark.parametrize("text", [
    "Other users see speeds of 900 tok/s on the same hardware with Llama-3.1-70B, TP=2.",  # probe (/tmp/fr45c/1.md)
    "People get throughput of 900 tok/s on this setup.",  # probe
    "Someone got the same model running at 900 tok/s.",  # probe
    "Others get something like 900 tok/s.",  # probe
    "People get 900 tok/s on this setup.",  # near-miss (fr45): the figure right after the verb
    "Other users see ~40 tok/s.",  # near-miss (fr45)
])
def test_others_figure_after_short_object_is_reference(text):
    assert issue_md.REFERENCE_FIGURE.search(text)


@pytest.mark.parametrize("text", [
    "When 20 people hit the endpoint at the same time we only get 150 tokens/s in total.",  # near-miss (fr45)
    "When many people hit the server we get 150 tokens/s in total.",  # near-miss (fr45): a new subject
    "When many people hit the server, we get 150 tokens/s.",  # near-miss: a new clause
    "We serve 100 people and get 20 tok/s.",  # near-miss (figures45)
    "Other users see the same slowness on 2 GPUs.",  # near-miss: a count of GPUs, no figure of theirs
])
def test_short_object_needs_figure_in_the_same_clause(text):
    assert not issue_md.REFERENCE_FIGURE.search(text)


def test_others_figure_beside_own_is_not_measured():
    facts = _facts("# vLLM throughput on 2x A100 80GB\n\nOther users see speeds of 900 tok/s on the same hardware "
                   "with Llama-3.1-70B, TP=2. We only get 150 tok/s.\n")  # probe (/tmp/fr45c/1.md)
    assert [m.value for m in facts.of(Measurement)] == [150.0]


# ------------------------------------- 3. a timeout a set / configure verb governs is a guard across another clause

def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


@pytest.mark.parametrize("text", [
    "We were told to set a timeout when we init the process group to prevent silent hangs, and we did.",
    # probe (/tmp/fr45c/4.md)
    "Set a timeout of 30 min if you want to avoid hangs.",  # probe
    "Set a timeout while debugging to avoid hangs.",  # probe
    "Configure a timeout once per job to prevent hangs.",  # probe
    "We set a timeout for the process group before launch to avoid hangs.",  # probe
    "Set timeout=600 to avoid hangs.",  # near-miss (fr45): its own value
])
def test_a_timeout_set_across_a_clause_is_a_guard(text):
    assert _hangs(text) == []


@pytest.mark.parametrize("text", [
    "Rank 3 reports a timeout after I added NCCL_IB_DISABLE=1 to avoid IB errors.",  # near-miss (fr45)
    "There is a timeout after I set NCCL_IB_DISABLE=1 to avoid IB errors.",  # near-miss (fr45)
    "There is a timeout when we use NCCL_P2P_DISABLE=1 to avoid the PCIe issue.",  # near-miss (fr45)
    "There is a timeout when we restart workers to avoid stale state.",  # near-miss: no verb sets the timeout
    "We set a timeout but it got hit when we ran to avoid idle workers.",  # near-miss: met between
])
def test_a_timeout_met_stays_a_hang(text):
    assert "timeout" in [h.lower() for h in _hangs(text)]


# ------------------------------ 4. "-sm none" run and working is the run's layout; a one-card run set aside is not

@pytest.mark.parametrize("run", [
    "I run llama-server with -sm none and it works, but only 1 of my 2 GPUs is used.\n",  # probe (/tmp/fr45c/2.md)
    "I run llama-server with -sm none; it works but both GPUs show memory allocated.\n",  # probe
    "Even if the prompt is short, with -sm none generation is only 8 tok/s.\n",  # probe: "if" about something else
])
def test_split_mode_none_run_that_works_is_one_gpu(run):
    facts = _facts(TWO_BOARDS + run + "\nI get 8 tok/s.\n")
    assert common.gpu_count(facts) == 1
    assert not gpus_in_use.layer_split_over_gpus(facts)


@pytest.mark.parametrize("run", [
    "With --split-mode none on one card it works; over both cards the output is garbage.\n",  # near-miss (fr45)
    "With -sm none on one card it works fine, but over both GPUs it is slow.\n",  # near-miss (fr45)
    "I run the model on both. If I use -sm none the model does not fit.\n",  # near-miss (fr45): a condition tried
    "I run the model on both. If you switch to -sm none it may be faster.\n",  # near-miss: advice
])
def test_split_mode_none_set_aside_keeps_the_gpus(run):
    facts = _facts(TWO_BOARDS + run + "\nI get 8 tok/s.\n")
    assert common.gpu_count(facts) == 2
    assert gpus_in_use.layer_split_over_gpus(facts)


# ---------------------------------- 5. "accelerate training" after a phrase of place or an adjective: the library

@pytest.mark.parametrize("text", [
    "On 2 nodes accelerate training hangs at the first step.",  # probe
    "Why does multi-node accelerate training hang at init?",  # probe
    "Across 8 GPUs accelerate fine-tuning takes 3x longer than DDP.",  # probe
    "In my tests accelerate training was slower than torchrun.",  # probe
    "Our accelerate training on 8x H100 hangs after the first step.",  # near-miss (fr45)
])
def test_accelerate_training_after_place_or_adjective_is_the_library(text):
    assert "accelerate" in engines_named(text)


@pytest.mark.parametrize("text", [
    "In what cases will tp_comm_overlap accelerate training",  # NVIDIA/Megatron-LM#2662
    "Large batch sizes can accelerate training",  # near-miss (normal45)
    "Pretrained features accelerate training",  # near-miss (normal45): a plural subject
    "Does NVLink accelerate training?",  # near-miss (fr45)
    "it accelerates training",  # near-miss
    "It is helpful to accelerate training",  # near-miss (normal45)
])
def test_accelerate_training_with_a_subject_is_the_verb(text):
    assert "accelerate" not in engines_named(text)


# ------------------------------ 6, 7. a past hang said fixed beside it stays in the past; "still" about another thing

@pytest.mark.parametrize("text", [
    "We used to get hangs with 2.18. Upgrading fixed it and nothing changed in our config.",  # probe
    "Previously the job hung at init. Upgrading to 2.21 solved it, no change needed elsewhere.",  # probe
    "Previously the job hung. Upgrading NCCL didn't help at first, but setting NCCL_P2P_DISABLE=1 fixed it.",  # probe
    "Earlier the job hung at init too. Now it runs fine.",  # probe
    "Previously the job froze at startup as well; now it is fine.",  # probe
    "We used to get hangs with NCCL 2.18 when the job ran on 2 nodes. Since the update the job finishes but it is "
    "still slow: 40 tok/s.",  # probe (/tmp/fr45c/3.md)
    "Previously the job hung at init. Now it still prints a warning but runs fine.",  # probe
    "Previously it hung. Now it runs fine.",  # near-miss (fr45)
])
def test_past_hang_said_fixed_is_no_hang(text):
    assert _hangs(text) == []


@pytest.mark.parametrize("text", [
    "Previously the job hung at init. I upgraded NCCL to 2.21 but nothing changed.",  # near-miss (fr45)
    "Earlier we had hangs with 2.18 and upgrading to 2.21 did not help.",  # near-miss (fr45)
    "In older versions we got the same hang.",  # near-miss (fr45)
    "Previously the job hung at init. It still hangs.",  # near-miss
    "Previously the job hung at init. It still does.",  # near-miss
    "Previously the job hung at init. Upgrading didn't fix it.",  # near-miss: the fix denied
    "Previously the job hung at init. The job hung again after the upgrade.",  # near-miss
    "Previously the job hung at init. The problem persists.",  # near-miss
    "We used to get hangs with 2.18. Upgrading fixed the crash but nothing changed.",  # near-miss: another thing fixed
])
def test_past_hang_carried_on_stays_a_hang(text):
    assert _hangs(text)


# --------------------------------------- 8. bad output a "can" warns of stays set aside where the sentence frames it

def _failed(text: str) -> str | None:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return failure_words.failure_said(facts)


@pytest.mark.parametrize("text", [
    "We disabled cuda graphs because they can randomly output garbage on this driver.",  # probe
    "Note that a temperature above 1.5 can also produce gibberish; ours is 0.7.",  # probe
    "Known limitation: speculative decoding can sometimes return garbage with tp>1; we have it disabled and the "
    "output is fine.",  # probe
    "Without the fix, quantized KV cache can sometimes produce garbage output, so we keep fp16.",  # probe
])
def test_bad_output_warned_of_is_no_failure(text):
    assert _failed(text) is None


@pytest.mark.parametrize("text", [
    "the model can sometimes produce garbage output after ~2k tokens",  # near-miss (fr45): the reporter's run
    "It can randomly output gibberish, about 1 in 20 requests.",  # near-miss (fr45)
    "It can also return gibberish when batch > 32.",  # near-miss (fr45)
    "We restart the server because it can sometimes return garbage after ~2k tokens.",  # near-miss: nothing turned off
    "Since the upgrade the model can sometimes produce garbage output.",  # near-miss: "since" of time
])
def test_bad_output_the_run_gives_now_and_then_is_a_failure(text):
    assert _failed(text)


# --------------------------------------- lower harm: "earlier in the year" is the past; "We use that: <prose>" adopts

@pytest.mark.parametrize("text", [
    "Earlier in the year we had hangs with 2.18; we upgraded and it has been fine since.",  # probe
    "Earlier this year we had hangs with 2.18. We upgraded and it has been fine since.",  # probe
    "Earlier we had hangs with 2.18.",  # near-miss (past45)
])
def test_earlier_in_the_year_is_the_past(text):
    assert _hangs(text) == []


@pytest.mark.parametrize("text", [
    "Earlier in the log we had hangs at step 5.",  # near-miss (fr45): the text's own past
    "Earlier in this run we had hangs at step 5.",  # near-miss (fr45)
    "Earlier today we had hangs at step 5.",  # near-miss (past45)
])
def test_earlier_in_this_run_is_now(text):
    assert _hangs(text)


@pytest.mark.parametrize(("text", "adopted"), [
    ("You can set NCCL_P2P_DISABLE=1. We use that: no more hangs since.", True),  # probe
    ("You can set NCCL_P2P_DISABLE=1. We use it: it helps.", True),  # near-miss (fr45)
    ("The NCCL docs say you can set NCCL_P2P_DISABLE=1 on consumer cards. We use this:\n```", False),  # (fr45) 11.md
    ("You can set NCCL_P2P_DISABLE=1. We use that: torchrun --nproc_per_node 4 train.py", False),  # near-miss (fr45)
    ("You can set NCCL_P2P_DISABLE=1. We use this: python train.py", False),  # near-miss: a command
])
def test_this_colon_then_prose_is_adoption(text, adopted):
    end = text.index("NCCL_P2P_DISABLE=1") + len("NCCL_P2P_DISABLE=1")
    assert launch._adopted(text, end) is adopted


def test_this_colon_prose_check_is_fast():
    text = "You can set NCCL_P2P_DISABLE=1. We use this: " + "aa " * 40 + "1"  # no end: nested repeats would explode
    start = time.perf_counter()
    launch._adopted(text, text.index("=1") + 2)
    launch.ADOPTED_NEXT.match("We use this: " + "aa " * 2000 + "1")
    assert time.perf_counter() - start < 0.5

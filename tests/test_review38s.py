"""Issue 11 (session s38, pass review38; named review38s beside the older review38 of ut28f's readings): the misfires
earlier reviews left open, and one reading of hearsay.

Each test is a probe written as reporters write (tests/data/review38s/NOTES.md lists every probe with its verdict on
main and on this branch), beside the near-miss or real paste that must keep its answer:

1. sampling_bound beside a CUDA out-of-memory: the failure answers (engine.FAILURE_MESSAGES: a quoted catalog message
   is not outranked by a figure that fits; ticket_rules.sampling_bound is a lead below a failure);
2. serving_tradeoff on two boards' prompt and generation rates: the ask is the boards, not the phases;
3. a hang (an NCCL watchdog timeout) after a slowdown: no throttling answer (health._hang_seen);
4. Ollama's "prompt eval rate: N tokens/s" is the prompt's rate, not generation (ticket_questions._PROMPT_RATE);
5. hearsay: one reading (rules/hearsay.py) for claims._GUESS, claims' _HEARSAY_POSSIBLE, failure_words and cpu_only.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims, cpu_only, failure_words, hearsay, ticket_questions

DATA = Path(__file__).parent / "data"

LLAMA_TIMINGS = ("```\nllama_print_timings:      sample time =  6000.00 ms /   100 runs   (   60.00 ms per token,    "
                 "16.67 tokens per second)\nllama_print_timings:        eval time =  1000.00 ms /   100 runs   "
                 "(   10.00 ms per token,   100.00 tokens per second)\n```\n")


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


# =========================================================================== 1. the sampler beside an out-of-memory

def test_a_pasted_oom_after_the_timings_answers_the_oom():
    text = ("# torch.cuda.OutOfMemoryError with llama.cpp python\n\nWith llama-cpp-python on a RTX 4070 12GB, mistral "
            "7B Q8. Timings before it died:\n\n" + LLAMA_TIMINGS.replace("6000.00 ms /   100 runs   (   60.00",
                                                                         "6000.00 ms /   100 runs   (   12.00")
            + "\nThen on the second request: CUDA error: out of memory. How do I stop it running out of memory?\n")
    verdict, found = judged_issue(text)
    assert verdict.category == "other"
    assert found["ticket.known_error"].category == "other"


@pytest.mark.parametrize("text", [
    "# llama.cpp sampling very slow\n\nRTX 3090, 13B Q4_K_M, llama.cpp with --top-k 0.\n\n" + LLAMA_TIMINGS
    + "\nNo errors, no out of memory, it is just slow. Why?\n",
    # another's warning of an OOM is no failure of this run
    "# Could sampling cause OOM?\n\nRTX 3090, 13B Q4_K_M in llama.cpp.\n\n" + LLAMA_TIMINGS + "\nSomeone in another "
    "thread said it might go out of memory with a large top-k, but I never saw an OOM. Is the sampler what makes it "
    "slow?\n",
])
def test_the_sampler_still_answers_where_nothing_failed(text):
    verdict, found = judged_issue(text)
    assert verdict.category == "host_bound"
    assert found["ticket.sampling_bound"].severity == "warning"


# =========================================================================== 2. two boards, two phases each

def test_two_boards_prompt_and_generation_rates_are_no_serving_tradeoff():
    text = ("# RTX 4090 faster than A100 for generation\n\nSame model (llama-2-13b Q4_K_M), llama.cpp, one GPU each. "
            "RTX 4090: prompt processing 5200 t/s, text generation 85 t/s. A100 40GB: prompt processing 6100 t/s, text "
            "generation 70 t/s. Why is the A100 slower at generating tokens?\n")
    verdict, found = judged_issue(text)
    assert "ticket.serving_tradeoff" not in found
    assert verdict.category != "expected_physics"


def test_one_board_prompt_against_generation_keeps_the_tradeoff():
    text = ("# prompt processing much faster than generation\n\nllama.cpp on an RTX 4090 with a 13B Q4_K_M: prompt "
            "processing 4000 t/s but text generation only 80 t/s. Why is generation so much slower than prompt "
            "processing?\n")
    verdict, found = judged_issue(text)
    assert found["ticket.serving_tradeoff"].category == "expected_physics"
    assert verdict.category == "expected_physics"


# =========================================================================== 3. a hang after a slowdown

WATCHDOG = ("```\n[rank0]:[E ProcessGroupNCCL.cpp:616] [Rank 0] Watchdog caught collective operation timeout: "
            "WorkNCCL(SeqNum=5120, OpType=ALLREDUCE, NumelIn=16384, NumelOut=16384, Timeout(ms)=600000) ran for "
            "600084 milliseconds before timing out.\n```\n")


@pytest.mark.parametrize("text", [
    "# Generation slow and then hangs\n\nvLLM 0.6.1, 4x A100 80GB, TP=4, Llama-3-70B. Generation is much slower with "
    "presence_penalty set, and after a few minutes all ranks hang:\n\n" + WATCHDOG,
    # the timeout pasted, the hang not said in words
    "# throughput\n\nvLLM 0.6.1, 4x A100 80GB, TP=4, Llama-3-70B. The throughput drops after a few minutes of "
    "serving, then this:\n\n" + WATCHDOG,
])
def test_a_hang_is_not_answered_by_throttling(text):
    verdict, found = judged_issue(text)
    assert verdict.category != "throttling"
    assert found.get("health.throttling") is None


@pytest.mark.parametrize("text", [
    "# Throughput drops over time\n\nvLLM on one L40S, Llama 3 8B, constant load of 16 requests. The throughput drops "
    "from 900 tok/s to 600 tok/s after a few hours of serving. No errors, nothing hangs.\n",
    # a hang only asked about, and denied
    "# Gets slower and then hangs?\n\nOur 2x A6000 box with vllm TP=2 gets slower over time. If it got slow enough, "
    "would it hang? So far it has never hung. Throughput goes from 60 to 40 tok/s after a few hours.\n",
])
def test_a_slowdown_over_time_without_a_hang_keeps_the_throttling_lead(text):
    verdict, _ = judged_issue(text)
    assert verdict.category == "throttling"


# =========================================================================== 4. Ollama's prompt eval rate

def test_ollama_prompt_eval_rates_compare_prompt_processing():
    """An RTX 4090 ahead of an A100 at Ollama's prompt eval rate: the FP16-accumulate datasheet reading (ep37), which
    the rate's own "tokens/s" silenced when read as generation."""
    text = ("# Ollama: 4090 evaluates prompts faster than the A100\n\nWith Ollama and llama3:8b, ollama run --verbose "
            "gives prompt eval rate: 2500 tokens/s on the RTX 4090 and prompt eval rate: 1800 tokens/s on the A100 "
            "PCIe 80GB. Why is the A100 slower at prompt processing?\n")
    verdict, found = judged_issue(text)
    assert found["ticket.gpus_compared"].category == "expected_physics"
    assert "ticket.stronger_gpu_slower" not in found


@pytest.mark.parametrize("text, prompt", [
    ("prompt eval rate:     210.42 tokens/s", True),
    ("the prompt eval rate is only 45 tokens/s", True),
    ("prompt eval rate: 2500 tokens/s, eval rate: 120 tokens/s", False),  # Ollama's generation rate beside it
    ("eval rate: 70.2 tokens/s", False),
])
def test_the_prompt_rate_unit_is_no_generation(text, prompt):
    assert ticket_questions._prompt_compared(_facts("# q\n\n" + text + "\n")) is prompt


def test_the_real_ollama_paste_keeps_its_answer():
    """ollama/ollama#11676 (tests/data/ut7): a layer split whose prompt eval and eval rates are pasted."""
    verdict, _ = judged_issue((DATA / "ut7" / "t19_ollama11676.md").read_text())
    assert verdict.category == "host_bound"


# =========================================================================== 5. hearsay, one reading

@pytest.mark.parametrize("text, said", [
    # the reporter's own failures: a person alone is no one else's report
    ("vLLM on an A100. Some requests work, others return empty responses.", True),
    ("vLLM server on 2x L40S. When someone sends a long prompt, the server crashes.", True),
    ("Our users complain: the server crashes every night.", True),
    # someone else's, or read of, or another thread's
    ("Others have said the output was garbled in 0.5, but mine is fine and only slow.", False),
    ("Someone else got wrong answers with this model; mine only runs slow.", False),
    ("Other users had the server crash on startup, I only see slow decode.", False),
    ("In issue 4321 the server crashes, but mine is just slow.", False),
    ("I heard that the responses are garbled with AWQ, but mine are fine.", False),
])
def test_whose_failure(text, said):
    assert bool(failure_words.failure_said(_facts("# q\n\n" + text))) is said


@pytest.mark.parametrize("sentence, falls_back", [
    ("When someone opens the web UI, ollama falls back to CPU.", True),
    ("Ollama falls back to CPU after the update.", True),
    ("In another thread someone said it falls back to CPU.", False),
    ("Others reported that it falls back to CPU on WSL.", False),
])
def test_whose_fallback(sentence, falls_back):
    assert cpu_only._fallback_said(sentence) is falls_back


@pytest.mark.parametrize("sentence, guess", [
    ("Others say NCCL_P2P_DISABLE=1 makes it faster.", True),
    ("The README says to set NCCL_P2P_DISABLE=1.", True),
    ("My colleague says P2P is off on this box.", True),
    ("Someone on reddit said frequency_penalty makes vLLM slower.", True),
    ("GPU 0 is at 100% and the others report 0% utilization.", False),  # "the others" are GPUs, a figure reported
    ("We set NCCL_P2P_DISABLE=1 as the docs recommend.", False),  # the reason for a setting in use
])
def test_whose_word(sentence, guess):
    assert bool(claims._GUESS.search(sentence)) is guess


def test_anothers_word_ends_where_the_reporter_sets_their_own_against_it():
    """'The docs say X, but P2P is disabled on this board' reports the P2P state; 'Others say P2P is not supported,
    but topo shows OK' does not report P2P refused."""
    mine = ("# TP=2 slow on two RTX 4090\n\nvllm 0.6, Llama 3 8B, TP=2 on 2x RTX 4090. The docs say TP=2 should be "
            "faster, but P2P is disabled on this board and TP=2 gives 60 tok/s against 90 tok/s at TP=1. Why?\n")
    theirs = ("# Others say the 3090 has no P2P\n\n2x RTX 3090, vllm TP=2, Llama 2 13B. Others say P2P is not "
              "supported on the 3090, but nvidia-smi topo -p2p r shows OK between GPU0 and GPU1. TP=2 gives 35 "
              "tok/s. Is that normal?\n")
    assert "ticket.p2p_refused" in judged_issue(mine)[1]
    assert "ticket.p2p_refused" not in judged_issue(theirs)[1]


def test_a_warning_of_a_possible_failure_is_not_the_symptom():
    facts = _facts("# q\n\n2x RTX 3090, TP=2 with vllm. The README says it can crash on Pascal cards. Mine is "
                   "just slow: 20 tok/s.")
    assert claims.symptom(facts) != "crash"


def test_new_patterns_are_bounded():
    from benchmarks.regex_worst_case import runaway_repeats
    patterns = [hearsay.POSSIBLE, hearsay._NOT_OURS, claims._GUESS, ticket_questions._PROMPT_RATE,
                claims._SET_AGAINST_HEARSAY]
    for p in patterns:
        assert runaway_repeats(p.pattern, p.flags) == [], p.pattern[:30]

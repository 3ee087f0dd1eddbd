"""Review of the ticket readings' scope (issue 11, session 21): four readings the session 20 review left open.

1. Advice in the second person ("you could set ...", claims._GUESS) made the whole sentence a guess, so a state or a fix
   told in the clause before it ("NCCL_P2P_DISABLE=1 fixed it; you could also try ...") was lost: a guess word governs
   its own clause (claims.guess_scope).
2. The heads and the GPUs in a question ("64 heads not divisible by 3 GPUs?") read as the engine's refusal
   (tp_size_error): in the reporter's own words, asked, they are a question.
3. "With CUDA graphs the throughput doesn't change" read as graphs turned on and ruled out (graphs_tried_no_gain). vLLM
   and SGLang run CUDA graphs unless --enforce-eager / --disable-cuda-graph (their docs; rules/catalog/engines.toml
   cuda_graphs): there "with CUDA graphs" names the default run, not a switch the reporter turned.
4. A bare `.to('cuda')` / `.cuda()` (the move every model makes) counted as a copy between GPUs (claims._TORCH_TO).

tests/data/review_s21/*.toml keep the sentences with their threads; `adapted` says where the words were put in the
review's form rather than copied."""

import re
from pathlib import Path

import pytest
from conftest import toml_cases, unsourced_cases
from test_u11o_peer_copy_and_fit import issue

from rules import claims

DATA = Path(__file__).parent / "data" / "review_s21"


def _cases(name: str):
    return toml_cases(DATA, name)


def _claims(sentence: str) -> list[claims.Claim]:
    return claims.claims(issue(f"# Report\n\n{sentence}"))


def test_every_sentence_names_its_thread():
    assert unsourced_cases(DATA) == []


# --------------------------------------------------------------------------- 1. a guess word governs its clause

@pytest.mark.parametrize("case", _cases("advice_clause"))
def test_advice_and_guesses_govern_their_own_clause(case):
    said = _claims(case["sentence"])
    if "setting" in case:
        setting = [c for c in said if c.kind == "setting" and c.data["name"] == case["setting"]]
        assert setting and setting[0].data["tried"] is case["tried"], [c.data for c in setting]
    elif case["claim"] == "none":
        assert not [c for c in said if c.guess], [(c.kind, c.quote) for c in said if c.guess]
    else:
        assert [c for c in said if c.kind == case["claim"] and not c.guess and not c.negated], \
            [(c.kind, c.guess, c.negated) for c in said]


# The scope rule's forms, written for it (the threads' own sentences are in tests/data/review_s21/advice_clause.toml).
@pytest.mark.parametrize("sentence, position, guessed", [
    # the advice's clause and what it governs are advice; the clause before it is not
    ("NCCL_P2P_DISABLE=1 fixed it; you could also try --enforce-eager.", "NCCL_P2P", False),
    ("NCCL_P2P_DISABLE=1 fixed it; you could also try --enforce-eager.", "--enforce", True),
    ("Otherwise you could set NCCL_IB_DISABLE=1 to use sockets but it will be much slower.", "sockets", True),
    # a guess word said after its clause ("..., I think.") reaches back over the sentence
    ("The links are down, I think.", "links", True),
    ("P2P is off because maybe the ACS is on.", "P2P", False),
    ("P2P is off because maybe the ACS is on.", "ACS", True),
])
def test_a_guess_words_scope_is_its_clause(sentence, position, guessed):
    assert claims.guessed(sentence, sentence.index(position)) is guessed


def test_without_a_position_the_whole_sentence_is_read_as_before():
    assert claims.guessed("NCCL_P2P_DISABLE=1 fixed it; you could also try --enforce-eager.")


# --------------------------------------------------------------------------- 2. heads and GPUs asked about

@pytest.mark.parametrize("case", _cases("heads_question"))
def test_heads_and_gpus_asked_about_are_no_refusal(case):
    refusals = [c for c in _claims(case["sentence"]) if c.kind == "tp_size_error" and not c.negated]
    if case["guess"]:
        assert all(c.guess for c in refusals), [c.quote for c in refusals]
    else:
        assert refusals and not any(c.guess for c in refusals), [(c.quote, c.guess) for c in refusals]


# --------------------------------------------------------------------------- 3. CUDA graphs on by the engine's default

VLLM = "`vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2`\n\n"
SGLANG = "`python -m sglang.launch_server --model-path meta-llama/Llama-3.1-8B-Instruct --tp 2`\n\n"
DEEPSPEED = "Framework: DeepSpeed 0.14 (deepspeed.init_inference with tensor_parallel tp_size 2)\n\n"


def _tried(text: str) -> bool:
    return claims.graphs_tried_no_gain(issue(f"# Report\n\n{text}")) is not None


@pytest.mark.parametrize("launch", [VLLM, SGLANG])
def test_with_cuda_graphs_under_an_engine_that_runs_them_by_default_is_no_switch(launch):
    assert not _tried(launch + "With CUDA graphs the throughput doesn't change.")


@pytest.mark.parametrize("text", [
    # the switch turned (vllm-project/vllm#14022's form, tests/test_ut20a_user.py) or both arms named
    VLLM + "I set `enforce_eager=False` and `disable_custom_all_reduce=False`, but the gpu utilization does not grow "
           "obviously.",
    VLLM + "I enabled CUDA graphs and the throughput did not change.",
    VLLM + "With CUDA graphs the throughput doesn't change compared to --enforce-eager.",
    # an engine whose default is eager (DeepSpeed's enable_cuda_graph defaults to False): "with" is the reporter's
    # switch
    DEEPSPEED + "With CUDA graphs the throughput doesn't change.",
])
def test_graphs_turned_on_by_the_reporter_stay_tried(text):
    assert _tried(text)


# --------------------------------------------------------------------------- 4. a copy to another, numbered GPU

@pytest.mark.parametrize("case", _cases("peer_copy"))
def test_only_a_move_to_another_numbered_gpu_is_a_peer_copy(case):
    sentence = case["sentence"]
    wrong = [c for c in _claims(sentence) if c.kind == "wrong_results" and not c.negated]
    call = re.search(r"\.(?:to|copy_|cuda)\([^)]*\)", sentence)
    if case["peer"]:
        assert wrong, sentence
        assert not call or re.search(claims._TORCH_TO, sentence), call  # the call itself reads as the copy
    else:
        # wrong output may stand (its own words say so), but not as a copy between GPUs (what ticket.p2p_corrupts
        # takes from the quote); the model's own move to its GPU is no peer copy
        assert not [c.quote for c in wrong if re.search(claims.GPU_TO_GPU, c.quote, re.I)]
        assert not (case.get("local") and re.search(claims._TORCH_TO, sentence)), call

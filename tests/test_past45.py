"""Session s45, pass past45: wrong readings the last session left, each proved with a probe first, then the general
mechanism fixed. Real sentences are labelled with their source (a find_string id, or the thread); probes are the
writer's own short sentences, labelled probe, with negations, hearsay, questions, advice and near-misses."""

import pytest
from conftest import issue_bundle as _facts

from diagnose.artifacts import issue_md, launch
from diagnose.evidence import Facts, Note
from rules import claims, common, failure_words, gpus_in_use


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


def _said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def _failed(text: str) -> str | None:
    return failure_words.failure_said(_said(text))


# ------------------------------------------------------- 1. a hang said only of the past, with no fix, is no hang now

@pytest.mark.parametrize("text", [
    "The common failure, and the one that used to hang forever.",  # find_string id 62741282705
    "Rationale: a blocked SSE stream used to hang shutdown until a second Ctrl-C.",  # id 58532940395
    "Sleep(0) used to hang, the sequence of events was as follows.",  # id 3849965
    "When switching from Kokoro to Supertonic voice on iOS, the UI used to freeze for approximately 50 seconds.",
    # (id 27964278464)
    "The particles used to freeze mid-load.",  # id 59396526644
    "We used to get hangs with NCCL 2.18.",  # probe (the brief's)
    "Earlier we had hangs with NCCL 2.18.",  # probe
    "This used to hang on 0.4.0.",  # probe
    "We previously had hangs when using TP=4.",  # probe
    "In the past we saw hangs on startup.",  # probe
    "We used to get stuck at loading with NCCL 2.18.",  # probe: "get stuck"
    "In older versions we had random freezes with TP=4.",  # probe
    "We used to get hangs every now and then.",  # probe: "now and then" is no "now"
])
def test_a_hang_said_only_of_the_past_is_not_one_now(text):
    assert _hangs(text) == []


@pytest.mark.parametrize("text", [
    "It used to work but now hangs.",  # probe: the past is the working run
    "It used to work, but now it hangs at startup.",  # probe
    "It hangs again.",  # probe
    "It still hangs.",  # probe
    "It hung yesterday and today.",  # probe
    "It used to be fast, now the process hangs after loading.",  # probe
    "This used to hang on 0.4.0 and it still hangs on 0.5.0.",  # probe: carried on to now
    "It used to take 2 minutes to load; now it hangs forever.",  # probe: another sentence
    "Earlier today it hung twice.",  # near-miss: "earlier today" is now
    "Previously, when the server hangs, we restart it.",  # near-miss: a bare marker with the present tense
    "The hangs we used to get are back.",  # near-miss: back
    "It used to hang and it still does.",  # near-miss
    "Previously it hung at step 300; now it hangs at step 10.",  # near-miss: the second is now
    "We are used to hangs with this setup.",  # near-miss: accustomed to them, still seen
    "Why does it hang now when it used to work?",  # near-miss: a question, the hang now
])
def test_a_hang_now_stays_one(text):
    assert _hangs(text)


# ------------------------------------------------------------------ 2. a timeout set as a guard is no timeout met

@pytest.mark.parametrize("text", [
    "Add timeout to prevent hanging",  # find_string id 57978273250
    "// Set the timeout to prevent hangs with configurations that work",  # id 6024655
    "// Set a timeout to avoid hanging",  # ids 46975745872, 36004510252
    "Automatically backs up records to Firebase Firestore when available, with intelligent timeouts to prevent UI "
    "stalling.",  # id 71499686312
    "Configure web server and application timeouts to prevent requests from hanging indefinitely and consuming "
    "resources.",  # id 19515763622
    "We use timeouts to prevent hangs.",  # probe (the brief's)
    "Set a timeout so it does not hang forever.",  # probe
    "We set NCCL_TIMEOUT to avoid hanging.",  # probe
    "I added a timeout to avoid the process hanging forever.",  # probe
    "We configured a 30 minute timeout to prevent NCCL hangs.",  # probe
    "The timeout is there to guard against hangs.",  # probe: "guard against" is a precaution too
])
def test_a_timeout_set_as_a_guard_is_no_hang(text):
    assert _hangs(text) == []


@pytest.mark.parametrize("text", [
    "The job hit a timeout.",  # probe
    "Watchdog caught collective operation timeout: WorkNCCL(SeqNum=1) ran for 600000 milliseconds before timing "
    "out.",  # probe: PyTorch's watchdog wording
    "The request timed out after 600 s.",  # probe
    "We added a timeout to prevent hangs, but the job still hit the timeout.",  # near-miss: the second one met
    "I set a timeout to avoid the hang, but it still hangs.",  # near-miss
    "The job hit the timeout to our surprise.",  # near-miss: no purpose of preventing
    "We got a timeout so the job does not finish.",  # near-miss: met, its result after it
])
def test_a_timeout_met_stays_a_hang(text):
    assert _hangs(text)


# ------------------------------------------------------------- 3. bad output a capability or a warning, not seen

@pytest.mark.parametrize("text", [
    "Path 2 is the silent out-of-bounds read that can produce garbage seed positions without crashing.",
    # (find_string id 59312280457)
    "Re-implementing sampling with empty/default params can produce garbage outputs even when it succeeds.",
    # (id 4600761426)
    "Memory is disabled by default because the summarizer can produce garbage summaries.",  # id 49228696026
    "If bounds checking is disabled, out of bounds accesses can produce garbage results",
    # (id 17464846266, up to its "or segfaults": a crash word the bad-output reading does not govern)
    "If the distribution of the features at prediction time is different than in training, the scalers can output "
    "gibberish data.",  # id 8257491458
    "Actions use GetUpdatedEntityID which can return garbage when reflecting",  # id 39114741530
    "The model can produce garbage.",  # probe
    "It may output gibberish.",  # probe
    "This could return nonsense.",  # probe
    "Can it produce garbage?",  # probe: a question
    "I read that it can produce garbage with -sm row.",  # probe: hearsay
])
def test_bad_output_that_can_happen_is_no_failure_seen(text):
    assert _failed(text) is None


@pytest.mark.parametrize("text", [
    "It produces garbage.",  # probe
    "The output is gibberish after 10 tokens.",  # probe
    "Now it can only produce garbage.",  # near-miss: all it does now
    "I can confirm it produces garbage.",  # near-miss: the writer's "can"
    "I can see that it outputs gibberish.",  # near-miss
    "It can sometimes produce garbage.",  # (fr45) a frequency: what the run does now and then (was a probe above)
])
def test_bad_output_seen_is_a_failure(text):
    assert _failed(text)


# ---------------------------------------------------------------------- 4. a parameter's name is no behaviour

@pytest.mark.parametrize("text", [
    "freeze (bool, optional): Whether to freeze the encoder parameters. Defaults to False.",  # id 1840756031
    "freeze (bool): If True, freezes the layers of the intensity/segmentation models.",  # id 11979481346
    "freeze (bool): Whether to freeze the codebook parameters (default: False).",  # id 13916012876
    "    freeze_vision_tower: bool = field(default=True)",  # id 10274066735
    "    freeze_mm_proj: bool = True,",  # id 71043805580
    '", PRINT, exec, grimblast --freeze copy area"',  # id 52434867310
    "tunr share -p 3000 --demo --freeze --inject-widget",  # id 70077831280
    "python train.py --freeze 10 --epochs 3",  # probe
    "model = Model(freeze_vision_tower=True)",  # probe
    "We pass freezeBackbone to the trainer.",  # probe: camelCase
])
def test_a_parameter_named_freeze_is_no_hang(text):
    assert _hangs(text) == []


@pytest.mark.parametrize("text", [
    "The training freezes at step 300.",  # probe
    "It freezes (no output for 10 minutes).",  # near-miss: a parenthesis with no type
    "The screen freezes (bool flags aside).",  # near-miss: a type word, not a type
    "Setting --tp 2 -freezes the server.",  # near-miss: not the flag's bare form
    "The server freezes: 2 out of 5 runs.",  # near-miss
    "The non-freeze path works, but with TP the process freezes.",  # near-miss
])
def test_a_freeze_seen_stays_a_hang(text):
    assert _hangs(text)


# ------------------------------------------------------------- 5. advice the reporter took up is a setting in use

def _setting_tried(text: str) -> bool:
    found = [c for c in claims.claims(_said(text)) if c.kind == "setting"]
    assert len(found) == 1
    return found[0].data["tried"]


@pytest.mark.parametrize("text", [
    "You can set NCCL_P2P_DISABLE=1, so we run with it.",  # probe (the brief's)
    "You could enable NCCL_P2P_DISABLE=1, and we now use it.",  # probe
    "The docs say you can set NCCL_P2P_DISABLE=1 on these cards, so we run with it.",  # probe
    "You can set NCCL_P2P_DISABLE=1. We run with it as suggested.",  # probe: the next sentence
    "We run with NCCL_P2P_DISABLE=1 as suggested.",  # probe (the brief's; read so before too)
])
def test_advice_taken_up_is_in_use(text):
    assert not _setting_tried(text)
    assert launch._assignments(text, "x")  # the launch parser reads it the same way


@pytest.mark.parametrize("text", [
    "You could set NCCL_P2P_DISABLE=1.",  # near-miss: advice only
    "You could set NCCL_P2P_DISABLE=1, so we will try it.",  # near-miss: not yet
    "You could set NCCL_P2P_DISABLE=1 and it should help.",  # near-miss
    "You could set NCCL_P2P_DISABLE=1. We will try it tomorrow.",  # near-miss
])
def test_advice_not_taken_up_is_not_in_use(text):
    assert _setting_tried(text)
    assert not launch._assignments(text, "x")


# --------------------------------------------------------------- 6. llama.cpp split mode none runs on one GPU

TWO_BOARDS = "# llama-server slow on 2x RTX 3090\n\nI have 2x RTX 3090. "


@pytest.mark.parametrize("run", [
    "I run:\n\n```\n./llama-server -m model.gguf -ngl 99 -sm none -mg 0\n```\n",  # probe, the flags of id 30265597633
    "I run:\n\n```\n./llama-server -m model.gguf -ngl 99 -sm none -ts 1,1\n```\n",  # probe: proportions too
    "I run:\n\n```\n./llama-cli -m model.gguf -ngl 99 --split-mode none --main-gpu 0\n```\n",  # probe (id 21129230014)
    "I run llama-server with --split-mode none.\n",  # probe: in prose
])
def test_split_mode_none_is_one_gpu_in_use(run):
    facts = _facts(TWO_BOARDS + run + "\nI get 30 tok/s. Is this normal?\n")
    assert common.gpu_count(facts) == 1
    assert common.wfield(facts, "tp")[0] == 1
    assert not gpus_in_use.layer_split_over_gpus(facts)


@pytest.mark.parametrize("run", [
    "I run llama-server with -sm layer.\n",  # near-miss: a layer split over both
    "I do not use --split-mode none, the model is split over both.\n",  # near-miss: denied
    "With -sm layer I get 20 t/s and with -sm none 30 t/s.\n",  # near-miss: two runs set against each other
])
def test_other_split_modes_keep_the_gpus(run):
    facts = _facts(TWO_BOARDS + run + "\nI get 20 tok/s. Is this normal?\n")
    assert common.gpu_count(facts) == 2
    assert gpus_in_use.layer_split_over_gpus(facts)


def test_split_mode_none_in_llama_h_spelling():
    # llama.h's enum, as llama-cpp-python passes it (split_mode=llama_cpp.LLAMA_SPLIT_MODE_NONE): probe
    lines = [(1, "llm = Llama(model_path, split_mode=llama_cpp.LLAMA_SPLIT_MODE_NONE, main_gpu=1)")]
    assert issue_md._none_split(lines) == 1
    assert issue_md._none_split([(1, "We never use -sm none here.")]) is None

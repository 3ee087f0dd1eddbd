"""Issue 11 (session s41, pass words41): three readings of reporters' words (tests/data/words41/SOURCES.md).

1. A doubt ("I doubt that ...", "I'm doubtful ...") is the reporter's opinion that the words are not so: a guess word
   (claims._GUESS), neither an assurance that the run works (claims.run_unaffected) nor an observation.
2. A number with a count of cards after it ("8张卡", "8卡", "8个GPU", "8 GPUs") is a GPU count, not a batch
   (issue_md.BATCH, BATCH_ONLY); the batch said beside a GPU count still reads.
3. A question ends its sentence: "If I add --ipc=host, does it help? I did and it still hangs." asks, then answers; the
   answer is what the remedy did (claims._answered_advice).

Sentences quoted with their thread are real; the rest are probes (short sentences testing a reading, with negations,
hearsay, guesses, advice and near-misses that must not fire).
"""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(f"# t\n\n{text}\n", "issue.md"))
    return facts


# ----------------------------------------------------------------------------- 1. doubt

@pytest.mark.parametrize("text", [
    "I doubt that training proceeds correctly, but it emits these warnings.",  # probe (the brief's)
    "I'm doubtful the training runs correctly with these warnings.",  # probe
    "I really doubt the job runs fine, it prints these warnings every step.",  # probe
])
def test_a_doubt_is_no_assurance_that_the_run_works(text):
    assert claims.run_unaffected(_facts(text)) is None


@pytest.mark.parametrize("text", [
    # real: pytorch/pytorch#128998 (tests/data/healthy40), unchanged
    "When using nodes connected by IPv6, training proceeds correctly, but emits these misleading messages.",
    "The training proceeds correctly, it only emits these warnings.",  # probe
])
def test_the_run_said_to_work_still_reads(text):
    assert claims.run_unaffected(_facts(text)) is not None


@pytest.mark.parametrize("sentence, guessed", [
    # real: facebookresearch/fairseq#1294 (reporter), the cause doubted
    ("I doubt it is an OOM problem, I never got OOM messages", True),
    # real: facebookresearch/fastMRI#112
    ("I doubt that you would see monotonicity with any GPU arrangement for the VarNet model, which uses SSIM.", True),
    ("I am skeptical that P2P is really enabled here.", True),  # probe
    # probes that must not fire: the doubt denied or affirmed, and another word
    ("There is no doubt P2P is disabled.", False),
    ("Without a doubt, P2P is disabled.", False),
    ("I doubted it at first, but P2P is disabled.", False),
    ("P2P is disabled on this board.", False),
])
def test_a_doubt_is_a_guess_word(sentence, guessed):
    assert claims.guessed(sentence, sentence.find("P2P") if "P2P" in sentence else None) is guessed


def test_a_doubt_governs_its_own_clause_only():
    # probe: the state reported before the doubt stays observed
    sentence = "P2P is disabled, I doubt that matters."
    assert not claims.guessed(sentence, sentence.find("P2P"))


# ----------------------------------------------------------------------------- 2. cards after the number

@pytest.mark.parametrize("text", [
    "我的batch是8张卡",  # probe (the brief's)
    "batch是8卡", "batch是8个GPU", "batch 8 张A100", "batch是8张3090",  # probes
    "batch size 8 GPUs", "batch 8 cards",  # probes
])
def test_cards_after_the_number_are_no_batch(text):
    assert issue_md.BATCH.search(text) is None
    assert issue_md.BATCH_ONLY.search(text) is None


@pytest.mark.parametrize("text, batch", [
    ("使用了16张V100显卡，batch size = 32", 32),  # real: IDEA-Research/GroundingDINO#198
    ("我设置的是batch_size=2，用的8张24G的3090跑的", 2),  # real: IDEA-Research/GroundingDINO#198 (a comment)
    ("请问一下4卡batchsize 为2", 2),  # real: LiheYoung/UniMatch#81
    ("I train the SEAM on 4 2080Ti GPUs with batch size 8", 8),  # real: YudeWang/SEAM#30
    ("bs=8 with 4 GPU cards", 8),  # real: YudeWang/SEAM#30
    # probes: images are a batch, a GPU count later in the sentence leaves the batch, and a GPU noun that counts nothing
    ("batch是8张图", 8), ("batch size 8 on 8 GPUs", 8), ("batch size 16 per GPU", 16),
    ("batch size 8 GPU memory 20G", 8), ("batch 8 1024 tokens", 8),
])
def test_the_batch_beside_a_gpu_count_still_reads(text, batch):
    assert int(issue_md.BATCH_ONLY.search(text).group(1)) == batch


def test_the_cards_are_the_gpu_count():
    # probe (the brief's): the eight cards are read as the GPU count, and no batch
    works = [r for r in issue_md.parse("# t\n\n我的batch是8张卡，推理很慢。\n", "issue.md")
             if type(r).__name__ == "Workload"]
    assert any(w.gpu_count == 8 for w in works)
    assert not any(w.batch for w in works)


# ----------------------------------------------------------------------------- 3. a question answered

def _remedy(text: str):
    (c,) = claims.remedies("issue.md", text, set())
    return c.guess, c.data["effect"]


@pytest.mark.parametrize("text, guess, effect", [
    # probes (the brief's and its kin): asked, then answered by the reporter
    ("If I add --ipc=host, does it help? I did and it still hangs.", False, "no_help"),
    ("Would --enforce-eager help? I tried it and it still hangs.", False, "no_help"),
    ("Would --enforce-eager help? I tried it and it works now.", False, "fixes"),
    ("Should I add --ipc=host? I did and it still hangs.", False, "no_help"),
    # probes that must not become a trial: left unanswered, answered with hearsay or with nothing done
    ("If I add --ipc=host, does it help?", True, "fixes"),
    ("Does --enforce-eager help? I haven't tried yet.", True, None),  # the answer says nothing was done
    # hearsay: a guess, and (s42: the writer asking whether to add it, launch.ADVISING) not what runs, so the effect
    # someone else had is not this run's, as "someone suggested --ipc=host, it works for them"
    ("Should I add --ipc=host? Someone said it helps.", True, None),
    # a statement before a question keeps its own effect
    ("I added --ipc=host and it still hangs. Any idea?", False, "no_help"),
])
def test_a_remedy_asked_about_then_answered(text, guess, effect):
    assert _remedy(text) == (guess, effect)


def test_a_setting_asked_about_then_answered_rules_it_out():
    # probe: the NCCL setting's reading is the same one (claims.tried_without_effect)
    facts = _facts("If I set NCCL_P2P_DISABLE=1, does it help? I did and it still hangs.")
    assert claims.tried_without_effect(facts, "p2p")
    assert not claims.tried_without_effect(_facts("If I set NCCL_P2P_DISABLE=1, does it help?"), "p2p")


def test_a_question_mark_inside_a_url_ends_nothing():
    # probe: "?" without a blank after it is a URL's query, not a sentence's end
    text = "Did --ipc=host help? See https://example.com/x?id=3 I did and it still hangs."
    assert claims._answered_advice(text, text.find("--ipc")) is None  # the answer is not the URL's tail

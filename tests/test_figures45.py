"""figures45 (issue 11): a figure someone else reached is not the reporter's measurement.

An audit of the measured figures written in prose across the kept pastes (tests/data/figures45/SOURCES.md) found the
rates people write with a unit almost all read, and a few figures read as the reporter's that were someone else's:
hearsay written with the contraction ("I've heard others ... achieving around 12t/s": the hearsay reading knew
"I have heard" and "I heard" only), a figure someone else reached said with a verb of reaching rather than of speech
("someone was able to achieve over 900 tokens/s"), and one a user "observed" on their own system. The reporter's own
figures beside them, and near-misses that only look alike ("we serve 100 people and get 20 tok/s", "the others get
5 tok/s", "a user gets 40 tok/s at 16 concurrent"), stay read."""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement

DATA = Path(__file__).parent / "data"


def _rates(text: str) -> list[float]:
    records = issue_md.parse("I run it on an RTX 3090.\n\n" + text + "\n", "ticket.md")
    return [r.value for r in records if isinstance(r, Measurement) and r.metric == "decode_tok_s"]


def _paste_rates(path: str) -> dict[int, list[float]]:
    out: dict[int, list[float]] = {}
    for r in issue_md.parse((DATA / path).read_text(), "issue.md"):
        if isinstance(r, Measurement) and r.metric == "decode_tok_s":
            out.setdefault(int(r.source.rsplit(":", 1)[1]), []).append(r.value)
    return out


# real sentences: (where, sentence, the figures that are someone else's)
OTHERS = [
    # tests/data/extract34/textgen1513.md line 4 (oobabooga/textgen#1513): hearsay with the contraction
    ("textgen#1513", "I've heard others using this repo achieving around 12t/s which is considerably faster.", 12.0),
    # tests/data/normal_questions/vllm20890.md line 11 (vllm-project/vllm#20890): someone else's run
    ("vllm#20890", "I noticed someone was able to achieve over 900 tokens/s throughput using vLLM 0.8.5 on 8×A800 "
                   "with a batch size of 32, input length of 1k, and output length of 1k.", 900.0),
    # AlexsJones/llmfit#137 (tests/data/figures45/SOURCES.md): what a user observed on their system
    ("llmfit#137", "This was reported in #88, where a user observed 270 tok/s on their system while llmfit "
                   "estimated 8.8.", 270.0),
    # probes (written for this pass): the same forms, other spellings
    ("probe", "I’ve heard 40 tok/s is normal for this card.", 40.0),
    ("probe", "Somebody managed to reach 80 tok/s with the same model.", 80.0),
    ("probe", "Other users are getting 50 tok/s on a 3090.", 50.0),
    ("probe", "A friend got 60 tok/s on his 4090.", 60.0),
]


@pytest.mark.parametrize("where,sentence,theirs", OTHERS, ids=[f"{w}-{i}" for i, (w, _, _) in enumerate(OTHERS)])
def test_someone_elses_figure_is_not_read(where, sentence, theirs):
    assert theirs not in _rates(sentence), where


# probes (written for this pass): the reporter's own figure, beside or instead of someone else's, stays read
OWN = [
    ("I observed 40 tok/s on my 3090.", 40.0),
    ("People are getting 50 tok/s on a 3090, but I only get 20 tok/s.", 20.0),
    ("We serve 100 people and get 20 tok/s.", 20.0),
    ("GPU 0 does 20 tok/s while the others get 5 tok/s.", 5.0),
    ("A user gets 40 tok/s at 16 concurrent.", 40.0),  # the reporter's own users: "a user" alone is not someone else
    ("I heard the fans spin up. Decode runs at 30 tok/s.", 30.0),  # hearsay's verb in another sentence
    ("Someone suggested trying TP=2; I get 20 tok/s.", 20.0),  # advice given, the figure the reporter's
]


@pytest.mark.parametrize("sentence,own", OWN, ids=[s[:40] for s, _ in OWN])
def test_the_reporters_own_figure_stays(sentence, own):
    assert own in _rates(sentence)


def test_the_pastes_keep_the_reporters_figure_and_drop_the_others():
    # oobabooga/textgen#1513: "I only get around 3t/s with my RTX 3090" (line 3) is the reporter's; 12 t/s is hearsay
    got = _paste_rates("extract34/textgen1513.md")
    assert 3.0 in [v for vs in got.values() for v in vs]
    assert 12.0 not in got.get(4, [])
    # vllm-project/vllm#20890: the 900 tok/s someone else reached is not the reporter's
    assert 900.0 not in _paste_rates("normal_questions/vllm20890.md").get(11, [])


def test_a_speech_verb_still_marks_hearsay():
    # (the branch before this pass: "people report", "a colleague said")
    assert 70.0 not in _rates("A colleague said his box does 70 tok/s; mine does 35 tok/s.")
    assert 35.0 in _rates("A colleague said his box does 70 tok/s; mine does 35 tok/s.")

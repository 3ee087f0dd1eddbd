"""Paraphrase audit of the ticket claim families, second pass (issue 11, session 20): the families the first pass
(tests/test_paraphrases_20.py) did not cover.

tests/data/paraphrases_20/<family>.toml with `audit = 2` holds real sentences from public threads that are no corpus
case, each with its URL: ones that state the family's fact in other words (`claim`: what the reading should find) and
negations or near-misses (`claim = "none"`: no errors, a question, advice, someone else's system or systems in
general, a condition). Each is read as a ticket whose body is the sentence, the way the other paraphrase tests build
theirs. A claim counts as said when the reporter states it: not ruled out (negated) and not offered as a guess, a
question or advice (guess), as the rules weigh them.

The family's reading is named by `reading`: the claim kinds of rules.claims.claims (default; `setting:NAME=VALUE` is
that setting in use, not only named or advised), the symptom class of the ticket's opening (`symptom`: claim is the
class, "normal?" for the is-this-normal question) or the reporter's word that the problem is gone (`solved`)."""

from pathlib import Path

import pytest
import tomllib
from test_u11o_peer_copy_and_fit import issue

from rules import claims

DATA = Path(__file__).parent / "data" / "paraphrases_20"


def _families() -> dict[str, dict]:
    out = {}
    for path in sorted(DATA.glob("*.toml")):
        family = tomllib.loads(path.read_text())
        if family.get("audit") == 2:
            out[path.stem] = family
    return out


FAMILIES = _families()


def _cases():
    out = []
    for name, family in FAMILIES.items():
        for i, case in enumerate(family["case"]):
            marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
            out.append(pytest.param(name, case, id=f"{name}-{i}-{case['claim']}", marks=marks))
    return out


def _stated(c: claims.Claim) -> bool:
    return not c.negated and not c.guess


def _said(facts, kind: str) -> bool:
    """Does the reporter state a claim of `kind` (a claim kind, or setting:NAME=VALUE in use)?"""
    if kind.startswith("setting:"):
        name, value = kind.split(":", 1)[1].split("=", 1)
        return any(c.kind == "setting" and c.data["name"] == name and c.data["value"] == value
                   and not c.data["tried"] for c in claims.claims(facts))
    return any(c.kind == kind and _stated(c) for c in claims.claims(facts))


def found(name: str, case: dict) -> bool:
    """Does the family's reading find what `case` says (for a negation: any of the family's claims)?"""
    family = FAMILIES[name]
    facts = issue(f"# {case.get('title', 'Report')}\n\n{case['sentence']}")
    kinds = {c["claim"] for c in family["case"] if c["claim"] != "none"} if case["claim"] == "none" \
        else {case["claim"]}
    reading = family.get("reading", "claims")
    if reading == "symptom":
        return claims.symptom(facts) in kinds
    if reading == "solved":
        return claims.solved(facts) is not None
    return any(_said(facts, kind) for kind in kinds)


@pytest.mark.parametrize("name,case", _cases())
def test_a_real_sentence_gets_its_familys_reading(name, case):
    if case["claim"] == "none":
        assert not found(name, case), case["sentence"]
    else:
        assert found(name, case), case["sentence"]


def test_every_sentence_has_its_source_and_each_family_its_negations():
    assert len(FAMILIES) >= 10
    for name, family in FAMILIES.items():
        assert all(c["url"].startswith("https://github.com/") for c in family["case"]), name
        said = [c for c in family["case"] if c["claim"] != "none"]
        negations = [c for c in family["case"] if c["claim"] == "none"]
        assert len(said) >= 4 and len(negations) >= 2, name


# Sentences of other threads, none used to write the readings, read after the change. The first seven were read after
# the first widening: the 是否是正常 form, "everything is running smoothly", "Everything works perfectly" and
# "already fixed this issue" missed, and the words added to rules.claims from them (是否是正常; smoothly, perfectly;
# fixed this/that/my/our issue) are what they pass by; the last four were read after that and were used for nothing.
HELD_OUT = [
    ("up您好，我使用您的代码进行GPU推理，发现推理速度和论文上的速度差很多，平均每张图片的推理时间为0.3-0.5s，请问这是正常的吗？",
     "https://github.com/bubbliiiing/yolov5-v6.1-tf2/issues/2", "symptom", True, None),
    ("想问下我在4090显卡上推理3秒的视频，需要12分钟，这个速度正常吗（24G显存是跑满的）",
     "https://github.com/sy77777en/CameraBench/issues/7", "symptom", True, None),
    ("使用3090显卡， 一张图片耗时在40-90s， 这个速度是否是正常速度呢？",
     "https://github.com/Ucas-HaoranWei/GOT-OCR2.0/issues/87", "symptom", True, None),
    ("Once installed everything is running smoothly!", "https://github.com/nysthi/nysthi/issues/271", "solved", True,
     None),
    ("3) Restored the NYSTHI plugin-v1 folder to it's original state with the MusicalBox modules. Everything works "
     "perfectly.", "https://github.com/nysthi/nysthi/issues/271", "solved", True, None),
    ("The 1.0.2.1000 release had **already fixed this issue**!", "https://github.com/dokan-dev/dokany/issues/398",
     "solved", True, None),
    ("If we revert to the old driver (using `options snd-intel-dspcfg dsp_driver=1`) then the hangs go away, so we're "
     "fairly sure the new driver is to blame.", "https://github.com/thesofproject/linux/issues/2066", "solved", False,
     None),
    ("I made some packages updates and now it's running. Thank you", "https://github.com/mittagessen/party/issues/7",
     "solved", True, "'now it's running' names no failure gone and no 'everything': the solved words are a failure "
                     "gone, a fix, or everything working"),
    ("I added `mpiCheck(MPI_Init(argc, argv));` to line 376 of `train_gpt2.cu` and remade the training file, seems to "
     "fix things!", "https://github.com/karpathy/llm.c/pull/426", "solved", True,
     "'fix things' after 'seems to': neither a named problem fixed nor a statement (claims._SOLVED)"),
    ("Hi, I open the nccl op to train the tutorial_network and the error above disappeared. However, the program hangs "
     "after loading data and occupy 100% CPU all the time.", "https://github.com/facebookresearch/Detectron/issues/32",
     "solved", False, None),  # (held because "the error above disappeared" has a word between; a new failure in the
    # next sentence is not read against the solved words, only 'still', 'again', 'persists' are)
    ("Hi, thanks for your great work! May I ask how you compute fps for peract and rvt?",
     "https://github.com/NVlabs/RVT/issues/24", "symptom", False, None),
]


@pytest.mark.parametrize("sentence,url,reading,expected", [
    pytest.param(s, u, r, e, marks=[pytest.mark.xfail(reason=x, strict=True)] if x else [])
    for s, u, r, e, x in HELD_OUT], ids=[f"{u.rsplit('/', 3)[1]}-{i}" for i, (_, u, *_) in enumerate(HELD_OUT)])
def test_sentences_of_other_threads_read_after_the_change(sentence, url, reading, expected):
    facts = issue(f"# Report\n\n{sentence}")
    said = claims.symptom(facts) == "normal?" if reading == "symptom" else claims.solved(facts) is not None
    assert said == expected, url

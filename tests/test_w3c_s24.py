"""Boards without PCIe P2P whose own figures show the split paying (issue 11, session 24, w3c): the GeForce no-P2P
prior (ticket.symptom_prior) said 'the driver refuses P2P, TP is capped' over a table that measured one GPU against
TP=2 on the same load with the split faster (syv-ai/qwen38-27b-rtx3090#135: 46 -> 60.1 tok/s, the maintainer's
'expected shape'); no figure check could outrank it, the model being outside the catalog. A measured gain of the
split on the same load now answers as the physics of host-staged TP; tables that only look alike (replicas, one
layout measured several ways, DCP sizes, an A/B on the same GPUs, latencies that grow) leave the prior as it was.

Real pastes in tests/data/w3c_s24/*.md and tests/data/mend2_s24/*.md, each with its URL in the SOURCES.md there."""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from rules.engine import evaluate, ticket_findings, ticket_verdict
from rules.ticket_rules import measured_split_gain

HERE = Path(__file__).parent / "data"
DATA = HERE / "w3c_s24"
MEND2 = HERE / "mend2_s24"


def _facts(tmp_path, path: Path):
    folder = tmp_path / path.stem
    folder.mkdir()
    (folder / "issue.md").write_text(path.read_text())
    return read_bundle([folder])


def _judged(facts):
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), ticket_findings(facts, findings)


def test_every_paste_names_its_source():
    sources = (DATA / "SOURCES.md").read_text()
    for path in sorted(DATA.glob("*.md")):
        if path.name != "SOURCES.md":
            assert f"`{path.name}`" in sources, path.name


def test_a_measured_tp2_gain_on_a_geforce_pair_is_the_physics_of_host_staged_tp(tmp_path):
    facts = _facts(tmp_path, MEND2 / "syv135.md")
    gain, small, large, _ = measured_split_gain(facts)
    assert (small["value"], large["value"], large["gpus"]) == (46.0, 60.1, 2) and round(gain, 2) == 1.31
    verdict, findings = _judged(facts)
    assert verdict.category == "expected_physics"
    lead = next(f for f in findings if f.rule == "ticket.symptom_prior")
    assert lead.category == "expected_physics" and "x1.31" in lead.title
    assert {e.measured for e in lead.evidence} >= {46.0, 60.1}
    assert not any(f.category == "p2p_disabled" for f in findings)


def test_an_nvlink_pair_gain_is_read_but_no_p2p_prior_speaks(tmp_path):
    # syv-ai/qwen38-27b-rtx3090#164: 1x RTX 3090 ~1,035 against 2x RTX 3090 NVLink (TP=2) 1,439 tok/s at C64
    facts = _facts(tmp_path, MEND2 / "syv164.md")
    assert round(measured_split_gain(facts)[0], 2) == 1.39
    verdict, findings = _judged(facts)
    assert verdict.category != "p2p_disabled"
    assert not any(f.rule == "ticket.symptom_prior" for f in findings)


@pytest.mark.parametrize("name", ["passk_dp_tp.md", "img_4080.md"])
def test_a_split_that_does_not_pay_is_no_measured_gain(tmp_path, name):
    # 4x RTX 4090: ~19,300 as four data-parallel copies (a gain of copies, not of the split), ~2,000 as TP=4 against
    # ~5,100 on one; 4x RTX 4080: latencies that grow from one GPU to four
    assert measured_split_gain(_facts(tmp_path, MEND2 / name)) is None


@pytest.mark.parametrize("name", ["rtx6kpro25.md", "p40_mtp29.md"])
def test_tables_that_only_look_alike_give_no_gain_and_no_new_answer(tmp_path, name):
    # a DCP sweep on 8x RTX PRO 6000 (a fixed ~14 ms spin per forward: broken); a speculative-decoding A/B on the
    # same two P40s
    facts = _facts(tmp_path, DATA / name)
    assert measured_split_gain(facts) is None
    _, findings = _judged(facts)
    assert not any(f.rule == "ticket.symptom_prior" and "without P2P" in f.title for f in findings)


def test_the_no_p2p_prior_still_answers_a_geforce_pair_without_a_measured_gain():
    # noonghunna/club-3090#356 (development case s005): TP=2 on two GeForce RTX 3090 over Gen3 without P2P, below the
    # P2P-enabled reference rows, no one-GPU row: the prior stays the answer
    verdict, _ = _judged(read_bundle([HERE / "tickets" / "s005-club3090-x99-2x3090-tp2-below-baseline"]))
    assert verdict.category == "p2p_disabled"


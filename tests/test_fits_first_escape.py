"""A cause escapes the demotion a fitting figure applies (rules.engine.fits_first) only when it explains the shortfall
the fit leaves: its evidence is seen (an artifact, or the reporter's observation, not a guess or a bare keyword), the
run's layout can pay it (a cost between GPUs is none of a one-GPU run's: gap_costs.toml between_gpus) and it costs at
least that shortfall (both as expected / measured factors). Issue 11, the reviewer's point on the merged s17 work.

The sentences are written here from NCCL's documented switch (NCCL_P2P_DISABLE,
https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html) and the claim kinds' own vocabulary; the band
(RTX 4090, Llama-3.1-8B bf16, one request: 33-60 tok/s) is the calibrated one the ticket path computes.
"""

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note, Workload
from diagnose.findings import Evidence
from rules import claims
from rules.common import claim_ev, make
from rules.engine import evaluate, fits_first, observed, one_gpu_run, ticket_verdict


def _asked(rate: float, extra: str = "") -> str:
    return ("# Decode speed question\n\nI serve meta-llama/Llama-3.1-8B-Instruct (bf16) with vLLM on one RTX 4090, "
            "started with `vllm serve meta-llama/Llama-3.1-8B-Instruct`. A single request decodes at "
            f"{rate:g} tok/s. Is this what I should expect?\n" + extra)


def _verdict(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    return facts, ticket_verdict(facts, evaluate(facts))


def test_a_cost_between_gpus_does_not_explain_a_one_gpu_runs_shortfall(tmp_path):
    # NCCL_P2P_DISABLE=1 is seen (topology.p2p_forced_off, 0.75), but one GPU exchanges nothing with a peer: the slack
    # fit (30 tok/s, 10 % below 33) stands (main before this change: p2p_disabled 0.65)
    facts, v = _verdict(tmp_path, _asked(30, "\nWe export NCCL_P2P_DISABLE=1 in the container.\n"))
    assert one_gpu_run(facts)
    assert v.category == "expected_physics"


def test_a_cost_on_one_gpu_still_explains_it(tmp_path):
    # the same shortfall beside clocks held down (throttling: no peer needed) keeps the observed cause
    _, v = _verdict(tmp_path, _asked(30, "\nnvidia-smi shows the GPU stuck at 210 MHz with 'HW Slowdown: Active' "
                                         "while it decodes.\n"))
    assert v.category == "throttling"


def _said(text: str, tp: int | None = 2) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    if tp is not None:
        facts.add(Workload("ticket.toml", tp=tp))
    return facts


def _fit(measured: float, band: str) -> object:
    low = float(band.split("-")[0])
    return make("ticket.measured_vs_expected", "expected_physics", "info", 0.55, "fits", "",
                [Evidence("issue.md:1", "decode rate", measured, low, "tok/s"),
                 Evidence("prediction:expected", "expected band", None, band, "tok/s")])


def _cause(facts: Facts, kind: str, category: str):
    (c,) = [c for c in claims.claims(facts) if c.kind == kind]
    return make("ticket.words", category, "warning", 0.6 if not c.guess else 0.4, "cause", "", [claim_ev(c, kind)])


def test_an_observation_escapes_and_a_guess_does_not():
    seen = _said("At TP=2 the decode rate is 30 tok/s. P2P is disabled on these boards.")
    guess = _said("At TP=2 the decode rate is 30 tok/s. Maybe P2P is disabled on these boards?")
    for facts, kept in ((seen, True), (guess, False)):
        cause = _cause(facts, "no_p2p", "p2p_disabled")
        assert observed(facts, cause) is kept
        out = {f.rule: f for f in fits_first(facts, [cause, _fit(30, "33-60")])}
        assert (out["ticket.words"].severity == "warning") is kept


def test_a_bare_keyword_is_not_seen():
    facts = _said("P2P, NVLink, NCCL: which one matters at TP=2?")
    bare = make("ticket.words", "p2p_disabled", "warning", 0.6, "cause", "", [Evidence("issue.md:1", "the word P2P")])
    assert not observed(facts, bare)
    assert fits_first(facts, [bare, _fit(30, "33-60")])[0].severity == "info"


def test_the_observation_on_a_one_gpu_layout_is_demoted():
    facts = _said("At TP=1 the decode rate is 30 tok/s. P2P is disabled on these boards.", tp=1)
    cause = _cause(facts, "no_p2p", "p2p_disabled")
    assert observed(facts, cause) and one_gpu_run(facts)
    assert fits_first(facts, [cause, _fit(30, "33-60")])[0].severity == "info"


def test_a_cost_smaller_than_the_shortfall_does_not_explain_it():
    # eager mode costs at most 3x (gap_costs.toml); a shortfall of 4x (10 against a low edge of 40) is more than it
    facts = _said("Decode runs at 10 tok/s with --enforce-eager.", tp=1)
    eager = make("ticket.words", "eager_mode", "warning", 0.6, "eager", "",
                 [Evidence("issue.md:1", "launch", None, None)])
    facts.add(Workload("issue.md:1", eager=True))
    assert observed(facts, eager)
    assert fits_first(facts, [eager, _fit(10, "40-60")])[0].severity == "info"
    assert fits_first(facts, [eager, _fit(35, "40-60")])[0].severity == "warning"  # 1.14x: within its 3x


def test_a_cause_ruled_out_is_not_seen():
    facts = _said("At TP=2 the decode rate is 30 tok/s. The GPU is not throttling.")
    (c,) = [c for c in claims.claims(facts) if c.kind == "clock_power"]
    assert c.negated
    cause = make("ticket.words", "throttling", "warning", 0.6, "cause", "", [claim_ev(c, "clock_power")])
    assert not observed(facts, cause)
    assert fits_first(facts, [cause, _fit(30, "33-60")])[0].severity == "info"

"""A transport the reporter infers from how the run behaves ("inter-node communication appears to fall back to
TCP/IP") is a guess, not an observation (batch u20a): NCCL's path is seen only in its own log ('via NET/Socket',
'via NET/IB/.../GDRDMA'; Horovod's alsrgv in horovod/horovod#55: "You can check that by setting NCCL_DEBUG=INFO"),
and English puts a mechanism the speaker did not watch behind "appears/seems to". A run state behind the same words
("it seems to hang at ...") is still what the reporter saw, and a path stated outright stays an observation."""

from pathlib import Path

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict

CORPUS = Path(__file__).parent / "data" / "tickets"


def socket_claims(text: str):
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return [c for c in claims.claims(facts) if c.kind == "net_socket" and not c.negated]


def verdict_of(folder: Path):
    facts = read_bundle([folder])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def test_an_inferred_fallback_is_a_guess():
    # https://github.com/skypilot-org/skypilot/issues/8391, the reporter's first paragraph
    (c,) = socket_claims("I'm running multi-node training on AWS (2 × A100:8) using SkyPilot. Even with network_tier: "
                         "best, inter-node communication appears to fall back to TCP/IP, causing low GPU utilization.")
    assert c.guess


def test_a_fallback_stated_with_nccls_own_line_is_an_observation():
    # https://github.com/areal-project/AReaL/issues/639: the reporter quotes NCCL's 'NET/Socket : Using' line
    (c,) = socket_claims("Cross-node collective operations (AllReduce, Broadcast) are 4-5x slower than expected due to "
                         "NCCL falling back to Socket transport instead of InfiniBand.")
    assert not c.guess


def test_a_run_state_behind_seems_to_is_no_guess():
    # a run state is what the reporter saw ("the deployment process seems to hang at the copy-controller-secrets
    # phase", a deployment guide's wording): the hedge reaches only a path or transport
    assert not claims._guessed("The deployment process seems to hang at the copy-controller-secrets phase.")
    assert claims._guessed("Even with network_tier: best, inter-node communication appears to fall back to TCP/IP.")


def test_the_skypilot_ticket_asks_for_nccls_log_instead_of_naming_sockets():
    # skypilot-org/skypilot#8391: one EFA of four attached (SkyPilot's public-IP launch), not a socket fallback; the
    # reporter's words name the symptom, and NCCL's INIT,NET log would show the path
    answer, findings = verdict_of(next(CORPUS.glob("u20a05-*")))
    assert not [f for f in findings if f.rule == "ticket.net_socket" and f.severity != "ok"]
    assert answer.category == "insufficient_data"

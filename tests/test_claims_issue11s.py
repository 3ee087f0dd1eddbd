"""Issue 11 s: what an expert reads that the tool missed, in general form.

- A run bound to one NUMA node measured against the same run unbound, by its figures (claims.binding_ab):
  numactl(8) --cpunodebind/--membind, taskset, Open MPI's --bind-to numa, "pinned to one socket".
- "with and without numactl" names both runs, not an unbound one.

Each sentence is written the way these situations are worded in the tools' documentation and across many threads;
none is copied from a corpus case. Paraphrases must be read; negations, questions, conditions, suggestions and
figures that do not improve must not be.
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def observed(text: str, kind: str) -> list[claims.Claim]:
    return [c for c in claims.find(said(text), kind) if not c.guess]


def verdict(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


BOUND_FASTER = [
    "Our box has two EPYC sockets. Plain `python bench.py` gives 31 tok/s. "
    "With `numactl -N 0 -m 0 python bench.py` I measure 47 tok/s.",
    "Throughput is 1200 samples/s by default. Launching every rank under taskset -c 0-15 it goes up to 1650 samples/s.",
    "mpirun with default settings: 9.8 GB/s. Same command with --bind-to numa: 12.9 GB/s.",
    "Decode runs at about 20 t/s out of the box. After I pinned the workers to their local NUMA node it was 27 t/s.",
]

NOT_A_GAIN = [
    # the same figure bound and unbound
    "Plain run: 31 tok/s. With numactl --cpunodebind=0 --membind=0 it is 31 tok/s as well.",
    # binding made it slower
    "Unbound the job reaches 40 tok/s. Under numactl --cpunodebind=1 I only see 22 tok/s.",
    # the binder named only as absent
    "We ran it without numactl and got 12 tok/s. A second machine gives 25 tok/s.",
    # a question, a suggestion
    "It does 15 tok/s. Would running it under numactl --cpunodebind=0 get it to 30 tok/s?",
    "It does 15 tok/s. If we pinned it with taskset it should reach 30 tok/s.",
    # different units: no A/B
    "Prefill takes 800 ms. Under numactl --cpunodebind=0 decode reaches 40 tok/s.",
]


@pytest.mark.parametrize("text", BOUND_FASTER)
def test_a_bound_run_faster_than_the_unbound_one_is_read(text):
    found = observed(text, "numa_words")
    assert found and found[0].data.get("origin") == "figures"
    assert found[0].data["bound"] > found[0].data["unbound"]


@pytest.mark.parametrize("text", NOT_A_GAIN)
def test_no_gain_absence_questions_and_other_units_are_not_read(text):
    assert not observed(text, "numa_words")


@pytest.mark.parametrize("text", [
    "I ran the benchmark with and without numactl and saw the same thread count.",
    "Tested with or without taskset, nothing changes.",
])
def test_with_and_without_a_binder_names_both_runs(text):
    assert not observed(text, "no_cpu_binding")


def test_without_a_binder_alone_is_still_an_unbound_run():
    assert observed("The workers run without numactl on this dual-socket host.", "no_cpu_binding")


def test_a_socket_ab_by_figures_gives_numa_affinity_with_both_figures(tmp_path):
    text = ("# Decode slow on our 2-socket server\n\nTwo Xeon sockets, 512 GB each. Running the server normally gives "
            "about 6 tok/s.\n\nRunning it under `numactl --cpunodebind=0 --membind=0` gives about 11 tok/s.\n")
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    assert ticket_verdict(facts, findings).category == "numa_affinity"
    numa = next(f for f in findings if f.rule == "ticket.numa_words")
    figure = next(e for e in numa.evidence if e.measured is not None)
    assert (figure.measured, figure.expected, figure.unit) == (11.0, 6.0, "tok/s")


def test_a_binding_that_did_not_help_is_no_numa_verdict(tmp_path):
    text = ("# Decode slow on our 2-socket server\n\nRunning the server normally gives about 6 tok/s.\n\n"
            "Running it under `numactl --cpunodebind=0 --membind=0` gives about 6 tok/s too.\n")
    assert verdict(tmp_path, text).category != "numa_affinity"

"""Session s46, pass known46a: English hang and timeout readings the last session's final read left wrong, each proved
with a probe first (the "before" noted beside it), then the general mechanism fixed. Real sentences are labelled with
their source (a find_string id); probes are the writer's own short sentences, labelled probe, with negations, hearsay,
questions, advice and near-misses that must not fire."""

import pytest
from conftest import issue_bundle as _facts

from rules import claims


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


def _said(kind: str, text: str) -> list[str]:
    return [m.group(0) for m in claims._said(kind, dict(claims.SYMPTOMS)[kind], text)]


# ------------------------------ 1. "without issue" negates its own object, not a failure in the clause opened after it

@pytest.mark.parametrize("text", [
    "We used to run TP=2 without issue, and now it hangs.",  # probe (the brief's; before: no hang read)
    "A moment ago Firefox worked without problems, but now it hanged and Task Manager showed 25% CPU usage.",
    # (find_string id 27695927045; read before too: the negation fell 22 characters short)
    "We ran TP=2 without problems, but now it hangs at init.",  # probe (before: no hang)
    "It worked without errors until yesterday, now it hangs.",  # probe (before: no hang)
    "With no issues, but now it hangs.",  # probe (before: no hang)
    "TP=4 ran without any issue and then it froze.",  # probe
])
def test_a_run_said_fine_does_not_negate_the_hang_after_it(text):
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    "It runs without hanging.",  # probe: the hang is the negation's own object
    "It works without any hang.",  # probe
    "There is no hang without NCCL_P2P_DISABLE.",  # probe: "no" right before the hang
    "It ran for 3 days without errors, hangs or crashes.",  # probe: one list of what did not happen
    "It runs without issue and never hangs.",  # probe: the hang negated in its own clause
    "It ran without issues, but now it does not hang either.",  # probe: a second negation, the hang's own
    "No errors and no hangs since the upgrade.",  # probe
])
def test_a_hang_negated_in_its_own_phrase_stays_negated(text):
    assert not _hangs(text)


def test_a_crash_after_a_run_said_fine_is_read_the_same_way():
    # (one negation reading for the hang, crash and error words)
    assert _said("crash", "We ran it without issues, but now it crashes.")  # probe
    assert not _said("crash", "It ran without issues or crashes.")  # probe: the crash is the negation's object


@pytest.mark.parametrize("text", [
    "The service has been running in development for weeks without issues, but now it's failing intermittently.",
    # (find_string id 41242127831)
    "When the NAS used 8.04 LTS, this worked without any issues, but now after about a day, this stops working.",
    # (id 56778882400)
    "I did this before with no issues, but now it seems something is wrong.",  # id 56869221085
])
def test_the_real_sentences_of_the_mechanism_name_a_run_said_fine(text):
    """Each opens a clause after "without/no issues" with "but now": the object the negation covers ends there."""
    assert claims._OWN_OBJECT_NEGATED.search(text)


# ------------------------------------------- 2. a collective that "times out" is the watchdog's hang; a client's is not

@pytest.mark.parametrize("text", [
    "the allreduce times out",  # probe (the brief's; before: no hang read)
    "the NCCL collective times out after 30 minutes",  # probe (before: no hang)
    "The allreduce keeps timing out.",  # probe (before: no hang)
    "while ranks 1-3 enter ep2 and their allreduce times out at 10 min.",  # find_string id 55590426872
    "graph capture succeeds but after replay the embedding allreduce times out at 604s",  # id 54718215719
    "NCCL AllReduce times out after 120s",  # id 56459987861
    "IB hang — NCCL all_reduce times out (ring/nvls/collnet-sharp) on every 2-node pair test",  # id 66070853315
    "all_reduce timed out",  # probe (read before too)
])
def test_a_collective_timing_out_is_a_hang(text):
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    "The request times out after 60 seconds.",  # probe: a client's wait, no collective named
    "The client keeps timing out.",  # probe
    "The allreduce never times out.",  # probe: negated
    "The allreduce no longer times out.",  # probe
    "If the allreduce times out, set NCCL_DEBUG=INFO.",  # probe: advice under a condition
    "Try NCCL_P2P_DISABLE=1 if the allreduce times out.",  # probe: advice
    "Set a timeout so it does not hang.",  # probe: past45's guard, kept
])
def test_a_timeout_not_met_by_a_collective_is_no_hang(text):
    assert not _hangs(text)


@pytest.mark.parametrize("text, before", [
    ("requests.exceptions.ReadTimeout: HTTPConnectionPool(host='localhost', port=8000): Read timed out. "
     "(read timeout=600)", True),  # probe: "timed out" and "timeout" are read as before
    ("I read that the allreduce times out with P2P on 4090s.", True),  # probe: as "I read that the allreduce hangs"
])
# (fr46c) "If the allreduce times out, what should I do?" is no longer read as "If the allreduce hangs, ..." is: a
# collective's timeout under a condition is no hang seen (tests/test_fr46_c.py).
def test_times_out_reads_as_the_hang_words_beside_it_read(text, before):
    assert bool(_hangs(text)) is before
    assert bool(_hangs(text.replace("times out", "hangs"))) is bool(_hangs(text))


# -------------------------------------------------- 3. "back then", "back in 0.4", "way back" are past markers

@pytest.mark.parametrize("text", [
    "Back then we used to get hangs.",  # probe (the brief's; before: a hang, "back" read as carrying it on)
    "Back in 0.4 we had hangs.",  # probe (the brief's; before: a hang)
    "Back then it hung at init.",  # probe (before: a hang)
    "Way back in 2023 we saw hangs with NCCL 2.18.",  # probe (before: a hang)
    "Back in NCCL 2.18 we had hangs.",  # probe
    "Back when we used NCCL 2.18 we had hangs.",  # probe
    "All the way back in March it hung every night.",  # probe
])
def test_a_hang_said_back_then_is_the_past(text):
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    "The hangs are back.",  # probe: "back" as returned
    "The hangs are back in 0.6.4.",  # probe: returned, in a release
    "They came back in 0.6.4: it hangs.",  # probe
    "Back then we used to get hangs, and it still hangs.",  # probe: carried on to now
    "Back then we used to get hangs, and they are back now.",  # probe
    "Back in 0.4 we had hangs, and now it hangs again.",  # probe
    "Back then it hung. It still hangs.",  # probe: the next sentence carries it on
    "If we get 0 back then we had hangs.",  # probe: a verb's particle, as "if we get 0 back then we had the wrong
    # username or password" (find_string id 4457435988)
    "We rolled back then it hung.",  # probe: as "If the storage transaction rolls back then ..." (id 24524493)
    "We were back in business, then it hung.",  # probe
])
def test_back_as_a_return_or_a_particle_is_no_past_marker(text):
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    "Back then we had to key in the cylinders, heads & sectors into BIOS.",  # find_string id 56731994417
    "Back then we had the UMH to provide firmware loading",  # id 9757952687
    "Back then I had little experience with websites, but took the opportunity to learn some new skills.",
    # (id 48215898459)
    "Back then we had to use over 16.000 blocks and build it over the void",  # id 69426772296
])
def test_back_then_heads_a_past_clause_in_real_sentences(text):
    assert claims._EN_HANG_PAST_BEFORE.search(text[:text.index(" had ") + 5])


# ------------------------------------------------------------------------------- through the ticket's symptom

def test_the_ticket_symptom_follows_the_readings():
    said = _facts("# TP=2 broken after upgrade\n\nWe used to run TP=2 without issue, and now it hangs at the first "
                  "request.")  # probe
    assert claims.symptom_quote(said)[2] == "hang"
    said = _facts("# NCCL problem\n\nWith tensor parallel 4 the NCCL allreduce times out after 30 minutes.")  # probe
    assert claims.symptom_quote(said)[2] == "hang"
    said = _facts("# slow TP=2\n\nBack in 0.4 we had hangs. Now TP=2 on 2x A100 gives 20 tok/s.")  # probe
    assert claims.symptom_quote(said)[2] != "hang"

"""Issue 11, third round: two readings whose structure, not their words, decides which rule answers.

None of these sentences comes from a corpus case or a paraphrase folder, except the first drop after the work ended
(development case u10a16's words, https://github.com/noonghunna/club-3090/issues/107) and the ControlNet thread's saved
text. The first call after a pause is the gap's (clocks and P-state come down while the GPU idles, so it repeats after
every pause), not a run's one-off warm-up; and a drop or a no-change that ends in a power state, or that comes once the
work has ended (clocks leaving their boost), is the driver's power management, not a slowdown.
"""

from pathlib import Path

import pytest

from diagnose.evidence import Facts, Note
from rules import claims
from rules.subject import Subject
from rules.ticket_questions import idle_state
from rules.ticket_rules import explained, idle_clocks


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    facts.subject = Subject.of(facts)  # as the engine resolves it before the rules run
    return facts


@pytest.mark.parametrize("text", [
    "The first request after a 30 s pause takes three times longer than the rest.",
    "Our first inference following an idle period of a minute is much slower.",
    "The first frames right after a short sleep are slow, back to back they are fine.",
    "the first query after some inactivity is slow",
])
def test_the_first_call_after_a_pause_is_the_gaps_not_warm_up(text):
    facts = said(text)
    assert not claims.find(facts, "first_calls_slow")
    assert not [f for f in explained(facts) if "first calls" in f.title]


@pytest.mark.parametrize("text", [
    "The first request takes 20 s, every later one is fast.",
    "The first request after startup is slow, then it is fine.",
    "Only the first inference is slow; the ones after a pause are as fast as the rest.",
    "The first few iterations after restarting the server take much longer.",
])
def test_a_first_call_of_the_run_is_still_warm_up(text):
    assert claims.find(said(text), "first_calls_slow")


def test_a_pause_before_the_first_call_gives_the_idle_clocks_lead():
    facts = said("The first request after a 30 s pause takes three times longer than back-to-back requests.")
    assert [f.category for f in idle_clocks(facts)] == ["throttling"]


@pytest.mark.parametrize("text", [
    "When idle the card sits at P2 while other apps let it drop to P8.",
    "nvidia-smi shows P0 at idle; it never drops into an idle state.",
    "It stays at P2 and just does not change state to P8 when nothing runs.",
    "The clocks do not drop back down to the power-saving state after a job.",
    "During the above bench run, I pulled the SM clocks. They rise and stay stable. As the benchmark ends they both "
    "drop to 1695, stay there for a minute, then drop back to true idle.",
    "When the job finishes the graphics clock drops to 210 MHz within seconds.",
    "At the end of the run, both cards drop to 1695 MHz and then to 210.",
    "once the test is done the SM clock drops, as I would expect",
    "When the run completes, the SM clock falls back to 210 MHz.",
])
def test_a_drop_to_a_power_state_is_not_a_complaint(text):
    assert claims.complaint(said(text)) is None


@pytest.mark.parametrize("text", [
    "Throughput drops to 20 tok/s after a minute.",
    "Bandwidth drops from 180 GB/s to 90 GB/s with more nodes.",
    "The speed does not change when I add a second GPU.",
    "At idle it drops to P8, but under load the generation is slow.",
    "During the run the throughput drops to 20 tok/s.",
    "As the batch grows the throughput drops to 20 tok/s.",
    "After the run started, throughput dropped by half.",
    "When I run the benchmark, tokens/s drop to 5.",
    "As the benchmark ends the clocks are fine. Halfway through the next run the speed drops to 3 tok/s.",
    # a later moment of work that goes on, with no end said ("after X," alone is not the work's end)
    "After each epoch, throughput drops by 30%.",
    "After a few runs, the tokens/s drop to 5.",
    "After the warmup run, throughput drops to 10 tok/s.",
    "After the first benchmark, generation speed drops to 3 tok/s and stays there.",
])
def test_a_drop_of_a_figure_is_still_a_complaint(text):
    assert claims.complaint(said(text)) is not None


def test_an_idle_reading_with_a_power_state_drop_is_answered_as_power_management():
    facts = said("With the server idle nvidia-smi shows P2 at 35/150W; other servers let the GPU drop to P8. "
                 "Could it use less power?")
    assert [f.category for f in idle_state(facts)] == ["healthy"]


def test_a_real_thread_of_power_dropping_during_training_is_still_a_complaint():
    # https://github.com/lllyasviel/ControlNet/issues/454: the power drops while the job runs
    text = (Path(__file__).parent / "data" / "issues" / "controlnet-454-power-drops-during-training.md").read_text()
    assert claims.complaint(said(text)) is not None

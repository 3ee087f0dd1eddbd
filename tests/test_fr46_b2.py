"""Session s46, fixer b2: misfires the final read proved in pass known46a's hang readings (items 3, 4, 5, 6, 8 of its
findings), each with its probe (labelled probe, from /tmp/fr46b) and near-misses that keep the pass's intended
reading."""

import pytest
from conftest import issue_bundle as _facts

from rules import claims


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


# ------------------------------------ items 3, 4, 5: "times out" only with a collective as its subject, not in code

@pytest.mark.parametrize("text", [
    "With LoRA rank 64 the HTTP request times out after 30 s; with rank 8 it returns in 2 s.",  # probe t6 (item 3)
    "Our 16-rank job times out at the 24h Slurm time limit before finishing epoch 3; throughput is 40% lower than "
    "expected.",  # probe t8 (item 4)
    "Data loading from S3 on each rank times out sporadically (botocore ReadTimeout), training itself is fine.",
    # probe h17 (item 4)
    "Our training loop is slow:\n```python\ndist.barrier()  # returns early, otherwise rank 0 times out\n```\n"
    "Throughput is 30% below the paper.",  # probe h15 (item 5)
    "x = dist.all_reduce(t)  // the NCCL allreduce times out here otherwise",  # probe: a comment after code
    "The NCCL download from the mirror times out.",  # probe: a download's wait, NCCL named before it
    "On rank 2 the API call times out.",  # probe: a bare rank names no collective
])
def test_a_times_out_whose_subject_is_no_collective_is_no_hang(text):
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    "the allreduce times out",  # probe (known46a's)
    "The allreduce keeps timing out.",  # probe (known46a's)
    "while ranks 1-3 enter ep2 and their allreduce times out at 10 min.",  # find_string id 55590426872
    "NCCL all_reduce on rank 3 keeps timing out.",  # probe: a rank between the collective and its verb
    "the barrier() times out after 30 min",  # probe
    "# NCCL allreduce times out\n\nWith TP=4 on 4x A100.",  # probe: a title's "#" is no code comment
    "See #1234: the allreduce times out.",  # probe: an issue number is no comment
])
def test_a_collectives_times_out_is_still_a_hang(text):
    assert _hangs(text) == [next(w for w in ("times out", "timing out") if w in text)]


def test_ticket_t6_reads_no_hang():
    said = _facts("# Very slow responses with LoRA adapters\n\nvLLM 0.6.3 serving Llama-3-8B with --enable-lora "
                  "--max-lora-rank 64 on 2x A100 80GB (TP=2).\nWith LoRA rank 64 the HTTP request times out after "
                  "30 s; with rank 8 it returns in 2 s.\n")  # probe t6
    assert claims.symptom_quote(said)[2] != "hang"


# ---------------------------- item 6: a run gone fine negates a failure still denied after it, or one under an "if"

@pytest.mark.parametrize("text", [
    "It ran 24h without issues, and the watchdog never fired, but tokens/s dropped from 3100 to 2400 after the "
    "upgrade.",  # probe t7
    "If it runs without errors, then the hang must be on the client side.",  # probe h5
    "It worked without problems, and the watchdog did not fire.",  # probe
    "Once it runs without errors, then the hang is gone.",  # probe
])
def test_the_old_negation_holds_where_the_hang_word_is_denied_or_conditional(text):
    assert not _hangs(text)


@pytest.mark.parametrize("text", [
    "We used to run TP=2 without issue, and now it hangs.",  # probe (known46a's)
    "We ran without issues, but now it hangs and does not recover.",  # probe: "and" opens another verb
    "It ran without issues, and then it hangs and never recovers.",  # probe
    "When we upgraded it ran without issues, but now it hangs.",  # probe: "when" of time, no condition
])
def test_a_hang_after_a_run_gone_fine_stays(text):
    assert _hangs(text)


# ------------------------------------------ item 8: a past hang with no fix found, or kept off until fixed, is open

@pytest.mark.parametrize("text", [
    "Back when we moved to TP=4 the job hung at the first allreduce and we have not found a workaround.",  # probe b2
    "Back in 0.6.3 the server hung at NCCL init, so we pinned 0.6.2 until this is fixed.",  # probe b1
    "Earlier the job hung at init. We have not found a fix yet.",  # probe: the next sentence
    "Previously it hung at init and there is no workaround so far.",  # probe
])
def test_a_past_hang_still_open_is_a_hang(text):
    assert _hangs(text)


@pytest.mark.parametrize("text", [
    "Back then we used to get hangs.",  # probe (known46a's)
    "Back in 0.4 we had hangs.",  # probe (known46a's)
    "Back then it hung until the driver was fixed.",  # probe: fixed, not "until this is fixed"
    "Previously it hung at init; we found a workaround and it runs fine now.",  # probe
])
def test_a_past_hang_fixed_or_only_past_stays_past(text):
    assert not _hangs(text)

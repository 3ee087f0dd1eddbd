"""Session s46, fixer b2: misfires the final read proved in pass known46a's hang readings (items 3, 4, 5, 6, 8 of its
findings), each with its probe (labelled probe, from /tmp/fr46b) and near-misses that keep the pass's intended
reading."""

import pytest

from rules import claims


def _hangs(text: str) -> list[str]:
    return [m.group(0) for m in claims._said("hang", dict(claims.SYMPTOMS)["hang"], text)]


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



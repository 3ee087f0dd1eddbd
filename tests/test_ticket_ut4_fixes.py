"""Defects a user-tester found running 'is this normal?' tickets (ut4): each on the tester's sentence,
paraphrases of our own and a negation. Sentences are written for this test; none is a holdout case.
"""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement


def measurements(text: str) -> list[tuple[str, float]]:
    return [(r.metric, r.value) for r in issue_md.parse(text, "issue.md") if isinstance(r, Measurement)]


# --------------------------------------------------------------- a GPU's name is not a figure (ut4 #1)


@pytest.mark.parametrize("text", [
    "# TTFT on L40S: is 875 ms normal?",
    "TTFT on an L40S card is what I want to know about.",
    "Our ITL on A40s is the question here, see below.",
    "The TTFT we see on H20s and T4s differs, but I have no figure yet.",
])
def test_a_gpu_name_gives_no_time(text):
    assert not [m for m in measurements(text) if m[0] in ("ttft_ms", "itl_ms", "tpot_ms")]


@pytest.mark.parametrize("text, value", [
    ("TTFT on L40S: Mean TTFT 875.9 ms.", 875.9),
    ("On the L40S the TTFT is 40 s with a long prompt.", 40000.0),   # a real 40 s still reads
    ("TTFT 40s on one L40S.", 40000.0),
])
def test_a_time_beside_a_gpu_name_is_still_read(text, value):
    assert ("ttft_ms", value) in measurements(text)

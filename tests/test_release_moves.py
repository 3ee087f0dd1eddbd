"""(issue 11, s16) A move between two releases said in one sentence: the side each release is on follows the sentence.

"It worked on NCCL 2.18.3, we now use 2.19.4" was read as both releases working (the one works-word covered the
sentence); "after moving from 2.18 to 2.19 it hangs" as both failing. What the sentence says happened belongs to the
release moved to; the one moved from is the other side. The sentences are written the way reporters word a release
change (NVIDIA/nccl, vLLM and PyTorch threads), none from a scored case; the real lines are cited where quoted.
"""

import pytest

from rules import claims


@pytest.mark.parametrize("text, good, bad", [
    # worked/fine/ok on X, now/after/since Y with the failure
    ("It worked on NCCL 2.18.3, we now use 2.19.4 and it hangs.", {"2.18.3"}, {"2.19.4"}),
    ("It worked on NCCL 2.18.3, we now use 2.19.4.", {"2.18.3"}, {"2.19.4"}),  # the past tense says it no longer does
    ("After moving from NCCL 2.18 to 2.19 it hangs.", {"2.18"}, {"2.19"}),
    ("We upgraded NCCL from 2.18.3 to 2.19.3 and now the job hangs at init.", {"2.18.3"}, {"2.19.3"}),
    ("Training was fine with NCCL 2.18.1 but since upgrading to 2.19.3 all_reduce is very slow.",
     {"2.18.1"}, {"2.19.3"}),
    ("Everything was ok on NCCL 2.20.5; after the update to 2.21.5 it crashes.", {"2.20.5"}, {"2.21.5"}),
    ("The job hangs on NCCL 2.19.3 since we moved from 2.18.3.", {"2.18.3"}, {"2.19.3"}),
    ("Bandwidth dropped by half when we went from NCCL 2.21.5 to 2.23.4.", {"2.21.5"}, {"2.23.4"}),
    # the move cured it: the sides turn round
    ("After moving from NCCL 2.18.3 to 2.19.3 it no longer hangs.", {"2.19.3"}, {"2.18.3"}),
    ("We downgraded NCCL from 2.19.3 to 2.18.3 and it works.", {"2.18.3"}, {"2.19.3"}),
    ("Switching from NCCL 2.27.3 to 2.27.7 fixed the hang.", {"2.27.7"}, {"2.27.3"}),
])
def test_the_side_follows_the_sentence(text, good, bad):
    assert claims.release_sides(text) == (good, bad)
    assert claims.failure_ab(text)


@pytest.mark.parametrize("text, good, bad", [
    # a move said with no outcome, or one that did no harm: no failing side
    ("We moved from NCCL 2.18.3 to 2.19.3 last week.", set(), set()),
    ("We upgraded NCCL from 2.18.3 to 2.19.3 and the all_reduce bandwidth did not drop.", {"2.19.3"}, set()),
    # why the move was made is not what it did
    ("We upgraded NCCL from 2.18.3 to 2.19.3 to fix the hang.", set(), set()),
])
def test_a_move_without_a_failure_names_no_failing_release(text, good, bad):
    assert claims.release_sides(text) == (good, bad)
    assert not claims.failure_ab(text)


def test_a_failure_that_outlived_the_move_is_no_release_ab():
    text = "Upgrading NCCL from 2.18.3 to 2.19.3 did not change anything, it still hangs."
    assert not claims.release_sides(text)[0]
    assert not claims.failure_ab(text)


def test_a_bump_made_to_fix_a_hang_names_no_side():
    # marin-community/marin#8038, the pull request's opening line
    text = "Bump nvidia-nccl-cu13 from 2.28.9 to 2.30.7 to fix the silent GB200 collective wedge of #7344."
    assert claims.release_sides(text, ["2.28.9", "2.30.7"]) == (set(), set())


@pytest.mark.parametrize("text, good, bad", [
    # an engine's releases, read with the engine's release pattern
    ("After upgrading vLLM from 0.6.3 to 0.6.4 decode got much slower.", {"0.6.3"}, {"0.6.4"}),
    ("It worked fine on SGLang 0.3.6, now on 0.4.0 the server hangs at startup.", {"0.3.6"}, {"0.4.0"}),
    ("Rolling back vLLM from 0.7.0 to 0.6.6 resolved the crash.", {"0.6.6"}, {"0.7.0"}),
])
def test_engine_releases_moved_between(text, good, bad):
    releases = [m.group(1) for m in claims._ENGINE_RELEASE.finditer(text)]
    assert claims.release_sides(text, releases, claims._ENGINE_RELEASE) == (good, bad)


def test_a_release_moved_to_is_not_said_to_work():
    # the release in use (2.19.3, inside cumem-alltoall-connect-hang) was read as working, which made the known
    # regression a context note; the past tense puts it on the failing side
    from conftest import judged_issue

    text = "# all_to_all hangs\n\nIt worked on NCCL 2.18.3, we now use 2.19.3.\nall_to_all hangs on 8x H100.\n"
    _, rules = judged_issue(text)
    f = rules["nccl.known_regression"]
    assert f.category == "nccl_regression" and f.confidence >= 0.7

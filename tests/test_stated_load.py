"""The load a figure was measured at, as the reporter says it (s12-onereq): "one request at a time" read as batch 1
stated, quoted in the evidence; nothing said is batch 1 assumed, and said so. The phrases below are written
here as paraphrases, negations and look-alikes, not taken from any case."""

import pytest

from diagnose.artifacts.issue_md import ONE_AT_A_TIME
from tests.conftest import measured_vs_expected

TICKET = "# Is this normal?\n\nLlama 3.1 8B on one H100 80GB with vLLM: I get 130 tok/s.{load}\n"


@pytest.mark.parametrize("text", [
    "I measured it with a single request", "sending one request at a time", "tested for one user only",
    "there were no concurrent requests", "I sent the requests sequentially", "requests were sent one after another",
    "at batch size 1", "bs=1", "even with one request it crawls", "using a single-user setup", "with just 1 client"])
def test_one_request_forms(text):
    assert ONE_AT_A_TIME.search(text)


@pytest.mark.parametrize("text", [
    "not a single request", "a single request failed", "one user reported the same", "the layers run sequentially",
    "a batch of 32 prompts processed offline", "bs=16", "batch size 12", "with 32 concurrent users",
    "not with a single request"])
def test_look_alikes_and_negations_state_no_load(text):
    assert not ONE_AT_A_TIME.search(text)


def test_stated_one_request_is_quoted(tmp_path):
    stated = measured_vs_expected(tmp_path / "a", "issue.md", TICKET.format(load=" One request at a time."))
    assumed = measured_vs_expected(tmp_path / "b", "issue.md", TICKET.format(load=""))
    assert "batch 1 (stated: 'One request at a time')" in stated.evidence[0].detail
    assert "batch 1 (assumed: none stated)" in assumed.evidence[0].detail
    assert stated.category == assumed.category == "expected_physics"
    assert assumed.confidence == stated.confidence  # the same band, the same answer; only the words differ


@pytest.mark.parametrize("load", [" A single request failed earlier today.", " Not a single request: many."])
def test_look_alike_ticket_stays_assumed(tmp_path, load):
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(load=load))
    assert "batch 1 (assumed: none stated)" in f.evidence[0].detail


def test_stated_load_above_one_is_not_called_one_request(tmp_path):
    # (s13-conc: judged over the range from one stream at batch 32 to the 32 streams' total, tests/test_concurrency.py)
    f = measured_vs_expected(tmp_path, "issue.md", TICKET.format(load=" Tested with 32 concurrent users."))
    assert "32 requests in flight" in f.evidence[0].detail and "(stated:" not in f.evidence[0].detail

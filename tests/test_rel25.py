"""Issue 11, rel25: a regression said as a time line ("since I migrated to vLLM==0.4.1", "after upgrading to v0.6.0 it
dropped from 40 to 25 tok/s", "i went back to 0.6.8 and i am back to 2.9t/s") reaches the same release-change fact as
"X is slower than Y" (claims.engine_moved_to, release_since); a bare release is the engine's when the ticket names one
engine only and gives that release to no other product (claims.sole_engine); and each figure of the time line is
credited to the build it was measured on (claims.timeline_figures: before -> the build before the change, now -> the
release moved to; ticket_rules._releases). Real inputs in tests/data/rel25 (SOURCES.md), with real near-misses."""

from pathlib import Path

import pytest
import tomllib
from test_ticket_figures import _issue  # facts, findings and verdict of an issue's Markdown

from rules import claims
from rules.engine import RELEASE_BEFORE

DATA = Path(__file__).parent / "data" / "rel25"
CASES = tomllib.loads((DATA / "timeline.toml").read_text())["case"]
LINES = tomllib.loads((DATA / "figures.toml").read_text())["line"]


def _release_claim(text: str):
    facts, findings, verdict = _issue(text)
    found = claims.find(facts, "engine_versions_compared")
    return (found[0].data if found else None), findings, verdict


@pytest.mark.parametrize("case", CASES, ids=lambda c: c["src"].split("github.com/")[1])
def test_a_time_line_reaches_the_release_change(case):
    data, _, verdict = _release_claim(case["text"])
    if not case["versions"]:
        assert data is None
        assert verdict.category != "other"
        return
    assert data is not None and sorted(data["versions"]) == sorted(case["versions"])
    assert (data["engine"] or "").lower().startswith(case["engine"])
    if "good" in case:
        assert data["good"] == case["good"]


def test_the_two_time_lines_that_were_not_read():
    """vllm-project/vllm#4699 ('since I migrated to vLLM==0.4.1') and ollama/ollama#10680 ('i went back to 0.6.8 and i
    am back to 2.9t/s', ollama named elsewhere) read no release change before the change."""
    for src in ("vllm-project/vllm/issues/4699", "ollama/ollama/issues/10680"):
        data, findings, verdict = _release_claim(next(c["text"] for c in CASES if c["src"].endswith(src)))
        assert data["kind"] == "moved" and verdict.category == "other"
        assert any(f.rule == "ticket.engine_versions" for f in findings)


@pytest.mark.parametrize("line", LINES, ids=lambda c: c["src"].split("github.com/")[1])
def test_the_figures_of_a_time_line(line):
    told = claims.timeline_figures(line["text"])
    if line["before"]:
        assert (told["before"][0], told["after"][0]) == (line["before"][0], line["after"][0])
        assert told["before"][1] == told["after"][1] == "tok/s"
    else:
        assert told == {}


# Written, not quoted: the forms the issue names ("since upgrading to v0.6.0 the throughput dropped from 40 to 25
# tok/s", "before the update I had 60 tok/s, now 30"), the engine named once in the title.
@pytest.mark.parametrize("text, new, now, before", [
    ("# vLLM slow on 2x A100\n\nSince upgrading to v0.6.0 the throughput dropped from 40 to 25 tok/s with TP=2.\n",
     "0.6.0", 25.0, 40.0),
    ("# vllm TP=2 regression\n\nBefore the update I had 60 tok/s, now 30 tok/s after upgrading to 0.6.3.\n",
     "0.6.3", 30.0, 60.0),
    ("# slow decoding with vLLM\n\nAfter updating vLLM to 0.7.2 the decode speed is only 30 tok/s, it used to be 60 "
     "tok/s.\n", "0.7.2", 30.0, 60.0),
    ("# vllm TP=2\n\nI upgraded to 0.6.3 last week. Throughput dropped from 40 to 25 tok/s.\n", "0.6.3", 25.0, 40.0),
    ("# sglang slow\n\nEver since the 0.4.3 release of sglang, throughput is lower: 1200 tok/s before, 800 tok/s "
     "now.\n", "0.4.3", 800.0, 1200.0),
])
def test_each_figure_is_credited_to_its_build(text, new, now, before):
    """The figure said of before is the build before the change's, never the new release's (the release-figure
    reader alone credited 1200 tok/s to 0.4.3 in the last one)."""
    data, findings, _ = _release_claim(text)
    assert data["versions"] == [new] and data["figures"] == {new: (now, "tok/s")} and data["before"][0] == before
    (f,) = [f for f in findings if f.rule == "ticket.engine_versions"]
    assert any(e.measured == now and e.expected == before for e in f.evidence)
    assert any(e.measured == before and e.detail.endswith(RELEASE_BEFORE) for e in f.evidence)


def test_a_bare_release_is_the_sole_engines():
    text = next(c["text"] for c in CASES if c["src"].endswith("ollama/issues/10680"))
    assert claims.sole_engine(text, "0.6.8") == "ollama"
    # two products named (vllm and transformers): nothing says whose a bare release is
    text = next(c["text"] for c in CASES if c["src"].endswith("vllm/issues/9032"))
    assert claims.sole_engine(text, "4.45.1") is None


@pytest.mark.parametrize("text", [
    # written, not quoted: the release given to CUDA elsewhere in the ticket, and a release that made things faster
    "# vLLM TP slow\n\nCUDA version: 12.4\n\nAfter upgrading to 12.4 throughput dropped from 40 to 25 tok/s.\n",
    "# vLLM\n\nAfter upgrading to 0.6.0 throughput went from 25 to 40 tok/s.\n",
    "# vLLM\n\nWe will upgrade to 0.6.0 after the speed dropped from 40 to 25 tok/s.\n",
    "# vllm\n\nI upgraded to 0.6.3 last week. Throughput went from 25 to 40 tok/s.\n",
    # a time line of another comparison, two sentences away from the move
    "# vllm\n\nI upgraded to 0.6.3 last week. The GPUs are A100s. We use TP=2. TP=2 went from 40 to 25 tok/s.\n",
])
def test_no_release_change_where_the_release_is_not_the_engines_or_nothing_slowed(text):
    assert _release_claim(text)[0] is None

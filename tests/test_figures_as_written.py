"""Speeds as reporters write them read in the rules' unit, with the words kept (issue 11 p, diagnose.artifacts.figures).

The sentences are written for this test from the units and phrasings people use (per minute or hour, a time per count,
a job's length, it/s, ranges, changes, ratios, thousands the European way), none of them from the -f set's tickets; the
negations and near misses beside them must not read as the measurement.
"""

from pathlib import Path

import pytest
from click.testing import CliRunner

from diagnose.artifacts import issue_md
from diagnose.cli import cli


def rates(text: str) -> list[tuple[str, float, str | None]]:
    """(metric, value, words) of every speed the prose line states, through the issue parser's own readers."""
    facts = issue_md.parse(f"# a question\n\n{text}\n", "issue.md")
    return sorted((m.metric, m.value, m.said) for m in facts
                  if type(m).__name__ == "Measurement" and m.metric in ("decode_tok_s", "output_tok_s", "itl_ms"))


@pytest.mark.parametrize("text,value", [
    ("The model streams about 3,000 tokens per minute on my box.", 50.0),
    ("Generation speed is 72k tokens/hour with one user.", 20.0),
    ("It manages 1,800 tok/min for a single chat.", 30.0),
    ("Roughly 1.5 s per 50 tokens in my tests.", 33.333),
    ("We measure 10 seconds for every 500 tokens of output.", 50.0),
    ("Each 200 tokens take about 4 s to appear.", 50.0),
    ("It prints 50 tokens every 2 seconds.", 25.0),
    ("The nightly run took 2 hours for 360,000 tokens.", 50.0),
    ("Writing 2,000 new tokens, one reply at a time, needed 40 seconds.", 50.0),
    ("tqdm shows 30 it/s, and each step yields one token.", 30.0),
    ("we see 20 to 25 tok/s on the card", 22.5),
    ("Throughput sits between 30 and 40 tok/s.", 35.0),
    ("~18-~22 t/s depending on the prompt.", 20.0),
    ("It dropped from 60 tok/s to 30 tok/s after the update.", 30.0),
    ("Since the driver update it went from 60 to 30 tok/s.", 30.0),
    ("It is 2.5 times slower than my laptop, which gives 50 tok/s.", 20.0),
    ("Throughput is 40 % lower than the 80 tok/s we had in May.", 48.0),
    ("The new build runs twice the speed of the old one. The old one gave 15 tok/s.", 15.0),
    ("It isn't 60 tok/s, but 25.", 25.0),
    ("Wir messen 1.250 tok/s mit der neuen Version, und das ist zu wenig.", 1250.0),
])
def test_a_speed_is_read_in_tok_s_with_its_words(text, value):
    found = [(v, said) for metric, v, said in rates(text) if metric != "itl_ms"]
    assert value in [v for v, _ in found], found
    assert len(found) == 1 or value == 15.0, found


def test_a_ratio_reads_the_reference_before_it_when_none_follows():
    # "twice the speed of the old one" with the old one's speed in the next sentence: no reference before the phrase
    assert [v for _, v, _ in rates("One GPU gives 40 tok/s. With two it is only 1.5x faster than one GPU.")] \
        == [40.0, 60.0]


@pytest.mark.parametrize("text", [
    "The 15 tok/s I posted earlier was wrong.",  # taken back
    "Sorry, the 150 tok/s in my first post was a typo.",
    "Loading a 4096 tokens context took 2 minutes.",  # a load, not a generation
    "tqdm shows 30 it/s for the prompts.",  # iterations are no tokens unless said
    "Memory use is 30 % lower than with fp16.",  # a ratio of no speed
])
def test_what_is_no_measured_speed_is_not_read(text):
    assert rates(text) == []


@pytest.mark.parametrize("text,value", [
    ("I do not get more than 20 tok/s.", 20.0),  # a bound on the measurement, not a denial
    ("20 tok/s is wrong for this GPU, something is broken.", 20.0),  # a complaint, not a retraction
    ("The 12 tok/s was wrong for an H100, so we checked the clocks.", 12.0),
    ("Not even 20 tok/s here.", 20.0),
    ("We get 1.250 tok/s on the CPU fallback, which is useless.", 1.25),  # English writes decimals with a dot
    ("Memory use is 30 % lower than with fp16, and we get 40 tok/s.", 40.0),  # the ratio is not about the speed
    ("It takes about 52 ms per token, 4 times slower than the 47 tok/s the page shows.", None),  # two stated figures
])
def test_near_misses_keep_the_stated_figure(text, value):
    found = [v for metric, v, _ in rates(text) if metric != "itl_ms"]
    assert found == ([value] if value is not None else []), found


def test_a_per_token_time_in_words_is_a_latency():
    assert [(m, v) for m, v, _ in rates("Every token needs 40 ms on this card.")] == [("itl_ms", 40.0)]
    assert [(m, v) for m, v, _ in rates("A token every 80 ms, batch 1.")] == [("itl_ms", 80.0)]


def test_the_finding_quotes_the_words_the_figure_was_read_from(tmp_path: Path):
    (tmp_path / "issue.md").write_text("# slow decode\n\nMistral-7B-Instruct fp16 on one L40S with vLLM, one request: "
                                       "it writes about 1,200 tokens a minute.\n")
    out = CliRunner().invoke(cli, ["ticket", str(tmp_path)]).output
    assert 'issue.md:3 "1,200 tokens a minute"' in out and "20.0 tok/s" in out, out

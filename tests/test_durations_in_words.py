"""Speeds stated as durations in words (issue 11, s14): a decode step's time, a reply's length spelled out ("over an
hour", "一个多小时", "两分钟"), and the wait for the first token. Sentences written for this test from the phrasings
people use; the negations beside them (a training step, a load time, a prompt's processing) must not read as a figure.
"""

import pytest

from diagnose.artifacts import figures, issue_md


def figures_of(text: str) -> list[tuple[str, float]]:
    facts = issue_md.parse(f"# a question\n\n{text}\n", "issue.md")
    return sorted((m.metric, round(m.value, 3)) for m in facts if type(m).__name__ == "Measurement"
                  and m.metric in ("decode_tok_s", "itl_ms", "ttft_ms"))


@pytest.mark.parametrize("text, expected", [
    ("With HF transformers each decoding step takes 10 s.", [("itl_ms", 10000.0)]),
    ("Every generation step needs ~120 ms on this card.", [("itl_ms", 120.0)]),
    ("One decode step took about 0.5 seconds.", [("itl_ms", 500.0)]),
    ("A 512-token reply takes over an hour.", [("decode_tok_s", 0.142)]),
    ("Writing 900 tokens took half an hour.", [("decode_tok_s", 0.5)]),
    ("生成512个token需要一个多小时。", [("decode_tok_s", 0.142)]),
    ("输出1200个token用了两分钟。", [("decode_tok_s", 10.0)]),
    ("生成600个token要十几分钟。", [("decode_tok_s", 1.0)]),
    ("It waits ~2 s for the first token.", [("ttft_ms", 2000.0)]),
    ("The first token appears after 9 seconds.", [("ttft_ms", 9000.0)]),
    ("第一个token要等3秒。", [("ttft_ms", 3000.0)]),
    # a spelled duration reaches the latency readers too
    ("Each decoding step takes over a second.", [("itl_ms", 1000.0)]),
    ("With this build the first token only shows up after a second.", [("ttft_ms", 1000.0)]),
    # Chinese numerals beyond 两 and 十几
    ("输出1200个token用了二十分钟。", [("decode_tok_s", 1.0)]),
    ("生成900个token要三十秒。", [("decode_tok_s", 30.0)]),
    ("生成900个token要半小时。", [("decode_tok_s", 0.5)]),
    ("生成900个token要一个半小时。", [("decode_tok_s", 0.167)]),
    # "a second" as an ordinal is no duration: the count's own time is read
    ("Generating 2000 tokens in a second run took 80 s.", [("decode_tok_s", 25.0)]),
    ("After adding a second GPU, 500 tokens took 20 s.", [("decode_tok_s", 25.0)]),
    ("One second later we retried, and 300 tokens took 30 s.", [("decode_tok_s", 10.0)]),
    # a bound written before a rate is no negation; "N tokens a second" stays a rate
    ("We get not more than 20 tok/s on this box.", [("decode_tok_s", 20.0)]),
    ("It generates 20 tokens a second.", [("decode_tok_s", 20.0)]),
])
def test_durations_read_as_the_rules_unit(text, expected):
    assert figures_of(text) == expected


@pytest.mark.parametrize("text", [
    "Each training step takes 10 s.",  # a training step, not a decode step
    "Every step takes 10 s.",  # a bare step: training or decode, unsaid
    "The model takes 90 s to load before the first request.",  # a load time, no token
    "Processing the 7000-token prompt takes over an hour.",  # a prompt's processing is no output rate
    "It has been running for an hour.",  # a duration with no count of tokens
    "300 tokens in a second attempt; it took 2 minutes.",  # an ordinal, and the time a clause away
    "We tried a second time with 400 tokens.",  # an ordinal with no time at all
    "生成900个token要几分钟。",  # "a few minutes": no figure
])
def test_durations_that_are_no_figure(text):
    assert figures_of(text) == []


def test_spelled_durations_keep_other_numbers():
    assert figures.spelled_durations("十一个小时") == "11小时"  # eleven hours, not 'one hour'
    # (prose31: a duration in two units is one figure in the smaller, "1 minute 30 seconds" is 90 seconds)
    assert figures.spelled_durations("an hour and a minute") == "61 minutes"
    assert figures.spelled_durations("一个多小时, 半小时") == "1小时, 30分钟"
    assert figures.spelled_durations("二十几秒, 一百二十秒, 第二秒, 每一秒") == "20秒, 120秒, 第二秒, 每一秒"
    assert (figures.spelled_durations("a second run, a second GPU, took a second.")
            == "a second run, a second GPU, took 1 second.")
    assert figures.spelled_durations("900 tokens an hour") == "900 tokens an hour"  # a rate, PER_TIME reads it


@pytest.mark.parametrize("text", [
    "Llama-2-13B on 8x V100 32GB with HF transformers: each decoding step takes 10 s. Is that expected?",
    "Llama-2-13B 在 8*V100 32G 上用 transformers 跑，生成512个token需要一个多小时，正常吗？",
])
def test_a_duration_is_judged_against_the_expected_figure(tmp_path, text):
    """Llama-2-13B streams 26 GB a token; a V100 reads 900 GB/s: tens of tokens a second, not one in ten seconds."""
    import json

    from conftest import diagnose

    (tmp_path / "issue.md").write_text(f"# slow\n\n{text}\n")
    report = json.loads(diagnose("ticket", str(tmp_path / "issue.md"), "--json", "--fail-on", "never").stdout)
    assert report["verdict"]["category"] == "other", report["verdict"]
    assert "expected" in report["verdict"]["summary"]

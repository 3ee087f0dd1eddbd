"""Paraphrase audit, fourth pass (issue 11, session 22): comparison sets, unit-bearing abbreviations beside a TP word,
and A/B and scope statements in prose.

tests/data/paraphrases_22/<family>.toml holds real sentences from public threads that are no corpus case, each with its
URL, in the form of ../paraphrases_21 (test_paraphrases_21 reads those): `fact`, what the reading should give, or
`not`, what a near-miss (someone else's figure, a layout advised, a question, a latency's abbreviation) must not give.
Besides the facts test_paraphrases_21 reads, a fact may be a figure with its own layout, `decode_tok_s=54@gpus=1` (a
Measurement of that metric and value whose tp, pp or gpus is the one named: what a ticket compares with the expected
figure of that layout), a TP size any rule reads (`tp_named=N`: rules.common.tp_sizes, the launch's and the claims',
asked sizes included), or a
claim the reporter affirms (`claim=vm_vs_bare_metal`: rules.claims, neither a guess nor ruled out)."""

from pathlib import Path

import pytest
import tomllib
from test_paraphrases_21 import FIGURES, _facts_said, assert_case_read, assert_families_kept, family_cases
from test_u11o_peer_copy_and_fit import issue

from diagnose.evidence import Measurement
from rules import claims
from rules.common import tp_sizes

DATA = Path(__file__).parent / "data" / "paraphrases_22"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}


def _said(text: str) -> set[str]:
    """Every fact the ticket gives, written as the data files write them."""
    facts = issue(text)
    out = _facts_said(text)
    for m in facts.of(Measurement):
        if m.metric in FIGURES:
            out |= {f"{m.metric}={m.value:g}@{name}={value}" for name in ("tp", "pp", "gpus")
                    if (value := getattr(m, name, None))}
    out |= {f"tp_named={size}" for size, _ in tp_sizes(facts)}
    out |= {f"claim={c.kind}" for c in claims.claims(facts) if not (c.guess or c.negated)}
    return out


@pytest.mark.parametrize("case", family_cases(FAMILIES))
def test_a_real_sentence_gives_its_facts(case):
    assert_case_read(case, _said)


def test_every_sentence_has_its_source_and_each_family_its_near_misses():
    assert set(FAMILIES) == {"sets", "units", "ab_scope"}
    assert_families_kept(FAMILIES)


def test_no_sentence_is_a_corpus_case():
    """The sentences are from threads that no ticket of the corpus was written from (tests/data/tickets, the shared
    tickets): a reading tested on its own cases proves nothing."""
    root = Path(__file__).parent / "data" / "tickets"
    shared = Path(__file__).parents[1] / ".." / "shared" / "tickets"
    corpus = " ".join(p.read_text(errors="ignore") for folder in (root, shared) if folder.is_dir()
                      for p in folder.rglob("*") if p.is_file() and p.suffix in (".toml", ".md"))
    for family in FAMILIES.values():
        for case in family["case"]:
            assert case["url"] not in corpus, case["url"]


# Sentences of other threads, none used to write the readings nor in the data files, read once after the change (the
# readings were widened and narrowed before these were read; nothing was changed after them). (sentence, url, facts it
# should give, facts it must not give, the reason a strict xfail still fails)
HELD_OUT = [
    # (second batch, read once after the figure's layout was also read after it and from the clause before it)
    ("~12 tokens per second on RTX A6000 (~9/s at 2048 sequence length to ~14/s at <100)",
     "https://github.com/zphang/minimal-gpt-neox-20b/issues/1", ["decode_tok_s=12"], [], None),
    ("Hi @yaronr i have 2xa100 pcie for inference llama 3.1 70b bfloat16.  I launch with different configurations "
     "and no matter what I do I get only 17 tokens per second for 1 request. I added caching prefix and chunked "
     "prefill and without. \nHow can I achieve 30 tokens per second for a100? please help me!",
     "https://github.com/vllm-project/vllm/issues/7567", ["decode_tok_s=17", "gpus=2"], ["decode_tok_s=30"],
     "'2xa100' in lower case is no count and GPU the reading takes, and 'How can I achieve 30 tokens per second' is a "
     "figure wished for in a how-question, which HOPED_FIGURE does not read"),
    ("# tensor parallelism of 2 works, but fails at 4.\n\nHey, nice work on the image. It almost works. I am working "
     "with Qwen3 models and tp of 4 fails. tp of 2 works just fine. does tp of 4 work for you?",
     "https://github.com/BoltzmannEntropy/vLLM-5090/issues/5", ["tp=2"], [], None),
    ("# Poor TTFT perf on Llama3-8B, Llama3-70B, Qwen3-32B TP=8 on BH LB",
     "https://github.com/tenstorrent/tt-metal/issues/25107", ["tp=8", "tp_named=8"], ["tp_named=32"], None),
    ("I just ran a 65B benchmark test on a dual 4090 (AMD EPYC 7282) runpod environment and saw 20.25 / 25.00 tps, "
     "which is considerably faster than the single 6000 Ada setup (I would argue the CPUs are kind of the same?), just "
     "for anyone who is curious.", "https://github.com/turboderp/exllama/issues/149", ["gpus=2"], [], None),
    ("`The maximum result I achieved in terms of speed is around 350/370 tokens/s, while in your test it is 602 t/s | "
     "700 t/s (the double) and achieved with GPUs that are certainly less powerful than mine.`",
     # (held as a gap until extract30, whose REFERENCE_FIGURE reads a source named after "in": "in your test")
     "https://github.com/turboderp-org/exllamav2/issues/806", [], ["decode_tok_s=602", "decode_tok_s=700"], None),
]


@pytest.mark.parametrize("text,url,facts,nots", [
    pytest.param(s, u, f, n, marks=[pytest.mark.xfail(reason=x, strict=True)] if x else [])
    for s, u, f, n, x in HELD_OUT], ids=[f"{u.rsplit('/', 3)[1]}-{i}" for i, (_, u, *_) in enumerate(HELD_OUT)])
def test_sentences_of_other_threads_read_after_the_change(text, url, facts, nots):
    said = _said(text if text.startswith("#") else f"# Report\n\n{text}")
    assert all(f in said for f in facts) and not any(f in said for f in nots), (sorted(said), url)


# (merge review) "try" advises only without the reporter as its subject: "I try" / "we try" is an attempt, which ran.
# The first is vllm-project/vllm#4880's words with the size put in (adapted: "then i try to use tensor parallel to serve
# the model and that work", 2x RTX 3090); the others are advice or attempts written for this test.
@pytest.mark.parametrize("sentence, ran", [
    ("then i try to use tensor parallel size 2 to serve the model and that work", True),
    ("When I try to run it with tensor parallelism of 2, it raises an error.", True),
    ("We try TP=4 and it hangs.", True),
    ("try tp=2", False),
    ("Maybe have a try on using 2x tp4 instances", False),
    ("You could try --tp 2 instead.", False),
])
def test_the_reporters_own_try_is_a_run_not_advice(sentence, ran):
    from diagnose.artifacts.issue_md import _run_sizes

    assert bool(_run_sizes(sentence)) is ran

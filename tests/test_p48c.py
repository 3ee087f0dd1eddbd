"""Pass p48c: `--load-8bit` set against 16-bit weights (lm-sys/FastChat#1698, #536, #2692; the same on-the-fly 8-bit
path as bitsandbytes' LLM.int8, bitsandbytes#490, #6, FreedomIntelligence/LLMZoo#19, InternVL#627). The flag stores
the weights in 8 bits and widens them to 16 bits before every matmul, slower than the 16-bit model by design; the
project answers bitsandbytes' path as `other` (ticket.bitsandbytes_path), and now the flag the same way. Pastes and
their threads: tests/data/p48c/SOURCES.md.
"""


import pytest
from conftest import REPO, issue_bundle, judged_issue, judged_kept_paste

from rules import quant_tradeoff

DATA = REPO / "tests" / "data"


_verdict = judged_kept_paste


@pytest.mark.parametrize("rel", [
    "physdoc33/fastchat1698.md",  # `--load-8bit` twice slower than fp16 (maintainer: naive, for memory not latency)
    "p48c/fastchat2692.md",       # "why use --load-8bit is more slow than not add"
])
def test_load_8bit_slower_than_16bit_is_the_flags_path(tmp_path, rel):
    verdict, found = _verdict(tmp_path, rel)
    assert verdict.category == "other"
    lead = found["ticket.bitsandbytes_path"]
    assert "--load-8bit" in lead.title
    assert "load-8bit" in lead.evidence[0].detail


@pytest.mark.parametrize("rel", ["p48c/llmzoo19.md", "p48c/bnb490.md"])
def test_bitsandbytes_8bit_slower_keeps_its_own_wording(tmp_path, rel):
    verdict, found = _verdict(tmp_path, rel)
    assert verdict.category == "other"
    assert "bitsandbytes" in found["ticket.bitsandbytes_path"].title


@pytest.mark.parametrize("said", [
    "with --load-8bit the generation is slower than fp16.",
    "--load-8bit runs twice slower than the 16-bit model.",
])
def test_load_8bit_said_as_what_ran(said):
    facts = issue_bundle(f"# slow\n\n{said}\n")
    assert quant_tradeoff.load_8bit_stated(facts) is not None
    assert [f.title for f in quant_tradeoff.bitsandbytes_path(facts)]


@pytest.mark.parametrize("said", [
    "without --load-8bit the generation is slow, about 5 tokens/s.",   # the flag put aside
    "I did not use --load-8bit, and generation is slow.",             # negated
    "fp16 with the cli is twice slower than --load-8bit.",            # the flag the faster reference
    "generation is slow. I run it in fp16 on one A100.",              # no 8-bit path at all
])
def test_load_8bit_not_read_where_it_did_not_run(said):
    facts = issue_bundle(f"# slow\n\n{said}\n")
    assert list(quant_tradeoff.bitsandbytes_path(facts)) == []


# (fx48p, the review's probes) the flag must be the writer's own run now: not asked about, not a past run taken off,
# not someone else's; the same holds for bitsandbytes named in those ways (the two share quant_tradeoff._path_said).
@pytest.mark.parametrize("title,said", [
    ("Generation slow on a T4", "Would --load-8bit make it faster? Currently generation is slow, 3 tokens/s on a T4 "
     "in fp16."),
    ("slow generation", "Earlier generation with --load-8bit was slow, I dropped the flag and it is fast now. But with "
     "2 GPUs (--num-gpus 2) generation is slow, 8 tokens/s against 20 on one GPU."),
    ("slow generation", "A friend told me his run with --load-8bit was slow, but mine runs in fp16 on one A100 and "
     "generation is slow too, 10 tokens/s for vicuna-13b."),
    ("still slow", "After removing --load-8bit the generation is still slow, about 4 tokens/s on an A10 in fp16."),
    ("slow generation", "Would bitsandbytes make it faster? Currently generation is slow, 3 tokens/s on a T4 in fp16."),
    ("slow generation", "Someone on reddit said their run with load_in_8bit was slow, but mine runs in fp16 on one "
     "A100 and generation is slow too, 10 tokens/s."),
])
def test_8bit_path_not_the_writers_run_now(title, said):
    verdict, found = judged_issue(f"# {title}\n\n{said}\n")
    assert "ticket.bitsandbytes_path" not in found


def test_load_8bit_without_a_speed_complaint_is_no_finding():
    facts = issue_bundle("# 8-bit\n\nI run vicuna-7b with --load-8bit on a 3090. How much memory does it save?\n")
    assert list(quant_tradeoff.bitsandbytes_path(facts)) == []


# --- llama.cpp's row or tensor split measured faster, the default layer split unnamed: a candidate, not read ---
# The reading (claims.row_split_gain, reverted) fired on two separate threads only (ollama#5458; sudoingX/qwen38-mtp#24;
# ollama#5527 is #5458's author, textgen#5435's sentences were not read): below the bar of three. Its real pastes stay
# as strict xfails; the review's misfires (a drop, VRAM, a past state, a mixed result, a draft PR) must stay off it.

_TWO_THREADS = "candidate: the row/tensor split's measured gain is read from two separate threads only (below three)"


@pytest.mark.parametrize("rel", [
    "ut13/ollama5458.md",       # 3x P40: "enabling row-split ... speedup from ~3t/s to ~10t/s" (a feature request)
    "ut28b/layervstensor24.md",  # 2x 5060 Ti: "`-sm tensor` ... the baseline moves 22.1 → 37.1 (+68%)" (a report)
    "p48c/ollama5527.md",        # "row-split rather than layer splitting ... a 40-70% performance improvement"
])
@pytest.mark.xfail(strict=True, reason=_TWO_THREADS)
def test_row_split_measured_faster_is_the_layer_splits_bubble(tmp_path, rel):
    verdict, found = _verdict(tmp_path, rel)
    assert verdict.category == "pp_bubble"


@pytest.mark.parametrize("title,said", [
    # the row split measured slower: a drop, not a gain
    ("Split mode on 2x P40", "Running Llama 3 70B Q4 in llama.cpp on two P40s. With -sm row the generation speed goes "
     "12.0 -> 7.5 t/s, so I went back to the default."),
    # memory, not speed
    ("VRAM with -sm row", "With -sm row the first GPU uses +20% VRAM compared to the other GPU. Token generation is "
     "the same 9 t/s either way."),
    # a past state, slower now
    ("-sm row regression", "On my two P40s -sm row used to be faster, but since build b3000 it is 30% slower than "
     "before and generation is stuck at 5 t/s."),
    # a mixed result: prompt processing faster, generation slower
    ("-sm row on 2x 3090", "With -sm row prompt processing is faster but token generation drops from 20 t/s to "
     "14 t/s."),
    # a draft PR's claim, no run of the reporter's
    ("Add split mode row option", "This draft PR adds -sm row, which is 3x faster than the default on 3x P40."),
])
def test_row_split_near_misses_are_not_pp_bubble(title, said):
    verdict, found = judged_issue(f"# {title}\n\n{said}\n")
    assert verdict.category != "pp_bubble"
    assert "ticket.pp_bubble" not in found


def test_row_split_question_is_no_verdict():
    verdict, found = judged_issue("# P40s\n\nI run Llama 3 70B on 3x P40 in Ollama. Which split mode should I use?\n")
    assert "ticket.pp_bubble" not in found

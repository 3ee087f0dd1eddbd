"""Pass p48c: `--load-8bit` set against 16-bit weights (lm-sys/FastChat#1698, #536, #2692; the same on-the-fly 8-bit
path as bitsandbytes' LLM.int8, bitsandbytes#490, #6, FreedomIntelligence/LLMZoo#19, InternVL#627). The flag stores
the weights in 8 bits and widens them to 16 bits before every matmul, slower than the 16-bit model by design; the
project answers bitsandbytes' path as `other` (ticket.bitsandbytes_path), and now the flag the same way. Pastes and
their threads: tests/data/p48c/SOURCES.md.
"""

import shutil
from pathlib import Path

import pytest
from conftest import REPO, issue_bundle, judged_issue

from rules import claims, quant_tradeoff

DATA = REPO / "tests" / "data"


def _verdict(tmp_path: Path, rel: str):
    """(verdict, {rule id: finding}) of `diagnose ticket` on the kept paste tests/data/<rel>, as a bundle's issue.md."""
    folder = tmp_path / Path(rel).stem
    folder.mkdir()
    shutil.copy(DATA / rel, folder / "issue.md")
    return judged_issue(folder=folder)


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


def test_load_8bit_without_a_speed_complaint_is_no_finding():
    facts = issue_bundle("# 8-bit\n\nI run vicuna-7b with --load-8bit on a 3090. How much memory does it save?\n")
    assert list(quant_tradeoff.bitsandbytes_path(facts)) == []


# --- llama.cpp's row or tensor split measured faster, the default layer split unnamed (ticket.pp_bubble) ---


@pytest.mark.parametrize("rel", [
    "ut13/ollama5458.md",       # 3x P40: "enabling row-split ... speedup from ~3t/s to ~10t/s" (a feature request)
    "ut28b/layervstensor24.md",  # 2x 5060 Ti: "`-sm tensor` ... the baseline moves 22.1 → 37.1 (+68%)" (a report)
    "p48c/ollama5527.md",        # "row-split rather than layer splitting ... a 40-70% performance improvement"
])
def test_row_split_measured_faster_is_the_layer_splits_bubble(tmp_path, rel):
    verdict, found = _verdict(tmp_path, rel)
    assert verdict.category == "pp_bubble"
    assert any("layer split" in e.detail for e in found["ticket.pp_bubble"].evidence)


@pytest.mark.parametrize("said", [
    "With -sm row I get a speedup from 6 t/s to 11 t/s on two P40s.",
    "Switching to --split-mode tensor: 20.5 -> 31.0 tok/s on 2x 3090.",
])
def test_row_split_gain_read(said):
    assert claims.row_split_gain(issue_bundle(f"# split\n\n{said}\n")) is not None


@pytest.mark.parametrize("said", [
    "Would -sm row give a speedup on two P40s?",                          # a question
    "Maybe --split-mode row should be faster on my two cards.",          # a guess
    "With -sm row I get no speedup at all on two P40s.",                  # denied
    "On two P40s the layer split gives 10 t/s, and I run Ollama.",        # no row split named
    "With -sm row it runs slower, the layer split is faster for me.",    # the row split the loser
    "Row: 2x 3090, tensor-parallel (`-sm tensor`), 39.4 -> 49.2 tok/s (+25%), n-max 2.",  # speculative decoding's gain
])
def test_row_split_gain_not_read(said):
    assert claims.row_split_gain(issue_bundle(f"# split\n\n{said}\n")) is None


def test_row_split_gain_alone_is_no_verdict_without_it():
    verdict, found = judged_issue("# P40s\n\nI run Llama 3 70B on 3x P40 in Ollama. Which split mode should I use?\n")
    assert "ticket.pp_bubble" not in found

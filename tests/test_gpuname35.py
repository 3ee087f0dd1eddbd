"""Issue 11 item 4 (gpuname35): GPU names as people write them resolve to the right catalog row, and the ticket's own
GPU (facts.subject.gpu) follows the same reading.

The measured set is tests/data/gpuname35/names.toml: GPU mentions as written in the kept pastes, each labelled with
the row it names (or none) before the resolvers were run; scripts/gpuname_score.py reads each the way a ticket's words
are read. A laptop word beside a name gives the laptop part (its own row, else none: never the desktop card); a bare
"RTX 6000" (Quadro RTX 6000, RTX 6000 Ada or RTX PRO 6000) resolves to none; "GTX 3090" is the RTX 3090.
"""

import sys
from pathlib import Path

import pytest
import tomllib

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import catalog
from rules.engine import evaluate

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))
import gpuname_score  # noqa: E402

_ROWS = tomllib.loads((ROOT / "tests/data/gpuname35/names.toml").read_text())["mention"]
# study mentions still read wrong after gpuname35, with the reason; not bent to
_KNOWN_MISSES = {
    "v100-40G": "no V100 has 40 GB; a size no variant has falls back to the family so that a modded board "
                "('RTX 4090 48GB') keeps its row (subject._with_stated_memory), so this typo reads as the V100",
}


@pytest.mark.parametrize("row", [
    pytest.param(r, id=r["text"], marks=[pytest.mark.xfail(strict=True, reason=_KNOWN_MISSES[r["text"]])]
                 if r["text"] in _KNOWN_MISSES else [])
    for r in _ROWS if r["split"] == "study"])
def test_a_study_mention_resolves_to_its_label(row):
    assert gpuname_score.resolve(gpuname_score.read_mention(row["text"], row["words"])) == row["label"]


def test_the_check_mentions_mostly_resolve():
    """The held-aside third: scored, not fitted (99 % after gpuname35, 98 % on main)."""
    got = gpuname_score.score([r for r in _ROWS if r["split"] == "check"])["check"]
    assert sum(r["label"] == g for r, g in got) >= 0.95 * len(got)


def _subject(text: str):
    facts = Facts()
    facts.add(*issue_md.parse("# question\n\n" + text + "\n", "issue.md"))
    evaluate(facts)
    return facts.subject.gpu


# ----------------------------------------------------------------------------- laptop parts


@pytest.mark.parametrize("text, key", [
    # the kept pastes' own wordings (tests/data/extract30/exllamav2_806.md, tests/data/ut29b/llamacpp26025.md)
    ("My hardware is following:\nCPU: intel i9 24 Cores\nGPU: RTX 5090 24GB laptop\nRAM: 64GB\n"
     "I get 40 tok/s on Qwen 32B with exllamav2.", None),
    ("GPU: NVIDIA GeForce RTX 4060 Laptop 8GB (driver 610.62). llama.cpp runs at 12 tok/s.", None),
    # paraphrases
    ("On my laptop RTX 4090 vLLM decodes Llama 8B at 40 tok/s.", "rtx-4090-laptop"),
    ("My notebook with an RTX 3060 gets 20 tok/s on Mistral 7B in llama.cpp.", "rtx-3060-laptop"),
    ("A mobile GeForce RTX 4090 runs Qwen 7B at 50 tok/s in Ollama.", "rtx-4090-laptop"),
    ("I run Llama 8B on a laptop 4070, 30 tok/s in LM Studio.", None),
    # near-misses: the laptop word is not the card's
    ("On my laptop I SSH into a box with an RTX 4090; vLLM decodes Llama 8B at 40 tok/s.", "rtx-4090"),
    ("The laptop is fine, but my RTX 3090 desktop runs Llama 8B at 30 tok/s in vLLM.", "rtx-3090"),
])
def test_the_tickets_own_gpu_is_the_laptop_part_where_a_laptop_word_stands_by_it(text, key):
    gpu = _subject(text)
    assert (gpu.key if gpu else None) == key


def test_a_laptop_name_never_resolves_to_a_desktop_row_nor_a_desktop_name_to_a_laptop_row():
    for name in ("RTX 5090 Laptop", "RTX 4060 Laptop GPU", "RTX 4070 Mobile", "GTX 1650 Ti Laptop", "A100 Laptop"):
        assert catalog.resolve_gpu(name) is None, name
    assert catalog.resolve_gpu("RTX 4090 Laptop GPU").key == "rtx-4090-laptop"
    assert catalog.resolve_gpu("RTX 4090").key == "rtx-4090"
    assert catalog.resolve_gpu("RTX 3060").key == "rtx-3060"
    # the workstation RTX PRO 6000 Blackwell Max-Q is no laptop part (its row's own alias)
    assert catalog.resolve_gpu("RTX PRO 6000 Blackwell Max-Q").key == "rtx-pro-6000-blackwell"
    assert catalog.resolve_gpu("GTX 1650 Ti with Max-Q Design").key == "gtx-1650-ti-max-q"


# ----------------------------------------------------------------------------- the RTX 6000 names


@pytest.mark.parametrize("name, key", [
    ("RTX 6000", None), ("NVIDIA RTX 6000", None), ("2x RTX 6000", None),
    ("RTX 6000 Ada", "rtx-6000-ada"), ("NVIDIA RTX 6000 Ada Generation", "rtx-6000-ada"),
    ("Quadro RTX 6000", "quadro-rtx-6000"), ("RTX A6000", "rtx-a6000"), ("A6000", "rtx-a6000"),
    ("RTX PRO 6000 Blackwell", "rtx-pro-6000-blackwell"), ("rtx 6000 pro", "rtx-pro-6000-blackwell"),
])
def test_an_rtx_6000_resolves_only_on_its_distinguishing_word(name, key):
    found = catalog.resolve_gpu(name)
    assert (found.key if found else None) == key


def test_a_bare_rtx_6000_leaves_the_tickets_gpu_unread():
    assert _subject("Two RTX 6000 cards, vLLM TP=2 on Llama 70B AWQ is slow: 8 tok/s.") is None
    assert _subject("Two RTX 6000 Ada cards, vLLM TP=2 on Llama 70B AWQ is slow: 8 tok/s.").key == "rtx-6000-ada"


# ----------------------------------------------------------------------------- slips and traps


@pytest.mark.parametrize("name, key", [
    ("NVIDIA GTX 3090", "rtx-3090"), ("GTX 4090", "rtx-4090"), ("RTX 1080 Ti", "gtx-1080-ti"),
    ("GTX 1080", "gtx-1080"), ("RTX 1660 Ti", None), ("GTX 1050 Ti", None), ("GTX 3050", None),
    ("80GB A100", "a100-80gb-sxm"), ("A100 (80GB)", "a100-80gb-sxm"), ("A100 (40GB)", "a100-40gb-sxm"),
    ("V100 32 GB SXM2", "v100-sxm2-32gb"), ("H100 PCIe 80GB", "h100-pcie"), ("H100 NVL", "h100-nvl"),
])
def test_slips_and_reorderings(name, key):
    found = catalog.resolve_gpu(name)
    assert (found.key if found else None) == key


@pytest.mark.parametrize("text", [
    "Llama-3-70B on vLLM decodes at 20 tok/s.",
    "See https://example.com/a100-setup for the recipe; we run Qwen 7B at 30 tok/s.",
])
def test_a_model_name_or_an_address_is_no_gpu(text):
    assert _subject(text) is None

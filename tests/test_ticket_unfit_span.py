"""A rate for a model whose 16-bit weights the stated GPUs cannot hold, with no weights stated (issue 11, s14): the run
streamed a quantised copy or offloaded, so the tool spans the widths quantised checkpoints come in that fit
(rules.workload.SPANNED_WEIGHTS) and says which it spanned, instead of only asking which ran.

Sizes: Llama-2-13B is 13.0 B parameters (https://huggingface.co/meta-llama/Llama-2-13b-hf), 26 GB at 16 bits, 13 GB at
8, about 7 GB at 4; an RTX 3060 has 12 GB (https://www.nvidia.com/en-us/geforce/graphics-cards/30-series/rtx-3060-3060ti/).
The tickets are paraphrases written for this test, each with its negation.
"""

import json

import pytest
from conftest import diagnose


def _verdict(tmp_path, text):
    (tmp_path / "issue.md").write_text(f"# speed\n\n{text}\n")
    report = json.loads(diagnose("ticket", str(tmp_path / "issue.md"), "--json", "--fail-on", "never").stdout)
    return report["verdict"], report["findings"]


def test_a_rate_inside_the_4bit_band_is_physics_at_that_width(tmp_path):
    verdict, _ = _verdict(tmp_path, "Llama-2-13B on a single RTX 3060 12GB: I get 25 tokens/s when generating. "
                                    "Normal?")
    assert verdict["category"] == "expected_physics"
    assert "4-bit" in verdict["summary"] and "widths spanned" in verdict["summary"]


@pytest.mark.parametrize("text", [
    "Llama-2-13B on a single RTX 3060 12GB: I get 4 tokens/s when generating. Normal?",
    "With one RTX 3060 (12 GB) running Llama-2-13B-chat, generation crawls at 4 tok/s.",
])
def test_a_rate_below_every_width_that_fits_names_the_widths_and_asks(tmp_path, text):
    verdict, findings = _verdict(tmp_path, text)
    assert verdict["category"] == "insufficient_data"
    unjudged = next(f for f in findings if f["rule"] == "ticket.figure_unjudged")
    assert "Over the widths that fit (int4)" in unjudged["summary"] and "offload" in unjudged["summary"]


def test_sixteen_bit_weights_said_are_not_spanned(tmp_path):
    """Negation: the reporter says fp16, so no quantised width is assumed (an offload it must be, or a misreading)."""
    verdict, findings = _verdict(tmp_path, "Llama-2-13B in fp16 on a single RTX 3060 12GB: I get 25 tokens/s when "
                                           "generating. Normal?")
    assert verdict["category"] == "insufficient_data"
    unjudged = next(f for f in findings if f["rule"] == "ticket.figure_unjudged")
    assert "widths that fit" not in unjudged["summary"]


def test_no_width_fits_says_no_span(tmp_path):
    """Mixtral-8x7B is 46.7 B parameters (https://huggingface.co/mistralai/Mixtral-8x7B-v0.1): even 4-bit (23 GB)
    leaves a 24 GB RTX 4090 no room for the cache, so nothing is spanned."""
    verdict, findings = _verdict(tmp_path, "Mixtral-8x7B on one RTX 4090 24GB, about 40 tok/s for one chat. Is that "
                                           "what I should get?")
    assert verdict["category"] == "insufficient_data"
    unjudged = next(f for f in findings if f["rule"] == "ticket.figure_unjudged")
    assert "widths that fit" not in unjudged["summary"]

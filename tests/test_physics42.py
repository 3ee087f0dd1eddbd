"""Issue 11 (session s42, pass physics42): real threads whose settled answer is what the hardware and layout give, or a
near-miss of that class, reported as an error (the KV cache too small for max_model_len, TGI's warm-up "Not enough
memory"), a low utilisation figure, a long model load or a capability question rather than "is this normal?"; run
blind (tests/data/physics42/SOURCES.md has each thread, its settled answer and the verdicts before and after).

One reading is closed: a load (or another documented slow phase) said to take longer than by_design.toml's row allows
(longest_minutes; weights_load_time: 90 minutes is "a broken or throttled disk, not the design") was kept out of
ticket.documented_behaviour but still called normal by ticket.nothing_broken; now neither calls it normal
(vllm-project/vllm#2233: 120 minutes for a 67B model was a failing drive). The other misses stay strict xfails with
their reasons.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

DATA = Path(__file__).parent / "data" / "physics42"


def _judged(name: str):
    return judged_issue((DATA / name).read_text(encoding="utf-8"))


# ----------------------------------------------------------------------------- settled threads answered right blind


@pytest.mark.parametrize("name", [
    "qwen295.md",  # QwenLM/Qwen3#295: 32768 tokens do not fit the KV cache left on the GPU (jklj077, maintainer)
    "apiopenllm225.md",  # xusenlinzy/api-for-open-llm#225: 8192 > 4512, set CONTEXT_LEN=4096 (maintainer)
    "vllm2418.md",  # vllm-project/vllm#2418: 4096 > 3664 on one GPU; lower max_model_len or raise the share
])
def test_kv_cache_too_small_for_max_model_len_is_the_memory(name):
    verdict, findings = _judged(name)
    assert verdict.category == "expected_physics"
    assert "ticket.known_error" in findings


def test_tgi_warmup_memory_error_fixed_in_a_later_image_is_not_physics():
    """huggingface/text-generation-inference#1164 (near-miss): the warm-up's "Not enough memory to handle 256 prefill
    tokens" was a bug fixed in the `latest` image (OlivierDehaene): the software, not the card (answered right)."""
    verdict, _ = _judged("tgi1164.md")
    assert verdict.category == "other"


# ----------------------------------------------------------------------------- a load past its documented time


def test_a_load_past_the_documented_time_is_not_called_normal():
    """vllm-project/vllm#2233: "It took me over 120 minutes to load the 67B DeepSeek model. Is this normal?" was a
    failing drive (2-3 min once replaced). by_design.toml's weights_load_time row already says a load past its
    longest_minutes (90: "a broken or throttled disk, not the design") is not the documented phase, so
    ticket.documented_behaviour kept out; ticket.nothing_broken still called it normal (healthy, blind). Now it does
    not; the settled category (a storage fault, other) is not reached."""
    verdict, findings = _judged("vllm2233.md")
    assert verdict.category != "healthy"
    assert "ticket.nothing_broken" not in findings


LOAD = "# slow start\n\nvLLM TP 2 on 2x A100. {} Is this normal?\n"


@pytest.mark.parametrize("sentence", [
    # real load-time sentences of other threads (past 90 minutes where they give one)
    "It took me over 120 minutes to load the 67B DeepSeek model.",  # vllm-project/vllm#2233 (the paste's own)
    "It took me over 2 hours to load the model weights.",  # probe: hours
])
def test_times_past_the_row_are_not_normal(sentence):
    verdict, findings = judged_issue(LOAD.format(sentence))
    assert verdict.category != "healthy"


@pytest.mark.parametrize("sentence", [
    # probes inside the documented time: the slow load that finishes stays healthy (finished34's reading)
    "It took me 20 minutes to load the 67B DeepSeek model.",
    "Loading the model weights takes about 10 minutes from our NFS share.",
    "Now it takes me 3 mins to load 67B model.",  # vllm-project/vllm#2233, a later comment (after the new drive)
])
def test_times_inside_the_row_stay_healthy(sentence):
    verdict, _ = judged_issue(LOAD.format(sentence))
    assert verdict.category == "healthy"


# ----------------------------------------------------------------------------- misses kept as they are


def _missed(name: str, settled: str, reason: str):
    return pytest.param(name, settled, marks=pytest.mark.xfail(strict=True, reason=reason), id=name)


@pytest.mark.parametrize("name,settled", [
    _missed("trtllm132.md", "expected_physics",
            "NVIDIA/TensorRT-LLM#132: 7 % utilisation at batch 16 on one A100-40GB with memory nearly full; byshiue "
            "(maintainer): low utilisation is common when the batch is not large, and an engine built for batch 64 "
            "picks kernels for 64. The figure is read as the host starving the GPU (ticket.gpu_utilisation); telling "
            "a small-batch, kernel-choice shortfall from a starved GPU needs the engine's build and a profile, which "
            "the post lacks"),
    _missed("vllm2233.md", "other",
            "vllm-project/vllm#2233: the 120-minute load was a failing drive (the reporter); no longer called normal, "
            "but the time alone does not say which fault (the drive, a network mount, a throttled volume): "
            "insufficient_data, not the settled 'other'"),
    _missed("deepseekv2_56.md", "expected_physics",
            "deepseek-ai/DeepSeek-V2#56: 'can 8x A100 80G infer 128k?' settled by the reporter (32k; 100k needs int4 "
            "and KV-cache work): a capability question with no run, read as a behaviour asked to be called normal "
            "(ticket.nothing_broken, healthy); no reading of Chinese capability questions rests on three threads yet"),
])
def test_misses_kept_as_they_are(name, settled):
    verdict, _ = _judged(name)
    assert verdict.category == settled

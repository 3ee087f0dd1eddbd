"""Issue 11 (session s43, pass physics43): real threads whose settled answer is what the layout gives on any hardware
(several GPUs no faster, a low utilisation at batch-1 decode, memory that does not pool or halve across GPUs), most
naming the board loosely or not at all; run blind (tests/data/physics43/SOURCES.md has each thread, its settled answer
and the verdicts before and after).

One extraction is corrected: a bare model number that is one side of a picture's size ("1920 x 1080", "1080 x 1920",
"1920*1080") is a frame's width or height, not a GTX 1080 (Uni3C#12 named a "1080" among its A100s and H100s). The
verdict misses stay strict xfails with their reasons: none of their readings rests on three threads.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts.issue_md import GPU_NAME, parse

DATA = Path(__file__).parent / "data" / "physics43"


def _judged(name: str):
    return judged_issue((DATA / name).read_text(encoding="utf-8"))


def _names(text: str) -> list[str]:
    return [m.group(1) for m in GPU_NAME.finditer(text)]


# ----------------------------------------------------------------------------- answered right blind


@pytest.mark.parametrize("name", [
    "multitalk126.md",  # MeiGen-AI/MultiTalk#126: 2 A100s no faster than one with ulysses; the step chain is serial
    "xdit553.md",  # xdit-project/xDiT#553: ulysses over 8 PCIe cards slower than one (all-to-all over PCIe)
])
def test_more_gpus_no_faster_for_a_small_step_is_the_layout(name):
    verdict, findings = _judged(name)
    assert verdict.category == "expected_physics"
    assert "ticket.symptom_prior" in findings


# ----------------------------------------------------------------------------- a picture's size is not a GPU


@pytest.mark.parametrize("sentence", [
    # real sentences (find_string ids 9923681578, 58893622483, 71618307701, 36464166671; not LLM threads, the same
    # way of writing a frame's size)
    "#1080p  = 1920 x 1080",
    "All raster images are WebP. The screenshots are 1920 x 1080, the trailer is 1280 x 720 H.264/AAC",
    'print(f"  Canvas:   1080 x 1920 (9:16 vertical)")',
    "- Size: 1080 x 1920 px or higher",
    # probes: an asterisk, a square frame, a matrix's shape
    "I render 1920*1080 frames on my A100",
    "Instagram Feed | 1080 x 1080 | 1:1",
    "a 2080 x 1024 weight matrix",
])
def test_a_picture_size_is_not_a_gtx_1080(sentence):
    assert not [n for n in _names(sentence) if n[:4].isdigit()]


@pytest.mark.parametrize(("sentence", "names"), [
    # near-misses that must keep their card: a count times a card, a card times a count, the vendor's prefix, a plural
    ("8 x 1080 Ti in one box", ["1080 Ti"]),
    ("2 x 3090 and a 1080", ["3090", "1080"]),
    ("GTX 1080 x 2", ["GTX 1080"]),
    ("my 1080 is slow at 1920x1080", ["1080"]),
    ("two 1080s, each rendering at 1920 x 1080", ["1080"]),
    ("1080 x 4 GPUs", ["1080"]),
    ("16 x 1080 nodes", ["1080"]),
])
def test_a_card_beside_a_size_or_a_count_keeps_its_name(sentence, names):
    assert _names(sentence) == names


def test_uni3c_names_no_gtx_1080():
    """alibaba-damo-academy/Uni3C#12: "cannot generate 1920 x 1080 or 1280 X 720 resolutions videos" on 4 and 8
    A100 40gb: its boards are the A100 (and the H100 it asks about), no GTX 1080."""
    text = (DATA / "uni3c12.md").read_text(encoding="utf-8")
    named = [n for n in parse(text, "issue.md") if getattr(n, "kind", None) == "gpus_named"]
    assert named and "1080" not in named[0].text.split("; ")


# ----------------------------------------------------------------------------- misses left open


@pytest.mark.xfail(strict=True, reason="deepbeepmeep/YuEGP#5: 25 % utilisation on an RTX 4090 was batch-1 "
                   "autoregressive decode (memory bandwidth, and Python: the maintainer names both); "
                   "ticket.gpu_utilisation reads the figure as a starved host. Only this thread and physics42's "
                   "trtllm132 answer a low utilisation with the batch, not three, and the Python half is host-bound")
def test_low_utilisation_at_batch_one_decode_is_the_layout():
    verdict, _ = _judged("yuegp5.md")
    assert verdict.category == "expected_physics"


@pytest.mark.xfail(strict=True, reason="alibaba-damo-academy/Uni3C#12: out of memory with FSDP + sequence parallel on "
                   "4 and then 8 A100 40gb; the maintainer: sequence-parallel inference is for speed, not memory, so "
                   "more GPUs do not pool it (expected_physics). ticket.known_error reads the OOM alone (other); no "
                   "reading of 'the same OOM with more GPUs' rests on three threads")
def test_oom_that_more_gpus_do_not_cure_is_the_layout():
    verdict, _ = _judged("uni3c12.md")
    assert verdict.category == "expected_physics"


@pytest.mark.xfail(strict=True, reason="turboderp/exllama#121: 'Does GPU splitting take more ram than running on a "
                   "single GPU?' - yes, temporary buffers on each device (turboderp); a question with no figure, "
                   "engine or model: nothing in the post to read")
def test_split_costs_a_buffer_per_gpu():
    verdict, _ = _judged("exllama121.md")
    assert verdict.category == "expected_physics"


@pytest.mark.xfail(strict=True, reason="ggml-org/llama.cpp#4727 (near-miss, healthy): only GPU0's memory grows with "
                   "the context; JohannesGaessler: 'Not a bug. Splitting the KV cache across multiple GPUs is not "
                   "implemented' (then). The release's KV placement is in no catalog row")
def test_kv_on_the_main_gpu_was_the_release_design():
    verdict, _ = _judged("llamacpp4727.md")
    assert verdict.category == "healthy"

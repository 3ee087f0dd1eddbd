"""A GPU count run into a datacenter board's name ("8H100", "4L40S", "单机8H800") is read as a count and a name
(issue_md._AFTER_GLUED_COUNT, GLUED_COUNT): the subject gets its GPU and its count, and the claims' count readers
see the count. Never a model or part number, a cloud instance name, a version, a time of day or a longer number."""

import pytest

from diagnose.artifacts.issue_md import GLUED_COUNT, GPU_NAME
from diagnose.bundle import read_bundle
from diagnose.evidence import Workload
from rules.claims import _counted, _layout_counts

# https://github.com/vllm-project/vllm/issues/11539 (Neo9061, 2025-02-02), the thread's own words
VLLM_11539 = ("I followed VLLM distributed inference document to setup two nodes of 8H100 and I am able to see "
              "following with `ray status`.")


def _subject(tmp_path, text: str) -> list[tuple]:
    (tmp_path / "issue.md").write_text(f"# Slow decode\n\n{text}\n")
    return [(w.gpu, w.gpu_count, w.nodes) for w in read_bundle([tmp_path]).of(Workload) if w.gpu or w.gpu_count]


def test_the_threads_glued_count_names_the_board_and_counts_both_nodes(tmp_path):
    assert [m.group(1) for m in GPU_NAME.finditer(VLLM_11539)] == ["H100"]
    assert _subject(tmp_path, VLLM_11539) == [("H100", 16, 2)]


# sentences written for this test, in the forms people use: a size after the name, CJK before the count
@pytest.mark.parametrize("text, read", [
    ("We serve Llama 3 70B on 8H20 96G with TP=8 and decode is slow.", ("H20 96G", 8, None)),
    ("我们在单机8H800上部署DeepSeek-R1，推理速度很慢。", ("H800", 8, None)),
    ("Hardware: 4L40S, serving Llama 3 70B with vLLM, decode is slow.", ("L40S", 4, None)),
    ("We use 2H100 80G to serve Qwen2.5 72B with vLLM and decode is slow.", ("H100 80G", 2, None)),
    ("One job on 16H100 serving Llama 3 405B with vLLM is slow.", ("H100", 16, None)),
])
def test_a_glued_count_is_the_subjects_count(tmp_path, text, read):
    assert _subject(tmp_path, text) == [read]


@pytest.mark.parametrize("text, name", [
    ("RTX4090", "RTX4090"),  # the model number is the name, no count
    ("A100", "A100"),
    ("GH200", "GH200"),  # Grace Hopper, a product, not 7 x H200 nor G x H200
    ("GB200", "GB200"),
    ("NVIDIA A10080*8 machine", None),  # sglang#2587's "A10080*8": a size glued after the name, no count before it
    ("DGX-H100", None),  # a system name; its H100 is no count
    ("3A6000", None),  # Loongson's 3A6000 is a CPU: a workstation card's number is never read glued
    ("8h20", None),  # a time of day (8 h 20 min); only the capital letter names a board
    ("gx3d-160x1792x8h100", None),  # IBM Cloud's VPC GPU profile name
    ("p4d.24xlarge", None), ("a2-highgpu-8g", None), ("Standard_ND96asr_v4", None),  # AWS, Google Cloud, Azure
    ("vLLM 2.8H100", None),  # a version's digits
    ("128H100", None),  # three digits: no count of one or two
    ("#8A100B", None),  # a colour
    ("48GB", None), ("7B", None),
])
def test_no_count_is_read_from_a_name_or_part_number(text, name):
    assert [m.group(1) for m in GPU_NAME.finditer(text)] == ([name] if name else [])
    assert _layout_counts(text) == [] and _counted(text) == []


def test_the_claims_read_glued_counts_as_counts():
    import re

    assert [int(m.group(1)) for m in re.finditer(GLUED_COUNT, "with 2A100 it is fine, but with 4A100 it slows")] \
        == [2, 4]
    assert _layout_counts("TP8 on 8H100 is slower than TP4 on 4H100") == [8, 4]
    assert _counted("with 2A100 it is fine") == [2]

"""(issue 11, s15) NGC container tags read into the versions NVIDIA's release notes state for them
(rules/catalog/ngc_containers.toml): a tag in a Dockerfile, a launch line or prose gives the NCCL release and the
CUDA/driver a stated version gives, marked as derived from the tag; an unknown release, a Triton engine variant and a
tag outside nvcr.io/nvidia stay unknown; an NCCL version a tool printed wins over the tag."""

import pytest
from conftest import judged_issue

from diagnose.artifacts import container_tag, issue_md
from diagnose.evidence import Facts, NcclVersion, Note
from rules.catalog import _ngc_rows, ngc_container
from rules.containers import derive_container_versions


def facts_of(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    derive_container_versions(facts)
    return facts


def derived(facts: Facts) -> tuple[list[NcclVersion], list[Note]]:
    return ([v for v in facts.of(NcclVersion) if v.derived_from],
            [n for n in facts.of(Note) if n.kind == "software" and n.data.get("derived_from")])


def test_every_row_cites_nvidias_release_notes():
    for row in _ngc_rows().values():
        assert row["url"].startswith("https://docs.nvidia.com/deeplearning/"), row
        assert "cuda" in row or "nccl" in row


@pytest.mark.parametrize("line, image, release, variant", [
    # https://github.com/rproskuryakov/triton-sentence-transformer-tutorial/blob/main/Dockerfile
    ("FROM nvcr.io/nvidia/tritonserver:24.05-py3", "tritonserver", "24.05", "py3"),
    # https://github.com/Actor-ai/llk/blob/main/Dockerfile
    ("FROM nvcr.io/nvidia/pytorch:23.11-py3", "pytorch", "23.11", "py3"),
    # https://github.com/ByteDance-Seed/Triton-distributed/releases/tag/experimental
    ("  • container tag: nvcr.io/nvidia/pytorch:25.04-py3", "pytorch", "25.04", "py3"),
    # the brief's Triton + TensorRT-LLM tag, as in docker pull lines
    ("docker pull nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3", "tritonserver", "24.05",
     "trtllm-python-py3"),
    ("we are on pytorch:23.11 inside enroot", "pytorch", "23.11", ""),
])
def test_tags_read_from_real_lines(line, image, release, variant):
    (note,) = container_tag.tags([(1, line)], "issue.md")
    assert note.data == {"image": image, "release": release, "variant": variant}


@pytest.mark.parametrize("line", [
    # https://github.com/shannengeller/CSCI_4140_Final_Project/blob/main/Dockerfile (Docker Hub's, not NGC's)
    "FROM pytorch/pytorch:1.6.0-cuda10.1-cudnn7-runtime",
    "FROM myorg/pytorch:23.11-py3",  # someone's own image of that name
    "pip install torch==2.1.0 and pytorch 23.11 release notes",  # no image:tag
])
def test_no_ngc_tag(line):
    assert container_tag.tags([(1, line)], "issue.md") == []


def test_a_known_release_gives_nccl_cuda_and_driver():
    # PaddlePaddle 23.11's notes: NCCL 2.19.3, CUDA 12.3.0, driver 545
    versions, notes = derived(facts_of("We run `docker run --gpus all nvcr.io/nvidia/paddlepaddle:23.11-py3`.\n"))
    assert [(v.version, v.derived_from) for v in versions] == [("2.19.3", "paddlepaddle:23.11-py3")]
    assert notes[0].data["cuda"] == "12.3.0" and notes[0].data["driver"] == "545"
    assert notes[0].data["url"].endswith("Chunk1297083387.html")


def test_a_release_whose_notes_name_no_nccl_gives_cuda_only():
    # https://github.com/SidewalkEnt/vitpose_triton/blob/main/Dockerfile
    text = "```\nFROM nvcr.io/nvidia/tritonserver:24.05-py3\nRUN pip install opencv-python\n```\n"
    versions, notes = derived(facts_of(text))
    assert versions == [] and notes[0].data == {
        "cuda": "12.4", "driver": "545", "derived_from": "tritonserver:24.05-py3", "url": notes[0].data["url"]}


@pytest.mark.parametrize("text", [
    # a release the table lacks: https://huggingface.co/spaces/xiang-wuu/yolov5/commit/9b92d3ee769e8f26f2d535879dc69708998c47a3
    "FROM nvcr.io/nvidia/pytorch:21.02-py3\n",
    # https://github.com/matankley/Yolov3_Darknet_PyTorch_Onnx_Converter/blob/master/Dockerfile
    "FROM nvcr.io/nvidia/pytorch:20.03-py3\n",
    "docker pull nvcr.io/nvidia/tritonserver:24.05-trtllm-python-py3\n",  # the variant ships CUDA 12.3.2, not 12.4
    "FROM nvcr.io/nvidia/tritonserver:24.12-vllm-python-py3\n",
])
def test_unknown_stays_unknown(text):
    assert derived(facts_of(text)) == ([], [])


@pytest.mark.parametrize("text, nccl, cuda", [
    # https://github.com/NVIDIA/Megatron-LM/blob/main/tools/retro/README.md (its Docker image base)
    ("The docker image is based on `nvcr.io/nvidia/pytorch:23.09-py3`.\n", "2.18.5", "12.2.1"),
    ("FROM nvcr.io/nvidia/pytorch:23.08-py3\n", "2.18.3", "12.2.1"),
    # the docker run line NGC's PyTorch page gives, with the 24.04 tag
    ("sudo docker run --gpus all -it --rm nvcr.io/nvidia/pytorch:24.04-py3 /bin/bash\n", "2.21.5", "12.4"),
    ("we are on pytorch:24.05 inside enroot\n", "2.21.5", "12.4.1"),
    ("docker pull nvcr.io/nvidia/tritonserver:24.10-py3\n", "2.22.3", "12.6.2"),
])
def test_release_notes_rows(text, nccl, cuda):
    versions, notes = derived(facts_of(text))
    assert [v.version for v in versions] == [nccl] and notes[0].data["cuda"] == cuda


def test_variants_of_the_release_image():
    assert ngc_container("tritonserver", "24.12", "py3-sdk")["nccl"] == "2.23.4"
    assert ngc_container("tritonserver", "24.12", "")["nccl"] == "2.23.4"
    assert ngc_container("tritonserver", "24.12", "trtllm-python-py3") is None


def test_a_printed_nccl_version_is_the_one_in_use():
    text = ("FROM nvcr.io/nvidia/pytorch:19.11-py3\n\n```\nnode1:1:1 [0] NCCL INFO NCCL version 2.21.5+cuda12.4\n```\n")
    facts = facts_of(text)
    assert [v.version for v in facts.of(NcclVersion)] == ["2.21.5"]
    assert derived(facts)[1][0].data["nccl"] == "2.5.6"  # what the tag would have shipped stays a software note


def test_derived_twice_adds_nothing():
    facts = facts_of("FROM nvcr.io/nvidia/tritonserver:24.12-py3\n")
    derive_container_versions(facts)
    assert [len(x) for x in derived(facts)] == [1, 1]


def test_a_tag_in_a_known_regression_range_on_two_nodes():
    # 24.12 ships NCCL 2.23.4, inside nccl_regressions.toml ring-pxn-internode (>=2.23,<2.28, inter-node)
    text = ("# all_reduce busbw low across 2 nodes\n\nWe run nvcr.io/nvidia/tritonserver:24.12-py3 on 2 nodes of "
            "8x H100 with InfiniBand.\n")
    _, rules = judged_issue(text)
    f = rules["nccl.regression"]
    assert f.evidence[0].measured == "2.23.4" and "tritonserver:24.12-py3" in f.evidence[0].detail


@pytest.mark.parametrize("text", [
    # a release outside every regression range
    "# all_reduce busbw low across 2 nodes\n\nWe run nvcr.io/nvidia/pytorch:19.11-py3 on 2 nodes of 8x V100.\n",
    # a release whose notes name no NCCL
    "# all_reduce busbw low across 2 nodes\n\nWe run nvcr.io/nvidia/tritonserver:25.04-py3 on 2 nodes of 8x H100.\n",
])
def test_no_regression_outside_range(text):
    _, rules = judged_issue(text)
    assert "nccl.regression" not in rules


def test_a_derived_version_is_no_nccl_log():
    from rules.engine import NCCL_LOG, ticket_gaps

    assert NCCL_LOG in ticket_gaps(facts_of("FROM nvcr.io/nvidia/tritonserver:24.12-py3\n"))

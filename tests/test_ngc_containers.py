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
    # the pull forms TensorFlow 21.10's notes name ("Container image 21.10-tf1-py3 and 21.10-tf2-py3"):
    # https://docs.nvidia.com/deeplearning/frameworks/tensorflow-release-notes/rel_21-10.html
    ("docker pull nvcr.io/nvidia/tensorflow:21.10-tf2-py3\n", "2.11.4", "11.4.2"),
    ("docker pull nvcr.io/nvidia/tensorflow:20.10-tf1-py3\n", "2.7.8", "11.1.0"),
    # https://docs.nvidia.com/deeplearning/sdk/inference-release-notes/rel_21-04.html (NCCL 2.9.6, CUDA 11.3.0)
    ("docker pull nvcr.io/nvidia/tritonserver:21.04-py3\n", "2.9.6", "11.3.0"),
    ("FROM nvcr.io/nvidia/pytorch:22.12-py3\n", "2.15.5", "11.8.0"),
    ("FROM nvcr.io/nvidia/pytorch:23.04-py3\n", "2.17.1", "12.1.0"),
    # https://github.com/A-Yarrow/bindcraft-runpod (Dockerfile); its -cuda11.8-py3 image is another build
    ("FROM nvcr.io/nvidia/jax:23.08-py3\n", "2.18.3", "12.1.1"),
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


@pytest.mark.parametrize("text, nccl, said", [
    # 24.12 ships NCCL 2.23.4, inside nccl_regressions.toml ring-pxn-internode (>=2.23,<2.28, inter-node)
    ("# all_reduce busbw low across 2 nodes\n\nWe run nvcr.io/nvidia/tritonserver:24.12-py3 on 2 nodes of "
     "8x H100 with InfiniBand.\n", "2.23.4", "tritonserver:24.12-py3"),
    # 21.10 said in words ships NCCL 2.11.4 (PyTorch and TensorFlow notes), inside tree-internode-2.11 (>=2.11,<2.17)
    ("# all_reduce busbw low across 2 nodes\n\nWe run the NGC PyTorch 21.10 container on 2 nodes of 8x V100 "
     "with InfiniBand.\n", "2.11.4", "NGC PyTorch 21.10"),
])
def test_a_tag_in_a_known_regression_range_on_two_nodes(text, nccl, said):
    _, rules = judged_issue(text)
    f = rules["nccl.regression"]
    assert f.evidence[0].measured == nccl and said in f.evidence[0].detail
    assert "PyTorch wheel" not in f.evidence[0].detail  # the release notes' NCCL, not a wheel's


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


# --- session 19: rows read on NVIDIA's pages (TensorFlow, Triton 21.04, PyTorch 19.10-22.12) and the release said in
# words ("NGC PyTorch 24.01", "the 24.01 container", "NGC 24.05")

def test_a_tensorflow_image_outside_the_rows_variants_stays_unknown():
    # https://github.com/kf-cuanschutz/NVIDIA_Grace_Hopper_benchmarking_logs_ (Daily_installs_loggings): no TF 24.05
    # row, and the -igpu image of TF 21.10 is not one its notes list
    assert derived(facts_of("apptainer pull nvcr_tf.sif docker://nvcr.io/nvidia/tensorflow:24.05-tf2-py3-igpu\n")) \
        == ([], [])
    assert ngc_container("tensorflow", "21.10", "tf2-py3-igpu") is None
    assert ngc_container("jax", "23.08", "cuda11.8-py3") is None  # "FROM nvcr.io/nvidia/jax:23.08-cuda11.8-py3"


@pytest.mark.parametrize("line, image, release, text", [
    # https://github.com/LambdaLabsML/lambda-diffusers/blob/main/docs/benchmark-update.md
    ("These results were run with Diffusers 0.11.0 and xformers using Ubuntu 20.04, Python 3.8, PyTorch 1.13, CUDA "
     "11.8 ([NGC PyTorch container 22.11](https://docs.nvidia.com/deeplearning/frameworks/pytorch-release-notes/"
     "rel-22-11.html)).", "pytorch", "22.11", "PyTorch container 22.11"),
    # https://github.com/NVIDIA/Megatron-LM/blob/main/README.md (installation)
    ("# Install packages for LTS support NGC PyTorch 24.01", "pytorch", "24.01", "NGC PyTorch 24.01"),
    # the brief's forms of issue 11
    ("we use the NGC 23.11 release", "", "23.11", "NGC 23.11"),
    ("it hangs inside the 24.01 container too", "", "24.01", "the 24.01 container"),
    ("pytorch NGC container 24.05 on 8x H100", "pytorch", "24.05", "pytorch NGC container 24.05"),
    ("the Triton Inference Server container 24.05", "tritonserver", "24.05", "Triton Inference Server container 24.05"),
])
def test_release_said_in_words(line, image, release, text):
    (note,) = container_tag.tags([(1, line)], "issue.md")
    assert note.data == {"image": image, "release": release, "variant": ""} and note.text == text


@pytest.mark.parametrize("line", [
    # lines of Triton 24.10's own release notes (triton-inference-server/server docs/introduction/release_notes.md):
    # an OS, a library release and an engine release are no NGC release
    "- [Ubuntu 22.04](http://releases.ubuntu.com/22.04/) including [Python 3.10]",
    "- Intel[ OpenVINO ](https://github.com/openvinotoolkit/openvino/tree/2022.1.0)2024.0.0",
    "- [vLLM](https://github.com/vllm-project/vllm) version 0.5.3 post 1",
    # a variant tag without its image name says no image: read nothing rather than the wrong one
    "To build the Llama 3.1 engine inside the 24.09-trtllm-python-py3 image, make sure to upgrade the transformer",
    "we moved to an Ubuntu 22.04 container",  # the word before the number is no article
    "PyTorch 23.11 release notes",  # no container word
    "a regression since the 2023.11 nightly container",  # a date, four-digit year
    "the 12.04 container",  # no NGC release (NGC's start at 17.xx)
    "FROM ubuntu:22.04, then we rebuilt the 22.04 image with CUDA",  # Ubuntu's YY.04, no image or NGC said
])
def test_no_release_in_words(line):
    assert container_tag.tags([(1, line)], "issue.md") == []


def test_a_tag_and_its_words_are_read_once():
    # https://github.com/NVIDIA/Megatron-LM/blob/main/tools/retro/README.md form, with the image named again in words
    notes = container_tag.tags([(1, "The NGC PyTorch container nvcr.io/nvidia/pytorch:23.09-py3 image")], "x")
    assert [n.data["release"] for n in notes] == ["23.09"]


def test_a_release_without_its_image_needs_the_tables_images_to_agree():
    from rules.catalog import ngc_release_nccl

    # 24.05: PyTorch and PaddlePaddle rows both 2.21.5 (Triton's notes copy names none)
    assert ngc_release_nccl("24.05")["nccl"] == "2.21.5"
    assert ngc_release_nccl("21.10")["images"] == ["pytorch", "tensorflow"]
    assert ngc_release_nccl("21.09") is None  # PyTorch's row only
    assert ngc_release_nccl("23.11") is None  # one image's row only (PaddlePaddle): no second to agree with
    assert ngc_release_nccl("24.10") is None  # Triton's row only
    assert ngc_release_nccl("22.02") is None  # no row


def test_words_give_the_release_notes_nccl():
    versions, notes = derived(facts_of("We run the NGC 24.05 container on 8x H100.\n"))
    assert [(v.version, v.derived_from) for v in versions] == [("2.21.5", "NGC 24.05")]
    assert notes[0].data == {"nccl": "2.21.5", "derived_from": "NGC 24.05", "url": notes[0].data["url"]}
    versions, _ = derived(facts_of("Docker image: NGC PyTorch 23.11\n"))  # no PyTorch 23.11 row: unknown
    assert versions == []

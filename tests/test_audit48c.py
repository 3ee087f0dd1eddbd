"""Audit of `expected_physics` answered by ticket.symptom_prior (pass audit48c). The table of the 122 kept pastes so
answered on main, and what was mended, is in tests/data/audit48c/AUDIT.md.

The one mechanism found in at least three separate threads: the scaling symptom ("more GPUs ... slower") was read
from a sentence that names one GPU and no second layout, a count of one said as what the reporter has ("as I only have
1 GPU), but I am very surprised by the slow inference time", meta-llama/llama#506) or a GeForce board's number read as
a count ("with an single 3090 GPU ... the speed lower than paper's result", GXNU-ZhongLab/SGLATrack#4; "on a single
NVIDIA RTX 4090 GPU, only 18% lower than ... A100", Tiiny-AI/PowerInfer#16; "4090 GPUs slower on v0.4.8",
sgl-project/sglang#7568). Where the symptom prior decided, it then answered "Tensor parallelism not paying off" for a
run on one GPU. Such a sentence is now a slow complaint at most (claims._one_gpu_named), in the symptom and in
claims.more_gpus_no_gain alike.
"""


import pytest
from conftest import REPO, issue_bundle, judged_kept_paste

from rules import claims

DATA = REPO / "tests" / "data"


_verdict = judged_kept_paste


def _symptom(text: str) -> str:
    return claims.symptom_quote(issue_bundle(text))[2]


@pytest.mark.parametrize("rel", [
    "extract32/llama506.md",      # one RTX 4070, llama-2-7b-chat slower than Flan-UL2 (no answer kept)
    "hostbound37/sglatrack4.md",  # one RTX 3090 slower than the paper's 2080 Ti (settled: the CPU, not in the paste)
])
def test_one_gpu_held_against_a_reference_is_not_answered_as_tensor_parallelism(tmp_path, rel):
    verdict, found = _verdict(tmp_path, rel)
    assert _symptom((DATA / rel).read_text()) == "slow"
    assert "ticket.symptom_prior" not in found
    assert verdict.category == "insufficient_data"


@pytest.mark.parametrize("rel, category", [
    ("ut14/sglang7568.md", "other"),         # 27 -> 20 tok/s from SGLang 0.4.6 to 0.4.8: the release decides
    ("variant39/powerinfer16.md", "host_bound"),  # a question on the paper's board (kept: not this reading)
])
def test_a_board_number_is_no_count_and_the_verdict_stays(tmp_path, rel, category):
    assert _symptom((DATA / rel).read_text()) == "slow"
    assert _verdict(tmp_path, rel)[0].category == category


@pytest.mark.parametrize("rel", [
    # the symptom prior's expected_physics, right by the thread's answer (AUDIT.md)
    "cn41/xtuner310.md", "cn42/zeronlp96.md", "physics39/mxnet2363.md", "physics39/uniad41.md",
    "physics40/faceswap708.md", "physics40/fastspeech11.md", "physics40/paddle37045.md", "physics40/yolov5_1933.md",
    "physics43/multitalk126.md", "physics43/xdit553.md", "ut26a/linly80.md", "ut22a/dsex135.md", "ut20a/vllm804.md",
    "ut21b/ollama7104.md", "ut26a/t2t1110.md", "ut21a/nccl258.md", "normal45/lorax116.md", "forum42/ddp113545.md",
    "ut27e/lmstudio1608.md", "ut27d/dse718.md",
    # a count of one beside the larger layout: "not increasing when scaling up from 1 GPU to 4 GPUs",
    # "8*V100 need more time ... compared to Single GPU"
    "symptom34/ft_backend_163.md", "normal_questions/chatglm910.md",
])
def test_right_physics_answers_keep_theirs(tmp_path, rel):
    assert _verdict(tmp_path, rel)[0].category == "expected_physics"


@pytest.mark.parametrize("text", [
    # a second layout in the sentence, or one GPU as the other side of the comparison (probes)
    "# TP slower\n\nThroughput is not increasing when scaling up from 1 GPU to 4 GPUs.",
    "# TP slower\n\nWith vLLM it is slower than 1 GPU.",
    "# TP slower\n\nTwo 3090 GPUs are slower than one.",
    "# TP slower\n\nMulti GPU inference is slower than single GPU inference.",
    "# TP slower\n\n2x RTX 4090 GPUs are slower than a single 4090 GPU.",
    "# TP slower\n\nCompared to a single GPU, tensor parallel is slower.",
    "# scaling\n\nScaling to 1024 GPUs, the throughput per GPU is much lower.",
    "# TP slower\n\nFour 4090 GPUs are no faster than one 4090 GPU.",
    "# TP slower\n\nA single GPU run is fast, but on 8 GPUs it is slow.",
])
def test_a_second_layout_keeps_the_scaling_reading(text):
    assert _symptom(text) == "scaling"


@pytest.mark.parametrize("text", [
    # one GPU said as what the reporter has or runs, or a board's number (probes after the four threads)
    "# Slow\n\nI only have 1 GPU, but the inference is very slow compared with the paper.",
    "# Slow\n\nOn a single RTX 3090 GPU the speed is lower than the paper's result on a 2080 Ti.",
    "# Slow\n\nOur 4090 GPU is slower than the A100 in your README.",
])
def test_one_gpu_is_a_slow_complaint_not_a_scaling_one(text):
    assert _symptom(text) == "slow"
    assert not claims.more_gpus_no_gain(issue_bundle(text))

"""Does the symptom classifier read the kind of question a real first post asks, on many more posts? (session s36,
pass symptom36, issue 11)

tests/data/symptom36/labels.toml labels 120 first posts kept elsewhere under tests/data (drawn by a hash of the path,
scripts/symptom_score.py sample()), by hand from the post before the tool was run, split once by sha1 of the path into
`study` and `check`. The families fixed here were found on the study part's misreadings, each from several posts, and
are tested below on the real posts that showed them, on paraphrases written for this file and on negations and
near-misses that must keep their class:

- the reporter's own expectation, said and not asked ("half of what I expected", "I expected to see ~21 Gbps"), reads
  "normal?" only where nothing else is said, and a cause supposed ("is it possible that ...") asks nothing:
  claims._reference_said, the normal? pattern's "possible that" guard;
- a hang said with "not" ("the request does not respond") or as the plural "timeouts": SYMPTOMS' hang;
- a link or GPU used below its rate ("unable to use full TCP bandwidth", "the GPU usage is too low"): SYMPTOMS' slow;
- the scaling itself called bad ("Bad scaling with tensor-parallel", "scales poorly"): _NO_GAIN (found by the sweep of
  kept pastes: the post had read as scaling only through "--dtype half");
- "half" as a flag's value ("--dtype=half", "half precision") is no share of a speed: _NO_GAIN;
- more cards slower said in Chinese with the count in numerals or as "the more ..., the slower" ("四卡推理比双卡还慢",
  "机器越多耗时越大"), and one card the slow side of 比 ("单卡...比 2 卡慢"): _CJK_SCALING, claims._one_card_slower.

The `check` part is validation only: its posts are not asserted here.
"""

import sys
from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Note
from rules import claims

DATA = Path(__file__).parent / "data"
LABELS = tomllib.loads((DATA / "symptom36" / "labels.toml").read_text())
sys.path.insert(0, str(Path(__file__).parent.parent / "scripts"))
import symptom_score  # noqa: E402


def kind_of(text: str) -> str:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return claims.symptom_quote(facts)[2]


def kind_of_post(path: str) -> str:
    return claims.symptom_quote(read_bundle(DATA / path))[2]


# --------------------------------------------------------------------------- the set and its score

def test_set_is_the_drawn_sample():
    """labels.toml holds the 120 posts sample() draws, each once, each split by the hash of its path."""
    posts = [row["post"] for row in LABELS.values()]
    assert len(posts) == len(set(posts)) == 120
    assert all((DATA / p).exists() for p in posts)
    assert all(row["class"] in symptom_score.KINDS for row in LABELS.values())


def test_study_accuracy_floor():
    """The study part read as labelled at least as often as measured after this pass (58 of 79; 49 before it). The
    symptom34 set keeps its own floor (37 of 42)."""
    rows = symptom_score.readings("symptom36")
    study = [r for r in rows if r[1] == "study"]
    assert len(study) == 79
    assert sum(r[2] == r[3] for r in study) >= 58
    old = [r for r in symptom_score.readings("symptom34") if r[1] == "study"]
    assert sum(r[2] == r[3] for r in old) >= 37


# --------------------------------------------------------------------------- a reference said, not asked

@pytest.mark.parametrize("path", ["ut20a/nccl465.md", "ut20b/kobold642.md"])
def test_reference_said_real(path):
    """"a bus bandwidth of 6GBps ... which is half of what I expected" and "Is it possible that NCCL is using RDMA
    without GPUDirect?" (NVIDIA/nccl#465); "Speed regression ... is it possible that something isn't working
    correctly?" (LostRuins/koboldcpp#642)."""
    assert kind_of_post(path) == "slow"


@pytest.mark.parametrize("text", [
    "Allreduce busbw on the cluster is 11 GB/s, roughly half of what we expected from HDR.",
    "Decode is slower than I expected after the upgrade, around 9 tok/s now.",
    "The speed drops at TP=2. Is it possible that the PCIe link is the cause?",
])
def test_reference_said_paraphrases(text):
    assert kind_of(text) == "slow"


def test_reference_alone_stays_normal():
    """A reference said with no complaint word beside it still reads "normal?" (a figure set against what was
    expected, as before this pass), rather than nothing."""
    assert kind_of("I expected around 40 tok/s on the H100 but the decode stays at 12 tok/s.") == "normal?"


@pytest.mark.parametrize("text", [
    "We get 180 GB/s busbw on 8x A100. Is this expected?",
    "I'm not sure if 180 GB/s busbw is expected for this box.",
    "I wonder whether 600 GB/s is the theoretical peak here.",
    "Is it possible to get more than this on a single node? We see 30 tok/s on 2x A10.",
])
def test_reference_asked_stays_a_question(text):
    assert kind_of(text) == "normal?"


# --------------------------------------------------------------------------- a hang said with "not", or as timeouts

@pytest.mark.parametrize("path", ["ut22b/trtllmbackend110.md", "review50/instructlab566.md"])
def test_hang_wording_real(path):
    """"the request does not respond, and the service cannot handle new request"
    (triton-inference-server/tensorrtllm_backend#110); "This was leading to collective timeouts"
    (instructlab/training#566)."""
    assert kind_of_post(path) == "hang"


@pytest.mark.parametrize("text", [
    "With TP=4 the server does not respond after the first few requests.",
    "The API is not responding at all once two clients connect.",
    "We keep getting NCCL timeouts during the allreduce on 16 ranks.",
])
def test_hang_wording_paraphrases(text):
    assert kind_of(text) == "hang"


@pytest.mark.parametrize("text", [
    "The server responds quickly but generation is slow, around 3 tok/s.",  # answers: a speed
    "Latency does not respond to batch size at all, it stays at 40 ms per token, is that expected?",  # a figure
    "There were no timeouts and no errors, the decode speed is just low.",  # negated
])
def test_hang_wording_near_misses(text):
    assert kind_of(text) != "hang"


# --------------------------------------------------------------------------- a link or GPU used below its rate

@pytest.mark.parametrize("path", ["ut27c/nccltests83.md", "decided31/gector66.md"])
def test_below_rate_real(path):
    """"NCCL unable to use full TCP bandwidth in Azure" (NVIDIA/nccl-tests#83); "the GPU usage is too low(15%)"
    (grammarly/gector#66)."""
    assert kind_of_post(path) == "slow"


@pytest.mark.parametrize("text", [
    "NCCL can't saturate the full 100Gbps bandwidth between the two hosts.",
    "During decode the GPU utilization is very low, around 20%.",
    "Training works but GPU usage stays low and the CPU is at 100%.",
])
def test_below_rate_paraphrases(text):
    assert kind_of(text) == "slow"


@pytest.mark.parametrize("text", [
    "GPU memory usage is low after loading, only 4 GB of 24 GB.",  # memory, not work
    "Cannot use the second GPU: CUDA error: invalid device ordinal",  # a device out of reach: an error
])
def test_below_rate_near_misses(text):
    assert kind_of(text) != "slow"


# --------------------------------------------------------------------------- more cards slower, in Chinese

@pytest.mark.parametrize("path", ["ut16/chatchat3764.md", "ut26f/swift1825.md"])
def test_cjk_scaling_real(path):
    """"四卡推理比双卡还慢" (chatchat-space/Langchain-Chatchat#3764); "机器越多耗时越大" (modelscope/ms-swift#1825)."""
    assert kind_of_post(path) == "scaling"


@pytest.mark.xfail(strict=True, reason="read as scaling now (rightly), ticket.symptom_prior answers expected_physics "
                   "0.69 for a ZeRO-3 job whose every added node multiplies the batch time; the thread settled that "
                   "NCCL was kept off InfiniBand (NCCL_IB_DISABLE=0 solved it), so the network path is the answer "
                   "(before this pass: insufficient_data, asking the NET lines)")
def test_swift1825_verdict():
    from tests.conftest import judged_issue
    verdict, _ = judged_issue(folder=DATA / "ut26f" / "swift1825.md")
    assert verdict.category == "socket_fallback"


@pytest.mark.parametrize("text", [
    "八卡推理比四卡还慢，这是什么原因？",
    "用 vllm 部署，卡越多越慢。",
    "节点越多，吞吐越低，两台机器反而不如一台。",
])
def test_cjk_scaling_paraphrases(text):
    assert kind_of(text) == "scaling"


def test_one_card_slower_real():
    """"单卡推理，速度比2卡慢很多" (QwenLM/Qwen3-Embedding#73): the one card is the slow layout."""
    assert kind_of_post("ut16/qwen3emb73.md") == "slow"


@pytest.mark.parametrize("text", [
    "单卡比双卡还慢，是不是显存不够？",
    "一张卡推理比 4 卡慢了很多。",
])
def test_one_card_slower_near_misses(text):
    assert kind_of(text) != "scaling"


# --------------------------------------------------------------------------- "half" as a value

def test_half_as_a_value_real():
    """"vllm serve ... --tensor-parallel-size 1 --dtype=half" and "why does the GPU memory usage exceed 20G?"
    (vllm-project/vllm#7979): a memory question, not more GPUs at half the speed."""
    assert kind_of_post("ut29a/vllm7979.md") != "scaling"


@pytest.mark.parametrize("text", [
    "vllm serve /models/qwen --tensor-parallel-size 2 --dtype half --port 8000\nWhy is 22 GB used on each GPU?",
    "We load the model in half precision on 4 GPUs; how do I set the KV cache size?",
])
def test_half_as_a_value_near_misses(text):
    assert kind_of(text) != "scaling"


@pytest.mark.parametrize("text", [
    "With 4 GPUs the throughput is half of what 2 GPUs give.",
    "TP=2 gives half the tokens/s of a single card.",
])
def test_half_as_a_share_stays_scaling(text):
    assert kind_of(text) == "scaling"


# --------------------------------------------------------------------------- the scaling called bad

def test_bad_scaling_real():
    """"[Performance]: In tokens processing performance. Bad scaling with tensor-parallel" (vllm-project/vllm#6955)."""
    assert kind_of_post("normal_questions/vllm6955.md") == "scaling"


@pytest.mark.parametrize("text", [
    "Poor scaling with tensor parallel on 4x A10G, decode barely moves.",
    "vLLM scales poorly beyond 2 GPUs on our PCIe box.",
    "Bad multi-GPU scaling in llama.cpp with 3 cards.",
])
def test_bad_scaling_paraphrases(text):
    assert kind_of(text) == "scaling"


@pytest.mark.parametrize("text", [
    "Scaling with 4 GPUs is not bad at all, 3.6x, thanks for the release.",  # praise
    "The poor scaling of the input image is a preprocessing bug, see the resize code.",  # no GPUs
])
def test_bad_scaling_near_misses(text):
    assert kind_of(text) != "scaling"

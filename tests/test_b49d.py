"""Pass b49d: a blind batch of real multi-GPU threads (tests/data/b49d, labels and blind verdicts in its SOURCES.md).

The one mechanism found in three separate threads: `ticket.nothing_broken` called "normal" a post that says, in
Chinese, that the model could not be run or loaded or that memory ran short, because the error class knew those
failures only in English ("does not load", "can not run", the CUDA check's "out of memory"): "跑9B的模型无法跑起来"
(vllm-project/vllm#5704), "发现还是提示内存不足" (zai-org/GLM-4#359), "单机的一张卡无法加载大模型"
(xorbitsai/inference#1927). The error class now holds their Chinese (无法加载 / 跑不起来 / 内存不足 / 显存不足; 内存 may
be the host's, which left28b keeps from the GPU out-of-memory reading, but a failure either way).
Tried first and undone: ticket.nothing_broken abstaining on any out-of-memory reading; it took "will it be OOM?"
(NVIDIA/nccl#864) and an earlier problem in the title (club-3090#32) for failures.
"""

import pytest
from conftest import judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b49d/vllm5704.md",        # "跑9B的模型无法跑起来" (only the RTX 3060 used; settled: pass --tensor-parallel-size)
    "b49d/glm4_359.md",        # "发现还是提示内存不足，且3没有占用" (settled: mask the busy GPUs or a device map)
    "cn38/xinference1927.md",  # "目前单机的一张卡无法加载大模型" (settled: TP within a node, PP across nodes)
])
def test_a_model_that_cannot_run_or_load_is_not_called_normal(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category != "healthy"
    nb = found.get("ticket.nothing_broken")
    assert nb is None or nb.confidence == 0


@pytest.mark.parametrize("rel, kind", [
    ("b49d/vllm5704.md", "error"),
    ("cn38/xinference1927.md", "error"),
])
def test_the_chinese_cannot_run_words_are_an_error(tmp_path, rel, kind):
    from conftest import REPO, issue_bundle
    facts = issue_bundle((REPO / "tests" / "data" / rel).read_text())
    assert claims.symptom(facts) == kind


def test_memory_insufficient_in_chinese_is_an_error():
    from conftest import REPO, issue_bundle
    facts = issue_bundle((REPO / "tests" / "data" / "b49d" / "glm4_359.md").read_text())
    assert claims.symptom(facts) == "error"


_ONE_CARD = "# 多卡\n\nvllm 部署时只用到了一张卡。{}这正常吗？"


@pytest.mark.parametrize("said", [
    "9B 的模型不是无法加载，能跑。",      # denied
    "9B 的模型会不会无法加载？",          # asked about
    "听说别人的 9B 模型无法加载。我这里",  # someone else's
])
def test_cannot_load_near_misses_are_no_error(said):
    from conftest import issue_bundle
    assert claims.symptom(issue_bundle(_ONE_CARD.format(said))) == "normal?"


@pytest.mark.parametrize("said", [
    "9B 的模型并没有内存不足。",  # denied
    "这样会不会内存不足？",        # asked about
    "听说别人会内存不足。",        # someone else's
])
def test_memory_insufficient_near_misses_are_no_error(said):
    from conftest import issue_bundle
    assert claims.symptom(issue_bundle(_ONE_CARD.format(said))) == "normal?"


@pytest.mark.parametrize("rel", [
    "bydesign33/nccl864.md",   # "If a lot of nccl connections are established, will it be OOM?": a question
    "ut21b/club3090_32.md",    # "[bug] OOM on container boot": the thread's earlier problem, not the one asked
])
def test_an_out_of_memory_asked_about_or_past_leaves_the_normal_answer(tmp_path, rel):
    verdict, found = judged_kept_paste(tmp_path, rel)
    assert verdict.category == "healthy"
    assert found["ticket.nothing_broken"].category == "healthy"


def test_a_question_about_one_busy_card_is_still_answered():
    # nothing failed: the abstention above does not reach a plain question (ticket.nothing_broken's healthy stays)
    verdict, _ = judged_issue("# 多卡\n\nvllm 部署 9B 模型时只用到了一张卡，这样会不会内存不足？这正常吗？")
    assert verdict.category == "healthy"

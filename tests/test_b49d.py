"""Pass b49d: a blind batch of real multi-GPU threads (tests/data/b49d, labels and blind verdicts in its SOURCES.md).

The mechanism found: `ticket.nothing_broken` called "normal" a post that says, in Chinese, that the model could not be
run or loaded, because the error class knew those failures only in English ("does not load", "can not run"):
"跑9B的模型无法跑起来" (vllm-project/vllm#5704), "单机的一张卡无法加载大模型" (xorbitsai/inference#1927, whose English
wording already ended in insufficient_data). The error class now holds their Chinese (无法加载 / 跑不起来).
The memory words of the third thread ("发现还是提示内存不足", zai-org/GLM-4#359) were taken out after review (r49a):
the English class holds no "out of memory" either, and 显存不足 stands as often in a fixed, past or conditional state.
Tried first and undone: ticket.nothing_broken abstaining on any out-of-memory reading; it took "will it be OOM?"
(NVIDIA/nccl#864) and an earlier problem in the title (club-3090#32) for failures.
"""

import pytest
from conftest import judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b49d/vllm5704.md",        # "跑9B的模型无法跑起来" (only the RTX 3060 used; settled: pass --tensor-parallel-size)
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


@pytest.mark.xfail(strict=True, reason="r49a: 内存不足 / 显存不足 are no error words (the English class has no 'out of "
                                       "memory'; the words as often say a fixed or conditional state), so this "
                                       "thread's 'still reports insufficient memory' is not read as a failure")
def test_memory_insufficient_in_chinese_is_an_error():
    from conftest import REPO, issue_bundle
    facts = issue_bundle((REPO / "tests" / "data" / "b49d" / "glm4_359.md").read_text())
    assert claims.symptom(facts) == "error"


@pytest.mark.parametrize("said", [
    "之前显存不足的问题已经解决了。",   # fixed and gone (r49a)
    "以前 0.4 版本显存不足，现在好了。",  # an earlier state
    "显存不足时会自动卸载到 CPU，",      # a condition, documented behaviour
])
def test_memory_words_in_a_past_or_conditional_state_leave_the_normal_answer(said):
    verdict, _ = judged_issue("# 多卡\n\nvllm 部署 9B 模型时只用到了一张卡。" + said + "这正常吗？")
    assert verdict.category == "healthy"


_ONE_CARD = "# 多卡\n\nvllm 部署时只用到了一张卡。{}这正常吗？"


@pytest.mark.parametrize("said", [
    "9B 的模型不是无法加载，能跑。",      # denied
    "9B 的模型会不会无法加载？",          # asked about
    "听说别人的 9B 模型无法加载。我这里",  # someone else's
])
def test_cannot_load_near_misses_are_no_error(said):
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

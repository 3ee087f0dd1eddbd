"""Issue 11 (session s42, pass words42): readings of reporters' words that misfired on negation, polysemy, counts and
doubt (tests/data/words42/SOURCES.md).

1. A Chinese negation right before a change word of slowness denies it, as "not slower" does in English: "推理没有变慢",
   "速度并没有下降", "不会变慢" are no complaint (claims._zh_denied, in complaint(), the "slow" symptoms and
   update_slower); "不断下降" (keeps falling), "不知不觉变慢" still complain.
2. 延迟/延时 before a verb is "defer" (延迟加载 lazy loading, 延迟初始化), not latency: no time said to rise.
3. A board's name of one to four digits after a count's measure word ("4张T4", "2张L4", "8张H20") is a GPU count, not a
   batch (issue_md._NOT_CARDS).
4. What the reporter's own doubt governs ("I doubt it is P2P") is no suspicion of it: no claim (claims._first); and
   "no doubt", "I don't doubt" affirm what follows instead of denying it (claims._negated).

Sentences quoted with their thread are real; the rest are probes (short sentences testing a reading, with negations,
hearsay, guesses and near-misses that must not fire).
"""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(f"# t\n\n{text}\n", "issue.md"))
    return facts


def _kinds(text: str) -> set[tuple[str, bool, bool]]:
    return {(c.kind, c.guess, c.negated) for c in claims.claims(_facts(text))}


# ----------------------------------------------------------------------------- 1. Chinese negation before slowness

@pytest.mark.parametrize("text", [
    "升级驱动后推理没有变慢。", "速度并没有下降。", "延迟没有增加。",  # probes (the brief's)
    # probes
    "推理速度不会变慢", "吞吐没有下降", "推理速度未下降", "性能并未下降", "一点也不慢", "推理速度没有明显下降",
])
def test_a_denied_slowdown_is_no_complaint(text):
    assert claims.complaint(_facts(text)) is None
    assert not any(k == "update_slower" for k, _, _ in _kinds(text))


@pytest.mark.parametrize("text", [
    # real: yuanzhoulvpi2017/zero_nlp#96 (tests/data/cn42): the negation is the gain's, the slowdown stands
    "多卡并行训练并没有提升速度反而变慢了些，这是为什么",
    "NCCL 2.20以上，8节点(32张GH200)及以上性能下降",  # real (tests/data/para37c, u18a05)
    "试过好几个插件版本，确认性能下降和插件无关。",  # real (ibid.): 无关 after the fall is not its negation
    "autox开了前台运行，性能明显下降。",  # real: kkevsekk1/AutoX#249
    "一升级网速就下降了",  # real: hzyitc/armbian-onecloud#175
    # probes: 不断 (keeps), a negation of another word before, and the plain forms
    "速度不断下降", "速度不知不觉变慢了", "受不了太慢了", "我觉得没有问题，但是推理很慢",
    "速度下降了。", "延迟增加了。",
])
def test_a_slowdown_not_denied_still_complains(text):
    assert claims.complaint(_facts(text)) is not None


def test_an_update_then_slower_still_reads():
    assert ("update_slower", False, False) in _kinds("升级驱动后推理变慢了。")  # probe


# ----------------------------------------------------------------------------- 2. 延迟 as "defer"

@pytest.mark.parametrize("text", [
    "开启延迟加载后内存占用增加了一些。",  # probe (the brief's)
    "启用延迟初始化以后显存占用增加了。", "延时启动之后功耗上升",  # probes
])
def test_a_deferred_step_is_no_latency(text):
    assert claims.complaint(_facts(text)) is None


@pytest.mark.parametrize("text", ["延迟加载之后延迟增加了", "首字延迟增加了很多", "延时明显上升"])  # probes
def test_a_latency_that_rose_still_reads(text):
    assert claims.complaint(_facts(text)) is not None


# ----------------------------------------------------------------------------- 3. a board's name after the count

@pytest.mark.parametrize("text", ["batch 4张T4", "batch 2张L4", "batch是8张H20", "batch 4张P40", "batch 2块A6000"])
def test_boards_after_the_count_are_no_batch(text):  # probes (the first the brief's)
    assert issue_md.BATCH_ONLY.search(text) is None
    assert issue_md.BATCH.search(text) is None


@pytest.mark.parametrize("text, batch", [
    ("batch size 2，4张A10", 2),  # probe (the brief's): the batch before the cards stays
    ("batch是4张图", 4), ("batch 4张1024x1024的图片", 4), ("batch_size=16卡死", 16),  # probes: images, a hang
    ("使用了16张V100显卡，batch size = 32", 32),  # real: IDEA-Research/GroundingDINO#198 (tests/test_words41.py)
])
def test_the_batch_beside_boards_still_reads(text, batch):
    assert int(issue_md.BATCH_ONLY.search(text).group(1)) == batch


def test_the_t4_cards_are_the_gpu_count():
    works = [r for r in issue_md.parse("# t\n\n用 vLLM，batch 4张T4，推理很慢。\n", "issue.md")
             if type(r).__name__ == "Workload"]
    assert any(w.gpu_count == 4 and w.gpu == "T4" for w in works)
    assert not any(w.batch for w in works)


# ----------------------------------------------------------------------------- 4. doubt

@pytest.mark.parametrize("text", [
    "I doubt it is P2P that is disabled.", "I doubt P2P is disabled.",  # probes (the brief's)
    "I doubt it is thermal throttling, the clocks stay at 1980 MHz.",  # probe
    "I am skeptical that P2P is disabled.",  # probe
])
def test_what_a_doubt_governs_is_no_suspicion(text):
    assert not any(not neg for _, _, neg in _kinds(text))


@pytest.mark.parametrize("text, claim", [
    ("I suspect P2P is disabled.", ("no_p2p", True, False)),  # probe: a suspicion stays a guess
    ("P2P is disabled, I doubt that matters.", ("no_p2p", False, False)),  # probe: the doubt's own clause only
    ("I doubted it at first, but P2P is disabled.", ("no_p2p", False, False)),  # probe
    # probes: a doubt denied affirms ("no doubt": certainly)
    ("There is no doubt P2P is disabled.", ("no_p2p", False, False)),
    ("I don't doubt that P2P is disabled.", ("no_p2p", False, False)),
    ("There is no doubt that P2P is not the issue.", ("p2p_ok", False, False)),
    ("Without a doubt the GPU is not throttling.", ("clock_power", False, True)),  # its own "not" still denies
])
def test_other_readings_beside_a_doubt(text, claim):
    assert claim in _kinds(text)


def test_a_real_doubt_about_the_cpu_gives_no_cpu_claim():
    # real (a forum post in the code corpus, find_string "I doubt it is the CPU", id 56746050517; no thread address)
    assert not _kinds("This is a pretty fast computer so I doubt it is the CPU.")


# ----------------------------------------------------------------------------- 5. a release A/B denied in Chinese

@pytest.mark.parametrize("text, compared", [
    ("NCCL 2.18.3 和 2.21.5 的 allreduce 带宽没有下降。", False),  # probe: the fall denied, no contrast
    ("NCCL 2.18.3 和 2.21.5 的 allreduce 带宽下降了。", True),  # probe
    ("NCCL 2.18.3 升级到 2.21.5 后带宽没有下降。", True),  # probe: the upgrade itself is still a change named
])
def test_a_denied_fall_between_releases_is_no_contrast(text, compared):
    assert (("nccl_versions_compared", False, False) in _kinds(text)) is compared

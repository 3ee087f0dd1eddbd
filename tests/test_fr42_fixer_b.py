"""fr42 fixes by fixer_b (probes: short tickets testing one reading, with the near-misses that keep their reading)."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def _kinds(text: str) -> set[str]:
    from rules import claims

    return {c.kind for c in claims.claims(_facts(f"# 问题\n\n{text}\n")) if not c.negated and not c.guess}


# claims update_slower (Chinese): denied only by a negation on the slowness word itself (_zh_update_denied), not by
# one elsewhere between the update and it.
@pytest.mark.parametrize("text, said", [
    # probe
    ("8张 H100，vLLM 从 0.6.3 升级到 0.7.2。升级后不同模型的吞吐都下降了，从 2400 tok/s 降到 1500 tok/s。", True),
    ("8张 H100 上跑 Qwen2-72B。升级驱动之后不知道为什么推理变慢了很多。", True),  # probe
    ("8张 H100 上跑 Qwen2-72B。升级驱动之后推理变慢了很多。", True),  # near-miss: still read
    ("升级驱动后推理没有变慢。", False),  # near-miss: denied
    ("升级之后速度并没有下降。", False),  # near-miss: denied
    ("更新后吞吐未见明显下降。", False),  # near-miss: denied
])
def test_update_slower_denied_only_on_its_word(text, said):
    assert ("update_slower" in _kinds(text)) is said


# claims._zh_denied: the negation of an A-not-A question ("是不是太慢") asks; it denies nothing.
@pytest.mark.parametrize("text, complained", [
    ("8张 H100 跑 Llama-3-70B。这样的速度是不是太慢了？", True),  # probe
    ("8张 H100 跑 Llama-3-70B。推理没有变慢。", False),  # near-miss: denied
    ("8张 H100 跑 Llama-3-70B。速度不是太慢。", False),  # near-miss: denied
    ("8张 H100 跑 Llama-3-70B。一点也不慢。", False),  # near-miss: denied
])
def test_a_not_a_question_is_no_denial(text, complained):
    from rules import claims

    assert (claims.complaint(_facts(f"# 推理速度\n\n{text}\n")) is not None) is complained


@pytest.mark.parametrize("text, denied", [
    ("是不是太慢", False), ("会不会变慢", False), ("有没有变慢", False),  # A-not-A: asked
    ("没有变慢", True), ("不会变慢", True), ("不是太慢", True), ("是不是不太慢", True),  # near-misses: denied
])
def test_zh_denied_reads_a_not_a_as_asked(text, denied):
    import re

    from rules import claims

    assert claims._zh_denied(text, re.search(r"变?慢", text)) is denied


# issue_md._NOT_CARDS: of one digit only the boards NVIDIA made are a card count after the batch; "A4" is paper.
@pytest.mark.parametrize("text, batch", [
    ("2张 L40S，batch 为 8张A4 扫描图，每个batch 要 12 秒。", 8),  # probe
    ("batch 为 8张T4", None),  # near-miss: eight T4 boards
    ("batch为4张L4", None),  # near-miss
    ("batch 为 8张A10", None),  # near-miss: two digits stay generic
    ("我的batch是8张卡", None),  # near-miss
    ("batch 为 8张图", 8),  # near-miss: images
])
def test_one_digit_board_names_are_real_boards(text, batch):
    m = issue_md.BATCH.search(text)
    assert (int(m.group(1)) if m else None) == batch


# claims._effect: an improvement only hoped for ("I expected it to be much faster") does not cancel "still slow".
@pytest.mark.parametrize("text, effect", [
    ("I added --enforce-eager but it is still slow, I expected it to be much faster.", "no_help"),  # probe
    ("I added --enforce-eager but it is still slow, it should be faster.", "no_help"),  # probe
    ("I added --enforce-eager and it improved, but the first request is still slow.", None),  # near-miss: helped
    ("I added --enforce-eager, it is faster now but still slow.", None),  # near-miss: helped in part
    ("I added --enforce-eager, still slow, but I expected little and it is faster now.", None),  # near-miss
])
def test_an_improvement_hoped_for_is_no_gain(text, effect):
    from rules import claims

    assert claims._effect(text) == effect


# claims._doubted: a doubt ends at a semicolon, "but" or another guess word; the guess after it is the reporter's.
@pytest.mark.parametrize("text, doubted", [
    ("I doubt it is the driver, maybe P2P is disabled on this box?", False),  # probe
    ("I doubt it is the driver but P2P is disabled on this box.", False),  # probe
    ("I doubt P2P is disabled on this box.", True),  # near-miss: doubted
    ("I doubt that it is the driver or P2P.", True),  # near-miss: doubted
    ("P2P is disabled, I doubt.", True),  # near-miss: doubted back over the clause
    ("I doubt it is the driver, or that P2P is disabled.", True),  # near-miss: a comma alone keeps the doubt
])
def test_a_doubt_ends_at_its_clause(text, doubted):
    from rules import claims

    assert claims._doubted(text, text.index("P2P")) is doubted


def test_the_guess_after_a_doubt_is_read():  # probe
    from rules import claims

    found = claims.claims(_facts("# slow\n\n8x H100 training. I doubt it is the driver, maybe P2P is disabled on "
                                 "this box?\n"))
    assert any(c.kind == "no_p2p" and c.guess and not c.negated for c in found)

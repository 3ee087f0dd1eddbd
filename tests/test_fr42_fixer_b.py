"""fr42 fixes by fixer_b (probes: short tickets testing one reading, with the near-misses that keep their reading)."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


# ticket_rules._tp_error: a width worked through against the quantisation group names the TP it cannot split into;
# where that is the GPU count the ticket ran on, the refusal stands though another TP size it names fits.
@pytest.mark.parametrize("text, refused", [
    # probe: TP 8 worked, 3 cards refused
    ("# vLLM 启动报错\n\n用 vLLM 跑 GPTQ-Int4 模型，tensor_parallel_size=8 没问题，换成 3 张 A100 启动就报错。\n\n"
     "intermediate_size 为 29696，除以 128 后为 232，不能被 3 整除。\n", True),
    # near-miss: TP 8 on 8 cards, the 3 is nobody's
    ("# TP=8 推理速度慢\n\n用 vLLM 在 8 张 A100 上跑 GPTQ-Int4 模型，tensor_parallel_size=8，吞吐只有 10 tokens/s，"
     "比预期慢很多。\n\nintermediate_size 为 29696，除以 128 后为 232，不能被 3 整除，但 TP=8 没问题。\n", False),
])
def test_group_split_refusal_of_the_cards_in_use_stands(text, refused):
    from conftest import judged_issue

    verdict, _ = judged_issue(text)
    assert (verdict.category == "tp_not_dividing_heads") is refused

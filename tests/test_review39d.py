"""Issue 11 (session s39, pass review39d): the reporter's own conditionals are observations, not advice. review39c made
a failure named only in the condition of advice no symptom ("if it hangs, set NCCL_P2P_DISABLE=1"); this pass keeps
the forms reporters write their reproductions and experience in (tests/data/review39d/NOTES.md lists every probe with
its verdict before and after):

1. the writer as the condition's subject ("if I unset it the run hangs", "If we enable TP=2 it hangs at init, check the
   log below"), a reproduction section ("Steps to reproduce: ... 2. if it hangs, check nvidia-smi"), a header
   ("Update: if I run ..."), a condition after a colon ("Please try TP=2: if it hangs, that is the bug"), what a hang
   costs the writer ("you have to reboot the node to get the GPUs back", "需要重启机器才能恢复"), "in case of" as "in
   the case of" with the failure said of a subject ("In case of TP=2 the server hangs") and "Just in case:" keep the
   failure (rules.hearsay.advised);
2. advice in forms review39c missed is advice: "如果卡住就设置 ..." (就 with no comma), "你需要设置 ...", and the
   setting "you need to set" / "you should restart with" orders is not in use (launch.setting_off).
"""

import pytest
from conftest import REPO, judged_issue

from diagnose.artifacts import issue_md
from diagnose.artifacts.launch import setting_off
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts
from rules import claims

DATA = REPO / "tests" / "data"
ASK_4090 = "2x RTX 4090 vLLM tp=2 decodes 25 tok/s, expected?"


def _text(body: str) -> str:
    return f"# report\n\n{body}\n"


def _symptom(body: str) -> str | None:
    facts = Facts()
    facts.add(*issue_md.parse(_text(body), "issue.md"))
    found = claims.symptom_quote(facts)
    return found[2] if found else None


# =========================================================================== 1. the reporter's conditionals

@pytest.mark.parametrize("body", [
    "Steps to reproduce: 1. launch vLLM with --tensor-parallel-size 2 on 2x RTX 4090 2. if it hangs, check nvidia-smi: "
    "both GPUs sit at 100%.",
    "复现：两张 4090 用 vLLM tp=2 启动，如果卡住，就看 nvidia-smi，两张卡都是 100%。",
    "Update: if I run with tp=2 the server hangs at the first all_reduce. 2x RTX 4090 vLLM.",
    "Set NCCL_P2P_DISABLE=1 and it works fine, but if I unset it the run hangs at init. 2x RTX 4090 vLLM tp=2.",
    "If we enable TP=2 it hangs at init, check the log below. 2x RTX 4090 vLLM.",
    "Please try TP=2 on 2 cards: if it hangs, that is the bug. 2x RTX 4090 vLLM.",
    "If it hangs, you have to reboot the whole node to get the GPUs back. 2x RTX 4090 vLLM tp=2.",
    "一旦卡住，需要重启机器才能恢复。两张 4090 跑 vLLM tp=2。",
    "In case of TP=2 the server hangs at the first all_reduce, TP=1 works. 2x RTX 4090 vLLM.",
])
def test_the_reporters_conditional_hang_is_a_hang(body):
    verdict, found = judged_issue(_text(body))
    assert _symptom(body) == "hang"
    assert "ticket.hang_on_pcie" in found
    assert verdict.category == "p2p_disabled"


def test_just_in_case_opens_a_crash_seen():
    assert _symptom("Just in case: the server crashes with an illegal memory access after 10 minutes. 2x A100 vLLM "
                    "TP=2.") == "crash"


@pytest.mark.parametrize("body", [  # near-misses: the same shapes that are advice stay advice
    f"In case of hangs, restart the pod. {ASK_4090}",
    f"In case of the server hanging, restart it. {ASK_4090}",
    f"Note: if it hangs, set NCCL_P2P_DISABLE=1. {ASK_4090}",
    f"Update: if it crashes, restart the server. {ASK_4090}",
    f"If it hangs for you too, try NCCL_P2P_DISABLE=1. {ASK_4090}",
])
def test_advice_in_the_same_shapes_is_still_no_symptom(body):
    assert _symptom(body) not in ("hang", "crash", "error")


@pytest.mark.parametrize("path", [
    "para38/t031-nccl-8xm40-allreduce-stalls/b.md",  # "If I run nccl test with 8 M40 GPUs, it is stuck at this point."
    "ut21b/vllm1801.md",  # "If I pass in `--tensor-parallel-size 2`, things just hang when trying to create the engine"
    "ut27c/awsome519.md",  # "if we use more than 4 GPUs on P5.48xlarge instances, it fails with the following error"
])
def test_real_pastes_own_conditionals_stay_failures(path):
    facts = read_bundle([DATA / path])
    assert claims.symptom_quote(facts)[2] in ("hang", "error", "crash")


# =========================================================================== 2. advice review39c missed

@pytest.mark.parametrize("body", [
    f"维护者说：如果卡住就设置 NCCL_P2P_DISABLE=1。{ASK_4090}",
    "如果卡住就重启容器。两张 4090 跑 vLLM tp=2，解码 25 tokens/s，正常吗？",
    "如果出现 hang，你需要设置 NCCL_P2P_DISABLE=1。两张 4090 跑 vLLM tp=2，解码 25 tokens/s，正常吗？",
    f"If it hangs, you need to set NCCL_P2P_DISABLE=1. {ASK_4090}",
    f"If you ever see the engine freeze, you should restart with NCCL_P2P_DISABLE=1. {ASK_4090}",
])
def test_advice_is_no_hang_and_its_setting_not_in_use(body):
    verdict, found = judged_issue(_text(body))
    assert _symptom(body) not in ("hang", "crash", "error")
    assert "topology.p2p_forced_off" not in found
    assert verdict.category != "p2p_disabled"


@pytest.mark.parametrize("line, off", [
    ("If it hangs, you need to set NCCL_P2P_DISABLE=1.", True),
    ("If it hangs, you should export NCCL_P2P_DISABLE=1.", True),
    ("If I don't set NCCL_P2P_DISABLE=1, it hangs.", True),  # not set in the failing run (OFF_BEFORE)
    ("If I set NCCL_P2P_DISABLE=1, it works.", False),
    ("If I set tp=2 it hangs, so I set NCCL_P2P_DISABLE=1 and it works.", False),
])
def test_a_setting_you_need_to_set_under_a_condition_is_not_in_use(line, off):
    at = line.index("NCCL_P2P_DISABLE=1")
    assert setting_off(line, at, at + len("NCCL_P2P_DISABLE=1")) is off

"""Issue 11 (session s39, pass review39c): words that describe no observation of the reporter's, read as one. Each test
is a probe written as reporters write (tests/data/review39c/NOTES.md lists all of them with their verdicts on main and
on this branch), beside the plain observation that must keep its reading, and the kept real pastes whose own
conditionals must stay failures:

1. a failure named only in the condition of advice ("If nvidia-smi ever says 'Unable to determine the device handle',
   reseat the card", "if it hangs, set NCCL_P2P_DISABLE=1", "如果出现卡住，就设置 ...") is no symptom and no hardware
   error (rules.hearsay.advised), and the setting the advice orders is not in use (launch.setting_off,
   hearsay.ordered);
2. "Nothing hangs." / "nothing crashed": "nothing" as the failure word's own subject (claims._NOTHING_BEFORE);
3. the board variant (rules.board_variant): one of another time ("the 40GB version of the same box we had last
   year") is not the reporter's; one stated before the question ("我们的 H100 是 PCIe 版，..., 正常吗？", "Our H100s
   are the PCIe version, is 28 tok/s expected?") or denied in Chinese ("不是 PCIe 版") is read;
4. cards told apart (claims._CARDS_CONTRASTED): "3 out of 8 GPUs", "others are at 100%"; but "the rest of the time"
   is a swing in time, not the rest of the cards.
"""

import pytest
from conftest import REPO, judged_issue

from diagnose.artifacts import issue_md
from diagnose.artifacts.launch import setting_off
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts
from rules import board_variant, claims, hearsay
from rules.subject import Subject

DATA = REPO / "tests" / "data"


def _text(body: str) -> str:
    return f"# report\n\n{body}\n"


def _facts(body: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(_text(body), "issue.md"))
    return facts


def _symptom(body: str) -> str | None:
    found = claims.symptom_quote(_facts(body))
    return found[2] if found else None


# =========================================================================== 1. advice under a condition

HANDLE = "Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error"
ASK_A100 = "Our 4x A100 vLLM TP=4 gives 12 tok/s on Llama-2-70B, expected?"
ASK_4090 = "2x RTX 4090 vLLM tp=2, Llama-2-13B decodes at 25 tok/s. Is that expected?"


@pytest.mark.parametrize("body", [
    f"If nvidia-smi ever says {HANDLE}, reseat the card. {ASK_A100}",
    f"Reseat the card if nvidia-smi says {HANDLE}. {ASK_A100}",
    f"In case you see Xid 79 in dmesg, reseat the GPU. {ASK_A100}",
    f"If you get Xid 79 (GPU has fallen off the bus), check the PSU cables. {ASK_A100}",
    "Tip from our ops team: in case of an Xid 48 (double-bit ECC), drain the node. 8x H100 vLLM TP=8 gives 30 tok/s "
    "on Llama-3-70B; expected?",
    f"如果 nvidia-smi 报 {HANDLE}，就重新插拔显卡。4 张 A100 跑 vLLM TP=4，Llama-2-70B 12 tokens/s，正常吗？",
    "万一出现 Xid 79，请重新插拔 GPU。我们 4 张 A100 跑 vLLM TP=4，Llama-2-70B 12 tokens/s，正常吗？",
    "一旦出现 Xid 79，就更换显卡。4 张 A100 跑 vLLM TP=4，Llama-2-70B 12 tokens/s，正常吗？",
])
def test_a_hardware_error_only_in_advice_is_no_fault(body):
    verdict, found = judged_issue(_text(body))
    assert "ticket.hardware_error" not in found
    assert verdict.category != "hardware_fault"


@pytest.mark.parametrize("body", [
    f"4x A100 vLLM TP=4: nvidia-smi says '{HANDLE}'. Reseating the card did not help.",
    f"4x A100 TP=4: if I run longer than an hour nvidia-smi says {HANDLE}, please help.",
    "4x A100, vLLM TP=4: we got Xid 79 (GPU has fallen off the bus) twice today. If it happens again, we will reseat "
    "the card.",
    "Xid 79 appears in dmesg after an hour of vLLM TP=4 on 4x A100; if I reseat the card it comes back after a day.",
])
def test_a_hardware_error_seen_is_still_a_fault(body):
    verdict, found = judged_issue(_text(body))
    assert "ticket.hardware_error" in found
    assert verdict.category == "hardware_fault"


@pytest.mark.parametrize("body", [
    f"The README says: if it hangs, set NCCL_P2P_DISABLE=1. {ASK_4090}",
    f"Should the run stall, kill it and restart with NCCL_P2P_DISABLE=1. {ASK_4090}",
    f"Set NCCL_P2P_DISABLE=1 if it hangs, the docs say. {ASK_4090}",
    f"Our runbook: if the job ever freezes at NCCL init, reboot the node. {ASK_4090}",
    f"Please restart the server if it crashes. {ASK_4090}",
    f"In case it hangs I added a 10 minute timeout. {ASK_4090}",
    "如果出现卡住，就设置 NCCL_P2P_DISABLE=1。两张 4090 跑 vLLM tp=2，Llama-2-13B 解码 25 tokens/s，正常吗？",
    "万一卡死，请先 kill 掉进程再重启。两张 4090 跑 vLLM tp=2，解码 25 tokens/s，正常吗？",
    "要是卡死了，就重启容器。两张 4090 跑 vLLM tp=2，解码 25 tokens/s，正常吗？",
])
def test_a_failure_only_in_advice_is_no_symptom_and_its_setting_not_in_use(body):
    verdict, found = judged_issue(_text(body))
    assert _symptom(body) not in ("hang", "crash", "error")
    assert "ticket.hang_on_pcie" not in found
    assert "topology.p2p_forced_off" not in found
    assert verdict.category not in ("p2p_disabled", "shm_fallback")


@pytest.mark.parametrize("body", [
    "If I run with TP=2 it hangs at the first all_reduce; TP=1 works. 2x RTX 4090, vLLM.",
    "When it hangs, nvidia-smi shows 100% on both GPUs. 2x RTX 4090 vLLM tp=2.",
    "2x RTX 4090 vLLM tp=2: if the batch is larger than 8 it hangs, so please check the NCCL path.",
    "2x RTX 4090 vLLM tp=2: the model loads, but if I send more than 8 requests at once, it hangs; restart it and it "
    "works again.",
    "If I use both GPUs the server freezes after loading. Please help. 2x RTX 4090, vLLM tp=2.",
    "两张 4090 跑 vLLM，如果用 tp=2 就卡住，tp=1 没问题。",
    "两张 4090 跑 vLLM tp=2，只要一开 tp=2 就卡住，请问怎么办？",
])
def test_the_reporters_own_conditional_hang_stays_a_hang(body):
    assert _symptom(body) == "hang"


@pytest.mark.parametrize("path", [
    "para38/t031-nccl-8xm40-allreduce-stalls/b.md",  # "If I run nccl test with 8 M40 GPUs, it is stuck at this point."
    "issues/vllm-1801-driver-545-tp2-hang-at-engine-creation.md",  # "If I pass in --tensor-parallel-size 2, ... hang"
])
def test_real_pastes_conditional_hang_stays_a_hang(path):
    facts = read_bundle([DATA / path])
    assert claims.symptom_quote(facts)[2] == "hang"


def test_the_reporters_own_setting_that_fixes_is_still_read():
    verdict, found = judged_issue(_text("If I set NCCL_P2P_DISABLE=1, it works. Without it vLLM tp=2 hangs on 2x RTX "
                                        "4090."))
    assert "topology.p2p_forced_off" in found
    assert verdict.category == "p2p_disabled"


@pytest.mark.parametrize("line, ordered", [
    ("The README says: if it hangs, set NCCL_P2P_DISABLE=1.", True),
    ("Should the run stall, kill it and restart with NCCL_P2P_DISABLE=1.", True),
    ("Set NCCL_P2P_DISABLE=1 if it hangs.", True),
    ("如果出现卡住，就设置 NCCL_P2P_DISABLE=1。", True),
    ("If I set NCCL_P2P_DISABLE=1, it works.", False),
    ("We run with NCCL_P2P_DISABLE=1 and it is slow.", False),
    ("If it hangs, I restart with NCCL_P2P_DISABLE=1 and it works.", False),
])
def test_a_setting_ordered_under_a_condition(line, ordered):
    at = line.index("NCCL_P2P_DISABLE")
    assert setting_off(line, at, at + len("NCCL_P2P_DISABLE=1")) == ordered
    assert hearsay.ordered(line, at) == ordered


# =========================================================================== 2. "nothing"

@pytest.mark.parametrize("said", ["Nothing hangs.", "Nothing hangs or crashes.", "Nothing hung, nothing crashed.",
                                  "Nothing has ever crashed or hung.", "Nothing errors out, nothing stalls."])
def test_nothing_as_the_failures_subject_denies_it(said):
    assert _symptom(f"2x RTX 4090 vLLM tp=2: decode 20 tok/s vs 35 on one GPU. {said}") not in ("hang", "crash",
                                                                                               "error")


@pytest.mark.parametrize("body", [
    "Nothing happens, it just hangs after loading. 2x RTX 4090 vLLM tp=2.",
    "2x RTX 4090 vLLM tp=2: after loading nothing happens, it hangs at the first all_reduce.",
    "2x RTX 4090 vLLM tp=2: nothing happens and it hangs at the first all_reduce.",
    "2x RTX 4090 vLLM tp=2: nothing is printed and the server hangs.",
    "2x RTX 4090 vLLM tp=2: nothing in the logs, the process just freezes.",
    "2x RTX 4090 vLLM tp=2 hangs at init and nothing helps.",
])
def test_nothing_elsewhere_leaves_the_hang(body):
    assert _symptom(body) == "hang"


# =========================================================================== 3. the board variant

@pytest.mark.parametrize("body", [
    "8x A100, vLLM Llama-2-70B TP=8, 25 tok/s. The 40GB version of the same box we had last year gave 24 tok/s.",
    "8x A100 SXM4 80GB, vLLM Llama-2-70B TP=8, 25 tok/s. The 40GB version of the same box gave 24 tok/s last year.",
    "4x A100, vLLM Llama-2-70B TP=4, 18 tok/s decode. We previously ran the 40GB version. Is 18 expected?",
    "2x H100, vLLM Llama-3-70B TP=2 decode 28 tok/s. Last year we used the PCIe version in the cloud. Expected?",
])
def test_a_board_of_another_time_is_not_the_reporters(body):
    assert board_variant.said(_facts(body)) == {}


@pytest.mark.parametrize("body, product, form, size", [
    ("Our H100s are the PCIe version (we bought them last year). vLLM Llama-3-70B TP=2 decode 28 tok/s, expected?",
     "h100", "pcie", None),
    ("4x A100 (the 40GB version), vLLM Llama-2-70B TP=4, decode 18 tok/s. We bought them last year.", "a100", None,
     40.0),
    ("我们的 H100 是 PCIe 版，vLLM 跑 Llama-3-70B tp=2，解码 28 tokens/s，正常吗？", "h100", "pcie", None),
    ("我们的 A100 是 40G 版本，vLLM 跑 Llama-2-70B tp=4，解码 18 tokens/s，正常吗？", "a100", None, 40.0),
    ("Our H100s are the PCIe version, is 28 tok/s for Llama-3-70B TP=2 with vLLM expected?", "h100", "pcie", None),
])
def test_the_reporters_variant_is_read(body, product, form, size):
    variant = board_variant.said(_facts(body))[product]
    assert (variant.form, variant.memory_gb) == (form, size)


@pytest.mark.parametrize("body", [
    "我们的 H100 不是 PCIe 版，vLLM 跑 Llama-3-70B tp=2，解码 28 tokens/s，正常吗？",
    "vLLM Llama-3-70B TP=2 on 2x H100 gives 28 tok/s, are these the PCIe version?",
    "H100 是 PCIe 版还是 SXM 版？vLLM 跑 Llama-3-70B tp=2，解码 28 tokens/s。",
])
def test_a_variant_denied_or_asked_is_not_read(body):
    assert board_variant.said(_facts(body)) == {}
    assert Subject.of(_facts(body)).gpu.key == "h100-sxm"


# =========================================================================== 4. cards told apart, or a swing in time

def test_three_out_of_eight_cards_idle_is_no_swing():
    verdict, found = judged_issue(_text("vLLM tp=8 on 8x A100: 3 out of 8 GPUs show 0% utilization, others are at "
                                        "100%. Decode is 5 tok/s."))
    assert "ticket.input_starved" not in found
    assert verdict.category not in ("host_bound", "expected_physics", "healthy")


@pytest.mark.parametrize("body", [
    "vLLM tp=2 on 2x A100: GPU utilization is 100% for a second, then 0% the rest of the time. Decode is 20 tok/s, why "
    "so slow?",
    "vLLM tp=2 on 2x A100: GPU utilization sits at 0% for half the time and at 100% the rest. Decode is 20 tok/s, why "
    "so slow?",
])
def test_the_rest_of_the_time_is_a_swing(body):
    verdict, _ = judged_issue(_text(body))
    assert verdict.category == "host_bound"


def test_cards_told_apart_words():
    assert claims.cards_split_busy_idle("3 out of 8 GPUs show 0% utilization, others are at 100%.")
    assert claims.cards_split_busy_idle("GPU 0 is at 100% while the rest of the GPUs sit at 0%")
    assert not claims.cards_split_busy_idle("GPU utilization is 100% for a second, then 0% the rest of the time")
    assert not claims.cards_split_busy_idle("0% for half the time and at 100% the rest.")

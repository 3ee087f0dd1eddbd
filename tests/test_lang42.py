"""Issue 11 (session s42, pass lang42): real tickets not written in English or Chinese.

The first posts kept in tests/data/lang42 (sources, settled answers and blind verdicts in its SOURCES.md) are two
Korean write-ups of multi-GPU trouble; both were blind insufficient_data with the words that class them unread:
- GPU peer-to-peer refused, in Korean and in `nvidia-smi topo -p2p`'s own gloss: "P2P를 지원하지 않는" ("does not
  support P2P", as the English no_p2p reading "doesn't support ... P2P"), "NS (Not Supported)" (the legend's
  "NS = Not supported") — claims "no_p2p" (MORE_WORDS_L42);
- the timeout in Korean and Japanese, the loanwords 타임아웃 / タイムアウト of the "timeout" the hang symptom reads
  (claims._HANG_KO_JA).
Each reading is tested on real sentences it was not written from (cited) and on negations, hearsay, guesses,
conditions, settings and near-misses (probes, marked as such) that must not fire.
"""

from pathlib import Path

from conftest import said
from test_bydesign31 import answer

from rules import claims

DATA = Path(__file__).parent / "data" / "lang42"
TITLE = "# 멀티 GPU 학습 문제\n\n"


def rules_of(findings) -> set[str]:
    return {f.rule for f in findings}


def no_p2p(text: str) -> bool:
    return any(c.kind == "no_p2p" and not c.guess for c in claims.claims(said(TITLE + text)))


def hang(text: str) -> bool:
    return claims.symptom(said(TITLE + text)) == "hang"


# ----------------------------------------------------------------------------------------------- real first posts
def test_p2p_not_supported_in_korean_is_p2p_refused():
    """9566.tistory.com/567: two GPUs, `nvidia-smi topo -p2p a` gives "GPU0 ↔ GPU1 : NS (Not Supported)", "두 GPU가
    서로 직접 접근(P2P, peer-to-peer)을 지원하지 않는 구조", DataParallel inefficient and even hanging; the writer
    settles it as the board's PCIe topology refusing P2P and moves to DDP. Blind: insufficient_data, nothing read."""
    verdict, findings = answer(DATA / "dp_p2p_ns_ko.md")
    assert verdict.category == "p2p_disabled"
    assert "ticket.p2p_refused" in rules_of(findings)


def test_korean_allreduce_timeout_on_two_gpus_is_the_pcie_hang_lead():
    """9566.tistory.com/568: DDP on two RTX PRO 6000 Blackwell in one Kubernetes pod, "NCCL ALLREDUCE 타임아웃이
    발생하면서 학습이 죽어버리는" with the watchdog's ALLREDUCE timeout; settled by NCCL_P2P_DISABLE=1 (and
    NCCL_IB_DISABLE=1). Blind: insufficient_data (the Korean timeout unread, so no hang); the same post in English was
    already the PCIe-hang lead."""
    verdict, findings = answer(DATA / "k8s_ddp_allreduce_ko.md")
    assert verdict.category == "p2p_disabled"
    assert "ticket.hang_on_pcie" in rules_of(findings)


# ----------------------------------------------------------------------------------------------- no_p2p in Korean
def test_korean_p2p_refusal_reads():
    # probes: stated forms, of the reporter's own machine
    assert no_p2p("이 서버의 GPU 두 장은 P2P를 지원하지 않습니다.")
    assert no_p2p("메인보드 때문에 P2P가 지원되지 않아 NCCL이 SHM으로 동작합니다.")
    assert no_p2p("확인해 보니 GPU 간 P2P 지원이 안 됨.")
    # the legend's gloss of a topo -p2p cell, said in prose (probe)
    assert no_p2p("nvidia-smi topo -p2p r 결과: GPU0 - GPU1 : NS (Not Supported)")


def test_korean_p2p_conditions_and_questions_do_not_read():
    # real sentences of Korean write-ups: a condition and possibilities, no machine's refusal
    assert not no_p2p("두 GPU 사이에 NVLink가 없고 PCIe 토폴로지가 P2P를 지원하지 않으면, NCCL은 SHM으로 폴백합니다.")
    assert not no_p2p("거리가 멀수록 latency와 contention이 증가하고, 일부 system은 P2P를 지원하지 않거나 ACS/IOMMU "
                      "설정으로 redirect될 수 있다.")
    assert not no_p2p("하지만 일부 low-end data center GPU는 위 L4 예처럼 P2P를 지원하지 않을 수 있다.")
    # probes: a question, hearsay, a guess, support stated
    assert not no_p2p("RTX 4090이 P2P를 지원하지 않는지 어떻게 확인하나요?")
    assert not no_p2p("4090은 P2P를 지원하지 않는다고 들었습니다.")
    assert not no_p2p("아마 P2P를 지원하지 않는 것 같습니다.")
    assert not no_p2p("두 GPU 모두 P2P를 지원합니다.")
    # the legend line itself is no observation (probe)
    assert not no_p2p("NS = Not supported")


# ----------------------------------------------------------------------------------------------- timeouts
def test_korean_and_japanese_timeouts_read_as_hang():
    # real sentences from Korean and Japanese training READMEs and notes, not the paste the reading was written from
    assert hang("2. **멀티 GPU NCCL 타임아웃** - 이 환경에서는 불안정")
    assert hang("NCCL watchdogタイムアウト（rank0が10分停止）が1回発生 → dmesg Xidなし")
    # probes
    assert hang("4장으로 학습하면 30분쯤 뒤에 NCCL 타임아웃이 발생합니다.")
    assert hang("8GPUで学習すると途中でNCCLのタイムアウトが発生しました。")


def test_timeout_settings_denials_and_conditions_are_no_hang():
    # real sentences: the timeout as a setting or a remedy
    assert not hang("1. NCCL 타임아웃 값 증가\n2. 네트워크 대역폭 확인")
    assert not hang("チェックポイント保存時のLoRAマージをスキップし、NCCLタイムアウトを回避します。")
    assert not hang("DDP最適化: broadcast_buffers=false、NCCLタイムアウト7200秒")
    assert not hang("NFS I/Oが重い場合にタイムアウトする可能性がある。")
    # probes: denied, heard, guessed, under a condition, raised as a setting
    assert not hang("이번에는 타임아웃이 발생하지 않았습니다. 다만 속도가 느립니다.")
    assert not hang("타임아웃이 발생하면 NCCL_P2P_DISABLE=1을 설정해 보세요.")
    assert not hang("멀티 GPU에서는 타임아웃이 난다고 들었어요.")
    assert not hang("タイムアウトを延長したら学習は最後まで進みました。")
    assert not hang("今回はタイムアウトは発生しなかった。")

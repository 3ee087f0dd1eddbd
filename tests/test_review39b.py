"""Issue 11 (session s39, pass review39b): precision probes of the readings merged this session (variant39, review39,
fault39, dup39). Each test is a probe written as reporters write (tests/data/review39b/NOTES.md lists all 80 with their
verdicts on main and on this branch), beside the plain case that must keep its answer:

1. the board variant (rules.board_variant): a variant only supposed ("if these were the PCIe version") or another
   person's board is no variant of the reporter's; "PCIe" or an NVLink bridge in a text that names the H100 NVL is
   that board, not the H100 PCIe;
2. own_code_hang (claims._OWN_WAIT_ELSEWHERE): the reporter's threads waiting on a stuck collective, or hanging along
   with the job, keep the P2P hang lead;
3. a process that "can't be killed cleanly" is a shutdown that SIGKILL ends, no hang (claims SYMPTOMS "hang");
4. a quoted hardware error a remedy cured, or another person's, is no failing GPU now (claims._first, hardware_error);
5. the NCCL release bound to NCCL's name a few words on ("NCCL is 2.18.1", "NCCL版本 2.18.1") and
   torch.cuda.nccl.version()'s tuple or integer (rules.nccl._named_as_nccls, _nccl_call_values).
"""

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import board_variant, nccl
from rules.subject import Subject


def _judged(body: str):
    return judged_issue(f"# report\n\n{body}\n")


def _facts(body: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(f"# report\n\n{body}\n", "issue.md"))
    return facts


# =========================================================================== 1. the board variant

@pytest.mark.parametrize("body", [
    "If these were the PCIe version, 28 tok/s would be fine. Llama-3-70B TP=2 on 2x H100 gives 28 tok/s with vLLM.",
    "Someone on the forum said their H100s are the PCIe version and get 28 tok/s. Ours: 2x H100 with vLLM "
    "Llama-3-70B TP=2, 20 tok/s decode. Is that expected?",
])
def test_a_supposed_or_anothers_variant_is_not_the_reporters(body):
    assert board_variant.said(_facts(body)) == {}


@pytest.mark.parametrize("body, form", [
    ("vLLM 0.6.3, Llama-3-70B, TP=2 on 2x H100. Our H100s are PCIe cards, not SXM. Decode is 28 tok/s per request.",
     "pcie"),
    ("vLLM 0.6.3, Llama-3-70B, TP=2 on 2x H100. They are not PCIe cards, they are SXM. Decode is 28 tok/s.", "sxm"),
    ("8 H100 GPUs, vLLM Llama-3-70B TP=8 gives 30 tok/s. We compared with the SXM numbers in the blog, which show "
     "60. Ours are the PCIe version.", "pcie"),
])
def test_the_reporters_own_variant_is_still_read(body, form):
    assert board_variant.said(_facts(body))["h100"].form == form


@pytest.mark.parametrize("body", [
    "vLLM Llama-3-70B TP=2 on 2x H100, decode 35 tok/s. The two cards are joined by an NVLink bridge (these are H100 "
    "NVL). Is this normal?",
    "vLLM Llama-3-70B TP=2 on 2x H100 NVL, decode 35 tok/s. The two cards are joined by an NVLink bridge.",
])
def test_a_bridge_beside_the_h100_nvl_is_that_board(body):
    assert Subject.of(_facts(body)).gpu.key == "h100-nvl"


# =========================================================================== 2. own code, or waiting on a collective

@pytest.mark.parametrize("body", [
    "2x RTX 4090, vLLM tp=2 hangs at the first all_reduce. NCCL_P2P_DISABLE=1 fixes it. My threads hang too while "
    "they wait on the result.",
    "vLLM tp=2 on 2x RTX 4090: the whole server hangs after loading, py-spy shows my worker threads waiting in "
    "all_reduce. With NCCL_P2P_DISABLE=1 it works.",
    "我们两张 4090，vLLM tp=2，一到 all_reduce 就卡住，我的线程也跟着卡死了。设置 NCCL_P2P_DISABLE=1 就好了。",
    "2x A6000, torchrun with 2 processes, my own training loop: dist.all_reduce hangs forever on the first step. My "
    "queue of batches is fine; the hang is in NCCL.",
])
def test_threads_waiting_on_a_collective_keep_the_p2p_lead(body):
    verdict, found = _judged(body)
    assert found["ticket.hang_on_pcie"].confidence == 0.5
    assert verdict.category == "p2p_disabled"


def test_an_own_lock_deadlock_still_lowers_the_lead():
    verdict, found = _judged("2x RTX 4090, vLLM tp=2: my worker threads deadlock on a threading.Lock I hold while "
                             "calling llm.generate().")
    assert found["ticket.hang_on_pcie"].confidence == 0.25


# =========================================================================== 3. killed, not cleanly

@pytest.mark.parametrize("body", [
    "vLLM tp=2 on 2x RTX 4090 runs fine at 40 tok/s. When I stop it with Ctrl-C the worker can't be killed cleanly "
    "and leaves a zombie, so I use kill -9.",
    "2x A100, vLLM TP=2 serving at 30 tok/s; when I restart it the old processes cannot be killed gracefully so we "
    "use pkill -9. Is 30 tok/s expected for Llama-2-13B?",
])
def test_a_shutdown_that_is_not_clean_is_no_hang(body):
    verdict, found = _judged(body)
    assert "ticket.hang_on_pcie" not in found
    assert verdict.category != "p2p_disabled"


def test_a_process_not_killable_even_by_sigkill_is_a_hang():
    verdict, found = _judged("2x RTX 4090, vLLM tp=2 freezes after loading and the process cannot be killed, even "
                             "with kill -9. Only a reboot helps.")
    assert found["ticket.hang_on_pcie"].confidence == 0.5


# =========================================================================== 4. a hardware error cured or another's

@pytest.mark.parametrize("body", [
    "nvidia-smi printed `Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error` last week but "
    "reseating the card fixed it. Now 4x A100 vLLM TP=4 gives 12 tok/s on Llama-2-70B, expected?",
    "In #1234 someone got `Unable to determine the device handle for GPU 0000:0B:00.0: Unknown Error`. We never saw "
    "that. 4x A100 vLLM TP=4 Llama-2-70B gives 12 tok/s, expected?",
    "The driver logged Xid 79 (GPU has fallen off the bus) last week but reseating the card fixed it. Now 4x A100 "
    "vLLM TP=4 gives 12 tok/s on Llama-2-70B, expected?",
])
def test_a_cured_or_anothers_hardware_error_is_no_fault_now(body):
    verdict, found = _judged(body)
    assert "ticket.hardware_error" not in found
    assert verdict.category != "hardware_fault"


@pytest.mark.parametrize("body", [
    "After a few hours of vLLM TP=4 on 4x A100, nvidia-smi prints `Unable to determine the device handle for GPU "
    "0000:0B:00.0: Unknown Error` and the server hangs.",
    "nvidia-smi: Unable to determine the device handle for GPU0000:3B:00.0: Unknown Error. 8卡 A100 训练跑着跑着挂了。",
])
def test_a_present_hardware_error_is_still_a_fault(body):
    verdict, found = _judged(body)
    assert verdict.category == "hardware_fault"


# =========================================================================== 5. NCCL's release as people write it

@pytest.mark.parametrize("line", [
    "NCCL version 2.18.1+cuda12.1.",
    "torch.cuda.nccl.version() returns (2, 18, 1).",
    "print(torch.cuda.nccl.version()) -> (2, 18, 1)",
    "nccl_version=21801",
    "dpkg shows libnccl2 2.18.1-1+cuda12.2.",
    "pip list: nvidia-nccl-cu12==2.18.1",
    "NCCL is 2.18.1.",
    "The NCCL version we use is 2.18.1.",
    "NCCL版本 2.18.1",
    "Using NCCL (2.18.1) from the pip wheel.",
    "We upgraded NCCL to 2.18.1 and it still hangs.",
])
def test_nccl_release_as_printed_or_said_is_read(line):
    facts = _facts(f"8x H100, vLLM TP=8 hangs at init. {line}")
    assert nccl._nccl_in_use(facts)[0] == "2.18.1"


@pytest.mark.parametrize("text, version", [
    ("NCCL-tests 2.13.9 built from source", "2.13.9"),
    ("works with 1.6 and 0.7.0 - the CUDA and NCCL version bundled with torch", "1.6"),
])
def test_a_number_not_after_nccls_name_is_not_nccls(text, version):
    assert nccl._named_as_nccls(text, version) is False

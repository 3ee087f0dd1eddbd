"""A remedy tried without effect rules its cause out (issue 11, pass tried39).

"I set NCCL_P2P_DISABLE=1 and it still hangs" tells an expert that the P2P path is not what fails: the workaround for a
broken path changed nothing. The setting claim's effect "no_help" carries that reading; the cause rules of the path the
setting switches off (claims.PATH_SETTINGS) step back. Real sentences come from kept pastes under tests/data and from
public threads (cited beside each); the rest are probes in the brief's forms, with negations and near-misses.
"""

import pytest
from conftest import report_json, said

from rules import claims

HANG = "Our job hangs at the first all-reduce on 4 GPUs. "


def effects(text: str) -> list[tuple[str, str | None]]:
    """(name, effect) of every setting the reporter's text names."""
    return [(c.data["name"], c.data["effect"]) for c in claims.find(said(text), "setting")]


# Tried, and the failure stayed: real sentences (source after each).
REAL_NO_HELP = [
    # tests/data/dup39/rayipc_1.md: the file name's dot inside the sentence no longer cuts it
    ("Starting the Python training script using `NCCL_IB_DISABLE=1 python tune.py` does not help.", "NCCL_IB_DISABLE"),
    ("i had try 2.7.6 setting NCCL_MAX_NCHANNELS=2 , it take **no effects.**", "NCCL_MAX_NCHANNELS"),  # ut21a/nccl378
    ("NVIDIA_VISIBLE_DEVICES=0 prefix did not work for me.", "NVIDIA_VISIBLE_DEVICES"),  # ut26a/parlai2844
    # NVIDIA/nccl-tests#15 (a comment; the interface its log names)
    ("I export the `NCCL_SOCKET_IFNAME=eth0`, but it still time out:", "NCCL_SOCKET_IFNAME"),
    # public notes and a launcher script found with find_string: the failure before "even with"
    ("NCCL all-gather busy-waits at 100% GPU forever after generation, even with NCCL_P2P_DISABLE=1.",
     "NCCL_P2P_DISABLE"),
    ('NCCL throws "CUDA illegal memory access" in the first cross-GPU broadcast even with NCCL_P2P_DISABLE=1 '
     "(Blackwell + this torch/NCCL).", "NCCL_P2P_DISABLE"),
]

# Tried, and it helped: real sentences (a fix, never "no_help").
REAL_HELPED = [
    ("After trying things, it works with NCCL_P2P_DISABLE =1.", "NCCL_P2P_DISABLE"),  # para37b/n021
    ("NCCL_P2P_DISABLE=1 works around it, but speed is very low.", "NCCL_P2P_DISABLE"),  # para38b/n022
    ("Running with NCCL_IB_DISABLE=1 works successfully but the throughput is terrible.", "NCCL_IB_DISABLE"),  # ut16
    ("Setting NCCL_NVLS_ENABLE=0 disables NVLS and falls back to standard NVLink communication which works correctly.",
     "NCCL_NVLS_ENABLE"),  # ut28e/ao3841
    ("I finally found the same issue with me in https://github.com/pytorch/pytorch/issues/73206 and solved it by "
     "setting environment variable `NCCL_P2P_LEVEL=NVL` before `torchrun`:", "NCCL_P2P_LEVEL"),  # fault39
    ("Setting `NCCL_P2P_DISABLE=1` did indeed resolve the problem.", "NCCL_P2P_DISABLE"),  # pytorch-lightning#19425
    ("Thanks, setting NCCL_P2P_DISABLE=1 solved a similar issue I was having with RTX A5000s.",
     "NCCL_P2P_DISABLE"),  # pytorch/pytorch#24081
    ("The training works after turning off the GPU P2P communication with `export NCCL_P2P_DISABLE=1`.",
     "NCCL_P2P_DISABLE"),  # huggingface/transformers#28280
    ("When I add `NCCL_CUMEM_HOST_ENABLE=0`, the test can pass", "NCCL_CUMEM_HOST_ENABLE"),  # NVIDIA/nccl#1838
    ("The script runs without any errors when i set export NCCL_NVLS_ENABLE=0", "NCCL_NVLS_ENABLE"),  # NVIDIA/nccl#1769
]

# The brief's forms, English and Chinese.
PROBE_NO_HELP = [
    "I set NCCL_P2P_DISABLE=1 and it still hangs.",
    "Even with NCCL_P2P_DISABLE=1 it hangs the same way.",
    "The maintainer said: if it hangs, set NCCL_P2P_DISABLE=1. I did and it still hangs.",
    "Someone suggested NCCL_P2P_DISABLE=1. Tried that, same hang.",
    "NCCL_P2P_DISABLE=1 didn't help.",
    "NCCL_P2P_DISABLE=1 made no difference.",
    "Setting NCCL_P2P_DISABLE=1 it hangs again.",
    "The same hang with NCCL_P2P_DISABLE=1.",
    "It hangs even after setting NCCL_P2P_DISABLE=1.",
    "设置了 NCCL_P2P_DISABLE=1 还是卡住。",
    "加了 NCCL_P2P_DISABLE=1 也没用。",
    "设置 NCCL_P2P_DISABLE=1 后依然报错。",
]

# Helped, changed the symptom, only planned or asked, or praise: never "no_help".
PROBE_NOT_NO_HELP = [
    "With NCCL_P2P_DISABLE=1 it works.",
    "With NCCL_P2P_DISABLE=1 it no longer hangs but is slow.",  # the symptom changed: a fix of the hang
    "With NCCL_P2P_DISABLE=1 it never hangs again.",
    "设置 NCCL_P2P_DISABLE=1 就好了。",
    "Should I try NCCL_P2P_DISABLE=1?",
    "I will try NCCL_P2P_DISABLE=1 tomorrow.",
    "If it hangs, set NCCL_P2P_DISABLE=1. I did not try it yet.",
    "Even with NCCL_P2P_DISABLE=1 the run is fast enough for us.",
    "NCCL_P2P_DISABLE=1 gives an 无效的参数 error.",
]


@pytest.mark.parametrize("sentence,name", REAL_NO_HELP)
def test_real_remedy_without_effect_is_read(sentence, name):
    assert (name, "no_help") in effects(HANG + sentence)


@pytest.mark.parametrize("sentence,name", REAL_HELPED)
def test_real_remedy_that_helped_is_a_fix(sentence, name):
    assert (name, "fixes") in effects(HANG + sentence)


@pytest.mark.parametrize("sentence", PROBE_NO_HELP)
def test_tried_without_effect_forms(sentence):
    assert effects(HANG + sentence) == [("NCCL_P2P_DISABLE", "no_help")]
    assert claims.tried_without_effect(said(HANG + sentence), "p2p")


@pytest.mark.parametrize("sentence", PROBE_NOT_NO_HELP)
def test_helped_planned_or_changed_is_not_without_effect(sentence):
    assert not claims.tried_without_effect(said(HANG + sentence), "p2p")


def test_planned_after_a_suggestion_is_not_without_effect():
    # a real comment's plan (vllm-project/vllm#14449, one line) and a maintainer's test to run
    # (Lightning-AI/pytorch-lightning#19425): asked for, not done
    for text in ("I'll try to prepend NCCL_P2P_DISABLE=1 next.",
                 "To confirm this, set `NCCL_P2P_DISABLE=1`. If it works, it will be super slow but it confirms "
                 "that P2P is bad."):
        assert not claims.tried_without_effect(said(HANG + text), "p2p")


def _verdict(tmp_path, body: str) -> dict:
    path = tmp_path / "issue.md"
    path.write_text(body)
    return report_json("ticket", str(path))


RTX_HANG = ("# vLLM hangs with tensor parallel on 2x RTX 4090\n\nI run vllm serve with --tensor-parallel-size 2 on two "
            "RTX 4090 cards. It hangs at startup during the first all-reduce. ")


@pytest.mark.parametrize("said_after", [
    "Even with NCCL_P2P_DISABLE=1 it hangs the same way.",
    "The maintainer said: if it hangs, set NCCL_P2P_DISABLE=1. I did and it still hangs.",
    "I set NCCL_P2P_DISABLE=1 and it still hangs.",
])
def test_p2p_lead_steps_back_when_p2p_off_did_not_cure_the_hang(tmp_path, said_after):
    assert _verdict(tmp_path, RTX_HANG + said_after)["verdict"]["category"] == "insufficient_data"


def test_p2p_off_that_cured_the_hang_stays_the_answer(tmp_path):
    assert _verdict(tmp_path, RTX_HANG + "With NCCL_P2P_DISABLE=1 it works.")["verdict"]["category"] == "p2p_disabled"


def test_acs_redirect_steps_back_when_p2p_off_did_not_help(tmp_path):
    body = ("# NCCL all_reduce hangs on 4x RTX 3090 behind a PLX switch\n\nall_reduce_perf with -g 4 hangs forever at "
            "the first size. ACS is enabled on the PLX bridges (lspci shows ACSCtl SrcValid+ ReqRedir+). ")
    before = _verdict(tmp_path, body)["verdict"]["category"]
    after = _verdict(tmp_path, body + "Even with NCCL_P2P_DISABLE=1 it hangs the same way.")["verdict"]["category"]
    assert (before, after) == ("p2p_disabled", "insufficient_data")


def test_shm_lead_steps_back_when_shm_off_did_not_help(tmp_path):
    body = ("# vLLM TP=2 hangs in docker\n\nvllm serve with --tensor-parallel-size 2 inside docker hangs during "
            "startup, NCCL reports unhandled system error. ")
    before = _verdict(tmp_path, body)["verdict"]["category"]
    after = _verdict(tmp_path, body + "I set NCCL_SHM_DISABLE=1 and it still hangs.")["verdict"]["category"]
    assert (before, after) == ("shm_too_small", "insufficient_data")

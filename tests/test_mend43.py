"""Several GPUs said in forms the tool did not count (issue 11, mend43).

mend42 left two tickets where a WSL 2 job on two GPUs was not seen as one: zai-org/CogVLM#56 ("Hardware: two 4090
GPU": a count, a board, then GPU in the singular) and pytorch/pytorch#111187 (DDP whose NCCL lines are headed by
devices [0] and [1]). claims.several_gpus now reads a count before a board's name and a singular GPU or card (or the
count after it, "A100 80GB GPU x 4"), not GPU hours, types or nodes; nccl_log records how many devices the lines'
heads name, and topology's multi-GPU test reads that, a ring of two ranks or a communicator of several. Real threads,
none used before but mend42's two (SOURCES.md)."""

from pathlib import Path

import pytest
import tomllib
from conftest import judged_issue, said

from diagnose.artifacts import nccl_log
from diagnose.evidence import Facts, NcclEvent
from rules import claims, topology

DATA = Path(__file__).parent / "data" / "mend43"
CASES = tomllib.loads((DATA / "cases.toml").read_text())
SENTENCES, NCCL = CASES["sentence"], CASES["nccl"]


def _id(case: dict) -> str:
    return case["url"].split("github.com/")[1].replace("/issues/", "#") + ":" + case["text"][:24]


@pytest.mark.parametrize("case", SENTENCES, ids=_id)
def test_a_count_before_a_board_and_a_singular_gpu_is_several_gpus_and_gpu_hours_are_not(case):
    assert claims.several_gpus(said(case["text"])) is case["several"]


def _parsed(text: str) -> Facts:
    facts = Facts()
    facts.add(*nccl_log.parse(text, "nccl.log"))
    return facts


@pytest.mark.parametrize("case", NCCL, ids=_id)
def test_nccl_lines_headed_by_several_devices_count_them_and_one_process_lines_do_not(case):
    facts = _parsed(case["text"])
    counted = [e.data["devices"] for e in facts.of(NcclEvent) if e.kind == "devices"]
    assert counted == ([case["devices"]] if case["devices"] else [])
    assert topology._nccl_several(facts) is case["several"]


def test_a_ring_of_two_ranks_is_several_gpus_whatever_the_heads_say():
    """Each rank may see only its own GPU as device 0 (CUDA_VISIBLE_DEVICES per rank): the ring still names two
    ranks. (NCCL's "Channel 00/02 :    0   1" line, as NVIDIA/nccl#1066 prints it; that thread is n037's ticket, so
    only the one line is quoted here.)"""
    facts = _parsed("gcn6:1080060:1080354 [0] NCCL INFO Channel 00/02 :    0   1")
    assert topology._nccl_several(facts)
    assert not topology._nccl_several(_parsed("gcn6:1080060:1080354 [0] NCCL INFO Channel 00/01 :    0"))


@pytest.mark.parametrize("url", ["https://github.com/zai-org/CogVLM/issues/56",
                                 "https://github.com/pytorch/pytorch/issues/111187"])
def test_mend42s_wsl_tickets_on_two_gpus_now_get_the_virtualisation_verdict(url):
    """Both threads' answer: WSL 2 gives the GPUs no peer-to-peer path (mend42's SOURCES.md)."""
    text = next(c["text"] for c in tomllib.loads((DATA.parent / "mend42" / "cases.toml").read_text())["case"]
                if c["url"] == url)
    verdict, _ = judged_issue(text)
    assert verdict.category == "virtualization_no_p2p", verdict


def test_every_case_names_its_thread_and_both_sides_are_tried():
    sources = (DATA / "SOURCES.md").read_text()
    assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in SENTENCES + NCCL)
    assert sum(c["several"] for c in SENTENCES) >= 4 and sum(not c["several"] for c in SENTENCES) >= 4
    assert sum(c["several"] for c in NCCL) >= 4 and sum(not c["several"] for c in NCCL) >= 2

"""GPUs counted 100 % busy at a small share of their power while the job hangs or crawls (issue 11, s22): NVML's
utilization.gpu is the share of time a kernel was resident, and NCCL's collectives poll on the GPU while they wait for a
peer, so a rank waiting in a collective reads 100 % near idle power (ticket.busy_low_power, claims busy_low_power).

Real pastes in tests/data/busy_low_power (SOURCES.md gives each thread): two hung collectives' nvidia-smi tables
(NVIDIA/nccl#199, pytorch/pytorch#22671), the words of QwenLM/Qwen#970 (tests/data/ut22c), and three near-misses: a
board computing at its cap, boards idle at 0-3 %, a GPU busy at low power with no work asked of it.
"""

from pathlib import Path

import pytest
from conftest import judged_file, judged_issue

from diagnose.artifacts import issue_md
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts
from rules import claims
from rules.ticket_rules import SPIN_POWER_SHARE, spinning_gpus

DATA = Path(__file__).parent / "data" / "busy_low_power"
UT22C = Path(__file__).parent / "data" / "ut22c"


def read_words(text: str) -> list:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return [c for c in claims.claims(facts) if c.kind == "busy_low_power" and not c.negated]


def spinning(tmp_path, name: str) -> list:
    folder = tmp_path / name
    folder.mkdir()
    (folder / "issue.md").write_text((DATA / f"{name}.md").read_text())
    return [(g.index, g.power_draw_w, cap) for g, cap, _ in spinning_gpus(read_bundle([folder]))]


# --------------------------------------------------------------------------- nvidia-smi tables of hung collectives

def test_hung_collective_tables_read_as_spinning(tmp_path):
    # nccl#199: two V100-PCIe at 100 % drawing 44 W of 250 W (the third, unused, 0 % at 26 W)
    assert spinning(tmp_path, "nccl199") == [(0, 44.0, 250.0), (1, 44.0, 250.0)]
    # pytorch#22671: three V100-SXM2 at 100 % drawing 65-76 W of 300 W while training froze
    assert spinning(tmp_path, "pytorch22671") == [(0, 76.0, 300.0), (1, 65.0, 300.0), (2, 66.0, 300.0)]
    (tmp_path / "judged").mkdir()
    for name, first in (("nccl199", 44.0), ("pytorch22671", 76.0)):
        _, found = judged_file(tmp_path / "judged", DATA, name)
        f = found["ticket.busy_low_power"]
        assert f.category == "other" and f.severity == "warning"  # a hang: a collective waiting on a peer
        assert f.evidence[0].measured == first
        assert "Pwr:Usage/Cap" in str(f.evidence[0].expected)
        assert "NCCL_DEBUG=INFO" in f.fix and "py-spy dump" in f.fix


def test_qwen970_words_slow_run_is_communication():
    """QwenLM/Qwen#970: "GPU功耗很低 但是GPU利用率满载" while fine-tuning "进度特别慢"; the maintainer: communication
    looks stuck, check the NCCL environment settings (they were wrong)."""
    text = (UT22C / "qwen970.md").read_text()
    assert read_words(text)
    verdict, found = judged_issue(text)
    assert found["ticket.busy_low_power"].category == "comm_bound"
    assert verdict.category == "comm_bound"  # was insufficient_data
    assert "NCCL_" in found["ticket.busy_low_power"].fix


# --------------------------------------------------------------------------- near-misses

def test_computing_at_cap_is_not_spinning(tmp_path):
    # xstead/ethereum-miner-monitor#5: GTX 1070 mining at 100 %, 101 W of 100 W
    assert spinning(tmp_path, "ethminer5") == []
    (tmp_path / "judged").mkdir()
    _, found = judged_file(tmp_path / "judged", DATA, "ethminer5")
    assert "ticket.busy_low_power" not in found


def test_idle_boards_are_not_spinning(tmp_path):
    # wilicc/gpu-burn#114: H100s at 0-2 % drawing 109-134 W of 700 W (low power, and not busy either)
    assert spinning(tmp_path, "gpuburn114") == []
    (tmp_path / "judged").mkdir()
    _, found = judged_file(tmp_path / "judged", DATA, "gpuburn114")
    assert "ticket.busy_low_power" not in found


def test_busy_at_low_power_with_no_work_is_the_counter(tmp_path):
    # zai-org/GLM-130B#32: one V100 at 100 % and 66 W of 300 W with no input given: no hang, no slow run; the counter
    verdict, found = judged_file(tmp_path, DATA, "glm130b32")
    assert "ticket.busy_low_power" not in found
    assert verdict.category == "healthy"


# --------------------------------------------------------------------------- the reporter's words

@pytest.mark.parametrize("sentence", [
    "All 4 GPUs show 100% utilization but only 60W power draw and the job is stuck.",
    "GPU util 100% yet power is low, training hangs after the first step.",
    "Low power draw even though GPU-Util is at 100%, and generation is extremely slow.",
    "推理卡住了，GPU利用率100%，但是功耗只有70W。",
])
def test_words_read(sentence):
    assert read_words(sentence)
    _, found = judged_issue(f"# TP=2 on two A100 80GB\n\n{sentence}\n")
    assert "ticket.busy_low_power" in found
    # 100 % at low power is waiting, not the memory-bound decode that ticket.busy_not_saturated explains
    assert "ticket.busy_not_saturated" not in found


@pytest.mark.parametrize("sentence", [
    "The GPU utilization is 100% and power draw is 280W, training runs slowly.",  # computing
    "Power is low and GPU utilization is 0%, the job hangs.",  # idle, not busy
    "The power limit is low but utilization is 100%, and it is slow.",  # a limit, not the draw
    "GPU memory usage is full but power is low and it hangs.",  # memory, not utilisation
    "CPU utilization is 100% but power is low and it hangs.",  # the CPU's
    "GPU util 100% but the power is not low, it hangs.",  # ruled out
    "GPU utilization is 100% but power is never low during the stuck step.",
])
def test_words_not_read(sentence):
    assert not read_words(sentence)


def test_stated_watts_against_the_rated_power():
    # 300 W of an A100 80GB's 400 W computes; 60 W does not
    _, found = judged_issue("# two A100 80GB hang\n\nGPU util 100% but only 300W, the job hangs.\n")
    assert "ticket.busy_low_power" not in found
    _, found = judged_issue("# two A100 80GB hang\n\nGPU util 100% but only 60W, the job hangs.\n")
    assert "ticket.busy_low_power" in found
    assert SPIN_POWER_SHARE * 400 > 60


def test_busy_at_full_power_still_not_saturated():
    # the same complaint without the power: busy_not_saturated's reading stays
    _, found = judged_issue("# TP=2 on two A100 80GB\n\nGPU-Util is at 100%, and generation is extremely slow.\n")
    assert "ticket.busy_not_saturated" in found and "ticket.busy_low_power" not in found


def test_no_complaint_no_finding():
    # busy at low power said, but nothing hangs or is slow: no conclusion about a waiting collective
    _, found = judged_issue("# question\n\nWhy does nvidia-smi show GPU util 100% yet power is low?\n")
    assert "ticket.busy_low_power" not in found

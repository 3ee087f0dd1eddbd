"""A measured copy figure is compared only with a reference of the same scope (issue 11, tests/data/wrong30/AUDIT.md
cause D). nvbandwidth's bidirectional device-to-device tests count their figure differently by test and version (the
SM tests summed both directions, the CE tests reported the measured stream; later versions print '_read1'/'_write1',
'_read2'/'_write2' and '_total' rows: https://github.com/NVIDIA/nvbandwidth README). A row name or the tool's
"Total bandwidth" header decides the scope; a bare test name leaves it open, and such a figure is not judged.
Inputs: tests/data/meaning30 (SOURCES.md) and the audited paste tests/data/ut21a/ncclt268.md."""
from pathlib import Path

from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims

DATA = Path(__file__).parent / "data" / "meaning30"
NCCLT268 = Path(__file__).parent / "data" / "ut21a" / "ncclt268.md"


def facts_of(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def test_the_named_test_decides_how_a_figure_counts():
    gb200 = (DATA / "oci_gb200_nvbandwidth_sums.txt").read_text().splitlines()
    total = "\n".join(line for line in gb200 if line.split()[1].endswith("_total"))
    one_way = "\n".join(line for line in gb200 if line.split()[1][-1] in "12")
    assert claims.nvbandwidth_direction(total) == "bi"  # '_total': both streams summed
    assert claims.nvbandwidth_direction(one_way) == "uni"  # '_read1', '_write2': one stream each
    assert claims.nvbandwidth_direction("\n".join(gb200)) == "unknown"  # rows of both kinds: which one a figure is?
    # the tool's own header names the sum even where the command gives the bare test name
    assert claims.nvbandwidth_direction((DATA / "smol_playbook_nvbandwidth_h100.md").read_text()) == "bi"
    # a bare test name (the reporter's, NVIDIA/nccl-tests#268): the sum in early versions, any of three rows later
    assert claims.nvbandwidth_direction(NCCLT268.read_text()) == "unknown"


def test_near_misses_name_no_bidirectional_device_test():
    gb200 = (DATA / "oci_gb200_nvbandwidth_sums.txt").read_text().splitlines()
    assert claims.nvbandwidth_direction("\n".join(gb200[:2])) is None  # unidirectional device-to-device tests
    assert claims.nvbandwidth_direction((DATA / "nvbandwidth11_host_bidir.md").read_text()) is None  # host tests


def test_a_figure_of_a_bare_bidirectional_test_has_unknown_scope():
    figures = {f.data["value"]: f for f in claims.bandwidth_figures(facts_of(NCCLT268.read_text()))}
    assert figures[260.0].data["copy"] and figures[260.0].data["direction"] == "unknown"
    assert not figures[80.0].data["copy"] and figures[80.0].data["direction"] is None  # sendrecv_perf's, not the copy's


def test_audited_paste_no_longer_judges_a_figure_of_unknown_scope():
    # before: nvlink_down 0.69 from "260 GB/s per direction is 58% of 450 GB/s"; read as nvbandwidth's sum of both
    # directions (early versions' SM test) it would be 130 GB/s per direction, read as one row 260: the paste does not
    # say which, so no copy finding decides it
    verdict, found = judged_issue(NCCLT268.read_text())
    assert "ticket.copy_figure" not in found
    assert verdict.category != "nvlink_down"


def test_words_that_say_the_direction_still_decide():
    # "The measured bidirectional bandwidth of 786 GB/s represents 85% of ... 900 GB/s": half per direction
    text = (DATA / "smol_playbook_nvbandwidth_h100.md").read_text()
    figures = {f.data["value"]: f for f in claims.bandwidth_figures(facts_of(text))}
    assert figures[786.0].data["direction"] == "bi"
    verdict, found = judged_issue(text)
    assert verdict.category == "expected_physics"
    assert "393" in found["ticket.link_figure"].title


# --------------------------------------------------------------------------- one part's figure is not the collective's

NCCL2409 = Path(__file__).parent / "data" / "ut19" / "nccl2409.md"


def _busbw(text: str) -> list[float]:
    from diagnose.evidence import Measurement

    return [r.value for r in issue_md.parse(text, "issue.md") if isinstance(r, Measurement) and r.metric == "busbw_gbs"]


def test_a_rails_or_connections_share_is_no_all_reduce_busbw():
    # NVIDIA/nccl#2409: "per GPU<->GPU connection capped at ~13 GB/s" (title), "busbw (per rail ~27 GB/s)", and the
    # `sendrecv_perf`, 2 ranks, 1 rail row's 13.1 GB/s were read as all-reduce busbw and set against all 8 NICs
    assert _busbw(NCCL2409.read_text()) == [216.5, 231.0]  # before: [13.0, 27.0, 216.5, 231.0, 13.1]


def test_audited_paste_no_longer_blames_sockets_for_one_rail():
    # before: socket_fallback 0.69 ("all_reduce busbw is 13 GB/s, 4% of the ~320 GB/s the NICs' line rate give")
    verdict, found = judged_issue(NCCL2409.read_text())
    assert verdict.category != "socket_fallback"
    assert all("13 GB/s" not in f.title for f in found.values())


def test_near_misses_keep_the_collectives_own_figure():
    # the all-reduce's own figure beside a per-NIC and a per-peer sentence is still read (Smol Training Playbook)
    assert _busbw((DATA / "smol_playbook_nccl_tests_p5.md").read_text()) == [480.0]
    assert _busbw("nccl all-reduce between two nodes only 86GB/s") == [86.0]  # NVIDIA/nccl#1048's words


# --------------------------------------------------------------------------- a phase's length is not the phase's rate

LLMAWQ79 = Path(__file__).parent / "data" / "ut27a" / "llmawq79.md"


def test_a_phase_length_is_no_prefill_decode_comparison():
    # mit-han-lab/llm-awq#79: "INT4 ... only delievers 20%~35% faster ... than FP16 ... for prefill_length, decode
    # length 32, 64, 128, 256, 512" compares INT4 with FP16; before: ticket.serving_tradeoff ("Prompt processing is
    # many times faster than generation: by design") from the two length names
    assert claims.phases_compared(facts_of(LLMAWQ79.read_text())) == []
    _, found = judged_issue(LLMAWQ79.read_text())
    assert "ticket.serving_tradeoff" not in found


def test_near_miss_the_phases_rates_still_compare():
    # vLLM's metrics line in vllm-project/vllm#14022 (tests/data/ut20a/vllm14022.md:38): both phases' rates
    line = (Path(__file__).parent / "data" / "ut20a" / "vllm14022.md").read_text().splitlines()[37]
    assert "Avg prompt throughput: 307.6 tokens/s" in line
    found = claims.phases_compared(facts_of(line))
    assert found and found[0].data == {"prefill": 307.6, "decode": 3210.7}

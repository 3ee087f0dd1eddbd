"""Transport and NCCL ticket words the user tester found misread (issue 11, fix h4): load words said in the
negative, a setting tried only for comparison, release comparisons without a slowdown, figures with a unit read
as versions, "from X to Y", one threshold for a P2P copy figure in prose and in a pasted matrix, the slowest pair
named, GPUDirect RDMA through DMA-BUF, and tool words in a sentence that says the opposite. Each is tried on
paraphrases written here and on their negations."""

import pytest
from test_ticket_failure_rules import fired, ticket
from test_ticket_questions import said as ticket_facts
from test_transport_words import QUERY, issue_verdict

from rules import claims

# --------------------------------------------------------------------------- 1. load words said in the negative


@pytest.mark.parametrize("words", [
    "This was captured with no load on the GPUs, not while running vLLM.",
    "Read after the server had stopped (not under load).",
    "I took it when nothing was running, never during inference.",
    "Captured without any load, and not during the benchmark.",
])
def test_load_words_said_in_the_negative_leave_the_link_idle(tmp_path, words):
    assert claims.said_busy(words) is None
    answer, findings = issue_verdict(tmp_path, words + "\n\n" + QUERY + "Decode with TP=2 is slow.\n")
    assert [f.severity for f in findings if f.rule == "topology.pcie_link" and f.category != "insufficient_data"] \
        == ["ok"]
    assert answer.category != "pcie_link_degraded"


@pytest.mark.parametrize("words", [
    "This was captured while running vLLM, not at idle.",
    "Read under load (the server was serving requests).",
    "Captured during inference; nothing else was changed.",
])
def test_load_words_said_plainly_still_read_a_busy_link(tmp_path, words):
    assert claims.said_busy(words)
    _, findings = issue_verdict(tmp_path, words + "\n\n" + QUERY + "Decode with TP=2 is slow.\n")
    assert [f.severity for f in findings if f.rule == "topology.pcie_link"] == ["critical"]


# --------------------------------------------------------------------------- 2. a setting tried for comparison

IB_CLUSTER = "Two nodes, 8x A100 each, InfiniBand HDR. "


@pytest.mark.parametrize("text", [
    "We also tried plain ethernet (NCCL_IB_DISABLE=1) for comparison and it was 5x slower, as expected. "
    "With IB, all_reduce busbw is 180 GB/s.",
    "For comparison we ran once with NCCL_IB_DISABLE=1: far slower. Over IB the all_reduce busbw is 180 GB/s.",
    "As an experiment I set NCCL_NET=Socket and busbw dropped to 20 GB/s; with IB it is 180 GB/s.",
    "We tested NCCL_IB_DISABLE=1 too, which was much slower. Normally all_reduce busbw is 180 GB/s.",
])
def test_a_setting_tried_for_comparison_is_not_the_setting_in_use(text):
    answer, findings = ticket(IB_CLUSTER + text)
    assert not fired(findings, "nccl.socket_fallback") and not fired(findings, "ticket.net_socket")
    assert answer.category != "socket_fallback"


@pytest.mark.parametrize("text", [
    "We run with NCCL_IB_DISABLE=1 because the IB driver fails to load. all_reduce busbw is 9 GB/s.",
    "NCCL_IB_DISABLE=1 is set in our launch script; all_reduce busbw is 9 GB/s.",
    "We tried NCCL_IB_DISABLE=1 and it fixed the hang, so we keep it. all_reduce busbw is 9 GB/s.",
])
def test_a_setting_in_use_still_sends_nccl_to_sockets(text):
    answer, findings = ticket(IB_CLUSTER + text)
    assert fired(findings, "nccl.socket_fallback")
    assert answer.category == "socket_fallback"


# ------------------------------------------------------------------- 3. PyTorch releases: a slowdown, not negated

@pytest.mark.parametrize("text", [
    "FSDP training on 8x A100 SXM. Same speed on torch 2.1 and torch 2.3, so it's not a PyTorch regression. "
    "Step time is 2.1 s, we expected about 1.5 s.",
    "DDP training on 4x A10G is slow: torch 2.3 is 30% faster than torch 2.1 for the same script. We upgraded.",
    "DDP training on 4 GPUs is slow. Upgrading PyTorch from 2.1 to 2.3 made it faster, but still not 4x.",
    "DDP job on 8 GPUs is slow. torch 2.1 is slower than torch 2.3, so the upgrade helped a bit.",
    "DDP on 8 GPUs is slow. Torch 2.1 vs torch 2.3 made no difference; it is not a regression.",
])
def test_releases_without_a_slowdown_in_the_newer_are_no_nccl_lead(text):
    _, findings = ticket(text)
    assert not fired(findings, "ticket.torch_releases")


@pytest.mark.parametrize("text", [
    "DDP training on 4x A10G got slower: torch 2.1 is 30% faster than torch 2.3 for the same script.",
    "DDP on 8 GPUs is slow: torch 2.3 is 20% slower than torch 2.1, nothing else changed.",
    "DDP on 8 GPUs got slow. Moving from torch 2.1 to torch 2.3 made each step 30% slower.",
    "DDP on 8 GPUs got slow with torch 2.3; downgrading to torch 2.1 makes it faster again.",
])
def test_a_slowdown_on_the_newer_release_stays_an_nccl_lead(text):
    _, findings = ticket(text)
    assert [f.category for f in fired(findings, "ticket.torch_releases")] == ["nccl_regression"]


# --------------------------------------------------------------------------- 4. a figure with a unit is no NCCL version

@pytest.mark.parametrize("text, versions", [
    ("NCCL is 2.18.6 in both; each step went from 1.0 s to 1.3 s.", ["2.18.6"]),
    ("With NCCL 2.19.3 the step takes 2.5 s, the all-reduce 1.2 ms.", ["2.19.3"]),
    ("NCCL 2.21.5 gives 1.5x the latency of NCCL 2.18.5.", ["2.21.5", "2.18.5"]),
])
def test_a_figure_with_a_unit_is_no_nccl_version(text, versions):
    assert claims.nccl_versions(text) == versions


@pytest.mark.parametrize("text", [
    "DDP training on 4x A10G. Upgrading from torch 2.1.2 to torch 2.3.0 made each step 30% slower (1.0 s -> 1.3 s). "
    "Nothing else changed. NCCL is 2.18.6 in both environments (we pin it).",
    "DDP on 8 GPUs: moving from torch 2.1 to torch 2.3 made the step 1.2 s instead of 0.9 s, 30% slower. NCCL stayed "
    "at 2.19.3, unchanged.",
    "DDP on 8 GPUs got 25% slower after upgrading from torch 2.1 to torch 2.3 (2.0 s -> 2.5 s per step). Same NCCL "
    "2.18.5 on both, pinned via nvidia-nccl-cu12.",
])
def test_nccl_said_unchanged_rules_the_nccl_release_out(text):
    answer, findings = ticket(text)
    assert not fired(findings, "nccl.regression") and not fired(findings, "ticket.torch_releases")
    assert answer.category != "nccl_regression"


@pytest.mark.parametrize("text", [
    "All-reduce across 8 GPUs got 30% slower after NCCL went from 2.18.5 to 2.19.3 (busbw 180 -> 120 GB/s).",
    "DDP on 8 GPUs is 40% slower with NCCL 2.20.5 (step 1.4 s) than with NCCL 2.18.3 (1.0 s), nothing else changed.",
])
def test_two_nccl_releases_with_a_slowdown_stay_a_regression(text):
    _, findings = ticket(text)
    assert [f.category for f in fired(findings, "nccl.regression")] == ["nccl_regression"]


def test_two_nccl_releases_compared_on_both_nodes_are_not_said_alike():
    _, findings = ticket("All-reduce between 2 nodes: NCCL 2.19.3 is 30% slower than NCCL 2.18.5 on both nodes.")
    assert [f.category for f in fired(findings, "nccl.regression")] == ["nccl_regression"]


# --------------------------------------------------------------------------- 5. "from X to Y": Y is the figure now

@pytest.mark.parametrize("text, now", [
    ("Our all_reduce busbw dropped from 180 GB/s to 90 GB/s.", [90.0]),
    ("all_reduce_perf busbw went from 360 GB/s to 120 GB/s this week.", [120.0]),
    ("Bus bandwidth: 180 GB/s -> 90 GB/s after the reboot.", [90.0]),
    ("The busbw is 180 GB/s now, up from 90 GB/s last month.", [180.0]),
    ("busbw is 180 GB/s and algbw 96 GB/s.", [180.0, 96.0]),  # no change said: both are figures now
])
def test_the_figure_a_change_started_from_is_not_the_figure_now(text, now):
    facts = ticket_facts(text)
    assert [c.data["value"] for c in claims.bandwidth_figures(facts)] == now
    assert len(claims.bandwidth_figures(facts, earlier=True)) == 2


@pytest.mark.parametrize("text", [
    "8x H100 node. After the NCCL update our bus bandwidth went down.",
    "8x H100 node. Since the NCCL upgrade all_reduce busbw dropped from 360 GB/s to 180 GB/s.",
    "8x H100 node: with the new NCCL release our busbw decreased by half.",
])
def test_bandwidth_down_after_an_nccl_update_is_an_nccl_change(text):
    _, findings = ticket(text)
    assert [f.category for f in fired(findings, "ticket.nccl_upgrade")] == ["nccl_regression"]


@pytest.mark.parametrize("text", [
    "8x H100 node. After the driver update our bus bandwidth went down; NCCL is the same.",
    "8x H100 node. We have not done the NCCL update yet and busbw is low.",
])
def test_no_nccl_change_without_an_nccl_update(text):
    _, findings = ticket(text)
    assert not fired(findings, "ticket.nccl_upgrade")


# --------------------------------------------------------------------------- 6. one threshold for a copy figure

P2P_HEAD = """[P2P (Peer-to-Peer) GPU Bandwidth Latency Test]
Device: 0, NVIDIA A100-SXM4-80GB, pciBusID: 7, pciDeviceID: 0, pciDomainID:0
Device: 1, NVIDIA A100-SXM4-80GB, pciBusID: f, pciDeviceID: 0, pciDomainID:0
Device: 2, NVIDIA A100-SXM4-80GB, pciBusID: 47, pciDeviceID: 0, pciDomainID:0
Device: 3, NVIDIA A100-SXM4-80GB, pciBusID: 4e, pciDeviceID: 0, pciDomainID:0
"""


def _matrix(kind: str, value: float) -> str:
    rows = "\n".join(f"     {i} " + " ".join("1530.00" if i == j else f"{value:.2f}" for j in range(4))
                     for i in range(4))
    return P2P_HEAD + f"{kind} P2P=Enabled Bandwidth Matrix (GB/s)\n   D\\D     0      1      2      3\n{rows}\n"


def _verdict_of(tmp_path, body: str, attachment: str | None = None):
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate, ticket_verdict

    (tmp_path / "issue.md").write_text("# NVLink bandwidth\n\n" + body + "\n")
    if attachment:
        (tmp_path / "p2p.txt").write_text(attachment)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts)
    judged = [f for f in findings if f.rule in ("topology.pair_bandwidth", "ticket.copy_figure")]
    return ticket_verdict(facts, findings), judged


@pytest.mark.parametrize("kind, value, category, severity", [  # severity of a fault
    ("Bidirectional", 270, "nvlink_down", "warning"),  # 135 GB/s a direction: 45 % of 300
    ("Unidirectional", 135, "nvlink_down", "warning"),
    ("Bidirectional", 480, None, "ok"),  # 240 a direction: 80 %, what a copy reaches (nccl#1054)
    ("Unidirectional", 250, None, "ok"),
    ("Unidirectional", 20, "pcie_fallback", "warning"),  # what PCIe carries
])
def test_a_copy_figure_in_words_and_in_a_matrix_gets_one_verdict(tmp_path, kind, value, category, severity):
    words = tmp_path / "words"
    pasted = tmp_path / "pasted"
    words.mkdir()
    pasted.mkdir()
    said_answer, said = _verdict_of(words, f"4x A100 SXM4 80GB (HGX). p2pBandwidthLatencyTest, {kind} P2P=Enabled "
                                           f"Bandwidth Matrix: every GPU pair gets {value} GB/s. Is that expected?")
    shown_answer, shown = _verdict_of(pasted, "4x A100 SXM4 80GB (HGX). Is that expected?", _matrix(kind, value))
    if category:
        assert [(f.category, f.severity) for f in said] == [(f.category, f.severity) for f in shown] \
            == [(category, severity)]
        assert said_answer.category == shown_answer.category == category
    else:  # physics in words, a passed check on a matrix: no fault either way
        assert [(f.category, f.severity) for f in said] == [("expected_physics", "info")]
        assert [(f.category, f.severity) for f in shown] == [("healthy", "ok")]


# --------------------------------------------------------------------------- 7. the slowest figure named is judged

@pytest.mark.parametrize("text", [
    "p2pBandwidthLatencyTest on 4x RTX A6000: GPU 3 is slow to every other GPU, about 3 GB/s, while all other pairs "
    "get 20 GB/s.",
    "4x RTX A6000, p2pBandwidthLatencyTest: GPU 2 has low bandwidth to all the others, only 4 GB/s; the remaining "
    "pairs copy at 21 GB/s.",
    "On 4x RTX A6000 the P2P copy gives 20 GB/s between all pairs except those with GPU 1, which is slower to every "
    "peer at 3 GB/s.",
])
def test_one_slow_gpu_beside_healthy_pairs_is_judged_by_its_slow_figure(tmp_path, text):
    answer, findings = issue_verdict(tmp_path, text)
    judged = fired(findings, "ticket.pcie_figure")
    assert judged and judged[0].category != "expected_physics" and judged[0].title.startswith(("3 GB/s", "4 GB/s"))
    assert answer.category not in ("expected_physics", "healthy", "insufficient_data")


def test_healthy_pairs_alone_stay_physics(tmp_path):
    _, findings = issue_verdict(tmp_path, "p2pBandwidthLatencyTest on 4x RTX A6000: every GPU pair gets about 20 GB/s.")
    assert [f.category for f in fired(findings, "ticket.pcie_figure")] == ["expected_physics"]


# --------------------------------------------------------------------------- 8. GPUDirect RDMA through DMA-BUF

@pytest.mark.parametrize("text", [
    "2 nodes x 8 H100, ConnectX-7 InfiniBand. `lsmod | grep nvidia_peermem` shows nothing, but we use DMA-BUF "
    "(NCCL 2.19, kernel 6.2) so peermem isn't required. busbw between nodes is 360 GB/s.",
    "Two H100 nodes over NDR. nvidia-peermem is not loaded; GPUDirect RDMA goes through dmabuf instead "
    "(NCCL_DMABUF_ENABLE=1). busbw between nodes is 360 GB/s.",
    "Two H100 nodes over NDR. nvidia_peermem is missing since we switched to DMA-BUF with the open kernel modules. "
    "busbw between nodes is 360 GB/s.",
])
def test_missing_peermem_with_dma_buf_is_no_gdr_fault(text):
    answer, findings = ticket(text)
    assert not fired(findings, "ticket.module_missing")
    assert answer.category != "gdr_disabled"


@pytest.mark.parametrize("text", [
    "Two H100 nodes over NDR. nvidia-peermem is not loaded and busbw between nodes is 40 GB/s.",
    "Two H100 nodes over NDR. nvidia-peermem is not loaded; we do not use DMA-BUF. busbw between nodes is 40 GB/s.",
    "Two H100 nodes over NDR. nvidia-peermem is not loaded. Could DMA-BUF replace it? busbw between nodes is 40 GB/s.",
])
def test_missing_peermem_without_dma_buf_stays_a_gdr_lead(text):
    _, findings = ticket(text)
    assert [f.category for f in fired(findings, "ticket.module_missing")] == ["gdr_disabled"]


@pytest.mark.parametrize("text", [
    "Two DGX A100 nodes. NCCL_DEBUG shows NET/IB with GDRDMA on all 8 HCAs. Inter-node all_reduce busbw is 90 GB/s.",
    "Two nodes, 8x A100 each. The NCCL log says 'via NET/IB/0/GDRDMA' for every channel. Inter-node busbw is 90 GB/s.",
    "Two nodes, 8x A100 each. GPUDirect RDMA is in use (GDRDMA on every NET/IB line). Inter-node busbw is 90 GB/s.",
])
def test_gdrdma_quoted_in_words_is_not_asked_for_again(text):
    _, findings = ticket(text)
    assert not [f for f in findings if f.rule == "nccl.gdr" and f.category == "insufficient_data"]
    assert not fired(findings, "ticket.module_missing")


def test_without_gdrdma_words_the_path_is_still_asked_for():
    _, findings = ticket("Two nodes, 8x A100 each. Inter-node all_reduce busbw is 90 GB/s.")
    assert [f.category for f in findings if f.rule == "nccl.gdr"] == ["insufficient_data"]


# --------------------------------------------------------------------------- 9. P2P words that say the opposite

RIG = "8x RTX 4090 server, vLLM TP=8 Llama-3-70B AWQ gives 20 tokens/s. "


@pytest.mark.parametrize("text", [
    "I know GNS (GPU not supported) shows in topo -p2p for GeForce cards on some drivers, but on mine every cell is "
    "OK with the tinygrad P2P driver.",
    "People report CNS in nvidia-smi topo -p2p on consumer boards, but here all pairs show OK.",
    "P2P is not supported on GeForce with the stock driver, but with the patched driver ours works: every pair is OK.",
    "Is it true that 4090s can not use P2P? I have not checked topo -p2p yet.",
    "Does GNS in topo -p2p mean the 4090s cannot do peer to peer?",
])
def test_p2p_words_said_of_others_or_asked_are_no_refusal(text):
    _, findings = ticket(RIG + text)
    assert not fired(findings, "ticket.p2p_refused")


@pytest.mark.parametrize("text", [
    "nvidia-smi topo -p2p r shows GNS for every pair of our 4090s.",
    "P2P is not supported between our 4090s, but the 3090s in the other box work fine.",
    "The log says peer access is not supported between GPU0 and GPU1.",
])
def test_p2p_refused_on_the_reporters_own_gpus_stays_a_refusal(text):
    _, findings = ticket(RIG + text)
    assert [f.category for f in fired(findings, "ticket.p2p_refused")] == ["p2p_disabled"]


@pytest.mark.parametrize("text, unchanged", [
    ("NCCL is 2.18.6 in both environments (we pin it).", True),
    ("NCCL version is the same.", True),
    ("NCCL did not change.", True),
    ("The NCCL tests show the same busbw on both nodes.", False),  # a figure alike, not the release
    ("NCCL all_reduce on both nodes is slow.", False),
    ("Did NCCL stay the same?", False),  # asked
])
def test_nccl_said_unchanged_is_about_its_release(text, unchanged):
    assert claims.nccl_unchanged(text) == unchanged


def test_a_setting_named_for_reference_is_in_use():
    _, findings = ticket(IB_CLUSTER + "For reference, our env has NCCL_IB_DISABLE=1. all_reduce busbw is 9 GB/s.")
    assert fired(findings, "nccl.socket_fallback")

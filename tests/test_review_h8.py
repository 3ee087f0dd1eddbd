"""Review of the h3-h7 merges: patterns that misfired on ordinary text (quoted docs, conditions, negations).

Every sentence is a paraphrase written here; each was read wrongly by the merged code before its fix.
"""

import pytest

from diagnose.evidence import Facts, Note
from rules import catalog, claims, ticket_rules
from rules.subject import Subject


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def _offload(text: str, model: str = "llama3.3:70b"):
    facts = said(text)
    facts.subject = Subject(model=catalog.find_model(model))
    return list(ticket_rules.partial_offload(facts))


# Ollama's and llama.cpp's output quoted in prose as the docs' example or as a condition is not this machine's.
@pytest.mark.parametrize("text", [
    "The Ollama FAQ says a PROCESSOR of '48%/52% CPU/GPU' means the model is split, but `ollama ps` shows 100% GPU "
    "here and it is still slow at 5 tok/s.",
    "The docs say 'offloaded 20/81 layers to GPU' means a partial offload; mine says offloaded 81/81 layers to GPU.",
    "If ollama ps showed 45%/55% CPU/GPU I would understand, but it shows 100% GPU and gives 5 tok/s.",
])
def test_output_quoted_from_the_docs_or_as_a_condition_is_no_offload(text):
    assert _offload(text) == []


def test_output_said_as_seen_is_still_an_offload():
    (f,) = _offload("Slow: `ollama ps` shows 45%/55% CPU/GPU for llama3.3:70b, 2 tok/s.")
    assert f.category == "host_bound" and "45 %" in f.title


# DMA-BUF said to be unavailable does not stand in for the missing nvidia-peermem module.
@pytest.mark.parametrize("text, missing", [
    ("nvidia-peermem is not loaded (lsmod shows nothing) and DMA-BUF is not supported on our 5.4 kernel; "
     "inter-node all-reduce is slow.", True),
    ("The nvidia-peermem module is not loaded; we cannot use DMA-BUF since the kernel is 5.4. Inter-node all-reduce "
     "is slow.", True),
    ("nvidia-peermem is not loaded, NCCL uses NET/IB without GDRDMA, and inter-node all-reduce is slow.", True),
    ("nvidia-peermem is not loaded, but we use DMA-BUF instead (NCCL_DMABUF_ENABLE=1); inter-node all-reduce is "
     "slow.", False),
])
def test_dmabuf_said_unavailable_leaves_the_missing_module_a_finding(text, missing):
    found = [f.rule for f in ticket_rules.module_missing(said(text))]
    assert found == (["ticket.module_missing"] if missing else [])


# One slow GPU stays a finding when the reporter denies, hopes or asks that it was solved.
@pytest.mark.parametrize("text, solved", [
    ("GPU3 is 20% slower than the others. Reseating the card hasn't fixed the issue.", False),
    ("GPU3 is 20% slower than the others. Maybe a reboot fixed it?", False),
    ("GPU3 is 20% slower than the others; I can't say the problem is solved by reseating.", False),
    ("GPU3 was 20% slower than the others until I reseated it. Problem solved.", True),
])
def test_one_slow_gpu_is_quiet_only_when_the_reporter_says_it_is_solved(text, solved):
    facts = said(text)
    assert (claims.solved(facts) is not None) == solved
    assert [f.rule for f in ticket_rules.one_slow(facts)] == ([] if solved else ["ticket.one_slow"])


def _ticket_findings(tmp_path, issue: str):
    from diagnose.bundle import read_bundle
    from diagnose.commands.ticket import ticket_predictions
    from rules.engine import evaluate, ticket_verdict

    (tmp_path / "issue.md").write_text(issue)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    return findings, ticket_verdict(facts, findings)


# "with the NCCL version that ships with PyTorch" names the release in use; only a new one is a change of NCCL.
@pytest.mark.parametrize("sentence, upgrade", [
    ("We built nccl-tests with the NCCL version that ships with PyTorch 2.3 (2.20.5).", False),
    ("With the new NCCL version the busbw went down.", True),
])
def test_the_nccl_version_in_use_is_no_upgrade(tmp_path, sentence, upgrade):
    findings, verdict = _ticket_findings(tmp_path, "# All-reduce slow across two nodes\n\nInter-node all-reduce on 2 "
                                         f"nodes of 8x H100 reaches only 40 GB/s busbw in nccl-tests. {sentence}\n")
    assert any(f.rule == "ticket.nccl_upgrade" for f in findings) == upgrade
    assert (verdict.category == "nccl_regression") == upgrade


# Eight ranks each given one GPU by CUDA_VISIBLE_DEVICES all log "GPU 0", bound to their own GPU's node: NCCL's GPU 0
# is then not the topology's GPU0, and no rank is off its NUMA node.
def test_one_gpu_number_bound_to_different_nodes_is_not_the_topologys_gpu():
    from test_ticket_general_h7 import _affinity_facts, _nccl_affinity

    lines = [f"n1:{100 + r}:{100 + r} [0] NCCL INFO Setting affinity for GPU 0 to {'0-31' if r < 4 else '32-63'}"
             for r in range(8)]
    topo = {i: "0-31" if i < 4 else "32-63" for i in range(8)}
    assert _nccl_affinity(_affinity_facts(lines, topo)) == []
    # one process per GPU, each named by its own number, still compared with the topology
    lines = ["n1:7:7 [1] NCCL INFO Setting affinity for GPU 1 to 0-15",
             "n1:8:8 [0] NCCL INFO Setting affinity for GPU 0 to 0-15"]
    (f,) = _nccl_affinity(_affinity_facts(lines, topo | {1: "32-63"}))
    assert "GPU1" in f.title


# A PP stated for another run of a comparison is not stacked on a TP figure's layout: 2 GPUs cannot run TP=2 PP=2.
@pytest.mark.parametrize("setup, layout", [
    ("vLLM 0.6, Llama-2-13B fp16 on 2x A100 80GB SXM, batch 1 decode.\nWith --tensor-parallel-size 2 I get 60 tok/s. "
     "With --pipeline-parallel-size 2 I get 38 tok/s.", "TP=2 ("),
    ("Multi-node, 4x L40S per node. vLLM TP=4 PP=2 Llama-3-70B gives 12 tokens/s.", "TP=4 PP=2 ("),  # per node
])
def test_a_stated_pp_joins_a_figures_layout_only_where_the_gpus_allow(tmp_path, setup, layout):
    findings, _ = _ticket_findings(tmp_path, f"# slow decode\n\n{setup}\n")
    (f,) = [f for f in findings if f.rule == "ticket.measured_vs_expected"]
    assert f"decode rate at {layout}" in f.evidence[0].detail


# Words that part of the model ran on the CPU, beside words that the whole model is on the GPU now, tell the past.
@pytest.mark.parametrize("text, offload", [
    ("Unlike last week, when part of the model ran on the CPU, everything is on the GPU now; still 5 tok/s.", False),
    ("Part of the model ran on the CPU before; now all layers are in VRAM and it is still slow.", False),
    ("Not all layers fit in VRAM, so part of the model runs on the CPU and it crawls.", True),
    ("Part of the model runs on the CPU; I thought everything would be on the GPU. 2 tok/s.", True),
])
def test_the_whole_model_on_the_gpu_now_overrides_words_of_an_offload(text, offload):
    assert bool(_offload(text)) == offload


# "2.18 times out" is a release that hangs and "2.18 x86_64" a build, not figures with a unit.
@pytest.mark.parametrize("text, versions", [
    ("NCCL 2.18 times out in all_reduce while NCCL 2.17 works.", ["2.18", "2.17"]),
    ("The NCCL 2.18 x86_64 build hangs in all_reduce, 2.17 works.", ["2.18", "2.17"]),
    ("With NCCL the all_reduce takes 1.3 s now against 1.0 s before, 1.5x slower.", []),
])
def test_a_release_followed_by_a_word_is_still_a_release(text, versions):
    assert claims.nccl_versions(text) == versions


# A copy figure with P2P disabled or of small buffers is no measure of the NVLink links; the slowest figure of the
# links themselves still is.
@pytest.mark.parametrize("sentence, verdict", [
    ("nvbandwidth device_to_device_memcpy_ce gives about 370 GB/s per pair for large buffers, and about 40 GB/s for "
     "64 KB buffers. Is this expected?", "expected_physics"),
    ("p2pBandwidthLatencyTest shows 370 GB/s unidirectional with P2P enabled and 40 GB/s with P2P disabled. Is this "
     "expected?", "expected_physics"),
    ("nvbandwidth device_to_device_memcpy_ce gives 370 GB/s between GPU0 and GPU1 but only 40 GB/s between GPU0 and "
     "GPU5. Is this expected?", "pcie_fallback"),
    # a figure said of another GPU is that GPU's, one of the ticket's own GPU is judged
    ("nvbandwidth device_to_device_memcpy_ce gives 370 GB/s per pair; on our old DGX A100 it gave 230 GB/s. Is this "
     "expected?", "expected_physics"),
    ("nvbandwidth device_to_device_memcpy_ce on the H100 gives only 230 GB/s per pair. Is this expected?",
     "nvlink_down"),
])
def test_a_copy_off_the_links_is_not_judged_against_nvlink(tmp_path, sentence, verdict):
    findings, _ = _ticket_findings(tmp_path,
                                   f"# NVLink copy bandwidth question\n\nOn our 8x H100 SXM node, {sentence}\n")
    (f,) = [f for f in findings if f.rule == "ticket.copy_figure"]
    assert f.category == verdict


# A utilisation figure after "no GPU" measures a GPU only when no CPU, core or thread comes between.
@pytest.mark.parametrize("text, cpu_only", [
    ("llama.cpp runs on a laptop with no GPU at all and the CPU at 100%, 3 tok/s.", True),
    ("Inference with no GPU and all 16 cores at 100% gives 2 tok/s.", True),
    ("One core is pegged at 100% and no GPU goes above 40%, the GPUs wait on the CPU.", False),
])
def test_a_cpu_figure_after_no_gpu_still_means_no_gpu(text, cpu_only):
    assert ticket_rules._cpu_only(said(text)) == cpu_only


def test_a_sizeless_tag_pulled_first_gives_way_to_a_model_named_with_its_size():
    from test_ticket_general_h7 import _model_of

    text = ("# slow RAG\n\nI ran ollama pull nomic-embed-text for the embeddings.\n"
            "The chat model is llama3.1:70b on 2x RTX 3090, 5 tok/s.\n")
    assert _model_of(text) == "llama-3-70b"
    assert _model_of("# slow\n\nollama run llama3.3 on one RTX 4090 gives 2 tok/s.\n") == "llama-3-70b"

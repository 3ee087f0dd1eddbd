"""How the reporter's prose is read: GPUs counted per node, prose with no Markdown title, the line a claim
quotes, a quoted log line the reporter says is gone, and a host-side cause the reporter rules out."""

from pathlib import Path

import pytest
from test_ticket_figures import _issue as _ticket  # facts, findings and verdict of an issue's Markdown

from diagnose.artifacts import parse_text
from diagnose.evidence import Facts, Workload
from rules.engine import evaluate, ticket_verdict


def _workload(text: str) -> tuple[int | None, int | None]:
    """(GPU count, nodes) the prose's GPU or count line reads as."""
    records, _ = parse_text("# multi-node job slow\n\n" + text + " Llama-3-70B decodes at 30 tokens/s.\n", "issue.md")
    (w,) = [r for r in records if isinstance(r, Workload) and (r.gpu or r.gpu_count)]
    return w.gpu_count, w.nodes


def _fired(findings, rule_id):
    return [f for f in findings if f.rule == rule_id and f.severity != "ok"]


def _severities(rule_id: str, text: str) -> list[str]:
    """Severities of the problems `rule_id` finds in an issue's Markdown."""
    return [f.severity for f in _fired(_ticket(text)[1], rule_id)]


# --------------------------------------------------------------------------- GPUs counted per node

@pytest.mark.parametrize("line,count,nodes", [
    ("Two nodes, each with 8x H100 SXM, connected with InfiniBand NDR.", 16, 2),
    ("Two nodes of 8x H100 on HDR InfiniBand.", 16, 2),
    ("2 nodes x 8 H100, RoCE between them.", 16, 2),
    ("Two 8x H100 PCIe nodes over 400G Ethernet.", 16, 2),
    ("2 nodes with 8 GPUs each.", 16, 2),
    ("2x 8-GPU servers with InfiniBand.", 16, 2),
    ("Four servers, each has 4x A100 80GB.", 16, 4),
    ("three hosts of 2x RTX 4090 each, 25G Ethernet.", 6, 3),
    ("Each node has 8 A100 GPUs and we use two nodes.", 16, 2),
    ("4 GPUs per node, 2 nodes, all L40S.", 8, 2),
    # a count of the job's GPUs stays the job's
    ("16 H100 across two nodes.", 16, None),
    ("Two nodes with 16 A100 in total.", 16, None),
    ("One node with 8x H100 SXM.", 8, None),
])
def test_a_gpu_count_per_node_is_read_in_the_forms_people_write(line, count, nodes):
    assert _workload(line) == (count, nodes)


@pytest.mark.parametrize("line,count,nodes", [
    # products of nodes and GPUs per node, as hardware lines write them
    ("We serve it on 2*H100.", 2, None),
    ("Hardware: 2 x 8 x 80G.", 16, 2),  # GPUs named by their memory alone
    ("Cluster: 2*8*H100 80GB with RoCE.", 16, 2),
    ("4×8×A100 40GB for the run.", 32, 4),
    ("Machine: 2 x 8 x 80GB A100, IB between them.", 16, 2),
    ("We use 8xH100 x 2 nodes.", 16, 2),
    ("8x A100 x 4 servers over HDR.", 32, 4),
    ("two nodes with 8 A100 each.", 16, 2),
    ("16 GPUs across 2 nodes.", 16, None),  # the job's total
    ("1 x 8 x H100 in one box.", 8, None),
])
def test_a_gpu_count_written_as_a_product_is_read(line, count, nodes):
    assert _workload(line) == (count, nodes)


@pytest.mark.parametrize("text", [
    "We use batch 2*8 on one H100.",
    "Server: 2 x 8 x 32G DDR4 DIMMs, one A100.",  # host memory, not GPUs
    "One A100. Our sweep was:\n\n```\nfor b in 2*8 4*8 8*8; do run $b; done\nsize = 2 * 8 * 80\n```\n",
])
def test_a_product_that_counts_no_gpus_is_no_gpu_count(text):
    assert _workload(text) == (1, None)


@pytest.mark.parametrize("setup", [
    "Two nodes, each with 8x H100 SXM, connected with InfiniBand NDR.",
    "2 nodes with 8 GPUs each (H100 SXM), InfiniBand NDR between them.",
    "Two 8x H100 SXM nodes on InfiniBand NDR.",
])
def test_tp_within_a_node_of_a_per_node_count_is_no_cross_node_tp(setup):
    _, findings, _ = _ticket(f"# multi-node training slow\n\n{setup} Megatron TP=8 inside each node, DP=2 across "
                             "nodes. Step time is 4 s.\n")
    assert not _fired(findings, "workload.cross_node_tp")
    assert [f.severity for f in findings if f.rule == "workload.cross_node_tp"] == ["ok"]


@pytest.mark.parametrize("setup,tp,spans", [
    ("Multi-node job with 8x H100 SXM per node over InfiniBand NDR.", 8, None),
    ("We train across nodes; each node has 8 A100 GPUs.", 8, None),
    ("Multi-node job with 4x A100 per node over InfiniBand HDR.", 8, "TP=8 spans 2 nodes of 4 GPUs"),
])
def test_a_per_node_count_with_the_nodes_uncounted_is_the_node_size(setup, tp, spans):
    _, findings, _ = _ticket(f"# multi-node training slow\n\n{setup} Megatron TP={tp} across the GPUs. Step time is "
                             "4 s.\n")
    assert [f.title for f in _fired(findings, "workload.cross_node_tp")] == ([spans] if spans else [])


def test_tp_wider_than_a_node_of_a_per_node_count_is_cross_node_tp():
    _, findings, _ = _ticket("# multi-node inference slow\n\nTwo nodes, each with 4x A100 80GB, on HDR InfiniBand. "
                             "vLLM with TP=8 across both nodes gives 9 tokens/s.\n")
    (f,) = _fired(findings, "workload.cross_node_tp")
    assert f.title == "TP=8 spans 2 nodes of 4 GPUs"


# --------------------------------------------------------------------------- prose with no Markdown title

SHARED = Path("/work/shared/tickets") if Path("/work/shared/tickets").is_dir() else None
NO_TITLE = [
    "Two RTX 4090 on a Threadripper box. vLLM with --tensor-parallel-size 2 is slow.\n"
    "I checked `nvidia-smi topo -p2p r` and the cell between GPU0 and GPU1 is CNS (chipset not supported).\n",
    "We run vLLM with TP=2 on two RTX 4090 cards in a workstation and decode is slow.\n"
    "nvidia-smi topo -p2p r shows CNS between the two GPUs, so P2P is not supported by the chipset.\n",
    "Setup: 2x RTX 4090, vLLM, tensor parallel size 2.\n\n"
    "The output of nvidia-smi topo -p2p r marks GPU0 to GPU1 as CNS, chipset not supported, and generation is slow.\n",
]


@pytest.mark.parametrize("text", NO_TITLE)
@pytest.mark.parametrize("name", ["issue.md", "notes.txt", "description.md"])
def test_prose_without_a_title_is_the_reporters_words(text, name):
    records, read = parse_text(text, name)
    assert read.kinds[:1] == ["issue_md"]
    facts = Facts()
    facts.add(*records)
    findings = evaluate(facts)
    assert ticket_verdict(facts, findings).category == "p2p_disabled"


def test_the_same_prose_reads_the_same_with_or_without_a_title():
    with_title = _ticket("# vLLM TP=2 slow\n\n" + NO_TITLE[0])[2]
    without = _ticket(NO_TITLE[0])[2]
    assert (without.category, without.confidence) == (with_title.category, with_title.confidence)


@pytest.mark.parametrize("attachment", [
    "030-nccl-451-docker-ibv-open-device-failed-socket/attachment1.log",  # NCCL INFO/WARN lines
    "075-tensorflow-40042-gpu-overheat-progressive-slowdown/attachment1.log",  # a training log's step lines
    "013-nccl-557-2gpu-nvlink-bridge-hang-slow-nvml/attachment1.txt",  # nvidia-smi topo -m
    "066-transformers-9371-titan-rtx-ddp-with-without-nvlink/attachment1.txt",  # a results table, no sentence
    "058-sonar-1114-aphrodite-enforce-eager-tp2-3060/attachment1.log",  # an engine's log lines
    "079-sglang-pr2643-deepseek-v3-h200-tp8-healthy-serving-baseline/attachment1.txt",  # a launch and a benchmark
])
@pytest.mark.parametrize("name", ["issue.md", "notes.txt"])
def test_a_pasted_log_alone_keeps_its_own_kind_under_a_prose_name(attachment, name):
    if SHARED is None:
        pytest.skip("the shared ticket bundles are not here")
    text = (SHARED / attachment).read_text()
    _, as_attached = parse_text(text, Path(attachment).name)
    _, as_named = parse_text(text, name)
    assert "issue_md" not in as_named.kinds
    assert as_named.kinds == as_attached.kinds


def test_prose_under_a_log_name_is_not_taken_for_an_issue():
    _, read = parse_text(NO_TITLE[0], "vllm_server.log")
    assert "issue_md" not in read.kinds


# --------------------------------------------------------------------------- the line a claim quotes

def _cited(text: str) -> dict[str, set[str]]:
    """{rule: sources of its evidence that quote the reporter} of the ticket an issue's Markdown gives."""
    _, findings, _ = _ticket(text)
    return {f.rule: {e.source for e in f.evidence if '"' in e.detail} for f in findings}


@pytest.mark.parametrize("text,rule,line", [
    ("# slow\n\nSetup below.\n\n- 4x RTX 4090\n- Ollama\n\nGPU utilization is 10-25% on each GPU and htop shows "
     "one CPU thread at 100%.\n", "ticket.cpu_bound", 8),
    ("# Ollama on four GPUs is slow\n\nWe serve llama3:70b.\nThe box has 4x RTX 4090.\n\nWhile it generates, top "
     "shows a single core pegged at 100% and the GPUs sit at 20% utilization.\n", "ticket.cpu_bound", 6),
    ("Two RTX 4090 on a Threadripper box.\nvLLM with --tensor-parallel-size 2 is slow.\n\n\nI checked "
     "`nvidia-smi topo -p2p r` and the cell between GPU0 and GPU1 is CNS (chipset not supported).\n",
     "ticket.p2p_refused", 5),
    ("\n\nvLLM TP=2 on two RTX 4090 is slow.\n\nnvidia-smi topo -p2p r says CNS between GPU0 and GPU1, so P2P "
     "is not supported by the chipset.\n", "ticket.p2p_refused", 5),  # blank lines before a title-less text
])
def test_a_prose_claim_cites_the_line_its_quote_comes_from(text, rule, line):
    assert _cited(text)[rule] == {f"issue.md:{line}"}


# --------------------------------------------------------------------------- a quoted line the reporter says is gone

def _eager(sentence: str) -> list[str]:
    return _severities("ticket.eager_flag", "# vLLM decode speed\n\nvLLM 0.10 on 1x H100, Llama-3.1-8B. "
                       f"{sentence} Decode is 6 ms per token at batch 1.\n")


@pytest.mark.parametrize("sentence", [
    "I removed --enforce-eager and now the log no longer says \"Cudagraph is disabled under eager mode\".",
    "The startup log used to say 'Cudagraph is disabled under eager mode', until we upgraded.",
    "Before the fix it said \"CUDA graphs are disabled\" in the log; that line is gone now.",
    "After the update the server log doesn't print 'CUDA graph is turned off' any more.",
    "We dropped --enforce-eager from the launch command last week.",
    "Previously the log showed: CUDA graphs are disabled for this model.",
])
def test_a_log_line_or_switch_the_reporter_says_is_gone_is_no_current_evidence(sentence):
    assert _eager(sentence) == []


@pytest.mark.parametrize("sentence", [
    "The log says \"Cudagraph is disabled under eager mode\".",
    "Latency no longer bothers us at night, but the log still says 'CUDA graphs are disabled'.",
    "We start it with --enforce-eager because graph capture ran out of memory.",
    "I didn't see any change; vLLM runs in eager mode.",
])
def test_a_log_line_or_switch_said_as_current_still_counts(sentence):
    assert _eager(sentence) != []


# --------------------------------------------------------------------------- a host-side cause ruled out

def _cpu_bound(sentence: str) -> list[str]:
    return _severities("ticket.cpu_bound", "# Ollama slow with 4 GPUs\n\nOllama with llama3:70b on 4x RTX 4090 "
                       f"gives 8 tokens/s, which is slow. {sentence}\n")


@pytest.mark.parametrize("sentence", [
    "htop shows all 32 CPU threads busy and no single thread at 100%, so the CPU is not the bottleneck.",
    "None of the CPU threads ever reaches 100% during decode.",
    "The CPU never hits 100% on any core while it generates.",
    "Tokenization takes less than 1% of the time per the profiler; the scheduler overhead is negligible.",
    "py-spy says the Python overhead is insignificant.",
    "Under 10% of the time goes to tokenization, per the profiler.",
])
def test_a_host_side_cause_the_reporter_rules_out_is_no_cpu_bound(sentence):
    assert _cpu_bound(sentence) == []


@pytest.mark.parametrize("sentence", [
    "htop shows one CPU thread at 100% and the GPUs sit at 20% utilization.",
    "One CPU core is at 100% and none of the GPUs goes above 40% utilization.",
    "Most of the time is spent in the scheduler according to py-spy.",
    "The scheduler overhead is huge, the CPU is the bottleneck.",
    "Only 1 CPU core is pegged at 100% while it generates.",  # a count after "only", not a small share
])
def test_a_host_side_cause_said_as_seen_still_counts(sentence):
    assert _cpu_bound(sentence) == ["warning"]

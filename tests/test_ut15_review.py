"""Claim readers a review of session 15's ticket work found wrong (issue 11), each mended in general and tested on the
review's sentences and on paraphrases and negations written here:

- a loss against the same engine at another layout ("than the same vLLM server on 4 GPUs", "than the vLLM TP=2
  baseline") compares layouts, not engines;
- "A should be faster than B" says which board came out behind only with what the run showed beside it ("but",
  "it isn't", a slower word); borne out ("and it is") it keeps its direction; "Shouldn't A be faster?" asks because
  it was not;
- an enabling of P2P that did not take ("but simpleP2P still reports Peer access not available") is no arm of an
  A/B, and the refusal stays;
- a pipeline degree of 1 written in prose ("pipeline parallelism of 1", "(PP=1)") is no pipeline, like the flags;
- the host's memory, link or offload ("limited by the CPU-GPU PCIe link", "CPU memory bandwidth") is no host thread
  holding the GPU back;
- a plural "(s)" glued to a table label ("| GPU(s) | 2 |") is no unit of seconds.
"""

import pytest
from conftest import report_json

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims
from rules import ticket_questions as tq


def said(text: str, title: str = "Question") -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(f"# {title}\n\n" + text + "\n", "issue.md"))
    return facts


def ticket(tmp_path, text: str) -> dict:
    (tmp_path / "issue.md").write_text(text)
    return report_json("ticket", str(tmp_path))


# --------------------------------------------------------------------------- a loss against the same engine

@pytest.mark.parametrize("text, factor", [
    # the review's sentences: the engine names the other layout's run
    ("TP=8 is 2 times slower than the same vLLM server on 4 GPUs.", 2.0),
    ("TP=4 is 3x slower than the vLLM TP=2 baseline.", 3.0),
    ("TP=4 is 3x slower than with vllm's TP=2 run.", 3.0),
    # paraphrases: another engine word, another count
    ("With 8 GPUs SGLang is 1.5 times slower than the same SGLang deployment on 2 GPUs.", 1.5),
    ("Our TGI at TP=4 is 2.5x slower than TGI's TP=1 run.", 2.5),
    # the ticket runs the engine and the sentence compares it with itself at another layout
    ("We run vLLM on 8x A100. At TP=8 it is 2x slower than vLLM at TP=4.", 2.0),
    # engines against each other stay no layout loss
    ("On two A100s vLLM with TP=2 is 3x slower than lmdeploy on the same GPUs.", None),
    ("With TP=4 it is 3 times slower than lmdeploy with TP=4.", None),
    ("With 2 GPUs it runs 2.5 times slower compared to vLLM.", None),
    ("Ollama is 3x slower than vLLM on the same box.", None),
])
def test_losses_against_the_same_engine_at_another_layout(text, factor):
    losses = claims.stated_losses(said(text))
    assert [round(c.data["factor"], 2) for c in losses][:1] == ([factor] if factor else [])


def test_engine_the_ticket_runs_named_elsewhere(tmp_path):
    """Named in the title, vLLM is the ticket's engine: "slower than vLLM" is its own run, not another engine's; an
    engine named only in the comparison is the other side."""
    assert claims.stated_losses(said("It is 3x slower than vLLM.", "vLLM TP=4 decode slow"))
    assert not claims.stated_losses(said("It is 3x slower than vLLM."))
    # another engine is the subject: engines compared, whatever the ticket runs
    assert not claims.stated_losses(said("Ollama is 3x slower than vLLM.", "vLLM vs Ollama"))


def test_a_layout_loss_against_the_same_engine_is_judged(tmp_path):
    r = ticket(tmp_path, "# TP=8 slower than TP=4 with vLLM\n\nWe serve Llama-3-70B with vLLM on 8x H100 SXM. TP=8 is "
                         "2 times slower than the same vLLM server on 4 GPUs. Is this normal?\n")
    found = {f["rule"]: f for f in r["findings"]}
    assert "ticket.loss_beyond_physics" in found and r["verdict"]["category"] != "expected_physics"


# --------------------------------------------------------------------------- an expectation and what the run showed

@pytest.mark.parametrize("text, slower", [
    # borne out: the stated direction stands
    ("The H100 should be faster than the A100, and it is: 2x the tokens/s.", "a100"),
    ("I expected the H100 to be faster than the A100 and it was.", "a100"),
    ("The H100 should beat the A100, which it does by 2x.", "a100"),
    # missed, said after it in the sentence or the next
    ("The H100 should be faster than the A100, but our decode is slower on it.", "h100"),
    ("I'd expect the H100 to beat the A100 but it does not.", "h100"),
    ("The H100 should be faster than the A100. It isn't: 30 tok/s against 45.", "h100"),
    ("I'd have expected the H100 to outperform the A100; instead it lags.", "h100"),
    ("The H100 should not be slower than the A100, but it is.", "h100"),
    # asked because it was not
    ("Shouldn't the H100 be faster than the A100?", "h100"),
    # an expectation alone tells nothing of the run
    ("The H100 should be faster than the A100. The model is not quantised.", None),
    ("I expected the H100 to be faster than the A100.", None),
])
def test_an_expectation_flips_only_where_the_run_missed_it(text, slower):
    found = tq.gpus_compared(said(text))
    assert (found[0].key.split("-")[0] if found else None) == slower


@pytest.mark.parametrize("text", [
    "The H100 should be faster than the A100, and it is: 2x the tokens/s.",
    "I expected the H100 to be faster than the A100 and it was.",
])
def test_an_expectation_borne_out_is_no_stronger_board_behind(tmp_path, text):
    r = ticket(tmp_path, "# H100 vs A100\n\n" + text + "\n")
    rules = {f["rule"] for f in r["findings"]}
    assert "ticket.stronger_gpu_slower" not in rules and r["verdict"]["category"] != "host_bound"


# --------------------------------------------------------------------------- an enabling of P2P that did not take

@pytest.mark.parametrize("text, enabled", [
    # the review's sentences: the enabling failed, no arm
    ("I enabled P2P in the BIOS but simpleP2P still reports Peer access not available.", False),
    ("Enabling P2P has no effect: nvidia-smi topo -p2p r shows NS everywhere.", False),
    # paraphrases
    ("After enabling P2P in the BIOS, p2pBandwidthLatencyTest still shows P2P disabled between all pairs.", False),
    ("I enabled P2P but it is still disabled according to nvidia-smi topo -p2p r.", False),
    ("With P2P enabled in the driver, the driver refuses peer access.", False),
    ("I turned on P2P in the kernel module options.", False),  # an enabled arm alone, no disabled one beside it
    # an A/B with a result on each arm
    ("With P2P enabled busbw is 18 GB/s. With P2P disabled (NCCL_P2P_DISABLE=1) it is 22 GB/s.", True),
    ("We enabled P2P with the patched driver and all_reduce_perf reaches 24 GB/s, against 9 GB/s without P2P.", True),
    ("P2P enabled vs disabled: 18 vs 22 GB/s busbw", True),
])
def test_p2p_enabled_arm_needs_a_disabled_arm_and_results(text, enabled):
    assert bool(claims.p2p_run_enabled(said(text))) is enabled


def test_a_failed_enabling_keeps_the_refusal(tmp_path):
    r = ticket(tmp_path, "# P2P on 4x RTX 4090\n\nI enabled P2P in the BIOS but simpleP2P still reports Peer access "
                         "not available between the 4 RTX 4090 GPUs, so vLLM TP=4 is slow.\n")
    assert "ticket.p2p_refused" in {f["rule"] for f in r["findings"]}


# --------------------------------------------------------------------------- a pipeline degree of 1 in prose

@pytest.mark.parametrize("text, pipeline", [
    ("We use tensor parallel 8 and pipeline parallelism of 1.", False),
    ("The model runs with pipeline parallel (PP=1) and TP=8.", False),
    ("Pipeline parallel size is one, tensor parallel size is 8.", False),
    ("pipeline-parallel degree: 1", False),
    ("--pipeline-parallel-size=1 --tensor-parallel-size=8", False),
    ("We use tensor parallel 4 and pipeline parallelism of 2.", True),
    ("pipeline parallel (PP=2) across two nodes", True),
    ("pipeline_parallel_size: 4", True),
    ("Pipeline parallelism with 4 stages is slow.", True),
    ("Pipeline parallelism over 1 node with 8 GPUs is slow.", True),  # a node count, not the degree
])
def test_pipeline_degree_in_prose(text, pipeline):
    assert bool(claims.find(said(text), "pipeline_parallel")) is pipeline


def test_pipeline_of_one_is_no_bubble(tmp_path):
    r = ticket(tmp_path, "# Llama-3-70B slow on 8x H100\n\nWe use tensor parallel 8 and pipeline parallelism of 1 "
                         "with vLLM on 8x H100 SXM. Decode is 20 tok/s for a single request. Is this normal?\n")
    assert "ticket.pp_bubble" not in {f["rule"] for f in r["findings"]}


# --------------------------------------------------------------------------- the host's memory, link or offload

@pytest.mark.parametrize("text, host", [
    # the review's sentences: memory, link and offload limits, not the host thread
    ("Decode throughput is limited by the CPU-GPU PCIe link when offloading layers.", False),
    ("Performance is bound by CPU memory bandwidth because half the layers are offloaded to the CPU.", False),
    ("Generation is limited by the CPU offload of the KV cache.", False),
    # paraphrases
    ("Inference speed is bottlenecked by CPU RAM bandwidth with --cpu-offload-gb 20.", False),
    ("The CPU to GPU link limits the GPUs when weights stream in.", False),
    # the host thread itself
    ("Throughput is bound by the CPU, one core sits at 100 % while the GPUs idle.", True),
    ("The CPU holds back the GPUs: the Python process is at 100 %.", True),
])
def test_cpu_limit_is_the_host_thread_only(text, host):
    assert any(c.kind == "cpu_ab" and not c.negated for c in claims.claims(said(text))) is host


# --------------------------------------------------------------------------- a plural "(s)" in a table label

@pytest.mark.parametrize("row, read", [
    ("| GPU(s) | 2 |", "| GPU(s) | 2 |"),
    ("| Node(s) | 2 |", "| Node(s) | 2 |"),
    ("| Request(s) | 16 |", "| Request(s) | 16 |"),
    ("| Latency (s) | 2.5 |", "| Latency | 2.5 s |"),
    ("| Time (sec) | 3 |", "| Time | 3 s |"),
    ("| E2E latency (seconds) | 4.1 |", "| E2E latency | 4.1 s |"),
    ("| TTFT (ms) | 139 |", "| TTFT | 139 ms |"),
])
def test_plural_s_is_no_seconds(row, read):
    assert issue_md.label_unit(row) == read


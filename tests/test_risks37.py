"""The risks the thirty-sixth session left open (pass risks37, issue 11), each probed on the real kept pastes it
touches, then on paraphrases, negations and near-misses written for this test (tests/data/risks37/NOTES.md lists
every probe with its verdict before and after). Real pastes first in each section.

1. The label gate: a failure said in words other than crash / won't start (wrong or empty output, an HTTP 5xx, an
   exception raised, a loss gone NaN, a request never answered) was answered healthy by a by-design row or by
   ticket.nothing_broken; the label alone ("is this a bug?") still is not a fault (bydesign36). Fixed:
   ticket_questions.failure_said knows those families; symptom_prior, one_gpu_by_design and gpu_utilisation's layer
   split answer step back beside them.
2. ticket.software_pair: a gap between two stacks that also differ in request length, GPUs used, machine, layers on
   the CPU or speculative decoding was answered `other`. Fixed: software_pairs._other_difference reads those.
3. HIGH_CONCURRENCY: the sharded model winning over its copies past the batch cap the launch line sets is queueing on
   the sharded side, not low-load physics. Added (ticket_questions.tp_won_at_high_load); the 64 line itself holds.
4. ticket.cpu_only_run: offload (a GPU runs part of the model), one component on the CPU (the tokenizer), a CPU build
   of torch, a fallback said in another sentence were answered as a CPU-only setup. Fixed in rules/cpu_only.py.
5. Multi-node "slower with more nodes": ticket.scaling_question and the data-parallel training prior answered in-box
   physics. Fixed: both step back across machines (the network path is the ask). A multi-node "is this normal?" keeps
   the prior (nccl#1250's one-NIC-per-GPU figures are physics).
6. 2x RTX 4090 "slower than I expected": the weak p2p_disabled lead holds (the corpus labels the host-staged all-reduce
   of boards without PCIe P2P p2p_disabled with expected_physics accepted; a figure in its band answers physics).
7. Left from reviews: a by_design row's new `fault_in` (DCGM fields missing on an A100) stops ticket.nothing_broken; an
   Ollama/llama.cpp hang on boards without PCIe P2P is a lead below the verdict (nothing goes peer to peer); guided
   JSON with/without holds; sampling_bound beside a CUDA OOM is left (gating it hands the verdict to a figure fit;
   review38 fixed it).
"""

from pathlib import Path

import pytest
from conftest import judged_issue
from test_ticket_numbers import _said

from rules import cpu_only, software_pairs, ticket_questions

DATA = Path(__file__).parent / "data"


def _paste(rel: str):
    return judged_issue(folder=DATA / rel)


# =========================================================================== 1. the label gate

@pytest.mark.parametrize("rel", ["bydesign36/dcgm47.md", "bydesign36/ollama1400.md", "bydesign36/ollama11942.md",
                                 "bydesign35/dcgmexp395.md", "bydesign35/k8sdp51.md", "bydesign35/nvdocker807.md"])
def test_real_by_design_posts_keep_their_healthy_answer(rel):
    """Real first posts whose threads settled 'by design' (bydesign35/36 SOURCES.md): the wider failure words do not
    shut their rows."""
    verdict, _ = _paste(rel)
    assert verdict.category == "healthy"


@pytest.mark.parametrize("text", [
    # the label alone, beside the documented observation: healthy stays
    "[Bug]: nvidia-smi shows no processes inside docker\n\nRunning vllm in a docker container on an A100. nvidia-smi "
    "inside the container shows No running processes found, although the model is loaded and serving. Is this a bug?",
    "Bug: DCGM_FI_PROF fields missing\n\nWith dcgm-exporter on our Tesla P100 nodes the DCGM_FI_PROF_GR_ENGINE_ACTIVE "
    "metrics are missing. Everything else is exported. Bug?",
    "[Issue] Ollama only uses one GPU\n\nI have two RTX 3090 cards. Ollama only uses one GPU when I load "
    "llama3:8b, the "
    "other GPU stays idle. Is this a bug?",
])
def test_the_label_alone_is_no_fault(text):
    verdict, _ = judged_issue(text)
    assert verdict.category == "healthy"


@pytest.mark.parametrize("text", [
    "[Bug] Ollama only uses one GPU and returns wrong answers\n\nTwo RTX 3090s. Ollama only uses one GPU for mistral, "
    "the other GPU stays idle. Also the responses are wrong and repeat the same word over and over. Bug?",
    "[Bug]: nvidia-smi shows no processes in docker and requests return HTTP 500\n\nvllm in docker on an A100. "
    "nvidia-smi shows No running processes found inside the container. Every request to the server returns HTTP 500 "
    "Internal Server Error. Is this a bug?",
    "Issue: llama.cpp memory usage low\n\nRunning a 70B Q4_K_M GGUF with llama.cpp. htop shows the process memory is "
    "only 2 GB instead of 40 GB, and the run throws an exception: GGML_ASSERT failed. Is this an issue?",
    "[Bug] extra processes on GPU 0 with DDP\n\nWith torchrun and DDP on 4 GPUs each process creates a CUDA context on "
    "GPU 0. Also the loss becomes NaN after 100 steps. Bug?",
    "[Bug] Ollama queues requests\n\nOllama on an L40S queues requests one at a time. Some of the clients "
    "never receive "
    "a reply. Is this a bug?",
    "Is this normal or an issue?\n\nvllm on 2x A100 with Llama 3 8B. The answers come back as empty strings for about "
    "half the prompts. Is this normal?",
    "Possible issue with outputs\n\nServing Qwen2 7B with sglang on an H100. The model produces nonsense tokens after "
    "the first sentence. Is this expected?",
])
def test_a_failure_said_in_other_words_is_never_healthy_nor_physics(text):
    verdict, _ = judged_issue(text)
    assert verdict.category not in ("healthy", "expected_physics")


@pytest.mark.parametrize("sentence", [
    "The model returns wrong answers.", "Outputs are garbled.", "It generates gibberish text after a while.",
    "The responses come back empty.", "The server answers with 502 Bad Gateway.", "The API returns HTTP 503.",
    "The script raises an exception at the second batch.", "GGML_ASSERT: ggml-cuda.cu:123: false",
    "After 200 steps the loss becomes NaN.", "Half of the clients never get a response.",
    "It keeps repeating the same token.",
])
def test_failure_said_reads_the_failure_families(sentence):
    assert ticket_questions.failure_said(_said(sentence)) is not None


@pytest.mark.parametrize("sentence", [
    "No errors and the answers are correct, it is just slow.", "I never get wrong answers, only slow ones.",
    "I call torch.cuda.empty_cache() after each batch.", "The benchmark uses 1024 random input tokens.",
    "Every request returns HTTP 200.", "Is this a bug?", "The output is correct.", "Nothing crashes.",
    "The output tokens per second are 40.", "We set max_tokens to 512 for the outputs.",
    "    # raise Exception()", "If no value mentioned, set the value to empty string.",
])
def test_failure_said_near_misses(sentence):
    assert ticket_questions.failure_said(_said(sentence)) is None


@pytest.mark.parametrize("rel,said", [
    ("extract35b/llamacpp14228.md", True),  # "it repeats the same token"
    ("ut16/nccl1591.md", True),        # "it throws an internal error"
    ("ut28f/kobold852.md", True),      # "Wrong tokens"
    ("other25/vllm_1386_assertion_021.md", True),  # an AssertionError
    ("load30/sglang4076.md", False),   # its script's commented "# raise Exception()"
    ("symptom34/lmdeploy_1494.md", False),  # a prompt's "set the value to empty string"
])
def test_failure_said_on_real_first_posts(rel, said):
    from diagnose.bundle import read_bundle
    facts = read_bundle([DATA / rel])  # the paste read as `diagnose ticket` reads it
    assert (ticket_questions.failure_said(facts) is not None) == said


# =========================================================================== 2. software_pair

@pytest.mark.parametrize("rel,category", [("load30/sglang4076.md", "other")])
def test_real_software_pairs_keep_their_answer(rel, category):
    """sgl-project/sglang#4076 (two clients, the same engine: the client's way of sending, load30 SOURCES.md)."""
    verdict, found = _paste(rel)
    assert verdict.category == category and "ticket.software_pair" in found


@pytest.mark.parametrize("text,what", [
    ("vllm v0 vs v1\n\nV0 got 1500 tok/s and V1 got 2400 tok/s on the same H100 with Qwen 7B. For V1 I used input "
     "length 128, for V0 input length 2048. Is V0 that much slower?", "request length"),
    ("sglang vs vllm\n\nOn one A100, Llama 3 8B: vllm got 1100 tok/s and sglang got 1800 tok/s. vllm with max_tokens "
     "128, sglang with max_tokens 1024. Which one is right?", "request length"),
    ("ollama slower than vllm\n\nLlama 3 70B AWQ. ollama got 12 tok/s while vllm got 30 tok/s. Ollama runs it on a "
     "single GPU with the rest on the CPU, vllm uses both GPUs. Why?", "part of the model on the CPU"),
    ("llama.cpp faster than ollama?\n\nollama got 20 t/s but llama.cpp got 60 t/s. ollama is on my laptop, "
     "llama.cpp on "
     "my desktop. Same model. What's going on?", "machine"),
    ("vllm vs sglang\n\nOn one H100 with Llama 3 8B. vllm got 150 tok/s but sglang got 260 tok/s. sglang was started "
     "with speculative decoding (EAGLE), vllm without. Why is vllm slower?", "speculative decoding"),
    ("ollama vs vllm\n\nSame model. ollama got 40 tok/s but vllm got 75 tok/s. Ollama used one GPU, vllm used 2 GPUs. "
     "Why?", "GPUs used"),
])
def test_software_pair_steps_back_when_the_runs_differ_in_more(text, what):
    facts = _said(text)
    pair = software_pairs.software_pair(facts)
    assert pair is not None  # the pair is read ...
    assert software_pairs._other_difference(facts, pair["factor"]).startswith(what)  # ... with its second difference
    verdict, found = judged_issue(text)
    assert "ticket.software_pair" not in found and verdict.category != "other"


@pytest.mark.parametrize("text", [
    "ollama much slower than llama.cpp\n\nSame RTX 3090, same llama3 8B Q4_K_M gguf, same prompt. ollama gets "
    "60 t/s but "
    "llama.cpp gets 110 t/s. Why is ollama so much slower?",
    "V1 slower than V0?\n\nSame H100, Llama 3 8B, same benchmark command. V0 got 2400 tok/s but V1 got 1500 tok/s. Is "
    "this a regression?",
    # the same machine named twice is one machine; the same lengths named twice are one length
    "ollama vs llama.cpp\n\nBoth on the same server with one RTX 4090, input length 512 for both. ollama gets 50 t/s "
    "but llama.cpp gets 90 t/s. Why?",
])
def test_software_pair_still_answers_a_plain_gap(text):
    verdict, found = judged_issue(text)
    assert "ticket.software_pair" in found and verdict.category == "other"


# =========================================================================== 3. the high-load line

_TP_WON = ("Why does TP=2 beat two replicas?\n\nTwo L40S, Llama 3 8B with vllm:\n\n```\nvllm serve "
           "meta-llama/Meta-Llama-3-8B-Instruct --tensor-parallel-size 2{cap}\n```\n\nOne TP=2 instance is faster "
           "than two separate instances, one per GPU, at {n} concurrent requests. Why?")


def test_real_tp_beats_solo_keeps_physics():
    """A DGX Spark pair where TP=2 beat two solo copies at low load (ut26c; expected_physics in its SOURCES.md)."""
    verdict, found = _paste("ut26c/spark_tp2_vs_2solo.md")
    assert verdict.category == "expected_physics"


@pytest.mark.parametrize("cap,n,high", [
    ("", 8, False),                     # low load, no cap: physics
    ("", 128, True),                    # past HIGH_CONCURRENCY
    (" --max-num-seqs 16", 32, True),   # past the engine's cap: the sharded side queues
    (" --max-num-seqs 64", 32, False),  # within the cap
    (" --max-num-seqs 32", 32, False),  # at the cap every request is in flight
])
def test_high_load_is_also_past_the_engines_batch_cap(cap, n, high):
    verdict, found = judged_issue(_TP_WON.format(cap=cap, n=n))
    assert ("ticket.scaling_question" not in found) == high
    assert (verdict.category == "expected_physics") != high


# =========================================================================== 4. cpu_only_run

@pytest.mark.parametrize("rel,category", [("review49/vllm7379.md", "expected_physics"),
                                          ("healthy31/ollama7801.md", "host_bound")])
def test_real_cpu_pastes_keep_their_answer(rel, category):
    """vllm-project/vllm#7379 (a CPU instance, the maintainer's bandwidth arithmetic) and ollama/ollama#7801 (CPU busy,
    GPU low: a partial offload), audit36 SOURCES.md."""
    verdict, _ = _paste(rel)
    assert verdict.category == category


@pytest.mark.parametrize("text", [
    "Very slow generation on CPU only\n\nI run Llama 2 7B with llama.cpp on a CPU-only server (Xeon, 8 channels DDR4). "
    "I get 4 tokens/s. Is this normal?",
    "ollama slow on my laptop\n\nMy laptop has no GPU, 16GB RAM. llama3 8b runs at 3 tokens/s in ollama. Is that "
    "expected?",
    "CPU inference speed question\n\nCPU inference of llama 13B Q4_0 with llama.cpp, 16 threads: 2.5 t/s; 32 threads: "
    "2.6 t/s. Why don't more threads help?",
])
def test_a_cpu_only_setup_is_still_host_memory(text):
    verdict, found = judged_issue(text)
    assert "ticket.cpu_only_run" in found and verdict.category == "expected_physics"


@pytest.mark.parametrize("text", [
    # layers offloaded: a GPU runs part of the model
    "slow with offload\n\nRunning Mixtral 8x7B Q4 in llama.cpp, 20 layers are offloaded and the rest runs on the CPU "
    "only. Speed is 6 t/s, why so slow?",
    # one component on the CPU
    "Tokenizer runs on CPU only, slow first token\n\nThe HF tokenizer runs on the CPU only and for long "
    "prompts the time "
    "to first token is 2 s. Is this normal?",
    # the CPU build of torch pulled by pip: what is installed, not a machine without a GPU
    "Inference extremely slow\n\nI installed torch with pip install torch and it pulled the CPU-only wheel (torch "
    "2.3.0+cpu). Generation with transformers takes 2 minutes for 100 tokens of Llama 7B. Why so slow?",
    # a fallback said in the next sentence
    "ollama runs in CPU mode\n\nOllama falls back to CPU mode and is slow (2 t/s) with mistral. Why?",
    # CPU usage, not a setup
    "slow inference, CPU usage 100%\n\nWith Ollama and qwen2 7b the CPU usage is 100% on one core only and "
    "the speed is "
    "8 tok/s. Why is it so slow?",
])
def test_cpu_in_another_sense_is_no_cpu_only_run(text):
    assert cpu_only.cpu_only_said(_said(text)) is None or cpu_only._gpu_named(_said(text))
    verdict, found = judged_issue(text)
    assert "ticket.cpu_only_run" not in found


# =========================================================================== 5. across machines

def test_real_multi_node_posts():
    """modelscope/ms-swift#1825 (ZeRO-3 slower with each node: NCCL kept off InfiniBand) stays off physics;
    NVIDIA/nccl#1250 (one NIC per GPU, answered as physics) stays where main leaves it (insufficient_data, the network
    ask)."""
    assert _paste("ut26f/swift1825.md")[0].category != "expected_physics"
    assert _paste("ut20a/nccl1250.md")[0].category in ("expected_physics", "insufficient_data")


@pytest.mark.parametrize("text", [
    "Multi-node training slow\n\nTraining Llama 7B with DeepSpeed on 2 nodes with 8x A100 each, connected with "
    "InfiniBand. It is slower on 2 nodes than on one node. Is this normal?",
    "Scaling over machines\n\nFine-tuning with torchrun on 3 machines of 4 A100 each. Adding the second and third "
    "machine does not make training any faster. Why?",
])
def test_slower_with_more_machines_is_not_in_box_physics(text):
    verdict, found = judged_issue(text)
    assert verdict.category != "expected_physics" and "ticket.scaling_question" not in found


def test_more_gpus_in_one_box_keeps_the_scaling_answer():
    verdict, found = judged_issue("Training not faster on 8 GPUs\n\nTraining Llama 7B with DeepSpeed on one node "
                                  "with 8x A100. It is not faster on 8 GPUs than on 4 GPUs. Is this normal?")
    assert verdict.category == "expected_physics"


# =========================================================================== 6. GeForce boards without P2P

@pytest.mark.parametrize("text,allowed", [
    ("TP=2 on 2x RTX 4090 slower than I expected\n\nvllm with Llama 3 8B, tensor-parallel-size 2 on two RTX 4090. It "
     "is slower than I expected. Is something wrong?", ("p2p_disabled",)),
    ("Two 4090s are not faster than one\n\nvllm with Mistral 7B: TP=1 on one RTX 4090 vs TP=2 on two RTX 4090. TP=2 "
     "is not faster. Is this normal?", ("p2p_disabled",)),
    ("2x RTX 4090 TP2 decode speed\n\nvllm, Llama 3 8B bf16, --tensor-parallel-size 2 on two RTX 4090 (PCIe 4.0 x16 "
     "each). Single request decode is 95 tok/s. Is this normal?", ("expected_physics",)),
    ("2x RTX 3090 with NVLink slower than expected\n\nvllm TP=2 on two RTX 3090 with an NVLink bridge, Llama 2 13B. "
     "It's slower than I expected. Why?", ("expected_physics",)),
])
def test_boards_without_p2p_get_a_weak_lead_or_physics(text, allowed):
    """The lead is the board's class, never a confident answer: s005 / s012 (development, p2p_disabled with
    expected_physics accepted) label the host-staged all-reduce this way."""
    verdict, _ = judged_issue(text)
    assert verdict.category in allowed
    assert verdict.category != "p2p_disabled" or verdict.confidence < 0.5


def test_p2p_forced_off_on_4090_is_the_setting():
    verdict, found = judged_issue("2x 4090 slow\n\nvllm TP=2 on two RTX 4090 with NCCL_P2P_DISABLE=1 set. It is "
                                  "slower than one GPU. Why?")
    assert verdict.category == "p2p_disabled" and "topology.p2p_forced_off" in found


# =========================================================================== 7. left from reviews

def test_dcgm_fields_missing_on_a_board_that_has_them_is_not_healthy():
    """review36b's bd_dcgm_a100: the by_design row's `fault_in` names the A100, so nothing_broken may not call it
    normal; the P100 (the row's own setting, NVIDIA/DCGM#47) still is."""
    verdict, found = judged_issue("DCGM profiling metrics missing on A100\n\ndcgm-exporter on our A100 nodes: the "
                                  "DCGM_FI_PROF_* metrics are missing, only the basic fields are exported. Why?")
    assert verdict.category != "healthy" and "ticket.nothing_broken" not in found
    assert _paste("bydesign36/dcgm47.md")[0].category == "healthy"


@pytest.mark.parametrize("text", [
    "Ollama hangs on 2x RTX 3090\n\nOllama with llama3 70b split across two RTX 3090. After a few prompts the "
    "generation hangs and never returns. Why?",
    "Ollama stuck with two 3090s\n\nRunning mixtral in Ollama on two RTX 3090 (no NVLink). The model loads fine but "
    "the first request gets stuck forever. Single GPU models work. What is wrong?",
])
def test_a_layer_split_hang_on_boards_without_p2p_is_no_p2p_verdict(text):
    verdict, found = judged_issue(text)
    assert verdict.category != "p2p_disabled" and found["ticket.hang_on_pcie"].confidence < 0.4


@pytest.mark.parametrize("text", [
    # NCCL's collectives on the same boards: the P2P lead stays (old drivers offered 4090 P2P that hung)
    "vllm hangs at TP=2 on 2x 4090\n\nvllm --tensor-parallel-size 2 on two RTX 4090 hangs at startup after 'Loading "
    "model weights'. With TP=1 it works. Why?",
    # a layer split on boards with PCIe P2P: peer copies can be blocked
    "llama.cpp hangs on 2x RTX A6000\n\nllama-server with a 70B model split over two RTX A6000 hangs on the first "
    "request. One GPU works. Why?",
])
def test_the_p2p_lead_stays_where_peer_traffic_runs(text):
    verdict, found = judged_issue(text)
    assert found["ticket.hang_on_pcie"].confidence >= 0.5


@pytest.mark.parametrize("text", [
    "guided_json very slow\n\nvllm 0.4 on one A100 80GB with Mistral 7B. Guided_json ~70 tok/s, non-guided "
    "~800 with 16 "
    "concurrent requests. Is this expected?",
    "Structured output slow\n\nvllm on an H100 with Llama 3 8B, one request. Without guided_json: 110 tok/s. With "
    "guided_json (a JSON schema with 20 fields): 35 tok/s. Why so slow?",
])
def test_guided_json_with_and_without_names_the_host_cost(text):
    """The constraint's host-side cost is read beside whatever figure check answers (hostbound36)."""
    verdict, found = judged_issue(text)
    assert found["ticket.constrained_decoding"].category == "host_bound"
    assert verdict.category in ("host_bound", "expected_physics")


def test_sampling_time_beside_an_oom_answers_the_oom():
    """(review38, fixed) the catalog's message outranks a figure fit (engine.FAILURE_MESSAGES) and the sampler's share
    is a lead below the failure (ticket_rules.sampling_bound)."""
    text = ("llama.cpp slow, then CUDA out of memory\n\nOn an RTX 3090 with a 13B Q4_K_M model.\n\n```\n"
            "llama_print_timings:      sample time =  6000.00 ms /   100 runs   (   60.00 ms per token,    "
            "16.67 tokens "
            "per second)\nllama_print_timings:        eval time =  1000.00 ms /   100 runs   (   10.00 ms per token,   "
            "100.00 tokens per second)\n```\n\nAfter a while it stops with CUDA error: out of memory. Why?")
    verdict, _ = judged_issue(text)
    assert verdict.category not in ("host_bound", "expected_physics")



def test_new_patterns_are_bounded():
    """The patterns this pass added or widened chain no unbounded repeats a long run of one character alone can take,
    nor nest one in another."""
    from benchmarks.regex_worst_case import runaway_repeats
    from rules import failure_words
    patterns = [failure_words._FAILED, software_pairs._LENGTH_VALUE, software_pairs._GPUS_USED, software_pairs._MACHINE,
                *software_pairs._ONE_SIDED.values(), cpu_only._NOT_SETUP, cpu_only._FALLBACK, cpu_only._GPU_WORD]
    for p in patterns:
        assert runaway_repeats(p.pattern, p.flags) == [], p.pattern[:30]

"""Host-side bottlenecks as real reporters word them (session s29, pass ut29e, issue 11; tests/data/ut29e, SOURCES.md
gives each thread's address, the answer it settled and the verdict before and after). Three general defects, fixed
in general and tested on the pastes that showed them, on other threads' sentences, and on real near-misses:

- a CPU core at 100 % while the server serves nothing was read as a host that starves the GPUs (host_bound 0.69 on
  InternLM/lmdeploy#3783): it is a polling loop (rules.ticket_rules._CPU_WITH_NO_WORK);
- copies of a model on more GPUs (Triton instances, replicas) with the same total and low utilisation were told
  "the ranks wait on each other", a tensor-parallel explanation with no TP in the ticket (triton server#269), or left
  undecided (#239): independent copies add throughput unless what feeds them does not grow
  (rules.ticket_rules._copies_not_shards, rules.ticket_feeder.copies_flat, claims._NO_EFFECT's total held);
- one load-generator process against several that reach more was not read at all (triton server#14): the client
  is the limit (rules.ticket_feeder.client_bound).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from rules import claims, ticket_feeder
from rules.ticket_rules import _CPU_WITH_NO_WORK, _copies_not_shards

DATA = Path(__file__).parent / "data" / "ut29e"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


# --------------------------------------------------------------------------- a core busy with no work

@pytest.mark.parametrize("name", ["lmdeploy3783.md", "sglang9863.md"])
def test_cpu_pegged_while_idle_is_no_host_bound(name):
    """InternLM/lmdeploy#3783 (--tp 2, one thread at 100 % 'even when the API is idle') and sgl-project/sglang#9863
    (--tp 2, the scheduler at 100 % 'without any incomming requests ... change busy waiting to sleep'): a polling
    loop, with no slowdown to explain."""
    r = verdict(name)
    assert r["verdict"]["category"] != "host_bound"
    assert finding(r, "ticket.cpu_bound") is None


@pytest.mark.parametrize("sentence", [
    "When running lmdeploy serve api_server with the argument --tp 2, one thread consistently consumes 100% CPU even "
    "when the API is idle.",  # InternLM/lmdeploy#3783's title
    # InternLM/lmdeploy#3777 (the same reporter's feature request)
    "When lmdeploy is serving the api_server with args \"--tp 2\", it leads to 100% CPU usage by a single thread even "
    "without user access to the API interface.",
    # vllm-project/vllm#16968
    "In vllm version 0.8.3, I launched the deepseek-32B model using four 4090 cards. Even without inference, the CPU "
    "usage rate was at 100%.",
    "sglang::schedul is running 100% on 2 cores without any incomming requests.",  # sgl-project/sglang#9863
    # ml-explore/mlx-lm#1500 (root cause: a non-blocking queue poll in the server's worker loop)
    "Running mlx_lm.server leaves a background thread spinning at ~100% CPU (a full core) whenever the server is idle",
])
def test_no_work_sentences_are_read(sentence):
    assert _CPU_WITH_NO_WORK.search(sentence)


@pytest.mark.parametrize("sentence", [
    # ollama/ollama#5756: two GPUs at ~40 % under load with one thread at 100 %, a working server
    "When I see the CPU usage, only 1 thread is being used and hits 100%.",
    # haotian-liu/LLaVA#1222: the GPU at ~20 % while one core is at 100 %, during inference
    "On the other hand my CPU utilization is at 100% (used only one core on a 5900x).",
    # ollama/ollama#6993: the GPUs idle beside a pegged core is the host_bound lead, not idle words of the server
    "CPU only use one core at 100%, while gpu cores mostly run at at less than 20%.",
])
def test_working_server_sentences_are_not_read_as_idle(sentence):
    assert not _CPU_WITH_NO_WORK.search(sentence)


def test_pegged_core_beside_idle_gpus_stays_host_bound():
    """ollama/ollama#5756's description: two GPUs hover around 40 % while one CPU thread hits 100 % under parallel
    requests; the idle guard must not silence it."""
    facts = said("I have 2 GPUs and have set the OLLAMA_NUM_PARALLEL environment variable. When multiple requests "
                 "come in, I can see the model being loaded on both the GPU memory, but the GPU usage hovers around "
                 "40% for both of them. When I see the CPU usage, only 1 thread is being used and hits 100%.")
    from rules.ticket_rules import cpu_bound
    assert [f.category for f in cpu_bound(facts)] == ["host_bound"]


def test_ollama_7902_stays_healthy():
    """ollama/ollama#7902: one core at 100 % beside a GPU running llama3.2; rick-github (maintainer): 'The CPU usage
    for llama3.2 sounds normal, as the CPU is busy waiting on the GPUs'. Healthy before and after."""
    r = verdict("ollama7902.md")
    assert r["verdict"]["category"] == "healthy"


# --------------------------------------------------------------------------- copies of the model that add nothing

def test_triton_269_copies_flat_is_host_bound():
    """triton-inference-server/server#269: two GPUs give the one GPU's total at ~50 % utilisation each; the reporter:
    'This can be circumvented by launching multiple trtserver instances'. Before: expected_physics, 'the ranks wait
    on each other' (no tensor parallelism in the ticket)."""
    r = verdict("triton269.md")
    assert r["verdict"]["category"] == "host_bound"
    util = finding(r, "ticket.gpu_utilisation")
    assert util is not None and util["category"] == "host_bound" and "ranks wait" not in util["title"]
    assert finding(r, "ticket.copies_flat") is not None


def test_triton_239_copies_flat_is_host_bound():
    """triton-inference-server/server#239 (tianhaox): 1 -> 2/4/8 V100, 'the throughtput stays around ~2500
    infer/sec', 'Requests are being balanced to all GPUs'; mrjackbo: several trtis instances maxed out 4 V100."""
    r = verdict("triton239.md")
    assert r["verdict"]["category"] == "host_bound"
    assert finding(r, "ticket.copies_flat") is not None


@pytest.mark.parametrize("sentence", [
    "But if you deploy the model to two gpus,\nThe total throughput is similar",  # triton server#269
    # triton server#239 (the reporter's spelling)
    "When I try to expand the deployment from 1 V100 to 2/4/8 V100 on the server, the throughtput stays around ~2500 "
    "infer/sec.",
])
def test_total_held_as_gpus_grow_is_read(sentence):
    assert claims.more_gpus_no_gain(said(sentence))


@pytest.mark.parametrize("text", [
    # vllm-project/vllm#6131 (UbeCc, after the maintainer's answer): tensor parallelism named, then separate servers
    "Yes I did use `--tensor-parallel-size 8`, and I tried to start 8 servers. It works well",
    # vllm-project/vllm#6131 (hmellor, maintainer): one instance over 8 GPUs by tensor parallelism
    "Are you running one instance of vLLM with `--tensor-parallel-size 8`? Using such a large tensor parallel size on "
    "such a small model will lead to poor performance.",
])
def test_tensor_parallelism_named_rules_copies_out(text):
    assert _copies_not_shards(said(text)) is None


def test_copies_named_without_tp_are_read():
    facts = said("This phenomena exists for different backends and similarly, close to a upper limit ~2400 "
                 "infer/sec\nThis can be circumvented by launching multiple trtserver instances.")
    assert _copies_not_shards(facts) is not None


# --------------------------------------------------------------------------- the load generator as the limit

def test_triton_14_client_bound():
    """triton-inference-server/server#14: 'I cannot max out my two GPUs using one instance of perf_client, but using
    multiple instances I can'. deadeyegoodwin (maintainer): '-a' makes 'a single thread ... drive the entire load
    and that will eventually be limited by that thread'."""
    r = verdict("triton14.md")
    assert r["verdict"]["category"] == "host_bound"
    assert finding(r, "ticket.client_bound") is not None


@pytest.mark.parametrize("text", [
    # huggingface/text-generation-inference#1315: requests sent one at a time on purpose
    "All of the requests are sent **non-concurrently** to eliminate any client-server factor, and the metric of "
    "interest here is simply **latency per token (in ms) for each request**",
    # triton-inference-server/server#8515: the reporter rules the client out
    "I have confirmed that I am using multi-process + multi-thread to ensure sufficient request pressure.",
    # triton-inference-server/server#2765 (0wu, maintainer, asking): a question about the client, no comparison
    "What's your client to generate requests? Could you share your command line?",
])
def test_client_near_misses_are_not_read(text):
    assert ticket_feeder.client_limits(said(text)) == []


def test_ddp_training_same_it_per_s_is_not_copies_flat():
    """A near-miss found by tests/test_paraphrases.py (t027, kohya-ss sd-scripts: 'DDP with two H100 gives same it/s
    as single GPU'): data-parallel training keeps each replica's steps per second and doubles the global batch, the
    expected scaling; ticket.copies_flat read it as a flat total before it stepped aside for training."""
    bundle = Path(__file__).parent / "data" / "paraphrases" / "t027-sdscripts-2xh100-ddp-same-speed-b"
    r = report_json("ticket", str(bundle))
    assert finding(r, "ticket.copies_flat") is None
    assert r["verdict"]["category"] != "host_bound"


@pytest.mark.parametrize("text", [
    # tests/test_transport_words.py's network lead: DDP replicas all-reduce gradients over the Ethernet between nodes
    "DDP on 2 machines with 4x 3090 each is slower than one machine; the machines are connected with 1 Gbps ethernet.",
    # triton-inference-server/server#269 with NCCL named would be copies that synchronise: not the feeder's
    "This can be circumvented by launching multiple trtserver instances. NCCL all-reduce runs between them.",
])
def test_copies_that_synchronise_are_not_read(text):
    assert _copies_not_shards(said(text)) is None

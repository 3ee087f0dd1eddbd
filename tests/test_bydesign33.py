"""Issue 11 (session s33, pass bydesign33): more behaviour the tools document as how they work, which reporters take
for faults, answered from rules/catalog/by_design.toml by ticket.documented_behaviour.

Each new row is tested on two paraphrases written from its documentation (tests/data/bydesign33/DOCS.md), on a
negation or near-miss that carries a fault and must neither fire the row nor be answered `healthy`, and on the real
first posts kept in tests/data/bydesign33 (threads and settled answers in its SOURCES.md).
"""

from pathlib import Path

import pytest
from test_bydesign31 import answer, documented, said  # the same readers of a paste and of a sentence

from diagnose.bundle import read_bundle
from rules import catalog
from rules.documented_behaviour import documented_behaviour_seen

DATA = Path(__file__).parent / "data" / "bydesign33"
NEW_ROWS = ("cuda_context", "memory_below_nameplate", "llama_server_slots", "ollama_one_gpu", "ollama_num_parallel",
            "nccl_net_plugin_info", "nccl_single_node_socket", "nvidia_smi_persistence")


def test_new_rows_cite_their_documentation():
    rows = {row["key"]: row for row in catalog.documented_behaviours()}
    for key in NEW_ROWS:
        assert rows[key]["url"].startswith("https://"), key
        assert rows[key].get("unless"), key  # each keeps a real fault out


PARAPHRASES = [
    ("cuda_context",
     "# nvidia-smi shows 400 MiB after creating a tiny tensor\n\nI start python, import torch and "
     "create a single float "
     "tensor on cuda:0. nvidia-smi now lists my process with about 400 MiB, but torch.cuda.memory_allocated() returns "
     "512 bytes. Where does the rest go?",
     "# Memory used before any model is loaded\n\nWith PyTorch on an RTX 4090, right after "
     "torch.cuda.init() and before "
     "loading anything, each Python process already takes roughly 300MB of GPU memory in nvidia-smi. Can this overhead "
     "be released?"),
    ("memory_below_nameplate",
     "# A100 80GB only shows 81920MiB\n\nnvidia-smi on our A100 80GB reports 81920MiB total, and the "
     "L40S shows 46068MiB "
     "instead of 48GB. Are we missing memory?",
     "# RTX 3090 total memory smaller than advertised\n\nThe card is sold as 24 GB but nvidia-smi says 24576MiB and "
     "PyTorch reports 23.69 GiB total memory. Is part of my VRAM broken?"),
    ("llama_server_slots",
     "# llama-server context per slot smaller than -c\n\nI run llama-server -c 8192 -np 4 with a 7B GGUF and the log "
     "prints n_ctx_slot = 2048 for each slot. Why is my context only 2048?",
     "# llama.cpp server divides context among parallel slots\n\nWith --parallel 2 and --ctx-size 32768 on llama.cpp "
     "each request is limited to 16384 tokens. Is the context size shared by the slots?"),
    ("ollama_one_gpu",
     "# Ollama only uses one of my two GPUs\n\nI have two RTX 3090 and run llama3:8b with Ollama. "
     "nvidia-smi shows only "
     "GPU 0 holding the model, GPU 1 stays empty. Is multi-GPU not working?",
     "# ollama not spreading model across all gpus\n\nOn a server with 4x A100 Ollama loads "
     "qwen2.5:14b on a single GPU "
     "and the other three are unused. How do I make it use all of them?"),
    ("ollama_num_parallel",
     "# OLLAMA_NUM_PARALLEL makes VRAM usage grow\n\nWhen I set OLLAMA_NUM_PARALLEL=4 the same model takes several GB "
     "more VRAM than with OLLAMA_NUM_PARALLEL=1, according to ollama ps. Why does the parallel setting need more "
     "memory?",
     "# ollama ps shows larger size with parallel requests\n\nOllama reports a bigger model size in ollama ps after I "
     "enabled 4 parallel requests; num_ctx is 8192. Is the model duplicated?"),
    ("nccl_net_plugin_info",
     "# No plugin found (libnccl-net.so) message\n\nOn a single node with 8 GPUs the log shows NCCL INFO NET/Plugin : "
     "No plugin found (libnccl-net.so), using internal implementation. Do I need to install this plugin?",
     "# libnccl-net.so missing?\n\nMy PyTorch DDP job prints that NCCL is unable to load libnccl-net.so (cannot open "
     "shared object file) but then trains normally. Should I install a network plugin for NCCL?"),
    ("nccl_single_node_socket",
     "# NCCL INFO NET/IB : No device found\n\nTraining with torchrun on one machine with 4 GPUs "
     "prints NCCL INFO NET/IB "
     ": No device found and NCCL INFO Using network Socket. Training runs fine. Is something wrong with my InfiniBand?",
     "# Using network Socket on my workstation\n\nOur single node has two A6000 and no InfiniBand "
     "card; NCCL_DEBUG=INFO "
     "says Using network Socket. Does NCCL send the all-reduce over TCP?"),
    ("nvidia_smi_persistence",
     "# nvidia-smi takes 5 seconds\n\nEvery time I run nvidia-smi on our 8-GPU server it takes around 5 seconds to "
     "print, when no program is using the GPUs. Persistence-M shows Off. Is the driver broken?",
     "# nvidia-smi slow on an idle box\n\nnvidia-smi takes several seconds on our idle DGX; nothing is running on the "
     "GPUs. Should we worry?"),
]


@pytest.mark.parametrize("key,first,second", PARAPHRASES, ids=[p[0] for p in PARAPHRASES])
def test_paraphrases_are_answered_from_the_documentation(tmp_path, key, first, second):
    for text in (first, second):
        verdict, findings = said(tmp_path, text)
        assert verdict.category == "healthy", text
        assert documented(findings) == key, text


# The same observation with a fault beside it, or the behaviour ruled out: the row stays silent and nothing calls it
# normal.
NEAR_MISSES = [
    ("cuda_context",
     "# GPU memory grows every iteration\n\nIn my PyTorch loop a tiny tensor is created each step and nvidia-smi shows "
     "the process growing by 300 MB every iteration until CUDA out of memory."),
    ("memory_below_nameplate",
     "# Card shows less memory after Xid errors\n\nnvidia-smi shows 23GB instead of 24GB on one RTX "
     "3090 and dmesg lists "
     "Xid 63 with retired pages. The other cards show the full size."),
    ("llama_server_slots",
     "# llama-server crashes with parallel slots\n\nWith llama.cpp llama-server -np 4 the context is split between the "
     "slots and the server aborts with GGML_ASSERT as soon as two requests run."),
    ("ollama_one_gpu",
     "# Ollama only uses one GPU and the CPU\n\nOllama only uses one of my two RTX 3090 GPUs and puts the rest of the "
     "70B model on the CPU, so it is very slow."),
    ("ollama_one_gpu",
     "# Ollama only detects one GPU\n\nOllama only detects one of my two GPUs after install; nvidia-smi lists both "
     "GPUs."),
    ("nccl_net_plugin_info",
     "# Hang after No plugin found\n\nNCCL prints No plugin found (libnccl-net.so) on our node and then the job hangs "
     "at the first all_reduce."),
    ("nccl_single_node_socket",
     "# Using network Socket across two nodes\n\nWe train on two nodes with 8 GPUs each; NCCL says NET/IB : No device "
     "found and Using network Socket, and the all-reduce bandwidth is only 1 GB/s."),
    ("nvidia_smi_persistence",
     "# nvidia-smi hangs\n\nnvidia-smi takes forever and then prints ERR! for GPU 3, with no program running on the "
     "GPUs."),
    ("nvidia_smi_persistence",
     "# nvidia-smi slow with persistence on\n\nPersistence mode is enabled and nvidia-smi still takes 10 seconds when "
     "the GPUs are idle."),
    ("ollama_keep_alive",
     "# Ollama never frees memory\n\nOllama does not free the GPU memory even after 30 minutes idle although "
     "keep_alive is 5m."),
]


@pytest.mark.parametrize("key,text", NEAR_MISSES, ids=[f"{k}-{i}" for i, (k, _) in enumerate(NEAR_MISSES)])
def test_near_misses_do_not_fire(tmp_path, key, text):
    verdict, findings = said(tmp_path, text)
    assert documented(findings) != key
    if key != "ollama_one_gpu" or "detects" not in text:  # a detection question stays open, not a fault verdict
        assert verdict.category != "healthy" or documented(findings) is None


# Real first posts (tests/data/bydesign33/SOURCES.md): the settled answer is that the thing observed is by design.
REAL_DOCUMENTED = {
    "nvforum_t4_15g.md": "memory_below_nameplate",
    "ollama1251.md": "ollama_keep_alive",
    "ollama2974.md": "ollama_keep_alive",
    "pytorch28113.md": "cuda_context",
    "pytorchmemutils19.md": "cuda_context",
}
REAL_HEALTHY = ("nccl864.md", "ollama1339.md", "ollama931.md", "tgi1863.md", "tgi547.md", "vllm2304.md")


@pytest.mark.parametrize("name,key", REAL_DOCUMENTED.items())
def test_real_posts_answered_from_the_documentation(name, key):
    verdict, findings = answer(DATA / name)
    assert verdict.category == "healthy"
    assert documented(findings) == key


@pytest.mark.parametrize("name", REAL_HEALTHY)
def test_real_posts_healthy(name):
    verdict, _ = answer(DATA / name)
    assert verdict.category == "healthy"


# (bydesign36) settled by design (ggml-org/llama.cpp#4289: "This is not a bug - just increase the --ctx-size"); the
# issue template's checkbox "... have a new bug or useful enhancement to share" no longer shuts the row: a reporter's
# own label is no fault (documented_behaviour passes labels=False to fault_context).
def test_llamacpp4289_context_split():
    verdict, findings = answer(DATA / "llamacpp4289.md")
    assert verdict.category == "healthy" and documented(findings) == "llama_server_slots"


# (bydesign36) settled by design (NVIDIA/nccl#162: "That INFO message is normal behaviour"); the reporter calling the
# INFO line an error ("i keep getting error") is a label, not a fault line, and no longer shuts the row.
def test_nccl162_plugin_info():
    verdict, findings = answer(DATA / "nccl162.md")
    assert verdict.category == "healthy" and documented(findings) == "nccl_net_plugin_info"


@pytest.mark.xfail(strict=True, reason="nvidia_smi_persistence fires, but 'nothing runs on the GPUs' "
                                       "with 'fast while a "
                   "training job is running' is read as a low-utilisation reading and answered host_bound at 0.69 "
                   "(ticket.gpu_utilisation), which outranks the documented behaviour's 0.6")
def test_nvidia_smi_slow_when_idle_paraphrase(tmp_path):
    verdict, findings = said(tmp_path, "# nvidia-smi slow to respond when GPUs idle\n\nnvidia-smi is "
                                       "very slow (several "
                             "seconds) when nothing runs on the GPUs, but fast while a training job is running. Why?")
    assert verdict.category == "healthy"


# Words close to a row's that describe something else: a small card, a large process, a CPU core.
UNRELATED = [
    "# can I run 70B\n\nMy RTX 3060 has only 12 GB of VRAM. The model card says 40 GB needed but I only have 12 GB. "
    "Can Ollama run it on two GPUs?",
    "# memory\n\nIn PyTorch after training started nvidia-smi shows the process uses 7000 MB. Is that normal?",
    "# ollama threads\n\nOllama only uses one CPU core while my two GPUs sit idle.",
]


@pytest.mark.parametrize("text", UNRELATED)
def test_unrelated_words_fire_no_new_row(tmp_path, text):
    (tmp_path / "issue.md").write_text(text)
    seen = documented_behaviour_seen(read_bundle([tmp_path / "issue.md"]))
    assert seen is None or seen[0]["key"] not in NEW_ROWS


def test_rows_are_read_only_in_their_setting(tmp_path):
    """The same words without the tool the row belongs to do not fire it."""
    (tmp_path / "issue.md").write_text("# only one GPU used\n\nvLLM only uses one of my two GPUs; the second GPU stays "
                                       "idle.")
    seen = documented_behaviour_seen(read_bundle([tmp_path / "issue.md"]))
    assert seen is None or seen[0]["key"] != "ollama_one_gpu"

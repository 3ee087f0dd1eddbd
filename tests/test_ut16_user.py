"""Defects found by answering real public threads as a support engineer (session s16, tests/data/ut16; SOURCES.md
gives each thread's address and the verdict before and after), each fixed in general and tested here on the paste that
showed it and on another real sample or text written here (paraphrases, negations, other engines):

- llama-bench's test names ("pp512", "tg128") are prompt lengths, not a pipeline degree (geerlingguy/ai-benchmarks#44);
- a model's version glued before a GPU name ("Qwen1.5 RTX 5880") is no GPU count, nor is the GPU index of a pasted
  `nvidia-smi` table row; Chinese counts glued to 卡 ("四卡", "两卡") are (Langchain-Chatchat#3764, HuatuoGPT-II#14);
- an engine a form answers no to ("是否启用VLLM：否") is not the engine in use (Langchain-Chatchat#3764);
- nvidia-smi's clock figures ("Gfx 3090 SM 3090") are no GPU names (ikawrakow/ik_llama.cpp#629);
- a launch command pasted one flag a line without its backslashes keeps its flags ("--disable-cuda-graph"), and
  "2x8xH100" counts 16 GPUs on 2 nodes (sgl-project/sglang#3719);
- an engine upgraded "to version v0.4.3.post2-cu125", its name the subject of the sentence, is a release change
  (sgl-project/sglang#3719);
- "CUDA OOM" / "GPU OOM" is the out-of-memory error as people write it (vllm-project/vllm#36772);
- a "token batch of 10 tokens" is no decode batch of 10 (NVIDIA/TensorRT-LLM#12933);
- a topology matrix with its rows cut judges no TP size, rather than "none over NVLink" (NVIDIA/nccl#1591);
- isolated ranks whose NCCL log shows the network say so, not shared memory (NVIDIA/nccl#1536).
"""

from pathlib import Path

import pytest
from conftest import report_json

from diagnose.artifacts import issue_md, launch
from diagnose.artifacts.text import engine_named
from diagnose.evidence import Workload
from rules import claims
from rules.catalog import engine_errors

DATA = Path(__file__).parent / "data" / "ut16"


def report(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def finding(r: dict, rule: str) -> dict:
    return next(f for f in r["findings"] if f["rule"] == rule)


def workloads(text: str) -> list[Workload]:
    return [w for w in issue_md.parse(text, "issue.md") if isinstance(w, Workload)]


def first(text: str, field: str):
    return next((getattr(w, field) for w in workloads(text) if getattr(w, field) is not None), None)


# --------------------------------------------------------------------------- llama-bench's test names

def test_llama_bench_test_names_are_no_pipeline_degree():
    r = report("geerling44.md")
    assert all(w.get("pp") is None for w in r["facts"]["workload"])
    # the figure is set against one GPU's pace, not a 512-stage pipeline (was "beats 56-83 tok/s"); since layoutab32
    # the two cards of this "Dual GPU setup" are read as llama-bench's default layer split, judged by its own rule
    f = finding(r, "ticket.layer_split_rate")
    assert "104.16" in f["title"] and r["verdict"]["category"] == "expected_physics"


@pytest.mark.parametrize("text, pp", [
    # another real llama-bench table (ggml-org/llama.cpp#8684, `llama-bench --mmap 0,1`)
    ("| llama 7B Q4_0                  |   3.83 GiB |     7.24 B | CUDA       |  99 |    0 |         pp512 |"
     "    304.20 ± 0.09 |\n"
     "| llama 7B Q4_0                  |   3.83 GiB |     7.24 B | CUDA       |  99 |    0 |         tg128 |"
     "     75.97 ± 0.04 |", None),
    ("llama-bench -p 512 -n 128 -pg 512,128 gives pp512+tg128 at 41 t/s", None),
    # a pipeline degree written glued stays one
    ("We serve Llama-3-70B with TP4 PP2 on two nodes.", 2),
    ("pipeline parallel size 4 across the 4 nodes", 4),
])
def test_pipeline_degree_or_llama_bench_test(text, pp):
    assert first(text, "pp") == pp


# --------------------------------------------------------------------------- GPU counts

def test_chinese_ticket_reads_four_cards_and_no_engine_answered_no():
    facts = report("chatchat3764.md")["facts"]["workload"]
    gpu = next(w for w in facts if w.get("gpu"))
    assert (gpu["gpu"], gpu["gpu_count"]) == ("RTX 5880 ADA", 4)  # was 5: "Qwen1.5 RTX 5880" read as 5 GPUs
    assert not any((w.get("framework") or "").lower() == "vllm" for w in facts)  # "是否启用VLLM：否": not vLLM


@pytest.mark.parametrize("text, count", [
    # real titles of other threads (PaddlePaddle/PaddleOCR#3715, QwenLM/Qwen#744)
    ("我发现我每次开四卡跑模型还不如单卡跑的快，有人遇到这个问题么？", 4),
    ("单机2卡推理，速度反而变慢，如何实现并行", 2),
    ("单机两卡加载13B模型进行推理很慢", 2),
    # a single card is the comparison's baseline, no count (as "one GPU" in English); "卡成狗" is "stuck"
    ("单卡推理很慢", None),
    ("用四卡后就卡成狗了", 4),
    ("后来就卡成狗了", None),
])
def test_chinese_card_counts(text, count):
    assert first(text, "gpu_count") == count


@pytest.mark.parametrize("text, count", [
    ("Qwen1.5 RTX 5880 ADA is slow", None),
    ("Running Llama-3 4090 with vLLM", None),
    ("v0.4.3 on 8 H100 is slow", 8),
    ("I have 4 RTX 4090", 4),
])
def test_a_version_before_a_gpu_is_no_count(text, count):
    assert first(text, "gpu_count") == count


def test_nvidia_smi_rows_give_no_count_of_their_index():
    # the table's second row, "|   1  NVIDIA GeForce RTX 4090  Off |", was read as one GPU against the prose's two
    text = (DATA / "huatuo14.md").read_text()
    assert first(text, "gpu_count") == 2
    # another real table (noonghunna/club-3090#766: a 5090 and a 3090 Ti): its row index 1 is no count either
    club = (Path(__file__).parent / "data" / "ut15" / "club3090_766" / "issue.md").read_text()
    # (its prose counts no GPUs of its own: "5090+3090 Ti" names two cards, "2×3090" is the reference table's box)
    assert first(club, "gpu_count") is None


@pytest.mark.parametrize("text, count", [
    # a row pasted without its pipes is still the table's (a review's example), as is one with its bus id after "|"
    ("7  NVIDIA H100 80GB HBM3   On  00000000:03:00.0 Off", None),
    ("  3  Tesla V100-SXM2-32GB  Off | 00000000:1B:00.0 Off |  0", None),
    ("We serve on 8 H100 80GB HBM3 in one node", 8),
])
def test_nvidia_smi_rows_without_pipes(text, count):
    assert first(text, "gpu_count") == count


@pytest.mark.parametrize("text, gpus, nodes", [
    ("# [Bug] v0.4.3 performance degradation 2x8xH100", 16, 2),
    ("DeepSeek-R1 on 2×8×H200, TP=16", 16, 2),
    ("serving on 8xH100", 8, None),
])
def test_nodes_times_gpus_glued(text, gpus, nodes):
    w = next(w for w in workloads(text) if w.gpu_count)
    assert (w.gpu_count, w.nodes) == (gpus, nodes)


# --------------------------------------------------------------------------- clocks are no GPU names

def test_clock_figures_are_no_gpu_names():
    text = (DATA / "ikllama629.md").read_text()
    named = next(n for n in issue_md.parse(text, "issue.md") if getattr(n, "kind", "") == "gpus_named")
    assert named.text == "5090; 4090"  # was "5090; 4090; 3090": "Max (MHz) : Gfx 3090 SM 3090"


@pytest.mark.parametrize("text, names", [
    ("    Graphics                          : 3090 MHz", []),
    ("  Clocks (MHz)       : Gfx 2407   SM 2407   Mem 10501", []),
    ("One RTX 3090 and a 4090 on PCIe 4.0", ["RTX 3090", "4090"]),
])
def test_gpu_names_beside_clock_labels(text, names):
    assert [m.group(1) for m in issue_md.GPU_NAME.finditer(text)] == names


# --------------------------------------------------------------------------- engines answered no

@pytest.mark.parametrize("text, engine", [
    ("是否启用VLLM：否", None),
    ("Use vLLM: no. We serve with transformers.", "transformers"),
    ("vllm = false, sglang = true", "sglang"),
    ("vLLM: 0.6.3", "vLLM"),
    ("We run vLLM 0.6.3 with TP=2", "vLLM"),
    # a form's lines come joined: the next field starts with a capital; a log line goes on in lower case
    ("Use vLLM: No OS: Ubuntu 22.04", None),
    ('ollama: no compatible GPUs were discovered', "ollama"),
])
def test_engine_answered_no(text, engine):
    assert engine_named(text) == engine


# --------------------------------------------------------------------------- a launch pasted one flag a line

def test_flags_one_a_line_belong_to_the_command():
    r = report("sglang3719.md")
    launched = next(w for w in r["facts"]["workload"] if w.get("framework") == "SGLang")
    assert launched["eager"] is True and launched["tp"] == 16  # "--disable-cuda-graph" on its own line
    rules = {f["rule"]: f for f in r["findings"]}
    assert rules["workload.eager_mode"]["severity"] == "warning"  # was "CUDA graphs are on"
    assert "ticket.engine_versions" in rules  # "sglang was upgraded to version v0.4.3.post2-cu125 ... degraded"


def test_flags_one_a_line_in_another_thread():
    # intel/llm-scaler#164: a vLLM start script pasted with its continuations lost, flags not indented
    text = ("MODEL=/llm/models/DeepSeek-R1-Distill-Qwen-32B\n"
            "python3 -m vllm.entrypoints.openai.api_server\n"
            "--model ${MODEL}\n"
            "--dtype float16\n"
            "--enforce-eager\n"
            "--port 8001\n"
            "--gpu-memory-utilization 0.95\n"
            "--max-model-len 30000\n"
            "--tensor-parallel-size 4\n"
            "2>&1 | tee \"${MODEL_NAME}_server_safe_0.95.log\"\n")
    w = next(w for w in launch.parse(text, "run.sh") if isinstance(w, Workload) and w.framework)
    assert (w.model, w.tp, w.eager, w.max_model_len) == ("/llm/models/DeepSeek-R1-Distill-Qwen-32B", 4, True, 30000)


def test_a_flag_line_under_no_command_stays_its_own():
    text = "echo start\n--tensor-parallel-size 4\n"
    assert not [w for w in launch.parse(text, "x.sh") if isinstance(w, Workload) and w.framework]


# --------------------------------------------------------------------------- an engine moved to a release

@pytest.mark.parametrize("text, moved", [
    ("sglang was upgraded to version v0.4.3.post2-cu125, and the performance was found to be seriously degraded",
     ("sglang", ["0.4.3"])),
    ("vLLM has been updated to 0.8.2 and now decode is much slower", ("vLLM", ["0.8.2"])),
    ("Our vLLM got updated to release 0.6.4rc1 and throughput dropped by half", ("vLLM", ["0.6.4"])),
    # another package moved, a change that made it faster, and a question are no regression of the engine
    ("we upgraded flashinfer to 0.1.6 and it is slower", None),
    ("sglang was upgraded to v0.4.3 and it is faster now", None),
    ("if sglang is upgraded to 0.4.5 will it be slower?", None),
])
def test_engine_moved_to_a_release(text, moved):
    found = claims.engine_moved_to(text)
    assert (found[:2] if found else None) == moved


# --------------------------------------------------------------------------- CUDA OOM

def test_cuda_oom_in_words_is_the_out_of_memory_error():
    r = report("vllm36772.md")
    f = next(f for f in r["findings"] if f["rule"] == "ticket.known_error")
    assert "out of memory" in f["title"]
    assert r["verdict"]["category"] == "other"  # was expected_physics: "nothing points at a fault"


@pytest.mark.parametrize("text, oom", [
    ("the model loads only on GPU 0 and fails with CUDA OOM", True),
    ("At TP=1 we hit a GPU OOM during warm-up", True),
    ("it OOMs on the GPU as soon as the KV cache is allocated", True),
    ("Increasing gpu memory allocation caused CUDA OOM errors.", True),  # a Hugging Face thread's words
    # the Linux OOM killer and Kubernetes' OOMKilled are host memory; a bare "OOM" says not whose
    ("the pod was OOMKilled", False),
    ("the Linux OOM killer ended the vllm process", False),
    ("For --max_num_tokens 1127, OOM.", False),
    # host memory on a GPU machine: the killer, a host OOM, a GPU node/server/pod (a review's sentences)
    ("The OOM killer on the GPU server killed vllm.", False),
    ("host OOM on GPU node 3", False),
    ("The container got OOM killed in the GPU pod by the kubelet.", False),
    ("we saw an OOM-kill on the GPU box last night", False),
    ("we got OOM on GPU 0 at startup", True),
    ("the job went OOM in VRAM at 32k context", True),
])
def test_oom_words(text, oom):
    row = next(r for r in engine_errors() if r.id == "out_of_memory")
    assert bool(row.pattern.search(text)) is oom


@pytest.mark.parametrize("text, quoted", [
    ("It fails with CUDA OOM on the first request.", True),
    ("There is no CUDA OOM, it just hangs.", False),
    ("Could it be a GPU OOM?", False),
])
def test_oom_said_negated_or_asked(text, quoted):
    from diagnose.evidence import Facts
    facts = Facts()
    facts.add(*issue_md.parse("# TP=2 fails\n\n" + text + "\n", "issue.md"))
    assert any(c.data["error"].id == "out_of_memory" for c in claims.known_errors(facts)) is quoted


# --------------------------------------------------------------------------- a batch of tokens

@pytest.mark.parametrize("text, batch", [
    ("[TRT-LLM] [E] Streaming: Failed to process token batch of 10 tokens for request 2", None),
    ("we run a batch of 2048 tokens per step", None),
    ("batch size 8 on 4x A100", 8),
    ("at batch 32 the decode rate is 900 tok/s", 32),
])
def test_a_batch_of_tokens_is_no_decode_batch(text, batch):
    assert first(text, "batch") == batch


# --------------------------------------------------------------------------- a cut topology matrix

def test_cut_topology_judges_no_tp_size():
    r = report("nccl1591.md")
    assert "node.tp_groups" not in {f["rule"] for f in r["findings"]}  # was "none over NVLink" with NV18 everywhere


def test_whole_topology_still_judges_tp_sizes():
    # a whole matrix of another thread (NVIDIA/nccl#1617: 4x H100, NV6 between every pair)
    r = report_json("ticket", str(Path(__file__).parent / "data" / "ut14" / "nccl1617_h100_nv6_topo.txt"))
    f = finding(r, "node.tp_groups")
    assert f["severity"] == "ok" and "NVLink" in f["title"]


# --------------------------------------------------------------------------- isolated ranks over the network

def test_isolated_ranks_over_the_network_say_so():
    f = finding(report("nccl1536.md"), "ticket.isolated_ranks")
    assert "network (IB)" in f["title"]
    assert any(e["measured"] == "IB" for e in f["evidence"])


def test_isolated_ranks_with_shm_lines_stay_shared_memory(tmp_path):
    (tmp_path / "issue.md").write_text(
        "# slow all-reduce\n\nWe schedule 8 containers on the same node, one GPU each.\n\n```\n"
        "node1:29:65 [0] NCCL INFO Channel 00 : 0[47000] -> 1[4e000] via SHM/direct/direct\n```\n")
    f = finding(report_json("ticket", str(tmp_path)), "ticket.isolated_ranks")
    assert "shared memory" in f["title"]


# --------------------------------------------------------------------------- NCCL_IB_DISABLE=1 on one node

def test_ib_disabled_by_the_reporter_across_nodes_names_the_setting():
    r = report("nccl1591.md")  # "serve a vLLM instance on 2 nodes", docker run -e NCCL_IB_DISABLE=1
    f = r["findings"][0]
    assert (f["rule"], f["severity"], r["verdict"]["category"]) == ("nccl.socket_fallback", "critical",
                                                                    "socket_fallback")
    assert "NCCL_IB_DISABLE=1 tells NCCL not to use it" in f["summary"]  # not "a device NCCL could not open"


def test_ib_disabled_in_a_one_node_log_is_a_lead_at_most(tmp_path):
    # Lightning-AI/pytorch-lightning#4420 (a comment's log): two V100 of one host, NCCL_IB_DISABLE=1, the GPUs joined
    # "via P2P/direct pointer"; the setting moves nothing there (was socket_fallback 0.65)
    (tmp_path / "nccl.log").write_text(
        "cdr2584:98188:98188 [0] NCCL INFO Bootstrap : Using ib0:172.19.146.21<0>\n"
        "cdr2584:98188:98188 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
        "cdr2584:98188:98188 [0] NCCL INFO NET/Socket : Using [0]ib0:172.19.146.21<0>\n"
        "cdr2584:98188:98188 [0] NCCL INFO Using network Socket\n"
        "NCCL version 2.12.12+cuda11.7\n"
        "cdr2584:98188:98759 [0] NCCL INFO Channel 00/04 :    0   1\n"
        "cdr2584:98188:98759 [0] NCCL INFO Channel 00 : 0[18000] -> 1[af000] via P2P/direct pointer\n"
        "cdr2584:98188:98759 [0] NCCL INFO Channel 01 : 0[18000] -> 1[af000] via P2P/direct pointer\n")
    r = report_json("ticket", str(tmp_path))
    f = finding(r, "nccl.socket_fallback")
    assert f["severity"] == "info" and r["verdict"]["category"] != "socket_fallback"


def test_ib_disabled_beside_a_one_node_launch_leaves_the_p2p_setting_the_cause(tmp_path):
    (tmp_path / "issue.md").write_text(
        "# TP=2 slow on two RTX 4090\n\nvLLM with TP=2 on one machine with 2x RTX 4090 gives 20 tok/s.\n\n```\n"
        "docker run --gpus all -e NCCL_IB_DISABLE=1 -e NCCL_P2P_DISABLE=1 vllm/vllm-openai "
        "--model meta-llama/Llama-2-13b-hf --tensor-parallel-size 2\n```\n")
    assert report_json("ticket", str(tmp_path))["verdict"]["category"] == "p2p_disabled"  # was socket_fallback


def test_socket_transport_lines_across_nodes_stay_critical(tmp_path):
    (tmp_path / "nccl.log").write_text(
        "node1:1:1 [0] NCCL INFO NCCL_IB_DISABLE set by environment to 1.\n"
        "node1:1:1 [0] NCCL INFO NET/Socket : Using [0]eth0:10.0.0.1<0>\n"
        "node1:1:1 [0] NCCL INFO Using network Socket\n"
        "node1:1:9 [0] NCCL INFO Channel 00/0 : 1[0] -> 0[0] [receive] via NET/Socket/0\n"
        "node2:1:1 [0] NCCL INFO Channel 00/0 : 0[0] -> 1[0] [send] via NET/Socket/0\n")
    f = finding(report_json("ticket", str(tmp_path)), "nccl.socket_fallback")
    assert f["severity"] in ("critical", "warning") and f["confidence"] >= 0.65


# --------------------------------------------------------------------------- a review of the fixes above (issue 11)

@pytest.mark.parametrize("text, pp", [
    # llama-bench's test names in its table, two digits or fewer too (a review's three sentences)
    ("| llama 7B Q4 | 4090 | pp64 | 5000 ± 3 |", None),
    ("| pp16 | 900.1 ± 2 |", None),
    ("pp32 | 1234 t/s", None),
    ("llama-bench -p 64 on two GPUs: PP64 is the prompt test", None),
    # a pipeline degree written glued, upper-case, alone or after the TP degree
    ("TP4PP2 on 8 H100", 2),
    ("We run PP2 with TP=4 on 8xH100", 2),
    ("TP8PP2 over two nodes", 2),
])
def test_glued_pp_is_upper_case_and_no_table_cell(text, pp):
    assert first(text, "pp") == pp


@pytest.mark.parametrize("text, count", [
    ("用十六卡 A100 推理很慢", 16),  # sixteen cards, not six
    ("用十二张 A100 卡推理", 12),
    ("二十张卡跑 A100 集群很慢", 20),
    ("第四卡 A100 温度很高", None),  # the fourth card: an ordinal, no count
    ("每卡 A100 跑一个进程", None),  # per card
    ("用八卡 A100 推理", 8),
])
def test_chinese_ten_compounds_and_ordinals(text, count):
    assert first(text, "gpu_count") == count


@pytest.mark.parametrize("text, engine", [
    # something said of the engine in use, not a field answered no (a review's two sentences, and paraphrases)
    ("vLLM：没有报错，但是TP=2比单卡还慢", "vLLM"),
    ("vLLM: No NCCL errors in the log, just slow.", "vLLM"),
    ("SGLang: No GPU errors, but TP=2 is slower than one card", "SGLang"),
    # answers: the field ends at a space, a stop, or the next label and its colon
    ("是否启用VLLM：否 显卡：4090", None),
    ("Use vLLM: No CUDA version: 12.4", None),
    ("vLLM：不是 框架：transformers", "transformers"),
])
def test_engine_answered_no_needs_a_field_end(text, engine):
    assert engine_named(text) == engine


@pytest.mark.parametrize("line, named", [
    ("Max (MHz) : Gfx 3090   SM  3090   Mem 14001", []),  # column-aligned clock labels
    ("Graphics:  3090", []),
    ("Clocks  SM 1980 MHz on 2x RTX 3090", ["RTX 3090"]),
])
def test_clock_labels_at_any_spacing_name_no_gpu(line, named):
    assert [m.group(1) for m in issue_md.GPU_NAME.finditer(line)] == named

"""Issue 11 n: more host-side and GPU-state wording: the call after a pause being the slow one (idle clocks), one
input at a time named by what is processed, a tool's GPU build slower than its CPU build, and the model (or its memory)
past the GPU's memory, so llama.cpp / Ollama keep layers on the CPU or Windows pages them into shared memory.

Each sentence is written the way these situations are worded in the vendors' and engines' documentation and across
many threads; none is copied from a corpus case. Paraphrases must be read; negations, questions, conditions and
suggestions must not be.
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def observed(text: str, kind: str) -> list[claims.Claim]:
    return [c for c in claims.find(said(text), kind) if not c.guess]


def offload(text: str) -> list[claims.Claim]:
    return [c for c in claims.partial_offload(said(text)) if c.data["form"] == "over_vram"]


def verdict(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


PARAPHRASES = {
    "idle_gap_slow": [
        "After a 30 second pause the next request takes three times longer.",
        "With a two-second delay in between, the next inference jumps from 4 ms to 15 ms.",
        "If the server sits idle for a minute, the following query is noticeably slower.",
        "Following 5 minutes of inactivity, the first generation is 2x slower.",
    ],
    "few_requests": [
        "I decode only one audio file per run.",
        "We send just a single image to the model.",
        "It processes one utterance at a time.",
    ],
    "gpu_build_slower": [
        "The CUDA build is slower than the CPU build on my laptop.",
        "Inference runs slower on the GPU than on the CPU for one sentence.",
        "The CPU is even faster than the GPU for this.",
        "whisper-gpu was much slower than whisper-cpp in my test.",
        "For a single image, CUDAExecutionProvider is slower than CPUExecutionProvider.",
    ],
}

NOT_OBSERVED = {
    "idle_gap_slow": [
        "Even after a 30 second pause the next request is not slower.",
        "A sleep between calls does not make the next call any slower.",
        "Would a pause before the next request make it slower?",
        "Someone suggested that after an idle period the next call is slower.",
    ],
    "few_requests": [
        "We never send only one image; every batch holds 64.",
    ],
    "gpu_build_slower": [
        "The GPU build is not slower than the CPU build.",
        "Is the CUDA backend slower than the CPU backend?",
        "The CPU was never faster than the GPU.",
        "With batch size 1 my new RTX 4090 GPU is slower than my old 3090.",   # two GPUs, no CPU path
        "The GPU version is slower than the published figure.",
    ],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in PARAPHRASES.items() for t in ts])
def test_paraphrase_is_read(kind, text):
    assert observed(text, kind), text


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in NOT_OBSERVED.items() for t in ts])
def test_negation_question_or_suggestion_is_no_observation(kind, text):
    assert not observed(text, kind), text


@pytest.mark.parametrize("text", [
    "The model is larger than my 12 GB of VRAM, and generation crawls.",
    "Once the memory usage exceeded the card's dedicated memory, tokens per second collapsed.",
    "Task Manager shows it using 6 GB of shared GPU memory.",
    "The 70B model doesn't fit in VRAM on a single 4090.",
])
def test_a_model_past_the_gpu_memory_is_read(text):
    found = offload(text)
    assert found and not found[0].negated and not found[0].guess, text


@pytest.mark.parametrize("text", [
    "The model does not exceed the GPU memory; it fits with room to spare.",
    "Everything is on the GPU now; the model no longer exceeds VRAM.",
])
def test_a_model_said_within_the_gpu_memory_is_negated(text):
    assert all(c.negated for c in offload(text)), text


@pytest.mark.parametrize("text", [
    "If the model exceeds VRAM, does Ollama move layers to the CPU?",
    "I wonder whether the model is larger than the GPU memory.",
    "Should I try a model that is bigger than my VRAM?",
])
def test_a_question_or_condition_about_the_memory_is_a_guess(text):
    assert all(c.guess or c.negated for c in offload(text)), text


@pytest.mark.parametrize("text,category", [
    ("Ollama on Windows: once the model's memory use exceeds the dedicated VRAM the GPU sits at 5 % and generation "
     "drops to 2 tok/s. Why so slow?", "host_bound"),
    ("For just one image the GPU build is slower than the CPU build (40 ms against 25 ms). Why?",
     "latency_bound_small_batch"),
    ("With a 5 s pause in between, the next request takes 3x longer than when they come back to back.",
     "throttling"),
])
def test_host_side_situations_get_their_category(tmp_path, text, category):
    assert verdict(tmp_path, text).category == category


@pytest.mark.parametrize("text,category", [
    # vLLM keeps every weight in VRAM: a model past one GPU's memory is a reason for TP, no CPU layers
    ("vllm serve: the model doesn't fit in GPU memory on one A100, so I run --tensor-parallel-size 2 and decode is "
     "slow.", "host_bound"),
    # many inputs at once: the GPU's throughput case, not one input's latency
    ("For a batch of 64 images the GPU build is slower than the CPU build.", "latency_bound_small_batch"),
])
def test_misread_words_give_no_verdict_of_their_own(tmp_path, text, category):
    assert verdict(tmp_path, text).category != category


TOP = """# Slow generation on one RTX 4090

Generation is slow, about 9 tok/s with the 8B model on an RTX 4090, and nvidia-smi shows the GPU {gpu}.
Output of top while it runs:

```
    PID USER      PR  NI    VIRT    RES    SHR S  %CPU  %MEM     TIME+ COMMAND
  41233 ai        20   0   38.1g   6.2g   1.1g R {cpu}   4.9  21:07.13 {cmd}
   1022 root      20   0  124.3m  12.0m   8.1m S   0.3   0.0   0:12.40 systemd-journal
```
"""


@pytest.mark.parametrize("cpu,cmd", [("100.0", "python3"), ("99.7", "ollama"), ("101.3", "llama-server")])
def test_a_pasted_top_row_at_one_core_is_a_host_limit(tmp_path, cpu, cmd):
    assert verdict(tmp_path, TOP.format(cpu=cpu, cmd=cmd, gpu="at 35% utilization")).category == "host_bound"


@pytest.mark.parametrize("cpu,cmd", [
    ("12.0", "python3"),      # a core with time to spare
    ("390.0", "python3"),     # several threads busy: not one saturated loop
    ("100.0", "kworker/3:1"),  # not the serving process
])
def test_a_top_row_below_or_above_one_core_or_another_process_is_no_host_limit(tmp_path, cpu, cmd):
    facts = read_bundle([_write(tmp_path, TOP.format(cpu=cpu, cmd=cmd, gpu="at 35% utilization"))])
    assert not claims.find(facts, "cpu_pegged_row")


def _write(tmp_path, text):
    (tmp_path / "issue.md").write_text(text)
    return tmp_path


def test_a_layer_count_said_in_the_conditional_is_no_setting_in_use():
    found = [c for c in claims.partial_offload(said("-ngl 40 would be slower, so I use -ngl 99 on the 3090."))
             if c.data["form"] == "ngl" and c.data["on_gpu"] == 40]
    assert found and found[0].guess
    used = claims.partial_offload(said("I run it with -ngl 40 and the 3090 is busy only 30 % of the time."))
    assert used and not used[0].guess



@pytest.mark.parametrize("text", [
    "llama.cpp says offloaded 20/33 layers to GPU. The rest of the model does not fit in VRAM, so it spills to "
    "system RAM.",
    "The log shows offloaded 40/81 layers to GPU, and the model is bigger than the card's VRAM.",
])
def test_a_layer_count_then_offload_words_in_one_text_are_both_read(text):
    # (the offloaded count once shadowed the text's cached all-on-GPU answer: the words after it raised TypeError)
    forms = {c.data["form"] for c in claims.partial_offload(said(text))}
    assert "offloaded" in forms and forms & {"words", "over_vram"}

WIDER = {
    "numa_words": [
        "Throughput improves a lot once we pin the server to the same socket as its GPUs.",
        "Binding each worker to the local NUMA node made decode 20% faster.",
        "numactl --cpunodebind=1 gives us about 25% more tokens per second.",
    ],
    "cpu_ab": [
        "Detokenization takes longer than the decode step at high concurrency.",
        "Output processing takes more time than the forward pass once 300 requests stream.",
        "py-spy says most of that goes to the tokenizer.",
        "Client-side TPOT is 3x the server's figure.",
    ],
    "one_slow": [
        "One of the four GPUs is always slower than the rest.",
        "One of our servers takes longer per step than the others.",
        "Each iteration waits on that node.",
    ],
    "few_requests": [
        "Single-stream decode runs at 45 tok/s.",
        "We measure single-request latency with curl.",
        "It is a one-user chat app.",
    ],
}

WIDER_NOT = {
    "numa_words": [
        "Binding the server to the local NUMA node did not help at all.",
        "Would pinning to the same socket make it faster?",
    ],
    "cpu_ab": [
        "Detokenization never takes longer than the decode step.",
        "Tokenization does not take longer than the forward pass.",
        "Is detokenization taking longer than the model?",
    ],
    "one_slow": [
        "One of the nodes is not slower than the others.",
        "Is one of the GPUs slower than the rest?",
    ],
    "few_requests": [
        "This is not a single-stream test; 64 users send requests.",
    ],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in WIDER.items() for t in ts])
def test_wider_paraphrase_is_read(kind, text):
    assert observed(text, kind), text


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in WIDER_NOT.items() for t in ts])
def test_wider_negation_or_question_is_no_observation(kind, text):
    assert not observed(text, kind), text


@pytest.mark.parametrize("text,category", [
    ("Decode doubles when I bind the vLLM server to the socket the GPUs are attached to with numactl on our "
     "dual-socket box.", "numa_affinity"),
    ("Detokenization in the API server takes longer than the decode step once 512 streams run, and the client sees "
     "4x the engine's ITL.", "host_bound"),
    ("One of the eight nodes is consistently slower; every all-reduce waits for it and the job runs at its pace.",
     "straggler"),
])
def test_wider_words_get_their_category(tmp_path, text, category):
    assert verdict(tmp_path, text).category == category


TOPO = """
```
        GPU0    GPU1    GPU2    GPU3    CPU Affinity    NUMA Affinity   GPU NUMA ID
GPU0     X      NV12    SYS     SYS     0-23,48-71      0               N/A
GPU1    NV12     X      SYS     SYS     0-23,48-71      0               N/A
GPU2    SYS     SYS      X      NV12    24-47,72-95     1               N/A
GPU3    SYS     SYS     NV12     X      24-47,72-95     1               N/A
```
"""


@pytest.mark.parametrize("text", [
    "We start it as `taskset -c 0-11 python serve.py`.",
    "The launcher runs numactl --physcpubind=30-40 --membind=1 before the engine.",
    "docker run --cpuset-cpus 4-7 --gpus all our-image",
    "Each worker is pinned to cores 24-35 by our scheduler.",
    "numactl --cpunodebind=1 --membind=1 python bench.py",
])
def test_a_cpu_binding_is_read(text):
    found = claims.cpu_binding(said(text))
    assert found and not found[0].guess and not found[0].negated, text


@pytest.mark.parametrize("text", [
    "We run it without taskset -c 0-11 now.",
    "Should I start it with taskset -c 0-11?",
    "Someone suggested numactl --cpunodebind=1 for this.",
    "If I pin it to cores 24-35, would it get faster?",
])
def test_a_binding_asked_advised_or_removed_is_not_in_use(text):
    assert all(c.guess or c.negated for c in claims.cpu_binding(said(text))), text


@pytest.mark.parametrize("binding,gpus,off", [
    ("taskset -c 24-35", "0,1", True),           # GPUs 0-1 are local to CPUs 0-23,48-71
    ("taskset -c 0-11", "0,1", False),
    ("numactl --cpunodebind=0 --membind=0", "2,3", True),
    ("numactl --cpunodebind=1 --membind=1", "2,3", False),
    ("taskset -c 0-11,24-35", "2,3", False),     # some local CPUs: not off the node
])
def test_a_binding_off_the_gpus_node_is_numa_affinity(tmp_path, binding, gpus, off):
    text = (f"# TP=2 decode slower on some GPUs\n\nWe run `CUDA_VISIBLE_DEVICES={gpus} {binding} python serve.py "
            "--tp 2` and decode is 30% slower than expected.\n" + TOPO)
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    assert any(f.rule == "ticket.binding_off_node" for f in findings) is off
    if off:
        assert ticket_verdict(facts, findings).category == "numa_affinity"


@pytest.mark.parametrize("block,unit,ranks", [
    ("Step time per rank (ms):\nrank0 412\nrank1 409\nrank2 985\nrank3 407", "ms", 4),
    ("Forward latency in ms\nGPU 0: 12.1\nGPU 1: 12.4\nGPU 2: 12.0", "ms", 3),
    ("Throughput per node [tok/s]\nnode 1 = 5100\nnode 2 = 5080\nnode 3 = 2950\nnode 4 = 5120", "tok/s", 4),
])
def test_per_rank_lines_under_a_unit_are_read(block, unit, ranks):
    found = [c for c in claims.rank_figures(said("Our per-rank numbers:\n\n" + block)) if c.data["unit"] == unit]
    assert found and len(found[0].data["figures"]) == ranks


@pytest.mark.parametrize("block", [
    "Per rank:\nrank0 412\nrank1 409\nrank2 985",           # no unit named: counts, sizes or times?
    "Step time per rank (ms):\nrank0 412\nrank1 409",         # two lines are no list
])
def test_per_rank_lines_without_a_unit_or_too_few_are_not(block):
    assert not claims.rank_figures(said(block))


def test_one_rank_apart_in_a_listed_block_is_a_straggler(tmp_path):
    text = ("# Training slower than expected on 4 GPUs\n\nPer-rank step time from our logs (ms):\nrank0 412\n"
            "rank1 409\nrank2 985\nrank3 407\n\nThe run is much slower than expected.\n")
    assert verdict(tmp_path, text).category == "straggler"


@pytest.mark.parametrize("totals,busy", [
    ("Self CPU time total: 48.210ms\nSelf CUDA time total: 6.884ms", 14.3),
    ("Self CPU time total: 1.250s\nSelf CUDA time total: 310.000ms", 24.8),
    ("Self CPU time total: 9120us\nSelf Device time total: 4100us", 45.0),
])
def test_profiler_totals_with_the_gpu_mostly_idle_are_a_busy_share(totals, busy):
    found = [c for c in claims.claims(said("torch.profiler output:\n" + totals)) if c.kind == "gpu_util"]
    assert found and found[0].data["percent"] == pytest.approx(busy, abs=0.1)


@pytest.mark.parametrize("totals", [
    "Self CPU time total: 20.000ms\nSelf CUDA time total: 18.500ms",   # kernels busy most of the host time
    "Self CPU time total: 48.210ms",                                   # one total alone
])
def test_profiler_totals_with_a_busy_gpu_or_one_total_say_nothing(totals):
    assert not [c for c in claims.claims(said("torch.profiler output:\n" + totals)) if c.kind == "gpu_util"]


@pytest.mark.parametrize("text,kind", [
    ("GPUs 0-3 hang off NUMA node 0, but the launcher pins the worker with taskset -c 32-63, which is node 1.",
     "numa_words"),
    ("GPU2 and GPU3 are attached to socket 1 while the container runs with --cpuset-cpus 0-31 on socket 0.",
     "numa_words"),
    ("numactl binds the server to node 0 although the GPUs are local to node 1.", "numa_words"),
    ("busbw is fine on every pair except when node gpu-07 takes part; then the ring drops to a third.", "one_slow"),
    ("Whenever the host dgx-12 joins the job, the step time falls apart and slows by half.", "one_slow"),
])
def test_named_sockets_and_one_node_apart_are_read(text, kind):
    assert observed(text, kind), text


@pytest.mark.parametrize("text,kind", [
    ("GPUs 0-3 hang off NUMA node 0 and taskset -c 0-15 keeps the worker on node 0 too.", "numa_words"),
    ("busbw is fine on every pair, with no exception.", "one_slow"),
])
def test_same_socket_or_no_exception_is_not(text, kind):
    assert not observed(text, kind), text


ZH = {
    "one_slow": [
        "8卡推理时其中一张卡明显比其他卡慢。",
        "有一个节点总是拖后腿。",
        "每次allreduce都要等那张卡。",
    ],
    "hardware_error": [
        "跑了一晚上之后掉卡了。",
        "重启前 nvidia-smi 识别不到第三张卡。",
        "日志里出现 ECC 错误，任务退出。",
    ],
}
ZH_NOT = {
    "one_slow": ["没有哪张卡比其他卡慢，8张卡速度一样。"],
    "hardware_error": ["运行很稳定，没有掉卡，也没有ECC错误。", "是不是掉卡了？"],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in ZH.items() for t in ts])
def test_chinese_wording_is_read(kind, text):
    assert observed(text, kind), text


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in ZH_NOT.items() for t in ts])
def test_chinese_negation_or_question_is_no_observation(kind, text):
    assert not observed(text, kind), text


@pytest.mark.parametrize("text,form,used", [
    ("模型太大，一部分层放在CPU上跑，速度很慢。", "words", True),
    ("剩下的权重加载到内存，生成只有2 token/s。", "words", True),
    ("70B 模型显存放不下。", "over_vram", True),
    ("现在没有一部分层放在CPU上，全部在GPU里。", "words", False),
    ("速度慢不是显存放不下的问题，模型只有7B。", "over_vram", False),
])
def test_chinese_layers_on_the_cpu(text, form, used):
    found = [c for c in claims.partial_offload(said(text)) if c.data["form"] == form]
    assert found and (not found[0].negated) is used


@pytest.mark.parametrize("sentence,slower", [
    ("After moving our DDP job from torch 2.1 to 2.3 the throughput is lower.", True),
    ("torch 2.4 gives lower tok/s than torch 2.2 on the same GPUs.", True),
    ("torch 2.2 has higher throughput than torch 2.4 for us.", True),
    ("torch 2.4 gives higher throughput than torch 2.2.", False),
    ("The throughput is not lower with torch 2.3 than with torch 2.1.", False),
])
def test_a_release_comparison_said_as_lower_or_higher_throughput(sentence, slower):
    assert claims.newer_slower(sentence) is slower


@pytest.mark.parametrize("text", [
    "On battery the laptop's RTX 4060 only gives 9 tok/s, plugged in 30.",
    "Generation is half as fast when the notebook runs on battery power.",
    "笔记本用电池的时候推理速度明显慢很多。",
])
def test_a_laptop_slower_on_battery_is_a_power_throttle(text):
    assert observed(text, "clock_power"), text


@pytest.mark.parametrize("text", [
    "On battery the speed is the same as plugged in.",
    "Is it slower on battery?",
])
def test_battery_without_a_slowdown_or_asked_is_not(text):
    assert not observed(text, "clock_power"), text


@pytest.mark.parametrize("text", [
    "The EngineCore process sits at 100% in top while the H100 idles.",
    "top: the API server process is at 99.7% the whole time.",
    "The vLLM engine core hits 100 % of one core during decode.",
])
def test_the_engine_process_at_one_core_is_read(text):
    assert observed(text, "cpu_ab"), text


def test_the_engine_process_well_below_one_core_is_not():
    assert not observed("The EngineCore process sits at 35% in top.", "cpu_ab")


@pytest.mark.parametrize("text,slow", [
    ("Since the upgrade generation went from 38 to 24 tok/s.", True),
    ("Throughput dropped from 5100 samples/s to 2950 samples/s after the move.", True),
    ("After the fix generation went from 24 to 38 tok/s.", False),
])
def test_a_rate_gone_lower_is_a_slow_symptom(tmp_path, text, slow):
    (tmp_path / "issue.md").write_text("# Report\n\n" + text + "\n")
    said_ = claims.symptom_quote(read_bundle([tmp_path]))
    assert (said_[2] == "slow") is slow


@pytest.mark.parametrize("text,category", [
    ("With nvidia-smi -pl 150 on the card (default 350 W) generation went from 38 to 24 tok/s.", "throttling"),
    ("We lowered the power limit to 250 W, stock 450 W TDP, and decode is slower now.", "throttling"),
])
def test_a_limit_below_the_stated_default_is_a_throttle(tmp_path, text, category):
    assert verdict(tmp_path, text).category == category


def test_a_limit_at_the_stated_default_is_no_throttle(tmp_path):
    assert verdict(tmp_path, "The power limit is 340 W (default 350 W) and decode is slow.").category != "throttling"


def test_nccl_shared_memory_is_no_model_in_shared_gpu_memory():
    assert not offload("Bandwidth is higher with P2P enabled than when P2P is restricted so that NCCL uses shared "
                       "memory.")

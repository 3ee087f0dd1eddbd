"""Issue 11 j: more of the host-side vocabulary (one named thread at its limit, host profiles, gaps between whole
steps, features that run without CUDA graphs, TensorRT-LLM's cuda_graph_config, the CPU unable to keep up
issuing kernels, a numbered straggler rank, Slurm's --cpu-bind=none, sysfs numa_node -1, a lowered power limit)
and the guards around it (questions, plans and suggestions are no observation; "hang off a socket" is no hang).

Each sentence is written the way these situations are worded in the engines' and tools' documentation and across
many threads; none is copied from a corpus case. Paraphrases must be read, negations and questions must not.
"""

import pytest

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import claims
from rules.engine import evaluate, ticket_verdict
from rules.ticket_rules import rank_outliers


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def found(text: str, kind: str, negated: bool = False):
    return claims.find(said(text), kind, negated=negated)


def verdict(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


PARAPHRASES = {
    "cpu_ab": [
        "htop shows a single Python thread pinned at 100% while the GPUs idle.",
        "The engine process sits at 100% of one core during decode.",
        "Generation is bottlenecked by single-threaded performance of the host.",
        # llama.cpp's -t/--threads and Ollama's num_thread set how many threads generation uses
        "Generation stays on a single CPU thread regardless of --threads 16.",
        "Ollama runs on one thread whatever num_thread is set to.",
        "py-spy says most of the wall time is in the scheduler and in detokenization.",
        "About 60% of the step time is spent inside Python input preparation.",
        "The timeline has large gaps between decode steps with nothing on the GPU.",
        "Hugging Face prints 'Using a slow tokenizer. This might cause a significant slowdown.'",
        "Most of the latency is tokenization of the 30k-token prompts.",
        "About 70% of the TTFT is spent in pre-processing on the API server.",
        "There are idle gaps between consecutive forward passes of the model.",
    ],
    "eager_flag": [
        "torch.compile is turned off in our decode loop because of a graph break.",
        "We export TORCHDYNAMO_DISABLE=1 for the serving script.",
        "extra_llm_api_options.yaml has cuda_graph_config: null for the PyTorch backend.",
        "The log says CUDA graphs are not supported with this draft model.",
        "CUDA graph is disabled for LoRA in this release, per the startup warning.",
        "The server is running without CUDA graphs since the upgrade.",
        "INFO: Cudagraph is disabled under eager mode",
        "compilation_config={'level': 0, 'cudagraph_mode': <CUDAGraphMode.NONE: 0>}",
    ],
    "launch_overhead": [
        "The nsys trace shows 1,800 kernels per token in decode.",
        "Most kernels run for under 5 microseconds and the GPU is idle between them.",
        "There are 900 small kernels per step and the GPU sits idle between launches.",
        "The profiler shows the CPU cannot keep up issuing kernels at batch 1.",
        "Python can't keep up launching the small kernels of each layer.",
        "Each kernel runs for 4 us while the launches take 9 us on the host.",
    ],
    "hardware_error": [
        "nvidia-smi -q shows Remapped Rows Pending: Yes on GPU 2.",
        "Remapping Failure Occurred : Yes on the third card.",
        "Pending Page Blacklist : Yes after the crash.",
    ],
    "idle_gap_slow": [
        "Every request after a quiet period takes 3x longer than back-to-back ones.",
        "After an idle minute the next call is much slower.",
        "After a pause of a few seconds the first token comes with a latency spike.",
    ],
    "clock_peers": [
        "Under the same load GPU0 runs at 2100 MHz vs 2750 MHz on GPU1.",
        "The slow card sits at 1410 MHz while the other three hold 1980 MHz.",
        "One A6000 boosts to 1200 MHz compared with 1800 MHz on its neighbour.",
    ],
    "one_slow": [
        "Rank 5 is always the last to enter the all-reduce.",
        "Every step waits for node 11 in the 16-node job.",
        "GPU 3 is consistently behind the others by 30 ms.",
        "The others wait 30-40 ms in NCCL before rank 2 arrives.",
    ],
    "numa_words": [
        "cat /sys/bus/pci/devices/0000:81:00.0/numa_node prints -1 on this 2-socket server.",
        "nvidia-smi topo -m reports NUMA affinity -1 for all GPUs.",
        "The numa_node file of the GPU returns -1.",
    ],
    "no_cpu_binding": [
        "The job is launched with srun --cpu-bind=none.",
        "The launcher sets cpu_bind=\"verbose,none\" for the workers.",
        "srun --cpu_bind=none --ntasks-per-node=8 python serve.py",
    ],
    "multi_socket": [
        "The ranks run on socket 0 while GPUs 4-7 are attached to socket 1.",
        "Memory comes from NUMA node 1 although the GPU sits on NUMA node 0.",
    ],
}

NOT = {
    "cpu_ab": [
        "Is the CPU a bottleneck? I want to know if a faster CPU would help before buying.",
        "CPU usage is low and the GPU is at 100 % utilization.",
        "The CPU is not the bottleneck: one core sits at 20 %.",
        "It does not only use one thread; all 16 cores are busy.",
        # pipeline-parallel bubbles are ticket.pp_bubble's, not the host's
        "The profile shows pipeline bubbles between forward passes on stage 2.",
    ],
    "clock_peers": [
        "GPU0 runs at 2730 MHz vs 2745 MHz on GPU1, the same within a bin.",
        # one GPU idle against loaded, and its graphics against its memory clock: no two peers
        "At idle the card sits at 210 MHz while under load it boosts to 2700 MHz.",
        "nvidia-smi shows a graphics clock of 1410 MHz while the memory clock is 1593 MHz.",
    ],
    "eager_flag": [
        "CUDA graphs are captured at startup and used for decode.",
        "We do not run without CUDA graphs.",
        "torch.compile is not disabled; it compiles fine.",
        "compilation_config={'level': 3, 'cudagraph_mode': <CUDAGraphMode.FULL_AND_PIECEWISE: (2, 1)>}",
        # vLLM's normal capture: decode only, up to a largest batch size
        "CUDA graphs are not used for prefill in vLLM, only for decode.",
        "CUDA graphs are skipped for batch sizes above 512.",
        # an A/B that keeps them on
        "Running without CUDA graphs was 2x slower in our A/B, so we keep them enabled.",
    ],
    "one_slow": [
        "All ranks arrive at the all-reduce within a millisecond of each other.",
        "Rank 0 saves the checkpoint while the others wait for it.",
        "Rank 0 writes the checkpoint while the others wait 20 s.",
    ],
    "hang": [
        "GPUs 4-7 hang off socket 1 and GPUs 0-3 off socket 0.",
    ],
}


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in PARAPHRASES.items() for t in ts])
def test_paraphrase_is_read(kind, text):
    got = found(text, kind)
    assert got and not got[0].negated, (kind, text)


@pytest.mark.parametrize("kind,text", [(k, t) for k, ts in NOT.items() for t in ts])
def test_negation_question_or_opposite_is_no_observation(kind, text):
    assert not [c for c in found(text, kind) if not c.guess], (kind, text)


@pytest.mark.parametrize("text", [
    "Someone suggested using --enforce-eager to save memory.",
    "A colleague recommended --disable-cuda-graph for this model.",
    "It was suggested to set enforce_eager=True in the issue tracker.",
])
def test_a_suggestion_someone_else_made_is_no_setting_in_use(text):
    c = found(text, "eager_flag")
    assert c and c[0].guess


def test_a_question_under_a_title_is_still_a_question():
    """A Markdown title line above the question does not turn it into a statement."""
    c = found("# Question\nShould I use --enforce-eager to save memory?", "eager_flag")
    assert c and c[0].guess


@pytest.mark.parametrize("text,watts,lowered", [
    ("The provider set the power limit to 250 W with nvidia-smi -pl on our A100 80GB SXM.", 250, True),
    ("sudo nvidia-smi -i 0 -pl 200 on the H100 SXM before the benchmark.", 200, True),
    ("Under load nvidia-smi -q shows Power Limit : 300.00 W on this H100 SXM.", 300, True),
    ("The power limit is 700 W on the H100 SXM, the default.", 700, False),
])
def test_power_limit_is_set_against_the_rated_power(tmp_path, text, watts, lowered):
    (tmp_path / "issue.md").write_text("# Power limit on our GPUs\n" + text + "\n")
    facts = read_bundle([tmp_path])
    evaluate(facts, ticket_predictions(facts))  # resolves the GPU the limit is compared with
    kinds = {c.kind: c for c in claims.claims(facts) if c.kind.startswith("power_limit")}
    c = kinds.get("power_limit") or kinds.get("power_limit_ok")
    assert c and c.data["watts"] == watts
    assert ("power_limit" in kinds) is lowered


@pytest.mark.parametrize("text,category", [
    ("# Throughput low\nThe provider set the power limit to 250 W with nvidia-smi -pl on our A100 80GB SXM. "
     "Throughput is 30% below the published numbers.", "throttling"),
    ("# Tokens per second dropped\nRank 5 is always the last to enter the all-reduce and the others wait 30 ms, "
     "so decode is slow on 8x H100.", "straggler"),
    ("# Slurm run slow\nWith srun --cpu-bind=none the 8 ranks get scheduled on socket 0 only, although GPUs 4-7 "
     "hang off socket 1; tokens per second is half of what we see with --cpu-bind=socket.", "numa_affinity"),
    ("# Slow on the server\nllama.cpp with -ngl 99 on 2x RTX 3090 only ever uses one CPU thread and generation is "
     "bottlenecked by single-threaded performance.", "host_bound"),
    ("# One card slower\nTwo identical RTX 4090s: GPU1 finishes the benchmark in 41 s, GPU0 in 63 s. Under the same "
     "load GPU0 runs at 2100 MHz vs 2750 MHz on GPU1.", "throttling"),
    ("# Decode slow on our node\nThe nsys trace shows 1,800 kernels per token, most under 5 microseconds, and the GPU "
     "is idle between them; Qwen2-0.5B decodes at 120 tok/s on one H100.", "launch_bound"),
])
def test_host_side_situations_get_their_category(tmp_path, text, category):
    assert verdict(tmp_path, text).category == category


@pytest.mark.parametrize("text,category", [
    ("# Question\nShould I use --enforce-eager to save memory? Someone suggested it but I have not tried it. "
     "8x A100 serving Llama-70B works fine.", "eager_mode"),
    ("# is it thermal?\nCould this be thermal throttling? I have not checked temperatures. 2x 3090 TP2 gives "
     "25 tok/s on a 70B AWQ.", "throttling"),
    ("# CPU\nIs the CPU a bottleneck for vLLM? I have 2x A6000 and want to know if a faster CPU would help "
     "before buying.", "host_bound"),
    ("# Limit\nThe power limit is 700 W on our H100 SXM boards and decode is slow.", "throttling"),
])
def test_questions_and_defaults_are_not_verdicts(tmp_path, text, category):
    assert verdict(tmp_path, text).category != category


def test_a_flag_ending_a_sentence_is_still_the_flag(tmp_path):
    """"... started with --disable-cuda-graph." in prose: the full stop is the sentence's, not the flag's."""
    from diagnose.evidence import Workload
    (tmp_path / "issue.md").write_text("# sglang decode slow\nWe run python -m sglang.launch_server --model-path "
                                       "Qwen/Qwen2.5-7B-Instruct --tp 2 --disable-cuda-graph. "
                                       "It decodes at 38 tok/s.\n")
    facts = read_bundle([tmp_path])
    assert any(w.eager for w in facts.of(Workload))
    assert not any(w.eager is False for w in facts.of(Workload))


@pytest.mark.parametrize("text,rank,unit", [
    ("Per-rank step times: rank0 212 ms, rank1 209 ms, rank2 214 ms, rank3 311 ms.", "3", "ms"),
    ("Forward pass per device: GPU 0: 31 ms, GPU 1: 30 ms, GPU 2: 47 ms, GPU 3: 31 ms.", "2", "ms"),
    ("Bus bandwidth by node: node 1 = 180 GB/s, node 2 = 178 GB/s, node 3 = 96 GB/s, node 4 = 181 GB/s.", "3", "gb/s"),
    ("Each worker's rate: worker 0 at 41 tok/s, worker 1 at 40 tok/s, worker 2 at 22 tok/s.", "2", "tok/s"),
])
def test_one_rank_apart_from_its_peers_is_read(text, rank, unit):
    got = rank_outliers(said(text))
    assert got and got[0].data["rank"] == rank and got[0].data["unit"] == unit


@pytest.mark.parametrize("text", [
    "rank0 212 ms, rank1 209 ms, rank2 214 ms, rank3 236 ms: all within noise.",  # 11 % apart: noise, not a straggler
    "GPU 0: 31 ms, GPU 1: 45 ms.",  # two ranks: no peers' median to stand apart from
    "rank0 212 ms, rank1 209 ms, rank3 311 tok/s.",  # different units are different figures
])
def test_balanced_or_too_few_ranks_are_no_straggler(text):
    assert not rank_outliers(said(text))


def test_a_rank_outlier_is_a_straggler(tmp_path):
    assert verdict(tmp_path, "# allreduce slow on one GPU\nPer-rank step times: rank0 212 ms, rank1 209 ms, rank2 "
                             "214 ms, rank3 311 ms, rank4 210 ms, rank5 211 ms, rank6 208 ms, rank7 213 ms.\n"
                   ).category == "straggler"


@pytest.mark.parametrize("table,rank", [
    ("| GPU | forward time |\n|---|---|\n| 0 | 31 ms |\n| 1 | 30 ms |\n| 2 | 47 ms |\n| 3 | 31 ms |", "2"),
    ("| rank | step time (ms) | busbw (GB/s) |\n|:-:|--:|--:|\n| 0 | 120 | 180 |\n| 1 | 121 | 181 |\n"
     "| 2 | 119 | 179 |\n| 3 | 190 | 95 |", "3"),
])
def test_a_table_of_per_rank_figures_is_read(table, rank):
    got = rank_outliers(said("Per-rank numbers from the slow run:\n\n" + table + "\n"))
    assert got and got[0].data["rank"] == rank


def test_a_balanced_table_is_no_straggler():
    table = "| GPU | time (ms) |\n|---|---|\n| 0 | 120 |\n| 1 | 121 |\n| 2 | 125 |\n| 3 | 119 |"
    assert not rank_outliers(said("Per-GPU step time:\n\n" + table + "\n"))


@pytest.mark.parametrize("text,kind", [
    ("We launch with --enforce-eager; it was recommended for V100 and we kept it. Decode is slow.", "eager_flag"),
    ("Before upgrading the driver we saw the CPU at 100 % on one core.", "cpu_ab"),
])
def test_advice_or_a_plan_beside_an_observation_leaves_it_observed(text, kind):
    """A passive "was recommended" or a driver upgrade in the sentence is no suggestion nor plan of the reporter."""
    got = found(text, kind)
    assert got and not got[0].guess, (kind, text)


def test_a_graph_off_setting_in_yaml_null_forms_is_read():
    """YAML's null is written null, Null, ~ or nothing; TensorRT-LLM reads cuda_graph_config: ~ as no graphs."""
    assert found("extra_llm_api_options.yaml:\ncuda_graph_config: ~\n", "eager_flag")


@pytest.mark.parametrize("text", [
    "nvidia-smi says the power limit can be set between 150 W and 600 W.",  # the range it accepts
    "Min Power Limit : 150.00 W, Max Power Limit : 600.00 W.",
    "Clocks Event Reasons: SW Power Cap : Active, and the GPU draws 280 W.",  # a draw, not the limit
])
def test_a_range_or_a_draw_is_no_configured_limit(text):
    assert not [c for c in claims.claims(said(text)) if c.kind.startswith("power_limit")]


@pytest.mark.parametrize("text,watts,lowered", [
    ("# Power limit\nI raised the power limit from 350 W to 450 W on the RTX 4090 and decode is still slow.\n", 450,
     False),
    ("# Power limit\nWe lowered the power limit from 450 W to 300 W on the RTX 4090; decode is slow now.\n", 300, True),
])
def test_a_limit_changed_from_one_figure_to_another_is_its_target(tmp_path, text, watts, lowered):
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    evaluate(facts, ticket_predictions(facts))
    kinds = {c.kind: c for c in claims.claims(facts) if c.kind.startswith("power_limit")}
    c = kinds.get("power_limit") or kinds.get("power_limit_ok")
    assert c and c.data["watts"] == watts
    assert ("power_limit" in kinds) is lowered


@pytest.mark.parametrize("text,category", [
    ("# RTX 4090 power\nnvidia-smi says the power limit can be set between 150 W and 600 W on my RTX 4090. "
     "Decode is slow.", "throttling"),
    ("# RTX 4090 power\nI raised the power limit from 350 W to 450 W on the RTX 4090 and decode is still slow.",
     "throttling"),
    ("# Clocks\nAt idle the card sits at 210 MHz while under load it boosts to 2700 MHz. Decode is slow on one "
     "RTX 4090.",
     "throttling"),
    ("# Clocks on two RTX 4090s\nGPU0 runs at 2100 MHz vs 2750 MHz on GPU1 under the same load. Both cards work "
     "fine and the numbers match the published ones.", "throttling"),
    ("# Slow decode\ncat /sys/bus/pci/devices/0000:01:00.0/numa_node prints -1; it is a single-socket desktop with one "
     "RTX 4090. Decode is slow.", "numa_affinity"),
    ("# Checkpoint\nRank 0 saves the checkpoint while the others wait for it. Training is slow on 8x H100.",
     "straggler"),
    ("# all-reduce does not scale across nodes\nall_reduce_perf across nodes:\n\n| node | busbw (GB/s) |\n|---|---|\n"
     "| 1 | 180 |\n| 2 | 95 |\n| 4 | 90 |\n", "straggler"),
    ("# Slow decode\nWe launch with --enforce-eager; it was recommended for V100 and we kept it. Decode is slow on "
     "one H100 with Llama-3-8B.", "insufficient_data"),
])
def test_misread_host_words_give_no_verdict_of_their_own(tmp_path, text, category):
    assert verdict(tmp_path, text).category != category


@pytest.mark.parametrize("table", [
    # node counts, not node numbers: 1, 2, 4 nodes
    "| node | busbw (GB/s) |\n|---|---|\n| 1 | 180 |\n| 2 | 95 |\n| 4 | 90 |",
    # a GPU-count column (issue_md's GPUS_HEADER) counts GPUs, it does not number them
    "| GPUs | time (ms) |\n|---|---|\n| 1 | 30 |\n| 2 | 31 |\n| 3 | 47 |\n| 4 | 30 |",
])
def test_a_table_of_counts_is_no_per_rank_table(table):
    assert not rank_outliers(said("all_reduce_perf:\n\n" + table + "\n"))


def test_a_load_figure_is_no_slow_symptom():
    """"95 % under load" is a utilisation, not "95 % under the expected figure"."""
    facts = said("# H100 power\nMy H100 sits at 95% under load and draws 690 W.")
    assert claims.symptom(facts) != "slow"
    assert claims.symptom(said("# H100\nThroughput is 30% under the published figure.")) == "slow"


def test_per_rank_figures_in_a_crash_report_are_no_straggler(tmp_path):
    """The figures are context there; the rank rule, like the power-limit one, needs a speed complaint."""
    text = ("# Segfault on rank 3\nThe job crashes with a segmentation fault after a few steps. Per-rank step times "
            "before it: rank0 212 ms, rank1 209 ms, rank2 214 ms, rank3 311 ms, rank4 210 ms.\n")
    assert rank_outliers(said(text))
    assert verdict(tmp_path, text).category != "straggler"


def test_hang_off_a_socket_is_no_hang_symptom():
    """PATTERNS and SYMPTOMS share one hang pattern: where GPUs are attached is no hang in either."""
    assert claims.symptom(said("# Layout\nGPUs 4-7 hang off socket 1 and decode is slow.")) == "slow"
    assert claims.symptom(said("# Stops\nThe all-reduce hangs after the first step.")) == "hang"

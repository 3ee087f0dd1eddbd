"""extract35 (issue 11): batch, concurrency, TP and GPU count as people write them. The reader
(diagnose.artifacts.issue_md) takes a TP written as a quoted dict or JSON key ("'tensor_parallel_size':4"), a
TensorRT-LLM mpirun world (-n N, no pipeline stage said) as its TP, TensorRT-LLM's engine folder named for N GPUs
("trt_engines/fp16/1-gpu") as the job's GPUs, a GPU count said beside an equal TP as the job's ("Dual-card (2× RTX
3090, TP=2)" on a three-GPU rig), one request at a time as the benchmarks and people say it ("single concurrency",
"each time only send a request", "a single request has throughput ...", "to handle one prompt"), "N threads, each
with ..." as the load, a max_batch_size set in pasted code as a cap, and llm.generate([text]) of one chat-templated
prompt as one prompt. Limits stay limits: TGI's / LMDeploy's --max-batch-size is no batch, and a count in a buying
question is no GPU count. Checked on real first posts of the studied sets (tests/data/extract31, 32, 34), on
paraphrases, and on near-misses that must stay unread. tests/data/extract35 is the held-out check set: only its form
is tested here (its score is in its SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_paste
from extract_set_checks import check_set

from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement, Workload
from rules.common import gpu_count
from rules.stated_load import engine_batch_cap, load_for, program_load

DATA = Path(__file__).resolve().parent / "data"


def _tp(facts) -> int | None:
    return facts.workload().tp


def _one_at_a_time(facts) -> bool:
    return any(w.extra.get("load_stated") for w in facts.of(Workload))


def test_the_check_set_is_well_formed(capsys):
    """extract35: each annotation parses, pastes and annotations are the same set, keys name catalog rows."""
    check_set("tests/data/extract35", capsys)


# --- real first posts (studied material) ---

def test_a_quoted_dict_key_is_the_tp():
    """chatchat-space/Langchain-Chatchat#2687: the vLLM arguments pasted as a dict in prose, "'tensor_parallel_size':4"
    beside "使用4张gpu"."""
    facts = read_bundle([DATA / "extract34/chatchat2687.md"])
    assert (gpu_count(facts), _tp(facts)) == (4, 4)


def test_a_tensorrt_llm_mpirun_world_is_its_tp():
    """NVIDIA/TensorRT-LLM#1410: "mpirun -n 2 --allow-run-as-root python benchmark.py", then its result line
    "[BENCHMARK] ... world_size 2"."""
    facts = read_bundle([DATA / "extract31/trtllm1410.md"])
    assert (gpu_count(facts), _tp(facts)) == (2, 2)


@pytest.mark.parametrize("paste", ["extract31/trtllmbackend642.md", "extract34/trtllmbackend75.md"])
def test_an_engine_built_for_one_gpu_is_the_jobs_count(paste):
    """The engine folder "engines/fp16/1-gpu/" on a machine that lists more GPUs: the job runs on one."""
    assert gpu_count(read_bundle([DATA / paste])) == 1


def test_the_compose_sections_layout_is_the_job_not_the_rig():
    """noonghunna/club-3090#691: the rig lists three RTX 3090, the section run is "Dual-card (2× RTX 3090, TP=2)"."""
    facts = read_bundle([DATA / "extract34/club3090_691.md"])
    assert (gpu_count(facts), _tp(facts)) == (2, 2)


@pytest.mark.parametrize("paste", [
    "extract31/vllm7635.md",  # "each time only send a request to server"
    "extract31/dsmii297.md",  # "to test a single sentence inference"
    "extract31/localgpt538.md",  # "to handle one prompt"
])
def test_one_request_at_a_time_in_the_reporters_words(paste):
    assert _one_at_a_time(read_bundle([DATA / paste]))


def test_a_batch_cap_of_one_in_pasted_code():
    """meta-llama/llama#506: `max_batch_size = 1` in the script that calls Llama.build: one sequence at a time."""
    facts = read_bundle([DATA / "extract32/llama506.md"])
    assert engine_batch_cap(facts)[0] == 1
    assert load_for(facts, full_load=True).n == 1


def test_one_chat_templated_prompt_in_a_list():
    """intel/ipex-llm#12440: `text = tokenizer.apply_chat_template(messages, ...)` then `llm.generate([text]`."""
    assert program_load(read_bundle([DATA / "extract31/ipexllm12440.md"]))[0] == 1


def test_threads_each_with_a_request_are_the_load():
    """InternLM/lmdeploy#2728: "I use 5 threads, each with 80000 tokens"."""
    assert read_bundle([DATA / "extract32/lmdeploy2728.md"]).workload().concurrency == 5


# --- paraphrases ---

@pytest.mark.parametrize("text, tp", [
    ("engine args: {'tensor_parallel_size': 2, 'dtype': 'auto'}", 2),
    ('config.json has "tensor_parallel_size": 8 and we get 40 tok/s', 8),
    ("kwargs = `tp_size`: 4 in our YAML", 4),
])
def test_quoted_tp_keys(tmp_path, text, tp):
    assert _tp(read_paste(tmp_path, f"# Slow generation with vLLM\n\nDecoding is slow on our H100 node.\n\n{text}\n\n"
                               "Is this expected?\n")) == tp


@pytest.mark.parametrize("launch, gpus, tp", [
    ("mpirun -n 4 --allow-run-as-root python3 ../run.py --engine_dir ./engine --max_output_len 64", 4, 4),
    ("mpirun -np 8 python summarize.py --test_trt_llm --engine_dir trt_engines/fp16/8-gpu", 8, 8),
    ("mpiexec -n 2 ./benchmarks/gptManagerBenchmark --engine_dir ./tllm_engine", 2, 2),
])
def test_tensorrt_llm_world_paraphrases(tmp_path, launch, gpus, tp):
    facts = read_paste(tmp_path, f"# TensorRT-LLM latency\n\n```\n{launch}\n```\n\nLatency is 900 ms. Expected?\n")
    assert (gpu_count(facts), _tp(facts)) == (gpus, tp)


@pytest.mark.parametrize("text", [
    "When I test with single concurrency, p99 latency is 7.3 s.",
    "Each time we only send one request; TTFT is 100 ms.",
    "A single request gets about 80 tokens per second.",
    "Processing a single query takes 40 seconds on my 4090.",
    "Single-request latency is 2 s with TensorRT-LLM.",
])
def test_one_request_paraphrases(tmp_path, text):
    assert _one_at_a_time(read_paste(tmp_path, f"# slow\n\n{text}\n"))


@pytest.mark.parametrize("text, gpus", [
    ("Our node has 8x H100. We serve Llama-3-70B on 4x H100 with TP=4 and get 30 tok/s.", 4),
    ("The rig has three RTX 3090; the run is two RTX 3090s, tensor_parallel_size=2, 40 tok/s.", 2),
    # (extract35b) the count said as the node's, the TP in another sentence: the node holds the job, the TP's GPUs
    # are the job's (as a launch line's layout inside a node's inventory, tests/test_count32.py); a count in the TP's
    # own sentence, "I use 8 GPUs with TP=4", may be replicas and stays (tests/test_extract35b.py)
    ("Our node has 8x H100. We serve Llama-3-70B with TP=4 and get 30 tok/s.", 4),
])
def test_a_count_said_with_an_equal_tp_is_the_jobs(tmp_path, text, gpus):
    facts = read_paste(tmp_path, f"# slow decode\n\n{text}\n")
    assert gpu_count(facts) == gpus


# --- near-misses that must stay unread ---

@pytest.mark.parametrize("text", [
    "A single request failed with CUDA out of memory.",  # the subject of a failure, not a load
    "Not a single request finished in time.",
    "Each time I send a request the server crashes.",  # no "only"/"one": any request
    "With batch size 8 it takes an hour, much slower than with batch size 1.",  # two loads compared
    "With single concurrency it is 7 s, with two concurrency 14 s.",  # two loads compared
    "We handle one of the requests in the tokenizer thread.",
])
def test_no_one_at_a_time_from_failures_denials_or_comparisons(tmp_path, text):
    assert not _one_at_a_time(read_paste(tmp_path, f"# slow\n\n{text}\n"))


@pytest.mark.parametrize("text", [
    "I run TGI on one A100 with `--max-batch-size 32` and get 20 tok/s.",  # a limit
    "LMDeploy with --max-batch-size 64 gives 300 tok/s on one A100.",
    "ValueError: batch size exceeds the engine's max_batch_size of 8",  # an error about a limit
])
def test_a_batch_limit_is_no_batch(tmp_path, text):
    facts = read_paste(tmp_path, f"# Slow generation\n\nDecoding is slow on one A100.\n\n{text}\n\nIs this expected?\n")
    assert facts.workload().batch is None
    assert all(m.batch is None for m in facts.of(Measurement))


@pytest.mark.parametrize("text", [
    "Should I buy 4 RTX 4090 or 2 A6000 for serving Llama-3-70B?",  # a buying question
    "Mixtral 8x7B runs at 20 t/s, is that normal?",  # a model's name
    "llama-server -m m.gguf -ngl 99 --port 8080, 20 t/s",  # layers and a port
])
def test_no_gpu_count_from_a_purchase_a_name_layers_or_a_port(tmp_path, text):
    assert gpu_count(read_paste(tmp_path, f"# question\n\n{text}\n")) in (None, 1)


@pytest.mark.parametrize("text", [
    # a pipeline stage said: the world is TP x PP, split unknown
    "```\ntrtllm-build --checkpoint_dir c --output_dir e --tp_size 2 --pp_size 2\n"
    "mpirun -n 4 python3 run.py --engine_dir e\n```\n",
    # two worlds run: neither is the layout
    "```\nmpirun -n 2 python3 run.py --engine_dir a\nmpirun -n 4 python3 run.py --engine_dir b\n```\n",
    # not TensorRT-LLM: an MPI launch of some other program
    "```\nmpirun -n 4 python train.py --lr 1e-4\n```\n",
])
def test_no_tp_from_an_mpirun_world_that_does_not_say_it(tmp_path, text):
    facts = read_paste(tmp_path, f"# latency question\n\n{text}\nIs 900 ms expected?\n")
    assert _tp(facts) in (None, 2)
    assert not (_tp(facts) == 4)


def test_no_job_count_from_engine_folders_built_for_different_counts(tmp_path):
    facts = read_paste(tmp_path, "# TensorRT-LLM on 8x A100\n\n```\n"
                       "python3 run.py --engine_dir trt_engines/fp16/1-gpu\n"
                       "mpirun -n 2 python3 run.py --engine_dir trt_engines/fp16/2-gpu\n```\n")
    assert not any(w.extra.get("job_gpus") == 1 for w in facts.of(Workload))


@pytest.mark.parametrize("text", [
    "llama-server on one RTX 3090 with -ngl 99 and batch size 512 gives 20 t/s.",  # -b: prompt tokens per chunk
    "Running the Q4_K_M GGUF with llama.cpp, batch size 2048 / ubatch 512, I get 20 t/s on one RTX 3090.",
])
def test_llamacpps_batch_size_is_a_token_chunk_not_a_batch(tmp_path, text):
    facts = read_paste(tmp_path, f"# Slow generation\n\n{text}\n\nIs this expected?\n")
    assert facts.workload().batch is None
    assert all(m.batch is None for m in facts.of(Measurement))


def test_another_engines_batch_size_stays_its_batch(tmp_path):
    facts = read_paste(tmp_path, "# Slow generation\n\n"
                       "vLLM on one H100 at batch size 256 gives 9000 tok/s in total.\n\nIs this expected?\n")
    assert facts.workload().batch == 256

"""extract35b (issue 11): the loads and counts extract35 left unread. The reader (diagnose.artifacts.issue_md, and
diagnose.artifacts.launch for llama-server lines) takes a load said with a count word ("with two concurrency", "eight
parallel requests", "four requests at once"), the bound of the semaphore or pool a pasted client sends its requests
under (asyncio.Semaphore(parallel_num) with `parallel_num = 4`, ThreadPoolExecutor(max_workers=16)), Hugging Face's
per_device_eval_batch_size in a pasted launch or config where the prose states no one batch, llama.cpp's layer split
(-sm layer) as TP 1 (whole layers per GPU, no tensor cut), one GPU counted beside a TP of t and a count of t boards as
another setup's, and a count said as the machine's ("an 8-GPU node") beside one TP below it said in another sentence
as the TP's GPUs. Traps stay unread: a count of requests sent in all, a semaphore in code that sends no request, the
training batch, -ngl 99, a layer and a row split both named, a TP wider than the one GPU said, a count in the TP's own
sentence (tests/test_count32). Studied real posts come from tests/data/extract34 and extract35; tests/data/extract35b is
the held-out check set: only its form is tested here (its score is in its SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_paste
from extract_set_checks import check_set

from diagnose.bundle import read_bundle
from rules.common import gpu_count

DATA = Path(__file__).resolve().parent / "data"


def _load(facts) -> int | None:
    w = facts.workload()
    return w.batch or w.concurrency


def test_the_check_set_is_well_formed(capsys):
    """extract35b: each annotation parses, pastes and annotations are the same set, keys name catalog rows."""
    check_set("tests/data/extract35b", capsys)


# --- real first posts (studied material) ---

def test_two_concurrency_in_words_is_the_load():
    """triton-inference-server/tensorrtllm_backend#171: "When I test with single concurrency, I got the 7.3sec latency
    ... When I test with two concurrency, I got the 14.26sec latency": the load above one is read (as "2
    concurrency" would be: the one-request run is the baseline, ONE_AT_A_TIME's)."""
    facts = read_bundle([DATA / "extract35/trtllmbackend171.md"])
    assert facts.workload().concurrency == 2


def test_a_scripts_semaphore_bound_is_the_load():
    """ollama/ollama#9564: `parallel_num = 4  # Max concurrent requests` ... `asyncio.Semaphore(parallel_num)` around
    client.chat; `total_requests = 20` is the count sent, not the load."""
    facts = read_bundle([DATA / "extract35/ollama9564.md"])
    assert facts.workload().concurrency == 4


def test_the_eval_batch_of_a_pasted_launch_where_the_prose_compares_two():
    """hiyouga/LlamaFactory#4801: `--per_device_eval_batch_size 8` in the llamafactory-cli command; the prose compares
    "batch size 8" (an hour) with "batch size 1" (15 minutes): the launch's batch is the run's."""
    facts = read_bundle([DATA / "extract35/llamafactory4801.md"])
    assert facts.workload().batch == 8


def test_a_layer_split_is_tp_one():
    """noonghunna/qwen38 MTP table (extract34 qwen38mtp60): "2× Tesla V100-SXM2-16GB (Volta, NVLink + P2P, layer
    split)", "`--split-mode layer`": two GPUs holding whole layers each, TP 1."""
    facts = read_bundle([DATA / "extract34/qwen38mtp60.md"])
    assert (gpu_count(facts), facts.workload().tp) == (2, 1)


def test_one_gpu_of_another_setup_beside_the_tps_boards():
    """vllm-project/vllm#9802: "testing it both on a single A100 and on a setup with 4xA100 (where I used
    `tensor_parallel_size=4`": the job's GPUs are the TP's four."""
    facts = read_bundle([DATA / "extract35/vllm9802.md"])
    assert (gpu_count(facts), facts.workload().tp) == (4, 4)


# --- paraphrases ---

@pytest.mark.parametrize("text, load", [
    ("With two concurrency the p99 latency doubles to 14 s on vLLM.", 2),
    ("We send eight parallel requests to vLLM and each gets 20 tok/s.", 8),
    ("When I fire four requests at once the TTFT is 3 s on vLLM.", 4),
    ("At three concurrent users SGLang gives 25 tok/s each.", 3),
])
def test_loads_in_count_words(tmp_path, text, load):
    assert _load(read_paste(tmp_path, f"# slow\n\n{text}\n")) == load


_SEMAPHORE = ("```python\nimport asyncio\nMAX_CONCURRENT = 8\nsem = asyncio.Semaphore(MAX_CONCURRENT)\n"
              "async def one(p):\n    async with sem:\n        return await client.chat.completions.create(model='m', "
              "messages=p)\n```\n")
_POOL = ("```python\nfrom concurrent.futures import ThreadPoolExecutor\nimport requests\ndef send(p):\n"
         "    return requests.post(url, json={'prompt': p})\nwith ThreadPoolExecutor(max_workers=16) as ex:\n"
         "    list(ex.map(send, prompts))\n```\n")


@pytest.mark.parametrize("code, load", [(_SEMAPHORE, 8), (_POOL, 16)])
def test_a_clients_bound_in_pasted_code(tmp_path, code, load):
    facts = read_paste(tmp_path, f"# slow\n\n{code}\nThroughput is only 200 tok/s on vLLM.\n")
    assert facts.workload().concurrency == load


@pytest.mark.parametrize("config", [
    "```\nllamafactory-cli train --stage sft --do_predict --per_device_eval_batch_size 4 --predict_with_generate\n```",
    "```yaml\ndo_predict: true\nper_device_eval_batch_size: 4\n```",
    "```python\nargs = Seq2SeqTrainingArguments(output_dir='out', per_device_eval_batch_size=4,\n"
    "                                predict_with_generate=True)\n```",
])
def test_the_eval_batch_as_flag_yaml_or_keyword(tmp_path, config):
    facts = read_paste(tmp_path, f"# slow eval\n\n{config}\n\nPrediction takes an hour on one A100.\n")
    assert facts.workload().batch == 4


@pytest.mark.parametrize("text", [
    "Two RTX 3090s, `llama-server -m q.gguf -ngl 99 -sm layer`, 20 tok/s.",
    "```\nllama-server -m model.gguf -ngl 99 -ts 1,1 -sm layer\n```\n\n20 tok/s on two 3090s.",
    "Two RTX 3090s with llama.cpp, --split-mode layer, 20 tok/s.",
])
def test_layer_split_paraphrases(tmp_path, text):
    facts = read_paste(tmp_path, f"# slow\n\n{text}\n")
    assert (gpu_count(facts), facts.workload().tp) == (2, 1)


def test_a_row_split_stays_tensor_parallel(tmp_path):
    facts = read_paste(tmp_path, "# slow\n\n```\nllama-server -m model.gguf -ngl 99 -ts 1,1 -sm row\n```\n\n"
                            "20 tok/s on two 3090s.\n")
    assert facts.workload().tp == 2


@pytest.mark.parametrize("text, gpus, tp", [
    ("We have an 8-GPU node. We run vLLM with TP 2 and get 30 tok/s.", 2, 2),
    ("Our server has 8 A100s. vLLM runs with tensor_parallel_size=2 and decodes at 30 tok/s.", 2, 2),
    ("A node with 8 GPUs (H100). We serve Llama 70B with TP 4.", 4, 4),
])
def test_a_machines_count_and_a_tp_said_apart(tmp_path, text, gpus, tp):
    facts = read_paste(tmp_path, f"# slow\n\n{text}\n")
    assert (gpu_count(facts), facts.workload().tp) == (gpus, tp)


# --- traps that must stay unread ---

@pytest.mark.parametrize("text", [
    "When sending 100 requests, only 3 run at the same time.",
    "I ran the benchmark with 1000 requests in total on vLLM.",
    "Running two separate Python programs against Ollama slows both.",
    "Two RTX 3090s, llama-server -ngl 99, 20 tok/s.",
    "The server listens on port 8000 and the PID is 4242 on vLLM 0.6.3.",
])
def test_no_load_from_counts_sent_programs_layers_ports_or_versions(tmp_path, text):
    assert _load(read_paste(tmp_path, f"# slow\n\n{text}\n")) is None


@pytest.mark.parametrize("code", [
    # a semaphore around file reads: no request is sent
    "```python\nimport asyncio\nsem = asyncio.Semaphore(4)\nasync def load(path):\n    async with sem:\n"
    "        return open(path).read()\n```",
    # two pools of different sizes: no one bound
    "```python\nimport requests\nfrom concurrent.futures import ThreadPoolExecutor\n"
    "A = ThreadPoolExecutor(max_workers=4)\nB = ThreadPoolExecutor(max_workers=8)\nrequests.post(url)\n```",
])
def test_no_load_from_a_semaphore_without_requests_or_two_pools(tmp_path, code):
    facts = read_paste(tmp_path, f"# slow\n\nDecoding is slow on vLLM with one A100.\n\n{code}\n")
    assert facts.workload().concurrency is None


def test_the_training_batch_is_no_load(tmp_path):
    facts = read_paste(tmp_path, "# slow\n\n```\nllamafactory-cli train --per_device_train_batch_size 8\n```\n\n"
                            "Training is slow on one A100.\n")
    assert facts.workload().batch is None


def test_no_split_mode_read_where_both_are_named(tmp_path):
    facts = read_paste(tmp_path, "# slow\n\nOn 2x RTX 3090, -sm row gives 20 tok/s and -sm layer gives 25 tok/s.\n")
    assert facts.workload().tp is None


@pytest.mark.parametrize("text, gpus", [
    # a TP asked of one GPU (an error ticket): the one GPU stays
    ("On my single A100 I set tensor_parallel_size=2 and vLLM fails.", 1),
    # no TP said: two setups, the first count stays (as before)
    ("I tested on a single A100 and on a setup with 4xA100; throughput is the same.", 1),
])
def test_one_gpu_stays_without_a_tp_matching_a_count(tmp_path, text, gpus):
    assert gpu_count(read_paste(tmp_path, f"# slow\n\n{text}\n")) == gpus


@pytest.mark.parametrize("text", [
    "I use 8 GPUs with TP=4.",  # a count in the TP's sentence: may be replicas (tests/test_count32)
    "We have an 8-GPU node. We run four replicas with TP 2.",
    "We have an 8-GPU node. TP 2 gives 30 tok/s and TP 4 gives 40 tok/s.",
])
def test_the_machines_count_stays_with_replicas_several_tps_or_a_count_beside_the_tp(tmp_path, text):
    assert gpu_count(read_paste(tmp_path, f"# slow\n\n{text}\n")) == 8

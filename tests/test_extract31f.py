"""extract31f (issue 11): GPU count, TP size, weight precision and batch read as people write them, each form on
real sentences from public threads (URL beside each), paraphrases, and near-misses that must not be read. The
readers are called directly: diagnose.artifacts.issue_md.parse on a pasted issue, launch.parse on a command line."""

from __future__ import annotations

import pytest

from diagnose.artifacts import issue_md, launch
from diagnose.bundle import read_bundle
from diagnose.evidence import Facts, Workload


def reading(body: str) -> Workload:
    """The ticket-wide Workload the issue reader makes of `body` pasted under a title."""
    records = issue_md.parse("# Slow inference, is this normal?\n\n" + body + "\n", "issue.md")
    return Facts(records=records).workload()


def launched(line: str) -> Workload:
    return Facts(records=launch.parse(line, "cmd")).workload()


# --- GPU count --------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,gpus", [
    # the count glued after the board, as cloud shapes and listings write it
    # (NVIDIA's MLPerf Triton harness README: "if you are running llama2-70b on H100x8 on DP=4, TP=1, PP=2")
    ("For example, if you are running llama2-70b on H100x8 on DP=4, TP=1, PP=2, the rate is 10 tok/s.", 8),
    ("We serve Qwen2-72B on an A100x4 box and get 12 tok/s.", 4),  # paraphrase
    ("RTX A6000x2 gives 10 tok/s with llama-2-13b.", 2),  # paraphrase
    # the count after the board with a star (sgl-project/sglang#998: "gpu:4090*1")
    ("my environment：\ngpu:4090*1\ncuda:12.4", 1),
    # one GPU said as the setup (vllm-project/vllm#5316's "single gpu"; paraphrases)
    ("vllm version: 0.4.3, gpu A40, 46Gi, single gpu", 1),
    ("I run Llama-2-7b on a single GPU and get 30 tok/s.", 1),
    ("Using 1 GPU, Mistral-7B gives 40 tok/s.", 1),
    ("On a single-GPU setup I get 10 tok/s with Llama-2-13b.", 1),
    # one board with an article after a verb of having or running it (vllm-project/vllm#8669: "I am running the llama
    # 3.1 70B GGUF Q4 model on an A100 80G GPU using vLLM."; oobabooga/textgen#2410: "On a 3090 on on windows")
    ("I am running the llama 3.1 70B GGUF Q4 model on an A100 80G GPU using vLLM. However, the inference speed is "
     "significantly slower than expected, reaching only 8.7 tokens per second.", 1),
    ("I have a 4090 and Mistral-7B decodes 50 tok/s.", 1),  # paraphrase
])
def test_gpu_count_as_written(text, gpus):
    assert reading(text).gpu_count == gpus


@pytest.mark.parametrize("text", [
    # one GPU compared with more (intel/ipex-llm#12190: "Using a single GPU I get 40-42 tokens per second and dual gpu
    # I get 38-41 tokens per second")
    "Using a single GPU I get 40-42 tokens per second and dual gpu I get 38-41 tokens per second.",
    "Single GPU vs 2 GPUs: 10 tok/s vs 12 tok/s.",
    # one GPU the sentence sizes against, supposes, or singles out of several
    "The 70B model does not fit on a single GPU, so it runs at 10 tok/s.",
    "It needs more than one GPU, and decodes 10 tok/s.",
    "Only one GPU is used, 10 tok/s.",
    # a resolution or a size is no count ("640x480", "A100x80GB")
    "The images are 640x480 and Llava decodes 10 tok/s.",
    # a board with an article that is a machine's, one of two boards, or asked about
    "We rent an H100 node and get 10 tok/s.",
    "I have a 4090 and a 3090, and get 10 tok/s.",
    "Does it run on a 4090? I get 10 tok/s on my laptop.",
])
def test_gpu_count_near_misses_are_not_one_or_a_count(text):
    assert reading(text).gpu_count in (None, 2)  # (the "2 GPUs" of the comparison may be read; never 1)


def test_a_card_named_then_sized_after_an_at_sign():
    # huggingface/text-generation-inference#1779: "**Hardware:** `2xA100 @40GB memory`" is the card's memory
    w = reading("**Hardware:** `2xA100 @40GB memory`")
    assert (w.gpu, w.gpu_count) == ("A100 40GB", 2)


# --- TP size ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,tp", [
    # "N-way" (a TensorRT-LLM falcon example README: "Use 4-way tensor parallelism and 2-way pipeline parallelism on
    # falcon-180B"; Megatron's "N-way tensor model parallelism")
    ("# Use 4-way tensor parallelism and 2-way pipeline parallelism on falcon-180B, loading weights shard-by-shard.",
     4),
    ("We use 8-way TP on H100 and get 10 tok/s.", 8),
    ("With 2-way tensor model parallel the decode is 10 tok/s.", 2),
    # one GPU said: no split (vllm-project/vllm#5316)
    ("vllm version: 0.4.3, gpu A40, 46Gi, single gpu", 1),
    # engine flags pasted as one code span on a line, no program name (huggingface/text-generation-inference#1779)
    ("**Args:**\n```--model-id mistralai/Mixtral-8x7B-Instruct-v0.1 --quantize eetq --sharded true --num-shard 2 "
     "--disable-grammar-support```", 2),
])
def test_tp_as_written(text, tp):
    assert reading(text).tp == tp


@pytest.mark.parametrize("text", [
    "a 4-way split of the batch over the data loader gave 10 tok/s",  # no tensor parallelism named
    "If one GPU is not enough, what TP should I use?",
])
def test_tp_near_misses(text):
    assert reading(text).tp in (None,)


@pytest.mark.parametrize("line,tp", [
    # servers started with no parallel flag use their documented default TP 1 (sgl-project/sglang#998's two launch
    # commands; vllm-project/vllm#8669's "vllm serve ./Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf ...")
    ("python -m vllm.entrypoints.openai.api_server --model /home/modeldata/Qwen2-1.5B-Instruct --port 8899", 1),
    ("python -m sglang.launch_server --model-path /home/modeldata/Qwen2-1.5B-Instruct --host 0.0.0.0 --port 30000", 1),
    ("vllm serve ./Meta-Llama-3.1-70B-Instruct-Q4_K_M.gguf  --tokenizer unsloth/Meta-Llama-3.1-70B-Instruct "
     "--max-model-len 8192", 1),
    # an explicit size wins; a pipeline split alone leaves TP at its default 1 (count32: --tensor-parallel-size
    # "Default: 1", https://docs.vllm.ai/en/latest/configuration/engine_args.html, whatever -pp says)
    ("vllm serve meta-llama/Llama-3.1-70B-Instruct -tp 4", 4),
    ("python -m vllm.entrypoints.openai.api_server --model x --pipeline-parallel-size 2", 1),
    # a benchmark client or the offline class say nothing of the server's layout
    ("python benchmarks/benchmark_serving.py --backend vllm --model Qwen/QwQ-32B --max-concurrency 1", None),
])
def test_server_default_tp(line, tp):
    assert launched(line).tp == tp


# --- weight precision -------------------------------------------------------------------------------------------

@pytest.mark.parametrize("text,dtype", [
    # --dtype in the rules' words (vllm-project/vllm#4760: "--dtype=bfloat16")
    ("```\nserver_vllm.py \\\n  --model \"/data/models_temp/functionary-small-v2.4/\" \\\n  --dtype=bfloat16 \\\n"
     "  --max-model-len 2048\n```", "bf16"),
    # bitsandbytes in pasted code (huggingface/transformers#24502)
    ("```python\nmodel = AutoModelForCausalLM.from_pretrained(model_name, load_in_4bit=True, device_map=\"auto\", "
     "trust_remote_code=True)\n```", "int4"),
    ("```python\nmodel = AutoModelForCausalLM.from_pretrained(name, torch_dtype=torch.float16).cuda()\n```", "fp16"),
    # the one format the prose names (sgl-project/sglang#834: "Llama3.1-8B/Llama3-8B on 1 x A100 (bf16)";
    # vllm-project/vllm#7567: "i have 2xa100 pcie for inference llama 3.1 70b bfloat16.")
    ("### Llama3.1-8B/Llama3-8B on 1 x A100 (bf16)", "bf16"),
    ("Hi @yaronr i have 2xa100 pcie for inference llama 3.1 70b bfloat16. I get only 17 tokens per second.", "bf16"),
    ("I am Running a 70B model as IQ4_XS split across 4 A10s and get 14t/s generation.", "int4"),  # paraphrase
    ("The model is an EXL2 4.0 bpw quant and decodes 350 tokens/s.", "int4"),  # paraphrase
    # a 16-bit float on the model's own line is its weights, whatever quantised run a later section names
    # (vllm-project/vllm#5316: "### phi3 fp16" over the measured run, "### awq performance:" below)
    ("### phi3 fp16\nIt decodes 40 tok/s.\n\n### awq performance:\nphi3-4k-awq decodes 35 tok/s.", "fp16"),
])
def test_weights_as_written(text, dtype):
    assert reading(text).dtype == dtype


@pytest.mark.parametrize("text", [
    # several formats, or a comparison whose other side is unnamed (bitsandbytes-foundation/bitsandbytes#490;
    # baichuan-inc/Baichuan2#70)
    "With all the models tested, `load_in_8bit` is extremely slow, about 5x as slow as bf16, and 150% slower than "
    "load_in_4bit.",
    "I get 38 token/s for 13B and 18 token/s for 13B-4bits on A100.",
    # a KV cache's type, a plan and a question are no weight format
    "We use an fp8 kv cache and get 20 tok/s.",
    "Should I try AWQ to get more than 20 tok/s?",
    "We plan to quantize to 4-bit later; today it decodes 20 tok/s.",
])
def test_weights_near_misses(text):
    assert reading(text).dtype is None


# --- batch and load ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("line,batch", [
    # text-generation-benchmark's -b / --batch-size: one size given is the batch (huggingface/text-generation-
    # inference#1452's command; its benchmark README); several sizes are several runs
    ("text-generation-benchmark --tokenizer-name TheBloke/Llama-2-7B-AWQ -s 1000 -d 100 -b 4", 4),
    ("text-generation-benchmark --tokenizer-name x --batch-size 16", 16),
    ("text-generation-benchmark --tokenizer-name x -b 1 -b 8 -b 32", None),
    # --max-num-seqs is the engine's cap, not a load (https://docs.vllm.ai/en/latest/configuration/engine_args.html)
    ("vllm serve meta-llama/Llama-3.1-8B-Instruct --max-num-seqs 256", None),
])
def test_batch_from_a_command(line, batch):
    assert launched(line).batch == batch


@pytest.mark.parametrize("text,stated", [
    # one request at a time in words (vllm-project/vllm#2069: "I was just using a batch size of one and generating
    # ~400 tokens"; huggingface/text-generation-inference#1779: "sending 1 request at a time")
    ("For what it's worth, I was just using a batch size of one and generating ~400 tokens. I get 10 tok/s.", True),
    ("**Load:**  sending 1 request at a time at `/generate` with inputs of 128 tokens, 8 ms per token.", True),
    ("A single request failed, the rest ran at 10 tok/s with 32 concurrent requests.", False),
])
def test_one_request_at_a_time(text, stated):
    assert bool(reading(text).extra.get("load_stated")) is stated


def test_a_one_line_code_span_opens_no_fence():
    """A line that starts with ``` and holds another backtick is a code span (CommonMark 4.5): the prose after it
    stays prose, so its figures and load are read."""
    prose, code = issue_md.blocks("```--model-id x --num-shard 2```\nI get 8 ms per token.\n")
    assert [ln for _, ln in prose] == ["```--model-id x --num-shard 2```", "I get 8 ms per token."] and code == []


@pytest.mark.parametrize("text,gpus", [
    # a CUDA_VISIBLE_DEVICES list that an MPI launch hands every rank on many hosts is each node's GPUs: the launch's
    # own count (32 ranks x 8 GPUs, nccl-tests' -g 8) is the job's (paraphrase of an NVIDIA/nccl all_gather_perf run)
    ("```\nmpirun --bind-to none -np 32 -H <hosts> -x NCCL_DEBUG=WARN -x CUDA_VISIBLE_DEVICES=0,1,2,3,4,5,6,7 "
     "/nccl-tests/build/all_gather_perf -b 2G -e 2G -f 2 -g 8\n```", 256),
    # ... while one list on a single launch sets the job apart from the node (kept: two of the node's GPUs)
    ("We have a node of eight H100s.\n```\nCUDA_VISIBLE_DEVICES=0,1 vllm serve meta-llama/Llama-3.1-8B-Instruct "
     "-tp 2\n```", 2),
])
def test_visible_devices_per_node_or_per_job(text, gpus):
    from rules.common import gpu_count

    assert gpu_count(Facts(records=issue_md.parse("# Slow\n\n" + text + "\n", "issue.md"))) == gpus


def test_a_stated_tp_outranks_the_default_of_a_bare_server_line(tmp_path):
    """A bare `vllm serve` pasted first defaults to TP 1; a later line's `-tp 2` is what the reporter stated."""
    paste = tmp_path / "issue.md"
    paste.write_text("# slow\n\nFirst I tried\n\n```\nvllm serve meta-llama/Llama-3.1-8B-Instruct\n```\n\n"
                     "then\n\n```\nvllm serve meta-llama/Llama-3.1-70B-Instruct -tp 2\n```\n\ndecode is 20 tok/s\n")
    workload = read_bundle(paste).workload()
    assert workload.tp == 2 and "defaults" not in workload.extra
    paste.write_text("# slow\n\n```\nvllm serve meta-llama/Llama-3.1-8B-Instruct\n```\n\ndecode is 20 tok/s\n")
    workload = read_bundle(paste).workload()
    assert workload.tp == 1 and workload.extra["defaults"] == ("tp",)


def test_one_gpu_named_beside_larger_counts_is_no_one_gpu_job(tmp_path):
    """t008's 'on single gpu, and tensor-parallel on 2-gpus and 4-gpus' compares counts: no one-GPU setup read."""
    paste = tmp_path / "issue.md"
    paste.write_text("# TP vs DP\n\nI use vllm to inference the model on single gpu, and tensor-parallel on 2-gpus and "
                     "4-gpus, but there is no significant increase in token throughput.\n")
    workload = read_bundle(paste).workload()
    assert workload.gpu_count is None and workload.tp is None

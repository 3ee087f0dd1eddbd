"""GPU count and TP size read the way the engines document them (pass count32): each launch or config spelling is an
example from the engine's own documentation (URL beside it), read through the whole ticket reader (read_bundle), and
the near-misses that must not be read: a size the sentence denies, a scheduler cap, llama-bench's token batch."""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Workload
from rules.common import gpu_count

TICKETS = Path(__file__).parent / "data" / "tickets"


def _read(tmp_path: Path, body: str):
    paste = tmp_path / "issue.md"
    paste.write_text("# Throughput lower than expected\n\n" + body + "\n\nIs this speed normal?\n")
    return read_bundle(paste)


def _code(text: str) -> str:
    return "```\n" + text + "\n```"


@pytest.mark.parametrize("body, tp", [
    # vLLM's YAML config takes the CLI's dashed names (https://docs.vllm.ai/en/stable/configuration/serve_args.html)
    ("```yaml\nmodel: meta-llama/Llama-3.1-70B-Instruct\ntensor-parallel-size: 4\n```", 4),
    # TGI: every launcher flag has its env var, --num-shard is NUM_SHARD
    # (https://huggingface.co/docs/text-generation-inference/reference/launcher)
    (_code("docker run --gpus all --shm-size 1g -e NUM_SHARD=2 ghcr.io/huggingface/text-generation-inference:2.0 "
           "--model-id meta-llama/Llama-2-13b-hf"), 2),
    # DeepSpeed inference config (https://www.deepspeed.ai/tutorials/inference-tutorial/)
    ("```python\nmodel = deepspeed.init_inference(model, tensor_parallel={\"tp_size\": 4}, dtype=torch.half)\n```", 4),
    # MLC LLM (https://llm.mlc.ai/docs/deploy/mlc_chat_config.html)
    (_code('mlc_llm serve HF://mlc-ai/Llama-3-70B-Instruct-q4f16_1-MLC --overrides "tensor_parallel_shards=2"'), 2),
    # Transformers' tp_plan under torchrun (https://huggingface.co/docs/transformers/perf_infer_gpu_multi)
    ("```python\nmodel = AutoModelForCausalLM.from_pretrained(model_id, tp_plan=\"auto\")\n```\n"
     "launched with `torchrun --nproc-per-node 4 demo.py`", 4),
    # Meta's llama reference scripts: --nproc_per_node is the checkpoint's MP (https://github.com/meta-llama/llama)
    (_code("torchrun --nproc_per_node 8 example_chat_completion.py --ckpt_dir llama-2-70b-chat/ "
           "--tokenizer_path tokenizer.model --max_seq_len 512 --max_batch_size 6"), 8),
    # LMDeploy's CLI (https://lmdeploy.readthedocs.io/en/latest/llm/api_server.html): --tp, default 1
    (_code("lmdeploy serve api_server internlm/internlm2_5-7b-chat --tp 2"), 2),
    (_code("lmdeploy serve api_server internlm/internlm2_5-7b-chat --server-port 23333"), 1),
])
def test_documented_tp_spellings(tmp_path, body, tp):
    facts = _read(tmp_path, body)
    assert facts.workload().tp == tp
    assert gpu_count(facts) == tp  # a TP group of N holds N GPUs (rules.common.layout_gpus)


@pytest.mark.parametrize("body, gpus", [
    # ExLlama's per-GPU memory split (https://github.com/turboderp-org/exllamav2, model_init.py -gs)
    ("```python\nmodel.load(gpu_split=[20, 24])\n```", 2),
    (_code("python examples/chat.py -m /models/llama2-70b-exl2 -gs 17.2,24 -mode llama"), 2),
    ("```python\nmodel.load(gpu_split=[0, 24])\n```", None),  # a zero share leaves a GPU out: one GPU, not counted
    # NVIDIA Container Toolkit's GPU enumeration (https://docs.nvidia.com/datacenter/cloud-native/container-toolkit/)
    (_code("docker run --runtime=nvidia -e NVIDIA_VISIBLE_DEVICES=0,1 vllm/vllm-openai --model facebook/opt-13b"), 2),
    # vLLM's -pp and -tp short flags (https://docs.vllm.ai/en/latest/configuration/engine_args.html): TP x PP GPUs
    (_code("vllm serve meta-llama/Llama-3.1-70B-Instruct -tp 4 -pp 2"), 8),
])
def test_documented_gpu_counts(tmp_path, body, gpus):
    assert gpu_count(_read(tmp_path, body)) == gpus


@pytest.mark.parametrize("line", [
    "I did not use --tensor-parallel-size 4 for this run.",
    "We never pass --tp 8 here.",
    "--tp 4 was not set for this test.",
])
def test_denied_tp_is_not_read(tmp_path, line):
    assert _read(tmp_path, line).workload().tp is None


def test_tp_that_ran_beside_a_complaint_is_read(tmp_path):
    # the negation is the speed's, not the size's
    assert _read(tmp_path, "I can't get good speed with tp=2 on two A10s.").workload().tp == 2


def test_caps_are_not_a_batch(tmp_path):
    # --max-num-seqs and LMDeploy's --max-batch-size are scheduler caps; llama-bench -b / -ub are token batches
    # (https://github.com/ggml-org/llama.cpp/tree/master/tools/llama-bench)
    for body in (_code("vllm serve meta-llama/Llama-3.1-8B --max-num-seqs 256"),
                 _code("lmdeploy serve api_server internlm/internlm2_5-7b-chat --tp 1 --max-batch-size 128"),
                 _code("./llama-bench -m model.gguf -b 2048 -ub 512 -ngl 99")):
        w = _read(tmp_path, body).workload()
        assert w.batch is None and w.concurrency is None


def test_inventory_count_stays_without_a_layout(tmp_path):
    # a node's GPUs say nothing of the TP size: no TP is read from a count alone
    facts = _read(tmp_path, "Our server has 8x A100 80GB and the decode rate is 12 tok/s.")
    assert facts.workload().tp is None


def test_lmdeploy_launch_in_development_ticket():
    # a real paste (QwenLM/Qwen3#1023): "lmdeploy serve api_server ... --tp 4" on a 4 x V100 machine
    facts = read_bundle(TICKETS / "u8a05-lmdeploy-qwen25-32b-gptq-4xv100-16g-80-tokps-zh")
    launch = [w for w in facts.of(Workload) if w.source.endswith(":16")]  # the fenced launch line
    assert launch and launch[0].tp == 4
    assert gpu_count(facts) == 4


@pytest.mark.parametrize("body, tp, gpus", [
    # a data- or pipeline-parallel flag alone leaves TP at its documented default of 1
    # (https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html): DP 4 is four GPUs, PP 2 two
    (_code("vllm serve meta-llama/Llama-3.1-8B-Instruct --data-parallel-size 4"), 1, 4),
    (_code("vllm serve meta-llama/Llama-3.1-70B-Instruct --pipeline-parallel-size 2"), 1, 2),
    # TGI's --num-shard said in prose (https://huggingface.co/docs/text-generation-inference/reference/launcher)
    ("TGI with --num-shard 2 gives 30 tok/s.", 2, 2),
    # one GPU counted with its board: one GPU splits nothing
    ("My setup: 1x RTX 4090.", 1, 1),
    ("Hardware: single A100 80GB", 1, 1),
])
def test_layout_defaults_and_single_board(tmp_path, body, tp, gpus):
    facts = _read(tmp_path, body)
    assert (facts.workload().tp, gpu_count(facts)) == (tp, gpus)


@pytest.mark.parametrize("line, load", [
    ("I send 32 requests at the same time and get 900 tok/s total.", 32),
    ("With 8 prompts simultaneously the rate drops to 20 tok/s each.", 8),
    ("I sent 1000 requests in total and got 900 tok/s.", None),  # a count sent in all is no load
])
def test_requests_at_once(tmp_path, line, load):
    w = _read(tmp_path, line).workload()
    assert w.concurrency == load


def test_one_board_beside_a_larger_count_is_no_layout(tmp_path):
    # two setups compared (thu-ml/RoboticsDiffusionTransformer#88, tests/data/review29/training.toml): the single
    # board is one side, not the run's TP
    facts = _read(tmp_path, "When using a single 4090 (24G), the training time is 46 hours, whereas using 7 * 4090 "
                            "(24G) increases the training time to 55 hours.")
    assert facts.workload().tp is None


@pytest.mark.parametrize("line", [
    # the same two setups in Chinese, counted with the measure word for cards (QwenLM/Qwen#669, tests/data/ut26f)
    "单张A100比2张A100速度快，请问是什么原因呢？",
    "单卡 A100 比双卡快",
])
def test_one_board_beside_a_chinese_count_is_no_layout(tmp_path, line):
    assert _read(tmp_path, line).workload().tp is None


def test_one_card_in_chinese_is_still_tp1(tmp_path):
    # near-miss: 单卡 / 每卡 count no second card
    assert _read(tmp_path, "单张A100 推理，每卡显存 80G，速度 20 tokens/s").workload().tp == 1


@pytest.mark.parametrize("body, gpus", [
    # a node's inventory is not the GPUs one server runs on: TP x PP x DP of its one launch line
    ("The server has 8 H100s; I run `vllm serve meta-llama/Llama-3.1-8B --tensor-parallel-size 2`.", 2),
    ("8x A100 80GB node.\n" + _code("python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B --tp 4"), 4),
    ("8x A100 80GB node.\n" + _code("python -m sglang.launch_server --model-path Qwen/Qwen2.5-72B --tp 4 --dp 2"), 8),
    # two servers launched: no one layout is the job's, the node's count stands
    ("8x A100 80GB node.\n" + _code("vllm serve Qwen/Qwen2.5-72B --tensor-parallel-size 4\n"
                                    "vllm serve Qwen/Qwen2.5-7B --tensor-parallel-size 2"), 8),
    # prose layouts are not launches: 8 GPUs at TP 4 may be two replicas
    ("I use 8 GPUs with TP=4", 8),
])
def test_one_server_layout_inside_a_larger_inventory(tmp_path, body, gpus):
    assert gpu_count(_read(tmp_path, body)) == gpus


@pytest.mark.parametrize("body, load", [
    # Triton's perf_analyzer: one value is its load, a start:end:step range sweeps several
    # (https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/perf_analyzer/docs/cli.html)
    (_code("perf_analyzer -m llama --concurrency-range 4"), 4),
    (_code("perf_analyzer -m llama --concurrency-range 1:16:2"), None),
])
def test_perf_analyzer_concurrency(tmp_path, body, load):
    assert _read(tmp_path, body).workload().concurrency == load


def test_nvidia_smi_list(tmp_path):
    # `nvidia-smi -L` (https://docs.nvidia.com/deploy/nvidia-smi/index.html): one line per GPU; MIG devices indented
    # under their GPU are slices of it, not GPUs (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/)
    listing = ("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-4b2b7a9e-1f0c-5f2e-9a51-3e8d2b1c7a60)\n"
               "GPU 1: NVIDIA H100 80GB HBM3 (UUID: GPU-8c1d2e3f-4a5b-6c7d-8e9f-0a1b2c3d4e5f)")
    assert gpu_count(_read(tmp_path, _code("$ nvidia-smi -L\n" + listing))) == 2
    mig = ("GPU 0: NVIDIA A100-SXM4-40GB (UUID: GPU-xxxx)\n"
           "  MIG 3g.20gb     Device  0: (UUID: MIG-xxxx)\n  MIG 3g.20gb     Device  1: (UUID: MIG-yyyy)")
    assert gpu_count(_read(tmp_path, _code(mig))) == 1
    # the listing is the host's; one server launched at TP 1 runs on one of its GPUs
    assert gpu_count(_read(tmp_path, _code(listing) + "\n" + _code("vllm serve Qwen/Qwen2.5-7B -tp 1"))) == 1


@pytest.mark.parametrize("body, batch", [
    # vLLM's latency benchmark: --batch-size "default=8" (vllm/benchmarks/latency.py, https://github.com/vllm-project/vllm)
    (_code("vllm bench latency --model meta-llama/Llama-3.1-8B --input-len 128 --output-len 128"), 8),
    (_code("python benchmarks/benchmark_latency.py --model meta-llama/Llama-3.1-8B --batch-size 1"), 1),
    # the serving benchmark has no such default: its load is the prompts it sends or its --max-concurrency
    (_code("vllm bench serve --model meta-llama/Llama-3.1-8B --max-concurrency 4 --num-prompts 40"), 4),
])
def test_latency_bench_default_batch(tmp_path, body, batch):
    w = _read(tmp_path, body).workload()
    assert (w.batch or w.concurrency) == batch

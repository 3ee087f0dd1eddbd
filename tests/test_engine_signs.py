"""Which engine ran, as a pasted issue shows it (diagnose.artifacts.engine_signs; issue_md's framework): real first
posts of public threads (tests/data/engine31, SOURCES.md), the engines' own printed lines as their docs and real logs
write them, and near-misses where an engine is only named, compared with, linked to or installed."""

from pathlib import Path

import pytest

from diagnose.artifacts.engine_signs import engine_ran, shown
from diagnose.artifacts.text import engine_named, engines_named
from diagnose.bundle import read_bundle
from rules.common import engine_of

DATA = Path(__file__).parent / "data"


# (paste, the engine profile the thread shows ran: rules/catalog/engines.toml's key, None for one it has no profile of)
REAL = [
    ("engine31/trtllm2476", "trtllm"),  # trtllm-bench and [TensorRT-LLM][INFO] lines
    ("engine31/tgi2432", "tgi"),  # TGI's image and text_generation_launcher lines
    ("engine31/tgi1204", "tgi-1.0"),  # "TGI" and the 1.1.1 image: the 1.0-1.3 profile
    ("engine31/llamacpp15125", "llamacpp"),  # llama-cli, ggml_cuda_init
    ("engine31/llamacpp3520", "llamacpp"),
    ("engine31/llamacpppython1354", "llamacpp"),  # python -m llama_cpp.server (named nowhere in prose)
    ("engine31/ollama8964", "llamacpp"),  # Ollama ran; LM Studio only tried for comparison
    ("engine31/ollama9170", "llamacpp"),
    ("engine31/ollama11388", "llamacpp"),
    ("engine31/lmdeploy2231", "lmdeploy"),  # lmdeploy serve api_server in a Chinese issue
    ("engine31/mii204", "deepspeed"),  # import mii (DeepSpeed-MII named only as "MII")
    ("engine31/gptfast50", "gpt-fast"),  # generate.py --checkpoint_path .../model_int8.pth
    ("engine31/accelerate608", "hf-eager"),  # AutoModelForCausalLM + model.generate()
    ("engine31/textgen2923", None),  # ExLlama under text-generation-webui: no profile, and no other engine put for it
    ("extract30/fastdllm49", None),  # `accelerate launch` starts a custom eval script: a launcher, not an engine
    # development cases (tests/data/tickets) whose engine only its printed lines gave
    ("tickets/t019-sglang-multi-machine-decode-24tps", "sglang"),  # "[10:22:51 TP0] Decode batch."
    ("tickets/u11b10-ollama-two-tesla-m60-only-one-used-model-fits", "llamacpp"),  # ollama serve + ggml_cuda_init
    ("tickets/u13a02-vllm2080ti-fork-2x2080ti-no-nvlink-decode-42-toks", "vllm"),  # "(Worker_TP0 pid=..) INFO 08-26"
    # both ran (the reporter's script loads each, LLM(gpu_memory_utilization=..) and TurbomindEngineConfig) and the
    # prose names both: undecidable, none kept (the thread was filed with LMDeploy, which the text does not say)
    ("tickets/u15a02-lmdeploy-qwen25-32b-awq-tp2-1p6x-vllm-single-1p1x-batch-zh", None),
    # the title deploys with lmdeploy, the pasted log is vLLM's ("INFO 10-18 03:33:41 metrics.py:345] Avg prompt
    # throughput"), the prose names both: undecidable, none kept
    ("tickets/u8a05-lmdeploy-qwen25-32b-gptq-4xv100-16g-80-tokps-zh", None),
    ("tickets/e005-vllm-mpt7b-tp2-slower", "vllm"),  # vllm = LLM(..., gpu_memory_utilization=.95)
    ("tickets/u12a12-ollama-65-layer-model-42-offloaded-7p6gib-gpu-not-full-power", "llamacpp"),  # "ollama[3046]:"
    ("tickets/u13a06-beellama-2-gpu-split-xid8-watchdog-second-gpu-gen3-x1", "llamacpp"),  # "llama-server[147820]:"
    ("tickets/u416-vllm-internlm2-tp-ncclsystemerror-allreduce", "vllm"),  # dist-packages/vllm/ in the traceback
    ("tickets/u6c05-trtllm-mpt-multi-gpu-peer-access", "trtllm"),  # dist-packages/tensorrt_llm/, TensorRT-LLM/examples
    ("tickets/u8c11-qwen-7b-14b-transformers-device-map-auto-multi-gpu-10x-slower", "hf-eager"),  # model.chat_stream
    ("tickets/u18c05-llamacpp-rpc-server-remote-1p3-tokps-generation", "llamacpp"),  # llama-cli -m
    ("tickets/u5b12-vllm-ada-a6000-x2-tp2-runs-once-then-stalls", "vllm"),  # "INFO 11-01 23:16:33 ...py:56]"
    # ... and one that names its engine only in its repository's issue-template link
    ("tickets/u15a06-sglang-llama3-8b-8xa800-throughput-barely-above-one-card", "sglang"),
]


@pytest.mark.parametrize("paste,engine", REAL, ids=[p for p, _ in REAL])
def test_real_paste_engine(paste, engine):
    path = DATA / paste
    assert engine_of(read_bundle(path if path.is_dir() else path.with_suffix(".md"))) == engine


# Lines the engines print or document, each alone (the shape each sign in engine_signs cites)
PRINTED = [
    ("INFO 05-12 10:00:00 model_runner.py:1000] Capturing the model for CUDA graphs.", "vLLM"),  # before 0.6
    ("INFO 08-14 12:59:46 [gpu_model_runner.py:2592] Graph capturing for 464 input tokens", "vLLM"),
    ("(VllmWorker rank=1 pid=4711) INFO 03-02 10:00:00 [custom_all_reduce.py:79] Custom allreduce is disabled", "vLLM"),
    ("llm = LLM(model='x')\nfrom vllm import LLM, SamplingParams", "vLLM"),
    ("CUDA_VISIBLE_DEVICES=0,1 python3 -m vllm.entrypoints.openai.api_server --model m --tensor-parallel-size 2",
     "vLLM"),
    ("[2025-01-27 11:13:24 TP0] Prefill batch. #new-seq: 2, #new-token: 791", "SGLang"),
    ("[10:22:51 TP0] Decode batch. #running-req: 1, #token: 495, gen throughput (token/s): 23.83", "SGLang"),
    ("python3 -m sglang.launch_server --model-path m --tp 4", "SGLang"),
    ("[TensorRT-LLM][INFO] MPI size: 2, rank: 0", "TensorRT-LLM"),
    ("mpirun -n 8 --allow-run-as-root python3 run.py --max_output_len=2048 --engine_dir ./engine", "TensorRT-LLM"),
    ("trtllm-serve meta-llama/Llama-3.1-8B --tp_size 2", "TensorRT-LLM"),
    ("import tensorrt_llm", "TensorRT-LLM"),
    ('2024-01-19T07:13:11.235812Z  INFO text_generation_launcher: Args { model_id: "m", num_shard: Some(4) }', "TGI"),
    ("text-generation-launcher --model-id m --num-shard 2", "TGI"),
    ("lmdeploy serve api_server ./m --tp 2", "LMDeploy"),
    ("from lmdeploy import pipeline, TurbomindEngineConfig", "LMDeploy"),
    ("2025-04-11 04:15:17,172 - lmdeploy - INFO - async_engine.py:259 - input backend=pytorch", "LMDeploy"),
    ("ggml_init_cublas: found 2 CUDA devices:", "llama.cpp"),
    ("llama_model_loader: loaded meta data with 20 key-value pairs", "llama.cpp"),
    ("| model | size | params | backend | ngl | test | t/s |", "llama.cpp"),
    # Ollama's runner prints llama.cpp's lines: the embedder is the one named
    ('time=2025-02-09T14:19:08.483+08:00 level=INFO source=server.go:380 msg="starting llama server"\n'
     "ggml_cuda_init: found 2 CUDA devices:", "Ollama"),
    ("from llama_cpp import Llama", "llama-cpp-python"),
    ("from transformers import AutoModelForCausalLM\nm = AutoModelForCausalLM.from_pretrained('x')\nm.generate(**x)",
     "transformers"),
    ("import mii\npipe = mii.pipeline('mistralai/Mistral-7B-v0.1')", "DeepSpeed-MII"),
    ("from exllamav2 import ExLlamaV2, ExLlamaV2Config", "ExLlamaV2"),
    ("Output generated in 11.20 seconds (11.61 tokens/s, 130 tokens, context 22, seed 1)", "text-generation-webui"),
    ('  File "/opt/conda/lib/python3.11/site-packages/sglang/srt/managers/scheduler.py", line 1, in run', "SGLang"),
    (r'  File "C:\Python311\Lib\site-packages\vllm\engine\llm_engine.py", line 5', "vLLM"),
    ("Mar 01 10:00:00 box ollama[812]: llama_model_loader: loaded meta data with 30 key-value pairs", "Ollama"),
    ("model = AutoModel.from_pretrained('THUDM/chatglm-6b', trust_remote_code=True)\nmodel.chat(tok, 'hi')",
     "transformers"),
]


@pytest.mark.parametrize("text,engine", PRINTED, ids=[e + ":" + t[:30] for t, e in PRINTED])
def test_printed_line_shows_engine(text, engine):
    assert shown(text) == [engine]


# Near-misses: no line here shows an engine running
NOT_SHOWN = [
    "vllm                              0.6.3",  # a pip list row: installed, not running
    "pip install vllm==0.6.3 tensorrt_llm",
    "I did not import vllm or lmdeploy, only transformers.",
    "See https://docs.vllm.ai/en/latest/serving/engine_args.html for --tensor-parallel-size",
    "tokenizer = AutoTokenizer.from_pretrained('x')",  # a tokenizer loads no model
    "model = AutoModelForCausalLM.from_pretrained('x')",  # loaded, no generate(): it may be handed to another engine
    "[2024-07-01 10:00:00] INFO something started",  # a timestamp without SGLang's TP rank
    "VLLM_USE_V1=0",  # an environment setting (text.ENGINE_SETTING reads those)
    "Location: /usr/local/lib/python3.10/dist-packages",  # `pip show`: where packages live, not one running
    "llm = LLM(model='m', tensor_parallel_size=2)",  # vLLM's or TensorRT-LLM's LLM API: not told apart
    "Mar 01 10:00:00 box kernel: NVRM: Xid 79",  # a journal line of another program
]


@pytest.mark.parametrize("text", NOT_SHOWN)
def test_near_miss_shows_nothing(text):
    assert shown(text) == []


def test_shown_engine_beats_the_one_prose_names():
    """The engine whose output is pasted ran, whatever prose compares it with."""
    text = "My TGI is slower than vLLM.\ntext-generation-launcher --model-id m --num-shard 2"
    assert engine_ran(text, engine_named("My TGI is slower than vLLM.")) == "TGI"
    assert engine_ran("[TensorRT-LLM][INFO] MPI size: 2", "vllm") == "TensorRT-LLM"


def test_two_shown_prose_decides_else_none():
    both = "python -m sglang.launch_server --tp 2\nvllm serve m --tensor-parallel-size 2"
    assert engine_ran(both, "SGLang") == "SGLang"
    assert engine_ran(both, "sglang") == "SGLang"
    assert engine_ran(both, None) is None  # undecidable: keep none
    assert engine_ran(both, "TGI") is None
    # the prose names both that ran: none; it names one of them beside another that is only compared with: that one
    assert engine_ran(both, "vllm", ["vllm", "sglang"]) is None
    prose = "Our SGLang run is slower than vLLM at TP2."
    assert engine_ran(both, engine_named(prose), engines_named(prose)) == "SGLang"


def test_prose_spelling_kept_for_its_release():
    """The same engine named in prose keeps its spelling, so the release written after it is found."""
    assert engine_ran("trtllm-build --checkpoint_dir c", "TensorRT LLM") == "TensorRT LLM"
    assert engine_ran("ggml_cuda_init: found 2 CUDA devices:", "ollama") == "ollama"


@pytest.mark.parametrize("text,named", [
    ("Why is vLLM slower than TGI on two GPUs?", "vLLM"),  # the comparison's subject stays
    ("We get 20 tok/s, much slower than vLLM.", None),  # only compared with
    ("Compared to SGLang, our numbers look low.", None),
    ("I run Ollama instead of vLLM, and it is slow.", "Ollama"),
    ("We switched from vLLM to SGLang last week.", "SGLang"),
    # a link counts only where no engine is named in words (an issue template's link to its own repository)
    ("I followed https://github.com/vllm-project/vllm/issues/1 but TGI is still slow at TP2.", "TGI"),
    ("The docs at docs.vllm.ai say otherwise; I use lmdeploy.", "lmdeploy"),
    ("please raise a discussion at https://github.com/sgl-project/sglang/discussions/new/choose", "sglang"),
    ("vLLM is not slower than TGI here.", "vLLM"),
    ("accelerate launch --num_processes 2 eval.py", None),  # Accelerate's launcher CLI
    ("I split the model with accelerate over two GPUs.", "accelerate"),
])
def test_prose_engine_compared_or_linked(text, named):
    assert engine_named(text) == named

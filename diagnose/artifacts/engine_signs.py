"""Which serving engine a pasted text shows running: its own commands, module paths, Python imports, log prefixes and
output lines, as the engines document and print them. A name in prose says which engine the writer talks about; one
of these lines says which engine ran (an engine only compared with, or linked to, prints nothing). A Python traceback or
warning printed from inside an engine's installed package ("/usr/local/lib/python3.10/dist-packages/vllm/distributed/
parallel_state.py") is that engine's code running.

Each sign cites where its shape comes from. The names given back are the engines' own spellings, which
rules/catalog/engines.toml resolves (its keys and aliases); an engine the catalog has no profile of (ExLlamaV2,
text-generation-webui) is still named, so that a name in prose does not stand in for it.

Not signs: a package list or `pip list` row ("vllm 0.6.3", "tensorrt_llm 0.9.0": installed is not running), an
environment setting (text.ENGINE_SETTING reads those), a URL.
"""

from __future__ import annotations

import re

from diagnose.artifacts.text import sentence_before

# (engine, sign). Anchored where a sign is a line's start (an import, a log prefix), so a sentence that quotes the
# word ("I did not import vllm") is none.
_IMPORT = r"^[ \t]*(?:>>>[ \t]*)?(?:from\s+{0}(?:\.[\w.]+)?\s+import\b|import\s+{0}\b)"
# A file of the installed package, as a traceback or a warning prints its path (pip installs into site-packages,
# Debian's and NVIDIA's container Pythons into dist-packages).
_PACKAGE_PATH = r"[/\\](?:site|dist)-packages[/\\]{0}[/\\]"
SIGNS: tuple[tuple[str, re.Pattern], ...] = tuple((engine, re.compile(sign, flags)) for engine, sign, flags in (
    # vLLM. Quickstart: `from vllm import LLM, SamplingParams`, `vllm serve <model>`, the older
    # `python -m vllm.entrypoints.openai.api_server` (https://docs.vllm.ai/en/latest/getting_started/quickstart.html);
    # `vllm bench serve|throughput|latency` (https://docs.vllm.ai/en/latest/cli/). Its logger's format,
    # "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] %(message)s" with the date "%m-%d %H:%M:%S" (vllm/logger.py;
    # releases before 0.6 wrote "file.py:123]" without the opening bracket), behind a V1 process's "(EngineCore_0
    # pid=..)", "(VllmWorker rank=1 pid=..)" or "(APIServer pid=..)" tag; its engine's start line "Initializing an
    # LLM engine (v0.4.2)" / "Initializing a V1 LLM engine (v0.8.5)" (vllm/engine/llm_engine.py, vllm/v1/engine).
    ("vLLM", _IMPORT.format("vllm"), re.M),
    ("vLLM", r"(?:^|[\s/`])vllm\s+(?:serve|bench\s+(?:serve|throughput|latency))\b|-m\s+vllm\.entrypoints\.", re.M),
    ("vLLM", r"^(?:\(\w+(?:\s+rank=\d+)?\s+pid=\d+\)\s+)?(?:INFO|WARNING|DEBUG|ERROR)\s+\d\d-\d\d\s+\d\d:\d\d:\d\d"
             r"(?:\.\d+)?\s+\[?[\w.]+\.py:\d+\]", re.M),
    ("vLLM", r"\bInitializing an? (?:V1 )?LLM engine \(v\d", 0),
    # ... its offline LLM(...) given gpu_memory_utilization, an engine argument of vLLM's alone (SGLang's is
    # mem_fraction_static, TensorRT-LLM's LLM API takes a KvCacheConfig: https://docs.vllm.ai/en/latest/configuration/
    # engine_args.html), and its package's files
    ("vLLM", r"\bLLM\([^)]*\bgpu_memory_utilization\s*=|" + _PACKAGE_PATH.format("vllm"), 0),
    # SGLang: `python -m sglang.launch_server`, `python -m sglang.bench_serving`, `sgl.Engine(...)`
    # (https://docs.sglang.ai/basic_usage/send_request.html, https://docs.sglang.ai/basic_usage/offline_engine_api.html);
    # its scheduler's log prefix "[2024-11-18 10:00:00 TP0]", "[... DP0 TP0]" (python/sglang/srt/utils.py
    # configure_logger: f"[%(asctime)s{prefix}]" with prefix " TP{rank}"; its 2024 releases stamped the time alone,
    # "[10:22:51 TP0]"), its launch echo "server_args=ServerArgs(", and its scheduler's batch lines "Decode batch.
    # #running-req: .." / "Prefill batch. #new-seq: .." (scheduler.py log_decode_stats / log_prefill_stats).
    ("SGLang", _IMPORT.format("sglang") + "|" + _PACKAGE_PATH.format("sglang"), re.M),
    ("SGLang", r"-m\s+sglang\.(?:launch_server|bench_\w+)\b|\bsgl\.Engine\(|\bserver_args=ServerArgs\(|"
               r"\b(?:Decode|Prefill) batch[.,]\s+#(?:running-req|new-seq):", 0),
    ("SGLang", r"^\[(?:\d{4}-\d\d-\d\d )?\d\d:\d\d:\d\d(?:\s+(?:DP|PP|EP)\d+)*\s+TP\d+(?:\s+(?:EP|PP)\d+)*\]", re.M),
    # TensorRT-LLM: its C++ runtime's "[TensorRT-LLM][INFO]" prefix (cpp/tensorrt_llm/common/logger.cpp), the Python
    # side's "[TRT-LLM] [I]" and "[TensorRT-LLM] TensorRT-LLM version: x" (tensorrt_llm/logger.py); its CLIs
    # trtllm-build, trtllm-bench, trtllm-serve (https://nvidia.github.io/TensorRT-LLM/commands/); `import tensorrt_llm`,
    # `from tensorrt_llm import LLM` (https://nvidia.github.io/TensorRT-LLM/quick-start-guide.html); examples/run.py's
    # --engine_dir, and the Triton backend's tensorrtllm_backend / launch_triton_server.py / inflight_batcher_llm
    # (https://github.com/triton-inference-server/tensorrtllm_backend#readme).
    ("TensorRT-LLM", r"\[TensorRT-LLM\]\s*(?:\[(?:INFO|WARNING|ERROR|DEBUG|VERBOSE|W|I|E)\]|TensorRT-LLM version)|"
                     r"\[TRT-LLM\]\s*\[[IWEDV]\]", 0),
    ("TensorRT-LLM", r"\btrtllm-(?:build|bench|serve|eval)\b|--engine_dir\b|\btensorrtllm_backend\b|"
                     r"\blaunch_triton_server\.py\b|\binflight_batcher_llm\b", 0),
    ("TensorRT-LLM", _IMPORT.format("tensorrt_llm") + "|" + _PACKAGE_PATH.format("tensorrt_llm")
     + r"|\bTensorRT-LLM/examples/", re.M),
    # TGI: its launcher's CLI and log target, "text-generation-launcher --model-id ... --num-shard 2" and
    # "INFO text_generation_launcher: Args {...}"; its router "text_generation_router"; its Python shards
    # "text_generation_server"; its benchmark "text-generation-benchmark"
    # (https://huggingface.co/docs/text-generation-inference/reference/launcher,
    # https://github.com/huggingface/text-generation-inference/tree/main/benchmark).
    ("TGI", r"\btext[-_]generation[-_](?:launcher|router|server|benchmark)\b", 0),
    # LMDeploy: `lmdeploy serve api_server`, `lmdeploy chat`, `from lmdeploy import pipeline, TurbomindEngineConfig`
    # (https://lmdeploy.readthedocs.io/en/latest/get_started/get_started.html); its logger's " - lmdeploy - INFO - "
    # (lmdeploy/utils.py get_logger), TurboMind's C++ "[TM][INFO]".
    ("LMDeploy", r"\blmdeploy\s+(?:serve|chat|lite|convert|bench)\b|\b(?:Turbomind|Pytorch)EngineConfig\(|"
                 r" - lmdeploy - (?:INFO|WARNING|ERROR|DEBUG) - |\[TM\]\[(?:INFO|WARNING|ERROR|DEBUG)\]", 0),
    ("LMDeploy", _IMPORT.format("lmdeploy") + "|" + _PACKAGE_PATH.format("lmdeploy"), re.M),
    # llama.cpp's own log functions, printed at load and after a run (ggml/src/ggml-cuda/ggml-cuda.cu ggml_cuda_init,
    # earlier ggml_init_cublas; src/llama-model-loader.cpp; llama_print_timings, later llama_perf_context_print), its
    # programs (https://github.com/ggml-org/llama.cpp/tree/master/tools) and llama-bench's Markdown table header.
    ("llama.cpp", r"^[ \t]*(?:\S+[ \t]+)?(?:ggml_cuda_init|ggml_init_cublas|llama_model_loader|llm_load_tensors|"
                  r"llm_load_print_meta|llama_new_context_with_model|llama_print_timings|llama_perf_context_print|"
                  r"llama_kv_cache_init|llama_model_load_from_file(?:_impl)?):", re.M),
    ("llama.cpp", r"(?:^|[\s/\\`])llama-(?:server|cli|bench|batched-bench)(?:\.exe)?\s+-", re.M),
    # ... its server run as a systemd service, as journald tags each line with the program and pid
    # ("Jun 10 06:58:10 host llama-server[147820]: ...", https://www.freedesktop.org/software/systemd/man/journalctl.html)
    ("llama.cpp", r"\sllama-server\[\d+\]:", 0),
    ("llama.cpp", r"\|\s*model\s*\|\s*size\s*\|\s*params\s*\|\s*backend\s*\|", 0),
    # Ollama (embeds llama.cpp): its CLI (https://github.com/ollama/ollama/blob/main/README.md), its server's runner
    # and log messages (llm/server.go "starting llama server", discover "inference compute", llm/memory.go "offload
    # to cuda"), and its Linux service's journal lines, "ollama[3046]: time=..." (docs/linux.md: journalctl -u ollama).
    ("Ollama", r"(?:^|[\s`$])ollama\s+(?:run|serve|ps|pull|create)\b|\bollama_llama_server\b|"
               r"msg=\"(?:starting llama server|inference compute|offload to cuda)\"|\sollama\[\d+\]:\s", re.M),
    # llama-cpp-python (embeds llama.cpp): `from llama_cpp import Llama`, `python -m llama_cpp.server`
    # (https://llama-cpp-python.readthedocs.io/en/latest/).
    ("llama-cpp-python", _IMPORT.format("llama_cpp") + r"|-m\s+llama_cpp\.server\b", re.M),
    # koboldcpp (embeds llama.cpp): its launcher script and banner (https://github.com/LostRuins/koboldcpp#readme).
    ("koboldcpp", r"\bkoboldcpp(?:\.py|\.exe)\b|\bWelcome to KoboldCpp\b", re.I),
    # Hugging Face transformers: a model loaded by an AutoModelFor* class and decoded by its generate(), or the
    # text-generation pipeline (https://huggingface.co/docs/transformers/llm_tutorial). Both are needed: vLLM's
    # offline API has a generate() too, and a tokenizer alone loads nothing. Models shipped as remote code decode
    # through their own chat methods over generate(): Qwen's model.chat / model.chat_stream
    # (https://github.com/QwenLM/Qwen#quickstart), ChatGLM's model.chat / model.stream_chat
    # (https://github.com/THUDM/ChatGLM-6B#readme), loaded by AutoModel or AutoModelForCausalLM.
    ("transformers", r"\bAutoModel(?:For(?:CausalLM|Seq2SeqLM))?\.from_pretrained\("
                     r"(?=[\s\S]*\.(?:generate|chat|chat_stream|stream_chat)\()|"
                     r"\bpipeline\(\s*(?:task\s*=\s*)?[\"']text-generation[\"']", 0),
    # ... and FastChat's own workers run it: `python3 -m fastchat.serve.model_worker`, `fastchat.serve.cli`,
    # `fastchat.serve.multi_model_worker` load the model with Hugging Face transformers (fastchat/model/
    # model_adapter.py load_model: with --num-gpus above 1, device_map "auto", "sequential" or "balanced"; README
    # "Multiple GPUs: You can use model parallelism to aggregate GPU memory from multiple GPUs"). Its vllm_worker,
    # sglang_worker, lightllm_worker and the others run their engines, so only these module paths are its signs.
    ("transformers", r"-m\s+fastchat\.serve\.(?:model_worker|multi_model_worker|cli)\b", 0),
    # (fr44) ... and its vllm_worker and sglang_worker are signs of the engines they run, so a ticket that names both
    # kinds of worker ("before, the plain model_worker; now fastchat.serve.vllm_worker") finds two engines and the
    # prose decides, as for any two signs.
    # (fr44r2) ... where its sentence runs them: not "we do not use ... vllm_worker", "Should we switch to ...
    # vllm_worker?" (NOT_RUN_BEFORE, shown)
    ("vLLM", r"-m\s+fastchat\.serve\.vllm_worker\b", 0),
    ("SGLang", r"-m\s+fastchat\.serve\.sglang_worker\b", 0),
    # DeepSpeed-MII: `import mii`, `mii.pipeline(...)`, `mii.serve(...)` (https://github.com/deepspeedai/DeepSpeed-MII);
    # DeepSpeed-Inference: `deepspeed.init_inference(...)` (https://www.deepspeed.ai/tutorials/inference-tutorial/).
    ("DeepSpeed-MII", _IMPORT.format("mii") + r"|\bmii\.(?:pipeline|serve|client)\(", re.M),
    ("DeepSpeed", r"\bdeepspeed\.init_inference\(", 0),
    # gpt-fast: generate.py reading a checkpoint its scripts/prepare.sh converted, checkpoints/<repo>/model.pth (its
    # quantize.py writes model_int8.pth, model_int4.g32.pth) (https://github.com/pytorch-labs/gpt-fast#readme); the
    # folder is the user's to choose, the file name is gpt-fast's.
    ("gpt-fast", r"\bgenerate\.py\b[^\n]*--checkpoint_path\s+\S*/model(?:_int[48](?:\.g\d+)?)?\.pth\b", 0),
    # ExLlamaV2: its package and classes (https://github.com/turboderp-org/exllamav2#readme).
    ("ExLlamaV2", _IMPORT.format("exllamav2") + r"|\bExLlamaV2(?:Config|Cache|DynamicGenerator|BaseGenerator)?\(",
     re.M),
    # text-generation-webui's own timing line (modules/text_generation.py): "Output generated in 10.5 seconds
    # (9.5 tokens/s, 100 tokens, context 50, seed 1)". It runs one of several loaders, so it names no profile.
    ("text-generation-webui", r"\bOutput generated in \d+(?:\.\d+)? seconds \(\d+(?:\.\d+)? tokens/s, \d+ tokens, "
                              r"context \d+", 0),
))

# Engines that embed llama.cpp and print its log lines: where one shows itself, its llama.cpp lines are its own.
EMBEDS_LLAMACPP = ("Ollama", "llama-cpp-python", "koboldcpp")

# An engine's name as people write it in prose, for telling which of several shown engines the prose speaks of.
SPELLINGS = {"vLLM": r"vllm", "SGLang": r"sglang", "TensorRT-LLM": r"tensorrt[-_ ]?llm|trt[-_ ]?llm",
             "TGI": r"tgi|text[-_ ]generation[-_ ]inference", "LMDeploy": r"lmdeploy|turbomind",
             "llama.cpp": r"llama\.cpp|llama[-_](?:server|cli|bench)", "Ollama": r"ollama",
             "llama-cpp-python": r"llama[-_]cpp[-_]python", "koboldcpp": r"koboldcpp", "transformers": r"transformers",
             "DeepSpeed-MII": r"deepspeed[-_ ]mii|mii", "DeepSpeed": r"deepspeed", "gpt-fast": r"gpt-fast",
             "ExLlamaV2": r"exllama(?:v2)?", "text-generation-webui": r"text[-_ ]generation[-_ ]webui|oobabooga"}


# (fr44r2) Words before a command, in its sentence, that say it is not what runs: denied ("we do not use", "never",
# "instead of", "rather than"), asked about or advised ("Should we switch to", "could I use", "whether to run", "you
# can use", "someone suggested", "try"). A sign named in prose only, such as FastChat's vllm_worker beside the
# model_worker that runs (_PROSE_ONLY), and a FastChat --num-gpus (issue_md._job_gpus) after them run nothing. Its
# sentence: text.sentence_before, with "; " ending one (a clause after it is said apart).
NOT_RUN_BEFORE = re.compile(r"\b(?:not|never|no longer|instead of|rather than|without|whether|should|shall|could|"
                            r"would|might|suggest\w*|recommend\w*|advis\w*|propos\w*|try|trying|"
                            r"(?:can|do|must|may)\s+(?:I|we)|you\s+(?:can|may|must))\b|n't\b", re.I)
_PROSE_ONLY = {id(sign) for _, sign in SIGNS if "fastchat" in sign.pattern and "model_worker" not in sign.pattern}


def _runs(text: str, sign: re.Pattern) -> re.Match | None:
    """The first match of `sign` in `text` that its sentence does not deny, ask about or advise (for the signs in
    _PROSE_ONLY; any other sign's first match)."""
    for m in sign.finditer(text):
        if id(sign) not in _PROSE_ONLY or not NOT_RUN_BEFORE.search(sentence_before(text, m.start(), semicolon=True)):
            return m
    return None


def shown(text: str) -> list[str]:
    """The engines `text` shows running, in the order first shown; an embedder of llama.cpp stands for the llama.cpp
    lines it printed."""
    found: dict[str, int] = {}
    for engine, sign in SIGNS:
        m = _runs(text or "", sign)
        if m and m.start() < found.get(engine, len(text) + 1):
            found[engine] = m.start()
    if any(e in found for e in EMBEDS_LLAMACPP):
        found.pop("llama.cpp", None)
    return sorted(found, key=found.get)


def spelled(engine: str, name: str | None) -> bool:
    """Is `name` (as prose writes it: "vllm", "TensorRT LLM") a spelling of the shown `engine`?"""
    return bool(name) and re.fullmatch(SPELLINGS.get(engine, re.escape(engine)), name.strip(), re.I) is not None


def engine_ran(text: str, named: str | None, said: list[str] = ()) -> str | None:
    """The engine that ran: the one the text shows (in the prose's spelling, `named`, where that is the same engine),
    else the one prose names (`named`) where none is shown. Of several shown, the one of them the prose names
    (`said`: every name it says, text.engines_named; `named` where not given); None where it names none of them or
    several (each ran: undecidable)."""
    seen = shown(text)
    if len(seen) == 1:  # in the prose's spelling where it names the same engine ("TensorRT-LLM 0.9": its release)
        same = spelled(seen[0], named) or (seen[0] == "llama.cpp" and any(spelled(e, named) for e in EMBEDS_LLAMACPP))
        return named if same else seen[0]
    if seen:
        picked = [e for e in seen if any(spelled(e, n) for n in (said or [named]))]
        return picked[0] if len(picked) == 1 else None
    return named

"""Launch command lines, environment settings and engine-config echoes: what was run, and how.

Reads `vllm serve`, `python -m vllm.entrypoints...`, `python -m sglang.launch_server`,
`aphrodite run`, `torchrun`, `trtllm-build`/`trtllm-serve`, `mpirun`/`srun` (nccl-tests and
others), `docker run` (its `-e`, `--shm-size`, `--ipc=host`, and the engine arguments after
the image); `export X=Y` and `X=Y cmd` assignments; the engine's own echo of its arguments
(`api_server args: ...`, `Initializing an LLM engine ... with config: ...`, `non-default args`);
and the vLLM error that names the attention-head count and the TP size.

Yields one Workload per command or echo (so a file with an eager and a non-eager run keeps
both, each with its line), NcclSetting for NCCL_* / CUDA_VISIBLE_DEVICES / TORCH_NCCL_*, and
HostFact for what docker says about the host (shm_bytes, ipc_host, container).
"""

from __future__ import annotations

import math
import re
import shlex

from diagnose.artifacts import memory_share
from diagnose.artifacts.nccl_log import size_bytes
from diagnose.artifacts.text import NO_EFFECT, lines, next_sentence, quant_dtype, sentence_end, split_gpus_used, to_int
from diagnose.evidence import HostFact, NcclSetting, Note, Workload, where

KIND = "launch"

COMMAND = re.compile(
    # (ut29d) a conda or venv interpreter named by its path ("/root/anaconda3/envs/sglang/bin/python -m
    # sglang.launch_server", sgl-project/sglang#2658 and #3467): the path is left out of the command, so an env's
    # name ("envs/sglang") never names the engine
    r"(?:^|[\s`'\"(;&|>$])(?:[^\s\"'=`]*/(?=python[\d.]*\s))?(?P<cmd>"
    r"vllm\s+serve\b|vllm\s+bench\s+\w+|sglang\s+serve\b|python[\d.]*(?:\s+-[uOBsSEIqV]+|\s+-[XW]\s*\S+)*\s+-m\s+(?:vllm\.entrypoints|sglang\.launch_server|sglang\.bench_\w+|"
    r"vllm\.\w+|tensorrt_llm\.\w+|torch\.distributed\.\w+)\S*|aphrodite\s+run\b|torchrun\b|trtllm-(?:build|serve|bench)\b|"
    r"(?:[^\s\"'=`]*/)?(?:mpirun|mpiexec)\b|(?:[^\s\"'=`]*/)?srun\b(?!:)|docker\s+run\b|deepspeed\b|accelerate\s+launch\b|python[\d.]*\s+\S*benchmark_\w+\.py"
    r"|python[\d.]*\s+\S*convert_checkpoint\.py|(?:\./|/)\S*_perf(?:_mpi)?\b"
    # llama.cpp's server and the runner Ollama starts (its log: 'starting llama server cmd=".../ollama runner
    # ... --parallel 4"'), TGI's launcher, and the load generators genai-perf and llmperf
    r"|" + r"(?:[^\s\"'=]*[/\\])?(?:llama-server|llama-cli|ollama_llama_server)(?:\.exe)?\b"
    r"|(?:[^\s\"'=]*/)?ollama\s+runner\b"
    r"|text-generation-launcher\b|text-generation-benchmark\b|genai-perf\b|perf_analyzer\b|python[\d.]*\s+\S*token_benchmark_ray\.py"
    # LMDeploy's CLI and its module form ("lmdeploy serve api_server <model> --tp 2", "lmdeploy chat <model>",
    # "python3 -m lmdeploy.serve.openai.api_server"; https://lmdeploy.readthedocs.io/en/latest/llm/api_server.html):
    # read for its layout only; which engine the ticket's figures are of is left to the prose (a ticket that deploys
    # with lmdeploy may time vLLM too, QwenLM/Qwen3#1023)
    r"|lmdeploy\s+(?:serve\s+\w+|chat|convert)\b|python[\d.]*\s+-m\s+lmdeploy\.\S+)"
)
# Engine arguments pasted without the program ("--model X --tensor-parallel-size 4 --enforce-eager"):
# a line that starts with a flag and names at least two of the engine flags read below.
ARGS_ONLY = re.compile(r"^\s*--[a-z][\w-]*(?:[= ]\S+)?(?:\s+--?[a-z][\w-]*(?:[= ]\S+)?)+\s*$")
ECHO = re.compile(
    r"(?:api_server args|engine args|args|Namespace|non-default args|with config)\s*[:(=]\s*"
    r"(?P<body>.*(?:tensor_parallel_size|pipeline_parallel_size|model)\s*[=:].*)$"
)
HEADS_ERROR = re.compile(
    r"Total number of attention heads \((?P<heads>\d+)\) must be divisible by tensor parallel size \((?P<tp>\d+)\)"
)
ASSIGN = re.compile(
    r"(?:^|[\s;`'\"(])(?:export\s+|ENV\s+|env\s+|-e\s*|--env[=\s]\s*|-x\s+)?[\"']?"
    r"(?P<name>[A-Z][A-Z0-9_]*)=(?P<value>\"[^\"]*\"|'[^']*'|[^\s\"'`;]*)"
)
# NCCL's advice in its own error text, not a setting: "run with NCCL_DEBUG=INFO for details", and after a failed NVLS
# bind "Disable NVLS (NCCL_NVLS_ENABLE=0) if you wish to avoid this error in the future" (NVIDIA/nccl#2077)
ADVICE = re.compile(r"run with NCCL_DEBUG=\w+|\(\s*NCCL_\w+=\w+\s*\)\s*if you wish\b")
# (left27) Advice in Chinese: "试试" / "试一下" / "可以尝试" (try), "建议设置" (it is advised to set); not
# "有什么建议吗" (any advice?).
CJK_ADVICE = r"试试|试一下|尝试一下|可以尝试|建议(?:你|您)?(?:设置|使用|开启|关闭|禁用|加上|添加|尝试)"
# (left27) Words that advise the reader to set something, not the writer's own setting: a request ("please set"), the
# second person with its verb ("you can set", "you could also try"; not "as you can see"), an imperative "try" opening
# its clause, and the Chinese (CJK_ADVICE). "I tried X=1" (a past attempt) and "I have to add X=1" (the writer's own)
# are not advice. The writer asking whether to set it is no setting in use either.
# (tidy44) The second person with a modal of advice ("you can", "you could", "you should", "you may", "you might"),
# and with the switch it advises turning ("you could also set", "you can try", "you should disable"): one reading for
# ADVISING here and for rules.claims (its guess words, _GUESS; advice's scope, _ADVISED; "you can" before a layer
# count, _YOU_CAN).
YOU_MODAL = r"you\s+(?:could|can|should|may|might)"
YOU_ADVISE = YOU_MODAL + r"(?:\s+(?:also|just|simply))?\s+(?:set|try|use|add|export|disable|enable|pass)"
# (fr44r2) "enable" among them ("a forum post says you could enable X=1" advises); advice the writer then took up
# ("the docs say you can enable X=1 on these cards, so we run with it now") runs (ADOPTED_AFTER, setting_off).
ADVISING = (r"please\s+(?:set|export|add|use|try)|" + YOU_ADVISE + r"|"
            r"(?:^|(?<=[.!?:;]\s)|(?<=\d[.)]\s))try(?:\s+(?:setting|"
            r"exporting|adding|using))?|"
            # (s42) the writer asking whether to: "Should we try NCCL_CROSS_NIC=1?", "do I need to set X=1", "can we
            # use X=1": a setting wondered about, not one in use ("why do I need to set X=1 for it to work" runs with
            # it: off_before sets the asking aside after a "why", WHY_ASKING)
            r"(?P<asking>(?:should|shall|can|could|do|must)\s+(?:I|we)(?:\s+(?:also|just|first|still))?"
            r"(?:\s+need\s+to)?\s+(?:set|try|use|add|export|disable|pass))|" + CJK_ADVICE)
# (words43) The "why" that makes the asking above a question about a setting in use: "why do I need to set X=1", with
# any spacing, and an adverb or a comma between ("Why exactly do I need to set X=1 for TP to work?", "why, then, must
# we set"); not a "why" of an earlier clause ("I don't know why it hangs, should I set X=1?" asks).
# (fr43) A comma after the adverb closes the clause unless one opened it: "I do not know why exactly, should we set
# X=1?" asks.
WHY_ASKING = re.compile(r"\bwhy(?:,\s+(?:\w+ly|then|else|again|on earth|the hell),?|"
                        r"\s+(?:\w+ly|then|else|again|on earth|the hell))?\s+$", re.I)
# A setting the prose on its line says is not in use: "we do not set X=1", "never use X=1", "we removed X=1",
# "without X=1 ...", "X=1 is not set", "X=1 was removed"; or one tried that "did not help". What runs is without it
# (README, claims).
OFF_BEFORE = re.compile(r"(?:\b(?:not|never|no longer|without|remov(?:e|ed|ing)|dropp?(?:ed|ing)?|delet(?:e|ed|ing)|"
                        r"un-?set(?:ting)?|comment(?:ed|ing)? out|t(?:ook|ake|aken) out|got rid of|"
                        r"stopp?(?:ed|ing) (?:using|passing|setting)|"
                        # (issue 11 s) someone else's suggestion, not what runs: "someone suggested setting X=1"
                        # (its adviser named, as claims._GUESS: "the vendor recommended X=1 and we run with it" runs)
                        r"(?:someone|somebody|people|a colleague|a friend|(?:the )?(?:docs?|documentation|"
                        r"maintainers?))(?:\s+(?:on|in|from|at)\s+(?:the\s+)?[\w-]+)?\s+(?:suggest\w*|recommend\w*|"
                        r"advis\w*|propos\w*)|(?:told|advised) (?:me|us) to|"
                        # (left27) advice to the reader, in a tool's message or a guide: "Please set `NCCL_P2P_DISABLE=
                        # \"1\"`" (Accelerate's error on RTX 4000 boards, cocktailpeanut/fluxgym#283), "you can set X=1"
                        + ADVISING + r")|n't)\b[\w\s,]{0,20}[\"'`]?$",
                        re.I)
# ... also when it ends a list of settings tried together and the verdict follows the list ("Tried `export
# NCCL_IB_DISABLE=1` and `export NCCL_P2P_DISABLE=1`, both didnt work"; "X=1 or Y=1, neither helped"; "..., set
# NCCL_P2P_LEVEL=NVL. But all of them didn't work", the next sentence when it opens on the list), after a comma
# and its subject ("X=1, but it did not help"), with the apostrophe typed or not ("didnt", as text.NOT_ENDING).
_OTHER_SETTINGS = r"(?:\s*(?:,|\band\b|\bor\b|&)\s*[\"'`]?(?:export\s+)?[A-Z][A-Z0-9_]*=[^\s\"'`,;]*[\"'`]?)*"
_NOT = r"(?:\s+not|n['’]?t)\b"  # after the auxiliary named before it
OFF_AFTER = re.compile(r"^[\"'`]?" + _OTHER_SETTINGS + r"(?:\s*[,;]\s*|\s+|\.\s+(?=(?:but\s+|and\s+)?"
                       r"(?:both|all|none|neither|each)\b))(?:(?:but|and)\s+)?"
                       r"(?:(?:(?:both|all|each)(?: of (?:them|these|those))?|it|they|that|this)\s+)?"
                       r"(?:(?:is|was|are|were)" + _NOT + r"\s+(?:\w+\s+)?(?:set|used|exported|enabled|"
                       r"applied|passed|in use)\b|(?:is\s+|was\s+)?(?:removed|unset|dropped|deleted|commented out)\b|"
                       r"(?:did|does|do)" + _NOT + r"\s+(?:help|fix|change|work|solve)\b|"
                       r"(?:neither|none of (?:them|these|those))\s+(?:work|help|fix|solv)\w*\b|"
                       + NO_EFFECT + r"|"
                       r"[^.\n]{0,30}?\bbut (?:I|we) (?:haven't|have not|didn't|did not) (?:yet )?(?:tried|tested)\b)",
                       re.I)
# (the indent is whitespace of the name's own line, [^\S\n]: a \s that crossed lines found the same names, from the
# first of the blank lines above, but tried every blank line against all those below it; the sections of a pasted
# issue keep the lines before them blank, and a 1,500-line one took seconds)
YAML_NAME = re.compile(r"^[^\S\n]*(?:-[^\S\n]*)?name:\s*[\"']?(?P<name>[A-Z][A-Z0-9_]*)[\"']?\s*$", re.M)
YAML_VALUE = re.compile(r"^\s*value:\s*(?P<value>\"[^\"]*\"|'[^']*'|\S+)\s*$")
PY_ENVIRON = re.compile(r"os\.environ\[[\"'](?P<name>[A-Z][A-Z0-9_]*)[\"']\]\s*=\s*[\"'](?P<value>[^\"']*)[\"']")
# Ollama's requests decoded together per model (docs/faq.md, "How does Ollama handle concurrent requests?"), set as
# an environment variable or echoed in its start-up config ('server config env="map[... OLLAMA_NUM_PARALLEL:4 ...]"').
# Unset or 0, Ollama picks: 1 from 0.1.33, "4 or 1 based on available memory" from 0.2.0
# (https://github.com/ollama/ollama/pull/4218; a maintainer, https://github.com/ollama/ollama/issues/9246): no count
# is stated then.
# ... and the count its scheduler gave the runner it loaded ('msg="finished setting up" ... runner.parallel=1').
OLLAMA_PARALLEL = re.compile(r"\bOLLAMA_NUM_PARALLEL(?:=[\"']?|:)(\d{1,4})\b|\brunner\.parallel=(\d{1,4})\b")
NCCL_NAMES = re.compile(r"^(?:NCCL_|TORCH_NCCL_|CUDA_VISIBLE_DEVICES$|NVIDIA_VISIBLE_DEVICES$|"
                        r"CUDA_DEVICE_MAX_CONNECTIONS$|UCX_|GLOO_SOCKET_IFNAME$|OMPI_MCA_)")

# Workload field <- flags (dashes and underscores are the same flag).
FLAGS = {
    "tp": ("tensor-parallel-size", "tp", "tp-size", "tensor-model-parallel-size", "tp-degree", "num-shard"),
    "pp": ("pipeline-parallel-size", "pp", "pp-size", "pipeline-model-parallel-size"),
    "dp": ("data-parallel-size", "dp", "dp-size"),
    "ep": ("expert-parallel-size", "ep", "ep-size", "moe-ep-size"),
    # TGI's launcher names the model --model-id and its tensor-parallel shards --num-shard
    # (https://huggingface.co/docs/text-generation-inference/reference/launcher)
    "model": ("model", "model-path", "model-dir", "checkpoint-dir", "model-name-or-path", "model-id"),
    "dtype": ("dtype",),
    "kv_dtype": ("kv-cache-dtype",),
    "max_model_len": ("max-model-len", "context-length", "max-seq-len", "max-seqlen"),
    # requests a load generator keeps in flight: vLLM / SGLang bench_serving --max-concurrency, trtllm-bench and
    # genai-perf --concurrency, llmperf --num-concurrent-requests
    # (https://docs.vllm.ai/en/stable/cli/bench/serve.html, https://docs.nvidia.com/deeplearning/triton-inference-server/
    # user-guide/docs/perf_analyzer/genai-perf/README.html, https://github.com/ray-project/llmperf)
    # ... and Triton's perf_analyzer --concurrency-range, one value its one load ("start:end:step" sweeps several, no
    # int: left unread; https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/perf_analyzer/docs/
    # cli.html)
    "concurrency": ("max-concurrency", "concurrency", "num-concurrent-requests", "concurrency-range"),
    "batch": ("batch-size", "batch"),
    "prompt_len": ("input-len", "random-input-len", "sharegpt-output-len-unused"),
    "output_len": ("output-len", "random-output-len"),
}
EAGER_FLAGS = ("enforce-eager", "disable-cuda-graph")
EXTRA_FLAGS = ("max-num-seqs", "max-batch-size", "quantization", "quantize", "gpu-memory-utilization",
               "distributed-executor-backend", "enable-dp-attention", "enable-expert-parallel", "attention-backend",
               "moe-a2a-backend",
               "nproc-per-node", "nnodes",
               "num-prompts", "request-rate", "served-model-name", "trust-remote-code", "max-num-batched-tokens",
               "disable-custom-all-reduce", "enable-chunked-prefill", "max-concurrent-requests")
# Speculative decoding as each engine takes it, kept as given (rules.speculation reads the method and draft count):
# vLLM --speculative-config JSON (method, model, num_speculative_tokens) and the older --speculative-model /
# --num-speculative-tokens (https://docs.vllm.ai/en/v0.9.1/features/spec_decode.html); SGLang
# --speculative-algorithm EAGLE/EAGLE3/NEXTN/NGRAM with --speculative-num-steps / --speculative-num-draft-tokens
# (https://docs.sglang.io/advanced_features/speculative_decoding.html); TensorRT-LLM trtllm-build
# --speculative_decoding_mode and --max_draft_len (https://nvidia.github.io/TensorRT-LLM/advanced/speculative-decoding.html);
# llama-server -md/--model-draft and --draft-max/--draft (https://github.com/ggml-org/llama.cpp/tree/master/tools/server).
# SGLang's argparse takes a flag's unique prefix (--speculative-algo, --speculative-draft as in
# https://github.com/sgl-project/sglang/pull/2150); newer llama-server spells --spec-type draft-eagle3 and
# --spec-draft-n-max (https://github.com/ggml-org/llama.cpp/pull/24593).
SPEC_FLAGS = ("speculative-config", "speculative-model", "num-speculative-tokens", "speculative-algorithm",
              "speculative-algo", "speculative-num-steps", "speculative-num-draft-tokens",
              "speculative-draft-model-path", "speculative-draft", "speculative-decoding-mode", "max-draft-len",
              "model-draft", "md", "draft-max", "draft", "spec-type", "spec-draft-n-max")
# (ut29d) Where the nodes of one multi-node job meet, and which node a line starts: every node names node 0's
# address. SGLang --dist-init-addr, earlier --nccl-init-addr, and the unique prefixes its argparse takes
# ("--nccl-init first_ip:8001", sgl-project/sglang#2658) with --node-rank
# (https://docs.sglang.io/references/multi_node_deployment/multi_node.html); torchrun --master-addr / --rdzv-endpoint
# with --node-rank (https://docs.pytorch.org/docs/stable/elastic/run.html). Read as written, compared by
# rules.workload.rendezvous_split.
# (review44) SGLang's --disaggregation-mode: prefill and decode servers are separate jobs, each group of nodes with
# its own --dist-init-addr (sgl-project/sglang#5435: prefill nodes meet at 10.10.37.16:5000, decode nodes at
# 10.10.38.2:5000), so the role is read beside the address.
RENDEZVOUS = {"init_addr": ("dist-init-addr", "nccl-init-addr", "dist-init", "nccl-init", "master-addr",
                            "rdzv-endpoint"),
              "node_rank": ("node-rank",), "pd_role": ("disaggregation-mode",)}
INT_FIELDS = {"tp", "pp", "dp", "ep", "max_model_len", "concurrency", "batch", "prompt_len", "output_len"}
# Parallel degrees: a count of GPUs, 1 or more; "--tp 0" or "--tp -1" lays nothing out (the engines reject it).
DEGREES = {"tp", "pp", "dp", "ep"}
SERVING = {"vLLM", "SGLang", "Aphrodite", "TensorRT-LLM"}
# docker / mpirun options that take a value as the next token
VALUE_OPTIONS = {"-v", "-w", "-p", "-e", "--env", "--name", "--gpus", "--ipc", "--network", "--net", "--entrypoint",
                 "-u", "--runtime", "--ulimit", "--device", "--mount", "--shm-size", "--security-opt", "--cap-add",
                 "-np", "-n", "-H", "-host", "--host", "-x", "--mca", "-N", "--env-file", "--hostfile", "-hostfile",
                 "--cpus", "-m"}


def detect(text: str) -> float:
    head = ADVICE.sub("", text[:300_000])
    total = 0.0
    if COMMAND.search(head):
        total += 0.8
    if ECHO.search(head) or HEADS_ERROR.search(head):
        total += 0.8
    if any(_engine_args(line.strip().strip("`")) for line in head.splitlines()[:200]):
        total += 0.6
    if (any(NCCL_NAMES.match(m.group("name")) for m in ASSIGN.finditer(head)) or PY_ENVIRON.search(head)
            or OLLAMA_PARALLEL.search(head)
            or any(NCCL_NAMES.match(m.group("name")) for m in YAML_NAME.finditer(head))):
        total += 0.6
    return min(1.0, total)


# A shell variable set on a line of its own in a pasted script ("MODEL_PATH=/models/Qwen3-30B-A3B",
# "export TP=4"), which a later command reads as $MODEL_PATH or ${TP}.
SHELL_SET = re.compile(r"^\s*(?:export\s+|readonly\s+|local\s+)?(?P<name>[A-Za-z_]\w*)="
                       r"(?P<value>\"[^\"$`]*\"|'[^']*'|[^\s\"'`;$]*)\s*(?:#.*)?$")
SHELL_USE = re.compile(r"\$(?:\{(?P<braced>[A-Za-z_]\w*)\}|(?P<bare>[A-Za-z_]\w*))")


def expand(line: str, shell: dict[str, str]) -> str:
    """The line with the variables the script set before it replaced by their values, as the shell runs it;
    one it did not set stays as written."""
    def value(m: re.Match) -> str:
        return shell.get(m.group("braced") or m.group("bare"), m.group(0))
    return SHELL_USE.sub(value, line) if shell else line


def parse(text: str, name: str) -> list:
    out: list = []
    yaml_name: str | None = None  # `- name: NCCL_X` waiting for its `value:` line
    shell: dict[str, str] = {}
    advised = advised_lines(text)
    for n, line in _joined(text):
        src = where(name, n)
        if n in advised:
            continue  # advice handed to the reader (ADVICE_ABOVE), not the writer's environment
        if (m := SHELL_SET.match(line)) is not None:
            shell[m.group("name")] = m.group("value").strip("'\"")
        line = expand(line, shell)
        if yaml_name and (m := YAML_VALUE.match(line)) is not None:
            out.extend(_assignments(f"{yaml_name}={m.group('value')}", src))
        yaml_name = m.group("name") if (m := YAML_NAME.match(line)) is not None else None
        out.extend(_assignments(line, src))
        if (share := share_fact(line, src)) is not None:
            out.append(share)
        if (m := HEADS_ERROR.search(line)) is not None:
            out.append(Workload(src, tp=int(m.group("tp")), extra={"attention_heads": int(m.group("heads"))}))
            out.append(Note(src, "error", line.strip().strip("`")))
            continue
        if (m := ECHO.search(line)) is not None and not COMMAND.search(line):
            out.append(_echo(m.group("body"), src))
            continue
        if (m := COMMAND.search(line)) is not None:
            while m is not None:  # (known46b) each command to its sentence's end; a later sentence's own command
                # (known47b) a line that starts with its command (LINE_COMMAND) runs to the line's end as written;
                # one named in prose to command_end, less its sentences' stops (_in_prose): LINE_COMMAND read once
                if LINE_COMMAND.fullmatch(line, 0, m.start("cmd")):
                    end = len(line)
                    out.extend(_command(line[m.start("cmd"):], src))
                else:
                    end = command_end(line, m.start("cmd"))
                    out.extend(_command(_in_prose(line[m.start("cmd"):end]), src))
                m = COMMAND.search(line, end)
                # (fr46a) a later sentence's command that it asks about ("Would vllm serve X --tp 4 be faster?") is
                # not the writer's launch
                while m is not None and _asked(line, m.start("cmd")):
                    m = COMMAND.search(line, sentence_end(line, m.start("cmd")))
        elif _engine_args(bare := line.strip().strip("`")):  # (also as one code span, "`--model X --tp 2`")
            out.extend(_command("engine-args " + bare, src))
    return out


# (known46b) A command named in prose ends where its sentence ends (text.sentence_end): the flags of a later sentence,
# a question or advice after it, are not the launch's. "I run llama-server on both. Would `--split-mode none` be
# faster?" launches no none split; real threads with a sentence after the command that names flags of its own:
# "... to the command `vllm serve ./deepseek-v3 --tensor-parallel-size 8 ...`. But what is the root cause? Does
# `--disable-custom-all-reduce` have bad performance on it?" (vllm-project/vllm#5613, tests/data/other25), "When I run
# llama-cli with multiple devices, ... It used to prefer the first device. Setting --main-gpu 0 doesn't help."
# (ggml-org/llama.cpp#15125, tests/data/engine31), "At python convert_checkpoint.py step I set tp_size=4,pp_size=1 ...
# But then I run command mpirun --allow-run-as-root -np 4 python3 run.py" (tests/data/para38: the later sentence's
# mpirun is a command of its own). An elision ("vllm serve ... --tensor-parallel-size 3", tests/data/ut22b) or a
# dot inside the command (a path, a version) ends no sentence: the command goes on after it.
ELISION = re.compile(r"(?:\.\.\.|…)$")
# (fr46a) A line that starts with the command (a pasted or code-block command: a prompt, env settings or sudo before
# it at most) runs to the line's end: "vllm serve . --tensor-parallel-size 4" serves the current directory, and a
# quoted prompt ('--system-prompt "You are a support bot. Answer in English." -np 4') holds sentences of its own.
LINE_COMMAND = re.compile(r"[\s$#>]*(?:(?:sudo|nohup|time|exec|env)\s+|[A-Za-z_]\w*=\S*\s+)*")
# (fr46a) The next sentence goes on with the command ("I start the server with vllm serve X. I also pass
# --tensor-parallel-size 4 to it.") unless it asks, advises, tells what someone else says, says a flag did not help,
# weighs another setting against it ("With --tp 4 it was faster", "if", "than", "tried") or starts a command of its
# own: its flags are then not the launch's (test_known46b, test_fr46_a1). (fr46c) A negation counts only where it
# governs a flag ("not with --enforce-eager", "Setting -sm row doesn't help"), not "(no other changes)", a
# "--no-enable-prefix-caching" flag or "because the model does not fit"; and the flags added or switched to ("We added
# --tensor-parallel-size 4 earlier today", "I switched to --tensor-parallel-size 4 last week") are the launch's now.
NOT_GOING_ON = re.compile(r"\?\s*[\"'`)\]]*\s*$|" + ADVISING + r"|\b(?:said|says|told|suggest(?:s|ed)?|"
                          r"recommend(?:s|ed)?|advis(?:e|es|ed)|heard|claims?|according to)\b|"
                          r"(?:n['’]t|(?<![\w-])(?:not|no|never|without|instead\s+of))\s+(?:[\w=]+\s+){0,2}"
                          r"[`'\"]?--?[A-Za-z]|(?:n['’]t|(?<![\w-])not)\s+(?:help|work|matter|change|improve|fix)|"
                          r"\b(?:faster|slower|better|worse|than|compared|versus|vs|if|whether|unless|whereas|"
                          r"previously|used to|tried|trying)\b|" + NO_EFFECT, re.I)
SENTENCE_FLAG = re.compile(r"(?:^|\s|`)--?[A-Za-z]")


def command_end(line: str, start: int) -> int:
    """Where the command that starts at line[start] ends: the line's end for a line that starts with it
    (LINE_COMMAND); elsewhere its sentence's end (text.sentence_end), past any elision ("...") that sentence_end would
    take for one, a lone "." (the current directory) and a mark inside shell quotes, and past the sentences after it
    that go on with it (NOT_GOING_ON); the line's end where no sentence ends after it."""
    if LINE_COMMAND.fullmatch(line, 0, start):
        return len(line)
    end, at, quote = sentence_end(line, start), start, None
    while end < len(line):
        for i in range(at, end):  # the shell quote open at the mark, if any (an apostrophe in a word opens none)
            if quote is not None:
                quote = None if line[i] == quote else quote
            elif line[i] in "\"'" and (i == 0 or line[i - 1].isspace() or line[i - 1] in "=(`"):
                quote = line[i]
        at = end
        mark = line[end - 1]
        if (quote is None and not ELISION.search(line[max(0, end - 16):end].rstrip("\"'`)]"))
                and not (mark == "." and line[end - 2:end - 1].isspace() and line[end:end + 1].isspace())):
            nxt = sentence_end(line, end)
            following = line[end:nxt]
            if (not SENTENCE_FLAG.search(following) or NOT_GOING_ON.search(following)
                    or COMMAND.search(" " + following)):
                return end
        end = sentence_end(line, end)
    return end


# (fr46c) A command named in prose ends with its sentence's full stop, which is not its last value's: "I start it
# with vllm serve Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 2." runs TP 2 (the reviewer's probe 19; "run
# Qwen2-7B with --tensor-parallel-size 3.", tests/data/errors31/heads_divisible.md), nor are the stops of the sentences
# it reads on through ("vllm serve meta-llama/Llama-3.1-70B-Instruct. I also pass --tensor-parallel-size 4" serves
# the model without the dot, _in_prose). A pasted line that starts with its command keeps every character ("vllm serve
# ." serves the current directory).
FULL_STOP = re.compile(r"(?<=[\w\"'`])[.!](?=\s|$)")
# (known47b) ... and a flag group the prose puts in parentheses inside the command's own sentence is the command's:
# "I launch vllm serve meta-llama/Llama-3.1-70B-Instruct (--tensor-parallel-size 4)." runs TP 4, "... with TP (--tp
# 2)" TP 2. Reporters gloss their run's setting with its flag in parentheses: "1 GPU work but 2 not,
# (--tensor-parallel-size 2 )" (vllm-project/vllm#5161, tests/data/ut14), "multiple GPUs for context parallelism
# (--num_gpus 8)" (nvidia-cosmos/cosmos-predict2#20, tests/data/ut12x), "TP=8 (--enable-dp-attention)"
# (sgl-project/sglang#2643, tests/data/gpuname35). Only a group that opens on a flag and holds no other parenthesis;
# one that opens on a word ("(not --tp 2)", "(e.g. --tp 2)") stays as written, and a later sentence's group is cut off
# with its sentence (command_end).
# (Tokens apart by whitespace, each read once: a value may start with a dash, so a pattern of flag-and-value pairs
# could split "--a --b" both ways and backtrack without end; _own_words checks the pairs.)
FLAG_GROUP = re.compile(r"\((\s*--?[A-Za-z][^()\s]*(?:\s+[^()\s]+)*)\s*\)")


# (fr47b2) The words of a group, and the words the command has before it, are its own only where each is a flag, a
# value of a flag that takes one, or (before the group) its first positional (the model, a script) or a path: "(--tp 2
# --enforce-eager)" is read, "(--enforce-eager removed)" / "(--enforce-eager off)" are not (an on/off flag takes no
# word: _takes_value, as _flags reads it), nor a group the prose sets apart from the command ("--tensor-parallel-size 8
# but the old launch (--tensor-parallel-size 4 --enforce-eager) was faster", "slower than my colleague's setup
# (--tensor-parallel-size 4 --pipeline-parallel-size 2)", a group inside another parenthesis).
SWITCHES = set(EAGER_FLAGS) | {"enable-dp-attention", "trust-remote-code", "enable-expert-parallel",
                               "disable-custom-all-reduce", "enable-chunked-prefill"}


def _own_words(words: list[str], state: tuple[bool | None, bool] | None,
               positional: bool) -> tuple[bool | None, bool] | None:
    """The state (whether the last word is a flag that takes a value: True, one that may: None, or no flag: False; and
    whether a positional was seen) after `words` where each is the command's own: a flag, a flag's value, or where
    `positional` its first positional or a path. None where one is not. A value is the word after a flag that takes
    one (_takes_value), or one that reads as a value (a figure, a path, a dotted name, a lowercase word) after an
    unknown flag; a switch (SWITCHES) takes none."""
    if state is None:
        return None
    wants, seen = state
    for w in words:
        if "(" in w or ")" in w:
            return None
        if w.startswith("-") and len(w) > 1:
            key, eq, _ = w.partition("=")
            norm = key.lstrip("-").rstrip(".,;:").replace("_", "-").lower()
            if eq or norm in SWITCHES:
                wants = False
            else:
                wants = True if key in VALUE_OPTIONS or _takes_value(norm) else None
        elif wants or (wants is None and (re.match(r"\d|\S*[/.]\S", w) or _word_value(w))):
            wants = False
        elif positional and (not seen or re.search(r"[/.=]", w)):
            wants, seen = False, True
        else:
            return None
    return wants, seen


def _word_value(word: str) -> bool:
    """A lowercase word that can be an unknown flag's value ("--load-format safetensors", "--tokenizer-mode auto",
    "--enable-prefix-caching true"), not one of prose's linking words (LINKING_WORDS)."""
    bare = word.rstrip(".,;:")
    return bare.isascii() and bare.isalpha() and bare.islower() and bare not in LINKING_WORDS


def _in_prose(command: str) -> str:
    """A command named in prose (to command_end), less the full stops that end its sentences and the parentheses
    around a flag group of its own (FLAG_GROUP, _own_words): "(--tp 2 --enforce-eager)" where it holds flags and
    their values only, and the command's words before it are its own; as written where either says more ("(--tp 2
    was faster)", "... but the old launch (--tp 4)")."""
    name = COMMAND.match(command)
    at = name.end("cmd") if name else 0
    out, state = [command[:at]], (False, False)
    for g in FLAG_GROUP.finditer(command, at):
        out.append(command[at:g.start()])
        state = _own_words(command[at:g.start()].split(), state, True)
        state = _own_words(g.group(1).split(), state and (False, True), False)
        out.append(g.group(1) if state else g.group(0))
        at = g.end()
    out.append(command[at:])
    return FULL_STOP.sub("", "".join(out))


def _asked(line: str, start: int) -> bool:
    """Whether the sentence holding line[start] is a question: it ends at a question mark (text.next_sentence, past
    any closing quote or bracket after the mark)."""
    return next_sentence(line, start, marks="?") is not None


# (known47b) The positional after `vllm serve` is its model_tag, a Hugging Face Hub name or
# a local path (`vllm serve [model_tag] [options]`, its one positional, "The model tag to serve"; https://docs.redhat.com/
# ja/documentation/red_hat_ai_inference_server/3.1/html/vllm_server_arguments/vllm-serve-arguments_server-arguments,
# https://www.mintlify.com/vllm-project/vllm/serving/cli-usage). A Hub name is "org/name" or one of the old root
# names, each with a digit or a dash in it ("gpt2", "bert-base-uncased"); a path has its "/" or "." ("./ckpt", "."),
# and a checkpoint's directory its size or version ("Qwen3-32B", "llama70B_awq_int4"). A bare word of letters alone
# (any script) or a bare count is the prose after the subcommand: "vllm serve hangs permanently" (vllm-project/vllm
# #44878's title, tests/data/review44), "vllm serve hang at `Using model weights format ...`" (vllm-project/vllm#6636's
# title), the probes "I start vllm serve on 4 GPUs" and "vllm serve を --tensor-parallel-size 2 で実行すると"
# (tests/data/words44).
# (fr47b2) ... but a local directory may be named by letters alone ("vllm serve mixtral --tensor-parallel-size 2"):
# a word of ASCII letters right before a flag is the tag, unless it is one of the words prose puts between the
# subcommand and its flags ("vllm serve with --tensor-parallel-size 2").
LINKING_WORDS = {"with", "using", "via", "and", "or", "on", "in", "at", "for", "to", "from", "by", "plus", "then",
                 "but", "also", "again", "like", "as", "the", "a", "an", "it", "is", "was", "without", "only", "just"}


def _model_tag(token: str, flag_follows: bool = False) -> bool:
    """Whether a token after `vllm serve` can be its model tag (not a word or a count of the sentence); a word of
    letters is one where a flag follows it (`flag_follows`) and it is no linking word."""
    bare = token.rstrip(".,;:!?)\"'")
    if bare.isalpha():
        return flag_follows and bare == token and bare.isascii() and bare.lower() not in LINKING_WORDS
    return not bare.isdigit()


def share_fact(line: str, src: str) -> Workload | None:
    """The engine's memory share the line sets (diagnose.artifacts.memory_share), as a Workload's extras."""
    found = memory_share.stated(line)
    if found is None:
        return None
    flag, value, engine = found
    return Workload(src, extra={"memory_share": value, "memory_share_flag": flag, "memory_share_engine": engine})


def _engine_args(line: str) -> bool:
    if not ARGS_ONLY.match(line):
        return False
    known = {f for names in FLAGS.values() for f in names} | set(EXTRA_FLAGS) | set(EAGER_FLAGS)
    named = {t.lstrip("-").split("=")[0].replace("_", "-").lower() for t in line.split() if t.startswith("--")}
    return len(named & known) >= 2


# A line holding one flag (and its value) of the command above, pasted with its continuations lost: a Kubernetes or
# compose manifest's `command:` block scalar, or a README's command with the backslashes dropped ("python3 -m
# sglang.launch_server" then "  --tp 16" ... "  --disable-cuda-graph" each on its own line).
FLAG_LINE = re.compile(r"^\s*--?[A-Za-z][\w-]*(?:[= ]\S+)?\s*$")


def _joined(text: str) -> list[tuple[int, str]]:
    """Lines with shell continuations ('\\' at the end) joined; the number of the first line. So are the flag lines
    right under a command (FLAG_LINE)."""
    joined: list[tuple[int, str]] = []
    pending: tuple[int, str] | None = None
    for n, line in lines(text):
        if pending is not None:
            n, line = pending[0], pending[1] + " " + line.strip()
        elif joined and FLAG_LINE.match(line) and COMMAND.search(joined[-1][1]):
            first, above = joined.pop()
            n, line = first, above.rstrip() + " " + line.strip()
        if line.rstrip().endswith("\\"):
            pending = (n, line.rstrip()[:-1])
            continue
        pending = None
        joined.append((n, line))
    if pending is not None:
        joined.append(pending)
    return joined


def _tokens(command: str) -> list[str]:
    command = command.split("`")[0] if command.count("`") % 2 else command.replace("`", " ")
    command = re.split(r"\s(?:&&|\|\||;|\|)\s", command)[0]
    try:
        return shlex.split(command)
    except ValueError:
        return command.split()


def _flags(tokens: list[str]) -> tuple[dict[str, str | bool], list[str]]:
    """{normalised flag: value or True} and the positional tokens."""
    flags: dict[str, str | bool] = {}
    positional: list[str] = []
    i = 0
    while i < len(tokens):
        tok = tokens[i]
        if _is_flag(tok):
            key, eq, value = tok.partition("=")
            norm = key.lstrip("-").rstrip(".,;:").replace("_", "-").lower()  # a flag ending a sentence in prose
            if eq:
                flags.setdefault(norm, _listed(value, tokens[i + 1:]))
            elif i + 1 < len(tokens) and (not tokens[i + 1].startswith("-") or re.fullmatch(r"-\d+", tokens[i + 1])):
                if key in VALUE_OPTIONS or _takes_value(norm):
                    flags.setdefault(norm, _listed(tokens[i + 1], tokens[i + 2:]))
                    i += 1
                else:
                    flags.setdefault(norm, True)
            else:
                flags.setdefault(norm, True)
        else:
            positional.append(tok)
        i += 1
    return flags, positional


def _is_flag(tok: str) -> bool:
    return tok.startswith("-") and len(tok) > 1 and not re.fullmatch(r"-\d+(\.\d+)?", tok)


def _listed(value: str, rest: list[str]) -> str:
    """A flag's value less the comma or semicolon prose lists flags with, where another flag follows or the group ends:
    "(--tensor-parallel-size 2, --enforce-eager, --dtype bfloat16)", "--kv-cache-dtype=fp8, --tensor-parallel-size 8,
    --gpu-memory-utilization 0.8" (find_string ids 51775550683, 60419268194, 67232314541; tests/data/para37/u17b04-*/
    a.md). Before another value it is a list of values tried, no one value: "--tensor-parallel-size 1, 2 and 4", "2, 4
    and 8 all hang" (fx48d); a list inside a value ("-ts 3,1") keeps its commas."""
    return value.rstrip(",;") if not rest or _is_flag(rest[0]) else value


def _takes_value(norm: str) -> bool:
    known = {f for names in FLAGS.values() for f in names} | set(EXTRA_FLAGS) - {
        "enable-dp-attention", "trust-remote-code", "enable-expert-parallel"}
    known -= {"disable-custom-all-reduce", "enable-chunked-prefill"}
    known |= set(SPEC_FLAGS) | {f for names in RENDEZVOUS.values() for f in names}
    return norm in known or norm in {"g", "b", "e", "f", "c", "w", "backend", "port", "host", "nproc-per-node",
                                     "nnodes", "num-gpus", "num-nodes", "tokenizer", "revision", "seed", "parallel",
                                     "fa", "flash-attn", "ts", "tensor-split", "sm", "split-mode"}


def _framework(command: str, positional: list[str]) -> str | None:
    lowered = command.lower()
    for key, label in (("sglang", "SGLang"), ("aphrodite", "Aphrodite"), ("trtllm", "TensorRT-LLM"),
                       ("tensorrt_llm", "TensorRT-LLM"), ("vllm", "vLLM")):
        if key in lowered:
            return label
    if re.search(r"_perf(?:_mpi)?\b", lowered):
        return "nccl-tests"
    if lowered.startswith("torchrun") or "torch.distributed" in lowered:
        return "PyTorch"
    if lowered.startswith("deepspeed"):
        return "DeepSpeed"
    return None


# The offline throughput benchmarks: each queues its whole prompt set on the engine at once and reports the run's total
# tokens over its duration, so the engine's batch stays as full as its batch cap and KV cache allow (a full load, not
# one stream). vLLM's `vllm bench throughput` / benchmarks/benchmark_throughput.py ("Benchmark offline inference
# throughput": every request handed to one LLM.generate call, https://raw.githubusercontent.com/vllm-project/vllm/
# v0.10.1/vllm/benchmarks/throughput.py), TensorRT-LLM's `trtllm-bench ... throughput` ("measure maximum request
# processing capacity", its dataset's every request unless --num_requests caps it,
# https://nvidia.github.io/TensorRT-LLM/commands/trtllm-bench.html) and SGLang's bench_offline_throughput. Their
# latency subcommands (`trtllm-bench latency`, `vllm bench latency`) are not.
OFFLINE_BENCH = re.compile(r"\btrtllm-bench\b.*\sthroughput\b|\bvllm\s+bench\s+throughput\b|"
                           r"\bbenchmark_throughput\.py\b|\bbench_offline_throughput\b", re.I)


# llama.cpp's server and the runner Ollama starts with it: their own flags (-b is the prompt's chunk, not a decode
# batch), of which only the slot count is read here.
LLAMA_SERVER = re.compile(r"^(?:\S*[/\\])?(?:llama-server|ollama_llama_server)(?:\.exe)?\b|^(?:\S*/)?ollama\s+runner\b")


# llama.cpp's command-line tool takes the server's -ts / --tensor-split and -sm (common/arg.cpp; "llama-cli -m
# model.gguf -ts 3,1", the multi-GPU recipe of ggml-org/llama.cpp#22729): only its split over the GPUs is read.
# (llama-bench is not: its -ts separates a split's parts with "/" and the splits it sweeps with ",".)
LLAMA_CLI = re.compile(r"^(?:\S*[/\\])?llama-cli(?:\.exe)?\b")


# An MPI launcher called by its path, as MLNX_OFED and HPC-X install it ("/usr/mpi/gcc/openmpi-4.1.7a1/bin/mpirun",
# NVIDIA/nccl#1368; "/opt/amazon/openmpi/bin/mpirun", NVIDIA/nccl#398): the same launcher as "mpirun"; Slurm's srun
# likewise ("/usr/bin/srun").
LAUNCHER_PATH = re.compile(r"^[^\s\"'=`]*/(?=(?:mpirun|mpiexec|srun)\b)")


def _command(command: str, src: str) -> list:
    command = LAUNCHER_PATH.sub("", command)
    tokens = _tokens(command)
    if LLAMA_CLI.match(command):
        return _split_gpus(_flags(tokens[1:])[0], src)
    if LLAMA_SERVER.match(command):
        tokens = tokens[1:] if tokens[:1] and tokens[0].endswith("ollama") else tokens
        flags = _flags(tokens[1:])[0]
        return (_server_slots(flags, src) + _flash_attn(command, flags, src) + _split_gpus(flags, src)
                + ([Workload(src, extra={"speculative": spec})] if (spec := _speculation(flags)) else []))
    flags, positional = _flags(tokens[1:])
    framework = _framework(command, positional)
    w = Workload(src, framework=framework)
    _apply_flags(w, flags, command)
    if TGI_BENCH.match(command):
        w.batch = _tgi_bench_batch(tokens)
    if w.tp is None and SERVER_DEFAULT_TP1.match(command) and not any(f in flags for f in PARALLEL_FLAGS) \
            and "config" not in flags:  # (review32) a config file may set the TP: vLLM's and SGLang's --config
        w.tp = 1  # the server's documented default: no flag splits the model
        w.extra["defaults"] = ("tp",)  # not stated: a TP any other record states wins (Facts.workload)
    if w.batch is None and w.concurrency is None and LATENCY_BENCH.search(command):
        w.batch = LATENCY_BENCH_BATCH  # its documented default: one batch of 8 prompts decoded together
        w.extra["defaults"] = (*w.extra.get("defaults", ()), "batch")
    if w.tp and SERVER_LAYOUT.match(command):
        w.extra["server_layout"] = True  # a server's whole layout: its GPUs are TP x PP x DP (rules.common.job_gpus)
    if re.match(r"genai-perf\b|python[\d.]*\s+\S*token_benchmark_ray", command):
        # genai-perf's --num-prompts is the size of its synthetic prompt pool, sent at its --concurrency (else one
        # request at a time, perf_analyzer's default), not a batch sent at once as vLLM's benchmarks send theirs
        # (https://docs.nvidia.com/deeplearning/triton-inference-server/user-guide/docs/perf_analyzer/genai-perf/
        # README.html)
        w.extra.pop("num_prompts", None)
    if w.model is None:
        m = re.match(r"(?:vllm\s+serve|aphrodite\s+run)\s+([^\s-][^\s`]*)(\s+--?[A-Za-z])?", command)
        if m and _model_tag(m.group(1), m.group(2) is not None):
            w.model = m.group(1)
            if weights := _flag_weights(flags, command, w.model):
                w.dtype = weights  # the served checkpoint's name gives the flag's method its width
    if any(flags.get(f) for f in EAGER_FLAGS):
        w.eager = True
    elif (framework in SERVING and re.search(r"serve|launch_server|aphrodite run|api_server", command)
          and "bench" not in command):
        w.eager = False  # CUDA graphs are these servers' default
    _launcher_scale(command, flags, w)
    offline = OFFLINE_BENCH.search(command)
    if offline:
        said = offline.group(0).lower()
        w.extra["offline_bench"] = "trtllm-bench throughput" if said.startswith("trtllm-bench") else \
            re.sub(r"\s+", " ", said)
    out: list = [w] if _says_something(w) else []
    out.extend(_docker_host(command, flags, src))
    return out


# A vLLM, SGLang or LMDeploy server started with no parallel flag runs on one GPU: --tensor-parallel-size "Default: 1"
# (https://docs.vllm.ai/en/latest/configuration/engine_args.html), --tp-size "default 1"
# (https://docs.sglang.ai/advanced_features/server_arguments.html), LMDeploy's --tp "Default: 1"
# (https://lmdeploy.readthedocs.io/en/latest/llm/api_server.html, `lmdeploy serve api_server -h`). Not the offline
# LLM(...) class, nor a benchmark client, whose flags say nothing of the server's layout.
SERVER_DEFAULT_TP1 = re.compile(r"vllm\s+serve\b|sglang\s+serve\b|lmdeploy\s+serve\s+api_server\b|"
                                r"python[\d.]*(?:\s+-\S+)*\s+-m\s+(?:vllm\.entrypoints\.openai\.api_server|"
                                r"sglang\.launch_server|lmdeploy\.serve\.openai\.api_server)\b")
# vLLM's latency benchmark times one batch of --batch-size prompts, "default=8" when the flag is left off
# (vllm/benchmarks/latency.py add_cli_args, https://github.com/vllm-project/vllm; `vllm bench latency` and the older
# benchmarks/benchmark_latency.py take the same arguments).
LATENCY_BENCH = re.compile(r"\bvllm\s+bench\s+latency\b|\bbenchmark_latency\.py\b")
LATENCY_BENCH_BATCH = 8


# The serving engines' launchers, each of which starts one server over TP x PP (x DP) GPUs of its own: the servers
# above, TGI's launcher (--num-shard), trtllm-serve (--tp_size x --pp_size,
# https://nvidia.github.io/TensorRT-LLM/commands/trtllm-serve/trtllm-serve.html) and Aphrodite.
SERVER_LAYOUT = re.compile(SERVER_DEFAULT_TP1.pattern + r"|text-generation-launcher\b|trtllm-serve\b|aphrodite\s+run\b|"
                           r"docker\s+run\b.*\b(?:vllm|sglang|text-generation-inference|lmdeploy)\b")
# (a data- or pipeline-parallel flag alone leaves TP at its default: "--data-parallel-size 4" is four TP-1 replicas,
# https://docs.vllm.ai/en/latest/serving/data_parallel_deployment.html)
# (--config FILE: vLLM's serve reads any of its options from a YAML file, https://docs.vllm.ai/en/stable/configuration/
# serve_args.html "Configuration file"; SGLang's launch_server takes --config too: the line alone says no TP, and
# _command sets no default TP beside it)
PARALLEL_FLAGS = set(FLAGS["tp"]) | {"nnodes", "distributed-executor-backend"}


# TGI's benchmark tool runs each batch size it is given, "-b" / "--batch-size", repeatable ("-b 1 -b 2 -b 4"), and
# prints a table per size (https://github.com/huggingface/text-generation-inference/tree/main/benchmark): one size
# given is the batch its figures ran at; several are several runs, no one batch.
TGI_BENCH = re.compile(r"text-generation-benchmark\b")


def _tgi_bench_batch(tokens: list[str]) -> int | None:
    """The one batch size a text-generation-benchmark line gives, else None."""
    sizes = {to_int(v) for k, v in zip(tokens, tokens[1:]) if k in ("-b", "--batch-size")}
    sizes |= {to_int(t.split("=", 1)[1]) for t in tokens if t.startswith("--batch-size=")}
    return sizes.pop() if len(sizes) == 1 and None not in sizes else None


def _server_slots(flags: dict, src: str) -> list:
    """llama-server's slots, `-np N` / `--parallel N` (the sequences it decodes together, each with its share of the
    context; https://github.com/ggml-org/llama.cpp/tree/master/tools/server). A count below 1 asks the server to pick
    one (recent builds' default, -1): no count is stated."""
    n = to_int(flags.get("np") or flags.get("parallel"))
    return [Workload(src, extra={"parallel": n, "parallel_flag": "--parallel"})] if n and n >= 1 else []


# llama-server's -ts / --tensor-split: "fraction of the model to offload to each GPU, comma-separated list of
# proportions, e.g. 3,1" (llama.cpp's tools/server README), so one proportion a GPU; a zero leaves that GPU out. With
# -sm / --split-mode (none, layer: the default, row, tensor) it says how the model is split over them.
def _split_gpus(flags: dict, src: str) -> list:
    """The GPUs a llama-server line splits the model over (its --tensor-split proportions above zero), the split mode
    it states, and with a row or tensor split the TP size they make; none when it gives no proportions for two GPUs or
    more. Split mode none is one GPU (job_gpus 1), proportions or not."""
    value = flags.get("ts") or flags.get("tensor-split")
    try:
        used = split_gpus_used(value) if isinstance(value, str) else 0
    except ValueError:
        return []
    mode = flags.get("sm") or flags.get("split-mode")
    extra = {"split_mode": mode.lower()} if isinstance(mode, str) and mode.lower() in (
        "none", "layer", "row", "tensor", "graph") else {}
    if extra.get("split_mode") == "none":
        # (past45) "none: use one GPU only" (tools/server/README.md, --split-mode): the job runs on one GPU (the
        # main GPU, -mg), whatever GPUs the box has or -ts lists; one GPU splits nothing, TP 1
        return [Workload(src, tp=1, extra={**extra, "job_gpus": 1})]
    # (a row / tensor split cuts every layer's matrices over those GPUs: tensor parallelism over all of them,
    # diagnose.artifacts.issue_md ROW_SPLIT)
    # (extract35b) a layer split gives each GPU whole layers: no tensor cut, TP 1 (tools/server/README.md)
    tp = used if extra.get("split_mode") in ("row", "tensor", "graph") else 1 if extra.get("split_mode") == "layer" \
        else None
    return [Workload(src, gpu_count=used, tp=tp, extra=extra)] if used >= 2 else []


# llama-server's -fa / --flash-attn: a bare flag (on) before b6325, then on|off|auto with 1/0/-1 as aliases
# (https://github.com/ggml-org/llama.cpp/pull/15434, https://github.com/ggml-org/llama.cpp/pull/15746, common/arg.cpp)
FLASH_ATTN = {"on": "on", "enabled": "on", "1": "on", "true": "on", "off": "off", "disabled": "off", "0": "off",
              "false": "off", "auto": "auto", "-1": "auto"}


def _flash_attn(command: str, flags: dict, src: str) -> list:
    """That the line runs llama-server (extra llamacpp_tool), and the flash attention it states (flash_attn: on, off or
    auto; absent where it says none, or a value llama.cpp does not take). Which build's default an unstated one is, is
    the rules' (rules.catalog.attention_build). Ollama's runner is not llama-server: its default is Ollama's."""
    if "ollama" in command.split()[0]:
        return []
    value = flags.get("fa", flags.get("flash-attn"))
    said = "on" if value is True else FLASH_ATTN.get(str(value).strip().lower()) if value is not None else None
    return [Workload(src, extra={"llamacpp_tool": "llama-server", **({"flash_attn": said} if said else {})})]


# Weight quantisation as an engine's flag names it: vLLM / SGLang / Aphrodite --quantization, TGI --quantize. The
# method's name gives the weights' width as a checkpoint's name does (text.quant_dtype: awq, gptq, *_marlin, fp8,
# bitsandbytes-nf4 ...), and two names the checkpoint conventions lack: TGI's "eetq" (8-bit weights) and "marlin"
# (4-bit GPTQ/AWQ weights) (https://huggingface.co/docs/text-generation-inference/reference/launcher, QUANTIZE).
# A bare "bitsandbytes" is the engine's: TGI's is 8-bit ("Bitsandbytes 8bit", the same page), vLLM's and Aphrodite's
# in-flight quantisation 4-bit (https://docs.vllm.ai/en/latest/features/quantization/bnb.html); elsewhere (SGLang
# loads a checkpoint already quantised, of either width) it is left unread.
_FLAG_WEIGHTS = {"eetq": "int8", "marlin": "int4"}
_TGI = re.compile(r"text-generation-(?:launcher|inference)", re.I)
_INFLIGHT_BNB = re.compile(r"\b(?:vllm|aphrodite)\b", re.I)


def _flag_weights(flags: dict, command: str, model: str | None = None) -> str | None:
    """'int4', 'int8' or 'fp8': the weights an engine's quantisation flag loads; None where no flag names them. The
    flag names a method, the checkpoint's name its width: GPTQ comes in 8 bits as in 4 ("Qwen2.5-7B-Instruct-GPTQ-Int8
    --quantization gptq", vllm-project/vllm#20634), so a width the name gives wins."""
    value = next((v for f in ("quantization", "quantize") if isinstance(v := flags.get(f), str)), None)
    if value is None:
        return None
    if model and (named := quant_dtype(model.rsplit("/", 1)[-1])):
        return named
    value = value.strip().lower()
    if value == "bitsandbytes":
        return "int8" if _TGI.search(command) else "int4" if _INFLIGHT_BNB.search(command) else None
    return quant_dtype(value) or _FLAG_WEIGHTS.get(value)


# --dtype as vLLM and SGLang take it ("auto, bfloat16, float, float16, float32, half":
# https://docs.vllm.ai/en/latest/configuration/engine_args.html, https://docs.sglang.ai/advanced_features/
# server_arguments.html) and TGI ("float16, bfloat16": its launcher reference), in the weight-width words the rules
# use; "auto" (the checkpoint's own) stays as written.
DTYPE_WORDS = {"half": "fp16", "float16": "fp16", "fp16": "fp16", "bfloat16": "bf16", "bf16": "bf16",
               "float": "fp32", "float32": "fp32", "fp32": "fp32"}


def _apply_flags(w: Workload, flags: dict, command: str = "") -> None:
    for field_name, names in FLAGS.items():
        for flag in names:
            value = flags.get(flag)
            if value is None or value is True:
                continue
            if field_name == "dp" and "enable-dp-attention" in flags:
                break  # (review25) SGLang's DP attention: dp groups inside the TP group's GPUs, no replicas (issue_md)
            if field_name in INT_FIELDS:
                try:
                    value = int(str(value))
                except ValueError:
                    continue
                if field_name in DEGREES and value < 1:
                    continue
            if field_name == "dtype":
                value = DTYPE_WORDS.get(str(value).lower(), value)
            setattr(w, field_name, value)
            break
    for flag in EXTRA_FLAGS:
        if flag in flags:
            w.extra[flag.replace("-", "_")] = flags[flag]
    for key, names in RENDEZVOUS.items():
        value = next((v for f in names if isinstance(v := flags.get(f), str)), None)
        if value is not None:
            w.extra[key] = value
    if weights := _flag_weights(flags, command, w.model):
        w.dtype = weights  # the weights' width, whatever --dtype says of the activations
    if spec := _speculation(flags):
        w.extra["speculative"] = spec


def _speculation(flags: dict) -> dict:
    """The speculative-decoding flags given, by their dashed names, values as written."""
    return {f: flags[f] for f in SPEC_FLAGS if flags.get(f) not in (None, True)}


def _says_something(w: Workload) -> bool:
    return any(v not in (None, {}) for k, v in vars(w).items() if k != "source")


def _launcher_scale(command: str, flags: dict, w: Workload) -> None:
    """How many processes on how many hosts (mpirun -np/-H, torchrun --nnodes/--nproc-per-node)."""
    lowered = command.lower()
    if lowered.startswith(("mpirun", "mpiexec", "srun")):
        hosts = flags.get("h") or flags.get("host")
        if isinstance(hosts, str):
            w.nodes = len({h.split(":")[0] for h in hosts.split(",") if h})
        if w.framework == "nccl-tests":
            w.gpu_count = nccl_tests_ranks(command)
        elif nproc := to_int(flags.get("np") or flags.get("n")):
            w.gpu_count = nproc
        if nodes := _launcher_nodes(command, flags):
            w.nodes = nodes
    elif lowered.startswith("torchrun"):
        per_node = to_int(flags.get("nproc-per-node"))
        nodes = to_int(str(flags.get("nnodes", "")).split(":")[-1])
        w.nodes = nodes
        if per_node:
            w.gpu_count = per_node * (nodes or 1)
    elif lowered.startswith("deepspeed"):
        # DeepSpeed's launcher: --num_gpus GPUs on each of --num_nodes nodes
        # (https://www.deepspeed.ai/getting-started/#resource-configuration-multi-node); "deepspeed --num_gpus 4
        # example.py" (deepspeedai/DeepSpeedExamples#135) runs four ranks
        per_node, nodes = (to_int(str(flags.get(f) or "")) for f in ("num-gpus", "num-nodes"))
        w.nodes = nodes or w.nodes
        if per_node:
            w.gpu_count = per_node * (nodes or 1)
    elif w.framework == "nccl-tests":
        w.gpu_count = nccl_tests_ranks(command)
    elif nodes := to_int(str(flags.get("nnodes", ""))):
        # a serving engine spread over nodes (SGLang's --nnodes): its world, TP x PP, is spread over them
        w.nodes = nodes
        if w.tp and not w.gpu_count:
            w.gpu_count = w.tp * (w.pp or 1)


# Processes per node, as the launchers write it (flags are case-sensitive: the parsed flags are lower-cased):
# Open MPI's mpirun `-N k` / `--npernode k` / `--map-by ppr:k:node` and MPICH's `-ppn k` start k processes on each
# node (https://docs.open-mpi.org/en/v5.0.x/man-openmpi/man1/mpirun.1.html; MPICH's mpiexec(1)); Slurm's srun `-N n`
# / `--nodes n` is the node count itself (https://slurm.schedmd.com/srun.html).
PER_NODE_PROCESSES = re.compile(r"(?:^|\s)(?:-N|--?npernode|--?ppn)[=\s]+(\d+)\b|--map-by[=\s]+ppr:(\d+):node\b")
SRUN_NODES = re.compile(r"(?:^|\s)(?:-N|--nodes)[=\s]*(\d+)\b")


def _launcher_nodes(command: str, flags: dict) -> int | None:
    """The nodes an mpirun/mpiexec/srun line spreads over: srun's -N, or the processes (-np) over the processes
    each node runs; None when the line does not say."""
    run = NCCL_TESTS_RUN.search(command)
    launcher = command[:run.start()] if run else command  # (not a binary's own flags after it)
    if launcher.lower().startswith("srun"):
        m = SRUN_NODES.search(launcher)
        return int(m.group(1)) if m else to_int(flags.get("nodes"))
    m, np_ = PER_NODE_PROCESSES.search(launcher), re.search(r"(?:^|\s)(?:-np|-n|--n|--np)[=\s]+(\d+)\b", launcher)
    if m and np_:
        total, per_node = int(np_.group(1)), int(m.group(1) or m.group(2))
        return total // per_node if per_node and total % per_node == 0 else None
    return None


# (left27) The binaries an MPI build names with a suffix ("make MPI=1 NAME_SUFFIX=_mpi", nccl-tests README) are the same
# tests: `srun --mpi=pmix ... all_reduce_perf_mpi -b 512M -e 8G -f 2 -g 1` (nebius/soperator#428).
NCCL_TESTS_RUN = re.compile(r"\b(?:all_reduce|all_gather|reduce_scatter|broadcast|reduce|alltoall|sendrecv)_perf"
                            r"(?:_mpi)?\b")
SRUN_PER_NODE = re.compile(r"(?:^|\s)--ntasks-per-node[=\s]+(\d+)\b")


def nccl_tests_ranks(command: str) -> int | None:
    """Ranks of an nccl-tests run: -t threads x -g GPUs per process (nccl-tests README), times the
    processes its launcher starts (mpirun/mpiexec -np or -n, srun -n/--ntasks, before the binary). The
    test's own -n is its iteration count, never ranks. Read from the text, so "-g8" counts too; None
    when the line states none of them."""
    run = NCCL_TESTS_RUN.search(command)
    if not run:
        return None
    launcher, test = command[:run.start()], command[run.end():]
    found = [re.search(rf"(?:^|\s)-{flag}\s*(\d+)\b", test) for flag in ("g", "t")]
    per_rank = math.prod(int(m.group(1)) for m in found if m)
    processes = re.search(r"(?:^|\s)(?:-np?|--ntasks(?:=|\s+))\s*(\d+)\b", launcher)
    if processes:
        return per_rank * int(processes.group(1))
    # (left27) Slurm's srun starts --ntasks-per-node tasks on each of its --nodes (https://slurm.schedmd.com/srun.html)
    per_node, nodes = SRUN_PER_NODE.search(launcher), SRUN_NODES.search(launcher)
    if per_node and nodes and re.search(r"(?:^|[\s/])srun\b", launcher):
        return per_rank * int(per_node.group(1)) * int(nodes.group(1))
    # Open MPI's -H lists the hosts with one slot each unless written "host:N", and with no -np it fills those slots
    # (https://docs.open-mpi.org/en/v5.0.x/launching-apps/scheduling.html): "mpirun -H 10.251.154.148 ./all_reduce_perf
    # -g 2" (NVIDIA/nccl-tests#27) runs one process
    hosts = re.search(r"(?:^|\s)(?:-H|--host)[=\s]+(\S+)", launcher)
    if hosts and re.match(r"(?:[^\s/]*/)?(?:mpirun|mpiexec)\b", launcher.lstrip()):
        slots = [h.rsplit(":", 1)[1] if ":" in h else "1" for h in hosts.group(1).split(",") if h]
        if all(n.isdigit() for n in slots):
            return per_rank * sum(int(n) for n in slots)
    if re.search(r"(?:^|[\s/])srun\b", launcher):
        return None  # srun's tasks not stated as numbers: the allocation's (SLURM_NTASKS), unknown from the line
    return per_rank if any(found) else None


def _docker_host(command: str, flags: dict, src: str) -> list:
    if not command.lower().startswith("docker"):
        return []
    out = [HostFact(src, "container", True)]
    if isinstance(flags.get("shm-size"), str):
        try:
            out.append(HostFact(src, "shm_bytes", size_bytes(flags["shm-size"])))
        except ValueError:
            pass
    if flags.get("ipc") == "host":
        out.append(HostFact(src, "ipc_host", True))
    return out


def _echo(body: str, src: str) -> Workload:
    """`key=value, ...` or `'key': value` pairs from an engine's own echo of its arguments."""
    pairs = dict(re.findall(r"['\"]?(\w+)['\"]?\s*[=:]\s*('[^']*'|\"[^\"]*\"|[^,\s)}]+)", body))
    flags = {k.replace("_", "-").lower(): v.strip("'\"") for k, v in pairs.items()}
    w = Workload(src, framework="vLLM" if "vllm" in body.lower() or "tensor_parallel_size" in body else None)
    _apply_flags(w, flags, body if w.framework is None else f"vllm {body}")
    if flags.get("enforce-eager") in ("True", "true"):
        w.eager = True
    elif flags.get("enforce-eager") in ("False", "false"):
        w.eager = False
    if w.dtype and w.dtype.startswith("torch."):
        w.dtype = DTYPE_WORDS.get(w.dtype[len("torch."):].lower(), w.dtype[len("torch."):])
    if "distributed-executor-backend" in flags:
        w.extra["distributed_executor_backend"] = flags["distributed-executor-backend"]
    return w


# (left27) A line that hands the reader what follows it: "If you encoutered problems under Multi-GPU setttings, you
# may:" above a block of exports (EricLBuehler/candle-vllm#101), "1、试试禁用P2P和IB通信" (try disabling P2P and IB)
# above two export lines (vllm-project/vllm#17568). The assignment lines right under it are the advice, not the writer's
# environment; "I run it with:" or "my env:" above them stays the writer's.
ADVICE_ABOVE = re.compile(r"(?:\byou\s+(?:could|can|should|may|might)(?:\s+(?:also|just|simply))?(?:\s+(?:set|try|use|"
                          r"add|export|disable)\b[^\n]{0,40})?|\b(?:please\s+)?try\s+(?:the\s+following|these|this|"
                          r"setting|exporting|adding)\b[^\n]{0,40})\s*[:：]\s*$|" + CJK_ADVICE, re.I)
# A line of nothing but assignments ("export NCCL_P2P_DISABLE=1", "NCCL_IB_DISABLE=1 # optional"): what an advice line
# above hands on.
ASSIGN_LINE = re.compile(r"^\s*(?:export\s+|set\s+|ENV\s+)?[A-Z][A-Z0-9_]*=\S*\s*(?:#.*)?$")


def advised_lines(text: str) -> set[int]:
    """The numbers of the assignment lines (ASSIGN_LINE) that run on right under an advice line (ADVICE_ABOVE), a
    blank line or a fence between them allowed."""
    out: set[int] = set()
    advising = False
    for n, line in lines(text):
        if ASSIGN_LINE.match(line):
            if advising:
                out.add(n)
            continue
        if not line.strip() or re.match(r"^\s*(?:```|~~~)", line):
            continue
        advising = bool(ADVICE_ABOVE.search(line))
    return out


# (review39c) A setting ordered under a condition: "if it hangs, set NCCL_P2P_DISABLE=1", "In case of a hang, export
# ...", "如果出现卡住，就设置 NCCL_P2P_DISABLE=1" (rules.hearsay.advised reads the failure in the same words), or the
# order first and its condition after ("Set NCCL_P2P_DISABLE=1 if it hangs"): a remedy handed on, not what runs. The
# writer's own "if I set X=1 it works" has no order before the setting.
_ORDER_WORDS = r"(?:set|export|use|add|try|disable|enable|pass)"
ORDERED_IF_BEFORE = re.compile(r"(?:\b(?:if|in\s+case|unless)\b|^\W*should\b)[^,;.\n]{1,80}?,\s*(?:then\s+)?"
                               r"(?:please\s+|just\s+|simply\s+|you\s+(?:should|must|need\s+to)\s+)?"
                               r"(?:" + _ORDER_WORDS + r"|re-?start|re-?run|run|"
                               r"re-?launch|launch|kill|reboot)\b[^,;.\n]{0,40}?\s[\"'`]?$|"
                               r"(?:如果|假如|要是|万一|一旦)[^，,。；;\n]{1,60}[，,]\s*(?:就|请|那就|则|那么)?\s*(?:请\s*)?"
                               r"(?:设置|设|export|使用|加上?|禁用|关闭)\s*[\"'`]?$", re.I)
ORDER_OPENS = re.compile(r"(?:^|[.!?]\s+)[\s*>-]*(?:please\s+)?" + _ORDER_WORDS + r"\s+[\"'`]?$", re.I)
CONDITION_AFTER = re.compile(r"^[\"'`]?\s+(?:if|in\s+case|unless|whenever)\b", re.I)


def off_before(before: str) -> bool:
    """Do the words before a setting, on its line, say it is not in use (OFF_BEFORE)? A question asked after a "why"
    (WHY_ASKING: "why do I need to set X=1") is about a setting that runs, not whether to set it."""
    pos = 0
    while m := OFF_BEFORE.search(before, pos):
        if not (m.group("asking") and WHY_ASKING.search(before, 0, m.start("asking"))):
            return True
        pos = m.start() + 1
    return False


# (fr44r2) The writer taking up what was advised, after the setting in its sentence: "..., so we run with it now",
# "and we now use it".
ADOPTED_AFTER = re.compile(r"^[^.;\n]{0,40}?\b(?:so|and)\s+(?:now\s+)?(?:we|I)\s+(?:now\s+)?(?:run|use|set|keep)\s+"
                           r"(?:with\s+)?(?:it|that|this)\b", re.I)
# (past45) ... or as the next sentence opens: "You can set X=1. We run with it as suggested." (claims._DID_AS_TOLD reads
# it as the advice answered). (fr45) Not "this" / "that" right before a colon: "We use this: ```torchrun ...```"
# points to the command that follows, not back to the setting advised ("We use it: it helps" keeps its reading).
# (fr45r2) Prose after the colon is the advice taken up ("We use that: no more hangs since").
ADOPTED_NEXT = re.compile(r"[\s*>-]*+(?:(?:so|and|then)[\s,]++)?(?:now\s++)?(?:I|we)\s++(?:now\s++)?"
                          r"(?:run|use|keep)\s++(?:with\s+)?(?:it|that|this)\b(?:\s+(?:now|as\s+(?:suggested|advised|told|recommended)))?"
                          r"(?=\s*(?:[,;!-]|and\b|but\b|still\b|now\b|$)|(?<!\bthis)(?<!\bthat)\s*:|"
                          # (fr45r2) "this:" / "that:" followed by prose, not a command: "We use that: no more hangs
                          # since" takes the advice up
                          r"\s*:(?-i:\s+(?!(?:torchrun|python\d*|vllm|deepspeed|accelerate|mpirun|srun|docker|bash|sh|"
                          r"sudo|export|pip\d*|llama[\w-]*|ollama)\b)[A-Za-z][a-z']*+(?:\s++[A-Za-z][a-z',]*+)++\s*+$))",
                          re.I)


def _adopted(text: str, end: int) -> bool:
    """(past45) Do the words after the setting that ends at text[end] take it up, in its sentence (ADOPTED_AFTER) or
    as the next one opens (ADOPTED_NEXT; the setting's own match may have taken the period that ends its sentence)?"""
    after = text[end:end + 120]
    if ADOPTED_AFTER.match(after):
        return True
    if text[end - 1:end] in (".", "!"):
        stop = re.match(r"\s+", after)
        start = end + stop.end() if stop else None
    else:  # the setting's sentence ends with "." or "!" within 40 characters (text.py's reading of a sentence's end)
        start = next_sentence(text, end, 41, marks=".!")
    return start is not None and bool(ADOPTED_NEXT.match(re.split(r"[.!?\n]", text[start:end + 120])[0]))


def setting_off(text: str, start: int, end: int) -> bool:
    """Does the prose around the setting at text[start:end] say it is not in use (its own line only)?"""
    before = text[max(0, start - 40):start].rsplit("\n", 1)[-1]
    if off_before(before) and not _adopted(text, end) or OFF_AFTER.match(text[end:end + 60]):
        return True
    before = text[max(0, start - 120):start].rsplit("\n", 1)[-1]
    return bool(ORDERED_IF_BEFORE.search(before) or (ORDER_OPENS.search(before)
                                                      and CONDITION_AFTER.match(text[end:end + 20])))


# TGI's launcher takes each flag from the environment too: --num-shard is "[env: NUM_SHARD=]", the shards being the
# tensor-parallel ranks (https://huggingface.co/docs/text-generation-inference/reference/launcher), as set in a
# `docker run -e NUM_SHARD=2` or a Kubernetes manifest.
TGI_SHARD_ENV = {"NUM_SHARD"}


def _assignments(line: str, src: str) -> list:
    out: list = []
    line = ADVICE.sub("", line)
    found = [(m.group("name"), m.group("value")) for m in ASSIGN.finditer(line)
             if not setting_off(line, m.start("name"), m.end())]
    found += [(m.group("name"), m.group("value")) for m in PY_ENVIRON.finditer(line)]
    said = next((m for m in OLLAMA_PARALLEL.finditer(line) if not setting_off(line, m.start(), m.end())), None)
    if said and int(said.group(1) or said.group(2)) >= 1:
        flag = "OLLAMA_NUM_PARALLEL" if said.group(1) else "runner.parallel"
        out.append(Workload(src, extra={"parallel": int(said.group(1) or said.group(2)), "parallel_flag": flag}))
    # prose ends a sentence or a question after the value ("export NCCL_CUMEM_ENABLE=0.", "should I set
    # NCCL_P2P_DISABLE=1?"): the punctuation is not the value
    found = [(var, value.rstrip(".,;:)?!")) for var, value in found]
    for var, value in found:
        if var in TGI_SHARD_ENV and (shards := to_int(value.strip("'\""))) and shards >= 1:
            out.append(Workload(src, tp=shards))
        if NCCL_NAMES.match(var):
            out.append(NcclSetting(src, var, value.strip("'\"")))
            if var == "CUDA_VISIBLE_DEVICES":
                out.append(Workload(src, cuda_visible_devices=value.strip("'\"")))
    return out

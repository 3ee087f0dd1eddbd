"""The share of GPU memory a serving engine was told to fill, where a launch line, a Python call, a YAML/JSON
config or the reporter's prose states it. Read here, judged in rules (rules.workload.memory_share).

Each engine's flag and what its fraction is of, from its own documentation:
- vLLM `gpu_memory_utilization` (0.9 by default): "the fraction of GPU memory to be used for the model executor",
  0 < x <= 1, of the GPU's whole memory (https://docs.vllm.ai/en/latest/configuration/engine_args.html).
- SGLang `--mem-fraction-static`: "the fraction of the memory used for static allocation (model weights and KV
  cache memory pool)", of the GPU's whole memory; its default depends on the GPU's memory and TP
  (https://docs.sglang.ai/advanced_features/server_arguments.html, python/sglang/srt/server_args.py).
- TGI `--cuda-memory-fraction` (1.0): "the fraction of the GPU memory the process may use"
  (https://huggingface.co/docs/text-generation-inference/reference/launcher).
- TensorRT-LLM `free_gpu_memory_fraction` (KvCacheConfig) / trtllm-serve `--kv_cache_free_gpu_memory_fraction` (0.9):
  the fraction of the memory still free after the model is loaded that the KV cache takes
  (https://nvidia.github.io/TensorRT-LLM/examples/kvcacheconfig.html).
- LMDeploy `--cache-max-entry-count` / `cache_max_entry_count` (0.8): "the percentage of free gpu memory occupied by
  the k/v cache, excluding weights" (https://lmdeploy.readthedocs.io/en/latest/api/pipeline.html,
  TurbomindEngineConfig).
A fraction is a number in (0, 1]; anything else (95, 0, -1) is left unread, not guessed at. Prose states it as
"95 % GPU memory utilisation" or "gpu memory utilization set to 0.95", with a setting word before it; "GPU
utilization 95 %" (nvidia-smi's busy share) and a memory figure in use are not this setting.
"""

from __future__ import annotations

import re

# flag (dashes) -> (engine, what the fraction is of: "total" GPU memory, or "free" memory left after the weights)
FLAGS = {
    "gpu-memory-utilization": ("vLLM", "total"),
    "mem-fraction-static": ("SGLang", "total"),
    "cuda-memory-fraction": ("TGI", "total"),
    "free-gpu-memory-fraction": ("TensorRT-LLM", "free"),
    "kv-cache-free-gpu-memory-fraction": ("TensorRT-LLM", "free"),
    "cache-max-entry-count": ("LMDeploy", "free"),
}
_NAMES = "|".join(sorted((f.replace("-", "[-_]") for f in FLAGS), key=len, reverse=True))
# --flag=0.95, --flag 0.95, flag=0.95 (a Python keyword), flag: 0.95 (YAML), "flag": 0.95 (JSON), and vLLM's own
# log of it: "total_gpu_memory (8.00GiB) x gpu_memory_utilization (0.70) = 5.60GiB"
SET = re.compile(rf"(?<![\w-])(?:--)?[\"']?(?P<flag>{_NAMES})[\"']?\s*(?:=|:|\s|\()\s*[\"']?(?P<value>[-+]?\d*\.?\d+)"
                 r"(?!\.?\d)(?P<pct>\s*%)?", re.I)
# prose: "with 95 % (GPU) memory utilisation", "GPU memory utilization set to 0.95 / of 95%", "mem fraction 0.85"
_SHARE = r"(?:(?:gpu|vram)\s+)?(?:memory|mem)\s+(?:utili[sz]ation|fraction)"
_VALUE = r"(?P<value>\d*\.?\d+)(?P<pct>\s*%|\s*percent)?"
_VALUE2 = _VALUE.replace("value", "value2").replace("pct", "pct2")  # the same, where the name comes first
PROSE = re.compile(rf"\b(?:with|using|use|set(?:ting)?|(?:rais|lower|increas|reduc|decreas)\w*)\s+"
                   rf"(?:(?:the|a|an|our|its)\s+)?(?:{_VALUE}\s+{_SHARE}|{_SHARE}\s+(?:(?:is|was)\s+)?"
                   rf"(?:set\s+)?(?:to|of|at|=|:)?\s*{_VALUE2})(?!\.?\d)(?!\w)",
                   re.I)
# a figure read off a monitor ("nvidia-smi shows 95 % memory utilization"): what is in use, not what was set
OBSERVED = re.compile(r"\b(?:nvidia-smi|nvtop|gpustat|dcgm\w*|shows?|showing|reports?|reported|observ\w*|measur\w*|"
                      r"peak\w*|reach\w*|hits?|goes|went)\b", re.I)
NEGATED = re.compile(r"(?:\b(?:not|never|no|without|instead of|rather than)\b|n't)[\w\s,]{0,24}$", re.I)


def fraction(value: str, percent: bool) -> float | None:
    """The share as a fraction in (0, 1], or None: a percentage only where written as one."""
    try:
        x = float(value)
    except ValueError:
        return None
    if percent:
        x /= 100
    return x if 0 < x <= 1 else None


def stated(line: str) -> tuple[str, float, str] | None:
    """(flag, fraction, engine) the line sets, or None. The prose form's flag is "memory utilisation (prose)"
    and its engine None: the engine the ticket names decides what it is of."""
    for m in SET.finditer(line):
        if NEGATED.search(line[:m.start()]):
            continue
        x = fraction(m.group("value"), bool(m.group("pct")))
        if x is not None:
            flag = m.group("flag").replace("_", "-").lower()
            return flag, x, FLAGS[flag][0]
    for m in PROSE.finditer(line):
        if NEGATED.search(line[:m.start()]) or OBSERVED.search(line[:m.start()]):
            continue
        value, pct = (m.group("value"), m.group("pct")) if m.group("value") else (m.group("value2"), m.group("pct2"))
        x = fraction(value, bool(pct))
        if x is not None:
            return "memory utilisation (prose)", x, None
    return None

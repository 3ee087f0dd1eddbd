"""Issue 11 (session s31, pass bydesign31): behaviour the tools and engines document as how they work, which reporters
take for faults, answered from rules/catalog/by_design.toml by ticket.documented_behaviour.

Each row is tested on two paraphrases written apart (different words for the same observation), on the real first
posts kept in tests/data/bydesign31 (threads and settled answers in its SOURCES.md), on negations (the observation
ruled out) and on near-misses, a fault that reads alike, which must neither fire the row nor be answered `healthy`.
"""

import re
from pathlib import Path

import pytest

from benchmarks.regex_worst_case import runaway_repeats
from diagnose.bundle import read_bundle
from rules import catalog
from rules.engine import evaluate, ticket_verdict

DATA = Path(__file__).parent / "data" / "bydesign31"
ROWS = {row["key"]: row for row in catalog.documented_behaviours()}


def answer(path: Path):
    facts = read_bundle([path])
    findings = evaluate(facts)
    return ticket_verdict(facts, findings), findings


def said(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text)
    return answer(tmp_path / "issue.md")


def documented(findings) -> str | None:
    """The catalog key of the documented behaviour found, or None."""
    titles = {row["title"]: key for key, row in ROWS.items()}
    return next((titles[f.title] for f in findings if f.rule == "ticket.documented_behaviour"), None)


def test_every_row_names_its_documentation_and_compiles():
    assert len(ROWS) >= 6
    for row in ROWS.values():
        assert row["url"].startswith("https://")
        assert row.get("unless"), row["key"]  # a fault in sight keeps every row out
        for pattern in [row["sees"], row["unless"], *row.get("context", [])]:
            re.compile(pattern)


@pytest.mark.parametrize("key", sorted(ROWS))
def test_every_row_stays_bounded_on_long_lines(key):
    """Bounded patterns: no pattern of a row chains unbounded repeats that a long run of blanks, letters or digits
    alone can take, nor nests one in another (benchmarks/regex_worst_case.py times them on such lines)."""
    row = ROWS[key]
    patterns = [row["sees"], row["unless"], *row.get("context", [])]
    patterns += [row[k] for k in ("fault_in", "explains_failure") if row.get(k)]
    for pattern in patterns:
        assert runaway_repeats(pattern, re.I) == [], (key, pattern[:40])


PARAPHRASES = [
    # (row, wording A, wording B): two descriptions of the same documented behaviour, in different words
    ("caching_allocator",
     "# nvidia-smi still shows memory used after del\n\nI run a PyTorch script on an RTX 3090. After I delete the "
     "model and the tensors with del and call gc.collect(), nvidia-smi still shows 18 GB of GPU memory used by my "
     "Python process. Is this a memory leak?",
     "# VRAM not given back\n\nOnce my transformers pipeline has finished on the A100 and I dropped every reference to "
     "its outputs, the memory reported for the process did not go down at all. Why does torch keep it?"),
    ("unsupported_fields",
     "# nvidia-smi shows N/A for many fields\n\nOn my GeForce RTX 3080 nvidia-smi prints N/A in the Volatile Uncorr. "
     "ECC column and under MIG M. Is my driver installation broken?",
     "# Not Supported in nvidia-smi\n\nnvidia-smi -q on our two RTX 4090 reports [Not Supported] for the fan speed and "
     "the power readings of the processes. Do I need to enable something?"),
    ("container_pids",
     "# nvidia-smi shows no processes inside docker\n\nInside my container nvidia-smi shows the GPU memory being used "
     "(40GB) but the process list says 'No running processes found'. The model is clearly generating. Bug?",
     "# Can't see the PID in the pod\n\nvLLM serves fine on an A100 in our Kubernetes pod and the memory is in use, "
     "yet I cannot see the process in the Processes table of nvidia-smi."),
    ("mmap_page_cache",
     "# llama.cpp buff/cache grows instead of RSS\n\nWith llama.cpp the memory taken by the model appears as "
     "buff/cache in free -h rather than as used memory of the process. Is the model not loaded properly?",
     "# Task manager shows tiny memory use\n\nRunning a 13B GGUF with llama-server on the CPU, the RSS of the process "
     "is only about 1 GB although the file is 7 GB. Is it really in RAM?"),
    ("ollama_keep_alive",
     "# Ollama keeps model in VRAM after request\n\nAfter my request to Ollama finishes, the model stays in GPU memory "
     "for about 5 minutes and then the memory is freed. Is this normal?",
     "# ollama unloads my model\n\nWhen I leave Ollama idle for a while it unloads the model after a few minutes, and "
     "the next prompt waits for it to load again. Can this be changed?"),
    ("idle_clocks",
     "# GPU clock lower than boost when idle\n\nnvidia-smi -q -d CLOCK shows my A100 at 210 MHz graphics clock when "
     "idle instead of the 1410 MHz max. Is the card throttled?",
     "# Memory clock very low\n\nWith nothing running, our L40S reports 405 MHz memory clock in nvidia-smi, far below "
     "the spec sheet. Should we worry?"),
]


@pytest.mark.parametrize("key,a,b", PARAPHRASES, ids=[p[0] for p in PARAPHRASES])
def test_both_wordings_are_answered_healthy_by_the_documented_row(tmp_path, key, a, b):
    for text in (a, b):
        verdict, findings = said(tmp_path, text)
        assert documented(findings) == key, text
        assert verdict.category == "healthy", text


REAL = [
    # (paste, row): real first posts whose settled answer is the documented behaviour (tests/data/bydesign31)
    ("lightning12117.md", "caching_allocator"),
    ("llamacpp3265.md", "mmap_page_cache"),
    ("ollama5111.md", "mmap_page_cache"),
    ("ollama5406.md", "ollama_keep_alive"),
    ("ollama8660.md", "ollama_keep_alive"),
]


@pytest.mark.parametrize("name,key", REAL, ids=[r[0] for r in REAL])
def test_real_threads_are_answered_by_their_documented_behaviour(name, key):
    verdict, findings = answer(DATA / name)
    assert documented(findings) == key
    assert verdict.category == "healthy"


NEGATIONS = [
    "# memory freed fine\n\nWith PyTorch, after del model and torch.cuda.empty_cache() the memory in nvidia-smi goes "
    "down to 300 MiB as it should. Just sharing.",
    "# nvidia-smi works\n\nnvidia-smi shows every field on our A100s, ECC and MIG are reported normally. The problem "
    "is elsewhere: all_reduce hangs at 8 GPUs.",
    "# process list fine\n\nInside the container nvidia-smi lists our python process with 20 GB. Generation hangs "
    "after the first request.",
    "# Ollama\n\nOllama unloads the model right away as I set keep_alive 0, and that is what I want. My question is "
    "about the tokenizer.",
    # a condition, not an observation
    "# q\n\nIf nvidia-smi ever shows No running processes found inside the container, is the model still on the GPU?",
    "# clocks fine\n\nMy GPU clocks are at 1980 MHz under load, which is fine; only the all_reduce at 4 GPUs is slow: "
    "8 GB/s busbw.",
]


@pytest.mark.parametrize("text", NEGATIONS)
def test_the_observation_ruled_out_fires_no_row(tmp_path, text):
    assert documented(said(tmp_path, text)[1]) is None


NEAR_MISSES = [
    # a leak that grows, ending out of memory
    "# GPU memory leak in training loop\n\nMy PyTorch training on an RTX 3090 keeps growing in memory: nvidia-smi "
    "shows memory is not released and it increases with each epoch until CUDA out of memory.",
    # memory held after the process died: an orphaned process, not the allocator's cache
    "# memory stuck after crash\n\nMy PyTorch script crashed and nvidia-smi still shows 11 GB used on GPU 0 after I "
    "deleted everything; the memory is not released until reboot.",
    # a regression: it used to be otherwise
    "# memory not freed after update\n\nSince upgrading to torch 2.3, the memory is not released after del model; "
    "with torch 2.1 nvidia-smi went back to 1 GB.",
    # nvidia-smi's error marks, not N/A alone
    "# nvidia-smi shows ERR!\n\nnvidia-smi shows ERR! for the fan and power on GPU 3 and N/A for the memory usage, and "
    "the job on that GPU crashes with Xid 79.",
    # the job runs on the CPU: no process and no memory on the GPU
    "# no process in nvidia-smi and slow\n\nInside docker nvidia-smi says No running processes found and shows 0MiB "
    "used; generation runs on the CPU and is very slow.",
    # a memory-mapped model that swaps
    "# llama.cpp swapping\n\nllama-server with a 70B GGUF: the RES in top is only 2 GB, the rest is in buff/cache, "
    "and the machine is swapping and generation is slow at 0.5 tok/s.",
    # a keep-alive setting ignored
    "# ollama unloads despite keep_alive\n\nEven though I set OLLAMA_KEEP_ALIVE=-1, Ollama unloads the model after 5 "
    "minutes and the next request reloads it.",
    # reloading on every request is not the idle timeout
    "# ollama reloads\n\nOllama unloads the model after each request and loads it again, the GPU memory is freed "
    "after every prompt.",
    # a GPU idle while the job runs: the host starves it
    "# GPU idle\n\nThe GPU sits idle at 300 MHz while the job runs on our A100, the utilisation is 0 % most of the "
    "time.",
    # low clocks under load
    "# clocks low under load\n\nDuring training my A100 stays at 210 MHz graphics clock while idle clocks are normal; "
    "nvidia-smi shows HW Slowdown active.",
]


@pytest.mark.parametrize("text", NEAR_MISSES)
def test_a_fault_that_reads_alike_is_not_answered_by_design(tmp_path, text):
    verdict, findings = said(tmp_path, text)
    assert documented(findings) is None


def test_a_model_partly_on_the_cpu_is_not_the_page_cache(tmp_path):
    """u17a04 (development): Ollama with a 32B model on a 12 GB card, GPU 1-3 % and CPU 70 % in Task Manager; the answer
    is the layers left on the CPU, not memory mapping. The GPU's share in Task Manager is no memory reading."""
    from rules.documented_behaviour import documented_behaviour_seen
    from tests.test_ticket_questions import development_case

    assert documented_behaviour_seen(development_case(tmp_path, "u17a04")) is None

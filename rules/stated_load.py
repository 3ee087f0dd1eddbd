"""The load a figure was measured at, as a ticket states it: one reader of "batch 8", "8 concurrent users",
"--max-num-seqs 32", "-np 4" and a benchmark's prompts sent at once, so that the rules that judge a figure
(rules.ticket_figures, rules.ticket_rules) and the words that name its batch (batch_words) cannot disagree.
It sits below both: it reads facts only and predicts nothing."""

from __future__ import annotations

import typing

from diagnose.evidence import Facts, Measurement, Workload
from rules.common import engine_of, wfield

# Without a stated concurrency, the batch a serving engine decodes at full load: vLLM's default
# --max-num-seqs is 256 (https://docs.vllm.ai/en/latest/serving/engine_args.html), halved while the KV
# cache cannot hold it.
FULL_LOAD_BATCHES = (256, 128, 64, 32)

# The engine flags that cap the sequences decoded together (vLLM --max-num-seqs, TensorRT-LLM and LMDeploy
# --max-batch-size: https://docs.vllm.ai/en/latest/serving/engine_args.html,
# https://nvidia.github.io/TensorRT-LLM/performance/performance-tuning-guide/tuning-max-batch-size-and-max-num-tokens.html):
# more requests in flight than that only queue.
# So do a server's slots: llama-server -np / --parallel and Ollama's OLLAMA_NUM_PARALLEL (the flag read is kept
# beside the count: diagnose.artifacts.launch), and TGI's --max-concurrent-requests, past which it refuses requests
# (https://huggingface.co/docs/text-generation-inference/reference/launcher).
BATCH_CAPS = (("max_num_seqs", "--max-num-seqs"), ("max_batch_size", "--max-batch-size"), ("parallel", "--parallel"),
              ("max_concurrent_requests", "--max-concurrent-requests"))


def engine_batch_cap(facts: Facts) -> tuple[int, str, str] | None:
    """(sequences, source, flag) of the smallest batch cap a launch line sets, or None."""
    caps = []
    for w in facts.of(Workload):
        for key, flag in BATCH_CAPS:
            value = str(w.extra.get(key) or "")
            if value.isdigit() and int(value) > 0:
                caps.append((int(value), w.source, str(w.extra.get(f"{key}_flag") or flag)))
    return min(caps, default=None)


def one_load(facts: Facts) -> int | None:
    """The concurrency the ticket states, when every statement of it agrees ("--max-concurrency 8" in one command and
    32 in another leave a figure's own load unknown)."""
    loads = {w.concurrency for w in facts.of(Workload) if w.concurrency}
    return loads.pop() if len(loads) == 1 else None


# The programs that run one sequence at a time by their own documentation (diagnose.artifacts.issue_md PROGRAMS reads
# which ran), with the engine profile each runs on (Ollama runs llama.cpp; text-generation-webui any of its loaders):
# llama-bench's pp/tg tests (https://github.com/ggml-org/llama.cpp/tree/master/tools/llama-bench; its -b and -ub chunk
# the prompt, they are no requests), llama-cli (tools/main README: one prompt), `ollama run` (one chat,
# https://github.com/ollama/ollama/blob/main/docs/cli.md) and text-generation-webui's per-request timing line. Where
# the ticket also launches a server of its own (a serving engine's layout, or llama-server / Ollama slots above one:
# diagnose.artifacts.launch), or its engine is another ("ollama run is fast, vLLM is slow"), the figures may be that
# engine's under a load nobody states, so none is implied.
ONE_SEQUENCE = {"llama-bench": ("llama-bench runs one sequence per test", "llamacpp"),
                "llama-cli": ("llama-cli runs one prompt, one sequence", "llamacpp"),
                "ollama run": ("`ollama run` sends one request at a time", "llamacpp"),
                "text-generation-webui": ("text-generation-webui's timing line is one request's", None),
                # (gpt-fast's generate.py and torchchat's generate: --batch_size 1 by default, one prompt)
                "gpt-fast generate.py": ("gpt-fast's generate.py (torchchat's generate, its descendant) decodes one "
                                         "prompt at its default --batch_size 1", None),
                # (a script's one generation call on one prompt string: diagnose.artifacts.issue_md _one_prompt_call)
                "one prompt string": ("the script's generation call gets one prompt string", None)}


def program_load(facts: Facts) -> tuple[int, str] | None:
    """(1, how it is known) where the ticket's figures come from a program that runs one sequence by its documentation
    (ONE_SEQUENCE) on the ticket's engine and no server of its own is launched beside it; None otherwise. A default:
    any batch or load the ticket states comes first (load_for)."""
    records = facts.of(Workload)
    if any(w.extra.get("server_layout") or int(w.extra.get("parallel") or 0) > 1 for w in records):
        return None
    engine = engine_of(facts)
    for w in records:
        words, runs_on = ONE_SEQUENCE.get(w.extra.get("program"), (None, None))
        if words and (engine is None or runs_on in (None, engine)):
            return 1, f"{words} ({w.source})"
    return None


class Load(typing.NamedTuple):
    """The sequences a figure was decoded with: `n` (at most the engine's batch cap), how it is known, whether it was
    stated as a batch ("batch": the figure is one stream's at it, or their total), as requests in flight
    ("concurrency"), or is the engine's cap standing in for a full load ("full load"), and the cap that lowered it."""

    n: int
    how: str
    kind: str
    cap: tuple[int, str, str] | None = None


def load_for(facts: Facts, m: Measurement | None = None, full_load: bool = False, sent: bool = False) -> Load | None:
    """The one load a ticket, a capture or a scaling input prices a figure at: the figure's own batch, else its own
    concurrency, else the batch the ticket's layout states, else the one concurrency it states (one_load), at most
    the engine's batch cap (engine_batch_cap: more requests than that queue); with `full_load`, where none is stated,
    the cap itself (the batch a serving engine decodes at full load: --max-num-seqs); with `sent`, after the stated
    ones, the prompts an offline benchmark sends at once (sent_at_once: all of them in flight). None where nothing
    states one. Every rule that picks a batch for a figure calls this, so one ticket is never priced at two loads."""
    batch, batch_src = wfield(facts, "batch")
    prompts = sent_at_once(facts, least=2) if sent else None
    stated = [(m.batch if m else None, "the figure's batch", "batch"),
              (m.concurrency if m else None, "stated with the figure", "concurrency"),
              (batch, f"the batch the ticket states ({batch_src})", "batch"),
              (one_load(facts), "the concurrency the ticket states", "concurrency"),
              (prompts and prompts[0], prompts and f"{prompts[0]} prompts sent at once, no request rate or cap",
               "concurrency"),
              (*(program_load(facts) or (None, None)), "batch")]
    n, how, kind = next(((n, how, kind) for n, how, kind in stated if n), (None, None, None))
    cap = engine_batch_cap(facts)
    if n is None:
        return Load(cap[0], f"the engine's {cap[2]} {cap[0]} ({cap[1]}; full load: none stated)", "full load", cap) \
            if full_load and cap else None
    if cap and cap[0] < n:
        return Load(cap[0], f"{how} {n}; the engine's {cap[2]} {cap[0]} ({cap[1]}) decodes at most that many "
                    "together", kind, cap)
    return Load(n, how, kind)


def stated_batch(facts: Facts, m: Measurement) -> int | None:
    """The batch a rate was stated at (load_for's, where it is a batch: on the figure, else in the ticket's layout, at
    most the engine's cap), or None."""
    load = load_for(facts, m)
    return load.n if load is not None and load.kind == "batch" else None


def any_load(facts: Facts, m: Measurement) -> bool:
    """Does anything state a batch or a concurrency for `m` (its own, or the ticket's), agreeing or not?"""
    return bool(stated_batch(facts, m) or m.concurrency or wfield(facts, "concurrency")[0])


def _uncapped(facts: Facts) -> bool:
    """No request rate (or rate inf) and no concurrency cap stated: a benchmark's prompts all go in at once."""
    rate = str(facts.workload().extra.get("request_rate") or "inf").strip().lower()
    return rate in ("inf", "infinity") and not wfield(facts, "concurrency")[0]


def sent_at_once(facts: Facts, least: int = max(FULL_LOAD_BATCHES)) -> tuple[int, str] | None:
    """(requests, source) of an offline benchmark that sends all its prompts at once: a prompt count stated with no
    request rate (or rate inf) and no concurrency cap (trtllm-bench throughput; vLLM's benchmarks default to rate
    inf, https://docs.vllm.ai/en/stable/cli/bench/serve.html). At least the largest full-load batch, it keeps the
    engine's batch full: the rate is a full load's; `least` asks for fewer."""
    if not _uncapped(facts):
        return None
    for w in facts.of(Workload):
        n = str(w.extra.get("num_prompts") or "")
        if n.isdigit() and int(n) >= least:
            return int(n), w.source
    return None


def offline_full_load(facts: Facts) -> tuple[str, str] | None:
    """(benchmark, source) of an offline throughput benchmark the ticket ran (diagnose.artifacts.launch OFFLINE_BENCH:
    trtllm-bench throughput, vLLM's benchmark_throughput) with no concurrency cap or request rate: it queues its whole
    prompt set at once, so its total rate is a full load's, whether or not the prompt count is stated."""
    if not _uncapped(facts):
        return None
    return next(((w.extra["offline_bench"], w.source) for w in facts.of(Workload) if w.extra.get("offline_bench")),
                None)


def stated_load(facts: Facts, m: Measurement) -> tuple[int, str] | None:
    """(requests decoding together, how it is known) for a figure with no batch of its own where the ticket states a
    load above one: load_for's concurrency (the figure's own, the ticket's one, or the prompts a benchmark sent at
    once: no request rate, no cap, all of them in flight), at most the engine's batch cap. None where a batch is
    stated (the figure is priced at it) or no load above one is."""
    load = load_for(facts, m, sent=True)
    if load is None or load.kind != "concurrency" or load.n < 2:
        return None
    return load.n, load.how


def batch_words(facts: Facts, m: Measurement) -> tuple[str, bool]:
    """(words, assumed) for the batch a figure is judged at: its own, a ticket-wide one, the reporter's "one request at
    a time" quoted, or batch 1 assumed because nothing states a load. An assumed batch does not cut confidence: 0.05
    off an inside-band answer let a layout's prior (p2p_disabled, tests/test_ticket_by_design.py) outrank a fit."""
    priced = load_for(facts, m)
    if priced is not None and priced.kind == "batch":
        capped = f" ({priced.how})" if priced.cap else ""
        # (with no batch stated, a batch load is program_load's, and load_for already says how: no second call)
        # (a program's or a script's one sequence is implied by what ran, never written: the evidence says so)
        said = "" if m.batch else " (stated)" if wfield(facts, "batch")[0] else f" ({priced.how}: implied, not stated)"
        return f"batch {priced.n}" + (capped or said), False
    load = stated_load(facts, m)
    if load:  # a load stated, but not that the figure is one stream's at it
        return (f"batch 1 (assumed: {load[0]} requests in flight stated: {load[1]}; the figure not said to be one "
                "stream's)"), True
    if (m.concurrency or wfield(facts, "concurrency")[0] or 0) > 1:  # stated, but capped at one or in conflict
        return "batch 1 (assumed: the loads stated disagree or the engine decodes one request at a time)", True
    said = next((w.extra["load_stated"] for w in facts.of(Workload) if w.extra.get("load_stated")), None)
    if said:
        return f"batch 1 (stated: '{said}')", False
    return "batch 1 (assumed: none stated)", True

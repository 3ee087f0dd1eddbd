"""The load a figure was measured at, as a ticket states it: one reader of "batch 8", "8 concurrent users",
"--max-num-seqs 32", "-np 4" and a benchmark's prompts sent at once, so that the rules that judge a figure
(rules.ticket_figures, rules.ticket_rules) and the words that name its batch (batch_words) cannot disagree.
It sits below both: it reads facts only and predicts nothing."""

from __future__ import annotations

from diagnose.evidence import Facts, Measurement, Workload
from rules.common import wfield

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


def stated_batch(facts: Facts, m: Measurement) -> int | None:
    """The batch a rate was stated at (on the figure, else in the ticket's layout), or None."""
    return m.batch or wfield(facts, "batch")[0]


def any_load(facts: Facts, m: Measurement) -> bool:
    """Does anything state a batch or a concurrency for `m` (its own, or the ticket's), agreeing or not?"""
    return bool(stated_batch(facts, m) or m.concurrency or wfield(facts, "concurrency")[0])


def sent_at_once(facts: Facts, least: int = max(FULL_LOAD_BATCHES)) -> tuple[int, str] | None:
    """(requests, source) of an offline benchmark that sends all its prompts at once: a prompt count stated with no
    request rate (or rate inf) and no concurrency cap (trtllm-bench throughput; vLLM's benchmarks default to rate
    inf, https://docs.vllm.ai/en/stable/cli/bench/serve.html). At least the largest full-load batch, it keeps the
    engine's batch full: the rate is a full load's; `least` asks for fewer."""
    rate = str(facts.workload().extra.get("request_rate") or "inf").strip().lower()
    if rate not in ("inf", "infinity") or wfield(facts, "concurrency")[0]:
        return None
    for w in facts.of(Workload):
        n = str(w.extra.get("num_prompts") or "")
        if n.isdigit() and int(n) >= least:
            return int(n), w.source
    return None


def stated_load(facts: Facts, m: Measurement) -> tuple[int, str] | None:
    """(requests decoding together, how it is known) for a figure with no batch of its own where the ticket states a
    load above one: the figure's own, the ticket's one concurrency, or the prompts a benchmark sent at once (no request
    rate, no cap: all of them in flight); at most the engine's batch cap. None where none above one is stated."""
    if stated_batch(facts, m):
        return None
    n, how = m.concurrency, "stated with the figure"
    if not n and (n := one_load(facts)):
        how = "the concurrency the ticket states"
    if not n and (sent := sent_at_once(facts, least=2)):
        n, how = sent[0], f"{sent[0]} prompts sent at once, no request rate or cap"
    if not n or n < 2:
        return None
    cap = engine_batch_cap(facts)
    if cap and cap[0] < n:
        return (cap[0], f"{how}; the engine's {cap[2]} {cap[0]} decodes that many together at most") if cap[0] > 1 \
            else None
    return n, how


def batch_words(facts: Facts, m: Measurement) -> tuple[str, bool]:
    """(words, assumed) for the batch a figure is judged at: its own, a ticket-wide one, the reporter's "one request at
    a time" quoted, or batch 1 assumed because nothing states a load. An assumed batch does not cut confidence: 0.05
    off an inside-band answer let a layout's prior (p2p_disabled, tests/test_ticket_by_design.py) outrank a fit."""
    if m.batch:
        return f"batch {m.batch}", False
    batch, _ = wfield(facts, "batch")
    if batch:
        return f"batch {batch} (stated)", False
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

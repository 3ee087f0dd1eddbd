"""The engine's own log says it evicted running requests because the KV cache was full.

vLLM preempts a running request when the next step's KV blocks do not fit, frees its cache and recomputes (or
swaps) it later; its scheduler warns "... is preempted by PreemptionMode.RECOMPUTE mode because there is not enough
KV cache space. This can affect the end-to-end performance." SGLang retracts decoding requests back to the queue
("KV cache pool is full. Retract requests."). Either way the work done for those requests is done again and the rest
wait: a slow run for an engine setting, not for the GPUs or their links, with the fix the engines document
(https://docs.vllm.ai/en/latest/configuration/optimization.html, Preemption;
https://docs.sglang.ai/advanced_features/hyperparameter_tuning.html). SGLang's guide: "If you see `KV cache pool is
full. Retract requests.` occasionally but not frequently (~1 time per minute), it is okay." So the rate decides, not the
count: retraction events per minute over the span their stamps cover (n events bound n - 1 intervals), a finding
above one a minute; one event, or lines without stamps, give no rate and no finding. vLLM's docs ask for action "If
you frequently encounter preemptions" and print the warning with a counter of 1 as what one preemption looks like, so a
counter of 1 is no finding either. vLLM V0 warns only at the 1st, 51st, 101st ... preemption, so its counter, not the
warnings, says how many: a second warning is already the 51st.
"""

from __future__ import annotations

from diagnose.evidence import EngineLoad, Facts
from rules import claims
from rules.common import ev, make
from rules.engine import rule

VLLM_PREEMPTION = "https://docs.vllm.ai/en/latest/configuration/optimization.html"
SGLANG_TUNING = "https://docs.sglang.ai/advanced_features/hyperparameter_tuning.html"
# evictions the engines' guides count as more than occasional: SGLang's retractions at more than "~1 time per minute"
# (its tuning guide), vLLM's cumulative preemptions (more than the one its docs show as an example)
FINE_RETRACTIONS_PER_MINUTE = 1.0
FREQUENT_PREEMPTIONS = 2
FIX = {
    "vllm": "Give the KV cache more room or ask less of it: raise gpu_memory_utilization (e.g. 0.9 -> 0.95) when "
            "nothing else shares the GPUs, lower max_num_seqs or max_num_batched_tokens, lower max_model_len to what "
            "the requests need, or raise tensor_parallel_size (or pipeline_parallel_size) so each GPU holds less of "
            "the weights; the preemption count should stop growing.",
    "sglang": "Give the KV cache more room or admit fewer requests: raise --mem-fraction-static, lower "
              "--max-running-requests, raise --schedule-conservativeness (e.g. 1.3) so the scheduler does not admit "
              "what it must retract later, or a larger --tp-size; retractions should become rare (about one a "
              "minute is fine).",
}


def retraction_rate(r: EngineLoad) -> float | None:
    """SGLang's retraction events per minute over the span their stamps cover: n events bound n - 1 intervals, and
    stamps in whole seconds make a span under a second one second. None for fewer than two events or no stamps."""
    if r.retractions < 2 or r.retraction_span_s is None:
        return None
    return round((r.retractions - 1) * 60.0 / max(r.retraction_span_s, 1.0), 2)


def _evicting(facts: Facts) -> list[EngineLoad]:
    """Engine logs that report evictions for want of KV room, as often as the engine's guide calls a problem."""
    return [r for r in facts.of(EngineLoad)
            if r.preemptions >= FREQUENT_PREEMPTIONS or (retraction_rate(r) or 0.0) > FINE_RETRACTIONS_PER_MINUTE]


@rule("ticket.kv_preemption", "other")
def kv_preemption(facts: Facts, predictions=None):
    """A pasted vLLM or SGLang log in which the engine preempts (vLLM) or retracts (SGLang, more than occasionally)
    running requests because the KV cache is full: recomputed work and waiting requests, an engine setting to fix
    before any GPU or link is blamed. Not for a hang or a crash, which evictions do not explain."""
    found = _evicting(facts)
    if not found or claims.symptom(facts) in ("hang", "crash"):
        return
    r = max(found, key=lambda x: (x.preemptions, x.retractions))
    if r.engine == "vllm":
        what, count = ("preempted requests (the V0 warning's cumulative count, or the V1 stats lines' "
                       "Preemptions summed)"), r.preemptions
    else:
        what, count = "retraction events (the TP ranks' copies of one counted once)", r.retractions
    evidence = [ev(r, f'{what}: "{r.quote}"', count)]
    if r.engine == "sglang":
        evidence.append(ev(r, f"retraction events per minute over the {r.retraction_span_s:g} s their stamps span "
                              f"({count} events, {count - 1} intervals); SGLang's tuning guide calls about 1 a minute "
                              "fine", retraction_rate(r), FINE_RETRACTIONS_PER_MINUTE, unit="per minute"))
    if r.kv_usage_max_pct is not None:
        evidence.append(ev(r, f"fullest KV cache over the engine's {r.lines} stats lines", r.kv_usage_max_pct,
                           unit="%"))
    if r.queued_max:
        evidence.append(ev(r, "most requests waiting in the engine's queue", r.queued_max))
    name = "vLLM" if r.engine == "vllm" else "SGLang"
    yield make("ticket.kv_preemption", "other", "warning", 0.55,
               f"{name} evicts running requests because its KV cache is full ({count} "
               f"{'preemptions' if r.engine == 'vllm' else f'retraction events, {retraction_rate(r):g} a minute'})",
               f"The engine's own log says the KV cache could not hold the next step of every running request, so it "
               f"{'preempted' if r.engine == 'vllm' else 'retracted'} some and will compute them again while the rest "
               "wait. That costs end-to-end time whatever the GPUs and their links deliver; it is the engine's memory "
               "setting for this load.",
               evidence, fix=FIX[r.engine], refs=[VLLM_PREEMPTION if r.engine == "vllm" else SGLANG_TUNING])

"""The engine's own log says it evicted running requests because the KV cache was full.

vLLM preempts a running request when the next step's KV blocks do not fit, frees its cache and recomputes (or
swaps) it later; its scheduler warns "... is preempted by PreemptionMode.RECOMPUTE mode because there is not enough
KV cache space. This can affect the end-to-end performance." SGLang retracts decoding requests back to the queue
("KV cache pool is full. Retract requests."). Either way the work done for those requests is done again and the rest
wait: a slow run for an engine setting, not for the GPUs or their links, with the fix the engines document
(https://docs.vllm.ai/en/latest/configuration/optimization.html, Preemption;
https://docs.sglang.ai/advanced_features/hyperparameter_tuning.html). SGLang's guide calls a retraction about once a
minute fine, so one retraction event is no finding; vLLM's docs ask for action "If you frequently encounter
preemptions" and print the warning with a counter of 1 as what one preemption looks like, so a counter of 1 is no
finding either. vLLM V0 warns only at the 1st, 51st, 101st ... preemption, so its counter, not the warnings, says how
many: a second warning is already the 51st.
"""

from __future__ import annotations

from diagnose.evidence import EngineLoad, Facts
from rules import claims
from rules.common import ev, make
from rules.engine import rule

VLLM_PREEMPTION = "https://docs.vllm.ai/en/latest/configuration/optimization.html"
SGLANG_TUNING = "https://docs.sglang.ai/advanced_features/hyperparameter_tuning.html"
# evictions the engines' guides count as more than occasional: SGLang's retraction events (time stamps), vLLM's
# cumulative preemptions (more than the one its docs show as an example)
FREQUENT_RETRACTIONS = 2
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


def _evicting(facts: Facts) -> list[EngineLoad]:
    """Engine logs that report evictions for want of KV room, as often as the engine's guide calls a problem."""
    return [r for r in facts.of(EngineLoad)
            if r.preemptions >= FREQUENT_PREEMPTIONS or r.retractions >= FREQUENT_RETRACTIONS]


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
        what, count = "retraction events (one per time stamp over the TP ranks' copies)", r.retractions
    evidence = [ev(r, f'{what}: "{r.quote}"', count)]
    if r.kv_usage_max_pct is not None:
        evidence.append(ev(r, f"fullest KV cache over the engine's {r.lines} stats lines", r.kv_usage_max_pct,
                           unit="%"))
    if r.queued_max:
        evidence.append(ev(r, "most requests waiting in the engine's queue", r.queued_max))
    name = "vLLM" if r.engine == "vllm" else "SGLang"
    yield make("ticket.kv_preemption", "other", "warning", 0.55,
               f"{name} evicts running requests because its KV cache is full ({count} "
               f"{'preemptions' if r.engine == 'vllm' else 'retraction events'})",
               f"The engine's own log says the KV cache could not hold the next step of every running request, so it "
               f"{'preempted' if r.engine == 'vllm' else 'retracted'} some and will compute them again while the rest "
               "wait. That costs end-to-end time whatever the GPUs and their links deliver; it is the engine's memory "
               "setting for this load.",
               evidence, fix=FIX[r.engine], refs=[VLLM_PREEMPTION if r.engine == "vllm" else SGLANG_TUNING])

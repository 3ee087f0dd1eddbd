"""A serving layer in front of the engine that is slow where the engine alone is fast: the host, not the GPUs.

Proxies, gateways and serving frameworks put a host process between the client and the engine: LiteLLM's proxy
(its `x-litellm-overhead-duration-ms` header measures the time it adds, https://docs.litellm.ai/docs/proxy/
latency_overhead), Ray Serve LLM's router and streaming actors (its docs compare it with vLLM's own server,
https://docs.ray.io/en/latest/serve/llm/index.html), Triton's Python backend (which copies tensors between
processes through shared memory, https://github.com/triton-inference-server/python_backend), nginx, Envoy or a
cloud load balancer. When the same engine answers fast called directly and slow through the layer, the GPUs are
no slower: the time is the layer's CPU, its event loop or its queue.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.evidence import Facts
from rules import claims
from rules.common import claim_ev, make
from rules.engine import rule
from rules.ticket_rules import _first

# The layers by the names their documentation uses (not "router" alone: MoE models have routers too).
LAYER = (r"(?:\bLiteLLM(?:\s+proxy)?|(?<!NCCL )(?<!NCCL's )\b(?:reverse\s+)?proxy(?!\s+threads?\b)"
         r"(?:\s+(?:server|layer|pods?))?|\bAPI\s+gateway|\bgateway|\bload[- ]balancer|\bRay\s+Serve(?:\s+LLM)?|"
         r"\bserve\.llm\b|\bServe\s+LLM|\bnginx|\bEnvoy|\bKong|\b(?:Triton(?:'s)?\s+)?python[_ ]backend|\bBLS\b)")
# (NCCL's proxy threads are NCCL's own, not a serving layer)
# (para38b) the latency's rise in other verbs: "latency rises", "latency goes up", "TTFT climbs" (kept pastes:
# "latency increased", "TTFT explodes")
_SLOWER = (r"(?:slow(?:er|s|ed|down)?\b|(?:latency|TTFT)\s+(?:spike|increase|jump|grow|rise|rose|climb|soar|explod|"
           r"balloon|skyrocket)\w*|(?:latency|TTFT)\s+(?:goes|went|shoots|shot)\s+up\b|(?:higher|increased|extra|more|"
           r"additional)\s+(?:latency|TTFT|ITL|overhead|delay)|overhead\b|adds?\s+(?:~\s*)?(?:\d[\d.]*\s*(?:ms|s)\b|"
           r"latency|overhead|delay)|(?:lower|reduced|less)\s+(?:throughput|tok\w*/s)|(?:throughput|tok\w*/s)\s+"
           r"(?:drops?|decrease\w*|falls?)|\d[\d.]*\s*x\s+slower)")
_AB = r"[^.\n]{0,80}?"
_ENGINE = r"(?:vLLM|SGLang|TGI|Triton|TensorRT-LLM|engine|server|endpoint|backend|model)"
MORE_WORDS = {
    # the layer said to slow the requests: "requests through the LiteLLM proxy are much slower", "the proxy adds 5 s
    # to TTFT", "Additional Overhead in Ray Serve LLM", "latency spikes after introducing the proxy"
    "layer_slower": [LAYER + _AB + r"\b" + _SLOWER,
                     r"\b" + _SLOWER + r"[^.\n]{0,60}?\b(?:through|via|behind|with|in|using|introduc\w+|adding)\s+"
                     r"(?:the\s+|a\s+|our\s+)?" + LAYER],
    # the engine alone as the baseline: "calling vLLM directly", "direct vllm access", "bare vLLM", "without the
    # proxy", "bypassing LiteLLM", "straight to the vLLM server"
    "engine_direct": [
        r"\b(?:call\w*|access\w*|hit\w*|send\w*|query\w*|request\w*|benchmark\w*|test\w*|talk\w*|connect\w*)\s+"
        r"(?:to\s+)?(?:the\s+)?" + _ENGINE + r"(?:\s+server)?\s+directly\b",
        r"\bdirect(?:ly)?\s+(?:to\s+|against\s+|on\s+)?(?:the\s+)?" + _ENGINE + r"\b(?!\s*pointer)",
        r"\bbare\s+" + _ENGINE + r"\b", r"\bwithout\s+(?:the\s+|a\s+)?" + LAYER,
        r"\bbypass\w*\s+(?:the\s+)?" + LAYER, r"\bstraight\s+to\s+(?:the\s+)?" + _ENGINE + r"\b"],
}
claims._extend(MORE_WORDS, new_kinds=True)
# "adds no overhead", "no measurable delay", "the same latency either way": the layer compared and cleared
_NO_DIFFERENCE = re.compile(r"\bno\s+(?:\w+\s+)?(?:overhead|delay|latency|difference|slowdown)\b|"
                            r"\bsame\s+(?:latency|speed|throughput|TTFT|ITL|numbers|performance)\b", re.I)


@rule("ticket.serving_layer", "host_bound")
def serving_layer(facts: Facts, predictions=None):
    """The engine called directly is fast and the same requests through a proxy, gateway or serving framework are
    slow: the layer's host-side work is the difference."""
    said = [c for c in claims.find(facts, "layer_slower") if not c.guess and not _NO_DIFFERENCE.search(c.quote)]
    slower, direct = (said[0] if said else None), _first(facts, "engine_direct")
    if not slower or not direct:
        return  # a layer named without the engine alone beside it says nothing about where the time goes
    yield make("ticket.serving_layer", "host_bound", "warning", 0.65,
               "The layer in front of the engine adds the time, not the GPUs",
               "The reporter has the engine on its own as a baseline and the same requests through a proxy, gateway "
               "or serving framework slower. The GPUs run the same work either way; what the layer adds is host "
               "work (request parsing and re-encoding, an event loop, streaming between processes, a queue) that "
               "grows with the request rate.",
               [claim_ev(slower, "the layer said to slow the requests"),
                claim_ev(direct, "the engine alone, the baseline")],
               fix="Measure the layer's own share (LiteLLM's x-litellm-overhead-duration-ms header, Ray Serve's "
               "request metrics) and give it CPU: more proxy replicas or workers, streaming chunks batched, large "
               "payload inspection and debug logging off.")

"""GPUs waiting on whatever feeds them requests: the load generator, or one server process in front of copies.

Two readings of the reporter's words, both host-side (issue 11, ut29e):

- The load generator is the limit. A benchmark client is itself a program on a CPU: one process, or one thread with
  an async loop, sends requests no faster than it can build them and read the answers. Triton's perf_client "-a"
  "causes a single thread to attempt to drive the entire load and that will eventually be limited by that thread"
  (deadeyegoodwin, triton-inference-server/server#14). When more client processes raise the total, the GPUs were
  waiting on the client; the server's own counters (Triton metrics, vLLM's /metrics) show it.
- Copies that add nothing. Copies of a model on more GPUs (instances, replicas, data parallelism) share no
  collective, so each adds its throughput unless something in front of them does not grow: one server process, one
  client, the host. "the total throughput is similar" on two GPUs with "GPU utilization drops to ~50%", "circumvented
  by launching multiple trtserver instances" (triton-inference-server/server#269). Tensor parallelism said rules this
  out: sharded ranks wait on each other by design.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.evidence import Facts
from rules import claims
from rules.claims import Claim
from rules.common import claim_ev, make
from rules.engine import rule
from rules.gpus_in_use import layer_split_engine
from rules.ticket_rules import _copies_not_shards, _cpu_only, training_job

# A load generator by the names benchmark tools go by (Triton's perf_client / perf_analyzer / genai-perf, vLLM's and
# SGLang's bench_serving, locust, wrk), or the client named as such.
_CLIENT = (r"(?:perf_client|perf_analyzer|genai-perf|bench(?:mark)?_serving(?:\.py)?|locust|wrk|"
           r"(?:benchmark(?:ing)?|load[- ]?test(?:ing)?|load)\s+(?:script|tool|client|generator)|"
           r"(?:the\s+|my\s+|our\s+)?client(?:[- ]side)?)")
_CLIENT_WORDS = [
    # one client process against several: "I cannot max out my two GPUs using one instance of perf_client, but using
    # multiple instances I can" (triton-inference-server/server#14)
    r"\b(?:one|a\s+single|single|1)\s+(?:instance|process|copy)\s+of\s+(?:the\s+|my\s+|our\s+)?" + _CLIENT +
    r"[^.\n]{0,80}?\b(?:multiple|several|more|two|three|four|\d+)\s+(?:\w+\s+)?(?:instances|processes|copies|clients)\b",
    # the client named as the limit: "the client is the bottleneck", "bottleneck was on the client side"
    r"\b" + _CLIENT + r"\s+(?:is|was|became|seems\s+to\s+be|turned\s+out\s+to\s+be)\s+(?:the\s+|a\s+)?"
    r"(?:bottleneck|limiting\s+factor)\b",
    r"\bbottleneck\w*\s+(?:is|was)\s+(?:in\s+|on\s+|at\s+)?(?:the\s+)?client(?:[- ]side)?\b",
]
_CLIENT_RE = [re.compile(p, re.I) for p in _CLIENT_WORDS]
_RULED_OUT = re.compile(r"\bnot\b|n't\b|\bno\b|\bnever\b|\brul\w+ out\b", re.I)


def client_limits(facts: Facts) -> list[Claim]:
    """The reporter's sentences that put the limit in the load generator: one client process against several that
    reach more, or the client named as the bottleneck; a sentence that rules it out ("the client is not the
    bottleneck") does not count."""
    out: list[Claim] = []
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(claims.spaced(text)):
            for pattern in _CLIENT_RE:
                m = pattern.search(sentence)
                if m and not _RULED_OUT.search(m.group(0)) \
                        and not _RULED_OUT.search(sentence[max(0, m.start() - 20):m.start()]):
                    out.append(Claim("client_limits", source, claims._quote(sentence, m, 60)))
                    break
    return out


@rule("ticket.client_bound", "host_bound")
def client_bound(facts: Facts, predictions=None):
    """The reporter finds the load generator, not the server, sets the rate: the GPUs wait for requests."""
    said = client_limits(facts)
    if not said or _cpu_only(facts):
        return
    yield make("ticket.client_bound", "host_bound", "warning", 0.6,
               "The load generator sets the rate, not the GPUs",
               "A benchmark client is a program on a CPU too: one process (or one thread driving every request) "
               "builds, sends and reads requests no faster than that core allows, so the server sees less load "
               "than intended and its GPUs idle between requests. More client processes raising the total, with "
               "the same server, place the limit in the client.",
               [claim_ev(c, "the client compared or named as the limit") for c in said[:2]],
               fix="Drive the load from several client processes (or machines), or an async client without a "
               "per-request thread, and read the throughput from the server's own counters (Triton's metrics "
               "endpoint, vLLM's /metrics) rather than the client's; raise the concurrency until the server's "
               "figure stops growing.")


@rule("ticket.copies_flat", "host_bound")
def copies_flat(facts: Facts, predictions=None):
    """Copies of a model on more GPUs, with no tensor parallelism said, give the same total: what feeds them did not
    grow."""
    copies = _copies_not_shards(facts)
    flat = claims.more_gpus_no_gain(facts)
    if not copies or not flat or _cpu_only(facts):
        return
    if claims.find(facts, "layer_split") or layer_split_engine(facts):
        return  # a layer split passes each token through the GPUs in turn: more GPUs add memory, not speed
    if training_job(facts):
        return  # data-parallel training keeps each replica's steps per second and grows the global batch: "same it/s
        # with two H100 under DDP" is the expected scaling (tests/data/paraphrases t027), not a flat total
    yield make("ticket.copies_flat", "host_bound", "warning", 0.55,
               "More copies of the model, the same total: what feeds them is the limit",
               "Copies of a model on separate GPUs (instances, replicas, data parallelism) exchange nothing, so "
               "each adds its own throughput unless something they share does not grow with them: the one "
               "server process receiving and batching the requests, the client sending them, or the host's CPU. "
               "A total that stays where one GPU put it, with each GPU busy less, is that shared front end.",
               [claim_ev(copies, "the GPUs serve copies of the model, no tensor parallelism said"),
                claim_ev(flat[0], "more GPUs, the same total")],
               fix="Run the copies behind several server processes (one per GPU, load-balanced) and several client "
               "processes, and compare the total; watch the server process's CPU (top -H) while the GPUs idle.")

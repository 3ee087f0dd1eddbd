"""'Is this normal?': a question whose ticket shows nothing broken.

A support engineer answers a question about a figure or a behaviour from what the ticket shows.
When nothing in it points at a fault (no failure, no fault words, no platform or setting known for
trouble, and no check that finds one), the behaviour asked about is what the system does by design:
`healthy` when the reporter only asks, `expected_physics` when they hold it against a figure or
call it slow. That answer rests on the absence of evidence, so it stays a weak lead (0.45): any
check that finds a fault silences it, and so does the symptom's own prior, which says the same with
the layout's reasons (rules.engine.quiet_priors); one that measured the figure outweighs it.
"""

from __future__ import annotations

import re

from diagnose.evidence import CollectiveResult, Facts, Measurement, NcclEvent, NcclSetting, Note, PairBandwidth
from rules import build_arch, catalog, claims, hearsay, ticket_ratio
from rules.common import claim_ev, ev, gpu_count, make, passed
from rules.engine import FAILURES, rule, ticket_gaps
from rules.failure_words import failure_said
from rules.gpus_in_use import ONE_GPU_USED, one_gpu_in_use, sharding_asked
from rules.phase_times import phase_past_documented
from rules.reference_scaling import reference_shortfall
from rules.stated_load import engine_batch_cap, one_load
from rules.ticket_figures import asks_about_figures, training_job
from rules.ticket_numbers import EP_TRADE
from rules.ticket_ratio import tensor_rate

# NCCL switches that take a transport away or pin its path (NCCL's environment-variable documentation): a ticket
# that sets one is about what that path costs, not about normal behaviour. NCCL_IB_CUDA_SUPPORT is the name
# NCCL_NET_GDR_LEVEL had before NCCL 2.4 (GPUDirect RDMA on or off), still read by NCCL and still pasted
# ("when I set NCCL_IB_DISABLE=0 and NCCL_IB_CUDA_SUPPORT=1, the all_reduce_perf result is way worse",
# NVIDIA/nccl-tests#19); NCCL_NET_GDR_READ turns GPUDirect RDMA on for sends too. Only a *_DISABLE set to 0 leaves
# NCCL as it was; 0 in the others switches a path off (NCCL_IB_CUDA_SUPPORT=0, NCCL_NVLS_ENABLE=0, NCCL_NET_GDR_LEVEL=0
# is LOC), so it is a setting as much as 1 is (review28a: NVIDIA/nccl#133, nccl#1221).
_TRANSPORT_OFF = re.compile(r"^NCCL_(?:P2P_DISABLE|SHM_DISABLE|IB_DISABLE|NET_GDR_LEVEL|NET_GDR_READ|IB_CUDA_SUPPORT|"
                            r"P2P_LEVEL|NVLS_ENABLE|CUMEM_ENABLE)$")
# The weak answer's confidence: below every observed fault (rules.ticket_rules.OBSERVED, 0.65); the
# healthy form gets 0.05 more so that, with no gap left open, it reaches rules.engine.WEAK.
NOTHING_BROKEN = 0.45
# The reporter reports a problem in so many words ("I met the problem", "we hit an issue"): a fault
# report phrased around a question, not a question about normal behaviour.
_PROBLEM = re.compile(r"\b(?:met|meet|hit|hitting|have|having|had|encounter\w*|got|get|getting|see|seeing|fac\w+|"
                      r"ran into|run into|running into|there is|there's)\s+"
                      r"(?:the|a|an|this|that|some|same|similar)\s+(?:\w+\s+)?"
                      r"(?:problem|issue|bug|error)s?\b", re.I)


def fault_context(facts: Facts, excused: tuple[str, ...] = (), labels: bool = True) -> claims.Claim | None:
    """The first claim that points at a fault (observed or guessed: a suspect named is in sight too), or
    a transport the reporter switched off; None when the ticket names none. Ruled-out claims do not count, nor
    claims of the `excused` families (a caller that has explained that very observation as normal). `labels`: the
    reporter calling it a problem, issue, bug or error counts too; a caller that has matched the observation to
    documented behaviour passes False, since that label is the reporter's guess about the very thing explained."""
    found = claims.fault_claims(facts, excused)
    if found:
        return found[0]
    for source, text in claims.texts(facts) if labels else ():
        m = _PROBLEM.search(text)
        if m:
            return claims.Claim("problem", source, claims.one_line(text[max(0, m.start() - 40):m.end() + 40]))
    named = [(s.source, s.name, s.value) for s in facts.of(NcclSetting)]
    named += [(c.source, c.data["name"], c.data["value"]) for c in claims.find(facts, "setting")]
    for source, name, value in named:
        value = str(value).strip()
        if _TRANSPORT_OFF.match(name) and value and not (name.endswith("_DISABLE") and value == "0"):
            return claims.Claim("setting", source, f"{name}={value}")
    slower = reference_shortfall(facts)  # a job time past a reference scaled to these GPUs: beyond physics
    if slower:
        return claims.Claim("reference_shortfall", slower["source"], slower["quote"][0])
    return None


# A rate as benchmarks print it (ucx_perftest's MB/s, nccl-tests' GB/s, a NIC's Gb/s, an engine's tok/s).
_RATE = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:[KMGT]i?B/s|[MG]Bps|[KMGT]b/s|Gbps|tok(?:en)?s?/s|t/s|it/s|samples/s|"
                   r"req(?:uest)?s?/s|images?/s|img/s)(?![\w/])|\((?:[KMGT]i?B/s|GB/s|MB/s)\)", re.I)
# Words that make a rate a hope or a target, not a measurement ("I hope to get 5-6 t/s").
_HOPED = re.compile(r"\b(?:hop(?:e|ed|ing)|wish|want|aim\w*|target\w*|would like|expect\w*|should|planned|plan)\b",
                    re.I)
# Two durations in one sentence: an A/B of times ("vllm 240s, lightllm 252s") the checks cannot place.
_DURATION = re.compile(r"(?<![\w.])\d+(?:\.\d+)?\s*(?:ms|s|sec\w*|seconds?|minutes?|min)\b", re.I)
# A question about one value ("is this bandwidth value normal", "are these numbers right"): answering
# it needs the value and what it should be.
_VALUE_QUESTION = re.compile(r"\b(?:this|these|that|those|my|our|the)\s+(?:\w+\s+)?"
                             r"(?:values?|numbers?|figures?|results?|bandwidth|speed|throughput|latency|performance)\b"
                             r"[^.?\n]{0,40}?\b(?:normal|expected|right|correct|reasonable|ok(?:ay)?|good)\b", re.I)


def figures(facts: Facts) -> bool:
    """Does the ticket carry a measured rate (a benchmark's output, a rate in the reporter's words), or
    ask about one value it does not give? Whether that is normal is the figure checks' call: they
    compare it with the expected band, and where none can, nobody can call it normal without the
    missing context."""
    # (not a whole request's time said in words, "each inference takes 250 ms", "response time is 20 second", where
    # the ticket gives no output length or names no GPU: no check can place it, and one such duration never made a
    # figure here; ParlAI#4257 was answered normal before prose31 read its time)
    unplaced = facts.workload().output_len is None or facts.subject is None or facts.subject.gpu is None
    measured = facts.of(CollectiveResult) + facts.of(PairBandwidth) + [
        m for m in facts.of(Measurement) if not (m.metric == "e2e_latency_ms" and m.stat == "reported" and unplaced)]
    said = [f for f in claims.bandwidth_figures(facts) if not f.data["spec"]]
    printed = [n for n in facts.of(Note) if n.kind == claims.OUTPUT_KIND and n.text and _RATE.search(n.text)]
    printed += [s for _, t in claims.texts(facts) for s in claims.sentences(t)
                if (_RATE.search(s) and not _HOPED.search(s)) or len(_DURATION.findall(s)) >= 2
                or claims.work_duration_in(s)]
    asked = [t for _, t in claims.texts(facts) if _VALUE_QUESTION.search(t)]
    # a time measured and a published one in sentences of their own ("I get 338 ms. The documentation says 220 ms."):
    # an A/B the checks cannot place either
    timed = [s for _, t in claims.texts(facts) for s in claims.sentences(t) if _DURATION.search(s)]
    cited = len(timed) >= 2 and any(claims.reference_marked(s) for s in timed)
    return bool(measured or said or printed or asked or cited)


def tp_won_at_high_load(facts: Facts) -> bool:
    """(review36b) The sharded model said to beat its copies at high load (claims.sharding_beats_replicas'
    high_load), where the copies should win: neither physics nor 'normal', but the copies' own setup to look into.
    (risks37) High load is also any concurrency above the batch cap the ticket's launch line sets (--max-num-seqs,
    --max-batch-size, -np: stated_load.engine_batch_cap): the one sharded engine queues what it cannot batch, while n
    copies admit n times the cap, so past the cap queueing dominates the sharded side and the copies should win."""
    won = claims.sharding_beats_replicas(facts)
    if any(c.data["high_load"] for c in won):
        return True
    cap = engine_batch_cap(facts)
    load = [c.data["concurrency"] or one_load(facts) for c in won]
    return bool(cap and any(n and n > cap[0] for n in load))


def scaling_asked(facts: Facts) -> claims.Claim | None:
    """The reporter's question about a layout that grows without the speed following ("why does adding GPUs not
    speed up generation?", "why are replicas faster than one sharded model?", "why is PP faster than TP here?",
    "two instances or TP=2, which is better?"),
    when nothing in the ticket
    points at a fault and, for a plain "no faster", no figure is there for the figure checks to judge; None
    otherwise. Replicas beating a sharded model is the all-reduce's cost whatever the figures."""
    if not asks_about_figures(facts) or not claims.asks(facts):
        return None
    # (pairs36) eager mode slows the tensor-parallel side most (its launches wrap every all-reduce), so it cannot be
    # why that side came out ahead of the copies: no fault against a sharded model that won
    tp_won = claims.sharding_beats_replicas(facts)
    if fault_context(facts, ("eager_flag",) if tp_won else ()):
        return None
    if tp_won_at_high_load(facts):
        return None  # (review36b) copies should win at high load: the sharded model winning there is no physics
    # a choice asked is answered as one, before what the same sentence seems to say won
    found = [c for c in claims.layout_choice_asked(facts) if c.data["tp_named"] or (gpu_count(facts) or 0) >= 2] \
        or tp_won or claims.replicas_beat_sharding(facts) or _replicas_win_in_table(facts) \
        or claims.tp_pp_compared(facts) or claims.tp_ep_compared(facts)
    if found:
        return found[0]
    found = claims.more_gpus_no_gain(facts) or claims.layout_speed_asked(facts)
    if found and any(not c.guess for c in claims.find(facts, "multi_node")):
        # (risks37) more GPUs over more machines: the network path between them (sockets instead of InfiniBand or
        # RoCE, no GPUDirect RDMA: NCCL's troubleshooting guide) is the first unknown, not in-box physics; the asks
        # name it (as ticket.symptom_prior does since the s36 merge)
        return None
    return found[0] if found and not figures(facts) else None


def _replicas_win_in_table(facts: Facts) -> list[claims.Claim]:
    """A results table that sets layouts of the same GPUs side by side, copies of a smaller TP group against one
    wider group ("2 instances of TP4: 2x; 1 instance of TP8: 1.5x"), with the copies ahead: the comparison
    replicas_beat_sharding reads in sentences, read off the table's rows."""
    for n in facts.of(Note):
        if n.kind != "results_table":
            continue
        rows = [r for r in n.data.get("rows", []) if r.get("replicas") and r["kind"] == "rate"]
        for a in rows:
            for b in rows:
                if a["gpus"] == b["gpus"] and a["replicas"] > b["replicas"] and a["value"] > b["value"]:
                    file = n.source.rsplit(":", 1)[0]
                    return [claims.Claim("replicas_beat_sharding", f"{file}:{a['line']}",
                                         f"{a['label']}: {a['replicas']} x TP{a['tp']} gives {a['value']:g}, "
                                         f"{b['label']}: {b['replicas']} x TP{b['tp']} gives {b['value']:g} "
                                         f"on the same {a['gpus']} GPUs")]
    return []


# Why one stream does not decode faster on more GPUs: each token needs the previous one, decode reads every
# weight once per token (memory-bound), and a split adds transfers per token (NVIDIA, "Mastering LLM Techniques:
# Inference Optimization"; vLLM's distributed-serving guide).
INFERENCE_OPTIMIZATION = "https://developer.nvidia.com/blog/mastering-llm-techniques-inference-optimization/"


@rule("ticket.scaling_question", "expected_physics")
def scaling_question(facts: Facts, predictions=None):
    """'Why is it not faster on more GPUs?' (or, before measuring, 'will it be faster on two?') asked with nothing
    broken in sight: tensor, pipeline and layer
    splits give one stream little or nothing by design, and replicas beat a sharded model when it fits (the answer,
    too, to "replicas or TP, which should I pick?"), while one tensor-parallel model beats its copies at low
    concurrency (one request gets every GPU's bandwidth: "why does TP=2 beat 2x solo?"). A weak
    lead (it rests on the absence of a fault): any fault found, a figure check or the symptom's own prior,
    which knows the layout, outweighs it (rules.engine.quiet_priors). Silent where another vendor's accelerator is
    slow or does not scale (ticket.other_vendor: 'nothing broken' rests on checks made for NVIDIA's links)."""
    c = scaling_asked(facts)
    if c is None or claims.other_vendor_speed(facts):
        return
    question = claims.asks(facts)
    evidence = [ev(question.source, f'the reporter\'s question: "{question.quote}"'),
                claim_ev(c, "what they ask" if c.kind.startswith("layout_") else "what they see")]
    still = ticket_gaps(facts) if (gpu_count(facts) or 0) >= 2 else []
    attach = f" Attach {', '.join(still)} to rule a fault out." if still else ""
    title, why, fix = _SCALING_ANSWERS[c.kind]
    if c.kind == "tp_pp_compared":
        title = title[c.data["pp_wins"]]
    if c.kind == "tp_ep_compared":
        title = title[c.data["ep_wins"]]
    yield make("ticket.scaling_question", "expected_physics", "info", NOTHING_BROKEN, title, why + attach,
               evidence, fix=fix + attach, refs=["vllm_parallel", INFERENCE_OPTIMIZATION])


# The answer to each form of the scaling question: (title, why, fix); tp_pp_compared's title by whether PP won.
_SCALING_ANSWERS = {
    "tp_pp_compared": (
        ("Tensor parallelism is faster than a pipeline split for one request: by design",
         "A pipeline split gives more throughput than tensor parallelism here: by design"),
        "Tensor parallelism splits every layer and all-reduces its activations twice per layer, so each request's step "
        "is shorter but the links carry traffic at every layer; a pipeline split sends one activation per stage "
        "boundary, so it needs little bandwidth and keeps more requests in flight (more throughput over PCIe), but one "
        "request passes the stages one after another and gets no faster.",
        "Pick by the target: tensor parallelism inside an NVLink domain for latency, pipeline stages (or replicas) "
        "across slow links and for throughput (`diagnose plan` compares the layouts)."),
    "layout_choice_asked": (
        "Replicas or one tensor-parallel model: shard only as far as the model needs",
        "Tensor parallelism is for a model (and its KV cache) too large for one GPU: it all-reduces the activations "
        "twice per layer at every step, so it shortens one request's step but spends link time that replicas never "
        "pay. A model that fits one GPU serves more total throughput as one copy per GPU behind a load balancer, which "
        "scales with the copies; a wider group buys lower latency per request and room for more KV cache, at that "
        "communication cost (the less so with NVLink).",
        "Use the fewest GPUs per copy that hold the model and its KV cache, and serve the rest as replicas; compare "
        "the layouts with `diagnose plan` for this model and GPU."),
    "sharding_beats_replicas": (
        "One tensor-parallel model beats copies of it on the same GPUs at low concurrency: by design",
        "A decode step reads every weight once, so its time is set by memory bandwidth: a model sharded over N GPUs "
        "gives each request all N GPUs' bandwidth (less the all-reduces), while a copy serves each request on its own "
        "GPUs at one GPU's speed. Copies only pull ahead once each has enough requests in flight to fill its own batch "
        "(high concurrency), where they pay no all-reduce and hold more KV cache between them; below that the sharded "
        "model wins on per-request speed and on total throughput alike.",
        "Pick by the load: the sharded model for few concurrent requests and low latency, copies behind a load "
        "balancer (vLLM `--data-parallel-size`, SGLang `--dp`) once each copy stays busy; `diagnose plan` compares the "
        "layouts for this model and GPU."),
    "replicas_beat_sharding": (
        "Copies of a model that fits on fewer GPUs beat one model sharded over all of them: by design",
        "A sharded (tensor-parallel) model all-reduces its activations twice per layer for every step, over PCIe or "
        "NVLink, and each GPU runs smaller, less efficient kernels; replicas on fewer GPUs each do no such exchange "
        "and batch their own requests, so for throughput they win whenever the model fits (the more so without "
        "NVLink).",
        "Shard only as far as the model and its KV cache need; serve the rest as replicas behind a load balancer "
        "(`diagnose plan` compares the layouts)."),
}
_SCALING_ANSWERS["tp_ep_compared"] = EP_TRADE
_SCALING_ANSWERS["more_gpus_no_gain"] = _SCALING_ANSWERS["layout_speed_asked"] = (
    "More GPUs do not decode one stream much faster: each token waits for the one before it",
    "Generating a token reads every weight once and needs the previous token, so a single stream is bound by memory "
    "bandwidth and runs step after step. A layer or pipeline split runs the GPUs one after another (more memory, no "
    "speed); tensor parallelism divides the weight reads but adds two all-reduces per layer, whose fixed cost eats "
    "the gain for small or quantised models, single requests and GPUs without NVLink. More GPUs pay off in prompt "
    "processing and in throughput over many concurrent requests.",
    "Judge the figures against `diagnose predict --model M --gpu G --tp 1,2` for this model and batch; for one stream "
    "use the fewest GPUs that hold the model, and batch requests to use more GPUs.")


# What a figure counts, as its benchmark defines it (Measurement.scope, set by the parser that read the figure).
SCOPE_WORDS = {
    "aggregate": "every sequence in flight together (the whole batch or all concurrent requests, over every GPU of "
                 "the job), not per GPU and not per request",
    "per_stream": "one request's own rate or time, not the total over the requests in flight",
}


@rule("ticket.figure_meaning", "healthy")
def figure_meaning(facts: Facts, predictions=None):
    """'Does tokens_per_sec mean total tok/s or tok/s per GPU?': a question about what a figure counts, answered from
    the benchmark's own definition of it (the scope its parser records), where the ticket complains of nothing and
    shows no fault. The figure is not judged against physics: nothing asked that."""
    asked = claims.meaning_asked(facts)
    if asked is None or claims.complaint(facts) or fault_context(facts):
        return
    m = next((m for m in facts.of(Measurement) if m.scope in SCOPE_WORDS), None)
    if m is None:
        return  # a figure whose source does not define its scope: the reporter's own words decide nothing here
    yield passed("ticket.figure_meaning",
                 f"The figure asked about counts {m.scope.replace('_', ' ')}: {m.metric} {m.value:g} {m.unit or ''}"
                 .rstrip(),
                 f"The reporter asks what a benchmark figure counts, not whether it is good. As the tool that printed "
                 f"it defines it, {m.metric} is {SCOPE_WORDS[m.scope]}"
                 + (f" (batch {m.batch})" if m.batch else "") + ". Nothing in the ticket points at a fault.",
                 [claim_ev(asked, "the question"), ev(m.source, f"{m.metric} ({m.scope})", m.value, unit=m.unit)],
                 0.65)


def by_design_fault(facts: Facts) -> dict | None:
    """(risks37) The by_design.toml row whose `fault_in` the reporter's words match: the catalog knows the observation
    and says that in this setting it is a fault, not the documented behaviour (DCGM's profiling fields missing on an
    A100, a board the profiling module supports); None otherwise. A row's `unless` says only that the row does not
    apply (idle clocks said of a run under load), so it does not count here."""
    words = " ".join(t for _, t in claims.own_sentences(facts))
    return next((row for row in catalog.documented_behaviours()
                 if row.get("fault_in") and re.search(row["fault_in"], words, re.I)), None)


@rule("ticket.nothing_broken", "healthy", "expected_physics", "insufficient_data")
def nothing_broken(facts: Facts, predictions=None):
    """The reporter asks whether a behaviour or figure is normal, and nothing in the ticket points at a
    fault: the answer is that it is (weakly: what was not attached can still show one). A question about more
    GPUs not paying off is ticket.scaling_question's, which says why; requests that wait behind the ones served are
    ticket.requests_queued's."""
    if scaling_asked(facts) or served_in_waves(facts) or tp_won_at_high_load(facts):
        return
    said = claims.symptom_quote(facts)
    if not said or said[2] not in ("normal?", "other"):
        return  # a failure, or a complaint the symptom's prior and the figure checks answer
    question = claims.asks(facts)
    if said[2] == "other" and not question:
        return  # a report without a question: nothing is asked to be judged normal
    if len(re.findall(r"\w+", " ".join(text for _, text in claims.texts(facts)))) <= 6:
        return  # the question alone ("Is that normal?"): nothing described to call normal
    if fault_context(facts) or figures(facts) or failure_said(facts):
        return  # a fault in sight (or said in words: failure_said), or a figure the figure checks judge (or,
        # unjudged, cannot be called normal)
    if claims.other_vendor(facts) and idle_reading(facts):
        return  # an idle draw is normal or not by its vendor's power management, known here for NVIDIA's only
    evidence = [ev(said[0], f'the reporter\'s question: "{question.quote if question else said[1]}"')]
    if (ahead := claims.untried(facts)) is not None:
        # nothing run yet: no behaviour to call normal, only a figure from elsewhere
        yield make("ticket.nothing_broken", "insufficient_data", "info", 0.0,
                   "Nothing has been run yet: there is no behaviour to judge",
                   "The reporter asks about a figure or behaviour before running the setup; the ticket holds no "
                   "measurement of theirs, so it can be neither normal nor faulty.",
                   evidence + [claim_ev(ahead, "nothing measured yet")],
                   fix="run it once and give the measured figure with the command that gave it (`diagnose predict` "
                   "gives the expected figure for a GPU, model and layout before running)",
                   ask="the measured figure (tok/s with batch and prompt/output lengths) and the command that gave it")
        return
    still = ticket_gaps(facts) if (gpu_count(facts) or 0) >= 2 else []  # links and NCCL logs matter between GPUs
    attach = f" Attach {', '.join(still)} to rule a fault out." if still else ""
    shortfall = claims.complaint(facts)
    if shortfall and _plain_slow(facts, shortfall):
        # 'X is slow, is this normal?' with no figure and nothing compared: physics and a setting (layers left on
        # the CPU: two RTX 3090s running a 70B Q4, janhq/jan#3955) read alike; only the figure and the load log tell
        yield make("ticket.nothing_broken", "insufficient_data", "info", 0.0,
                   "Called slow with no figure: nothing to hold against what these GPUs should give",
                   "The reporter calls a run slow and asks whether that is normal, but gives no rate, time or other "
                   "figure and compares it with nothing; a healthy run and one with part of the model on the CPU or "
                   "a setting wrong read the same in words.",
                   evidence + [claim_ev(shortfall, "the shortfall")],
                   fix="give the measured decode rate and compare it with `diagnose predict` for this model and GPUs; "
                   "check the engine's load log says every layer is on the GPUs",
                   ask="the measured decode rate (tok/s, with prompt and output lengths) and the engine's load log "
                   "(llama.cpp/Ollama: the 'offloaded N/N layers to GPU' line)")
        return
    if shortfall:
        yield make("ticket.nothing_broken", "expected_physics", "info", NOTHING_BROKEN,
                   "Nothing in the ticket points at a fault: the shortfall asked about is how such systems behave",
                   "The reporter holds a figure against a higher one (a datasheet, another setup) or calls it slow, "
                   "and no error, failure, setting or platform known for trouble shows in what was given; datasheet "
                   "figures are line rates and totals no transfer reaches, and measured rates depend on sizes, "
                   "algorithms and warm-up." + attach,
                   evidence + [claim_ev(shortfall, "the shortfall")],
                   fix="Compare with the measured figures of a healthy system of this kind (`diagnose predict`, "
                   "nccl-tests at large sizes) rather than with the datasheet." + attach)
        return
    if (missed := claims.expectation_missed(facts)) is not None:
        # (audit47a) a result held short of what the reporter expected or of one reported elsewhere, in words with no
        # figure ("improved performance, but not as much as I expected", whisper.net#79: the decoder alone ran on the
        # GPU; "推理速度基本上没有提升", lmdeploy#2310: the vision part's time dominates): the reporter takes it
        # for a shortfall, so "normal" does not answer it, and with no figure nothing tells physics from a setting
        yield make("ticket.nothing_broken", "insufficient_data", "info", 0.0,
                   "A result said to fall short of what was expected, with no figure to judge",
                   "The reporter holds a result below what they expected or what was reported elsewhere, but gives "
                   "no rate or time to set against what this hardware should give; work left on the CPU, a setting "
                   "and the physics of the workload read alike in words." + attach,
                   evidence + [claim_ev(missed, "the shortfall")],
                   fix=("Give the measured figure with the command that gave it, and the figure it was expected to "
                        "reach." + attach).rstrip("."),
                   ask="the measured figure (tok/s or time, with batch and prompt/output lengths), the figure expected "
                   "and where it comes from, and the command that gave it")
        return
    if (contrast := claims.asked_contrast(facts)) is not None:
        # "why is X slower than Y?" asks for the cause of a difference: that nothing was seen broken does not
        # answer it, and without the figures and commands of both sides nothing can
        yield make("ticket.nothing_broken", "insufficient_data", "info", 0.0,
                   "A difference between two setups is asked about: it needs both sides' figures to judge",
                   "The reporter asks why one setup, run or version does better than another; no fault shows in what "
                   "was given, but a difference between two setups is a complaint, not a behaviour to call normal, "
                   "and only the two sides' figures and settings can say whether it is expected." + attach,
                   evidence + [claim_ev(contrast, "the difference asked about")],
                   fix=("Compare the two setups' launch commands and settings one at a time." + attach).rstrip("."),
                   ask="the measured figures and the exact commands of both setups (engine, version, flags, batch "
                   "and prompt/output lengths)")
        return
    if (cure := _asks_cure(facts)) is not None:
        # (review50) the reporter calls it a problem and asks how to cure it: nothing seen broken does not make it
        # normal ("one of the video card has usage of 0% all the time. How to solve the problem?", allenai/bilm-tf#140,
        # answered: the GPU count in the config was left at its old value)
        yield make("ticket.nothing_broken", "insufficient_data", "info", 0.0,
                   "A problem is reported that nothing in the ticket explains",
                   "The reporter asks how to fix what they see, so they take it for a fault; no error, figure or "
                   "setting in what was given shows one, and a behaviour by design and a setting left wrong read "
                   "alike in words." + attach,
                   evidence + [ev(cure[0], f'what they ask: "{cure[1]}"')],
                   fix=("Compare the launch command and settings (GPU count, CUDA_VISIBLE_DEVICES, the framework's "
                        "device options) with what the job should use." + attach).rstrip("."),
                   ask="the launch command with its settings (GPU count, CUDA_VISIBLE_DEVICES, device options) and "
                   "`nvidia-smi` during the run")
        return
    if by_design_fault(facts):
        return  # (risks37) a behaviour the catalog documents, but in a setting where its row calls it a fault
    if phase_past_documented(facts):
        return  # (physics42) a documented slow phase, but past its row's longest_minutes: not the design
    yield passed("ticket.nothing_broken",
                 "Nothing in the ticket points at a fault: the behaviour asked about is normal",
                 "The reporter asks about a behaviour without calling anything slow or broken, and no error, failure, "
                 "setting or platform known for trouble shows in what was given." + attach,
                 evidence, NOTHING_BROKEN + 0.05)


@rule("ticket.check_column", "healthy")
def check_column(facts: Facts, predictions=None):
    """(healthy43) The reporter asks what nccl-tests' result check means, or why it is not 0: the old table's "error"
    column (the largest deviation of any value from the expected result: 1e-06, 5e-07) or the "Out of bounds values"
    line ("How to interpret the error column?", NVIDIA/nccl-tests#176; "I don't know what's mean error field and value
    5e-07", #118; "why the Out of Bounds values is 0?", #52). The check allows for floating-point rounding and counts
    only the values out of its bounds, so "# Out of bounds values : 0 OK" means every value passed. The maintainer,
    nccl-tests#52: "Floating point operations incur some natural rounding error. NCCL tests take that into account
    and only report errors which are out of bounds"; NVIDIA/nccl#259: "Low values are normal for floating point. If
    there were real errors you would not get: # Out of bounds values : 0 OK". Not where the check failed (a #wrong
    count or out-of-bounds values above 0, which are nccl_tests_wrong events), nor where a hang, crash or failure is
    said or a figure called short: those are the ticket's question."""
    asked = claims.check_column_asked(facts)
    if asked is None or claims.symptom(facts) in ("hang", "crash"):
        return
    if any(e.kind == "nccl_tests_wrong" for e in facts.of(NcclEvent)):
        return
    if failure_said(facts) or claims.complaint(facts) or fault_context(facts, labels=False):
        return
    yield passed("ticket.check_column",
                 "Only the meaning of nccl-tests' result check is asked: nothing failed it",
                 "The reporter asks what nccl-tests' error column or out-of-bounds count means. The error column is "
                 "the largest deviation of any value from the expected result; floating-point reductions round, so "
                 "small values (1e-06 and the like) are normal, and the test counts as wrong only the values beyond "
                 "its bounds: 'Out of bounds values : 0 OK' means the data came back right. Nothing in the ticket "
                 "says a value was wrong or the run failed.",
                 [claim_ev(asked, "the question about the check")], NOTHING_BROKEN + 0.05)


# The weight of the reporter's own word that the run works and only a message is in question: their word, not an
# artifact showing the run (NOTHING_BROKEN's weakness), a little more than a question alone, since it says the outcome.
RUN_UNAFFECTED = NOTHING_BROKEN + 0.1


@rule("ticket.message_only", "healthy")
def message_only(facts: Facts, predictions=None):
    """(healthy40) The reporter says the job itself works and only a message is in question ("training proceeds
    correctly, but emits these misleading messages", pytorch/pytorch#128998; "tests do not fail, just a ton of
    warnings", helmholtz-analytics/heat#1003; "does not affect actual execution correctness", vllm-project/vllm#31005):
    a warning or log line whose run succeeds is no fault of the system. Weaker, where the quoted warning made the ticket
    read as an error report: the reporter only asks whether the message matters ("do I need to deal with such
    warnings? Or just ignore it?", zengxianyu/crfill#8). Not where anything is said to hang, crash or fail, nor called
    slow, nor a figure to judge: those are the ticket's question, whatever the log says."""
    said = claims.run_unaffected(facts)
    asked_only = None if said else claims.ignore_asked(facts)
    if (said or asked_only) is None or claims.symptom(facts) in ("hang", "crash"):
        return
    if failure_said(facts) or claims.complaint(facts) or figures(facts):
        return
    if said:
        yield passed("ticket.message_only",
                     "The reporter says the run itself works: only the message is in question",
                     "The reporter states that the job runs as it should and asks about a warning or log line it "
                     "prints; a message beside a run that succeeds points at no fault of the GPUs, links or settings "
                     "(at most at the message's wording, for its authors).",
                     [claim_ev(said, "the run said to work")], RUN_UNAFFECTED)
        return
    if claims.symptom(facts) != "error" or fault_context(facts):
        # the question form fills one gap: the quoted warning made the ticket read as an error report (a question
        # read as "normal?" is ticket.nothing_broken's); a question about a message beside a fault in sight is the
        # fault's ticket
        return
    yield passed("ticket.message_only",
                 "Only whether a message matters is asked: nothing is said to fail",
                 "The reporter asks whether a warning or message can be ignored or affects the run, and says nothing "
                 "failed, hung or ran slow; with no fault in sight the message is taken as what it says, a notice "
                 "(weakly: the message's own meaning is not looked up here).",
                 [claim_ev(asked_only, "the question about the message")], NOTHING_BROKEN + 0.05)


# (review50) The reporter asks how to cure what they see: "How to solve the problem?", "how can I fix this", 怎么解决.
_CURE_ASKED = re.compile(r"\bhow\s+(?:(?:can|do|should|could|would|to)\s+(?:I\s+|we\s+|one\s+)?)(?:solve|fix|resolve)\b"
                         r"|(?:怎么|如何)解决", re.I)


def _asks_cure(facts: Facts) -> tuple[str, str] | None:
    """(source, words) where the reporter's own text (not a pasted output) asks how to solve or fix what they see."""
    for source, text in claims.own_texts(facts):
        if m := _CURE_ASKED.search(text):
            return source, text[max(0, m.start() - 40):m.end() + 30].strip()
    return None


# A figure in the reporter's words: a number with a unit of rate, time, size or share ("55 tok/sec", "13 s", "2.5x").
_STATED_FIGURE = re.compile(r"\d\s*(?:tok\w*|t/s|it/s|tps|ms\b|s\b|sec\w*|min\w*|GB/s|%|x\b|×|times\b)"
                            # ... or a duration in words ("takes about five seconds to infer a picture",
                            # Kiteretsu77/APISR#17); a count in words is none ("I have two 3090 graphics cards")
                            r"|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|fifteen|twenty|thirty|sixty)\s+"
                            r"(?:(?:milli)?seconds?|minutes?|hours?)\b", re.I)


def _plain_slow(facts: Facts, shortfall) -> bool:
    """Is the complaint only a word ('slow') with no figure anywhere and nothing compared ('slower than', 'vs')?"""
    text = " ".join(t for _, t in claims.texts(facts))
    return (not facts.of(Measurement) and not _STATED_FIGURE.search(text) and claims.asked_contrast(facts) is None
            and bool(re.search(r"\bslow(?:ly|ness)?\b", shortfall.quote, re.I))
            and not re.search(r"\bslow(?:er|ed|s|ing|down)\b|\bslow[- ]down\b", text, re.I))


# NCCL starts a proxy thread per communicator for its network and host-memory transports, and
# its threads poll rather than sleep while operations are in flight (NCCL environment-variable and
# troubleshooting documentation; https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html).
_CPU_LOAD = re.compile(r"\bCPU\b[^.\n%]{0,40}?\b(\d{3,4})\s*%|\b(\d{3,4})\s*%\s*(?:CPU|cpu)\b", re.I)
# A reporter's unit of one topic: the CPU figure and the NCCL context (claims.DISTRIBUTED) must share one.
_PARAGRAPH = re.compile(r"\n\s*\n")


def _busy_beside_nccl(facts: Facts) -> tuple[str, float, str] | None:
    """The first CPU figure over 100 % (one process on several cores) with NCCL context in its own paragraph:
    (source, percent, quote); None when there is none."""
    for source, text in claims.texts(facts):
        for paragraph in _PARAGRAPH.split(text):
            for m in _CPU_LOAD.finditer(paragraph):
                pct = float(next(g for g in m.groups() if g))
                if pct > 100 and claims.DISTRIBUTED.search(paragraph):
                    return source, pct, claims.one_line(paragraph[max(0, m.start() - 40):m.end() + 40])
    return None


@rule("ticket.nccl_threads_cpu", "expected_physics")
def nccl_threads_cpu(facts: Facts, predictions=None):
    """One process using several cores while it runs NCCL collectives: NCCL's own polling threads. The NCCL
    context must be in the CPU figure's own paragraph ("the tokenizer uses 300 % CPU" is not about a DDP job
    in another one)."""
    if claims.complaint(facts) or fault_context(facts):
        return
    found = _busy_beside_nccl(facts)
    if not found:
        return
    source, pct, quote = found
    yield make("ticket.nccl_threads_cpu", "expected_physics", "info", 0.5,
               f"{pct:g} % CPU in one process: NCCL's proxy threads poll",
               "NCCL creates a proxy thread per communicator (per rank) to drive its network and host-memory "
               "transports, and those threads spin while operations are in flight, yielding when idle. A process with "
               "several communicators therefore shows several cores busy without any multi-threading of its own.",
               [ev(source, f'the reporter: "{quote}"', pct, 100, "%")],
               fix="Expected. If the cores are needed elsewhere, give each rank its own cores (NUMA-local binding) "
               "and create fewer communicators.",
               refs=["https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"])


# NVML's utilization.gpu is the share of the sample period in which at least one kernel ran, not how
# much of the GPU the kernels used (NVML API reference, nvmlUtilization_t; nvidia-smi --help-query-gpu).
NVML_UTIL = "https://docs.nvidia.com/deploy/nvml-api/structnvmlUtilization__t.html"


@rule("ticket.busy_not_saturated", "expected_physics")
def busy_not_saturated(facts: Facts, predictions=None):
    """'GPU utilisation is 100 % but it is slow': nvidia-smi counts the time a kernel runs, not the
    share of the GPU it keeps busy, so a memory-bound or small-kernel workload shows 100 %. Only when every
    figure given is that high: beside a lower one (another setup, a bound such as "below 50 %") the low
    figure is the lead, and ticket.gpu_utilisation reads it."""
    readings = claims.find(facts, "gpu_util")  # "will not reach 100 %" is ruled out (negated), not read
    # (left26) a range's low end counts as a figure of its own: "fluctuating between 0% and 100%"
    # (keras-team/keras#7351) is a GPU idle part of the time, not one kept busy
    busy = [u for u in readings if u.data["percent"] >= 90 and not u.data.get("below")
            and u.data.get("low", 100) >= 90]
    if not busy or not (claims.complaint(facts) or (claims.asks(facts) and figures(facts))):
        return  # (misfire35) a question with no slowness said and no rate to judge asks what the counter counts: the
        # documented meaning (by_design.toml gpu_utilization_is_time) answers it, not a memory-bound step
    if any(u.data["percent"] < 90 or u.data.get("below") or u.data.get("low", 100) < 90 for u in readings):
        return  # a lower figure beside it: not "busy but slow"
    if fault_context(facts) or claims.find(facts, "blocked_in_collective"):
        return  # a fault in sight, or NCCL spin-waiting (ticket.explained says it)
    hang = claims.symptom_quote(facts)
    if hang and hang[2] == "hang":
        return  # (ut25) 100 % on a job that stopped is a kernel spinning in place, not a memory-bound step
    from rules.ticket_rules import gpu_utilisation, spinning_gpus

    if any(True for _ in gpu_utilisation(facts)):
        return  # a low-utilisation reading (words or figure) decides, and the two leads would contradict
    if [c for c in claims.find(facts, "busy_low_power") if not c.guess] or spinning_gpus(facts):
        return  # busy at a small share of the power: waiting, not memory-bound work (ticket.busy_low_power)
    u = max(busy, key=lambda c: c.data["percent"])
    yield make("ticket.busy_not_saturated", "expected_physics", "info", 0.5,
               f"{u.data['percent']:g} % 'utilisation' means a kernel was running, not that the GPU is saturated",
               "nvidia-smi's GPU utilisation is the share of time in which at least one kernel ran. Decode streams the "
               "weights from memory with small kernels that leave most SMs idle, so a GPU can show 100 % while its "
               "compute units are far from busy; the memory bandwidth, not the utilisation figure, bounds the speed.",
               [claim_ev(u, "GPU utilisation")],
               fix="Judge the speed against the model's memory-bound rate (`diagnose predict`) or profile SM and DRAM "
               "throughput with Nsight; raise the batch to use more of each step.",
               refs=[NVML_UTIL])


# nccl-tests computes every all-reduce's bus bandwidth with the ring's factor 2(n-1)/n (doc/PERFORMANCE.md), and
# NCCL picks an algorithm per size and scale from its tuning model (NCCL_ALGO in the environment-variable docs).
PERFORMANCE_MD = "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md"
NCCL_ENV = "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html"
ALGO_NAMES = {"ring": "Ring", "tree": "Tree", "nvls": "NVLS", "nvlstree": "NVLSTree", "collnet": "CollNet",
              "pat": "PAT", "sharp": "SHARP"}


@rule("ticket.algorithms_compared", "expected_physics")
def algorithms_compared(facts: Facts, predictions=None):
    """Two NCCL algorithms set against each other ("Tree beats Ring on two nodes", "why NVLS + Tree rather than
    Tree?"), nothing pointing at a fault: their figures differ by design, and the busbw formula is the ring's."""
    if not asks_about_figures(facts) or fault_context(facts):
        return
    found = claims.algorithms_compared(facts)
    if not found:
        return
    c = found[0]
    names = " and ".join(ALGO_NAMES.get(a, a) for a in c.data["algorithms"][:2])
    yield make("ticket.algorithms_compared", "expected_physics", "info", 0.5,
               f"{names} are NCCL algorithms built for different sizes and scales: their figures differ by design",
               "nccl-tests reports every all-reduce's bus bandwidth with the ring's factor 2(n-1)/n. A tree, or a "
               "reduction inside the NVSwitch (NVLS) or the network (CollNet/SHARP), sends less data over the slowest "
               "link than a ring, so its busbw can pass the link rate (on two nodes the tree's does) while the ring "
               "leads at other sizes; NCCL chooses per message size from its tuning model.",
               [claim_ev(c, "algorithms compared")],
               fix="Nothing is broken. Compare the algorithms at the sizes the application uses (NCCL_ALGO=Ring, Tree "
               "or NVLS with all_reduce_perf -b 1M -e 8G); to measure the network itself on two nodes, force "
               "NCCL_ALGO=Ring.",
               refs=[PERFORMANCE_MD, NCCL_ENV])


# Prefill runs every prompt token through the weights in one step (compute-bound); decode produces one token per
# sequence per step, reading every weight each time (memory-bound); a batch shares each step's weight reads among
# its sequences, so the total rises while each step, and so each sequence, slows (vLLM's optimization guide, NVIDIA's
# "Mastering LLM Techniques: Inference Optimization").
VLLM_OPTIMIZATION = "https://docs.vllm.ai/en/latest/configuration/optimization.html"


# "Many times faster": prefill runs every prompt token through one read of the weights, so on a GPU it is one to two
# orders of magnitude faster than decode; a prefill rate under this multiple of the decode rate is not that contrast
# (a short prompt timed with its overhead, or prefill on the CPU).
MANY_TIMES = 3.0


@rule("ticket.serving_tradeoff", "expected_physics")
def serving_tradeoff(facts: Facts, predictions=None):
    """Prompt processing set against generation ("3000 tok/s on the prompt, 40 tok/s generating"), each request
    slowing as more run at once, the first token (and each token) slowing as the prompt and context grow, a bigger
    model slower than a smaller one, or a feature said with the cost its engine documents (speculative decoding slower
    under load, the first request slow while CUDA graphs are captured: rules/catalog/serving_tradeoffs.toml), asked or
    complained of with nothing broken in sight: all are how serving works."""
    if claims.symptom(facts) in FAILURES or fault_context(facts):
        return
    documented = claims.documented_tradeoffs(facts)
    if documented and not training_job(facts) and claims.engine_faster(facts) is None:
        # a feature named with its documented cost is itself the complaint, asked or not; the rows are serving
        # trades (a training job's LoRA or ZeRO stage is not one), and the same work faster in another engine is
        # that engine's implementation, not the trade
        yield _documented(documented[0])
        return
    if not asks_about_figures(facts) or not (claims.asks(facts) or claims.complaint(facts)):
        return
    found = claims.phases_compared(facts) or claims.batch_tradeoff(facts) or claims.length_tradeoff(facts) or \
        claims.size_tradeoff(facts)
    if not found:
        return
    rates = found[0].data if found[0].kind == "phases_compared" else {}
    if rates and rates["prefill"] < MANY_TIMES * rates["decode"]:
        return  # the figures quoted do not show the contrast the explanation states: prefill itself is slow
    if found[0].kind == "phases_compared" and gpus_compared(facts) is not None:
        return  # (review38) each phase quoted for two boards ("A100: pp 6100, tg 70; 4090: pp 5200, tg 85"): the ask
        # is which board is slower, judged per board against its own expected figures (ticket.rate_ratio,
        # ticket.gpus_compared), not the prefill/decode contrast both boards share
    title, summary, fix = TRADEOFFS[found[0].kind]
    yield make("ticket.serving_tradeoff", "expected_physics", "info", 0.5, title, summary,
               [claim_ev(found[0], "what the reporter sees")], fix=fix,
               refs=[INFERENCE_OPTIMIZATION, VLLM_OPTIMIZATION])


def _documented(found: claims.Claim):
    """The finding for a trade-off an engine documents (rules/catalog/serving_tradeoffs.toml), in the docs' words."""
    row = found.data["tradeoff"]
    return make("ticket.serving_tradeoff", "expected_physics", "info", 0.5, row.title, row.meaning,
                [claim_ev(found, "what the reporter sees"),
                 ev(found.cited, f"the engines document this trade-off ('{row.id}', rules/catalog/"
                    f"serving_tradeoffs.toml): {row.sources[0]}")],
                fix=row.fix, refs=list(row.sources))


# What each trade is, by the claim that states it: (title, why, what to do).
TRADEOFFS = {
    "phases_compared": (
        "Prompt processing is many times faster than generation: by design",
        "The prompt goes through the model in one step, all its tokens at once, so prefill is bound by the GPU's "
        "arithmetic and counts thousands of tokens per second; generation makes one token per sequence per step and "
        "reads every weight each time, so it is bound by memory bandwidth and counts tens of tokens per second for "
        "one stream. The two rates differ by one to two orders of magnitude on a healthy GPU.",
        "Judge each phase against its own bound: `diagnose predict` gives the expected prefill and decode rates for "
        "this model and GPU; batch requests to raise the total generation rate."),
    "batch_tradeoff": (
        "More requests at once raise the total and slow each one: the batch's trade",
        "Each decode step serves every running request; more of them share the step's weight reads, so the total "
        "tokens per second rises, but the step carries more tokens (and prefills of new requests join it), so each "
        "request's time per token and time to first token grow.",
        "Pick the concurrency that meets the latency target (`diagnose predict --batch 1,8,32`); cap it with the "
        "engine's max concurrent sequences, and add replicas for more total throughput."),
    "size_tradeoff": (
        "A bigger model decodes slower: each token reads every weight",
        "Decode makes one token per sequence per step and reads every weight once per step, so on the same GPU the "
        "time per token grows with the bytes of the weights: a model ten times larger at the same precision decodes "
        "about ten times slower, and its prefill costs ten times the FLOPs. A mixture-of-experts model reads only the "
        "experts each token is routed to (its active parameters). A gap far beyond the ratio of the sizes is not this "
        "trade (a model that spills out of GPU memory, or a slower kernel for its format).",
        "Compare each model's rate with `diagnose predict --model M --gpu G`; for speed use a smaller or quantised "
        "model (fewer bytes per token), or batch requests so that each weight read serves several sequences."),
    "length_tradeoff": (
        "A longer prompt or context takes longer: prefill grows with the prompt, decode with the KV cache",
        "The first token comes after the whole prompt has gone through the model: about two FLOPs per parameter per "
        "prompt token, plus attention that grows with the prompt's square, so TTFT grows a little faster than the "
        "prompt; each later token reads the whole KV cache, so decode also slows as the context fills.",
        "Judge the TTFT at each prompt length against `diagnose predict --prompt N`; prefix caching, chunked "
        "prefill or more GPUs per replica shorten long prefills."),
}


# One Python thread runs on one core at a time (the GIL: https://docs.python.org/3/glossary.html#term-global-interpreter-lock);
# the engines drive the GPUs from one such process (vLLM's engine core, SGLang's scheduler).
GIL = "https://docs.python.org/3/glossary.html#term-global-interpreter-lock"


@rule("ticket.cpu_one_core", "expected_physics")
def cpu_one_core(facts: Facts, predictions=None):
    """'The process never goes above 100 % CPU: is it limited to one core?' asked with nothing broken and nothing
    slow in sight: the engine's loop is one Python thread, held to one core by design (a slow job with the CPU
    pegged is ticket.cpu_bound's)."""
    if not asks_about_figures(facts) or not claims.asks(facts) or claims.complaint(facts) or fault_context(facts):
        return
    found = claims.cpu_ceiling(facts)
    if not found:
        return
    yield make("ticket.cpu_one_core", "expected_physics", "info", 0.5,
               "One serving process at 100 % CPU is one Python thread on one core: by design",
               "top counts one core as 100 %. The engine schedules, tokenizes and launches kernels from one Python "
               "process per GPU (or one for all of them), and Python's global interpreter lock runs its threads one at "
               "a time, so the process stays near one core however many the machine has. That core's speed can bound "
               "the serving rate when the batch is small or the requests many.",
               [claim_ev(found[0], "the CPU ceiling")],
               fix="Nothing to fix. If the host side limits the rate, give the process a fast, uncontended core (NUMA-"
               "local, governor 'performance'), keep CUDA graphs on, and move tokenization to its own processes "
               "(several API-server processes in front of one engine).",
               refs=[GIL])


# --------------------------------------------------------------------------- by design (issue 11 r)
# Several GPUs said without a number ("multiple GPUs", "多卡", "複数のGPU"): a GPU noun beside the word. Numbers are
# the issue parser's (rules.common.gpu_count: "four 4090 GPUs", "两张4090", "GPUは2枚", "zwei Karten").
# "All (of) my GPUs" and "the other GPUs" are several too ("ollama not use all GPUs",
# https://github.com/ollama/ollama/issues/5635; "ollama do not use all my gpus", https://github.com/ollama/ollama/issues/9129;
# "how can I use all the GPUs I have?", https://github.com/meta-llama/llama3/issues/234).
_GPUS_UNCOUNTED = re.compile(r"\b(?:multiple|several|many)\s+(?:\w+\s+)?(?:GPUs|cards)\b|双卡|多卡|多张\s*(?:卡|显卡)|"
                             r"\ball (?:of )?(?:the |my |our |its )?(?:\w+\s+)?(?:GPUs|GPU cards|graphics cards)\b|"
                             r"\b(?:the )?other (?:\w+\s+)?GPUs\b|"
                             r"複数\s*の?\s*(?:GPU|グラボ)|여러\s*(?:개의\s*|대의\s*)?(?:GPU|그래픽\s*카드)|"
                             r"\bmehrere[n]?\s+(?:GPUs|Karten|Grafikkarten)\b|\bнескольк\w+\s+(?:видеокарт\w*|GPU)|"
                             r"\b(?:varias|m[uú]ltiples)\s+(?:GPUs|tarjetas)\b", re.I)


def _several_gpus(facts: Facts) -> bool:
    return (gpu_count(facts) or 0) >= 2 or any(_GPUS_UNCOUNTED.search(t) for _, t in claims.texts(facts))


def _fits_one(facts: Facts) -> bool | None:
    """Does the catalog say the model's weights fit one of the GPUs (rules.workload.predict_layout at TP 1: the model
    named, or its size, on the board named)? None where it cannot say: no model, or no GPU, the ticket names."""
    from rules.workload import predict_layout

    p = predict_layout(facts, 1, 1)
    return None if p is None else p.fits


@rule("ticket.one_gpu_by_design", "healthy")
def one_gpu_by_design(facts: Facts, predictions=None):
    """'I have several GPUs but only one is used', with no sharding asked for and nothing broken in sight: engines
    put a model that fits one GPU on one GPU by default. A weak answer (0.5, below every observed fault): a failure,
    a fault word, a rate to judge, a split asked for or a model too big for one GPU each leave it unsaid. Where the
    ticket names no model (or no GPU) nothing shows the model fits: the answer is conditional and the ticket is asked
    for what the fit needs (ollama/ollama#8546, the maintainer: "If the model fits on one GPU, that's all that will
    be used")."""
    c = one_gpu_in_use(facts)
    if c is None or not _several_gpus(facts) or claims.symptom(facts) in ("hang", "crash") or fault_context(facts) \
            or figures(facts) or claims.complaint(facts, skip=ONE_GPU_USED) or sharding_asked(facts) \
            or claims.out_of_memory(facts) or failure_said(facts):
        return  # (a speed complaint beside it: the GPUs may be taking turns over a split model, or starved; out of
        # memory on the one GPU: the model did not fit where it was put, ticket.memory_unsplit's lead, not healthy)
    fits = _fits_one(facts)
    if fits is False:
        return  # it must be split: the GPUs take turns (or the rest runs on the CPU), not one GPU by design
    why = ("Serving engines shard a model only when told to (vLLM's and SGLang's tensor-parallel size defaults to 1) "
           "or when it does not fit one GPU (Ollama loads a model that fits on a single GPU onto that GPU, which "
           "avoids the transfers between GPUs on every token), and a PyTorch program runs on cuda:0 unless it places "
           "work elsewhere; the other GPUs stay idle. More GPUs pay off as replicas for more concurrent requests (or "
           "tensor parallelism with NVLink), not as speed for one request.")
    if fits is None:
        needed = "the GPU model" if facts.subject.model is not None else "the model's name or size"
        yield make("ticket.one_gpu_by_design", "insufficient_data", "info", 0.0,
                   f"Whether the model fits one GPU is unknown: the ticket names no {needed.removeprefix('the ')}",
                   "One GPU busy while the others idle is the default placement only for a model that fits one GPU; "
                   "a larger one is split over them.", [claim_ev(c, "what the reporter sees")],
                   fix=f"attach {needed} (e.g. `ollama ps` or the launch command) and nvidia-smi while it runs",
                   ask=needed)
        yield passed("ticket.one_gpu_by_design",
                     "One GPU does the work, the engines' default placement if the model fits on one",
                     f"{why} Not known: whether the model fits one GPU (the ticket does not say which {needed}); "
                     "no sharding was asked for.", [claim_ev(c, "what the reporter sees")], 0.5)
        return
    spec, board = facts.subject.model, facts.subject.gpu
    yield passed("ticket.one_gpu_by_design",
                 "One GPU does the work because the model fits on one: the engines' default placement",
                 f"{why} The catalog's {spec.key} fits one {board.name} (rules.workload.predict_layout at TP 1); no "
                 "sharding was asked for.",
                 [claim_ev(c, "what the reporter sees")], 0.5)


# (s28, ut28d) The weights on one GPU (or a few) while the others hold almost nothing, and the job out of memory:
# the model was not split over the GPUs offered. "0卡总是显存溢出，其余卡显存占用极少" (GPU 0 always out of
# memory, the others nearly empty: InternLM/lmdeploy#2145, pipeline() left at tp=1),
# "设置tp=2之后...模型并没有加载到两张卡上？还是报错OOM" (not loaded onto both cards: InternLM/lmdeploy#1059, the
# TP setting passed under a wrong keyword), "前两张卡跑满，后两张卡几乎无占用，推理就会报显存溢出" (the first two
# full, the last two nearly empty: modelscope/ms-swift#1376, a
# device_map split uneven for a vision model). English: "the other GPUs stay (almost) empty", "the model is only
# loaded on GPU 0", "not split across both GPUs". Not a GPU's share of a reserved pool ("each GPU uses 90 %"), nor
# utilisation ("the other GPU is idle": one_gpu_in_use's), nor a plan ("should be split across both GPUs").
_MEMORY_UNSPLIT = re.compile(
    r"(?:其余|其他|其它|另外的?|另一张|后\s*(?:两|二|三|\d)\s*张)\s*(?:的)?\s*(?:卡|GPU|显卡)?\s*(?:的)?\s*"
    r"(?:显存)?\s*(?:占用|使用)?\s*(?:极少|很少|几乎(?:无|没有|为\s*0|不)(?:占用|变化)?|基本(?:上)?(?:无|没有)(?:占用)?|"
    r"为\s*0|没有变化|无变化)|"
    # (cn38) the cards' memory "不变" / "没变" (unchanged): "发现第一张卡的显存增加直到溢出，其他卡的显存不变"
    # (QwenLM/Qwen#870); the cards and their memory both named, not "其他不变" (everything else kept, an A/B's words)
    r"(?:其余|其他|其它|另外的?|另一张)\s*(?:的)?\s*(?:卡|GPU|显卡)\s*(?:的)?\s*显存\s*(?:占用)?\s*"
    r"(?:基本|一直|始终)?(?:不变|没变|没有变)|"
    # (review35) "一张卡显存占用越来越多，直接蹦了，另一张卡还空着" (the other card still empty: OpenMOSS/MOSS#151);
    # "只有一张卡的显存被占满了" (only one card's memory filled: InternLM/lmdeploy#1130)
    r"(?:其余|其他|其它|另外的?|另一张)\s*(?:的)?\s*(?:卡|GPU|显卡)?\s*(?:还|仍然?|都|却)?\s*(?:空着|是空的)|"
    r"只有\s*(?:一|1)\s*(?:张|块|个)\s*(?:卡|GPU|显卡)\s*(?:的)?\s*显存\s*(?:被)?\s*(?:占满|用满|跑满|吃满)|"
    # "推理时很容易因为第一张卡显存溢出报错，但其他卡还有大量显存" (InternLM/lmdeploy#1555)
    r"(?:其余|其他|其它)\s*(?:的)?\s*(?:卡|GPU|显卡)\s*(?:上)?\s*(?:还有|仍有|仍然有|都还有)\s*(?:大量|很多|不少)\s*(?:的)?\s*"
    r"(?:剩余|空闲)?\s*显存|"
    r"(?:没有|没|未)\s*(?:被)?\s*(?:加载|分配|分布|切分|拆分|放)\s*(?:到|在)\s*(?:两|二|双|多|四|八|\d+|所有|全部|各|每)"
    r"\s*(?:张|块|个)?\s*(?:卡|GPU|显卡)|"
    r"\b(?:the )?(?:other|remaining|rest of the|second)\s+(?:\w+\s+)?(?:GPUs?|cards?)\b[^.\n]{0,40}?"
    r"\b(?:(?:almost|nearly) )?(?:empty|no memory|(?:barely|hardly) (?:any|used)|"
    r"(?:only|just) (?:a few )?\d+\s*(?:MiB|MB))\b|"
    # "It seems the model weights are all on the last gpu, so when inferencing, the last gpu ran out of memory"
    # (stepfun-ai/Step-Video-T2V#5)
    r"\b(?:model|weights)\b[^.\n]{0,30}?\b(?:is |are |was |were |gets? )?(?:only |all )?"
    r"(?:(?:loaded|placed|put|allocated) )?(?:on|onto|into|to) (?:only )?(?:GPU\s*\d|cuda:\d|the (?:first|last) GPU|"
    r"one GPU)\b(?!\s*(?:,|and|&|or)\s*(?:GPU|cuda|the))|"
    r"\bnot (?:being )?(?:split|sharded|distributed|spread) (?:across|over|between|among) (?:both|all|the|my|\d+)\b",
    re.I)


def memory_unsplit(facts: Facts) -> claims.Claim | None:
    """The reporter's observation that the model's memory sits on some GPUs while the others stay nearly empty
    (_MEMORY_UNSPLIT), or None: not negated, not a question or a condition."""
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            m = _MEMORY_UNSPLIT.search(sentence)
            if not m or claims.offered(sentence, m.start()) or claims.conditional(sentence[:m.start()]) \
                    or (m.group(0)[:1].isascii() and claims.negated_words(sentence, m)) \
                    or claims.zh_not_seen(sentence, m):
                continue
            return claims.Claim("memory_unsplit", source,
                                claims.one_line(sentence[max(0, m.start() - 40):m.end() + 40]))
    return None


@rule("ticket.memory_unsplit", "insufficient_data")
def memory_unsplit_oom(facts: Facts, predictions=None):
    """(s28, ut28d) Out of memory on one GPU (or a few) while the others stay nearly empty: the model was not split
    over the GPUs offered, or split unevenly. Engines split only when told: LMDeploy's pipeline() and api_server run
    at tp=1 unless a TurbomindEngineConfig/PytorchEngineConfig(tp=N) is passed as backend_config (its docs'
    vl_pipeline page); vLLM's and SGLang's tensor-parallel size defaults to 1; a device_map split (transformers'
    'auto', Accelerate) fills the GPUs in order and keeps a vision tower whole on one. A lead with its fix and ask,
    not a verdict: the engine's start-up log says which layout it took."""
    # (review35) "只有一张卡被利用推理，导致显存不够" (only one card used, so out of memory: OpenMOSS/MOSS#151): one GPU
    # doing the work beside an out-of-memory error says the same as the others staying empty
    c = memory_unsplit(facts) or one_gpu_in_use(facts)
    if c is None or not _several_gpus(facts) or not claims.out_of_memory(facts):
        return
    ask = ("the engine's start-up log lines that print its parallel configuration (tp / tensor_parallel_size / world "
           "size, or the device_map) and `nvidia-smi` while the model loads")
    yield make("ticket.memory_unsplit", "insufficient_data", "info", 0.0,
               "Out of memory with the model on some GPUs and the others nearly empty: it was not split (evenly) over "
               "them",
               "Where one GPU fills and runs out of memory while the other GPUs hold almost nothing, the weights were "
               "placed on that GPU alone (or split unevenly), not sharded over all of them. Serving engines shard only "
               "when the tensor-parallel size reaches them (LMDeploy's pipeline() and vLLM default to 1, and a setting "
               "passed under the wrong keyword is ignored); a layer split by device_map fills the GPUs in order and "
               "keeps a vision encoder whole on the first.",
               [claim_ev(c, "where the memory sits")],
               fix=f"attach {ask}; set the tensor-parallel size in the engine's own config (LMDeploy: "
               "pipeline(model, backend_config=TurbomindEngineConfig(tp=N)), `--tp N`; vLLM: "
               "tensor_parallel_size=N) and check its start-up log prints it; with a device_map split, cap each GPU's "
               "share (max_memory per device, or the launcher's per-device limit) so the layers spread evenly",
               refs=["https://lmdeploy.readthedocs.io/en/latest/multi_modal/vl_pipeline.html",
                     "https://huggingface.co/docs/accelerate/usage_guides/big_modeling"], ask=ask)


# The GPU's idle state read as a fault: NVIDIA's performance states run from P0 (maximum) to P12 (minimum), and a
# GPU holding a CUDA context is kept at a compute state (P2 or P0) rather than P8 while a process owns it; its draw
# at idle stays far below the board's limit (nvidia-smi(1) "Performance State"; NVML nvmlDeviceGetPerformanceState:
# https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html).
NVML_PSTATE = "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceQueries.html"
_IDLE_WORDS = re.compile(r"\bidl(?:e|es|ing|ed)\b|\bat rest\b|\bno (?:load|requests?|traffic|work(?:load)?)\b|"
                         r"\bnothing (?:is )?running\b|\bbetween (?:requests|generations|runs|jobs)\b|"
                         r"空闲|闲置|待机|アイドル|유휴|\bim Leerlauf\b|\bв простое\b|\ben reposo\b", re.I)
_STATE_READING = re.compile(r"(?<![A-Za-z0-9])P(?:1[0-2]|[0-9])(?![0-9A-Za-z])|\b(?:power|performance|perf)[- ]state\b|"
                            r"\b\d+(?:\.\d+)?\s*W\b|\b\d{2,4}\s*MHz\b|\bclocks?\b|\bpower (?:draw|usage|consumption)\b",
                            re.I)
_DRAW_OF_CAP = re.compile(r"\b(\d+(?:\.\d+)?)\s*W?\s*/\s*(\d+(?:\.\d+)?)\s*W\b", re.I)  # "38W / 140W", "38/140W"


def idle_reading(facts: Facts) -> claims.Claim | None:
    """The reporter's reading of a GPU's state, clocks or power while it has nothing to do, or None (a question
    whether it idles, asked in any form: "Persistence mode will switch to p8 when idle ?" (crashr/gppm#2) asks in its
    last clause, claims.offered; a negated or conditional idle, or no reading in the same sentence)."""
    first = None
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            m = _IDLE_WORDS.search(sentence)
            if not m or not _STATE_READING.search(sentence) or claims.negated_words(sentence, m) \
                    or claims.conditional(sentence[:m.start()], when=False) or claims.offered(sentence, m.start()):
                continue
            first = first or (source, sentence)
            draw = _DRAW_OF_CAP.search(sentence)  # a draw said of the idle GPU, not one under load elsewhere
            if draw and float(draw.group(2)) > 0:
                return claims.Claim("idle_reading", source, claims.one_line(sentence)[:200],
                                    {"draw_w": float(draw.group(1)), "cap_w": float(draw.group(2))})
    return claims.Claim("idle_reading", first[0], claims.one_line(first[1])[:200]) if first else None


# (healthy31) A CUDA release as tools print it ("12.2", "11.3", "CUDA Version: 12.2", "V12.1.105"), not a longer number.
_CUDA_RELEASE = re.compile(r"(?<![\w.])V?(\d{1,2})\.(\d)(?:\.\d+)?(?!\w|\.\d)")
VERSION_SPAN = 300  # the two tools named within this many characters of one paragraph


def _release_after(paragraph: str, pos: int) -> tuple[int, int] | None:
    m = _CUDA_RELEASE.search(paragraph, pos, pos + 60)
    return (int(m.group(1)), int(m.group(2))) if m else None


def cuda_versions_compared(facts: Facts) -> tuple[str, str, dict, dict] | None:
    """(source, quote, driver row, toolkit row) where one paragraph of the reporter's own words (not a pasted output)
    names a tool whose "CUDA version" is the driver's and one whose is a toolkit's (rules/catalog/cuda_versions.toml)
    beside the word version; None when none does, or when the driver's stated release is the lower: a driver too old
    for the toolkit is a fault, not a reading."""
    rows = catalog.cuda_version_sources()
    for source, text in claims.own_texts(facts):  # an environment dump names both tools without comparing them
        for paragraph in re.split(r"\n\s*\n", text):
            if not re.search(r"\bversions?\b|版本", paragraph, re.I):
                continue
            named: dict[str, tuple[re.Match, dict]] = {}
            for row in rows:
                m = re.search(rf"(?<![\w.-]){re.escape(row['tool'])}(?![\w-])", paragraph, re.I)
                if m:
                    named.setdefault(row["reports"], (m, row))
            if "driver" not in named or "toolkit" not in named:
                continue
            (at_driver, driver), (at_toolkit, toolkit) = named["driver"], named["toolkit"]
            if abs(at_driver.start() - at_toolkit.start()) > VERSION_SPAN:
                continue
            said_driver, said_toolkit = _release_after(paragraph, at_driver.end()), _release_after(paragraph,
                                                                                                   at_toolkit.end())
            if said_driver and said_toolkit and said_driver < said_toolkit:
                return None  # the toolkit newer than the driver runs
            a, b = sorted((at_driver.start(), at_toolkit.start()))
            return source, claims.one_line(paragraph[max(0, a - 40):b + 80]), driver, toolkit
    return None


@rule("ticket.cuda_version_sources", "healthy")
def cuda_version_sources(facts: Facts, predictions=None):
    """'nvcc says 11.3 but nvidia-smi still says 12.2': the two report different things by design (the driver's newest
    supported CUDA, a toolkit's release). Only a question, with no complaint, failure or fault in sight."""
    said = claims.symptom_quote(facts)
    if (said and said[2] not in ("normal?", "other")) or claims.complaint(facts) or fault_context(facts):
        return
    found = cuda_versions_compared(facts)
    if not found:
        return
    source, quote, driver, toolkit = found
    yield passed("ticket.cuda_version_sources",
                 f"{driver['tool']}'s CUDA version is the driver's, {toolkit['tool']}'s a toolkit's: they differ by "
                 "design",
                 f"{driver['tool']} reports {driver['meaning']}; {toolkit['tool']} reports {toolkit['meaning']}. A "
                 "driver runs every CUDA toolkit up to its own CUDA version, so a lower toolkit release beside it is "
                 f"expected (rules/catalog/cuda_versions.toml; {driver['url']}).",
                 [ev(source, f'the versions compared: "{quote}"')], 0.65)


# An idle draw above this share of the board's limit is no longer "idling" (a process keeping the GPU busy).
IDLE_DRAW_SHARE = 0.5


@rule("ticket.idle_reading", "healthy")
def idle_state(facts: Facts, predictions=None):
    """'nvidia-smi shows my idle GPU at P2 (or P0, or its clocks up)' with nothing slow and nothing broken in sight:
    the driver's power management at work, not a fault. Weak (0.5): any complaint or fault outweighs it."""
    c = idle_reading(facts)
    if c is None or claims.other_vendor(facts):
        return  # P-states and the driver's power management are NVIDIA's: another vendor's idle draw is not them
    if claims.complaint(facts) or fault_context(facts) or claims.symptom(facts) in FAILURES:
        return
    draw, cap = c.data.get("draw_w"), c.data.get("cap_w")
    if draw is not None and draw > IDLE_DRAW_SHARE * cap:
        return  # drawing most of its limit: busy, whatever the reporter calls it
    evidence = [claim_ev(c, "the idle reading")]
    if draw is not None:
        evidence.append(ev(c.cited, "idle draw against the board's power limit", draw, cap, "W"))
    yield passed("ticket.idle_reading",
                 "The idle GPU's state and draw are the driver's power management, not a fault",
                 "NVIDIA GPUs run from performance state P0 (maximum) down to P8/P12 at rest; while a process holds a "
                 "CUDA context (a loaded model, a server waiting for requests) the driver keeps the GPU at a compute "
                 "state such as P2, and it draws a small share of its power limit"
                 + (f" ({draw:g} W of {cap:g} W here)" if draw is not None else "")
                 + ". Nothing runs slower for it; the state drops when the process exits.",
                 evidence, 0.5)


# --------------------------------------------------------------------------- one GPU model against another (issue 11 r)
# "The 4090 answers 5x faster than the V100", "A10 比 A100 慢": two GPU products set against each other. Decode streams
# the weights through HBM and prefill runs on the tensor cores, so a board behind the other on both datasheet figures
# (memory bandwidth and 16-bit tensor rate, rules/catalog/gpus.toml with its sources) is slower by design.
# (para38b) "stronger" and "better" in Chinese with their comparative 更: "A100 理应比 A6000 更强", "比 V100 更好"
_FASTER = re.compile(r"\b(?:faster|quicker|better|outperforms?|beats?)\b|快|高于|强于|更强|更好|速い|빠르|schneller|"
                     r"быстрее|m[aá]s r[aá]pid[oa]", re.I)
_SLOWER = re.compile(r"\b(?:slower|worse|behind)\b|慢|低于|不如|遅い|느리|langsamer|медленнее|m[aá]s lent[oa]", re.I)
_CLAUSE_END = re.compile(r"\b(?:and|but|while|whereas)\b|[,;:，；。、]|但|而|が、|그런데|aber|pero|но\b", re.I)
_THAN = re.compile(r"\b(?:than|vs\.?|versus|compared (?:to|with))\b|比|より|보다|\bals\b|\bчем\b|\bque\b", re.I)
# What the reporter expected rather than saw: "the A100 should be better than the A6000", "I'd expect the H100 to beat
# the A100", "我以为 H100 应该比 A100 快". An expectation says which board came out ahead only with what the run showed
# beside it (_expectation_missed).
_EXPECTED = re.compile(r"\b(?:should(?:n['’]t)?|ought to|supposed to|expected to|would expect|I(?:['’]d| would)? "
                       r"(?:have )?(?:thought|expect|expected|assumed|believed))\b|"
                       r"应该|应当|本应|理应|按理|以为|はず|べき|sollte|deber[íi]a|должн", re.I)
# A comparison said by its verb, with no "than": "the H100 beats the A100", "A outperforms B".
# (hostbound36) Two boards said to run at one pace: "the RTX 3080 generates tokens at the same speed as the RTX 3060",
# "the A100 is as fast as the T4", "same tok/s on the 4090 as on the 3060" (koboldcpp#810: grammar sampling on the CPU
# set the pace of both); "not as fast as" is slower and stays with _SLOWER's readers (_NOT_BEFORE).
_SAME_PACE = re.compile(r"\b(?:the\s+)?same\s+(?:speed|rate|pace|throughput|performance|tokens?\s*(?:/|per)\s*s\w*|"
                        r"tok/s|t/s|it/s|latency)\s+(?:as|than)\b|\b(?:(?:just|exactly|only)\s+)?as\s+(?:fast|quick)\s+as\b|"
                        r"\bno\s+faster\s+than\b|跟.{0,6}一样快|和.{0,6}一样快", re.I)
# (review36) ... but "twice as fast as", "three times as fast as", "3x as fast as", "half as fast as" state a factor,
# no one pace: the words right before "as fast as".
_MULTIPLE_BEFORE = re.compile(r"(?:\b(?:twice|thrice|half|times)|\d\s*x|×)\s*$", re.I)
_BEATS = re.compile(r"\b(?:beats?|outperform(?:s|ed)?|outpac(?:es?|ed))\b", re.I)
# A comparative said with a negation: "the A100 should not be slower than the A6000" expects it faster.
_NOT_BEFORE = re.compile(r"(?:\bnot|n't|\bnever|\bno)\s+(?:\w+\s+){0,2}$|不|没", re.I)
# The run fell short of the expectation, said after it (in the sentence or the next): a contrast ("but", "yet",
# "instead", "however"), a denial ("it isn't", "it does not"), or a slower word ("it takes longer", "it's behind").
_MISSED = re.compile(r"\b(?:but|yet|instead|however|though|although|unfortunately)\b|\b(?:it|they|that|this)(?:['’]s|"
                     r"\s+(?:is|are|was|were|does|do|did|has|have))(?:n['’]t|\s+not)\b|\b(?:slower|worse|behind|longer|"
                     r"lags?|lagg\w*|fall(?:s|en)? short|fell short)\b|但|却|然而|反而|实际|其实|更慢|不如|しかし|"
                     r"\baber\b|\bpero\b|\bно\b", re.I)
# ... or before it: "can not reach the 12.44 ms/token, and the A100 should be better than the A6000".
_SHORT_OF = re.compile(r"\b(?:can ?not|can['’]t|could(?:n['’]t| not)|unable to|fail(?:s|ed)? to|(?:does|did)(?:n['’]t|"
                       r" not))\s+(?:\w+\s+)?(?:reach|get|match|achieve|hit|attain)\b|达不到|无法达到", re.I)
# The run bore the expectation out: "..., and it is", "and it was: 2x the tokens/s", "which it does", "as expected".
_MET = re.compile(r"^\W*(?:and|which)\s+(?:it|they|that|so it)\s+(?:is|are|was|were|does|do|did)\b"
                  r"(?!\s*(?:not|n['’]t))|^\W*(?:and\s+)?(?:as expected|indeed)\b", re.I)
# A question that the board should be ahead: "Shouldn't the H100 be faster than the A100?", "Isn't the H100 supposed to
# be faster?": asked because it was not.
_WHY_NOT = re.compile(r"^\W*(?:should(?:n['’]t| not)|is(?:n['’]t| not)|would(?:n['’]t| not)|was(?:n['’]t| not))\b",
                      re.I)


# (review35b) A yes/no question about which board is slower ("Is the RTX 5090 slower than the RTX 4090?"): asked
# before buying or out of interest, not a run the reporter saw; "Isn't the H100 supposed to be faster?" is an
# expectation missed (gpus_compared's data["expected"]) and stays.
# Only where the boards are the question's subject: "Is it normal that my RTX 5090 is slower than my 4090?" tells a run.
_YES_NO = re.compile(r"^\W*(?:is|are|was|were|will|would|does|do|did|can|could|should|might)\s+"
                     r"(?:(?:the|a|an|NVIDIA|GeForce)\s+)?$", re.I)


def _only_asked(facts: Facts, c: claims.Claim) -> bool:
    """Is the comparison a yes/no question, with no slowness said elsewhere in the ticket? Then no board came out
    behind in a run, and neither the build nor the host is a lead."""
    from diagnose.artifacts.issue_md import GPU_NAME

    sentence = claims.sentence_of(facts, c)
    first = GPU_NAME.search(sentence)
    return (not c.data.get("expected") and claims.asked(sentence) and first is not None
            and bool(_YES_NO.search(sentence[:first.start()]))
            and claims.complaint(facts, skip=_SLOWER) is None)


def _expectation_missed(sentence: str, start: int, end: int, following: str) -> bool | None:
    """Did the run miss the expectation said between `start` and `end` of the sentence: True (said so after it, in the
    sentence or the next, or before it, or asked "shouldn't A be faster?"), False (borne out: "and it is"), None (not
    said either way)."""
    after = sentence[end:]
    if _MET.search(after):
        return False
    if _MISSED.search(after + " " + following) or _SHORT_OF.search(sentence[:start]):
        return True
    return True if claims.asked(sentence) and _WHY_NOT.search(sentence) else None


def gpus_compared(facts: Facts):
    """(the GPU the run showed slower, the faster one, the claim) from one sentence that names two catalog GPUs with a
    comparison between them ("not faster" is slower; "A should be faster than B, but ..." is an expectation the run
    missed, so A came out behind: data["expected"]; borne out, "and it is", A came out ahead); None when no sentence
    does, a name is not in the catalog, or the direction is not said."""
    from diagnose.artifacts.issue_md import GPU_NAME, gpu_as_written

    for source, text in claims.texts(facts):
        said_all = claims.sentences(text)
        for i, sentence in enumerate(said_all):
            # (a laptop part, "my laptop RTX 4090", is its own row or none: never the desktop card, review35b)
            names = [(m, _board_named(facts, gpu_as_written(sentence, m))) for m in GPU_NAME.finditer(sentence)]
            named = [(m, g) for m, g in names if g is not None]
            if len(named) < 2 or named[0][1].key == named[1][1].key:
                continue
            (ma, a), (mb, b) = named[:2]
            between, after = sentence[ma.end():mb.start()], sentence[mb.end():mb.end() + 40]
            after = _CLAUSE_END.split(after, 1)[0]  # "A100 vs H100 and the H100 is slower": the next clause's own
            same = _SAME_PACE.search(between)
            if same and not _NOT_BEFORE.search(between[:same.start()]) \
                    and not _MULTIPLE_BEFORE.search(between[:same.start()]) and not claims.asked(sentence) \
                    and not claims.guessed(sentence, ma.start()):
                # (hostbound36) "the RTX 3080 generates at the same speed as the RTX 3060": the pace does not follow
                # the boards; the one ahead on the datasheets is the one that came out no faster (slow, fast)
                quote = claims.one_line(sentence[max(0, ma.start() - 30):mb.end() + 40])
                c = claims.Claim("gpus_compared", source, quote, {"expected": False, "same": True})
                return (a, b, c) if a.hbm_gbs >= b.hbm_gbs else (b, a, c)
            if not (_THAN.search(between) or _BEATS.search(between)) \
                    or claims.guessed(sentence, ma.start()) and not claims.asked(sentence):
                continue
            said = between + " " + after
            faster, slower = _FASTER.search(said), _SLOWER.search(said)
            if bool(faster) == bool(slower):
                continue  # no direction, or both words ("faster ... but slower at prefill")
            word = faster or slower
            fast = bool(faster) != bool(_NOT_BEFORE.search(said[:word.start()]))  # "not slower" says faster
            # "A should be faster than B, but ..." tells what the run did not show: the board expected ahead came out
            # behind ("A should be slower than B, why?" asks about the expectation itself and keeps its direction)
            expected = fast and bool(_EXPECTED.search(_CLAUSE_END.split(sentence[:ma.start()])[-1] + " " + between))
            if expected:
                following = said_all[i + 1] if i + 1 < len(said_all) else ""
                missed = _expectation_missed(sentence, ma.start(), mb.end() + len(after), following)
                if missed is None:
                    continue  # an expectation alone says nothing of what the run did
                expected = missed
            quote = claims.one_line(sentence[max(0, ma.start() - 30):mb.end() + 40])
            c = claims.Claim("gpus_compared", source, quote, {"expected": expected})
            return (a, b, c) if expected or not fast else (b, a, c)
    return None


def _board_named(facts: Facts, name: str | None):
    """A GPU name's catalog row, with the variant the reporter states apart from the name (rules.subject.Subject.board)
    once the subject is resolved (rules.engine.evaluate does it before any rule); from the name alone for a caller that
    asks this question of facts read but not evaluated."""
    if facts.subject is not None:
        return facts.subject.board(name)
    return catalog.resolve_gpu(name) if name else None


def _best_rate(facts: Facts, board) -> float | None:
    """The highest tokens/s the ticket reports for one board: figures its clause says of that board, or naming
    no board where the ticket's GPU is it."""

    own = facts.subject is not None and facts.subject.gpu is not None and facts.subject.said_of(board.key)
    rates = [m.value for m in facts.of(Measurement) if m.unit == "tok/s" and m.stat == "reported"
             and (getattr(_board_named(facts, m.gpu_name), "key", None) == board.key if m.gpu_name else own)]
    return max(rates, default=None)


def _boards_compared(facts: Facts):
    """gpus_compared's (slower, faster, claim) where the datasheets may judge it: no failure or fault in sight, not
    both boards' rates with the model (ticket.rate_ratio sets those against the predictor's ratio), and no figures
    of the ticket's own that put the board said slower ahead."""
    found = gpus_compared(facts)
    if found is None or fault_context(facts) or claims.symptom(facts) in FAILURES \
            or ticket_ratio.ratio_judged(facts) is not None:
        return None
    slow, fast, _ = found
    slow_rate, fast_rate = _best_rate(facts, slow), _best_rate(facts, fast)
    return None if slow_rate is not None and fast_rate is not None and slow_rate >= fast_rate else found


def _datasheets(c: claims.Claim, slow, fast) -> list:
    """The comparison quoted and both boards' catalog figures, the board said slower as the measured side."""
    return [claim_ev(c, "the GPUs compared"),
            ev("catalog:gpus.toml", f"memory bandwidth, {slow.name} vs {fast.name}", slow.hbm_gbs, fast.hbm_gbs,
               "GB/s"),
            ev("catalog:gpus.toml", f"dense 16-bit tensor rate, {slow.name} vs {fast.name}", tensor_rate(slow),
               tensor_rate(fast), "TFLOPS")]


# (forum36) What a comparison of two boards is about: token generation, which reads every weight from memory once per
# step and so follows memory bandwidth alone (NVIDIA, "Mastering LLM Techniques: Inference Optimization": decode is
# memory-bandwidth bound), or work that runs on the tensor cores (a prompt processed, prefill, training), where a lead
# in tensor rate shows. Generation of tokens said in words or units ("token generation", "generating tokens", "text
# generation", "decode", "tok/s", "t/s", llama-bench's tg128; not "generation" alone, which an image's is too);
# compute work said likewise ("prompt processing", "prefill", pp512, "TTFT", "training"), and the compute-bound
# generation of images and video (diffusion models run large convolutions and attention over every pixel latent).
_GENERATION_SAID = re.compile(r"\b(?:tok(?:en)?s?\s+generat\w*|generat\w*\s+(?:\w+\s+){0,2}?tok(?:en)?s|"
                              r"text\s+generat\w*|decod\w*|tg\d+)\b|(?<![\w/])(?:tok(?:en)?s?|t)/s\b|"
                              r"\btokens?\s+(?:per|a)\s+sec(?:ond)?\b", re.I)
_COMPUTE_SAID = re.compile(r"\b(?:prompt\s+(?:processing|eval\w*|ingestion)|prefill\w*|pp\d+|TTFT|"
                           r"time\s+to\s+first\s+token|train\w*|fine-?tun\w*|diffusion|images?|videos?|"
                           r"render\w*|it/s)\b", re.I)


# (review36) A factor the reporter states between the two boards: "5 times slower", "half the speed" (claims.
# figure_losses), "3x faster", "twice as fast".
_FACTOR_FASTER = re.compile(r"\b(\d+(?:\.\d+)?)\s*(?:x|×|times)\s+(?:faster|quicker|as\s+fast)\b|"
                            r"\b(twice|thrice)\s+as\s+fast\b", re.I)


def _stated_factor(quote: str) -> float | None:
    """The largest factor the comparison's own words state between the boards, None where they state none."""
    found = [f for _, f in claims.figure_losses(quote)]
    for m in _FACTOR_FASTER.finditer(quote):
        found.append(float(m.group(1)) if m.group(1) else {"twice": 2.0, "thrice": 3.0}[m.group(2).lower()])
    return max(found, default=None)


def _beyond_datasheets(facts: Facts, explained: float) -> bool:
    """(review36) Does the ticket state a factor past what the datasheets explain (`explained`, the faster board's
    lead) by more than catalog.UNLIKE: "5 times slower" where memory bandwidth gives 1.3x is no physics? Any sentence
    counts (the comparison's title may hold none, its body the factor): a factor said of something else only
    silences the datasheet answer."""
    factors = [f for _, text in claims.texts(facts) for sentence in claims.sentences(text)
               if (f := _stated_factor(sentence)) is not None]
    return max(factors, default=0.0) > catalog.UNLIKE * explained


# (ep37) Prompt processing said in words or llama-bench's units, not training or images (whose GEMMs accumulate in
# FP32 in PyTorch whatever the board): the work a prompt-processing path's accumulate precision sets the pace of.
_PROMPT_SAID = re.compile(r"\b(?:prompt\s+(?:processing|eval\w*|ingestion)|prefill\w*|pp\d+|TTFT|"
                          r"time\s+to\s+first\s+token)\b", re.I)


# (review38) Ollama's `--verbose` prints the prompt's rate and the generation's apart, each in tokens/s: "prompt eval
# rate: 2500 tokens/s" (PromptEvalCount over PromptEvalDuration) then "eval rate: 120 tokens/s" (Metrics.Summary in
# https://github.com/ollama/ollama/blob/main/api/types.go; a kept paste: tests/data/ut7/t19_ollama11676.md). The unit
# after "prompt eval rate" is the prompt's: no generation said.
_PROMPT_RATE = re.compile(r"\bprompt[ _]eval(?:uation)?[ _]rate\b[^\n\d]{0,20}?[\d.,]+\s*(?:tok(?:en)?s?|t)/s\b", re.I)


def _prompt_compared(facts: Facts) -> bool:
    """Is the ticket's comparison one of prompt processing: a prompt's processing named, and neither token generation
    nor other compute work (training, images) anywhere beside it (a prompt's own rate unit, _PROMPT_RATE, is none)?"""
    said = _PROMPT_RATE.sub(" prompt eval ", "\n".join(text for _, text in claims.texts(facts)))
    return bool(_PROMPT_SAID.search(said)) and not _GENERATION_SAID.search(said) \
        and not _COMPUTE_SAID.search(_PROMPT_SAID.sub(" ", said))


def _prompt_path(facts: Facts) -> str | None:
    """The accumulate precision of the 16-bit GEMMs a prompt is processed with: "fp16" where every engine the ticket
    names takes FP16 accumulation (rules/catalog/engines.toml gemm_accumulate: llama.cpp's cuBLAS calls use
    CUBLAS_COMPUTE_16F, and Ollama, LM Studio and koboldcpp embed it), "fp32" where one it names is known to accumulate
    in FP32 (vLLM, SGLang, TensorRT-LLM, transformers ...), None where it names no engine the catalog knows."""
    known = [e for family in claims.engines_named(facts) if (e := catalog.find_engine(family)) is not None]
    if not known:
        return None
    return "fp16" if all(e.gemm_accumulate == "fp16" for e in known) else "fp32"


def _half_accumulate_even(facts: Facts, slow, fast) -> bool:
    """(ep37) In a comparison of prompt processing, is the board said faster at least even with the other on the tensor
    rate of FP16 accumulation (gpus.toml fp16_acc16_tflops: GeForce boards run it at twice their FP32-accumulate rate;
    data-centre boards run both alike), on a path that takes it or may have (no engine named)? Then a GeForce board
    ahead of a data-centre one at processing prompts is its datasheet, not something outside the GPU."""
    if not fast.fp16_acc16_tflops or not _prompt_compared(facts) or _prompt_path(facts) == "fp32":
        return False
    return fast.tflops("fp16acc16") >= slow.tflops("fp16acc16")


def _generation_compared(facts: Facts) -> bool:
    """Is the ticket's comparison one of token generation: generation named in its words, and no prompt processing,
    prefill or training anywhere beside it (a ticket naming both may compare either, so it is not judged here)?"""
    said = "\n".join(text for _, text in claims.texts(facts))
    return bool(_GENERATION_SAID.search(said)) and not _COMPUTE_SAID.search(said)


@rule("ticket.gpus_compared", "expected_physics")
def gpu_models_compared(facts: Facts, predictions=None):
    """'Why is GPU A slower than GPU B?' where A is behind B on both memory bandwidth and tensor rate and nothing is
    broken in sight: the datasheets predict it. Also where A leads on tensor rate but trails on memory bandwidth by
    catalog.UNLIKE or more and the comparison is of token generation (_generation_compared): decode reads every weight
    once per token, so the rate follows bandwidth and the tensor lead does not enter (an RTX 4080 at 717 GB/s behind
    an RTX 3090's 936, an RTX 4060 Ti at 288 behind a 3060 Ti's 448; measured alike in
    https://github.com/sudoingX/qwen38-mtp/pull/63, 4060 Ti against 5060 Ti tg 0.67 at a 0.64 bandwidth ratio, and
    https://github.com/danielesalpietro/kickstart-berlin/issues/58, 3090 against 5060 Ti tg 150 against 88 t/s while the
    newer card's prompt processing is close). Silent when the slower board leads on bandwidth, or leads on tensor rate
    in a comparison not said to be of generation (then something else holds it back, which the figures here cannot
    tell), or when the ticket measured the board the datasheets put behind at the higher rate (the figures contradict
    the datasheets: not physics), or where both boards' rates and the model are known (ticket.rate_ratio sets them
    against the predictor's ratio). (ep37) Also a board ahead at prompt processing that is at least even on the
    FP16-accumulate tensor rate, on an engine that takes that path or none named (_half_accumulate_even: an RTX 4090's
    330 TFLOPS against an A100's 312 in llama.cpp, where the FP32-accumulate figures say 165 against 312)."""
    found = _boards_compared(facts)
    if found is None:
        return
    slow, fast, c = found
    if _half_accumulate_even(facts, slow, fast):
        lead = fast.tflops("fp16acc16") / slow.tflops("fp16acc16")
        if not _beyond_datasheets(facts, lead):
            yield _prompt_even(facts, c, slow, fast)
        return
    behind_both = slow.hbm_gbs < fast.hbm_gbs and tensor_rate(slow) < tensor_rate(fast)
    # (review36) the most the datasheets explain: the faster board's larger lead, or its bandwidth lead in generation
    lead = max(fast.hbm_gbs / slow.hbm_gbs, tensor_rate(fast) / tensor_rate(slow)) if behind_both \
        else fast.hbm_gbs / slow.hbm_gbs
    if _beyond_datasheets(facts, lead):
        return
    if not behind_both:
        if fast.hbm_gbs < catalog.UNLIKE * slow.hbm_gbs or not _generation_compared(facts):
            return
        yield make("ticket.gpus_compared", "expected_physics", "info", 0.5,
                   f"{slow.name} behind {fast.name} at generating tokens: generation follows memory bandwidth "
                   f"({slow.hbm_gbs:g} against {fast.hbm_gbs:g} GB/s)",
                   f"Generating a token reads every weight from memory once, so one stream's rate follows memory "
                   f"bandwidth: the {fast.name}'s is {fast.hbm_gbs / slow.hbm_gbs:.1f}x the {slow.name}'s. The "
                   f"{slow.name}'s higher tensor rate ({tensor_rate(slow):g} against {tensor_rate(fast):g} dense "
                   f"16-bit TFLOPS) speeds prompt processing and large batches, not token generation, so it "
                   f"generates slower by design.",
                   _datasheets(c, slow, fast),
                   fix=f"Nothing is broken if the {fast.name} generates about {fast.hbm_gbs / slow.hbm_gbs:.1f}x as "
                   f"fast (memory bandwidth ratio); compare prompt processing (pp512 in llama-bench, TTFT) to see "
                   f"the {slow.name}'s tensor lead; `diagnose predict --gpu` for each board gives the expected rates.")
        return
    yield make("ticket.gpus_compared", "expected_physics", "info", 0.5,
               f"{slow.name} behind {fast.name}: its datasheet figures are lower on both counts",
               f"Generating tokens reads every weight from memory once per step, so its rate follows memory bandwidth "
               f"({slow.hbm_gbs:g} GB/s against {fast.hbm_gbs:g} GB/s); prompt processing and batches run on the "
               f"tensor cores ({tensor_rate(slow):g} against {tensor_rate(fast):g} dense 16-bit TFLOPS). A board "
               f"behind on both is slower by design; older boards may also lack the kernels a quantised model uses.",
               _datasheets(c, slow, fast),
               fix="Nothing is broken if the ratio of the rates is near the ratio of these figures; `diagnose predict "
               "--gpu` for each board gives the expected rate of this model on it.")


def _prompt_even(facts: Facts, c: claims.Claim, slow, fast):
    """gpus_compared's finding where a board ahead at prompt processing is at least even on the FP16-accumulate tensor
    rate (_half_accumulate_even): 0.5 where the engine named takes that path, 0.4 where no engine is named."""
    known = _prompt_path(facts) == "fp16"
    half, other = fast.tflops("fp16acc16"), slow.tflops("fp16acc16")
    evidence = _datasheets(c, slow, fast) + [
        ev("catalog:gpus.toml", f"dense 16-bit tensor rate with FP16 accumulate, {slow.name} vs {fast.name}", other,
           half, "TFLOPS")]
    path = "the engine named takes it" if known else \
        "llama.cpp and the programs that embed it take it; vLLM, SGLang, TensorRT-LLM and transformers do not"
    return make("ticket.gpus_compared", "expected_physics", "info", 0.5 if known else 0.4,
                f"{fast.name} ahead of {slow.name} at prompt processing: even or ahead on the tensor rate it runs at",
                f"Processing a prompt runs on the tensor cores, and 16-bit GEMMs that accumulate in FP16 ({path}: "
                f"CUBLAS_COMPUTE_16F in ggml-cuda) run on the {fast.name} at {half:g} TFLOPS, twice its "
                f"FP32-accumulate {tensor_rate(fast):g}, against the {slow.name}'s {other:g}: at least even, and its "
                f"higher boost clock helps short prompts. The {slow.name}'s lead in memory bandwidth ({slow.hbm_gbs:g} "
                f"against {fast.hbm_gbs:g} GB/s) shows in token generation, not here.",
                evidence,
                fix=f"Nothing is broken; compare token generation (tg128 in llama-bench), where the {slow.name}'s "
                "memory bandwidth leads, and `diagnose predict --gpu` for each board with the engine named.",
                refs=["https://github.com/ggml-org/llama.cpp/blob/master/ggml/src/ggml-cuda/ggml-cuda.cu"])


def _host_said(facts: Facts) -> bool:
    """Does the reporter show the host at its limit: a faster CPU helping, a core pegged or held at 100 %, kernel
    launches named as the wait (the claims ticket.cpu_bound and ticket.launch_overhead read)?"""
    return bool(claims.find(facts, "cpu_ab") or claims.find(facts, "cpu_pegged_row") or claims.cpu_ceiling(facts)
                or claims.find(facts, "launch_overhead"))


def _newer_arch_behind(facts: Facts, slow, fast, c: claims.Claim) -> bool:
    """(newarch35) The board said slower is of a newer architecture than the other (compute capability,
    rules/catalog/gpus.toml) and not a smaller card (at least its memory bandwidth, which sets decode), with nothing
    said of the host, no build named that compiles for that architecture, and not only asked (_only_asked): the lead
    is the build, which may hold no code for the newer GPU (build.tags_below, build.support_said)."""
    if not (slow.compute_capability > fast.compute_capability > 0 and slow.hbm_gbs >= fast.hbm_gbs):
        return False
    if _host_said(facts) or build_arch.support_said(facts) or _only_asked(facts, c):
        return False
    named = build_arch.build_tags(facts)
    old, _ = build_arch.tags_below(facts, slow.compute_capability)
    return not named or bool(old)


@rule("ticket.newer_arch_behind", "other")
def newer_arch_behind(facts: Facts, predictions=None):
    """'The RTX PRO 6000 is slower than the V100', 'the RTX 5080 is slower than my old 3060': a GPU of a newer
    architecture, with at least the other's memory bandwidth, came out behind. Its own limits cannot make it slower,
    and the commonest cause on a newer architecture is the software: a wheel, container or library built before that
    architecture (or for a list without it) runs JIT-compiled PTX and older kernels on it, or falls back to slower
    paths (no FlashAttention, quantised or FP8 kernels for it). A lead (0.45) where only the comparison is said; 0.55
    where a build tag the ticket names predates the architecture (rules/catalog/gpu_archs.toml). Silent where the host
    is shown at its limit (ticket.stronger_gpu_slower keeps that), where the reporter says the build supports the
    architecture or names one that does, or where the newer board is the smaller one (bandwidth physics)."""
    found = _boards_compared(facts)
    if found is None:
        return
    slow, fast, c = found
    if not _newer_arch_behind(facts, slow, fast, c):
        return
    old, row = build_arch.tags_below(facts, slow.compute_capability)
    if old and facts.subject is not None and facts.subject.gpu is not None and facts.subject.gpu.key == slow.key:
        return  # the ticket's own GPU on a build older than it: build.cuda_before_arch says it
    sm = f"sm_{int(slow.compute_capability)}{round(slow.compute_capability * 10) % 10}"
    said = "expected ahead, came out behind" if c.data.get("expected") else \
        "no faster" if c.data.get("same") else "said to be the slower one"
    evidence = [claim_ev(c, "the GPUs compared"),
                ev("catalog:gpus.toml", f"compute capability, {slow.name} vs {fast.name}", slow.compute_capability,
                   fast.compute_capability),
                ev("catalog:gpus.toml", f"memory bandwidth, {slow.name} vs {fast.name}", slow.hbm_gbs, fast.hbm_gbs,
                   "GB/s")]
    if old:
        evidence.append(claim_ev(old[0][0], f"the build named (CUDA {old[0][1]}; {sm} needs {row['min_cuda']}+)"))
    yield make("ticket.newer_arch_behind", "other", "warning", 0.55 if old else 0.45,
               f"{slow.name} ({said}, {sm}) is the newer architecture: check that the build holds code for it",
               f"{slow.name} is of a newer architecture than {fast.name} (compute capability "
               f"{slow.compute_capability:g} against {fast.compute_capability:g}) and reads memory at least as fast "
               f"({slow.hbm_gbs:g} against {fast.hbm_gbs:g} GB/s), so the GPU itself does not make it slower. A build "
               f"made before its architecture, or for a list without {sm}, runs it on PTX the driver compiles at "
               "start-up and on kernels of older GPUs, or without the fast attention and quantised kernels the other "
               "board gets" + (f"; the build named (CUDA {old[0][1]}) predates {sm}." if old else "."),
               evidence, fix=build_arch.build_fix(slow.compute_capability, row)
               + " Compare the two machines' `pip list` (torch and its +cuXXX tag, flash-attn, xformers, the engine's "
               "own wheel): a first run much slower than the next is PTX being JIT-compiled.",
               refs=[build_arch.ARCH_DOCS, build_arch.TORCH_INSTALL])


# (hostbound36) Two boards said to keep one pace point past the GPUs only where their memory bandwidth, which sets a
# decode step's time, differs by more than run-to-run and engine differences: a third (RTX 3080 against 3060, 760
# against 360 GB/s, or A100 against A6000 qualify; RTX 4090 against 3090, 1008 against 936 GB/s, does not).
SAME_PACE_MARGIN = 1.3


@rule("ticket.stronger_gpu_slower", "host_bound", "launch_bound")
def stronger_gpu_slower(facts: Facts, predictions=None):
    """'The A100 should be better than the A6000' (it came out behind), 'the H100 is slower than the A800': the board
    ahead on both datasheet figures delivered less; or no more ('the RTX 3080 generates at the same speed as the RTX
    3060'), where its memory bandwidth is at least SAME_PACE_MARGIN (1.3x) the other's. A GPU's own limits cannot
    make it slower than a board it beats on memory bandwidth and tensor rate, so something outside the GPU set the
    step time: most often the host thread that feeds it (kernel launches and Python per token, where a desktop CPU's
    single core outruns a server's), else a different engine build or setting between the two runs, or the stronger
    board held at low clocks. A weak lead (0.4): the words cannot tell these apart. Silent where both boards' rates
    and the model are known (ticket.rate_ratio judges them), where the ticket's own figures put the stronger board
    ahead, on a failure, or (ep37) in prompt processing on FP16 accumulation, where the board said faster is not behind
    (ticket.gpus_compared answers it)."""
    found = _boards_compared(facts)
    if found is None:
        return
    slow, fast, c = found
    if not (slow.hbm_gbs > fast.hbm_gbs and tensor_rate(slow) > tensor_rate(fast)):
        return
    if _half_accumulate_even(facts, slow, fast):
        return  # (ep37) prompt processing on FP16 accumulation: the board said faster is not behind (gpus_compared)
    if c.data.get("same") and slow.hbm_gbs < SAME_PACE_MARGIN * fast.hbm_gbs:
        return  # boards close on bandwidth (RTX 4090 against 3090, 1008 against 936 GB/s) decode at nearly one pace
    if _only_asked(facts, c):
        return  # (review35b) a question before buying: no run came out behind, so no host to blame
    if _newer_arch_behind(facts, slow, fast, c) and build_arch.tags_below(facts, slow.compute_capability)[0]:
        return  # (newarch35) a build named that predates the newer architecture: ticket.newer_arch_behind says it
    # (s35 merge) with only the comparison said, the host stays a lead beside newer_arch_behind's build (0.45 against
    # 0.4): the words cannot tell them apart, and an H100 behind an A100 is as often the host as the build
    said = "expected ahead, came out behind" if c.data.get("expected") else \
        "no faster" if c.data.get("same") else "said to be the slower one"
    yield make("ticket.stronger_gpu_slower", "host_bound", "info", 0.4,
               f"{slow.name} ({said}) leads {fast.name} on both datasheet figures: the GPU does not set this rate",
               f"Decode reads every weight once per step and prefill runs on the tensor cores, so a board with more "
               f"memory bandwidth ({slow.hbm_gbs:g} against {fast.hbm_gbs:g} GB/s) and more tensor rate "
               f"({tensor_rate(slow):g} against {tensor_rate(fast):g} dense 16-bit TFLOPS) is faster whenever the GPU "
               f"is the limit. Behind here, it waits on something else: the host thread launching each token's "
               f"kernels (a faster CPU core, CUDA graphs or a compiled engine shorten it), a different engine version "
               f"or setting between the two runs, or clocks held low on the stronger board.",
               _datasheets(c, slow, fast),
               fix="Compare like with like: the CPU model and engine version and flags of both runs, and "
               "`nvidia-smi -q -d CLOCK,PERFORMANCE` on the stronger board while it generates; where one CPU core "
               "sits at 100 % during decode, the host is the limit (CUDA graphs, a compiled engine or a faster "
               "core help).")


# --------------------------------------------------------------------------- two boards' measured rates (issue 11 m)
def _models_said(fp, sp) -> str:
    """Which model each side's figure is of: one model for both, or each board's own ("13B on the 4090")."""
    return f"{fp.model}'s" if fp.model == sp.model else f"each board's own model's ({fp.model}, {sp.model})"


@rule("ticket.rate_ratio", "expected_physics", "other")
def rate_ratio(facts: Facts, predictions=None):
    """Two boards' measured decode rates (each of the model its own clause names, else the ticket's; one batch): their
    ratio against the ratio of the predictor's expected rates on each, within both boards' calibrated bands at their
    edges. Inside and neither board below its own band: the boards' physics, naming the step's limiting term and both
    expected figures. Outside (or one board alone below its band): that board delivers less than the other says it
    should. Silent on totals above one stream's bound, rates at two loads, results tables, a third board, or a rate
    whose model is ambiguous."""
    found = ticket_ratio.ratio_judged(facts)
    if found is None or claims.symptom(facts) in FAILURES:
        return
    fast, slow, measured, expected, (low, high) = found
    (fb, fm, fp), (sb, sm, sp) = fast, slow
    term = ticket_ratio.limiting_term(fp)
    evidence = [ev(fm, f"decode rate of {fp.model} on the {fb.name}", fm.value, round(fp.decode_tok_s_expected, 1),
                   "tok/s"),
                ev(sm, f"decode rate of {sp.model} on the {sb.name}", sm.value, round(sp.decode_tok_s_expected, 1),
                   "tok/s"),
                ev("prediction:expected", f"{fb.name} / {sb.name} decode rate ratio (expected: {fp.engine} profile, "
                   f"TP={fp.tp} and TP={sp.tp}, batch {fm.batch or 1}; band from each board's calibrated band)",
                   round(measured, 2), f"{low:.2f}-{high:.2f}", "x")]
    sheet = [ticket_ratio.datasheet(term, b) for b in (fb, sb)]
    share = {b.name: ticket_ratio.term_ms(p, term) / p.decode_step_ms_expected for b, p in ((fb, fp), (sb, sp))}
    evidence.append(ev("prediction:expected_terms", f"limiting term: {term}, its share of the expected step "
                       f"({fb.name} vs {sb.name})", round(share[fb.name], 2), round(share[sb.name], 2)))
    if sheet[0] is not None:
        evidence.append(ev("catalog:gpus.toml", f"{term} datasheet figure, {fb.name} vs {sb.name}", sheet[0][0],
                           sheet[1][0], sheet[0][1]))
    assumed = sorted({a for p in (fp, sp) for a in p.assumptions["assumed"]})
    if assumed:
        evidence.append(ev("prediction:assumptions", "assumed for both boards alike: " + "; ".join(assumed)))
    said = (f"{fb.name} {fm.value:g} tok/s against {sb.name} {sm.value:g} tok/s: x{measured:.2f}, expected "
            f"x{expected:.2f} ({low:.2f}-{high:.2f})")
    short = [s for s in (fast, slow) if ticket_ratio.below_own_band(s)]
    if low <= measured <= high and not short:
        if fault_context(facts):
            return  # a fault in sight: the ratio does not clear it
        yield make("ticket.rate_ratio", "expected_physics", "info", 0.55, f"{said}: the boards' physics",
                   f"Both figures are {_models_said(fp, sp)} decode on these boards: a step is limited by {term} "
                   f"({share[fb.name]:.0%} of the {fb.name}'s expected step, {share[sb.name]:.0%} of the "
                   f"{sb.name}'s), and what both boards pay alike (launches, the engine's host time) draws the "
                   "ratio toward 1 from the datasheets'; the band is each board's calibrated band at its edges.",
                   evidence, fix="Nothing is broken; the faster board's lead here is what its "
                   f"{term} allows (`diagnose predict --gpu` for each board gives both expected figures).")
        return
    if low <= measured <= high and len(short) == 2:
        return  # both boards short of their own bands alike: a cause they share, which the ratio cannot name
    short = fast if measured < low else slow if measured > high else short[0]
    other = slow if short is fast else fast
    yield make("ticket.rate_ratio", "other", "warning", 0.45,
               f"{said}: the {short[0].name} delivers less than the {other[0].name} says it should",
               f"Against {_models_said(fp, sp)} predictions at one batch, the {short[0].name}'s rate "
               f"({short[1].value:g} tok/s, "
               f"expected {short[2].decode_tok_s_expected:.0f}) falls behind what the {other[0].name}'s "
               f"({other[1].value:g}, expected {other[2].decode_tok_s_expected:.0f}) implies: something beyond "
               "physics costs the slower side time (clocks or power cap, host, engine build or settings).",
               evidence, fix=f"On the {short[0].name}: check clocks and power (`nvidia-smi -q -d CLOCK,POWER`), the "
               "engine version and flags against the other machine's, and time one request the same way on both.")


# --------------------------------------------------------------------------- one request against several (issue 11 r)
# "One request: 70 tok/s; two requests: 140 tok/s": the total grows with the requests in flight while one stream stays
# where it was. Decode reads every weight once per step whatever the batch, so a step serving two sequences costs about
# what a step serving one does (memory-bound), and one stream cannot use the rate a batch shows (NVIDIA, "Mastering LLM
# Techniques: Inference Optimization"; vLLM's optimization guide).
_COUNT_WORDS = {"one": 1, "a single": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6,
                "eight": 8, "ten": 10, "一": 1, "单": 1, "两": 2, "二": 2, "三": 3, "四": 4}
_REQUESTS_RATE = re.compile(
    # (para38) a Chinese count right after a Chinese word ("只有一个请求的时候"): Python's \w holds CJK, so the guard
    # against a count inside a word is for Latin letters and digits only
    r"(?<![A-Za-z0-9_.])(?P<n>a single|single|one|two|three|four|five|six|eight|ten|\d+|[一单两二三四])\s*"
    r"(?:(?:concurrent|parallel|simultaneous)\s+)?(?:个\s*)?(?P<what>requests?|users?|streams?|sequences?|prompts?|"
    r"clients?|请求|并发|路)(?![a-z])"
    r"(?P<gap>[^.;\n]{0,70}?)(?<![\w.])"
    r"(?:(?P<rate>\d+(?:\.\d+)?)\s*(?:tok\w*/s|t/s|tokens?/s|tokens? per second|tps)\b|"
    # or the time between tokens, one stream's rate inverted ("14 ms per token", "TPOT 14 ms/token"): inter-token
    # latency and per-user tok/s are one figure (https://github.com/tenstorrent/tt-inference-server/pull/3699 reports
    # ITL 8.17 ms beside 126.8 tokens/s/user; https://github.com/sgl-project/sglang/pull/40224 defines per-request
    # decode throughput as the reciprocal of TPOT; https://github.com/Gumpest/SparseVLMs/issues/32 "latency (ms/token)")
    r"(?P<ms>\d+(?:\.\d+)?)\s*ms\s*(?:per|/|an?)\s*(?:output\s+|generated\s+)?tok(?:en)?s?\b)",
    re.I)


def concurrency_rates(facts: Facts) -> claims.Claim | None:
    """Rates the reporter gives for one request and for several in flight, the several higher (by a third or more):
    a Claim with data {"one": rate, "many": rate, "n": requests}, or None. Per-request rates ("each request gets ...")
    are not totals and are left out."""
    for source, text in claims.texts(facts):
        seen: dict[int, tuple[float, re.Match]] = {}
        for m in _REQUESTS_RATE.finditer(text):
            word = m.group("n").lower()
            n = _COUNT_WORDS.get(word) or (int(word) if word.isdigit() else None)
            if not n or re.search(r"\b(?:each|per|every)\b|每", m.group("gap"), re.I):
                continue
            if m.group("ms"):
                if n != 1 or not float(m.group("ms")):
                    continue  # several streams' time per token is each stream's, not their total
                seen.setdefault(1, (round(1000 / float(m.group("ms")), 1), m))
                continue
            seen.setdefault(n, (float(m.group("rate")), m))
        many = [n for n in seen if n >= 2]
        if 1 in seen and many:
            n = max(many)
            one, many_rate = seen[1][0], seen[n][0]
            if many_rate >= 1.3 * one:
                start, end = seen[1][1].start(), seen[n][1].end()
                return claims.Claim("concurrency_rates", source, claims.one_line(text[start:end])[:200],
                                    {"one": one, "many": many_rate, "n": n})
    return None


@rule("ticket.concurrency_rates", "expected_physics")
def one_request_against_several(facts: Facts, predictions=None):
    """'One request gets 70 tok/s, two get 140 in total: why not 140 for one?' with nothing broken in sight: the
    batch's trade, by design. Weak (0.5): a fault in sight outweighs it."""
    c = concurrency_rates(facts)
    if c is None or fault_context(facts) or claims.symptom(facts) in FAILURES:
        return
    one, many, n = c.data["one"], c.data["many"], c.data["n"]
    yield make("ticket.concurrency_rates", "expected_physics", "info", 0.5,
               f"{many:g} tok/s in total with {n} requests, {one:g} with one: the batch shares each step",
               "Each decode step reads every weight once, whatever the number of sequences in it, so a step that "
               "serves several sequences takes about as long as one that serves a single sequence: the total rises "
               "with the requests in flight while each stream keeps its pace. One stream cannot use the rate a batch "
               "shows; its speed is set by memory bandwidth (and by the GPUs of a tensor-parallel group).",
               [claim_ev(c, "rates with one and with several requests"),
                ev(c.cited, f"total rate with {n} requests against one", many, one, "tok/s")],
               fix="Nothing is broken. For one stream: fewer bytes per token (quantised weights), tensor parallelism "
               "over NVLink, or speculative decoding; for the total: batch more requests.",
               refs=[INFERENCE_OPTIMIZATION, VLLM_OPTIMIZATION])


# --------------------------------------------------------------------------- one stream's idle compute (issue 11, q11a)
# "At batch 1 the tensor cores sit idle / compute throughput is 5 % / far from the 312 TFLOPS: is that normal?" A decode
# step reads every weight once and does two FLOPs per weight per sequence, so with one sequence the time to stream the
# weights from memory dwarfs the time the tensor cores need: decode at batch 1 is memory-bound by design (NVIDIA,
# "Mastering LLM Techniques: Inference Optimization"). The predictor's two roofline terms say by how much. Not
# nvidia-smi's GPU-Util, which counts the time any kernel runs (busy_not_saturated reads that).
_COMPUTE = re.compile(r"\b(?:tensor[- ]?cores?|SMs?\s+(?:utili[sz]ation|efficiency|occupancy|throughput|activity|"
                      r"are|is|sit)|compute\s+(?:utili[sz]ation|throughput|usage|units?|capacity|power|load)|"
                      r"T?FLOP/?s|MFU|model FLOPs utili[sz]ation)\b|算力|计算单元|张量核心?", re.I)
_IDLE = re.compile(r"\b(?:idle|unused|under-?(?:used|utili[sz]ed)|barely\s+(?:used|busy|touched)|"
                   r"(?:not|never)\s+(?:fully\s+)?(?:used|utili[sz]ed|busy|saturated)|wasted|far\s+(?:from|below)|"
                   r"low|tiny|(?:only|just|about|around|~)\s*\d{1,2}(?:\.\d+)?\s*%)|没有?(?:充分)?(?:利用|用满)|很低|闲置|浪费",
                   re.I)


def compute_idle(facts: Facts) -> claims.Claim | None:
    """The reporter's sentence saying the GPU's compute (tensor cores, SMs, FLOPS, MFU) goes unused, an observation
    not ruled out ("the tensor cores are not idle") nor a guess; None otherwise."""
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            compute, idle = _COMPUTE.search(sentence), _IDLE.search(sentence)
            if compute and idle and not claims.negated_words(sentence, idle) and not claims.negated_words(
                    sentence, compute) and not (claims.guessed(sentence, idle.start()) and not claims.asked(sentence)):
                return claims.Claim("compute_idle", source, claims.one_line(sentence)[:200])
    return None


def one_stream_stated(facts: Facts) -> claims.Claim | None:
    """Where the ticket says one sequence decodes at a time (batch 1, a single request or user), else None. A batch
    above 1 stated for the workload decides: "batch size 256 and one request's latency is fine" decodes 256. The
    words are the few_requests claim's (one vocabulary for every rule that reads one request at a time)."""
    from rules.common import wfield

    batch, src = wfield(facts, "batch")
    if batch == 1:
        return claims.Claim("one_stream", src, "batch 1")
    if batch and batch > 1:
        return None
    return next(iter(claims.find(facts, "few_requests")), None)


@rule("ticket.memory_bound_decode", "expected_physics")
def memory_bound_decode(facts: Facts, predictions=None):
    """'The tensor cores sit idle while one request decodes: is that normal?' with the model, GPU and layout stated
    and one sequence at a time: the predictor's memory and compute terms for that step show the compute idle by
    design. Weak (0.5): a fault in sight, or a figure the figure checks judge, outweighs it."""
    from rules.common import wfield
    from rules.workload import predict_layout

    if not asks_about_figures(facts) or fault_context(facts) or figures(facts):
        return
    said, one = compute_idle(facts), one_stream_stated(facts)
    model, gpu = facts.subject.model, facts.subject.gpu
    if said is None or one is None or model is None or gpu is None:
        return
    tp = wfield(facts, "tp")[0] or (1 if (gpu_count(facts) or 1) == 1 else None)
    p = predict_layout(facts, tp, 1) if tp else None  # several GPUs and no TP: the layout is not stated
    if p is None or not (p.valid and p.fits) or p.bound != "memory":
        return
    busy = p.compute_ms / p.decode_step_ms_expected
    yield make("ticket.memory_bound_decode", "expected_physics", "info", 0.5,
               f"One stream's decode is memory-bound: the tensor cores are needed about {busy:.1%} of each step",
               f"Each decode step streams {p.streamed_gb_per_step:.1f} GB of weights (and KV cache) from memory, "
               f"{p.memory_ms:.2f} ms at {gpu.name}'s datasheet bandwidth, while its two FLOPs per weight need "
               f"{p.compute_ms:.3f} ms of the tensor cores; the expected step is {p.decode_step_ms_expected:.1f} ms. "
               "With one sequence the compute waits on memory by design: idle tensor cores at batch 1 are physics.",
               [claim_ev(said, "what the reporter sees"), claim_ev(one, "one sequence at a time"),
                ev("prediction:roofline", f"memory time per step at TP={p.tp} ({gpu.key})",
                   expected=round(p.memory_ms, 2), unit="ms"),
                ev("prediction:roofline", "tensor-core time per step at the datasheet rate",
                   expected=round(p.compute_ms, 3), unit="ms"),
                ev("prediction:expected", f"expected decode step ({p.engine} profile)",
                   expected=round(p.decode_step_ms_expected, 1), unit="ms"),
                ev(facts.subject.model_source, "model", model.key)],
               fix="Nothing is broken. The compute is used by batching: more concurrent requests share each weight "
               "read (throughput grows almost in step until compute or the KV cache limits it); for one stream, "
               "quantised weights or more memory bandwidth make each step shorter.",
               refs=[INFERENCE_OPTIMIZATION])


# ------------------------------------------------------------------------ a sparse peak as the denominator (healthy42)
# "the util of GPU is 420/1979, that is very small" (NVIDIA/Megatron-LM#1565, H200): NVIDIA's datasheets print Hopper's
# 16-bit tensor rate with 2:4 structured sparsity (H100 SXM / H200 "BF16 Tensor Core 1,979 teraFLOPS*", "* With
# sparsity"; https://www.nvidia.com/en-us/data-center/h100/), twice the dense rate a training or inference GEMM runs at
# (rules/catalog/gpus.toml bf16_tflops, dense). The same misreading, answered the same way, in NVIDIA/Megatron-LM#1565
# ("1979 TFLOPS defined in H200 spec is with sparsity ... the actual MFU should be 420/(1979/2)=42.45%"),
# NVIDIA/Megatron-LM#1276 ("the MFU should be 400 / 2000 = 20%" -> "the denominator ... is 989 TFLOPS"),
# karpathy/nanoGPT#464 ("nvidia claims 1,979tflops but that is for 2:4 sparsity") and karpathy/nanochat#60.
# The reporter's rate over the sparse figure ("A/B", or "A TFLOPS ... B TFLOPS"), B within SPARSE_MATCH of twice the
# board's dense rate and A at most the dense rate. (s42review) The figure may end its sentence ("The MFU is 400/1979."):
# a period after it is no decimal point.
SPARSE_MATCH = 0.02
_RATE_OVER = re.compile(r"(?<![\w.])(\d{1,4}(?:\.\d+)?)\s*(?:T(?:FLOPS?|flops?)\s*)?(?:/|out of|of|vs\.?|against)\s*"
                        r"(?:\(\s*)?(\d[\d,]{2,5}(?:\.\d+)?)(?!\d|[.,]\d)", re.I)


# (s43) ... unless the run itself multiplies 2:4-sparse weights, whose GEMMs do peak at the sparse figure: PyTorch's
# semi-structured sparsity (`to_sparse_semi_structured`, over cuSPARSELt or CUTLASS; its tutorial "Accelerating BERT
# with semi-structured (2:4) sparsity"), NVIDIA's cuSPARSELt and ASP ("2:4 structured sparsity", "pruned to 2:4"),
# SparseGPT's pruned models. Said of the reporter's run, not denied ("we do not use 2:4 sparsity") nor hearsay;
# (s43review) nor asked or offered ("Does 1979 assume 2:4 sparsity?", "Should we try 2:4 sparsity?": the question
# the sparse peak's reading answers). "sparse model" and "sparse kernels" alone name a mixture of experts (Mixtral,
# "a sparse model") and sparse attention, and a "pruned model" may be pruned of layers or width (dense): not read.
_SPARSE_IN_USE = re.compile(r"\bto_sparse_semi_structured\b|\bcuSPARSELt\b|\bsemi-?structured\s+(?:\(?2:4\)?\s+)?"
                            r"sparsity\b|\b2:4[- ](?:structured[- ])?(?:sparse|sparsity|pruned|pruning)\b|"
                            r"\bsparsegpt\b|\bsparsif(?:y|ied|ying)\b|\bsparse\s+(?:weights|gemms?|matmuls?)\b|"
                            r"稀疏(?:化|模型|权重|矩阵乘|计算)", re.I)


def _sparse_run(facts: Facts) -> bool:
    """Does the reporter say their run multiplies 2:4-sparse weights (_SPARSE_IN_USE)?"""
    return any(not (claims.negated_words(sentence, m) or hearsay.elsewhere(sentence[:m.start()])
                    or claims.offered(sentence, m.start()))
               for _, text in claims.texts(facts) for sentence in claims.sentences(text)
               for m in _SPARSE_IN_USE.finditer(sentence))


def sparse_peak_quoted(facts: Facts):
    """(the claim, the rate, the sparse figure) where the reporter sets a compute rate (TFLOPS, MFU, the GPU's
    utilisation) against the board's 2:4-sparse 16-bit figure, for a dense run; None otherwise."""
    gpu = facts.subject.gpu
    dense = gpu and tensor_rate(gpu)
    if not dense or _sparse_run(facts):
        return None
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            if not (_COMPUTE.search(sentence) or re.search(r"\butil\w*|利用率", sentence, re.I)):
                continue
            for m in _RATE_OVER.finditer(sentence):
                if hearsay.elsewhere(sentence[:m.start()]):
                    continue  # someone else's ratio, or one read of ("I read that ...")
                rate, peak = float(m.group(1)), float(m.group(2).replace(",", ""))
                if abs(peak - 2 * dense) <= SPARSE_MATCH * 2 * dense and 0.05 * dense <= rate <= 1.05 * dense:
                    return claims.Claim("sparse_peak", source, claims.one_line(sentence)[:200]), rate, peak
    return None


@rule("ticket.sparse_peak", "expected_physics")
def sparse_peak(facts: Facts, predictions=None):
    """A compute rate set against the board's datasheet figure with 2:4 structured sparsity (H100 / H200 1,979
    TFLOPS): dense GEMMs run at half of it, so the utilisation is twice the reporter's ratio."""
    if not asks_about_figures(facts) or fault_context(facts):
        return
    found = sparse_peak_quoted(facts)
    if found is None:
        return
    said, rate, peak = found
    gpu = facts.subject.gpu
    dense = tensor_rate(gpu)
    yield make("ticket.sparse_peak", "expected_physics", "info", 0.6,
               f"{peak:g} TFLOPS is {gpu.name}'s rate with 2:4 sparsity: {rate:g} TFLOPS is {rate / dense:.0%} of "
               f"the dense {dense:g}",
               f"NVIDIA's datasheet prints the 16-bit tensor rate with 2:4 structured sparsity ({peak:g} TFLOPS, "
               f"footnoted 'with sparsity'); dense matrix multiplies, which training and inference run, peak at half "
               f"of it, {dense:g} TFLOPS. {rate:g} TFLOPS is {rate / dense:.0%} of that: the usual range of model "
               "FLOPs utilisation for large-model training, not a fault.",
               [claim_ev(said, "the rate and the figure it is set against"),
                ev(facts.subject.gpu_source, f"catalog {gpu.key}: dense 16-bit tensor rate (the datasheet's sparse "
                   "figure halved)", rate, dense, "TFLOPS")],
               fix="Nothing to fix: compute MFU against the dense rate (the datasheet figure without sparsity).",
               refs=["https://www.nvidia.com/en-us/data-center/h100/",
                     "https://github.com/NVIDIA/Megatron-LM/issues/1565"])


# GPUs without NVLink exchange data over PCIe: a PCIe 4.0 x16 link carries about 32 GB/s each way, NVLink 3 on an
# A100 600 GB/s in all, so collectives and split layers take longer without it, by design (NVIDIA's NVLink page,
# https://www.nvidia.com/en-us/data-center/nvlink/; transformers' "GPUs without NVLink": DDP on two TITAN RTX 101 s with
# NVLink against 131 s without, https://huggingface.co/docs/transformers/perf_hardware).
PERF_HARDWARE = "https://huggingface.co/docs/transformers/perf_hardware"
_NO_NVLINK = re.compile(
    r"\b(?:without|no|lack(?:ing|s)?(?:\s+of)?|missing|(?:do|does|did)(?:n't| not) have|not\s+(?:\w+\s+){0,2}?"
    r"(?:linked|connected|bridged|joined)\s+(?:with|by|via|through|over))\s+(?:an?\s+|any\s+|the\s+)?"
    r"NV[- ]?Link\w*\b|"
    r"\bNV[- ]?Link\w*\b[^.?!\n]{0,25}?\b(?:absent|missing|not (?:present|available|installed|supported))\b|"
    r"\bonly (?:over|via|through|on) PCI-?e\b|\bPCI-?e[- ]only\b|"
    r"(?:没有|没|无|不支持|不带)\s*(?:NV[- ]?Link|nvlink|NVLINK)|"
    # ... and as other languages say it: "ohne NVLink", "sin/sem/sans/без NVLink", "NVLinkなし", "NVLinkがない",
    # "NVLinkで接続されていない", "NVLink가 없으면", "NVLink 없이", "NVLink로 연결되어 있지 않은"
    r"(?<![^\W\d_])(?:ohne|sin|sem|sans|без)\s+NV[- ]?Link|"
    r"NV[- ]?Link\w*\s*(?:が|は|を)?\s*(?:なし|無し|ない|無い|非搭載)|"
    r"NV[- ]?Link\w*\s*(?:で|に)\s*(?:接続|つなが|繋が)\w*(?:されて|して|って)?い?ない|"
    r"NV[- ]?Link\w*\s*(?:가|이|는|은)?\s*없|"
    r"NV[- ]?Link\w*\s*(?:로|으로)\s*(?:연결|링크)\w*\s*(?:되어|돼)?\s*있지\s*않",
    re.I)
_SPEED_WORD = re.compile(r"\b(?:slow\w*|fast\w*|speed\w*|performance|throughput|bottleneck\w*|scal(?:e|es|ing)|"
                         r"impact\w*|affect\w*|penalt\w*|overhead)\b|慢|速度|提升|性能|瓶颈|"
                         # German, Spanish, Portuguese, French, Russian, Japanese and Korean speed words
                         r"(?<![^\W\d_])(?:langsam\w*|schnell\w*|Geschwindigkeit|Leistung|lent[oa]s?|r[aá]pid\w*|"
                         r"velocidad|velocidade|rendimiento|desempenho|vitesse|медленн\w*|быстр\w*|скорост\w*|"
                         r"производительн\w*)(?![^\W\d_])|遅|速く|느려|느린|느리|빠르|빨라|속도|성능", re.I)


def nvlink_absence_asked(facts: Facts) -> claims.Claim | None:
    """The reporter asks whether GPUs without NVLink (PCIe only) are slower, or why they are ("does that mean the speed
    may be slower when the GPUs are not linked with NVLink?", "没有nvlink 速度没有提升吗?"), and nothing in the ticket
    points at a fault; None otherwise. A statement that NVLink is down ("NVLink: inactive" where it was fitted) is a
    link fault, not this question."""
    if fault_context(facts):
        return None
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            m = _NO_NVLINK.search(sentence)
            if m and claims.asked(sentence) and _SPEED_WORD.search(sentence):
                return claims.Claim("nvlink_absence_asked", source, claims.one_line(sentence)[:200])
    return None


@rule("ticket.nvlink_question", "expected_physics")
def nvlink_question(facts: Facts, predictions=None):
    """'Will (or why are) my GPUs slower without NVLink?' with nothing broken in sight: yes, by design. Without NVLink
    the GPUs exchange gradients, activations and KV blocks over PCIe, an order of magnitude less bandwidth; what is
    lost depends on how much of a step is communication. A weak lead (0.45, NOTHING_BROKEN): any fault found or a
    figure judged outweighs it."""
    c = nvlink_absence_asked(facts)
    if c is None or claims.other_vendor_speed(facts):
        return
    yield make("ticket.nvlink_question", "expected_physics", "info", NOTHING_BROKEN,
               "Without NVLink the GPUs talk over PCIe: slower multi-GPU steps are expected, not a fault",
               "Without NVLink every exchange between the GPUs (data-parallel gradient all-reduce, tensor-parallel "
               "activations, pipeline hand-offs) goes over PCIe: about 32 GB/s each way on PCIe 4.0 x16, and less "
               "through a host bridge or across CPU sockets, against hundreds of GB/s over NVLink. Frameworks "
               "(PyTorch DDP, Accelerate, DeepSpeed) use NCCL over whatever link there is, so the same job scales "
               "worse; how much depends on the share of each step spent communicating (large models and small "
               "per-GPU batches lose the most). Nothing in the ticket points at a fault.",
               [claim_ev(c, "the reporter's question")],
               fix="Keep per-GPU work large relative to the exchange (bigger per-GPU batches, gradient accumulation, "
               "DDP's bucketed overlap), use pipeline stages or replicas rather than tensor parallelism across PCIe, "
               "and check `nvidia-smi topo -m` that the GPUs share a PCIe switch or host bridge rather than a "
               "cross-socket (SYS) path.",
               refs=[PERF_HARDWARE, "https://www.nvidia.com/en-us/data-center/nvlink/"])


# --------------------------------------------------------------------------- requests served in waves (issue 11, ut27b)
# "With 5 or 10 concurrent requests, 2 of them return within 1.5 s and the rest only after 5 or even 10 s" (QwenLM/Qwen3
# #233, 4 x RTX 4090, vLLM): the engine runs together only the sequences its KV cache has blocks for (and at most
# max_num_seqs); the others wait in its queue until a running one finishes and frees its blocks, so their time to first
# token holds the whole generation of the ones ahead. vLLM's scheduler admits a waiting request only when its blocks
# can be allocated and logs "Running: N reqs, Waiting: M reqs" (https://docs.vllm.ai/en/latest/configuration/
# optimization.html, "Preemption"; the Qwen maintainer's answer in #233: "vllm will queue the incoming requests if the
# remaining cache blocks are deemed insufficient"). A client that caps the requests in flight (benchmark_serving's
# --max-concurrency) queues the same way before the server sees them (MiaAI-Lab/GLM-5.3-Flash-EXL3-2x-DGX-Sparks#166).
# Two or more served together: one at a time with the next waiting for the whole of the first ("the second will only
# finish after 60 seconds", triton-inference-server/tensorrtllm_backend#442) is batching not working, no capacity
# limit, and is not read here.
_WAVE_COUNT = r"(\d{1,3}|two|three|four|five|six|eight|ten|两|二|三|四|五|六|八|十)"
_SERVED_FIRST = re.compile(
    # ((?<!\s): the leading blanks start at the first of their run, so a search is not quadratic in a long run)
    # Chinese: "其中2个请求可以在1.5秒内返回，剩余请求都要在5秒甚至10秒后才能返回"
    r"(?:其中|只有|仅有|前)?(?<!\s)\s*" + _WAVE_COUNT + r"\s*个\s*(?:请求|用户)[^。；;，,\n]{0,30}?"
    r"(?:返回|响应|出结果|出字|完成)"
    r"[^。；;，,\n]{0,6}?[，,]\s*(?:剩余|剩下|其余|其他|其它|后面)的?\s*(?:请求|的)?[^。；;\n]{0,20}?(?:要|需要|得|才|等)|"
    # English: "only 2 of the requests return within 1.5 s, the rest wait 5-10 s"; "the first two requests get their
    # first token at once while the others wait"
    r"\b(?:only\s+)?(?:the\s+first\s+)?" + _WAVE_COUNT + r"\s+(?:of\s+(?:the|them|my)\s+)?"
    r"(?:requests?|of\s+them|users?|prompts?|streams?)\b(?:[^.;:\n]|\.\d){0,50}?"
    r"\b(?:return\w*|respond\w*|come\s+back|finish\w*|complet\w*|start\w*|get\s+"
    r"(?:a|an|the|their)\s+(?:\w+\s+)?(?:response|answer|token|reply))\b(?:[^.;\n]|\.\d){0,40}?"
    r"(?:,|;|\bwhile\b|\bbut\b|\band\b)\s*"
    r"(?:while\s+|but\s+|and\s+)?(?:all\s+)?(?:the\s+)?(?:rest|remaining(?:\s+(?:requests?|ones))?|others|other\s+"
    r"(?:requests?|ones|users))\b[^.;\n]{0,40}?\b(?:wait\w*|queu\w*|take|took|only\s+after|after|seconds?|longer|"
    r"stuck|blocked)|"
    # (review31b) the rest held until the first wave ends: "the last two requests never reached q27 until the first six
    # had finished" (signalnine/q27#42); a ceiling in Chinese: "同时只能转发 5 个相同的请求, 多了之后会出现等待的现象"
    # (apache/servicecomb-java-chassis#4048)
    r"\b(?:wait\w*|queued|held|never\s+(?:reached|started)|did\s*n[o']t\s+start)\b[^.;\n]{0,40}?\buntil\s+the\s+first\s+"
    + _WAVE_COUNT + r"\b(?:\s+(?:requests?|ones|of\s+them))?\s+(?:had\s+|have\s+)?(?:finish\w*|complet\w*|return\w*)|"
    r"同时\s*(?:只能|仅能|最多|只)\s*(?:处理|转发|响应|运行|服务|执行|返回)\s*" + _WAVE_COUNT
    + r"\s*个[^。；;，,\n]{0,10}?(?:请求|用户)[^。；;\n]{0,20}?(?:等待|排队)|"
    # a ceiling on the requests served together under a larger load: "at 200 concurrent users, I found that vLLM can
    # handle up to 100 requests at most" (vllm-project/vllm#14513), "processes only 4 requests at a time"
    r"\b(?:handle|handles|process|processes|serve|serves|run|runs)\s+(?:up\s+to\s+|only\s+|at\s+most\s+)"
    r"(\d{1,4})\s+(?:requests?|users?|sequences?|connections?)\s+(?:at\s+(?:most|a\s+time|once)|simultaneously|"
    r"concurrently|in\s+parallel)", re.I)
_WAVE_LOAD = re.compile(r"(\d{1,4})\s*(?:个\s*)?(?:并发|concurrent|parallel|simultaneous|requests?\s+at\s+once|"
                        r"users?\s+at\s+once)|(?:concurrency|并发数?)\s*(?:of|=|:|为|是)?\s*(\d{1,4})", re.I)
_WAVE_WORDS = {"two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "eight": 8, "ten": 10,
               "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "八": 8, "十": 10}


def served_in_waves(facts: Facts) -> claims.Claim | None:
    """The reporter's words that, with more requests in flight than that, two or more are served at once and the rest
    wait (_SERVED_FIRST): a Claim with data {"first": k, "load": n or None}, or None. Not a first wave of one."""
    for source, text in claims.texts(facts):
        for m in _SERVED_FIRST.finditer(text):
            word = next(g for g in m.groups() if g)
            k = int(word) if word.isdigit() else _WAVE_WORDS.get(word.lower())
            if not k or k < 2:
                continue  # one at a time: batching not working, not a capacity limit
            loads = [int(g) for lm in _WAVE_LOAD.finditer(text[:m.end() + 40]) for g in lm.groups() if g]
            load = max(loads, default=None)
            if load is not None and load <= k:
                continue
            return claims.Claim("served_in_waves", source, claims.one_line(text[m.start():m.end() + 20])[:200],
                                {"first": k, "load": load})
    return None


@rule("ticket.requests_queued", "expected_physics")
def requests_queued(facts: Facts, predictions=None):
    """Under concurrency a few requests are served at once and the rest wait several times as long for their first
    token: the engine's queue in front of the sequences its KV cache (and max_num_seqs) admits, by design. Weak (0.5): a
    fault in sight, or a serial engine, outweighs it."""
    c = served_in_waves(facts)
    if c is None or fault_context(facts) or claims.symptom(facts) in FAILURES:
        return
    k, n = c.data["first"], c.data["load"]
    load = f" of the {n} sent together" if n else ""
    yield make("ticket.requests_queued", "expected_physics", "info", 0.5,
               f"{k} requests{load} are served at once and the rest wait in a queue: the requests in flight are "
               "capped, by the engine's KV cache or by the client",
               "A serving engine decodes together only the sequences it has KV-cache blocks for (and at most "
               "max_num_seqs); the others wait in its queue until a running one finishes and frees its blocks, so "
               "their time to first token holds the generation of those ahead. vLLM logs the two counts as "
               "'Running: N reqs, Waiting: M reqs'. A client that caps the requests in flight (benchmark_serving's "
               "--max-concurrency) queues the same way before the server sees them.",
               [claim_ev(c, f"{k} served first{load}, the rest later")],
               fix="Find the cap first: under the load the server log's 'Running: N reqs, Waiting: M reqs' shows "
               "requests waiting in the engine (its KV cache is full) or none waiting (the client sends no more: its "
               "connection pool, or benchmark_serving's --max-concurrency). For the engine: raise "
               "gpu_memory_utilization, lower max_model_len to what the prompts need, an FP8 KV cache, more GPUs per "
               "copy (tensor parallelism adds KV-cache room) or more replicas; the start-up line 'Maximum concurrency "
               "for N tokens per request' gives the room.",
               refs=[VLLM_OPTIMIZATION],
               ask="the server log under the load (vLLM's 'Running: N reqs, Waiting: M reqs' lines and its "
               "'Maximum concurrency' line at start) and the benchmark command with its concurrency")

"""Two rates of one setup that differ in one piece of software (issue 11 point 1, pairs36): the same GPUs and model
measured under two engine modes ("V0:" and "V1:" blocks, vllm-project/vllm#21029), two clients driving the same
engine ("my custom got 6.79 req/s, but official got 15.75 req/s", sgl-project/sglang#4076), or a wrapper against the
bare engine it wraps ("80 t/s with ollama, 130 t/s with llama.cpp").

An expert reads such a pair first: the hardware, the model and the load are the same on both sides, so what the GPUs
can do predicts a ratio of 1.0 between them; a gap well beyond that is the software side's own cost (its defaults, how
it batches or drives the engine), not the GPUs'. The pair is read only where its two members are named by one factor
of the same kind (two engine modes, two clients, a wrapper and an engine), carry the same unit, and the ticket names
no second board (two boards' rates are ticket.rate_ratio's); layouts (TP sizes, GPU counts), loads (batch,
concurrency) and phases (prefill, decode) are other comparisons and never form a pair here.
"""

from __future__ import annotations

import re

from diagnose.evidence import Facts, Measurement
from rules import claims
from rules.common import ev, make
from rules.engine import rule
from rules.ticket_figures import asks_about_figures
from rules.ticket_questions import fault_context

# The factors a pair may differ in, each by how its members are named. Sources: vLLM's V1 engine is chosen by
# VLLM_USE_V1 (docs.vllm.ai usage/v1_guide: "V1 is now enabled by default ... VLLM_USE_V1=0" to go back to V0);
# wrappers and the engines under them (Ollama and LM Studio over llama.cpp, Xinference over vLLM/SGLang/llama.cpp,
# llama-cpp-python over llama.cpp, text-generation-webui over its loaders), as their own docs name them. Proxies and
# gateways (LiteLLM, Ray Serve, nginx) are no wrapper here: ticket.serving_layer answers a pair through one.
FACTORS = {
    "engine mode": re.compile(r"^(?:vllm\s+)?(?:the\s+)?v[01](?:\s+engine)?$|^VLLM_USE_V1\s*=\s*[01]$", re.I),
    "client": re.compile(r"^(?:my\s+|our\s+|the\s+)?(?:own|custom|official|hand[- ]?written)"
                         r"(?:\s+(?:script|code|benchmark|bench\w*|client|test))?$", re.I),
    "wrapper or engine": re.compile(r"^(?:with\s+|using\s+|in\s+|on\s+)?(?:the\s+)?(?:bare\s+|plain\s+|raw\s+)?"
                                    r"(?:ollama|xinference|lm\s?studio|llama[-_]cpp[-_]python|"
                                    r"text-generation-webui|oobabooga|llama\.cpp|llama-server|llama-cli|vllm|sglang|"
                                    r"exllamav2|exllama)(?:\s+(?:directly|alone|itself))?$", re.I),
}
_UNIT = r"tok(?:en)?s?/s|t/s|req(?:uest)?s?/s"
# A rate and its unit: "2209.84 tok/s", "6.79 req/s", or a benchmark's key before it ("TPS (Tokens per second):
# 2209.84", "Output token throughput (tok/s): 311.84").
_RATE = re.compile(r"(?<![\w.])(?P<v>\d+(?:\.\d+)?)\s*(?P<u>" + _UNIT + r")(?![\w/])|"
                   r"\b(?P<k>TPS|tokens per second|req(?:uest)?s? per second|(?:request|token) throughput|"
                   r"tok(?:en)?s?/s|req(?:uest)?s?/s)\b[^:\n\d]{0,40}:\s*(?P<kv>\d+(?:\.\d+)?)",
                   re.I)
# A label line: the member's name alone, then its block ("V0:" then the run's output lines).
_LABEL = re.compile(r"^\s*(?:#+\s*|\*\*)?(?P<label>[A-Za-z][\w .=+-]{0,30}?)(?:\*\*)?\s*:\s*(?:\*\*)?\s*$")
# In one sentence: a member, a verb or colon, its rate; the second member after a contrast word.
_MEMBER = (r"(?<![\w.+-])(?P<{n}>(?:[\w.+-]+\s+){{0,2}}?[\w.+-]+)\s+(?:got|gets|gives|gave|does|did|reach\w*|achiev\w*|"
           r"runs? at|at|:)?\s*")
_VALUE = r"(?P<v{n}>\d+(?:\.\d+)?)\s*(?P<u{n}>" + _UNIT + ")"
_CONTRAST = r"[^.\n]{0,20}?\b(?:but|while|whereas|vs\.?|versus|against|compared (?:to|with)|and)\s+(?:the\s+)?"
_SENTENCE_PAIR = re.compile(_MEMBER.format(n="a") + _VALUE.format(n="a") + _CONTRAST + _MEMBER.format(n="b")
                            + _VALUE.format(n="b"), re.I)
# "with ollama ... with llama.cpp": the member after its rate ("80 t/s with ollama and 130 t/s with llama.cpp").
_AFTER = r"\s+(?P<{n}>(?:with|using|in|on|from)\s+[\w.+-]+)"
_SENTENCE_PAIR_AFTER = re.compile(_VALUE.format(n="a") + _AFTER.format(n="a") + _CONTRAST + _VALUE.format(n="b")
                                  + _AFTER.format(n="b"), re.I)
# Words that make a rate a hope, a target or someone else's figure, not this setup's measurement.
_NOT_MEASURED = re.compile(r"\b(?:hop(?:e|ed|ing)|want\w*|target\w*|expect\w*|should|would|supposed|README|docs?|"
                           r"paper|blog|claims?|advertis\w*|reported by|according to)\b", re.I)
# The smallest gap called a difference (a policy line, not a measured one): below it, the two runs' prompts, output
# lengths and warm-up alone can account for it, and the finding would only restate noise.
MIN_GAP = 1.2


def _unit(u: str) -> str:
    return "req/s" if u.lower().startswith("req") else "tok/s"


def _factor(a: str, b: str) -> str | None:
    """The one factor both member names belong to, where they name two different members of it."""
    a, b = a.strip(" *"), b.strip(" *")
    for name, pattern in FACTORS.items():
        if pattern.match(a) and pattern.match(b) and a.lower() != b.lower():
            return name
    return None


def _strip_verb(words: str) -> str:
    """A member named before its rate, less the verb that joins them ("my custom got" -> "my custom")."""
    return re.sub(r"\s+(?:got|gets|gives|gave|does|did|reach\w*|achiev\w*|runs?(?: at)?|at)$", "", words.strip(),
                  flags=re.I)


def _block_pairs(text: str) -> list[tuple[str, float, str, str]]:
    """(label, value, unit, quote) of each labelled block's first rate: a label line, then lines up to the next
    label line."""
    out: list[tuple[str, float, str, str]] = []
    label = None
    for line in text.splitlines():
        m = _LABEL.match(line)
        if m:
            label = m.group("label").strip()
            continue
        r = _RATE.search(line)
        if label and r and not any(o[0] == label for o in out):
            value = float(r.group("v") or r.group("kv"))
            unit = _unit(r.group("u") or r.group("k"))
            out.append((label, value, unit, f"{label}: {line.strip()}"))
    return out


def software_pair(facts: Facts) -> dict | None:
    """The ticket's pair of rates that differ in one software factor (FACTORS), or None: {factor, members: [(name,
    value, unit, source, quote)] (two, the same unit), ratio (the larger over the smaller)}."""
    for source, text in claims.texts(facts):
        found = []
        blocks = _block_pairs(text)
        if len(blocks) == 2 and blocks[0][2] == blocks[1][2]:
            found = [(blocks[0][0], blocks[0][1], blocks[0][2], blocks[0][3]),
                     (blocks[1][0], blocks[1][1], blocks[1][2], blocks[1][3])]
        for sentence in claims.sentences(text):
            if found:
                break
            m = _SENTENCE_PAIR.search(sentence) or _SENTENCE_PAIR_AFTER.search(sentence)
            if m is None or _NOT_MEASURED.search(sentence) or claims.asked(sentence):
                continue
            a, b = _strip_verb(m.group("a")), _strip_verb(m.group("b"))
            found = [(a, float(m.group("va")), _unit(m.group("ua")), claims.one_line(sentence)[:200]),
                     (b, float(m.group("vb")), _unit(m.group("ub")), claims.one_line(sentence)[:200])]
        if len(found) != 2 or found[0][2] != found[1][2] or min(found[0][1], found[1][1]) <= 0:
            continue
        factor = _factor(found[0][0], found[1][0])
        if factor is None:
            continue
        hi, lo = max(found[0][1], found[1][1]), min(found[0][1], found[1][1])
        return {"factor": factor, "members": [(n, v, u, source, q) for n, v, u, q in found], "ratio": hi / lo}
    return None


def _boards_named(facts: Facts) -> int:
    """How many different boards the ticket's measured figures name (two: ticket.rate_ratio's pair); a figure's
    "3060 / A100" names two."""
    return len({b.strip() for m in facts.of(Measurement) if m.gpu_name for b in m.gpu_name.split("/") if b.strip()})


# (review36b) What else the two runs can differ in, each a cause the project knows on its own: the layout (tensor
# parallel size), the weights' precision, the model's size, the load (batch, concurrency) and the context length. Two
# different values of one of them named in the ticket mean the pair differs in more than its software, and the gap is
# no longer the software's alone ("vllm with TP=1, sglang with --tp 2"; "bf16 weights ... FP8 quantization"; "num_ctx
# 131072, llama.cpp at the default 4096"). Each pattern captures the value it names.
_TP_VALUE = re.compile(r"(?:\bTP|--tp|tensor[-_ ]parallel(?:[-_ ]size)?)\s*[=:]?\s*(\d{1,2})\b", re.I)
_PRECISION = re.compile(r"\b(bf16|bfloat16|fp16|float16|half|fp8|int8|int4|w8a8|w4a16|awq|gptq|nvfp4|mxfp4|"
                        r"q[2-8]_k(?:_[msl])?|q[48]_0|f16)\b", re.I)
_MODEL_SIZE = re.compile(r"(?<![\w.])(\d{1,3}(?:\.\d)?)\s?[bB]\b")
_LOAD_VALUE = re.compile(r"\b(?:batch(?:[-_ ]size)?|concurrency|max[-_]num[-_]seqs|num[-_]prompts)\s*"
                         r"(?:of\s+|[=:]\s*)?(\d{1,5})\b|"
                         r"\b(\d{1,5})\s+(?:concurrent|parallel|simultaneous)\b", re.I)
_CONTEXT_WORD = re.compile(r"\b(?:num_ctx|ctx[-_ ]size|n_ctx|max[-_]model[-_]len|"
                           r"context(?:\s+(?:length|size|window))?)\b", re.I)
_CONTEXT_VALUE = re.compile(r"(?<![\w.])(\d{1,3}[kK]|\d{4,7})(?!\w|\.\d)")
_PRECISION_SAME = {"bfloat16": "bf16", "float16": "fp16", "half": "fp16", "f16": "fp16"}
# (risks37) The request's own lengths: a prompt of 2048 tokens against one of 128, or 1024 tokens generated against 128,
# change the work per request (prefill grows with the prompt, decode's per-token cost with the context) whatever the
# software, as vLLM's benchmark flags (--random-input-len, --random-output-len) and the clients' max_tokens set them.
_LENGTH_VALUE = re.compile(r"\b(?:(?:input|output|prompt|generation|completion)[-_ ]?(?:len(?:gth)?|tokens)|"
                           r"max[-_ ]?(?:new[-_ ])?tokens|random[-_]input[-_]len|random[-_]output[-_]len|ISL|OSL)"
                           r"\s*(?:of\s+|[=:]\s*)?(\d{1,6}[kK]?)\b", re.I)
# (review37b) which length a match names: a prompt's and a generation's lengths are two settings, not one set twice
# ("input len 512 and output len 256" is no difference between the runs)
_INPUT_SIDE = re.compile(r"input|prompt|ISL", re.I)
# The GPUs each run used, said in words ("on a single GPU", "uses both GPUs", "across 4 GPUs").
_GPUS_USED = re.compile(r"\b(?:on|uses?|using|used|with|across|over)\s+(?:a\s+|only\s+|just\s+)?"
                        r"(single|one|1|both|two|2|three|3|four|4|eight|8|all\s+(?:\w+\s+)?)\s*(?:GPU|card)s?\b", re.I)
_COUNT_WORDS = {"single": "1", "one": "1", "both": "2", "two": "2", "three": "3", "four": "4", "eight": "8"}
# Differences one side alone carries, each a cause of its own: part of the model on the CPU (layers or weights offloaded
# to host memory: llama.cpp's -ngl below the layer count, vLLM's --cpu-offload-gb), speculative decoding (a draft model,
# EAGLE, Medusa, MTP: fewer target passes per token), and the runs placed on two machines.
_ONE_SIDED = {
    "part of the model on the CPU": re.compile(
        r"\b(?:rest|remaining\s+layers|some\s+(?:of\s+the\s+)?layers|part\s+of\s+(?:the\s+)?(?:model|weights))\b"
        r"[^.\n]{0,30}?\b(?:on|to|in)\s+(?:the\s+)?(?:CPU|system\s+RAM|RAM)\b|"
        r"\bCPU[- ]offload\w*|--cpu-offload|\boffload\w*\s+(?:\w+\s+){0,3}?(?:to|on)\s+(?:the\s+)?(?:CPU|RAM)\b", re.I),
    "speculative decoding": re.compile(r"\bspeculative\s+decod\w*|\bdraft\s+model\b|\bEAGLE-?\d?\b|\bMedusa\b|"
                                       r"--speculative\w*", re.I),
}
_MACHINE = re.compile(r"\b(?:on|in|from)\s+(?:my|our|the|a|an|another|a\s+different|the\s+other)\s+(?:\w+\s+)?"
                      r"(laptop|desktop|server|workstation|PC|computer|mac(?:book)?|cluster|VM|cloud\s+instance)\b",
                      re.I)


def _said_of_a_run(sentence: str, m: re.Match) -> bool:
    """(review37b) Is a one-sided difference (_ONE_SIDED) said of a run, not ruled out ("neither uses speculative
    decoding", "no CPU offload on either side"), asked or offered ("should I try a draft model?") or supposed?"""
    return not (claims.negated_words(sentence, m) or _NEITHER.search(sentence[:m.start()])
                or claims.asked_at(sentence, m.start()) or claims.guessed(sentence, m.start())
                or claims.conditional(sentence[:m.start()]))


_NEITHER = re.compile(r"\b(?:neither|none)\b[^.;\n]{0,30}$", re.I)


def _other_difference(facts: Facts, factor: str) -> str | None:
    """The first setting the ticket names with two different values (_TP_VALUE, _PRECISION, _MODEL_SIZE, _LOAD_VALUE,
    context lengths in a sentence about context, request lengths, GPUs used said in words, two machines), as "what: a,
    b", or a difference one side alone carries (_ONE_SIDED: layers on the CPU, speculative decoding); None where none
    is. A client's load is its own
    doing (how it sends the requests: sgl-project/sglang#4076), so for two clients the load is not counted."""
    seen: dict[str, set[str]] = {"tensor parallel size": set(), "precision": set(), "model size": set(),
                                 "load": set(), "context length": set(), "request length": set(), "GPUs used": set(),
                                 "machine": set()}
    for _, text in claims.texts(facts):
        for what, pattern in _ONE_SIDED.items():
            if any(_said_of_a_run(sentence, m) for sentence in claims.sentences(text)
                   for m in pattern.finditer(sentence)):
                return what
        seen["request length"] |= {("input " if _INPUT_SIDE.search(m.group(0)) else "output ") + m.group(1).lower()
                                   for m in _LENGTH_VALUE.finditer(text)}
        seen["GPUs used"] |= {_COUNT_WORDS.get(v.lower(), "all" if v.lower().startswith("all") else v)
                              for v in _GPUS_USED.findall(text)}
        seen["machine"] |= {v.lower() for v in _MACHINE.findall(text)}
        seen["tensor parallel size"] |= {v for v in _TP_VALUE.findall(text)}
        seen["precision"] |= {_PRECISION_SAME.get(v.lower(), v.lower()) for v in _PRECISION.findall(text)}
        seen["model size"] |= {v for v in _MODEL_SIZE.findall(text)}
        if factor != "client":
            seen["load"] |= {a or b for a, b in _LOAD_VALUE.findall(text)}
        for sentence in claims.sentences(text):
            if _CONTEXT_WORD.search(sentence):
                seen["context length"] |= {v.lower() for v in _CONTEXT_VALUE.findall(sentence)}
    lengths = seen["request length"]  # a difference only between two values of the same side
    seen["request length"] = next((vals for side in ("input ", "output ")
                                   if len(vals := {v for v in lengths if v.startswith(side)}) >= 2), set())
    for what, values in seen.items():
        if len(values) >= 2:
            return f"{what}: {', '.join(sorted(values))}"
    return None


@rule("ticket.software_pair", "other")
def software_pair_rule(facts: Facts, predictions=None):
    """Two rates of the same GPUs and model under two engine modes, two clients, or a wrapper and the bare engine
    (software_pair), the larger at least MIN_GAP times the smaller: physics predicts the same rate on both sides, so
    the gap is the slower side's software (its defaults, how it batches or drives the engine). Silent on a failure,
    on two boards (ticket.rate_ratio), where the runs differ in more than the software (a TP size, precision, model,
    load, context or request length, GPU count or machine named twice; layers on the CPU or speculative decoding named),
    or where the two rates are within MIN_GAP."""
    if not asks_about_figures(facts) or _boards_named(facts) > 1:
        return
    if claims.find(facts, "layer_slower") and claims.find(facts, "engine_direct"):
        return  # a proxy or gateway in front of the engine: ticket.serving_layer's (its host work)
    pair = software_pair(facts)
    if pair is None or pair["ratio"] < MIN_GAP:
        return
    # (review36b) a fault in sight (part of the model on the CPU, a narrow PCIe link, an Xid) or a second difference
    # between the runs (_other_difference) is a cause of its own: the gap is no longer the software's alone
    if fault_context(facts, labels=False) or _other_difference(facts, pair["factor"]):
        return
    (na, va, unit, source, qa), (nb, vb, _, _, qb) = pair["members"]
    slow, fast = ((na, va), (nb, vb)) if va < vb else ((nb, vb), (na, va))
    factor = pair["factor"]
    evidence = [ev(source, f'{slow[0]}: "{qa if slow[0] == na else qb}"', slow[1], fast[1], unit),
                ev(source, f"{fast[0]} against {slow[0]}: ratio of the two rates, against the x1.00 the same GPUs, "
                   "model and load predict", round(pair["ratio"], 2), 1.0, "x")]
    yield make("ticket.software_pair", "other", "warning", 0.45,
               f"{fast[0]} {fast[1]:g} against {slow[0]} {slow[1]:g} {unit} (x{pair['ratio']:.2f}): the same "
               f"hardware, two {factor}s",
               f"Both rates are of the same GPUs and model and differ in one piece of software ({factor}): what the "
               f"GPUs can do predicts the same rate on both sides (x1.00), so the x{pair['ratio']:.2f} gap is "
               f"{slow[0]}'s own cost: its defaults (CUDA graphs, scheduler and batch limits, context size), how it "
               "sends the requests (one at a time or all at once), or a regression in it, not the GPUs.",
               evidence,
               fix=f"Run both sides with the same request load (count, concurrency, prompt and output lengths) and "
               f"compare their launch settings and startup logs line by line; the setting that differs on {slow[0]}'s "
               "side is the gap (for a client, send the same requests the faster side sends).")

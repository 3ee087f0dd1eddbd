"""A weight-only quantised model set against its 16-bit original: no faster, or slower, at scale.

AWQ, GPTQ and other 4-bit weight-only formats (W4A16) store each weight in a quarter of the bytes and widen it
back to 16 bits inside the matrix multiply. Decode at a small batch is bound by reading the weights, so there
they are faster; at a large batch (high concurrency, a throughput benchmark) the multiplies are bound by
arithmetic, the bytes saved no longer matter and the dequantisation is extra work, so the quantised model
gains nothing or runs slower than FP16/BF16 (AutoAWQ: "GEMM (quantized): Much faster than FP16 at batch sizes
below 8 ... FP16 (non-quantized): Recommended for highest throughput",
https://github.com/casper-hansen/AutoAWQ#readme; vLLM's AWQ page warns the same,
https://docs.vllm.ai/en/latest/features/quantization/auto_awq.html). Slower at batch 1 is not that trade: 4-bit
weights read a quarter of the bytes, so there the engine's kernel for the format, not physics, costs the time.
FP8 and W8A8 are not weight-only: they run the multiplies in 8 bits and are left out.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.evidence import Facts, Workload
from rules import claims, hearsay
from rules.common import claim_ev, ev, make
from rules.engine import rule
from rules.ticket_figures import asks_about_figures
from rules.workload import weight_dtype

AUTOAWQ = "https://github.com/casper-hansen/AutoAWQ#readme"
VLLM_AWQ = "https://docs.vllm.ai/en/latest/features/quantization/auto_awq.html"

# Weight-only low-bit formats as people write them (the engines' --quantization names, the checkpoint suffixes).
_QUANT = (r"(?:\b(?:AWQ|GPTQ|Marlin|(?:awq|gptq)[-_]marlin|W4A16|int4|int-4|4[- ]?bits?|weight[- ]only|"
          r"quanti[sz]ed|quanti[sz]ation|bnb|nf4|bitsandbytes|EXL2)\b|量化)")
# Formats that compute in 8 bits (not weight-only): their trade is another one.
_COMPUTE_8BIT = re.compile(r"\b(?:FP8|W8A8|E4M3|SmoothQuant)\b", re.I)
# The 16-bit original.
_FULL = (r"(?:\b(?:FP16|BF16|float16|bfloat16|half[- ]precision|full[- ]precision|16[- ]?bits?|un-?quanti[sz]ed|"
         r"non-?[- ]?quanti[sz]ed|original (?:model|weights|checkpoint))\b|"
         r"未量化|非量化|原始模型|原模型|原版|原始版本)")
# (review st 10) "base model" is the checkpoint before fine-tuning, not a 16-bit copy; and a quantisation the KV cache
# names ("int8 KV cache quantization", "quantized KV cache") stores the cache, not the weights: no weight-only trade.
_QUANT_WORD = re.compile(_QUANT, re.I)
_KV_BEFORE = re.compile(r"\bKV(?:[- ]?cache)?\s+(?:\w+\s+)?$", re.I)
_KV_AFTER = re.compile(r"\s*(?:\w+\s+)?(?:of\s+(?:the\s+)?)?KV\b", re.I)
# The quantised one said slower or no faster than the original, in either order.
_LOSES = (r"(?:slow\w*|lower (?:throughput|performance|speed|tok\w*/s)|less (?:throughput|faster)|worse|"
          r"(?:no|not any|without (?:any )?)(?:\s+\w+)?\s*(?:speed[- ]?ups?|faster|gain|improvement|benefit)|"
          r"not (?:any )?faster|\d+\s*% of|half (?:of|as fast)|"
          r"(?:performance|throughput|speed|tok\w*/s)\s+(?:is|was|are|were|gets?|got|drops?|dropped)?\s*(?:much\s+|"
          r"far\s+|a lot\s+)?(?:lower|worse|slower|below))")
_WINS = r"(?:faster|quicker|higher throughput|outperform\w*|better|beat\w*|wins?)"
_QUANT_LOSES = re.compile(
    _QUANT + r"[^.\n]{0,80}?\b" + _LOSES + r"(?:[^.\n]{0,60}?" + _FULL + r")?|"
    + _FULL + r"[^.\n]{0,60}?\b" + _WINS + r"\b[^.\n]{0,40}?" + _QUANT + r"|"
    r"量化[^。\n]{0,20}?反而(?:更)?慢|量化[^。\n]{0,20}?比\s*" + _FULL + r"[^。\n]{0,10}慢|"
    # ... and a quantised checkpoint named against another in Chinese: "X-GPTQ-Int8 比 X 推理慢"
    + _QUANT + r"[^。\n]{0,40}?比[^。\n]{1,60}?慢", re.I)
# The other side named as a checkpoint with no quantisation in its name ("... slower than Qwen2-1.5B-Instruct",
# "GPTQ-Int8 比 Qwen2-1.5B-Instruct 慢"): the 16-bit original the quantised copy was made from.
# One short word may stand before the name ("比普通的 7B 模型 ...", QwenLM/Qwen2-VL#483 as Qwen3-VL#483).
_THAN_NAME = re.compile(r"(?:\bthan(?:\s+the)?|比)\s*(?:\S{1,6}\s+)?"
                        r"([\w./-]*[A-Za-z][\w./-]*\d[\w./-]*|[\w./-]*\d[\w./-]*[A-Za-z][\w./-]*)")
# Against what: the 16-bit original named, or a gain that did not come ("no speedup", "not faster": over the original).
_FULL_NAMED = re.compile(_FULL, re.I)
_NO_GAIN = re.compile(r"\b(?:no|not|without)\b|反而", re.I)
# How large the batch was where the quantised model lost: the engine batch or the requests in flight.
_BATCH_N = re.compile(r"\b(?:batch(?:[- ]?size)?|bs|concurrency|max[-_ ]num[-_ ]seqs|concurrent requests)"
                      r"\s*(?:=|==|of|is|<=|>=|:)?\s*(\d+)|\b(\d+)\s+(?:concurrent|parallel|simultaneous)\b", re.I)
_LARGE = re.compile(r"\b(?:high|large|larger|big|heavy)\s+(?:concurrency|batch\w*|load)|under load|"
                    r"\bthroughput (?:benchmark|test)|高并发|大\s*batch", re.I)
# Said as what someone expects or suggests, not what ran: "they told me AWQ would be slower", "should be faster".
_EXPECTATION = re.compile(r"\b(?:would|might|could|should|may|will)\s+(?:\w+\s+)?(?:be|run|get)\b|"
                          r"\b(?:told|said|claims?|suggest\w*|heard|read)\b", re.I)
# A loss ruled out inside the comparison: "not slower", "no longer slower", "without any slowdown".
_RULED_OUT = re.compile(r"(?:\b(?:not|never|without|no)\b|n't)[^.\n]{0,15}?\b(?:slow|lower|worse|below)",
                        re.I)
_CONDITION = re.compile(r"\b(?:if|whether|unless)\b", re.I)
# A change of layout named between the format and the loss: the loss is the layout's ("AWQ with tensor parallel is
# slower", "int4 on 2 GPUs gives no speed-up"), not the format's against FP16.
_LAYOUT_CHANGE = re.compile(r"\b(?:TP|PP|tensor[- ]parallel\w*|pipeline[- ]parallel\w*|tp\s*=?\s*\d+|multi-?GPU|"
                            r"(?:more|multiple|\d+|two|four|eight|second) (?:GPUs?|cards?))\b|多卡|并行", re.I)
# AutoAWQ's threshold: below a batch of 8 its quantised GEMM is faster than FP16.
SMALL_BATCH = 8


# (physdoc33) The loss said of the prompt's phase: prefill multiplies every prompt token by the weights at once, so it
# is bound by arithmetic as a large decode batch is (AutoAWQ's GEMM note; vllm-project/vllm#1545, settled so).
_PREFILL = re.compile(r"\b(?:first[- ](?:generated? )?token|TTFT|time to first token|prefill\w*|"
                      r"prompt (?:processing|eval\w*)|context (?:phase|encoding))\b|首\s*token|首字", re.I)


def _scale(sentence: str, text: str) -> str:
    """'prefill', 'large', 'small' or 'unknown': where the quantised model lost (the prompt's phase said in the
    sentence, else the batch), from the sentence first, then the ticket's text (its launch line or benchmark
    settings)."""
    if _PREFILL.search(sentence):
        return "prefill"
    for where in (sentence, text):
        sizes = [int(a or b) for a, b in _BATCH_N.findall(where)]
        if _LARGE.search(where) or any(s > SMALL_BATCH for s in sizes):
            return "large"
        # one request at a time in the words of the few_requests claim (one vocabulary for both)
        if claims.states("few_requests", where) or (sizes and max(sizes) <= SMALL_BATCH):
            return "small"
    return "unknown"


def _unquantised_named(said: str) -> bool:
    """Does the comparison name its other side as a checkpoint without a quantisation in its name?"""
    other = _THAN_NAME.search(said)
    return other is not None and not _QUANT_WORD.search(other.group(1))


def quantised_loses(facts: Facts) -> list[claims.Claim]:
    """Sentences where a weight-only quantised model (AWQ, GPTQ, 4-bit) is slower than, or no faster than, its
    16-bit original, with the batch it happened at (data['scale']). Ruled out ("AWQ is not slower than FP16"), said
    of an 8-bit-compute format (FP8, W8A8), or a suggestion someone made ("they said AWQ would be slower") it does
    not count; a question about it does (the reporter asks what the trade is)."""
    out: list[claims.Claim] = []
    for source, text in claims.texts(facts):
        for sentence in claims.sentences(text):
            m = _QUANT_LOSES.search(sentence)
            if m is None or _COMPUTE_8BIT.search(sentence) or claims.negated_words(sentence, m):
                continue
            if all(_KV_BEFORE.search(sentence, 0, q.start()) or _KV_AFTER.match(sentence, q.end())
                   for q in _QUANT_WORD.finditer(sentence, m.start(), m.end())):
                continue  # the KV cache quantised, not the weights
            if not (_FULL_NAMED.search(sentence) or _NO_GAIN.search(m.group(0)) or _unquantised_named(m.group(0))):
                continue  # "the AWQ model is slower than expected": slower than a hope, not than FP16
            if not _FULL_NAMED.search(m.group(0)) and _LAYOUT_CHANGE.search(m.group(0)):
                continue  # "with AWQ, turning on TP gives no speedup": the layout's gain that did not come, not FP16's
            lead = sentence[:m.start()]
            if _RULED_OUT.search(m.group(0)) or re.search(r"\b(?:is|are|was|were)\s+not\s+$|n't\s+$", lead, re.I):
                continue  # "AWQ is not slower", "no longer slower", "without any slowdown"
            expected = _EXPECTATION.search(lead) or _EXPECTATION.search(m.group(0))
            if not claims.asked(sentence) and (claims.guessed(sentence) or expected or _CONDITION.search(lead)):
                continue  # a suggestion or an expectation, not what they measured
            out.append(claims.Claim("quantised_loses", source, claims.one_line(sentence[:240]),
                                    {"scale": _scale(sentence, text)}))
    return out


@rule("ticket.quantised_vs_full", "expected_physics", "other")
def quantised_vs_full(facts: Facts, predictions=None):
    """A weight-only quantised model (AWQ, GPTQ, 4-bit) no faster or slower than its FP16/BF16 original: at a large
    batch that is the format's trade (the multiplies are compute-bound and the dequantisation is extra work); at a
    batch of one or a few the 4-bit weights should win, so there the engine's kernel for the format costs the
    time."""
    if not asks_about_figures(facts):
        return
    found = quantised_loses(facts)
    if not found:
        return
    c = found[0]
    said = claim_ev(c, "what the reporter compares")
    if c.data["scale"] == "small":
        yield make("ticket.quantised_vs_full", "other", "warning", 0.4,
                   "The quantised model is slower than 16-bit at a small batch: its kernel, not the format, costs "
                   "the time",
                   "At a batch of one or a few, decode reads every weight per token, so 4-bit weights (a quarter of "
                   "the bytes) should decode faster than FP16; the quantised run losing there points at the engine's "
                   "kernel for the format (an unfused or unoptimised path), not at the hardware.",
                   [said], fix="Use the engine's fast kernel for the format (vLLM: --quantization awq_marlin or "
                   "gptq_marlin on Ampere and newer), or the engine's recommended format, and compare again at "
                   "batch 1.", refs=[AUTOAWQ, VLLM_AWQ])
        return
    known = c.data["scale"] in ("large", "prefill")
    prefill = c.data["scale"] == "prefill"
    bits = 8 if weight_dtype(facts) == "int8" else 4  # "GPTQ-Int8" named: the 8-bit weights of the same trade
    yield make("ticket.quantised_vs_full", "expected_physics", "info", 0.55 if known else 0.45,
               f"{'An 8' if bits == 8 else 'A 4'}-bit weight-only model gains nothing over 16-bit "
               f"{'in prefill (the first token)' if prefill else 'at a large batch'}: the format's trade",
               f"AWQ/GPTQ store weights in {bits} bits and widen them to 16 bits inside each matrix multiply. "
               "That saves memory reads, which is what limits decode at a small batch; at a large batch the "
               "multiplies are limited by arithmetic instead, so the saving stops mattering and the dequantisation "
               "is extra work: the quantised model runs as fast as FP16 or slower."
               + (" Prefill is such a multiply: every prompt token goes through the weights at once, so the first "
                  "token (and the prompt's processing) is no faster with quantised weights, and can be slower, while "
                  "the tokens after it, one per step, gain." if prefill else "")
               + ("" if known else " The ticket does not say the batch: this holds for many requests at once."),
               [said], fix="Serve FP16/BF16 (or FP8 on Hopper and newer) for the highest throughput; keep "
               f"{bits}-bit weights where memory or single-stream latency matters.", refs=[AUTOAWQ, VLLM_AWQ])


# bitsandbytes' on-the-fly quantisation as tickets state it: an engine's flag (TGI --quantize bitsandbytes /
# bitsandbytes-nf4 / bitsandbytes-fp4, vLLM --quantization bitsandbytes: diagnose.artifacts.launch keeps it as
# written), transformers' load_in_8bit / load_in_4bit / BitsAndBytesConfig, LLM.int8(), or the library named.
_BNB_FLAG = re.compile(r"^bitsandbytes(?:-(?:nf4|fp4))?$", re.I)
_BNB_SAID = re.compile(r"\b(?:bitsandbytes|bnb|load_in_[48]bit|BitsAndBytesConfig|LLM\.int8|nf4)\b", re.I)
# bitsandbytes put aside in the words before it: "replace `--quantize "gptq"` instead of `--quantize "bitsandbytes"`"
_BNB_AVOIDED = re.compile(r"\b(?:instead of|rather than|without|not)\b[^.;\n]{0,20}$", re.I)
# ... or named as the faster side a slower run is measured against: "AWQ ... is approximately two times slower than
# using bitsandbytes-nf4" (huggingface/text-generation-inference#1728), "GPTQ 比 BitsAndBytes 慢": the reference, not
# the path the slow run took.
_BNB_REFERENCE = re.compile(r"\b(?:slower|worse|lower\s+\w+(?:\s+\w+)?)\s+than\s+(?:using\s+|with\s+|the\s+)?$|"
                            r"比\s*$", re.I)
_SLOWER_AFTER = re.compile(r"^[^。，,.;\n]{0,30}?慢")
# (p48c) The CLI flag `--load-8bit` (FastChat, LLaVA's cli): the weights stored in 8 bits as they load and widened back
# to 16 bits before every matmul, FastChat by its own compression, LLaVA through bitsandbytes. FastChat's maintainers:
# "load-8bit won't speed up inference because we have to recover the tensor to 16bit before gemm" (lm-sys/FastChat#536),
# "a naive one optimized for memory usage instead of latency" (#1698): bitsandbytes' trade, under another name.
_LOAD_8BIT = re.compile(r"(?:--)?\bload-8bit\b", re.I)
_FAILURES = ("error", "hang", "crash")
_SPEED = re.compile(r"\bslow|\bspeed|\bfast|latenc|throughput|\btok|\bms\b|per token|慢|速度", re.I)
TGI_LAUNCHER = "https://huggingface.co/docs/text-generation-inference/reference/launcher"
VLLM_BNB = "https://docs.vllm.ai/en/latest/features/quantization/bnb.html"
BNB_TIMING = "https://github.com/bitsandbytes-foundation/bitsandbytes/issues/347"
FASTCHAT_8BIT = "https://github.com/lm-sys/FastChat/issues/536"
FASTCHAT_8BIT_NAIVE = "https://github.com/lm-sys/FastChat/issues/1698"


def _bnb_reference(sentence: str, m: re.Match, said: re.Pattern = _BNB_SAID) -> bool:
    """Is bitsandbytes (or the path `said` names) the faster side the sentence measures a slower run against
    ("slower than using bitsandbytes-nf4", "比 bnb 慢")?"""
    lead = sentence[:m.start()]
    if said.search(lead):
        return False  # bitsandbytes on the slower side too: "`load_in_8bit` ... 150% slower than load_in_4bit"
    if re.search(r"比\s*$", lead):
        return bool(_SLOWER_AFTER.search(sentence[m.end():]))
    return bool(_BNB_REFERENCE.search(lead))


def _bnb_is_faster(facts: Facts) -> bool:
    """Does a sentence set a slower run against bitsandbytes ("AWQ ... two times slower than using bitsandbytes-nf4")?
    Then the slowness asked about is that other format's, not bitsandbytes' path."""
    return any(_bnb_reference(sentence, m) for _, text in claims.texts(facts) for sentence in claims.sentences(text)
               for m in _BNB_SAID.finditer(sentence))


def bitsandbytes_stated(facts: Facts) -> tuple[str, str] | None:
    """(source, what) where the ticket says its weights run through bitsandbytes (a launch flag, or the words of a
    sentence that does not rule it out: "instead of bnb", "not bitsandbytes"); None where nothing says so."""
    for w in facts.of(Workload):
        for key in ("quantize", "quantization"):
            value = w.extra.get(key)
            if isinstance(value, str) and _BNB_FLAG.match(value.strip()):
                return w.source, f"--{key} {value.strip()}"
    said = _path_said(facts, _BNB_SAID)
    # the sentence that names the library first ("using bitsandbytes nf4 quantization"), else one naming NF4 alone
    said.sort(key=lambda x: x[2].group(0).lower() == "nf4")
    return (said[0][0], claims.one_line(said[0][1][:240])) if said else None


def _path_said(facts: Facts, path: re.Pattern) -> list[tuple[str, str, re.Match]]:
    """(source, sentence, match) for each sentence naming the quantisation path as what the writer's own run uses now:
    not negated, not put aside ("without --load-8bit", "instead of bnb"), not the faster reference of a slower run;
    (fx48p) not asked or offered ("Would --load-8bit make it faster?"), not another's run (hearsay: "a friend told me
    his run with --load-8bit was slow"), not taken off since ("... with --load-8bit was slow, I dropped the flag")."""
    return [(source, sentence, m) for source, text in claims.texts(facts) for sentence in claims.sentences(text)
            if (m := path.search(sentence)) and not claims.negated_words(sentence, m)
            and not _BNB_AVOIDED.search(sentence[:m.start()]) and not _bnb_reference(sentence, m, path)
            and not claims.offered(sentence, m.start()) and not hearsay.elsewhere(sentence[:m.start()])
            and not claims.switch_dropped(sentence, m)]


def load_8bit_stated(facts: Facts) -> tuple[str, str] | None:
    """(source, what) where the ticket says its run used `--load-8bit` (weights widened from 8 bits before every
    matmul), in a sentence that does not rule it out ("without --load-8bit"); None where nothing says so."""
    said = _path_said(facts, _LOAD_8BIT)
    return (said[0][0], claims.one_line(said[0][1][:240])) if said else None


@rule("ticket.bitsandbytes_path", "other")
def bitsandbytes_path(facts: Facts, predictions=None):
    """A slowness complaint about a run whose weights bitsandbytes quantises: its on-the-fly 8-bit (LLM.int8) and
    4-bit (NF4/FP4) layers dequantise in a slow path of their own, which the engines document as slower than 16-bit
    weights (TGI's launcher: "it is known that the model will be much slower to run than the native f16"; vLLM's
    bitsandbytes page), several times so at batch 1 (LLM.int8 154.55 ms against fp16 32.89 ms a token on an RTX
    3090, bitsandbytes#347). The expected figures assume the engines' fast kernels for 4- and 8-bit weights
    (GPTQ/AWQ with Marlin, FP8), so a run through bitsandbytes falls short of them by the format's path, not by the
    GPUs or their links."""
    said = claims.symptom_quote(facts)
    if not said or said[2] in _FAILURES:
        return  # an error, hang or crash beside bitsandbytes is the failure's to explain
    shortfall = claims.complaint(facts)  # "2x slower than expected" under an "Expected behavior" heading
    if said[2] != "slow" and (shortfall is None or not _SPEED.search(shortfall.quote)):
        return  # a complaint of something else ("the GPU only uses 10%") is no speed shortfall
    what = claim_ev(shortfall, "what the reporter calls slow") if said[2] != "slow" else \
        ev(said[0], f'what the reporter reports: "{said[1]}"')
    stated = bitsandbytes_stated(facts)
    if stated is None or _bnb_is_faster(facts):
        stated = load_8bit_stated(facts)
        if stated is None:
            return  # no bitsandbytes, or the slower run set against bitsandbytes is another format's
        yield make("ticket.bitsandbytes_path", "other", "warning", 0.5,
                   "The weights load in 8 bits on the fly (--load-8bit), a slower path than 16-bit weights",
                   "--load-8bit stores each weight in 8 bits to save memory and widens it back to 16 bits before "
                   "every matrix multiply (FastChat: 'we have to recover the tensor to 16bit before gemm', an "
                   "implementation 'optimized for memory usage instead of latency'; LLaVA's flag goes through "
                   "bitsandbytes, which the engines document as slower than 16-bit weights). The run is slower than "
                   "the same model in 16 bits by this path, not by its GPUs or their links.",
                   [ev(stated[0], f"the weights' quantisation: {stated[1]}"), what],
                   fix="Run the model in 16 bits where it fits (drop --load-8bit), or serve a GPTQ/AWQ checkpoint on "
                   "an engine's fast kernel (vLLM, TGI); keep --load-8bit for fitting a model, not for speed.",
                   refs=[FASTCHAT_8BIT, FASTCHAT_8BIT_NAIVE, BNB_TIMING])
        return
    yield make("ticket.bitsandbytes_path", "other", "warning", 0.5,
               "The weights run through bitsandbytes, a slower path than 16-bit or GPTQ/AWQ weights",
               "bitsandbytes quantises the weights as they load and dequantises them in its own matrix-multiply path "
               "at every step; the engines document it as slower than unquantised weights (TGI: 'it is known that "
               "the model will be much slower to run than the native f16'), several times so for one stream "
               "(LLM.int8 154.55 ms against fp16 32.89 ms a token for LLaMA-7B on an RTX 3090, "
               "bitsandbytes#347). The expected figures assume the engines' fast 4- and 8-bit kernels, so this run "
               "is slow by its quantisation path, not by its GPUs or their links.",
               [ev(stated[0], f"the weights' quantisation: {stated[1]}"), what],
               fix="Serve a GPTQ or AWQ checkpoint on the engine's fast kernel (vLLM/TGI: gptq, awq, marlin), FP8 on "
               "Ada/Hopper, or 16-bit weights where they fit; keep bitsandbytes for fitting a model, not for speed.",
               refs=[TGI_LAUNCHER, VLLM_BNB, BNB_TIMING])

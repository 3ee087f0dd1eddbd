"""FlashAttention switched on and generation barely faster: what the kernel speeds up is a small part of a decode step.

FlashAttention computes attention without writing the attention matrix to GPU memory (Dao et al., "FlashAttention",
https://arxiv.org/abs/2205.14135): it saves the reads and writes that grow with the prompt squared, in prefill and
in training. Generating one token at a small batch instead reads every weight of the model once; attention then reads
only the cached keys and values of a short context, a few per cent of those bytes, so a faster attention kernel
changes the time per token by about that much. The kernel is also built for long queries and leaves most of the GPU
idle when the query is one token (the Flash-Decoding write-up, https://crfm.stanford.edu/2023/10/12/flashdecoding.html).
Its gain in inference shows with long prompts, long contexts and many sequences at once, not in one short chat.
A slowdown, a gain missing with a long context or a large batch, or a failure to build are other questions: left out.
"""

from __future__ import annotations

from diagnose import lazy_re as re
from diagnose.evidence import Facts
from rules import claims
from rules.common import claim_ev, make
from rules.engine import rule
from rules.quant_tradeoff import _BATCH_N, _LARGE, SMALL_BATCH
from rules.ticket_figures import asks_about_figures

FLASH_PAPER = "https://arxiv.org/abs/2205.14135"
FLASH_DECODING = "https://crfm.stanford.edu/2023/10/12/flashdecoding.html"

# The kernel as people name it: FlashAttention(-2/3), flash-attn, flash_attn, "flash attention".
_FLASH = r"(?:\bflash[-_ ]?att(?:ention|n)\w*|\bFA-?[23]\b)"
# No gain, or a small one: "don't see any performance improvement", "no speedup", "not faster", "提速不明显",
# "只能带来低于5%的推理提速", "只提升5%", "加速效果较差", "没有提升/加速".
_NO_GAIN = (r"(?:(?:\b(?:no|not|without|barely|hardly|little|marginal|negligible|small|minor|tiny|slight|"
            r"mini?s?cule)\b|n't)[^.\n]{0,30}?"
            r"\b(?:improvements?|improve\w*|speed[- ]?ups?|faster|gains?|difference|boost|benefits?|acceleration|"
            r"effect|advantages?)\b|\bdoes nothing\b|"
            # "the generation times are quite similar" (huggingface/candle#2069), "performance also looks the same"
            r"\b(?:times?|speeds?|performance|throughput|latency|tok\w*/s|results?)\s+(?:\w+\s+)?(?:are|is|was|were|"
            r"looks?|seems?|stays?|remains?)\s+(?:\w+\s+)?(?:the same|similar|identical|unchanged)\b|"
            r"\b(?:only|just|less than|under|below)\s+(?:about\s+|~)?\d+(?:\.\d+)?\s*%\s*(?:faster|speed[- ]?up|"
            r"improvement|gain)|"
            r"(?:提速|加速|提升)[^。\n]{0,6}?(?:不明显|很小|有限|较差|不大)|"
            r"(?:低于|不到|只有|仅|只)\s*\d+(?:\.\d+)?\s*%[^。\n]{0,10}?(?:提速|加速|提升)|"
            r"(?:没有|没)(?:什么|明显)?(?:提升|加速|提速|变化|区别)|加速效果[^。\n]{0,4}?(?:差|不明显|一般))")
_FLASH_NO_GAIN = re.compile(_FLASH + r"[^\n]{0,160}?" + _NO_GAIN + r"|" + _NO_GAIN + r"[^.\n]{0,60}?" + _FLASH,
                            re.I)
# A loss, not a missing gain ("slower with flash attention", "反而更慢"): another question, not this trade.
_SLOWER = re.compile(r"\bslow(?:er|s down|ed down)\b|\bslowdown\b|反而[^。\n]{0,6}慢|更慢|变慢|慢了|略微?慢", re.I)
# Not text generation: diffusion steps and their it/s, speech and music models, image and video pipelines. Their steps
# run the whole network over many positions at once, so the reading of a decode step below does not hold there.
_NOT_TEXT = re.compile(r"\d\s*(?:it/s|s/it)\b|\bdiffusion\b|\bcomfy\s?ui\b|\bwhisper\b|\brtf\b|\bTTS\b|"
                       r"\btext[- ]to[- ](?:speech|image|video|audio)\b|\b(?:txt2img|img2img|i2v|t2v)\b|"
                       r"\b(?:image|video|audio|speech|music)\s+generation\b|文生图|图生视频|视频生成|图像生成|语音|音乐|歌曲",
                       re.I)
# Text generation named: tokens, a token rate, a language model, decoding. A ticket naming none of these (and no model
# the catalog knows) may be any other network, where the kernel's share of a step is another matter.
_TEXT_GEN = re.compile(r"\btok(?:en)?s?\b|\btok(?:en)?s?/s\b|\bt/s\b|\bLLMs?\b|\blanguage models?\b|"
                       r"\bdecod(?:e|ing)\b|token|大模型|语言模型", re.I)
# Training, where the kernel's saving is the main cost: not this trade.
_TRAINING = re.compile(r"\b(?:train\w*|fine-?tun\w*|pre-?train\w*|backward)\b|训练|微调", re.I)
# A long context stated (8k tokens and up), where attention's share of a step is no longer small.
_LONG = re.compile(r"\b(?:\d{2,3}[kK]|[89]\d{3}|\d{5,6})\s*(?:tokens?\s+)?(?:context|prompt|input|sequence|tokens?)\b|"
                   r"\blong[- ](?:context|prompts?|sequences?|inputs?)\b|长(?:文本|上下文|序列)", re.I)


def flash_no_gain(facts: Facts) -> claims.Claim | None:
    """The reporter's sentence saying flash attention gave generation no or little speedup, unless the ticket puts it
    in training, calls it a slowdown, states a long context or a large batch (where the kernel should pay), or runs
    a diffusion, speech or music model (_NOT_TEXT)."""
    for source, text in claims.texts(facts):
        if _TRAINING.search(text) or _LONG.search(text) or _LARGE.search(text) or _NOT_TEXT.search(text) or \
                any(int(a or b) > SMALL_BATCH for a, b in _BATCH_N.findall(text)):
            continue
        for sentence in claims.sentences(text):
            m = _FLASH_NO_GAIN.search(sentence)
            if m is None or _SLOWER.search(sentence):
                continue
            return claims.Claim("flash_no_gain", source, claims.one_line(sentence[:240]))
    return None


def generates_text(facts: Facts) -> bool:
    """Is the ticket about generating text: a model the catalog places, or tokens, a token rate or a language model in
    the reporter's words? (A web UI's "flash attention does not speed up" may be an image model's.)"""
    return facts.subject.model is not None or any(_TEXT_GEN.search(t) for _, t in claims.texts(facts))


@rule("ticket.flash_attention_gain", "expected_physics")
def flash_attention_gain(facts: Facts, predictions=None):
    """Flash attention on and generation no faster, or a few per cent faster: at a short context and a small batch a
    decode step's time is spent reading the weights, which the kernel does not touch."""
    if not asks_about_figures(facts) or not generates_text(facts):
        return
    c = flash_no_gain(facts)
    if c is None:
        return
    yield make("ticket.flash_attention_gain", "expected_physics", "info", 0.55,
               "Flash attention barely speeds up generation at a short context: a decode step is spent reading the "
               "weights",
               "FlashAttention avoids writing the attention matrix to GPU memory, a saving that grows with the prompt "
               "length squared: it shows in prompt processing, long contexts, many sequences at once and training. "
               "Generating one token at a small batch reads every weight of the model once, while attention reads "
               "only the cached keys and values of a short context, a few per cent of those bytes, so the time per "
               "token changes by about that much. The ticket states no long context and no large batch.",
               [claim_ev(c, "what the reporter measured")],
               fix="Expect the gain in time to first token for long prompts and in throughput at high concurrency; "
               "to speed up generation itself, cut the bytes read per token (a quantised model, a faster GPU) or "
               "batch requests.", refs=[FLASH_PAPER, FLASH_DECODING])

"""Speculative decoding as a ticket states it: the launch flags each engine takes, else the reporter's words.

A single stream decoding faster than its weights can stream is possible only with fewer bytes a weight, a batch, or
speculation (one verify step streams the weights once and keeps several tokens). Where the ticket says speculation
ran but prints no acceptance length, the published range for its method (rules/catalog/speculative.toml) bounds
what it can add."""

from __future__ import annotations

import json
from dataclasses import dataclass

from diagnose import lazy_re as re
from diagnose.evidence import Facts, Workload
from rules import claims
from rules.catalog import Acceptance, acceptance
from rules.common import ev
from rules.expectations import band_text


@dataclass(frozen=True)
class Speculation:
    """The method stated, the draft tokens a step proposes (None: not stated), and where it was said."""

    method: str
    draft_tokens: int | None
    source: str
    said: str

    def tokens_per_step(self) -> tuple[float, float, Acceptance]:
        """(low, high) tokens a verify step yields by the published range, capped at 1 + the draft tokens."""
        a = acceptance()[self.method]
        high = min(a.high, 1 + self.draft_tokens) if self.draft_tokens else a.high
        return min(a.low, high), high, a

    @property
    def label(self) -> str:
        """The method as people name it: "EAGLE-3", "MTP", "a draft model"."""
        return {"unnamed": "speculative decoding", "draft_model": "a draft model", "ngram": "n-gram drafting",
                "mtp": "MTP"}.get(self.method, self.method.upper().replace("EAGLE3", "EAGLE-3"))

    @property
    def drafts(self) -> str:
        return f", {self.draft_tokens} draft tokens a step" if self.draft_tokens else ""


@dataclass(frozen=True)
class SpeculatedBand:
    """One stream's decode rate under speculation: the plain-decode band and roofline times the tokens a verify step
    keeps (one step streams the weights once), by the published range for the method."""

    low: float
    high: float
    roofline: float
    plain_low: float
    plain_high: float
    per_step: tuple[float, float]
    acceptance: Acceptance


def speculated(spec: Speculation, expected: float, band_low: float, band_high: float,
               roofline: float) -> SpeculatedBand:
    """The band a healthy run gives one stream with `spec`, from the plain prediction (expected figure, its band
    factors, roofline): the same arithmetic for a ticket's figure and for `predict --spec-method/--spec-tokens`."""
    lo, hi, a = spec.tokens_per_step()
    plain_low, plain_high = expected / band_high, expected / band_low
    return SpeculatedBand(plain_low * lo, plain_high * hi, roofline * hi, plain_low, plain_high, (lo, hi), a)


def evidence(spec: Speculation, s: SpeculatedBand, p, gpu, band: str) -> list:
    """The published tokens a step for the method, and the plain band and roofline times them: the evidence of a
    speculated rate, for a ticket's figure and for `predict`'s expected one alike (p: the plain prediction)."""
    (lo, hi), a = s.per_step, s.acceptance
    return [ev(a.source, f"tokens a verify step keeps under {spec.label}, as published"
               f"{' (at most 1 + the draft tokens)' * bool(spec.draft_tokens)}: {a.why}", f"{lo:g}-{hi:g}",
               unit="tok/step"),
            ev("prediction:expected", f"plain-decode band ({p.engine} profile, {gpu.key}) times {lo:g}-{hi:g} "
               f"tokens a step (plain {band_text(s.plain_low, s.plain_high)})", expected=band, unit="tok/s"),
            ev("prediction:roofline", f"roofline times {hi:g} tokens a step (plain {p.decode_tok_s:.0f})",
               expected=round(s.roofline, 1), unit="tok/s")]


def requested(method: str | None, draft_tokens: int | None) -> Speculation | None:
    """The speculation `predict` is asked to model (--spec-method, --spec-tokens); None when neither is given. A
    method as the engines spell it ("EAGLE-3", "eagle3", "nextn", "ngram", "draft_model"); draft tokens alone are an
    unnamed method's. A name no method matches is bad input."""
    from diagnose.errors import InputError

    if method is None and draft_tokens is None:
        return None
    key = None
    if method is not None:
        key = method.strip().lower() if method.strip().lower() in acceptance() else _method(method)
        if key is None:
            known = ", ".join(k for k in acceptance() if k != "unnamed")
            raise InputError(f"--spec-method {method!r}: no speculative-decoding method in "
                             f"rules/catalog/speculative.toml matches it (known: {known})")
    said = " ".join(f"--{k} {v}" for k, v in (("spec-method", method), ("spec-tokens", draft_tokens)) if v)
    return Speculation(key or "unnamed", draft_tokens, "request", said)


# Method names as the engines spell them (vLLM's speculative_config "method", SGLang's --speculative-algorithm,
# TensorRT-LLM's --speculative_decoding_mode), and as model names carry them ("EAGLE3-LLaMA3.1-Instruct-8B").
_NAMED = (("eagle3", r"eagle[-_ ]?3"), ("eagle", r"eagle"), ("mtp", r"mtp|nextn"), ("medusa", r"medusa"),
          ("ngram", r"n-?gram|lookahead|prompt[-_ ]?lookup|suffix"),
          ("draft_model", r"draft[-_ ]?(?:model|tokens)|standalone"))


def _method(name: str) -> str | None:
    for method, pattern in _NAMED:
        if re.search(pattern, name, re.I):
            return method
    return None


def _int(value) -> int | None:
    return int(value) if str(value).strip().isdigit() and int(value) > 0 else None


def _from_flags(flags: dict) -> tuple[str, int | None] | None:
    """(method, draft tokens) from the flags launch.SPEC_FLAGS keeps."""
    if "speculative-config" in flags:
        text = str(flags["speculative-config"])
        try:
            config = json.loads(text)
        except ValueError:
            try:
                config = json.loads(text.replace("'", '"'))
            except ValueError:
                config = {}
        if not isinstance(config, dict):
            config = {}
        name = str(config.get("method") or config.get("model") or text)
        return _method(name) or ("draft_model" if config.get("model") else "unnamed"), \
            _int(config.get("num_speculative_tokens"))
    for flag in ("speculative-algorithm", "speculative-algo", "speculative-decoding-mode", "spec-type",
                 "speculative-model", "speculative-draft-model-path", "speculative-draft", "model-draft", "md"):
        if flag in flags:
            # a mode or algorithm named without a known method is speculation all the same; a model is a draft model
            method = _method(str(flags[flag])) or ("unnamed" if flag in ("speculative-algorithm", "speculative-algo",
                                                                         "speculative-decoding-mode", "spec-type")
                                                   else "draft_model")
            # SGLang drafts --speculative-num-steps tokens a step along one chain; the others name the count
            count = next((_int(flags[f]) for f in ("num-speculative-tokens", "speculative-num-steps", "max-draft-len",
                                                  "draft-max", "draft", "spec-draft-n-max")
                          if f in flags and _int(flags[f])), None)
            return method, count
    return None


# The reporter's words: a method named with a word saying it ran ("with MTP", "EAGLE-3 enabled", "using a draft
# model", "speculative decoding on"); a negation ("without speculative decoding", "spec decode off", "no MTP") says
# it did not, and a question or a plan ("should I try EAGLE?") is not what ran.
_MENTION = (r"(?P<name>eagle[-_ ]?3|eagle(?:[-_ ]?[12])?|\bMTP\b|multi[-\s]token prediction|nextn|medusa|"
            r"n-?gram (?:spec\w*|draft\w*|lookup)|prompt[-\s]lookup(?: decoding)?|draft model|"
            r"spec(?:ulative)?[-\s]?decod\w*|spec[-\s]?dec\b|speculation)")
_ON = re.compile(r"\b(?:with|using|use[sd]?|via|plus|enabled?|running|runs|turned on|activated?)\s+(?:\w+[-\s]){0,2}"
                 + _MENTION + r"|" + _MENTION.replace("?P<name>", "?P<after>")
                 + r"\s+(?:is\s+|was\s+)?(?:on|enabled|active|turned on)\b", re.I)
_OFF = re.compile(r"\b(?:without|w/o|no|not|disabled?|disabling|turn(?:ed)? off)\s+(?:\w+[-\s]){0,2}" + _MENTION
                  + r"|" + _MENTION.replace("?P<name>", "?P<after>")
                  + r"\s+(?:is\s+|was\s+)?(?:off|disabled|not (?:enabled|used|on))\b", re.I)
_PLAN = re.compile(r"\b(?:try|trying|should|could|would|plan\w*|consider\w*|suggest\w*|recommend\w*|whether|if)\b"
                   r"[^.!?\n]{0,30}$", re.I)


def _from_words(text: str) -> tuple[str, str] | None:
    """(method, the words) where the text says speculation ran; ("off", words) where it says it did not."""
    if (off := _OFF.search(text)) is not None:
        return "off", off.group(0)
    for m in _ON.finditer(text):
        name = m.group("name") or m.group("after")
        rest = text[m.end():]
        if _PLAN.search(text[max(0, m.start() - 40):m.start()]) or rest[:re.search(r"[.!\n]|$", rest).start()
                                                                         ].rstrip().endswith("?"):
            continue
        return _method(name) or "unnamed", m.group(0)
    return None


def stated(facts: Facts) -> Speculation | None:
    """The speculative decoding the ticket says ran: its launch flags first, else the reporter's words; None when
    neither says so, or the words say it was off."""
    for w in facts.of(Workload):
        flags = w.extra.get("speculative")
        found = _from_flags(flags) if isinstance(flags, dict) else None
        if found:
            said = " ".join(f"--{k} {v}" for k, v in flags.items())
            return Speculation(found[0], found[1], w.source, said)
    for src, text in claims.texts(facts):
        found = _from_words(text)
        if found:
            return None if found[0] == "off" else Speculation(found[0], None, str(src), found[1])
    return None

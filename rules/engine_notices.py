"""The engine's own notice about its speed, quoted in a ticket (rules/catalog/engine_notices.toml).

Engines print a WARNING or INFO line when they take a slower path than they could, and a support engineer reads these
first in a pasted start-up log: vLLM's "Your GPU does not have native support for FP8 computation ... Weight-only FP8
compression will be used leveraging the Marlin kernel", "Since enforce-eager is enabled, async output processor cannot
be used", SGLang's "Cuda graph is disabled because ...", TGI's "Could not import Flash Attention enabled models",
bitsandbytes' "... This will lead to slow inference". Such a notice (a row of strength "cause") names the slower path
itself: evidence for its row's category, quoted, at the weight of any quoted message
(ticket.known_error's 0.6 pasted / 0.5 in prose, less a tenth: a notice says the path is slower, not by how much).

Other notices only say what the box is: custom all-reduce off on more than two PCIe-only GPUs (NCCL carries the
all-reduce, as designed), flash-attention 2 unavailable before Ampere, torch.compile's "Not enough SMs to use
max_autotune_gemm mode". Those (strength "context") are shown beside the figure checks and never decide
(rules.engine.CONTEXT_ONLY): the same line prints on every healthy box of that kind.

Some notices cost nothing, by their own source: torch.compile's "Not enough SMs to use max_autotune_gemm mode" (it
keeps cuBLAS's GEMMs), PyTorch's "Torch was not compiled with flash attention" (SDPA runs another kernel), transformers'
"Setting `pad_token_id` to `eos_token_id`". Asked about in the reporter's own words ("is this warning slowing me
down?") with no error message beside it (strength "harmless"), the answer is that it is harmless: a passed check of
category healthy, which a complaint about a measured speed does not take as its answer (rules.engine.verdict). Pasted
in a log among other lines it is context.

Not for a hang or a crash, which no slower path explains.
"""

from __future__ import annotations

from rules import claims
from rules.catalog import NOTICE_CATEGORIES, NOTICE_CONTEXT_CATEGORIES
from rules.common import claim_ev, make
from rules.engine import rule

CATALOG = "rules/catalog/engine_notices.toml"
# a quoted message's weight (ticket.known_error: 0.6 pasted, 0.5 in the reporter's sentence), a tenth less
WEIGHT = {"output": 0.5, "prose": 0.4}
# a harmless notice asked about: a passed check at the weight of a pasted notice
HARMLESS_WEIGHT = 0.5
CONTEXT_RULE = "ticket.engine_notice_context"


def _quoted(facts, strength: str) -> list:
    return [c for c in claims.engine_notices(facts) if c.data["notice"].strength == strength]


def _notice_ev(c):
    """The quoted notice as evidence, with its catalog row and the releases that print it."""
    row = c.data["notice"]
    return claim_ev(c, f"{row.engine} notice ({row.id}, {CATALOG}; printed by {row.versions})")


def _refs(row) -> list[str]:
    return [src.split(" (")[0] for src in row.sources]


@rule("ticket.engine_notice", *NOTICE_CATEGORIES)
def engine_notice(facts, predictions=None):
    """A notice in which the engine says it took a slower path (weight-only FP8 through Marlin on a GPU without FP8
    tensor cores, eager decode, TGI's transformers fallback, a float32 compute dtype for 4-bit layers): its row's
    category, the notice quoted. The pasted log's notice first; one finding per notice."""
    if claims.symptom(facts) in ("hang", "crash"):
        return
    found = _quoted(facts, "cause")
    for c in sorted(found, key=lambda c: c.data["origin"] != "output"):
        row = c.data["notice"]
        yield make("ticket.engine_notice", row.category, "warning", WEIGHT[c.data["origin"]],
                   f"{row.engine} says it takes a slower path: {row.id.replace('_', ' ')}",
                   f"The engine's own notice says {row.meaning}.",
                   [_notice_ev(c)],
                   fix=row.fix, refs=_refs(row))


@rule("ticket.engine_notice_harmless", "healthy")
def engine_notice_harmless(facts, predictions=None):
    """A notice whose source says it costs no speed, asked about in the reporter's own words, with no error message of
    the catalog quoted beside it: answered as harmless (a passed check, category healthy)."""
    if claims.symptom(facts) in ("hang", "crash") or claims.known_errors(facts):
        return
    for c in _quoted(facts, "harmless"):
        if c.data["origin"] != "prose":
            continue
        row = c.data["notice"]
        yield make("ticket.engine_notice_harmless", "healthy", "ok", HARMLESS_WEIGHT,
                   f"The {row.engine} notice asked about is harmless: {row.id.replace('_', ' ')}",
                   f"The notice says {row.meaning}.",
                   [_notice_ev(c)],
                   refs=_refs(row))


@rule(CONTEXT_RULE, *NOTICE_CONTEXT_CATEGORIES)
def engine_notice_context(facts, predictions=None):
    """A notice that describes the box (custom all-reduce off on a PCIe-only box or without P2P, an attention backend
    the GPU generation dictates, the KV cache's stated concurrency), or a harmless one pasted in a log: context beside
    the figure checks, never the verdict (rules.engine.CONTEXT_ONLY)."""
    harmless_pasted = [c for c in _quoted(facts, "harmless") if c.data["origin"] == "output"]
    for c in _quoted(facts, "context") + harmless_pasted:
        row = c.data["notice"]
        yield make(CONTEXT_RULE, row.category, "info", 0.0,
                   f"{row.engine} notice (context): {row.id.replace('_', ' ')}",
                   f"The engine's notice says {row.meaning}. It describes the system; alone it explains no slowdown.",
                   [_notice_ev(c)],
                   refs=_refs(row))

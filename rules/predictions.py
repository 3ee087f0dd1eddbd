"""The predictions a command hands the rules, one type per command, all in one home (as the facts
are in diagnose.evidence).

A rule declares the type it reads (`@rule(..., needs=Plan)`) and the engine runs it only when the
command made one, so no rule guesses at a dict's shape. `report_json()` is what the report shows
under "predictions" (schema diagnose.report/1): the types serialise to exactly the JSON the dicts
they replace made, so renaming a field here is a schema change.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from rules.roofline import Prediction


class Predictions:
    """Base of every command's predictions."""

    def report_json(self) -> dict[str, Any]:
        """The report's "predictions" object."""
        raise NotImplementedError


# --------------------------------------------------------------------------- diagnose predict


@dataclass
class PredictRow(Prediction):
    """One layout x batch of `diagnose predict`: the roofline Prediction for the fullest replica
    (ceil(total_batch / DP) sequences), with its totals over all `total_batch` sequences (each at
    that replica's per-sequence rate, so 3 sequences over 2 replicas are 3 x the rate, not 2 x 2)."""

    total_batch: int = 0

    @classmethod
    def of(cls, p: Prediction, total_batch: int) -> "PredictRow":
        row = cls(**{f.name: getattr(p, f.name) for f in dataclasses.fields(p)}, total_batch=total_batch)
        row.decode_tok_s_total = round(total_batch * p.decode_tok_s, 2)
        row.decode_tok_s_total_expected = round(total_batch * p.decode_tok_s_expected, 2)
        return row

    @property
    def label(self) -> str:
        """'TP4', 'TP4 PP2', 'TP2 DP4'."""
        return f"TP{self.tp}" + (f" PP{self.pp}" if self.pp > 1 else "") + (f" DP{self.dp}" if self.dp > 1 else "")

    @property
    def usable(self) -> bool:
        return self.valid and self.fits


@dataclass
class PredictResult(Predictions):
    """`diagnose predict`: every layout x batch asked for, and the assumptions of the first."""

    layouts: list[PredictRow]

    @property
    def assumptions(self) -> dict:
        return self.layouts[0].assumptions if self.layouts else {}

    def report_json(self) -> dict[str, Any]:
        return {"layouts": [r.to_dict() for r in self.layouts], "assumptions": self.assumptions}


# --------------------------------------------------------------------------- diagnose plan


@dataclass
class Option:
    """One layout's napkin math (all memory in GB = 1e9 B, per GPU unless named per replica)."""

    tp: int
    pp: int
    dp: int
    gpus_used: int
    usable_gb: float
    weights_gb_per_gpu: float
    reserved_gb_per_gpu: float  # activations, CUDA graphs, communication buffers
    kv_budget_gb_per_gpu: float
    kv_bytes_per_token_per_gpu: float
    kv_tokens_per_replica: int
    slots_per_replica: int
    total_slots: int
    batch_per_replica: int
    served: int  # concurrent sequences this layout serves (<= the users asked for)
    itl_ms: float
    itl_ms_roofline: float
    tok_s_per_user: float
    tok_s_total: float  # served x per-user rate
    ttft_ms: float
    allreduce_share: float
    meets_slo: bool | None = None  # None: no SLO asked
    goodput: float = 0.0  # tok/s within the SLO (= tok_s_total when it is met or none was asked)
    ep: int = 1
    experts_per_gpu: float = 0.0
    notes: list[str] = field(default_factory=list)

    @property
    def label(self) -> str:
        return f"TP{self.tp}" + (f" PP{self.pp}" if self.pp > 1 else "") + f" x DP{self.dp}"

    def to_dict(self) -> dict:
        return {**dataclasses.asdict(self), "label": self.label}


@dataclass
class Plan(Predictions):
    """`diagnose plan`: every layout that fits (rules.planner), the one the objective picks, the
    fallback for a stricter latency SLO, and the napkin-math steps that lead there."""

    model: str
    model_name: str
    gpu: str
    gpu_name: str
    gpus: int
    engine: str
    engine_name: str
    context: int
    prompt: int
    concurrency: int
    dtype: str
    kv_dtype: str
    gpus_per_node: int
    objective: str
    itl_slo_ms: float | None
    ttft_slo_ms: float | None
    steps: list[str]
    slo_met: bool | None
    options: list[Option]
    chosen: Option
    fallback: Option | None
    is_moe: bool

    def to_dict(self) -> dict[str, Any]:
        out = {f.name: getattr(self, f.name) for f in dataclasses.fields(self)}
        out.update(options=[o.to_dict() for o in self.options], chosen=self.chosen.to_dict(),
                   fallback=self.fallback.to_dict() if self.fallback else None)
        return out

    def report_json(self) -> dict[str, Any]:
        return {"plan": self.to_dict()}

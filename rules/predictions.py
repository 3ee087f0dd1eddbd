"""The predictions a command hands the rules, one type per command, all in one home (as the facts
are in diagnose.evidence).

A rule declares the type it reads (`@rule(..., needs=Plan)`) and the engine runs it only when the
command made one, so no rule guesses at a dict's shape. `report_json()` is what the report shows
under "predictions" (schema diagnose.report/1): the types serialise to exactly the JSON the dicts
they replace made, so renaming a field here is a schema change.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
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

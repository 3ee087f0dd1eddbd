"""Records only the probes produce: a probe that failed or was killed by its timeout."""

from __future__ import annotations

from dataclasses import dataclass, field

from diagnose import evidence


@dataclass
class ProbeFailure:
    """A probe that did not deliver: `reason` is "timeout" (killed), "error" or "skipped".

    A hung collective is the typical timeout: its ranks are killed, the rest of the report
    still arrives, and rules turn this record into a finding.
    """

    source: str
    probe: str  # "collectives", "kernels.hbm", ...
    reason: str
    detail: str = ""
    seconds: float | None = None
    group: list[int] | None = None
    data: dict = field(default_factory=dict)


# The records a recording keeps as measurements (NVML and host readings are recorded raw).
MEASURED = (evidence.CollectiveResult, evidence.PairBandwidth, evidence.Measurement, ProbeFailure)

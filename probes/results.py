"""Records only the probes produce: a probe that failed or was killed by its timeout."""

from __future__ import annotations

from diagnose import evidence
from diagnose.evidence import ProbeFailure  # noqa: F401 - the probes' record, defined with the other facts

# The records a recording keeps as measurements (NVML and host readings are recorded raw).
MEASURED = (evidence.CollectiveResult, evidence.PairBandwidth, evidence.Measurement, ProbeFailure)

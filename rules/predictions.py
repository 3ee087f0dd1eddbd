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

from rules.catalog import EngineSpec, GpuSpec, ModelSpec
from rules.roofline import Layout, Prediction


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
        return Layout(self.tp, self.pp, self.dp).label()

    @property
    def usable(self) -> bool:
        return self.valid and self.fits


@dataclass
class PredictResult(Predictions):
    """`diagnose predict`: every layout x batch asked for, and the assumptions of the first. The
    model, GPU and engine are the catalog rows the command resolved once (rules never look them up
    again: a config.json model would be read a second time)."""

    layouts: list[PredictRow]
    model: ModelSpec
    gpu: GpuSpec
    engine: EngineSpec
    tp_asked: bool = True  # the TP sizes were named (--tp), not chosen by the default sweep
    # weights asked to stay off the GPU and the host they run from (--cpu-layers, --experts-on-cpu, --cpu-offload-gb,
    # --host, --host-mts, --host-channels, --sockets); None when none was (rules/predict_offload.py)
    offload: dict | None = None
    # the speculative decoding asked for (--spec-method, --spec-tokens): a rules.speculation.Speculation, or None
    speculation: Any = None

    @property
    def assumptions(self) -> dict:
        return self.layouts[0].assumptions if self.layouts else {}

    def report_json(self) -> dict[str, Any]:
        out = {"layouts": [r.to_dict() for r in self.layouts], "assumptions": self.assumptions}
        spec = self.speculation
        return out | ({"offload": self.offload} if self.offload else {}) | (
            {"speculation": {"method": spec.method, "draft_tokens": spec.draft_tokens}} if spec else {})


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
    itl_ms: float  # at itl_context tokens, as predict's (rules.roofline.itl_context)
    itl_ms_roofline: float
    tok_s_per_user: float  # 1000 / itl_ms: at the same context
    tok_s_total: float  # served x per-user rate
    ttft_ms: float
    allreduce_share: float
    meets_slo: bool | None = None  # None: no SLO asked
    goodput: float = 0.0  # tok/s within the SLO (= tok_s_total when it is met or none was asked)
    ep: int = 1
    experts_per_gpu: float = 0.0
    # at one sequence per replica: the lowest latency this layout can give, whatever the SLO
    itl_ms_one: float = 0.0
    ttft_ms_one: float = 0.0
    itl_context: int = 0  # the context the ITL is priced at: the reply's middle
    slo_itl_ms: float | None = None  # the ITL at the SLO's statistic (its pN: prompt + N % of the output); None: no SLO
    slo_itl_context: int = 0
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
    launch: str  # the engine's serve command and flags (rules.catalog.EngineSpec), for the Fix line
    launch_flags: tuple[str, ...]
    context: int
    prompt: int
    concurrency: int
    dtype: str
    kv_dtype: str
    gpus_per_node: int
    objective: str
    itl_slo_ms: float | None
    ttft_slo_ms: float | None
    itl_slo_share: float  # the ITL SLO is checked at prompt + this share of the output (its pN: N %)
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


# --------------------------------------------------------------------------- diagnose scaling


@dataclass
class ScalingRow:
    """One measured run beside its prediction (rules.scaling._row), then its judgement
    (rules.scaling._judge). Times in ms per decode step unless named."""

    label: str
    tp: int
    pp: int
    dp: int
    gpus: int
    batch: int
    batch_stated: bool
    sources: list[str]
    engine: str
    prompt: int
    output: int | None
    step_ms: float | None  # the measured decode step (rules.scaling.measured_step), None when none was measured
    step_how: str | None
    step_source: str | None
    roofline_ms: float
    expected_ms: float
    calibrated_ms: float  # expected, with the machine's own measured rates
    terms: dict[str, float]  # the measured step split into rules.scaling.TERMS
    calibrated_with: list[str]
    split_with: list[str]
    allreduce_count: int
    allreduce_bytes: int
    allreduce_ref_us: float
    allreduce_ref_source: str
    allreduce_healthy_max_us: float
    allreduce_measured_us: float | None
    allreduce_measured_source: str | None
    interconnect: str
    fits: bool
    weights_gb_per_gpu: float
    gpu_memory_gb: float
    valid: bool
    model: str
    gpu: str
    dtype: str
    prefill_tok_s: float | None
    output_tok_s: float | None
    itl_p95_ms: float | None
    ttft_p95_ms: float | None
    ttft_roofline_ms: float
    launch_expected_ms: float
    prefill_tok_s_expected: float
    capture_calls: int | None
    capture_source: str | None
    launch_gap_share: float | None
    band_low: float
    band_high: float
    # a benchmark result that states no concurrency: its batch derived (rules.littles_law.derived_batch),
    # how, and the run's name (its request rate)
    batch_how: str | None = None
    run: str | None = None
    # with a measured step: the share of the gap above the roofline the calibrated terms explain
    explained_share: float | None = None
    # the figure judged (None: the run has none the predictor can judge); with it, how and where it
    # was measured, and its roofline and expected value
    metric: str | None = None
    measured: float | None = None
    measured_how: str | None = None
    measured_source: str | None = None
    # a reporter's figure, written in prose (Measurement.stat "reported"): judged with the slack `ticket` gives it,
    # band_high then being the edge widened by it (rules.expectations.slowest_normal) and band_edge the band's own
    reported: bool = False
    band_edge: float | None = None
    roofline: float | None = None
    expected: float | None = None
    time_metric: bool | None = None
    ratio: float | None = None  # measured / expected in time (above 1 is slower); None: not judged
    position: str | None = None  # inside | slower | faster | faster_than_roofline | upper bound
    status: str = "no figure"  # the layout's judgement (rules.scaling._layout_status)
    unmodelled: str | None = None  # the launch option that takes the run outside the predictor (not judged)
    # judged rows only: the smallest layout of the same system, the medians, the speed-up over it
    base: str | None = None
    layout_ratio: float | None = None
    base_ratio: float | None = None
    speedup: float | None = None
    ideal_speedup: float | None = None
    speedup_base: str | None = None
    # the healthy model's terms, which add up to the expected step (terms split the measured one)
    expected_terms: dict[str, float] = field(default_factory=dict)
    # the weights the row was priced at where the input names none and they were inferred
    # (rules.workload.fits_only_quantised), said in its evidence
    weights_assumed: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The row as the report holds it: the figures a row of its kind has, and no others."""
        absent = set()
        if self.step_ms is None:
            absent.add("explained_share")
        if self.metric is None:
            absent |= {"measured_how", "measured_source", "roofline", "expected", "time_metric"}
        if self.ratio is None:
            absent |= {"base", "layout_ratio", "base_ratio", "speedup", "ideal_speedup", "speedup_base"}
        return {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in absent}


@dataclass
class DpAlternative:
    """The largest TP layout that tracks its prediction against TP/2 x DP2 on the same GPUs."""

    label: str
    alt_label: str
    gpus: int
    step_ms: float
    source: str
    alt_step_ms: float
    alt_source: str
    alt_how: str  # measured | expected
    tok_s_user: float
    alt_tok_s_user: float
    per_user_ratio: float
    total_ratio: float


@dataclass
class SloCheck:
    """One SLO percentile of one benchmark run against its limit (ms)."""

    slo: str  # itl_p95, ttft_p99, ...
    limit: float
    measured: float
    stat: str  # the percentile the run reported (the next higher one when the asked one is missing)
    source: str
    met: bool


@dataclass
class GoodputRun:
    batch: int | None  # concurrency
    tok_s: float
    met: bool  # every SLO percentile reported and met
    checks: list[SloCheck]
    unknown: list[str]  # SLO percentiles the run does not report
    run: str | None = None  # a benchmark result that states no concurrency (its request rate): batch is derived


@dataclass
class GoodputLayout:
    label: str
    gpus: int
    runs: list[GoodputRun]
    goodput: float = 0.0  # tok/s of the best run within the SLO, per replica
    replicas: int = 0  # of this layout on the GPU count
    fleet_goodput: float = 0.0  # goodput x replicas


@dataclass
class Goodput:
    """Tokens/s within an SLO per layout (rules.scaling.goodput)."""

    slo: dict[str, float]  # name -> limit in ms
    gpus: int
    layouts: list[GoodputLayout]
    best: str | None  # the layout with the most goodput on `gpus` GPUs; None when none meets the SLO


@dataclass
class ScalingAnalysis(Predictions):
    """`diagnose scaling`: every run judged against the predictor (rules.scaling.analyse), and
    with an SLO, the goodput per layout (rules.scaling.goodput)."""

    dp_alternative: DpAlternative | None
    model: str | None
    gpu: str | None
    rows: list[ScalingRow]
    calibration: list[str]
    band: list[float]
    comm_ratio: float
    goodput: Goodput | None = None
    specs: dict = field(default_factory=dict, repr=False)  # the catalog rows used, by (kind, key); not in the JSON

    @property
    def judged(self) -> list[ScalingRow]:
        """The rows with a figure the predictor judged."""
        return [r for r in self.rows if r.ratio is not None]

    def to_dict(self) -> dict[str, Any]:
        out = {"dp_alternative": dataclasses.asdict(self.dp_alternative) if self.dp_alternative else None,
               "model": self.model, "gpu": self.gpu, "rows": [r.to_dict() for r in self.rows],
               "calibration": self.calibration, "band": self.band, "comm_ratio": self.comm_ratio}
        if self.goodput is not None:
            out["goodput"] = dataclasses.asdict(self.goodput)
        return out

    def report_json(self) -> dict[str, Any]:
        return {"scaling": self.to_dict()}


# --------------------------------------------------------------------------- diagnose capture / ticket


@dataclass
class CaptureExpectation:
    """The figures the capture rules compare a capture with (diagnose.capture_report.predict): the
    roofline's decode step and its band, the all-reduces per step and their time, one all-reduce on
    the GPU's fabric (engine kernel and NCCL) and over PCIe, and what one step moves and computes
    per GPU against the GPU's datasheet peaks. Times in ms per step unless named (us per call)."""

    step_ms: float
    step_ms_roofline: float
    band: list[float]  # [low, high] factors on the expected step
    engine: str
    allreduce_per_step: int
    allreduce_ms_per_step: float
    allreduce_bytes: int  # one all-reduce message
    fabric: str  # the interconnect carrying the TP all-reduce
    pp_bubble_fraction: float
    source: str  # "prediction:expected (model, gpu, engine, tp=, pp=, batch=)"
    hbm_gbs: float
    peak_tflops: float
    bytes_per_gpu_step: float
    flops_per_gpu_step: float
    # TP > 1 with all-reduce traffic: one call, the engine's kernel and NCCL on the same fabric
    allreduce_us: float | None = None
    allreduce_us_nccl: float | None = None
    # and when the GPU's PCIe is another interconnect the catalog knows: the same call over it
    allreduce_us_pcie: float | None = None
    pcie_fabric: str | None = None

    def to_dict(self) -> dict[str, Any]:
        """The report's predictions.expected: a figure that does not apply is absent, not null."""
        optional = ("allreduce_us", "allreduce_us_nccl", "allreduce_us_pcie", "pcie_fabric")
        return {k: v for k, v in dataclasses.asdict(self).items() if v is not None or k not in optional}


@dataclass
class CapturePrediction(Predictions):
    """What a capture's workload should take (diagnose.capture_report.predict): the layout it ran
    ({"tp", "pp"}), and, when the model and GPU are known, the roofline Prediction and the figures
    the capture rules compare with (CaptureExpectation)."""

    layout: dict[str, int]
    roofline: Prediction | None = None
    expected: CaptureExpectation | None = None

    def report_json(self) -> dict[str, Any]:
        out: dict[str, Any] = {"layout": self.layout}
        if self.roofline is not None:
            out["roofline"] = self.roofline
        if self.expected is not None:
            out["expected"] = self.expected.to_dict()
        return out


# --------------------------------------------------------------------------- diagnose fleet


@dataclass
class FleetPoint:
    """One node's value of a fleet metric, against the metric's median (diagnose.fleet.score)."""

    node: str
    value: float
    ratio: float | None  # value / median
    z: float  # robust z-score, signed so that positive is worse
    outlier: bool
    source: str
    detail: str = ""


@dataclass
class FleetMetric:
    """One metric over the nodes of one GPU model: what a healthy node of that model gives is
    their median, and its spread their MAD."""

    name: str
    group: str  # GPU model
    unit: str
    better: str  # higher | lower
    category: str  # root-cause category of a node out of line on it
    median: float
    mad: float
    nodes: int
    points: list[FleetPoint]


@dataclass
class NodeVerdict:
    """A node's own verdict, its facts judged by the same rules `diagnose node` runs, and the finding it rests on."""

    node: str
    source: str
    category: str
    confidence: float
    severity: str  # of the finding the verdict rests on ("ok" when it names no problem)
    rule: str
    title: str
    evidence: list = dataclasses.field(default_factory=list)


@dataclass
class FleetSpread(Predictions):
    """`diagnose fleet`: each node's metrics against its GPU model's fleet (diagnose.fleet.analyse)."""

    z_threshold: float
    metrics: list[FleetMetric]
    groups: dict[str, int]  # GPU model -> nodes
    # (GPU model, metric, nodes that measured it) for a model with enough nodes where too few of
    # them measured this metric (the same way) to compare it
    uncompared: list[tuple[str, str, int]] = dataclasses.field(default_factory=list)
    members: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # GPU model -> its nodes' names
    verdicts: list[NodeVerdict] = dataclasses.field(default_factory=list)  # each node's own, in node order

    def report_json(self) -> dict[str, Any]:
        return {}  # the report shows the spread as its facts' fleet_metric (fact_json), as it always has

    def fact_json(self) -> list[dict[str, Any]]:
        return [{"source": "fleet", **dataclasses.asdict(m)} for m in self.metrics]

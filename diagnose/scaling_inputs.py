"""Measurements at several layouts, for `diagnose scaling`: one `Run` per layout x batch.

Inputs, each read as what its content is:
- a ticket folder or `ticket.toml`: its `[[measured]]` entries carry tp/pp/batch themselves;
- a serving-benchmark output (vLLM `bench serve` text or JSON, SGLang `bench_serving` text or
  JSON lines), one file per layout; a saved result that states no concurrency is a run of its own,
  its batch per replica derived from its figures (rules.littles_law.derived_batch);
- an nsys SQLite capture, one per layout: its step time and its measured all-reduce kernel time
  per call (the GPU that waited least, so a slow peer's lateness is not counted);
- a small CSV: `layout,batch,metric,value` (or `tp,pp,dp,batch,metric,value`; optional `stat`,
  `unit`, `engine`); lines starting with `#` are comments (say where the figures came from there);
- a published-measurements CSV (diagnose.published): every row names its engine, GPU, model,
  dtype, layout, batch and lengths, so the runs carry their own setup.

A file's layout comes from `--tp-of FILE=TP` (or `FILE=TP4xDP2`), else from its content (a JSON
result's `tensor_parallel_size`, a launch line's `--tensor-parallel-size`), else from its name
(`bench_tp4.json`, `run-tp8-pp2.sqlite`). A file whose layout cannot be found is an InputError:
a figure without its layout would be compared with the wrong prediction.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass, field
from pathlib import Path

from diagnose import published
from diagnose.errors import InputError
from diagnose.evidence import Facts, Measurement, Note, Workload
from rules.common import engine_builds, engine_flash_attn, engine_of, engine_releases
from rules.littles_law import UNIT_LIMITS, benchmark_results, derived_batch
from rules.roofline import Layout

# Metrics a CSV may carry: the Measurement vocabulary plus the all-reduce kernel time per call.
CSV_METRICS = {
    "decode_tok_s": "tok/s", "output_tok_s": "tok/s", "itl_ms": "ms", "tpot_ms": "ms", "ttft_ms": "ms",
    "step_ms": "ms", "prefill_tok_s": "tok/s", "request_throughput": "req/s", "allreduce_us": "us",
}
LAYOUT_TEXT = re.compile(r"(?<![a-z])(tp|pp|dp)[\s_=:-]*(\d+)", re.I)


@dataclass
class CaptureComm:
    """What a capture measured: all-reduce kernel time per call and calls seen, the step, and the
    GPU's idle time in short kernel-to-kernel gaps (launch overhead) per step."""

    source: str
    per_call_us: float | None
    calls: int
    step_ms: float | None = None
    steps: int = 0
    gap_ms_per_step: float | None = None
    gap_share: float | None = None  # of the GPU's active span


@dataclass(frozen=True)
class Setup:
    """What a run was, where its input says so (a published row): it overrides the command line."""

    model: str | None = None
    gpu: str | None = None
    engine: str | None = None
    dtype: str | None = None
    prompt: int | None = None
    output: int | None = None
    gpus_per_node: int | None = None
    network: str | None = None
    quant: str | None = None  # a GGUF type (rules/catalog/gguf_types.toml) the weights stream as
    # the engine is the profile that ran, not a name that may stand for several releases: a published row (its curator
    # picked the profile by the release its Conditions state) or a ticket stating its release
    engine_stated: bool = False
    # the engine builds the input states (a published table's '# Build:' line, a ticket's framework or log lines)
    builds: tuple[str, ...] = ()
    # llama.cpp's flash attention as the input states it (True, False, 'auto'; None: its tool's default for the builds)
    # and whether a line ran llama-server, whose default that is (rules.catalog.attention_build)
    fa: bool | str | None = None
    fa_server: bool = False
    # not stated: the release profiles its material leaves (rules.common.engine_releases), keys oldest first, and what
    # narrowed them; () = every release's
    releases: tuple[str, ...] = ()
    release_note: str = ""
    # a ticket whose engine keeps every weight on the GPU and that names no weights (rules.workload.may_run_quantised):
    # a checkpoint whose 16-bit weights overflow its GPUs ran quantised, priced as `ticket` prices it
    may_run_quantised: bool = False
    # launched without CUDA graphs (--enforce-eager, enforce_eager=True, --disable-cuda-graph), as the input states it
    # (rules.workload.runs_eager, ticket's reading): the expected figure prices every kernel's launch
    eager: bool = False
    eager_source: str = ""
    # a launch option the input states that takes the step outside the predictor (rules.ticket_figures.
    # UNMODELLED_OPTIONS): the run's figures are shown, never judged, as ticket does
    unmodelled: str | None = None


@dataclass
class Run:
    """Everything measured at one layout and one batch (concurrent sequences per replica).

    A benchmark result that states no concurrency is a run of its own, `tag` naming it (its
    request rate), with the batch derived from its figures and `batch_how` saying how."""

    layout: Layout
    batch: int | None
    measurements: list[Measurement] = field(default_factory=list)
    capture: CaptureComm | None = None
    setup: Setup = Setup()
    tag: str | None = None
    batch_how: str | None = None
    # (ms, how, source) of a derived batch's decode step, each step counted once (derived_batch)
    derived_step: tuple[float, str, str] | None = None

    @property
    def sources(self) -> list[str]:
        out = [m.source for m in self.measurements] + ([self.capture.source] if self.capture else [])
        return list(dict.fromkeys(out))

    def get(self, metric: str, stats=("median", "mean", "p50", None)) -> Measurement | None:
        """The first measurement of `metric` with one of `stats`, in that order of preference; a figure a reporter
        states with no statistic named ("reported") counts as one with none, as `ticket` judges it."""
        for stat in stats:
            for m in self.measurements:
                if m.metric == metric and (m.stat == stat or (stat is None and m.stat == "reported")):
                    return m
        return None


@dataclass
class Inputs:
    runs: list[Run]
    facts: Facts  # everything read, for the report and for calibration (node facts)
    files: list[str]


def parse_layout(text: str) -> Layout | None:
    """'TP4', 'tp=4,pp=2', 'TP4xDP2', 'bench_tp8.json' -> Layout; None when no TP/PP/DP is named."""
    text = re.sub(r"(\d)[x*]", r"\1 ", text)  # TP4xDP2, TP4*PP2
    found = {k.lower(): int(v) for k, v in LAYOUT_TEXT.findall(text)}
    if not found:
        return None
    if any(v < 1 for v in found.values()):
        raise InputError(f"layout {text!r}: TP, PP and DP must be at least 1")
    return Layout(found.get("tp", 1), found.get("pp", 1), found.get("dp", 1))


def parse_tp_of(items) -> dict[str, Layout]:
    """`--tp-of FILE=TP` values -> {file name: layout}; TP may be '4' or 'TP4xDP2'."""
    out = {}
    for item in items or ():
        name, sep, value = str(item).rpartition("=")
        if not sep or not name:
            raise InputError(f"--tp-of {item!r}: expected FILE=TP, e.g. bench_a.json=4 or run.sqlite=TP4xDP2")
        layout = Layout(int(value)) if value.strip().isdigit() else parse_layout(value)
        if layout is None or layout.tp < 1:
            raise InputError(f"--tp-of {item!r}: {value!r} is not a TP size or a layout like TP4xDP2")
        out[name] = layout
    return out


def collect(paths, tp_of: dict[str, Layout] | None = None) -> Inputs:
    """Read every input and group its figures into runs (one per layout x batch)."""
    tp_of = tp_of or {}
    facts = Facts()
    runs: dict[tuple, Run] = {}
    files = []
    from diagnose.inputs import check_path

    for raw in paths:
        path = Path(raw)
        check_path(path, "measurements", folder=path.is_dir())  # missing, a FIFO or device: refused before any read
        files.append(str(path))
        given = tp_of.get(str(raw)) or tp_of.get(path.name)
        if path.is_file() and published.is_published_csv(path):
            for row in published.read(path):
                _add(runs, Layout(row.tp, row.pp), published_measurement(row), published_setup(row))
            continue
        if path.is_file() and _is_csv(path):
            for m, layout, setup in read_csv(path):
                _add(runs, layout, m, setup)
            continue
        read = _read(path)
        if path.is_file():  # a file named on the command line that cannot be read is bad input, not "no data"
            damaged = [f.problem for f in getattr(read, "files", [])
                       if f.problem and f.problem.startswith("unreadable")]
            if damaged:
                raise InputError(f"{path}: {damaged[0].removeprefix('unreadable: ').removeprefix(f'{path.name}: ')}")
        # a [[measured]] value that is not a number (nan, a string) is a figure the user meant:
        # dropping it would judge the scaling without it
        broken = [n for n in read.of(Note) if n.kind == "invalid_value" and str(n.text).startswith("measured.value")]
        if broken:
            raise InputError(f"{broken[0].source}: {broken[0].text}")
        facts.extend(read.records)
        _from_facts(read, path, given, runs)
    for name in tp_of:
        if not any(name in (str(p), Path(p).name) for p in paths):
            raise InputError(f"--tp-of {name}: not one of the inputs")
    ordered = sorted(runs.values(), key=lambda r: (r.layout.gpus, r.layout.tp, r.layout.pp, r.batch or 0,
                                                   r.setup.prompt or 0, r.setup.output or 0))
    return Inputs(ordered, facts, files)


def _read(path: Path):
    from diagnose.bundle import read_bundle

    return read_bundle([path])


def _from_facts(read, path: Path, given: Layout | None, runs: dict) -> None:
    """Measurements with their own tp (ticket.toml) keep it; the rest take the file's layout."""
    from diagnose.evidence import GpuTimeline, StepStats

    measurements = [m for m in read.of(Measurement)]
    file_layout = given or _content_layout(read) or parse_layout(path.name if path.is_file() else "")
    timelines = read.of(GpuTimeline)
    steps = read.of(StepStats)
    if timelines:
        if file_layout is None:
            raise InputError(f"{path}: cannot tell this capture's TP size; name it (run_tp4.sqlite) "
                             f"or pass --tp-of {path.name}=TP")
        run = _run(runs, file_layout, _batch_of(read), _setup_of(read))
        run.capture = capture_comm(timelines, steps)
        run.measurements.extend(m for m in measurements if m.metric == "step_ms")
        return
    kept = [m for m in measurements if (m.metric in CSV_METRICS or m.metric in ("input_tok_s", "total_tok_s"))
            and not _another_models(read, m)]
    if not kept:
        return
    for m in kept:
        check_measurement(m)
    setup = _setup_of(read)
    results = benchmark_results(read.of(Workload), measurements)
    derived: dict[tuple[str, int], tuple | None] = {}
    for m in kept:
        # --tp-of wins; else a figure's own tp (ticket.toml, a JSON result); else the file's layout.
        own = Layout(m.tp, m.pp or 1, m.dp or 1) if m.tp else None
        layout = given or own or file_layout or _ticket_layout(read, m)
        if layout is None:
            raise InputError(f"{m.source}: cannot tell which layout this measurement is for; put tp in the file name "
                             f"(bench_tp4.json) or pass --tp-of {path.name}=TP")
        result = None if m.batch or m.concurrency else results.get(m.source)
        if result is None:
            _add(runs, layout, m, setup)
            continue
        # a result with no stated concurrency is a run of its own, whether or not its batch can be derived
        if (result[0], layout.dp) not in derived:
            derived[result[0], layout.dp] = derived_batch(result[1], layout.dp)
        batch, how, step = derived[result[0], layout.dp] or (None, None, None)
        run = _run(runs, layout, batch, setup, tag=_rate_of(result[1]), result=result[0])
        run.batch_how, run.derived_step = how, step
        run.measurements.append(m)


def _ticket_layout(read, m: Measurement) -> Layout | None:
    """The layout `ticket` judges a reporter's figure at where nothing names one (rules.ticket_figures.assumed_layout:
    the ticket's layout, every GPU named for a TP engine, else one GPU, or the layers split where the weights do not
    fit one), so both commands compare the same figure with the same prediction; None for any other input."""
    from rules.subject import Subject
    from rules.ticket_figures import assumed_layout

    if m.stat != "reported":
        return None
    read.subject = read.subject or Subject.of(read)
    tp, pp, _ = assumed_layout(read, m, m.batch or 1)
    return Layout(tp, pp)


def _another_models(read, m: Measurement) -> bool:
    """Is this a reporter's figure whose own clause names a model other than the ticket's? `ticket` does not judge it
    against the ticket's model (rules.subject.figure_model), and neither does scaling."""
    from rules.subject import Subject, figure_model, same_model

    if m.stat != "reported" or not m.model:
        return False
    read.subject = read.subject or Subject.of(read)
    named = figure_model(m.model)
    return named is not None and read.subject.model is not None and not same_model(named, read.subject.model)


def _rate_of(result: list) -> str:
    rate = result[0].extra.get("request_rate")
    return "rate inf" if rate == "inf" else "rate unstated" if rate is None else f"rate {rate:g}/s"


def check_measurement(m: Measurement) -> None:
    """A figure the analysis divides by: finite, positive and within physical bounds, as is its
    layout and batch; else bad input naming the figure's source and key (ticket.toml's itl_ms = 0
    would otherwise divide by zero, -10 would read as faster than the roofline)."""
    from diagnose.inputs import MAX_BATCH, MAX_GPUS, finite_number

    unit = CSV_METRICS.get(m.metric, "tok/s")
    finite_number(m.value, f"{m.source}: {m.metric}", positive=True, high=UNIT_LIMITS.get(unit))
    for key in ("tp", "pp", "dp", "batch", "concurrency"):
        value = getattr(m, key, None)
        if value is not None:
            finite_number(value, f"{m.source}: {m.metric} {key}", low=1,
                          high=MAX_BATCH if key in ("batch", "concurrency") else MAX_GPUS)


def _setup_of(read) -> Setup:
    """The engine, model, GPU, weights and builds a file's own facts name (a ticket's [workload] and [hardware], a
    launch line, a capture's GPU), where the catalog knows them; weights and builds as the ticket rules read them."""
    from rules.subject import Subject
    from rules.ticket_figures import unmodelled_layout
    from rules.workload import may_run_quantised, quant_group, runs_eager, stated_lengths, weight_dtype

    named = Subject.of(read)
    prompt, output = stated_lengths(read)  # the lengths `ticket` predicts the figures at
    releases, note = engine_releases(read)
    fa, server = engine_flash_attn(read)
    eager, said = runs_eager(read)
    where = str(getattr(said, "cited", None) or said.source) if eager else ""  # a claim's own line, a launch's
    return Setup(eager=bool(eager), eager_source=where,
                 model=named.model.key if named.model else None, gpu=named.gpu.key if named.gpu else None,
                 engine=engine_of(read), dtype=weight_dtype(read), prompt=prompt, output=output,
                 quant=quant_group(read), engine_stated=not releases,
                 releases=tuple(e.key for e in releases) if note else (), release_note=note,
                 unmodelled=unmodelled_layout(read), builds=tuple(engine_builds(read)),
                 may_run_quantised=may_run_quantised(read), fa=fa, fa_server=server)


def _content_layout(read) -> Layout | None:
    """A launch line or benchmark JSON in the file that states the TP size (the ticket's [workload]
    is a claim about the problem run, not about each [[measured]] entry, so it is not used)."""
    for w in read.of(Workload):
        if w.tp and not str(w.source).split(":")[0].endswith(".toml"):
            return Layout(w.tp, w.pp or 1, w.dp or 1)
    return None


def _batch_of(read) -> int | None:
    """The batch the input records, read as `diagnose capture` and `ticket` read it (rules.stated_load.load_for: the
    stated batch or concurrency at most the engine's cap, else --max-num-seqs as full load)."""
    from rules.stated_load import load_for

    load = load_for(read, full_load=True) if read.of(Workload) else None
    return load.n if load else None


def capture_comm(timelines, steps) -> CaptureComm | None:
    """Per-call all-reduce kernel time from the GPU with the lowest per-call time (the others'
    kernels also hold time spent waiting for the slowest rank); launch gaps from the busiest GPU."""
    busy = [g for g in timelines if g.kernels and g.span_ns]
    if not busy:
        return None
    best = None
    for g in busy:
        n = g.comm_ops.get("all_reduce", 0)
        if n:
            per_call = g.comm_ops_ns.get("all_reduce", 0) / n / 1e3
            if best is None or per_call < best[0]:
                best = (per_call, n)
    main = max(busy, key=lambda g: g.kernels)
    st = steps[0] if steps else None
    count = st.count if st and st.count else 0
    return CaptureComm(
        main.source, round(best[0], 3) if best else None, best[1] if best else 0,
        st.p50_ns / 1e6 if st and st.p50_ns else None, count,
        round(main.small_gap_ns / count / 1e6, 4) if count else None, round(main.small_gap_ns / main.span_ns, 4),
    )


def _add(runs: dict, layout: Layout, m: Measurement, setup: Setup = Setup()) -> None:
    _run(runs, layout, m.batch or m.concurrency, setup).measurements.append(m)


def _run(runs: dict, layout: Layout, batch: int | None, setup: Setup = Setup(), tag: str | None = None,
         result: str | None = None) -> Run:
    key = (layout, batch, setup, result)
    if key not in runs:
        runs[key] = Run(layout, batch, setup=setup, tag=tag)
    return runs[key]


# published metric -> the Measurement vocabulary (output_tok_s is the batch's total)
PUBLISHED_METRICS = {"output_tok_s_total": "output_tok_s"}


def published_measurement(row: published.Row) -> Measurement:
    return Measurement(row.source, PUBLISHED_METRICS.get(row.metric, row.metric), row.value, None, stat="mean",
                       tp=row.tp, pp=row.pp, batch=row.batch)


def published_setup(row: published.Row) -> Setup:
    dtype, gguf = published.weights(row)
    return Setup(row.model, row.gpu, row.engine, dtype, row.input_len, row.output_len, row.gpus_per_node,
                 row.network, quant=gguf, engine_stated=True, builds=row.builds, fa=row.fa)


# --------------------------------------------------------------------------- CSV


def _is_csv(path: Path) -> bool:
    from diagnose.inputs import read_head

    if path.suffix.lower() == ".csv":
        return True
    head = read_head(path, "measurements", 4000)
    header = next((ln for ln in head.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    cells = {c.strip().lower() for c in header.split(",")}
    return {"metric", "value"} <= cells


def read_csv(path: Path) -> list[tuple[Measurement, Layout, Setup]]:
    """Rows of a `layout|tp,pp,dp, batch, metric, value[, stat, unit, engine]` CSV, each with its
    layout and the engine its `engine` cell names (a catalog key or alias), so a file says what ran
    instead of a comment: the expected figure models that engine."""
    from diagnose.inputs import read_text
    from rules.catalog import UnknownName, release_candidates
    from rules.catalog import engine as engine_spec

    text = read_text(path, "csv")
    numbered = [(n, ln) for n, ln in enumerate(text.splitlines(), start=1)
                if ln.strip() and not ln.lstrip().startswith("#")]
    if not numbered:
        raise InputError(f"{path}: no rows")
    rows = list(csv.reader(io.StringIO("\n".join(ln for _, ln in numbered))))
    header = [h.strip().lower() for h in rows[0]]
    if not {"metric", "value"} <= set(header) or not ({"layout", "tp"} & set(header)):
        raise InputError(f"{path}:{numbered[0][0]}: a scaling CSV needs the columns metric, value and layout (or tp)")
    out = []
    for (n, _), row in zip(numbered[1:], rows[1:]):
        cell = dict(zip(header, (c.strip() for c in row)))
        src = f"{path.name}:{n}"
        metric = cell.get("metric", "")
        if metric not in CSV_METRICS:
            raise InputError(f"{src}: unknown metric {metric!r} (known: {', '.join(CSV_METRICS)})")
        try:
            value = float(cell["value"])
            batch = int(cell["batch"]) if cell.get("batch") else None
            if cell.get("layout"):
                layout = parse_layout(cell["layout"])
            else:
                layout = Layout(int(cell["tp"]), int(cell.get("pp") or 1), int(cell.get("dp") or 1))
        except (KeyError, ValueError):
            raise InputError(f"{src}: expected numbers in value/batch/tp/pp/dp, got {row}") from None
        if layout is None or not math.isfinite(value) or value <= 0 or (batch is not None and batch < 1):
            raise InputError(f"{src}: need a layout like TP4 and a positive value and batch, got {row}")
        stat = cell.get("stat") or None
        engine = None
        if cell.get("engine"):
            try:
                engine = engine_spec(cell["engine"]).key
            except UnknownName as e:
                raise InputError(f"{src}: {e}") from None
        m = Measurement(src, metric, value, cell.get("unit") or CSV_METRICS[metric], stat=stat,
                        tp=layout.tp, pp=layout.pp, dp=layout.dp, batch=batch)
        check_measurement(m)
        stated = bool(engine) and not release_candidates(cell["engine"])  # 'vllm 0.9.2' states it; 'vllm' does not
        out.append((m, layout, Setup(engine=engine, engine_stated=stated)))
    if not out:
        raise InputError(f"{path}: header but no rows")
    return out

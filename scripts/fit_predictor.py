"""Fit the predictor's expected-figure constants to published measurements.

Reads the `fit` tables of tests/data/published (end-to-end latency, TTFT, ITL, throughput of
real engines) and tests/data/collectives (all-reduce times), and adjusts, one at a time by
golden-section search over a few sweeps (coordinate descent), the constants of
rules/catalog/calibration.toml and the host times of each engine in rules/catalog/engines.toml
whose fit rows come from two tables or more (MIN_TABLES; an engine in TIED takes another's),
minimising the weighted mean |log(measured / expected)|. Each table weighs about as much as any
other (a row weighs 1/sqrt(rows in its table)), so one long table does not drown the rest.
`validation` tables are never read here.

    python scripts/fit_predictor.py            # print the fitted constants and the fit error
    python scripts/fit_predictor.py --write    # and write them into the two TOML files
    python scripts/fit_predictor.py --only-keys sync.host_speed_cv [--write]   # these calibration.toml constants
                                               only (comma-separated section.name), the rest held: minutes where
                                               the full fit takes an hour or more; every row keeps its full-fit
                                               weight, only the rows the keys move are recomputed
    python scripts/fit_predictor.py --only-engine llamacpp [--write]   # one engine's own constants only
                                               (host_ms_per_step, host_ms_per_request, kernel_overhead_us,
                                               attention_efficiency) on
                                               its fit rows; calibration.toml is held but for the constants only
                                               that engine's rows tell (ONLY_ENGINE_CAL)

Then `python benchmarks/predictor_accuracy.py` reports the error on both parts.
"""

from __future__ import annotations

import argparse
import collections
import dataclasses
import math
import re
import statistics
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from diagnose import published  # noqa: E402
from rules import catalog  # noqa: E402

PUBLISHED = REPO / "tests" / "data" / "published"
COLLECTIVES = REPO / "tests" / "data" / "collectives"
COLLECTIVE_WEIGHT = 0.3  # the all-reduce tables together weigh this share of the end-to-end ones

# (section, name, low, high): calibration.toml constants the fit moves, with their search range
GLOBAL = [
    ("kernels", "stream_efficiency", 0.5, 0.98), ("kernels", "kernel_overhead_us", 0.3, 12.0),
    # a GEMM tile's prologue and epilogue: filling a 3-4 stage pipeline of 32-64 K steps and writing its
    # 128 x 128 outputs, about 100-300 steps of K (CUTLASS's default sm80/sm90 tile configurations);
    # an unbounded fit takes ~1400 and leaves A100 prefill at 55 % of peak where TensorRT-LLM measures
    # ~77 % (GPT-J 6B, 2048 tokens, 102.8 ms: trtllm-perf-v0.8.0-ttft-bs1.csv)
    ("kernels", "attention_efficiency", 0.15, 0.98), ("gemm_shape", "tile_overhead_k", 64.0, 384.0),
    # memory/math overlap near the ridge point: p = 1.5 is close to adding the two, 8 to the larger alone
    ("gemm_shape", "overlap_p", 1.5, 8.0), ("gemm_shape", "expert_gemm_efficiency", 0.3, 1.0),
    # GPUs of one model differ in speed by a few per cent (Sinha et al., SC 2022)
    ("sync", "gpu_speed_cv", 0.001, 0.05),
    # host-bound ranks (no CUDA graphs): their processes' host times spread more than GPUs' speeds, up to a third
    ("sync", "host_speed_cv", 0.001, 0.35),
    # a per-query-head attention kernel: at least a load and a multiply-add per KV element and head
    ("per_head_attention", "kv16", 2.0, 16.0), ("per_head_attention", "kv8", 2.0, 16.0),
    # dequantising one weight-only int4 / int8 weight: a few instructions with lop3 tricks, a dozen in a
    # general kernel; int8 needs no unpacking and no zero point (calibration.toml [dequant])
    ("dequant", "int4", 1.0, 12.0), ("dequant", "int8", 0.5, 8.0),
    # unpacking a 2-3 bit K-quant GGUF weight (Q2_K, Q3_K) for llama.cpp's dot products: ~3 counted a priori, a few
    # dozen at most (calibration.toml [dequant]); the other GGUF families keep their a-priori counts
    ("dequant", "gguf_k_low", 1.0, 40.0),
    ("gemm_efficiency", "bf16", 0.3, 1.0),
    ("gemm_efficiency", "fp8", 0.2, 1.0), ("nccl", "base_us", 1.0, 40.0), ("nccl", "hop_us_nvlink", 0.1, 6.0),
    ("nccl", "hop_us_pcie", 0.1, 10.0), ("nccl", "hop_us_pcie_simple", 0.1, 20.0), ("nccl", "ll_bus_share", 0.2, 1.0),
    ("nccl", "hop_us_network", 0.5, 40.0), ("nccl", "shm_hop_factor", 1.0, 8.0),
    # NCCL's tuner latencies across nodes as measured: its own constants (x1) up to a few times them
    ("nccl", "net_lat_scale", 0.5, 4.0),
    # SHM's busbw as a share of the host's GPU-to-GPU copy through its memory (at most all of it), and that copy, where
    # the host states none, as a share of the per-direction link rate (a tenth of it up to all of it)
    ("nccl", "shm_copy_share", 0.3, 1.0), ("nccl", "host_copy_link_share", 0.1, 1.0),
    ("launch", "eager_extra_us", 0.3, 30.0),
    # one thread launching each GPU's part of a collective in turn (nccl-tests -g N, calibration.toml [launch]): the
    # call's own host work (the group's start and end, the benchmark's loop), then per GPU a kernel launch of a few
    # microseconds and NCCL's per-communicator planning
    ("launch", "thread_call_us", 0.1, 20.0), ("launch", "thread_launch_us", 0.5, 20.0),
    # a one-shot kernel exchanges flags with every peer over NVLink before and after its reads: two
    # fabric round trips and a kernel, no less than ~2 us even replayed in a graph (the smallest
    # custom all-reduce measured, launched from the host, takes 3.7 us: sglang PR 2904)
    ("custom.vllm", "base_us", 2.0, 25.0), ("custom.vllm", "per_doubling_us", 0.01, 10.0),
    ("custom.vllm", "bus_gbs_per_link_gbs", 0.02, 1.0), ("custom.trtllm", "base_us", 2.0, 25.0),
    ("custom.trtllm", "per_doubling_us", 0.01, 10.0), ("custom.trtllm", "bus_gbs_per_link_gbs", 0.02, 1.0),
]
ENGINE = [("host_ms_per_step", 0.02, 30.0), ("host_ms_per_request", 0.1, 300.0), ("attention_efficiency", 0.1, 0.98),
          # a fused-MoE kernel at untuned block sizes: the tuned kernels run 1.3-2x faster (engines.toml)
          ("expert_gemm_efficiency", 0.1, 1.0),
          # TFLOPS per SM a latency-bound expert GEMM sustains (engines.toml expert_gemm_sm_tflops): a dense
          # 16-bit GEMM reaches ~6 per SM on an H100, ~2.5 on an A100; a kernel far below either is bound elsewhere
          ("expert_gemm_sm_tflops", 0.2, 8.0),
          # a graph-replayed tiny kernel takes under a microsecond (CUDA.jl: 80 broadcast kernels in 70 us
          # as one graph, https://cuda.juliagpu.org/dev/usage/graphs/); no engine's is above the generic one's
          ("kernel_overhead_us", 0.9, 12.0),
          # share of the INT8 datasheet rate an engine's INT8 dot-product GEMMs reach (llama.cpp's MMQ)
          ("int8_gemm_efficiency", 0.05, 1.0),
          # the same on INT8 tensor cores (llama.cpp's MMQ from b3216 on Turing and newer)
          ("int8_mma_efficiency", 0.05, 1.0),
          # share of the 16-bit datasheet rate an engine's own 16-bit GEMM path reaches (llama.cpp's cuBLAS calls)
          ("fp16_gemm_efficiency", 0.2, 1.0)]
# constants an engine has only where its profile sets them (0 there = the calibration's)
OWN = ("attention_efficiency", "kernel_overhead_us", "expert_gemm_efficiency", "expert_gemm_sm_tflops",
       "int8_gemm_efficiency", "int8_mma_efficiency", "fp16_gemm_efficiency")
# of those, what a TIED engine fits for itself (the kernel it differs in) rather than taking its twin's
OWN_TIED = ("expert_gemm_efficiency", "expert_gemm_sm_tflops")
# engines that are one runtime in another version and take its fitted constants (TensorRT-LLM v0.5-v0.9
# differ from later releases in their decode attention kernel, and v0.5 in its build and benchmark defaults, NCCL
# and no CUDA graphs, not their host side; their fit rows are all throughput, which cannot tell the per-request
# time apart; vLLM before its fused-MoE kernel differs in how it runs MoE experts, not in its scheduler)
TIED = {"trtllm-mmha": "trtllm", "trtllm-0.5": "trtllm", "trtllm-xqa8": "trtllm", "vllm-moe-dense": "vllm",
        # v0.10-v0.11 differ from later releases in decode attention without multi-block mode, not their host side
        "trtllm-0.10": "trtllm",
        "vllm-moe-untuned": "vllm",
        # llama.cpp before CUDA graphs (or on a GPU before Ampere) differs in its launches only
        "llamacpp-eager": "llamacpp",
        # vLLM 0.14+ differs in what its defaults document (engines.toml), held below; the rest is vllm's
        "vllm-0.14": "vllm",
        # TurboMind before its unified prefill/decode differs in where the first token is sampled (engines.toml)
        "lmdeploy-0.1a1": "lmdeploy",
        # vLLM 0.8-0.10 and 0.11-0.13 (V1 without async scheduling; piecewise, then full decode graphs) keep vllm's
        # host step and hand-off, with V1's kernels and request path held at the values vllm-0.14 documents and fits,
        # and 0.8-0.10's per-layer piecewise cost set from published pairs (engines.toml)
        "vllm-0.8": "vllm", "vllm-0.11": "vllm"}
# constants a tied engine's profile sets from documentation and another engine's fit, which no fit moves: vLLM 0.14's
# async scheduling takes the host's step off the critical path, and its compiled graph runs gpt-fast's kernel time
HELD = {"vllm-0.14": ("host_ms_per_step", "kernel_overhead_us"),
        "vllm-0.8": ("kernel_overhead_us", "host_ms_per_request"),
        "vllm-0.11": ("kernel_overhead_us", "host_ms_per_request")}
# what a tied engine fits for itself beyond OWN_TIED: llama.cpp launching every kernel from the host leaves a longer
# gap between kernels than its CUDA-graph replay (PR 6766's before/after pair measures the difference); vLLM V1 runs
# the API server (HTTP, chat template, tokenising, detokenising) in its own process apart from the EngineCore
# (https://docs.vllm.ai/en/latest/design/arch_overview/, "V1 process architecture"), a request path V0's fitted
# time does not describe, so vllm-0.14 fits its own per-request time on its own TTFT fit rows (four models)
TWIN_OWN = {"llamacpp-eager": ("kernel_overhead_us",), "vllm-0.14": ("host_ms_per_request",)}
# what --only-engine fits: the engine's own constants, with the shared calibration held
ONLY_ENGINE = ("host_ms_per_step", "host_ms_per_request", "kernel_overhead_us", "attention_efficiency",
               "int8_gemm_efficiency", "int8_mma_efficiency", "fp16_gemm_efficiency")
# calibration.toml constants that only one engine's rows tell, which --only-engine fits and writes with its own
ONLY_ENGINE_CAL = {"llamacpp": (("dequant", "gguf_k_low"),)}


# --------------------------------------------------------------------------- data


def fit_rows() -> list[published.Row]:
    return [r for r in published.read_dir(PUBLISHED) if r.split == "fit" and r.healthy]


def collective_points() -> list[tuple[published.CollectiveRow, float]]:
    """One point per table x implementation x ranks x nodes x power-of-two size: the median
    measured time of the rows in it (vidur's thousand sizes per rank count are noisy singles).
    Tables whose `# Split:` is validation are never read here."""
    groups = collections.defaultdict(list)
    for path in sorted(COLLECTIVES.glob("*.csv")):
        for r in published.read_collectives(path):
            if r.split != "fit":
                continue
            key = (path.name, r.implementation, r.gpus, r.nodes, r.graph, int(math.log2(max(r.size_bytes, 1))))
            groups[key].append(r)
    out = []
    for rows in groups.values():
        rows.sort(key=lambda r: r.time_us)
        mid = rows[len(rows) // 2]
        out.append((mid, mid.time_us))
    return out


# --------------------------------------------------------------------------- the model under trial


@dataclasses.dataclass
class Trial:
    """The constants being fitted: a Calibration and the engines' host times."""

    cal: catalog.Calibration
    engines: dict

    def get(self, key: tuple) -> float:
        if key[0] == "engine":
            return getattr(self.engines[key[1]], key[2])
        section, name = key
        if section in ("kernels", "gemm_shape", "sync"):
            return getattr(self.cal, name)
        if section == "gemm_efficiency":
            return self.cal.gemm_efficiency[name]
        if section == "per_head_attention":
            return self.cal.per_head_ops[name]
        if section == "dequant":
            return self.cal.dequant_ops[name]
        if section == "nccl":
            return self.cal.nccl[name]
        if section == "launch":
            return getattr(self.cal, name)
        return getattr(self.cal.custom[section.split(".", 1)[1]], name)

    def runs(self, row: published.Row) -> catalog.EngineSpec:
        """The trial's profile that runs the row as its builds do (a split's graphs, a quantised prompt's MMQ), or
        that engine's twin where a split drops graphs."""
        found = catalog.build_profile(self.engines[row.engine], row.builds, row.fa)
        return catalog.split_twin(found, row.pp, self.engines.__getitem__)

    def set(self, key: tuple, value: float) -> None:
        if key[0] == "engine":
            twins = () if key[2] in OWN_TIED else (t for t, to in TIED.items() if to == key[1] and t in self.engines
                                                   and key[2] not in TWIN_OWN.get(t, ()) + HELD.get(t, ()))
            for e in [key[1], *twins]:
                self.engines[e] = dataclasses.replace(self.engines[e], **{key[2]: value})
            return
        section, name = key
        cal = self.cal
        if section in ("kernels", "gemm_shape", "sync"):
            cal = dataclasses.replace(cal, **{name: value})
        elif section == "gemm_efficiency":
            gemm = {**cal.gemm_efficiency, name: value}
            if name == "bf16":
                gemm["fp16"] = gemm["fp32"] = value
            cal = dataclasses.replace(cal, gemm_efficiency=gemm)
        elif section == "per_head_attention":
            cal = dataclasses.replace(cal, per_head_ops={**cal.per_head_ops, name: value})
        elif section == "dequant":
            cal = dataclasses.replace(cal, dequant_ops={**cal.dequant_ops, name: value})
        elif section == "nccl":
            cal = dataclasses.replace(cal, nccl={**cal.nccl, name: value})
        elif section == "launch":
            cal = dataclasses.replace(cal, **{name: value})
        else:
            key2 = section.split(".", 1)[1]
            kernel = dataclasses.replace(cal.custom[key2], **{name: value})
            cal = dataclasses.replace(cal, custom={**cal.custom, key2: kernel})
        self.cal = cal


class Objective:
    """Weighted mean |log(measured / expected)|, recomputed only for the rows a constant touches."""

    def __init__(self, rows, points, trial: Trial):
        self.rows, self.points, self.trial = rows, points, trial
        # (row indices, point indices) a refresh(None) recomputes: those a fit's keys move (touched()); None = all.
        # The weights stay those of all rows and points, so a fit of a few keys minimises the same objective.
        self.active: tuple[list[int], list[int]] | None = None
        per_table = collections.Counter(r.table for r in rows)
        self.w = [1 / math.sqrt(per_table[r.table]) for r in rows]
        per_file = collections.Counter(p[0].source.split(":")[0] for p in points)
        cw = [1 / math.sqrt(per_file[p[0].source.split(":")[0]]) for p in points]
        scale = COLLECTIVE_WEIGHT * sum(self.w) / sum(cw) if cw else 0.0
        self.cw = [w * scale for w in cw]
        self.loss = [0.0] * len(rows)
        self.closs = [0.0] * len(points)
        self.refresh(None)

    def _row_loss(self, r) -> float:
        e = published.expect(r, engine=self.trial.runs(r))
        return abs(math.log(e.ratio(r.value)))

    def refresh(self, engine: str | None) -> float:
        rows_i, points_i = self.active or (range(len(self.rows)), range(len(self.points)))
        with catalog.trial_calibration(self.trial.cal):
            for i in rows_i:
                r = self.rows[i]
                if engine is None or engine in (r.engine, TIED.get(r.engine), self.trial.runs(r).key):
                    self.loss[i] = self._row_loss(r)
            if engine is None:
                for i in points_i:
                    c, t = self.points[i]
                    self.closs[i] = abs(math.log(t / published.expect_collective(c)[0]))
        return self.value()

    def value(self) -> float:
        total = sum(w * v for w, v in zip(self.w, self.loss)) + sum(w * v for w, v in zip(self.cw, self.closs))
        return total / (sum(self.w) + sum(self.cw))


def golden(f, lo: float, hi: float, x0: float, steps: int = 14) -> tuple[float, float]:
    """Minimise f on [lo, hi] in log space (golden section), never worse than f(x0)."""
    a, b = math.log(lo), math.log(hi)
    g = (math.sqrt(5) - 1) / 2
    c, d = b - g * (b - a), a + g * (b - a)
    fc, fd = f(math.exp(c)), f(math.exp(d))
    for _ in range(steps):
        if fc < fd:
            b, d, fd = d, c, fc
            c = b - g * (b - a)
            fc = f(math.exp(c))
        else:
            a, c, fc = c, d, fd
            d = a + g * (b - a)
            fd = f(math.exp(d))
    best, fbest = (math.exp(c), fc) if fc < fd else (math.exp(d), fd)
    f0 = f(x0)
    return (best, fbest) if fbest < f0 else (x0, f0)


def touched(rows, points, keys) -> tuple[list[int], list[int]]:
    """Indices of the fit rows and all-reduce points whose expected figure moves when any of `keys`
    (calibration.toml constants) moves up or down (a term under a max() may move one way only): the only ones a
    fit of those constants alone needs to recompute."""
    base = catalog.calibration()

    def figures(cal):
        with catalog.trial_calibration(cal):
            return ([published.expect(r).expected for r in rows],
                    [published.expect_collective(p)[0] for p, _ in points])
    r0, c0 = figures(base)
    moved_rows, moved_points = set(), set()
    for up in (True, False):
        trial = Trial(base, {})
        for key in keys:
            trial.set(key, trial.get(key) * 1.5 + 0.1 if up else trial.get(key) / 1.5)
        r1, c1 = figures(trial.cal)
        moved_rows |= {i for i, (a, b) in enumerate(zip(r0, r1)) if a != b}
        moved_points |= {i for i, (a, b) in enumerate(zip(c0, c1)) if a != b}
    return sorted(moved_rows), sorted(moved_points)


# An engine's own constants are fitted only where its fit rows come from at least this many tables: on one table its
# host times would absorb whatever that table's setup adds beyond the model (a network, a release, a kernel), the
# unexplained part passing for host time (SGLang's only table, tt-inference-server#356, is -21 % unexplained)
MIN_TABLES = 2


def engine_keys(rows, trial: Trial, only: str | None = None, hold: tuple = ()) -> tuple[list, dict]:
    """The ((engine, key, name), lo, hi) constants the fit moves, and the engines left out because the rows those
    constants move (the engine's, its tied twins', those its builds run as) come from fewer than MIN_TABLES tables."""
    keys, thin = [], {}
    for e in sorted(trial.engines):
        tables = {r.table for r in rows if e in (r.engine, TIED.get(r.engine), trial.runs(r).key)}
        mine = []
        for name, lo, hi in ENGINE:
            if (only and name not in ONLY_ENGINE) or name in hold:
                continue
            if e in TIED and name not in OWN_TIED and name not in TWIN_OWN.get(e, ()):
                continue  # takes its twin's
            if name in OWN and not getattr(trial.engines[e], name):
                continue  # the engine takes the calibration's
            mine.append((("engine", e, name), lo, hi))
        if mine and len(tables) < MIN_TABLES:
            thin[e] = tables
        else:
            keys += mine
    return keys, thin


def fit(sweeps: int = 4, verbose: bool = True, only: str | None = None, hold: tuple = (),
        only_keys: tuple = ()) -> tuple[Trial, Objective]:
    rows, points = fit_rows(), collective_points()
    if only:  # one engine (and its tied twins) on its own rows; the shared constants stay as they are
        rows, points = [r for r in rows if only in (r.engine, TIED.get(r.engine))], []
        if not rows:
            raise SystemExit(f"no fit rows for engine {only!r}")
    engines = {r.engine for r in rows} | {TIED[e] for e in {r.engine for r in rows} if e in TIED}
    trial = Trial(catalog.calibration(), {k: catalog.engine(k) for k in engines})
    for e, to in TIED.items():  # a tied engine starts from the constants it takes
        if e in trial.engines:
            for name, _, _ in ENGINE:
                if name not in OWN_TIED and name not in TWIN_OWN.get(e, ()):
                    trial.set(("engine", to, name), getattr(trial.engines[to], name))
    keys = [((s, n), lo, hi) for s, n, lo, hi in GLOBAL if not only or (s, n) in ONLY_ENGINE_CAL.get(only, ())]
    if only_keys:  # these calibration constants alone, recomputing the rows and points they move; engines held
        keys = [k for k in keys if k[0] in only_keys]
        missing = [".".join(k) for k in only_keys if k not in {key for key, _, _ in keys}]
        if missing:
            own = ", ".join(".".join(k) for k in ONLY_ENGINE_CAL.get(only, ())) or "none"
            raise SystemExit(f"--only-keys: {', '.join(missing)} not fitted with --only-engine {only} "
                             f"(its calibration keys: {own})")
    obj = Objective(rows, points, trial)
    if only_keys:
        obj.active = touched(rows, points, only_keys)
        if not obj.active[0] and not obj.active[1]:
            named = ", ".join(".".join(k) for k in only_keys)
            raise SystemExit(f"--only-keys: {named} moves no fit row or all-reduce point")
    if not only_keys:
        mine, thin = engine_keys(rows, trial, only, hold)
        keys += mine
        for e, tables in sorted(thin.items()):
            print(f"skipped engine {e}: its fit rows come from {len(tables)} table(s) ({', '.join(sorted(tables))}), "
                  f"fewer than {MIN_TABLES}; its constants stay as engines.toml has them")
    for key, lo, hi in keys:  # a start outside its range is clamped before the first sweep is measured
        trial.set(key, min(hi, max(lo, trial.get(key))))
    obj.refresh(None)
    if verbose:
        moving = [rows[i] for i in obj.active[0]] if obj.active else rows
        print(f"{len(moving)} fit rows in {len({r.table for r in moving})} tables, "
              f"{len(obj.active[1]) if obj.active else len(points)} all-reduce points"
              f"{' move (of ' + str(len(rows)) + ' rows, weighted as in the full fit)' if obj.active else ''}; "
              f"start {obj.value():.4f}")
    for sweep in range(sweeps):
        start = obj.value()
        for key, lo, hi in keys:
            engine = key[1] if key[0] == "engine" else None

            def f(x, key=key, engine=engine):
                trial.set(key, x)
                return obj.refresh(engine)

            best, value = golden(f, lo, hi, trial.get(key))
            f(best)
        if verbose:
            print(f"sweep {sweep + 1}: {obj.value():.4f}")
        if start - obj.value() < 1e-4:
            break
    return trial, obj


def fit_single_block(cal: catalog.Calibration) -> dict:
    """calibration.toml [single_block_attention]: cycles per cached token that best explain how ITL grows with the
    context within each (table, dtype, TP) group of the fit rows whose engine walks one block per head. Each group
    keeps a free constant offset, so a per-step cost that does not grow with the context (host, all-reduces) cannot
    move them, as it would in the joint descent (grid of half cycles, 4-64)."""
    rows = [r for r in fit_rows() if r.metric == "itl_ms" and not catalog.engine(r.engine).decode_splits_kv]
    groups = collections.defaultdict(list)
    for r in rows:
        groups[(r.table, r.dtype, r.tp)].append(r)
    out = {}
    for kv in ("kv16", "kv8"):
        mine = [g for (_, dtype, _), g in groups.items() if (dtype == "fp8") == (kv == "kv8")]

        def spread(cycles: float, kv: str = kv, mine: list = mine) -> float:
            total = 0.0
            with catalog.trial_calibration(dataclasses.replace(cal, single_block_cycles={
                    **cal.single_block_cycles, kv: cycles})):
                for g in mine:
                    res = [r.value - published.expect(r).expected for r in g]
                    total += sum((x - statistics.mean(res)) ** 2 for x in res)
            return total
        out[kv] = min((h / 2 for h in range(8, 129)), key=spread) if mine else cal.single_block_cycles[kv]
    return out


BAND = (0.025, 0.975)  # the band holds 95 % of the healthy fit rows: a 95 % prediction interval


def bands(obj: Objective) -> tuple[tuple[float, float], tuple[float, float]]:
    """The BAND percentiles of measured / expected (as slower-than-expected factors)."""
    with catalog.trial_calibration(obj.trial.cal):
        q = sorted(published.expect(r, engine=obj.trial.runs(r)).ratio(r.value) for r in obj.rows)
        c = sorted(t / published.expect_collective(p)[0] for p, t in obj.points)

    def pct(v, p):
        return v[min(len(v) - 1, int(p * len(v)))]

    lo, hi = BAND
    return (round(pct(q, lo), 3), round(pct(q, hi), 3)), (round(pct(c, lo), 3), round(pct(c, hi), 3))


# --------------------------------------------------------------------------- writing the TOML files


def _set_value(text: str, section: str, name: str, value: float) -> str:
    """Replace `name = <number>` inside [section] of a TOML text, keeping comments and layout."""
    head = re.search(rf"^\[{re.escape(section)}\]\s*$", text, re.M)
    if not head:
        raise SystemExit(f"no [{section}] table to write {name} into")
    nxt = re.search(r"^\[", text[head.end():], re.M)
    end = head.end() + (nxt.start() if nxt else len(text) - head.end())
    body = text[head.end():end]
    new, n = re.subn(rf"^({re.escape(name)}\s*=\s*)[-0-9.eE+]+", rf"\g<1>{_fmt(value)}", body, count=1, flags=re.M)
    if not n:
        raise SystemExit(f"[{section}] has no {name} to write")
    return text[:head.end()] + new + text[end:]


def _fmt(value: float) -> str:
    return f"{value:.3g}" if value < 100 else f"{value:.0f}"


def write(trial: Trial, band: tuple, ar_band: tuple, only: str | None = None) -> None:
    cal_path = catalog.CALIBRATION_FILE
    text = cal_path.read_text()
    if only:
        for section, name in ONLY_ENGINE_CAL.get(only, ()):
            text = _set_value(text, section, name, trial.get((section, name)))
        cal_path.write_text(text)
        _write_engines(trial, {only} | {t for t, to in TIED.items() if to == only}, ONLY_ENGINE)
        return
    for section, name, _, _ in GLOBAL:
        text = _set_value(text, section, name, trial.get((section, name)))
    text = _set_value(text, "gemm_efficiency", "fp16", trial.get(("gemm_efficiency", "bf16")))
    text = _set_value(text, "gemm_efficiency", "fp32", trial.get(("gemm_efficiency", "bf16")))
    for (section, values) in (("band", band), ("allreduce_band", ar_band)):
        text = _set_value(text, section, "low", values[0])
        text = _set_value(text, section, "high", values[1])
    cal_path.write_text(text)
    _write_engines(trial, set(trial.engines), [name for name, _, _ in ENGINE])


def _write_engines(trial: Trial, keys: set, names) -> None:
    eng_path = catalog.CATALOG_DIR / "engines.toml"
    text = eng_path.read_text()
    for key, spec in trial.engines.items():
        if key not in keys:
            continue
        for name in names:
            if name in OWN and not getattr(spec, name):
                continue
            # a tied twin takes its twin's value of a kernel it never runs (llamacpp-eager: no INT8 tensor-core MMQ);
            # its table does not set the field, so there is nothing to write
            if key in TIED and name in OWN and not getattr(catalog.engine(key), name):
                continue
            # a key with a dot ("vllm-0.14", "trtllm-0.5") is a quoted TOML key
            table = f'engine."{key}"' if "." in key else f"engine.{key}"
            text = _set_value(text, table, name, getattr(spec, name))
    eng_path.write_text(text)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--write", action="store_true", help="write the fitted constants into the TOML files")
    ap.add_argument("--sweeps", type=int, default=4)
    ap.add_argument("--bands-only", action="store_true", help="keep the constants, recompute only the bands")
    ap.add_argument("--only-engine", metavar="KEY", help="fit only this engine's own constants on its own rows")
    ap.add_argument("--hold", metavar="NAMES", default="",
                    help="engine constants to keep as they are (comma-separated: host_ms_per_step,kernel_overhead_us)")
    ap.add_argument("--only-keys", metavar="KEYS", default="",
                    help="fit only these calibration.toml constants (section.name, comma-separated) on the fit rows "
                         "and all-reduce points they move; the rest, engines and bands stay")
    args = ap.parse_args()
    catalog.configure([str(PUBLISHED / "models.toml")])
    hold = tuple(n for n in args.hold.split(",") if n)
    unknown = [n for n in hold if n not in {name for name, _, _ in ENGINE}]
    if unknown:
        raise SystemExit(f"--hold: no engine constant {', '.join(unknown)}")
    only_keys = tuple(tuple(k.split(".", 1)) for k in args.only_keys.split(",") if k)
    if any(k not in {(s, n) for s, n, _, _ in GLOBAL} for k in only_keys):
        raise SystemExit(f"--only-keys: each must be one of {', '.join(f'{s}.{n}' for s, n, _, _ in GLOBAL)}")
    trial, obj = fit(0 if args.bands_only else args.sweeps, only=args.only_engine, hold=hold, only_keys=only_keys)
    if only_keys:
        for key in only_keys:
            print(f"[{key[0]}] {key[1]} = {_fmt(trial.get(key))}")
        moving = [obj.rows[i] for i in obj.active[0]]
        print(f"{len(moving)} fit rows in {len({r.table for r in moving})} tables and {len(obj.active[1])} all-reduce "
              f"points move with them; loss {obj.value():.4f} (all {len(obj.rows)} fit rows' objective)")
        if args.write:
            text = catalog.CALIBRATION_FILE.read_text()
            for key in only_keys:
                text = _set_value(text, *key, trial.get(key))
            catalog.CALIBRATION_FILE.write_text(text)
            print(f"written: {catalog.CALIBRATION_FILE}")
        return
    if args.only_engine:  # the shared constants and bands stay; only the engine's own are printed and written
        for key in sorted(k for k in trial.engines if args.only_engine in (k, TIED.get(k))):
            print(f"[engine.{key}] " + ", ".join(f"{n} = {_fmt(getattr(trial.engines[key], n))}" for n in ONLY_ENGINE))
        for section, name in ONLY_ENGINE_CAL.get(args.only_engine, ()):
            print(f"[{section}] {name} = {_fmt(trial.get((section, name)))}")
        print(f"fit rows: median |log error| {statistics.median(obj.loss):.3f}")
        if args.write:
            write(trial, (), (), only=args.only_engine)
            print(f"written: {catalog.CATALOG_DIR / 'engines.toml'}")
        return
    band, ar_band = bands(obj)
    for section, name, _, _ in GLOBAL:
        print(f"[{section}] {name} = {_fmt(trial.get((section, name)))}")
    single = fit_single_block(trial.cal)
    print("[single_block_attention] " + ", ".join(f"{k} = {_fmt(v)}" for k, v in single.items()))
    for key, spec in sorted(trial.engines.items()):
        print(f"[engine.{key}] " + ", ".join(f"{n} = {_fmt(getattr(spec, n))}" for n, _, _ in ENGINE))
    print(f"band ({BAND[0]:.1%}, {BAND[1]:.1%} percentiles of measured / expected on the fit rows): {band}; "
          f"all-reduce: {ar_band}")
    q = [math.exp(v) for v in obj.loss]
    print(f"fit rows: median |log error| {statistics.median(obj.loss):.3f} (x{statistics.median(q):.3f})")
    if args.write:
        write(trial, band, ar_band)
        text = catalog.CALIBRATION_FILE.read_text()
        for name, value in single.items():
            text = _set_value(text, "single_block_attention", name, value)
        catalog.CALIBRATION_FILE.write_text(text)
        print(f"written: {catalog.CALIBRATION_FILE} and {catalog.CATALOG_DIR / 'engines.toml'}")


if __name__ == "__main__":
    main()

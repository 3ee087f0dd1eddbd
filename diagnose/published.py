"""Published measurements: CSV tables of what real systems delivered, one figure per row with
everything needed to predict it.

Format (tests/data/published/*.csv; `diagnose scaling` reads it too):

    # <what the table is>
    # Source: <URL with commit or date>, <section>
    # Conditions: <engine version, CUDA graphs, clocks, what the metric means>
    # Split: fit | validation      (which part of the predictor's calibration the file is in)
    # Build: b2824, b2833           (optional: the engine builds the table ran, where its profile depends on them)
    engine,gpu,gpus_per_node,model,dtype,tp,pp,batch,input_len,output_len,metric,value[,healthy][,fa]

engine and gpu are catalog names (rules/catalog/*.toml), model a catalog name or one --model takes
('Qwen/Qwen2.5-72B-Instruct-AWQ', rules.subject.model_named); dtype is a weight dtype (bf16, int4, ...)
or a GGUF type (Q4_0, Q5_K_M: rules/catalog/gguf_types.toml), whose blocks give the bytes, or empty for what the
model's name states (else the checkpoint's); metric is one of
rules.expectations.METRICS; healthy (yes/no, default yes) says whether the source found the
system working; fa (1, 0 or empty) whether llama.cpp ran flash attention (llama-bench's fa column or -fa, or the build's
default), empty where the source does not say. A malformed row is an InputError naming its file and line.
"""

from __future__ import annotations

import csv
import io
import math
import re
from dataclasses import dataclass
from pathlib import Path

from diagnose.errors import InputError
from rules.expectations import METRICS

COLUMNS = ("engine", "gpu", "gpus_per_node", "model", "dtype", "tp", "pp", "batch", "input_len", "output_len", "metric",
           "value")
SPLITS = ("fit", "validation")


@dataclass(frozen=True)
class Row:
    source: str  # file:line
    engine: str
    gpu: str
    gpus_per_node: int
    model: str
    dtype: str
    tp: int
    pp: int
    batch: int
    input_len: int
    output_len: int
    metric: str
    value: float
    healthy: bool = True
    split: str = "fit"
    url: str = ""  # the file's Source line
    network: str | None = None  # the fabric between nodes, where the row spans several
    builds: tuple[str, ...] = ()  # the file's '# Build:' line ('b2824', '2024-05'), as a ticket states them
    fa: bool | None = None  # flash attention on (llama.cpp's -fa 1) or off; None: not stated

    @property
    def table(self) -> str:
        """The file the row came from (the unit of the fit / validation split)."""
        return self.source.rsplit(":", 1)[0]


def is_published_csv(path: Path) -> bool:
    """A CSV whose header names the published columns (engine, model, metric, value, ...)."""
    from diagnose.inputs import read_head

    head = read_head(path, "csv", 8000)
    header = next((ln for ln in head.splitlines() if ln.strip() and not ln.lstrip().startswith("#")), "")
    return {"engine", "model", "gpu", "metric", "value"} <= {c.strip().lower() for c in header.split(",")}


def read(path) -> list[Row]:
    """Every row of one published CSV, checked."""
    from diagnose.inputs import read_text

    path = Path(path)
    text = read_text(path, "csv")
    lines = text.splitlines()
    comments = [ln.lstrip("# ").strip() for ln in lines if ln.lstrip().startswith("#")]
    url = next((c.split(":", 1)[1].strip() for c in comments if c.lower().startswith("source:")), "")
    split = _split(path, comments)
    builds = _builds(path, next((c.split(":", 1)[1] for c in comments if c.lower().startswith("build:")), ""))
    numbered = [(n, ln) for n, ln in enumerate(lines, start=1) if ln.strip() and not ln.lstrip().startswith("#")]
    if not numbered:
        raise InputError(f"{path}: no rows")
    rows = list(csv.reader(io.StringIO("\n".join(ln for _, ln in numbered))))
    header = [h.strip().lower() for h in rows[0]]
    missing = [c for c in COLUMNS if c not in header]
    if missing:
        raise InputError(f"{path}:{numbered[0][0]}: a published table needs the columns {', '.join(COLUMNS)} "
                         f"(missing: {', '.join(missing)})")
    out = []
    for (n, _), cells in zip(numbered[1:], rows[1:]):
        out.append(_row(dict(zip(header, (c.strip() for c in cells))), f"{path.name}:{n}", split, url, builds))
    if not out:
        raise InputError(f"{path}: header but no rows")
    return out


def _split(path: Path, comments: list[str]) -> str:
    """A file's `# Split:` line (fit when it has none): which part of the calibration it belongs to."""
    split = next((c.split(":", 1)[1].strip().lower() for c in comments if c.lower().startswith("split:")), "fit")
    if split not in SPLITS:
        raise InputError(f"{path}: '# Split: {split}' must be one of {', '.join(SPLITS)}")
    return split


def _builds(path: Path, line: str) -> tuple[str, ...]:
    """The builds a '# Build:' line states: release tags (b2824) or dates (2024-05), comma-separated."""
    from rules.catalog import BUILD_DATE

    builds = tuple(b.strip().lower() for b in line.split(",") if b.strip())
    bad = [b for b in builds if not (re.fullmatch(r"b\d+", b) or BUILD_DATE.fullmatch(b))]
    if bad:
        raise InputError(f"{path}: '# Build: {line.strip()}': {bad[0]!r} is no build tag (b2824) or date (2024-05)")
    return builds


def _row(cell: dict, src: str, split: str, url: str, builds: tuple[str, ...] = ()) -> Row:
    metric = cell.get("metric", "")
    if metric not in METRICS:
        raise InputError(f"{src}: unknown metric {metric!r} (known: {', '.join(METRICS)})")
    try:
        value = float(cell["value"])
        ints = {k: int(cell[k]) if cell.get(k) else None
                for k in ("gpus_per_node", "tp", "pp", "batch", "input_len", "output_len")}
    except (KeyError, ValueError):
        raise InputError(f"{src}: expected numbers in value, tp, pp, batch, input_len, output_len; "
                         f"got {cell}") from None
    if not math.isfinite(value) or value <= 0:
        raise InputError(f"{src}: the value must be a positive number, got {cell['value']!r}")
    if not ints["tp"] or ints["tp"] < 1 or not ints["batch"] or ints["batch"] < 1:
        raise InputError(f"{src}: tp and batch must be positive integers")
    if not ints["input_len"] or not ints["output_len"]:
        raise InputError(f"{src}: input_len and output_len are needed to predict a figure")
    healthy = (cell.get("healthy") or "yes").lower()
    if healthy not in ("yes", "no"):
        raise InputError(f"{src}: healthy must be yes or no, got {healthy!r}")
    fa = cell.get("fa") or ""
    if fa not in ("", "0", "1"):
        raise InputError(f"{src}: fa must be 1, 0 or empty, got {fa!r}")
    return Row(src, cell["engine"], cell["gpu"], ints["gpus_per_node"] or 8, cell["model"], cell["dtype"], ints["tp"],
               ints["pp"] or 1, ints["batch"], ints["input_len"], ints["output_len"], metric, value, healthy == "yes",
               split, url, cell.get("network") or None, builds, fa == "1" if fa else None)


def read_dir(folder) -> list[Row]:
    """Every published CSV in a folder, sorted by file name."""
    rows = []
    for path in sorted(Path(folder).glob("*.csv")):
        rows.extend(read(path))
    return rows


def weights(row: Row) -> tuple[str, str | None]:
    """(dtype, GGUF type or None) of the row's weights: a llama.cpp row names its GGUF type (Q4_0, F16), whose
    blocks fix the bytes a weight streams (rules/catalog/gguf_types.toml); an empty dtype cell takes what the model's
    name states ('-AWQ', 'GPTQ-Int8': rules.catalog.named_weights, as every command reads a name), else ''."""
    from rules import catalog

    gguf = catalog.gguf_weights(row.dtype)
    if gguf:
        return gguf
    return row.dtype or catalog.named_weights(row.model) or "", None


def expect(row: Row, **overrides):
    """The roofline, expected value and band of the row's metric, for the setup it names.

    overrides go to rules.roofline.predict (an engine spec, mbu, ...): the calibration uses them.
    """
    from rules import catalog
    from rules.expectations import expectation
    from rules.roofline import Layout, predict_any_build
    from rules.subject import model_named

    dtype, group = weights(row)
    # the profile the row names, as its builds run a split by layers and a quantised prompt (unstated: the newest),
    # with flash attention where the row says it ran
    args = dict(batch=row.batch, prompt=row.input_len, output=row.output_len, dtype=dtype, quant_group=group,
                engine=catalog.build_profile(catalog.engine(row.engine), row.builds, row.fa),
                gpus_per_node=row.gpus_per_node, network=row.network)
    args.update(overrides)
    # a split whose builds the table does not state (or straddle a flip) may have kept its graphs or not: the band
    # covers the eager twin too, as for a ticket
    engine = args["engine"]
    undecided = row.pp > 1 and engine.pp_graphs_flips and catalog.split_graphs(engine, row.builds) is None
    p = predict_any_build(model_named(row.model), catalog.gpu(row.gpu), Layout(row.tp, row.pp),
                          build_stated=not undecided, **args)
    return expectation(row.metric, p)


# --------------------------------------------------------------------------- all-reduce tables

COLLECTIVE_COLUMNS = ("implementation", "gpu", "fabric", "gpus", "nodes", "size_bytes", "time_us", "graph")
# How a table's calls were launched (its `launch` column; tests/data/collectives/README.md): one host thread driving
# every GPU of its node inside ncclGroupStart/End (nccl-tests -g N), one process or thread per GPU (MPI with -g 1,
# torchrun, Ray, an engine's workers), or not said by the source
LAUNCHES = ("one-thread", "per-gpu", "unstated")
# implementation column -> (what runs, the custom kernel's calibration key)
IMPLEMENTATIONS = {
    "nccl": ("nccl", None), "nccl-ring": ("ring", None), "nccl-tree": ("tree", None), "nccl-nvls": ("nvls", None),
    "nccl-nvlstree": ("nvlstree", None), "vllm-custom": ("custom", "vllm"), "sglang-custom": ("custom", "trtllm"),
    "trtllm-custom": ("custom", "trtllm"),
}


def _nvls_board(gpu: str) -> bool:
    """Whether the catalog knows `gpu` as a board NCCL runs NVLS / NVLSTree on."""
    from rules import catalog, collectives

    return gpu in catalog.gpus() and collectives.nvls_capable(catalog.gpu(gpu))


@dataclass(frozen=True)
class CollectiveRow:
    source: str
    implementation: str
    gpu: str
    fabric: str
    gpus: int
    nodes: int
    size_bytes: int
    time_us: float
    graph: bool
    p2p: bool | None = None  # None: what the GPU's catalog row says (a P2P-patched driver says yes)
    split: str = "fit"  # the file's `# Split:` (fit | validation), as the published tables
    path: str = ""  # the ring's worst PCIe link as nvidia-smi topo -m names it (pix, pxb, phb, node, sys); "" unknown
    cpu: str = ""  # the host CPUs where the ring spans sockets, as NCCL tells their link apart (NCCL_CPU_LINK_GBS)
    launch: str = "unstated"  # LAUNCHES: how the source launched each call, as its command line says
    nccl: str = ""  # the NCCL release the source states (its `# NCCL:` line), "" where none: the pinned one is priced
    nccl_assumed: bool = False  # the `# NCCL:` line says "assumed": the source's thread, not this table, names it
    same_setup_as: str = ""  # `# Same-setup-as: <file>`: the table of the same node and harness; "" independent
    host_cpu: str = ""  # `# Host: <CPU> - where it says so`: the host's CPU as the source names it; "" unstated
    host_copy_gbs: float = 0.0  # `# Host-copy: <GB/s> - ...`: the host's one-way copy between two GPUs without peer
    # access (p2pBandwidthLatencyTest 'Unidirectional P2P=Disabled'), as the source measured it; 0 unstated

    def thread_gpus(self) -> int:
        """GPUs one host thread launched each call on (nccl-tests -g N: the GPUs of its node), 0 where each GPU has
        its own process or the source does not say."""
        return self.gpus // max(self.nodes, 1) if self.launch == "one-thread" else 0


def read_collectives(path) -> list[CollectiveRow]:
    """The timed all-reduce rows of one tests/data/collectives table (rows without a time, of an
    implementation or fabric the model has no entry for, are left out)."""
    path = Path(path)
    text = path.read_text().splitlines()
    lines = [(n, ln) for n, ln in enumerate(text, start=1) if ln.strip() and not ln.lstrip().startswith("#")]
    comments = [ln.lstrip("# ").strip() for ln in text if ln.lstrip().startswith("#")]
    split = _split(path, comments)
    release, assumed = _nccl_release(path, comments)
    twin = _same_setup_as(path, comments)
    host_cpu, host_copy = _host(path, comments)
    rows = list(csv.reader(io.StringIO("\n".join(ln for _, ln in lines))))
    header = [h.strip() for h in rows[0]]
    if any(c not in header for c in COLLECTIVE_COLUMNS):
        raise InputError(f"{path}: an all-reduce table needs the columns {', '.join(COLLECTIVE_COLUMNS)}")
    out = []
    for (n, _), cells in zip(lines[1:], rows[1:]):
        c = dict(zip(header, cells))
        fabric = _fabric_key(c["fabric"])
        if c["implementation"] not in IMPLEMENTATIONS or not c["time_us"] or fabric is None:
            continue
        p2p = {"yes": True, "no": False}.get(c.get("p2p") or "")
        launch = (c.get("launch") or "unstated").strip().lower()
        if launch not in LAUNCHES:
            raise InputError(f"{path}:{n}: launch must be one of {', '.join(LAUNCHES)}, got {launch!r}")
        if c["implementation"] == "nccl-nvlstree" and not _nvls_board(c["gpu"]):
            raise InputError(f"{path}:{n}: NCCL runs NVLSTree only on Hopper or later GPUs on an NVSwitch that "
                             f"reduces; {c['gpu']!r} is not one (rules.collectives.nvls_capable)")
        out.append(CollectiveRow(f"{path.name}:{n}", c["implementation"], c["gpu"], fabric, int(c["gpus"]),
                                 int(c["nodes"] or 1), int(c["size_bytes"]), float(c["time_us"]),
                                 c["graph"] == "yes", p2p, split, (c.get("path") or "").strip().lower(),
                                 (c.get("cpu") or "").strip().lower(), launch, release, assumed, twin, host_cpu,
                                 host_copy))
    return out


def _host(path: Path, comments: list[str]) -> tuple[str, float]:
    """A table's `# Host: <CPU> - where it says so` and `# Host-copy: <GB/s> GB/s - how measured` lines: (the host's CPU
    as the source names it, "" where none; the host's one-way copy between two GPUs without peer access in GB/s, 0
    where none)."""
    def line(key: str) -> str:
        return next((c.split(":", 1)[1].strip() for c in comments if c.lower().startswith(key + ":")), "")

    cpu, copy = line("host").split(" - ")[0].strip(), line("host-copy")
    m = re.match(r"(\d+(?:\.\d+)?)\s*GB/s\b", copy)
    if copy and m is None:
        raise InputError(f"{path}: '# Host-copy: {copy}' must start with a rate in GB/s (5.7 GB/s)")
    return cpu, float(m.group(1)) if m else 0.0


def _same_setup_as(path: Path, comments: list[str]) -> str:
    """A table's `# Same-setup-as: <file> - why` line: the other table of this folder measured on the same node with
    the same harness (so not independent of it: a validation table with a fit twin validates little); "" where none.
    The named file must exist beside it."""
    line = next((c.split(":", 1)[1].strip() for c in comments if c.lower().startswith("same-setup-as:")), "")
    if not line:
        return ""
    name = line.split()[0]
    if name == path.name or not (path.parent / name).is_file():
        raise InputError(f"{path}: '# Same-setup-as: {line}' must start with another file of {path.parent}")
    return name


def _nccl_release(path: Path, comments: list[str]) -> tuple[str, bool]:
    """A table's `# NCCL: 2.21.5 - where it says so` line: (the release that ran, "" where the file has none; whether
    the line calls it assumed: 'assumed (same thread, ...)' where only the source's thread names a release)."""
    from rules.catalog import nccl_release

    line = next((c.split(":", 1)[1].strip() for c in comments if c.lower().startswith("nccl:")), "")
    if line and nccl_release(line) is None:
        raise InputError(f"{path}: '# NCCL: {line}' must start with an NCCL release (2.21.5)")
    if not line:
        return "", False
    return ".".join(map(str, nccl_release(line))), re.search(r"\bassumed\b", line, re.I) is not None


def _fabric_key(name: str) -> str | None:
    """The interconnects.toml key a table's fabric names, by key or alias ('roce': RoCE, which NCCL drives through
    its IB transport, src/transport/net_ib); None where the catalog has no such fabric."""
    from rules import catalog

    if name == "nvlink-bridge":
        return name
    try:
        return catalog.interconnect(name).key
    except catalog.UnknownName:
        return None


def expect_collective(row: CollectiveRow) -> tuple[float, float]:
    """(expected, roofline) time in us of the row's all-reduce on its fabric."""
    from rules import catalog, collectives
    from rules.roofline import tp_fabric

    gpu = catalog.gpu(row.gpu) if row.gpu in catalog.gpus() else None
    if row.fabric == "nvlink-bridge":
        fabric = tp_fabric(gpu, 2, 8)[0] if gpu else catalog.interconnect("nvlink3")
    else:
        fabric = catalog.interconnect(row.fabric)
        if gpu is not None and row.nodes == 1:
            fabric = tp_fabric(gpu, row.gpus, row.gpus, interconnect=fabric.key)[0]
    p2p = gpu.pcie_p2p if gpu is not None and fabric.kind == "pcie" else True
    if row.p2p is not None:
        p2p = row.p2p
    what, key = IMPLEMENTATIONS[row.implementation]
    roof = collectives.roofline_us(fabric, row.gpus, row.size_bytes, nodes=row.nodes)
    if what == "custom":
        link = (gpu.nvlink_gbs if gpu is not None and gpu.nvlink_gbs else fabric.bandwidth_gbs)
        return collectives.custom(key, row.gpus, row.size_bytes, graphs=row.graph, link_gbs=link).us, roof
    release = row.nccl or None
    only = None if what == "nccl" else what
    shm = collectives.shm_busbw_gbs(fabric, host_cpu=row.host_cpu, copy_gbs=row.host_copy_gbs) \
        if fabric.kind == "pcie" else 0.0
    if gpu is not None:  # as every command prices NCCL on this board (collectives.nccl_for), the row's p2p first
        t = collectives.nccl_for(gpu, fabric, row.gpus, row.size_bytes, nodes=row.nodes, graphs=row.graph, only=only,
                                 path=row.path, cpu=row.cpu, p2p=row.p2p, thread_gpus=row.thread_gpus(),
                                 release=release, shm_gbs=shm)
    else:
        t = collectives.nccl(fabric, row.gpus, row.size_bytes, nodes=row.nodes, graphs=row.graph, p2p=p2p, only=only,
                             path=row.path, cpu=row.cpu, thread_gpus=row.thread_gpus(), release=release, shm_gbs=shm)
    return t.us, roof

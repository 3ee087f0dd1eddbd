"""nccl-tests output (all_reduce_perf and friends), every generation of its table.

Old tables have `type redop time algbw busbw error` (error = max abs error), newer ones add
`root` and `#wrong`; all_gather in old versions has no redop; alltoall prints N/A in place.
The row grammar is therefore read from the cells, not from fixed positions: size, count, type,
optional redop, optional root, then one or two groups of (time, algbw, busbw, wrong).

nccl-tests semantics: algbw = size / time, busbw = algbw x factor, factor = 2(n-1)/n for
all_reduce, (n-1)/n for all_gather / reduce_scatter / alltoall, 1 otherwise. Both are kept as
printed; rows whose printed figures disagree with that arithmetic become NcclEvent
"inconsistent_bandwidth" (a hand-edited or mis-pasted table must not be trusted silently).
"""

from __future__ import annotations

import re

from diagnose.artifacts.text import integer, lines, number
from diagnose.evidence import (
    CollectiveResult,
    CollectiveSummary,
    GpuFact,
    Measurement,
    NcclEvent,
    NcclVersion,
    Note,
    Workload,
    where,
)
from diagnose.evidence import bus_factor as busbw_factor

KIND = "nccl_tests"

TYPE_BYTES = {
    "int8": 1, "char": 1, "uint8": 1, "fp8_e4m3": 1, "fp8_e5m2": 1, "f8e4m3": 1, "f8e5m2": 1,
    "half": 2, "float16": 2, "bfloat16": 2, "bf16": 2, "fp16": 2,
    "int32": 4, "int": 4, "uint32": 4, "float": 4, "float32": 4,
    "int64": 8, "uint64": 8, "double": 8, "float64": 8,
}
REDOPS = {"sum", "prod", "max", "min", "avg", "none", "premulsum", "mulsum"}
OPS = ("all_reduce", "all_gather", "reduce_scatter", "broadcast", "reduce", "alltoall", "sendrecv",
       "gather", "scatter", "hypercube")

PERF_BINARY = re.compile(r"\b(" + "|".join(OPS) + r")_perf(?:_mpi)?\b")  # (left27) an MPI build's suffix
# Pasted into a GitHub issue outside a code block, a "# ..." line renders as a heading and comes back without
# its "#": the header, device and column lines are specific enough to be read either way.
HEADER = re.compile(
    r"(?:#|^)\s*nThread\s+(?P<nthread>\d+)\s+nGpus\s+(?P<ngpus>\d+)\s+minBytes\s+(?P<min>\d+)\s+maxBytes\s+(?P<max>\d+)"
)
GRAPH = re.compile(r"\bgraph:\s*(\d+)")
VERSION = re.compile(r"#\s*nccl-tests version\s+(?P<tests>\S+)(?:.*?nccl-library=(?P<lib>\d+))?")
# The NCCL major.minor the tests were built against, printed 2017-2019 (NVIDIA/nccl-tests 925a705)
COMPILED = re.compile(r"#\s*NCCL Tests compiled with NCCL (?P<v>\d+\.\d+)\b")
COLUMNS = re.compile(r"(?:#|^)\s*size\s+count\s+type\b.*\btime\b.*\balgbw\b.*\bbusbw\b")
# (the NCCL 1.x tests printed "#   Rank  0 uses device  0 [0x02] Tesla P100-PCIE-16GB", one process, no host; the
# 2017-2019 tests "#   Rank  0 on     node03 device  0 [0x00] ...", no pid: NVIDIA/nccl-tests src/common.cu b188a15)
RANK = re.compile(
    r"(?:#|^)\s*Rank\s+(?P<rank>\d+)\s+(?:(?:Group\s+\d+\s+)?(?:Pid\s+\d+\s+)?on\s+(?P<host>\S+)\s+device|"
    r"uses device)"
    r"\s+(?P<dev>\d+)\s+\[(?P<bus>[^\]]*)\]\s+(?P<name>.+?)\s*$"
)
# The run's summary lines: "# Out of bounds values : 2 FAILED", "# Avg bus bandwidth : 128.9". The tests printed
# them with a leading blank instead of the "#" until 2019 (src/common.cu b188a15 .. cbe7f65: " Out of bounds values :
# %d %s", " Avg bus bandwidth    : %g"), so the "#" is optional at the start of a line.
AVG = re.compile(r"(?:#|^)\s*Avg bus bandwidth\s*:\s*(?P<v>[-+\d.eE]+|nan|-nan)")
OOB = re.compile(r"(?:#|^)\s*Out of bounds values\s*:\s*(?P<n>\d+)\s*(?P<status>\w+)?")
QUICK = re.compile(r"NCCL Test \((?P<op>\w+?)(?:_perf)?\):\s*algbw\s*=\s*(?P<alg>\d+(?:\.\d+)?)\s*GB/s,"
                   r"\s*busbw\s*=\s*(?P<bus>\d+(?:\.\d+)?)")
ROW_START = re.compile(r"^\s*\d+\s+\d+\s+[A-Za-z_][\w]*\s")
DETECTORS = (
    (COLUMNS, 0.7), (HEADER, 0.7), (AVG, 0.7), (PERF_BINARY, 0.3), (RANK, 0.3), (QUICK, 0.7),
    (re.compile(r"out-of-place\s+in-place"), 0.5), (VERSION, 0.7), (COMPILED, 0.7),
)


def bus_factor(op: str | None, nranks: int | None) -> float | None:
    """busbw / algbw for an op over n ranks, as nccl-tests defines it (None when unknown)."""
    if not op or not nranks:
        return None
    try:
        return busbw_factor(op, nranks)
    except ValueError:
        return None


def nccl_version_from_code(code: int) -> str:
    """NCCL_VERSION_CODE to 'x.y.z': 22703 -> 2.27.3 (>= 2.9), 2708 -> 2.7.8 (older)."""
    if code >= 10000:
        return f"{code // 10000}.{code % 10000 // 100}.{code % 100}"
    return f"{code // 1000}.{code % 1000 // 100}.{code % 100}"


def bus_id(text: str) -> str | None:
    """'0x1b' (old nccl-tests: the bus number) or '0000:1d:00' -> '0000:1b:00.0'."""
    text = text.strip().lower()
    if re.fullmatch(r"0x[0-9a-f]{1,2}", text):
        return f"0000:{int(text, 16):02x}:00.0"
    m = re.fullmatch(r"(?:([0-9a-f]{4,8}):)?([0-9a-f]{2}):([0-9a-f]{2})(?:\.([0-7]))?", text)
    if m:
        return f"{(m.group(1) or '0000')[-4:]}:{m.group(2)}:{m.group(3)}.{m.group(4) or '0'}"
    return None


def detect(text: str) -> float:
    head = text[:300_000]
    total = sum(weight for pattern, weight in DETECTORS if pattern.search(head))
    rows = sum(1 for _, line in lines(head)[:5000] if _row(line.split()) is not None)  # launcher tags off
    if rows >= 2:
        total += 0.5
    return min(1.0, total)


class _Block:
    """State of one nccl-tests run inside the file (a file may hold several)."""

    def __init__(self, op: str | None = None):
        self.op = op
        self.nranks: int | None = None
        self.header_ranks: int | None = None
        self.hosts: list[str] = []
        self.devices: set[tuple[str, int]] = set()
        self.graph = False
        self.thread_gpus = 0  # nGpus of the header: one thread launches each call on that many GPUs (-g N)
        self.old_error_column = False
        self.columns: list[str] | None = None
        self.rank_source: str | None = None


def parse(text: str, name: str) -> list:
    out: list = []
    block = _Block()
    pending_op: str | None = None  # the op the last command line named, until a run's header claims it
    for n, line in lines(text):
        stripped = line.strip()
        data_row = ROW_START.match(line)  # (a line starting with two numbers is no header, device or column line)
        if "#" not in line and "_perf" not in line and "NCCL Test" not in line and \
                (data_row or not any(p.match(line) for p in (HEADER, RANK, COLUMNS, AVG, OOB))):  # ("#" may be lost)
            # Fast path for the bulk of a file: a data row or someone else's line.
            row = _row(line.split(), block.columns) if data_row else None
            if row is not None:
                out.extend(_result(row, block, name, n))
            continue
        named = set(PERF_BINARY.findall(line))
        if named and re.search(r"\$|/|starting|mpirun|srun", line):
            pending_op = named.pop() if len(named) == 1 else None  # a {a,b,c}_perf loop names none
            out.extend(_finish(block))  # a command line starts a new run
            block = _Block(pending_op)
        if (m := VERSION.search(line)) is not None:
            out.append(Note(where(name, n), "software", f"nccl-tests {m.group('tests')}"))
            if m.group("lib"):
                out.append(NcclVersion(where(name, n), nccl_version_from_code(int(m.group("lib")))))
            continue
        if (m := COMPILED.search(line)) is not None:
            out.append(NcclVersion(where(name, n), m.group("v")))
            continue
        if (m := HEADER.search(line)) is not None:
            out.extend(_finish(block))
            # a run with no command line of its own is no run of the previous one's op: guessed afresh from its rows
            block = _Block(pending_op)
            pending_op = None
            block.header_ranks = int(m.group("nthread")) * int(m.group("ngpus"))
            block.thread_gpus = int(m.group("ngpus")) if int(m.group("ngpus")) > 1 else 0
            g = GRAPH.search(line)
            block.graph = bool(g and int(g.group(1)) > 0)
            continue
        if (m := RANK.search(line)) is not None:
            _rank_line(m, block, out, name, n)
            continue
        if COLUMNS.search(line):
            block.old_error_column = "#wrong" not in line and re.search(r"\berror\b", line) is not None
            block.columns = line.replace("#wrong", "wrong").strip("# ").split()
            continue
        if (m := AVG.search(line)) is not None:
            value = number(m.group("v"))
            if value is not None:
                out.append(CollectiveSummary(where(name, n), block.op, value, _ranks(block)))
            continue
        if (m := OOB.search(line)) is not None:
            if int(m.group("n")) > 0 or (m.group("status") or "OK").upper() != "OK":
                out.append(NcclEvent(where(name, n), "nccl_tests_wrong", stripped,
                                     {"out_of_bounds": int(m.group("n"))}))
            continue
        if (m := QUICK.search(line)) is not None:
            # A one-line summary someone typed: a figure without size or time, so a Measurement.
            out.append(Measurement(where(name, n), "busbw_gbs", float(m.group("bus")), "GB/s"))
            out.append(Measurement(where(name, n), "algbw_gbs", float(m.group("alg")), "GB/s"))
            continue
        if stripped.startswith("#") or not ROW_START.match(line):
            continue
        row = _row(line.split(), block.columns)
        if row is not None:
            out.extend(_result(row, block, name, n))
    out.extend(_finish(block))
    return out


def _finish(block: _Block) -> list:
    """The run's scale, from its device lines: how many ranks on how many hosts."""
    if not block.hosts:
        return []
    return [Workload(block.rank_source, framework="nccl-tests", gpu_count=block.nranks, nodes=len(block.hosts))]


def _rank_line(m, block: _Block, out: list, name: str, n: int) -> None:
    host, dev = m.group("host") or "localhost", int(m.group("dev"))
    if host not in block.hosts:
        block.hosts.append(host)
    block.rank_source = block.rank_source or where(name, n)
    block.nranks = max(block.nranks or 0, int(m.group("rank")) + 1)
    # GPUs of the first host only: GpuFact has no host field, and rules count GPUs per node.
    if host == block.hosts[0] and (host, dev) not in block.devices:
        block.devices.add((host, dev))
        out.append(GpuFact(where(name, n), index=dev, name=m.group("name").strip(), bus_id=bus_id(m.group("bus"))))


def _ranks(block: _Block) -> int | None:
    return block.nranks or block.header_ranks


def _row(cells: list[str], columns: list[str] | None = None):
    """(size, count, dtype, redop, root, groups) if `cells` is an nccl-tests data row.

    `columns` (from the header line, when it was pasted) says whether redop and root are
    there; without it the cell count decides. Cells after the value groups (RCCL's algo,
    proto, nchannels) are ignored.
    """
    if len(cells) < 7:
        return None
    size, count = integer(cells[0]), integer(cells[1])
    dtype = cells[2].lower()
    if size is None or count is None or dtype not in TYPE_BYTES:
        return None
    rest = cells[3:]
    redop = None
    if rest and rest[0].lower() in REDOPS:
        redop = rest.pop(0).lower()
    root = None
    has_root = ("root" in columns) if columns else (len(rest) in (5, 9) or rest[:1] == ["-1"])
    if has_root and rest and re.fullmatch(r"-?\d+", rest[0]):
        root = int(rest.pop(0))
    width = 4 * columns.count("time") if columns and "time" in columns else 8
    if len(rest) < 4 or (not columns and len(rest) > 8):
        return None
    # Only whole groups: a row cut off inside the in-place group keeps its out-of-place figures.
    groups = [rest[i:i + 4] for i in range(0, min(width, len(rest)) - 3, 4)]
    if any(number(c) is None for c in groups[0][:3]):
        return None
    return size, count, dtype, redop, root, groups


def _guess_op(size: int, count: int, dtype: str, redop: str | None, root: int | None) -> str | None:
    """The op when no command line names it: only the unambiguous case (sum, no root, count = size)."""
    if redop not in (None, "none") and (root is None or root < 0) and count * TYPE_BYTES[dtype] == size:
        return "all_reduce"
    return None


def _result(row, block: _Block, name: str, n: int) -> list:
    size, count, dtype, redop, root, groups = row
    guessed = block.op or _guess_op(size, count, dtype, redop, root)
    out: list = []
    for i, (time, alg, bus, wrong) in enumerate(groups):
        time_us, algbw, busbw = number(time), number(alg), number(bus)
        if time_us is None or algbw is None or busbw is None:
            continue  # N/A: alltoall / sendrecv have no in-place figures
        op = guessed or _op_from_ratio(redop, root, algbw, busbw, _ranks(block))
        nranks = _ranks(block) or _ranks_from_ratio(op, algbw, busbw)
        max_error = _old_error(wrong, block)
        errors = None if max_error is not None or block.old_error_column else integer(wrong)
        result = CollectiveResult(
            where(name, n), op or "unknown", size, time_us, algbw, busbw, nranks=nranks,
            nodes=len(block.hosts) or None, count=count, dtype=dtype, in_place=(i == 1),
            errors=errors, graph=block.graph, thread_gpus=block.thread_gpus,
        )
        out.append(result)
        out.extend(_check(result, name, n))
        # (r49b, r49d) the bound's ranks (nProcs x nThreads x nGpus) from the rank lines, else the busbw/algbw ratio,
        # else a header counting more than one GPU; a header's "nThread 1 nGpus 1" is one MPI process's, the process
        # count printed nowhere
        bound_ranks = block.nranks or _ranks_from_ratio(op, algbw, busbw) \
            or (block.header_ranks if (block.header_ranks or 0) > 1 else None) or MANY_RANKS
        if max_error is not None and max_error > DELTA_MAX.get(dtype, 0.0) * (bound_ranks - 1):
            out.append(NcclEvent(where(name, n), "nccl_tests_wrong",
                                 f"largest error {wrong} at {size} B ({dtype}), beyond the check's bound",
                                 {"max_error": max_error, "size_bytes": size}))
    return out


# The old tables' "error" column (2017-2022) is the largest deviation of any value from the expected result, printed
# "%le" ("1e+00", "5e-07"); the test counted a size as wrong when it exceeded DeltaMaxValue(type) x (nranks - 1)
# (src/common.cu cbe7f65: half 1e-2, float 1e-5, double 1e-12, integers any). The newer "#wrong" column counts values,
# printed "%g": an exponent there only from a million values up.
DELTA_MAX = {"half": 1e-2, "float16": 1e-2, "fp16": 1e-2, "bfloat16": 1e-2, "bf16": 1e-2,
             "float": 1e-5, "float32": 1e-5, "double": 1e-12, "float64": 1e-12}
MANY_RANKS = 1024  # ranks unknown: the bound of a large job, so only an error past every job's bound counts


def _old_error(cell: str, block: _Block) -> float | None:
    """The old "error" column's value of a row, or None where the cell is a "#wrong" count or N/A."""
    value = number(cell)
    if value is None:
        return None
    if block.old_error_column or (re.search(r"\de[-+]\d", cell) and value < 1e6):
        return value
    return None


def _op_from_ratio(redop: str | None, root: int | None, algbw: float, busbw: float, n: int | None) -> str | None:
    """The op of a row no command line names, from nccl-tests' busbw/algbw factor on n ranks (2(n-1)/n all-reduce,
    (n-1)/n reduce-scatter, 1 broadcast, reduce or sendrecv) and the row's redop and root; None where two ops print
    alike (all-gather and alltoall: (n-1)/n, no redop, no root) or n is too small to tell the factors apart."""
    if not n or n < 3 or algbw < 1.0:
        return None
    reduces, rooted = redop not in (None, "none"), root is not None and root >= 0
    ops = {(True, False): ("all_reduce", "reduce_scatter"), (False, True): ("broadcast",), (True, True): ("reduce",),
           (False, False): ("sendrecv",)}[(reduces, rooted)]
    fits = [op for op in ops if abs(bus_factor(op, n) - busbw / algbw) < 0.02 + 0.03 * bus_factor(op, n)]
    return fits[0] if len(fits) == 1 else None


def _ranks_from_ratio(op: str | None, algbw: float, busbw: float) -> int | None:
    """n from busbw/algbw = 2(n-1)/n, for an all_reduce row large enough to read the ratio."""
    if op != "all_reduce" or algbw < 1.0:
        return None
    ratio = busbw / algbw
    if not 0.95 <= ratio < 1.99:
        return None
    n = round(2 / (2 - ratio))
    return n if abs(bus_factor(op, n) - ratio) < 0.02 else None


def _check(r: CollectiveResult, name: str, n: int) -> list:
    """Events for printed figures that break nccl-tests' own arithmetic."""
    events = []
    if r.time_us > 0 and r.algbw_gbs >= 0.05:
        expected = r.size_bytes / r.time_us / 1e3
        if abs(expected - r.algbw_gbs) > 0.02 + 0.05 * expected:
            events.append(NcclEvent(where(name, n), "inconsistent_bandwidth",
                                    f"algbw {r.algbw_gbs} GB/s but size/time = {expected:.2f} GB/s",
                                    {"printed": r.algbw_gbs, "computed": round(expected, 3), "column": "algbw"}))
    factor = bus_factor(r.op, r.nranks)
    if factor and r.algbw_gbs >= 0.05:
        expected = r.algbw_gbs * factor
        if abs(expected - r.busbw_gbs) > 0.02 + 0.03 * expected:
            events.append(NcclEvent(where(name, n), "inconsistent_bandwidth",
                                    f"busbw {r.busbw_gbs} GB/s but algbw x {factor:.3f} ({r.op}, {r.nranks} ranks) "
                                    f"= {expected:.2f} GB/s",
                                    {"printed": r.busbw_gbs, "computed": round(expected, 3), "column": "busbw"}))
    if r.errors:
        events.append(NcclEvent(where(name, n), "nccl_tests_wrong", f"{r.errors} wrong values at {r.size_bytes} B",
                                {"errors": r.errors, "size_bytes": r.size_bytes}))
    return events

"""Per-NUMA-node memory tables: `numastat -p/-c` (a process's memory on each node), `numastat -m` and
`numactl -H` (each node's size and free memory), one NumaMemory per process and node, or per node.

numastat (numactl package, https://man7.org/linux/man-pages/man8/numastat.8.html) prints a header of
`Node N` columns and a `Total`, then rows of MB: Huge/Heap/Stack/Private/Total for one process (`-p PID`),
`PID (name)` rows for several (`-c`, or a pattern matching several), MemTotal/MemFree/MemUsed... for the
system (`-m`). Wide tables wrap into blocks of more `Node N` columns, and pastes lose the title or the
`Total` row. numactl -H prints `node N cpus: ...`, `node N size: M MB`, `node N free: M MB`. Whether a
process's memory sits on the far side of its GPU is for the rules.
"""

from __future__ import annotations

import re

from diagnose.artifacts.smi_common import clean_lines
from diagnose.evidence import NumaMemory, where

KIND = "numastat"

_TITLE = re.compile(r"Per-node (process|system) memory usage \(in MBs\)(?::|\s+for PID (\d+) \(([^)]*)\))?", re.I)
_HEADER = re.compile(r"^\s*(?:PID\s+)?((?:Node\s+\d+\s*)+)(Total)?\s*$", re.I)
_NUMBER = r"-?\d+(?:\.\d+)?"
_PROCESS_ROWS = {"huge", "heap", "stack", "private"}
_SYSTEM_ROWS = {"memtotal": "total_mb", "memfree": "free_mb", "memused": "used_mb"}
_PID_ROW = re.compile(r"^\s*(\d+)\s+\(([^)\s]*)\)?")
_NUMACTL = re.compile(r"^\s*node\s+(\d+)\s+(cpus|size|free):\s*(.*?)\s*$", re.I)


def detect(text: str) -> float:
    head = text[:2_000_000]
    if _TITLE.search(head):
        return 0.95
    rows = re.findall(r"^[^\S\n]*(?:Huge|Heap|Stack|Private|MemTotal|MemFree)\s+" + _NUMBER, head, re.M)
    headers = [line for line in head.splitlines() if _HEADER.match(line)]
    if headers and len(rows) >= 2:
        return 0.9
    return 0.9 if len(re.findall(r"^[^\S\n]*node\s+\d+\s+(?:size|free):\s*\d+\s*MB", head, re.M | re.I)) >= 2 else 0.0


def _values(line: str, label_end: int) -> list[float]:
    return [float(v) for v in re.findall(_NUMBER, line[label_end:])]


def parse(text: str, name: str) -> list:
    records: list[NumaMemory] = []
    lines = clean_lines(text)
    records += _numactl(lines, name)
    scope, pid, command = None, None, None
    nodes: list[int] = []
    has_total = False
    # one table's rows: key (pid or row label) -> {node: MB}, and where each key was first read
    table: dict = {}
    first_line: dict = {}

    def flush():
        records.extend(_table_records(scope, pid, command, table, first_line, name))
        table.clear()
        first_line.clear()

    for i, line in enumerate(lines):
        title = _TITLE.search(line)
        if title:
            flush()
            scope, pid, command = title.group(1).lower(), title.group(2), title.group(3)
            nodes = []
            continue
        header = _HEADER.match(line)
        if header:
            found = [int(n) for n in re.findall(r"\d+", header.group(1))]
            if table and set(found) & set(nodes):  # a new table without a title line
                flush()
                scope, pid, command = None, None, None
            nodes, has_total = found, bool(header.group(2))  # disjoint nodes: the wrapped part of the same table
            continue
        if not nodes or re.match(r"^\s*-{3,}", line):
            continue
        label = line.split()[0] if line.split() else ""
        pid_row = _PID_ROW.match(line)
        if pid_row and label.isdigit():
            key, end = (int(pid_row.group(1)), pid_row.group(2)), pid_row.end()
        elif label.lower() in _PROCESS_ROWS | set(_SYSTEM_ROWS) or label.lower() == "total":
            key, end = label.lower(), line.index(label) + len(label)
        else:
            continue
        values = _values(line, end)
        if len(values) not in (len(nodes), len(nodes) + has_total):
            continue
        table.setdefault(key, {}).update(zip(nodes, values[:len(nodes)]))
        first_line.setdefault(key, i + 1)
    flush()
    return records


def _table_records(scope, pid, command, table: dict, first_line: dict, name: str) -> list[NumaMemory]:
    """The records of one table: per node, the system's totals, a process's total, or each listed PID's."""
    out: list[NumaMemory] = []
    if any(k in _SYSTEM_ROWS for k in table):
        start = min(first_line[k] for k in table if k in _SYSTEM_ROWS)
        for node in sorted({n for k in _SYSTEM_ROWS if k in table for n in table[k]}):
            fields = {_SYSTEM_ROWS[k]: table[k][node] for k in _SYSTEM_ROWS if node in table.get(k, {})}
            if "used_mb" not in fields and {"total_mb", "free_mb"} <= set(fields):
                fields["used_mb"] = round(fields["total_mb"] - fields["free_mb"], 2)
            out.append(NumaMemory(where(name, start), node, **fields))
        return out
    pids = [k for k in table if isinstance(k, tuple)]
    for key in pids:
        for node, mb in sorted(table[key].items()):
            out.append(NumaMemory(where(name, first_line[key]), node, used_mb=mb, pid=key[0], process=key[1]))
    if pids or scope == "system":
        return out
    rows = [k for k in table if k in _PROCESS_ROWS]
    if not rows and "total" not in table:
        return out
    # one process: its Total row, or the sum of its rows where the paste lost that row
    per_node = table.get("total") or {n: round(sum(table[k].get(n, 0.0) for k in rows), 2)
                                       for n in sorted({n for k in rows for n in table[k]})}
    start = min(first_line.values())
    for node, mb in sorted(per_node.items()):
        out.append(NumaMemory(where(name, start), node, used_mb=mb, pid=int(pid) if pid else None,
                              process=command or ""))
    return out


def _numactl(lines: list[str], name: str) -> list[NumaMemory]:
    """`numactl -H`: each node's CPUs, size and free memory (MB)."""
    nodes: dict[int, dict] = {}
    first: dict[int, int] = {}
    for i, line in enumerate(lines):
        m = _NUMACTL.match(line)
        if not m:
            continue
        node, what, value = int(m.group(1)), m.group(2).lower(), m.group(3)
        first.setdefault(node, i + 1)
        if what == "cpus":
            nodes.setdefault(node, {})["cpus"] = re.sub(r"\s*\(\d+\)$", "", value)  # --cpu-compress "0-63 (64)"
            continue
        mb = re.match(r"(\d+(?:\.\d+)?)\s*MB", value, re.I)
        if mb:
            nodes.setdefault(node, {})["total_mb" if what == "size" else "free_mb"] = float(mb.group(1))
    out = []
    for node, fields in sorted(nodes.items()):
        if "total_mb" not in fields:
            continue
        if "free_mb" in fields:
            fields["used_mb"] = round(fields["total_mb"] - fields["free_mb"], 2)
        out.append(NumaMemory(where(name, first[node]), node, **fields))
    return out

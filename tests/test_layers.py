"""The layers point one way: commands -> report and analysis -> rules -> facts (parsers, probes,
capture). A test walks every import in the project (function-level ones too) and fails on a cycle
or on an arrow that points up."""

import ast
from pathlib import Path

from conftest import REPO

PACKAGES = ("diagnose", "probes", "rules")

# A module's layer: lower numbers may not import higher ones.
LAYERS = [
    ("facts", ("diagnose", "diagnose.errors", "diagnose.inputs", "diagnose.outputs", "diagnose.findings",
               "diagnose.evidence", "diagnose.formatting", "diagnose.lazy_re")),
    ("text parsers", ("diagnose.artifacts",)),
    ("readers", ("diagnose.capture", "probes")),
    ("rules", ("rules",)),
    ("analysis", ("diagnose.compare", "diagnose.fleet", "diagnose.store", "diagnose.published",
                  "diagnose.scaling_inputs", "diagnose.bundle", "diagnose.pipeline", "diagnose.capture_report",
                  "diagnose.tables")),
    ("report", ("diagnose.report",)),
    ("commands", ("diagnose.commands", "diagnose.cli", "diagnose.__main__")),
]

def modules() -> dict[str, Path]:
    found = {}
    for pkg in PACKAGES:
        for path in (REPO / pkg).rglob("*.py"):
            parts = list(path.relative_to(REPO).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def imports(name: str, path: Path, known: dict) -> set[str]:
    """The project modules `name` imports, anywhere in its body."""
    def resolve(dotted):
        while dotted and dotted not in known:
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    out = set()
    package = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Import):
            out |= {resolve(a.name) for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                base = ".".join(package[: len(package) - node.level + 1] + ([node.module] if node.module else []))
            out |= {resolve(f"{base}.{a.name}") if f"{base}.{a.name}" in known else resolve(base) for a in node.names}
    out.discard(None)
    out.discard(name)
    return out


def layer(name: str) -> int:
    best = None
    for rank, (_, prefixes) in enumerate(LAYERS):
        for prefix in prefixes:
            if name == prefix or (prefix != "diagnose" and name.startswith(prefix + ".")):
                if best is None or len(prefix) > best[1]:
                    best = (rank, len(prefix))
    assert best is not None, f"{name} belongs to no layer: add it to LAYERS"
    return best[0]


def graph() -> dict[str, set[str]]:
    known = modules()
    return {name: imports(name, path, known) for name, path in known.items()}


def test_no_arrow_points_up():
    up = [f"{a} ({LAYERS[layer(a)][0]}) imports {b} ({LAYERS[layer(b)][0]})"
          for a, deps in sorted(graph().items()) for b in sorted(deps)
          if layer(b) > layer(a)]
    assert not up, "\n".join(up)


def test_readers_do_not_import_each_other():
    """The capture reader and the probes each turn one kind of evidence into facts; both may reuse
    a text parser (a launch line, a kernel log), never each other."""
    def family(name):
        return "capture" if name.startswith("diagnose.capture") else "probes" if name.startswith("probes") else None

    bad = [f"{a} imports {b}" for a, deps in sorted(graph().items()) for b in sorted(deps)
           if family(a) and family(b) and family(a) != family(b)]
    assert not bad, "\n".join(bad)


def test_no_cycles():
    g = graph()
    index, low, stack, on, cycles = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in g[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in g:
        if v not in index:
            visit(v)
    assert not cycles, cycles


def test_the_walk_sees_imports_inside_functions():
    """The commands import their analysis lazily (fast --help): the walk must still see those arrows."""
    g = graph()
    assert "diagnose.capture_report" in g["diagnose.commands.capture"]
    assert "rules.engine" in g["diagnose.pipeline"]
    assert (layer("diagnose.report.terminal") > layer("rules.engine") > layer("probes.nvml")
            > layer("diagnose.artifacts.topo"))

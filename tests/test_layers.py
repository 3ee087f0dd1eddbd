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


# Rules judge facts and never read files: data a user may extend loads through rules/catalog.py (which checks it and
# names the file in an InputError). These calls and imports read or find files; a rule that needs one asks catalog.py.
FILE_CALLS = {"open", "read_text", "read_bytes", "load_toml", "load", "Path", "listdir", "scandir", "iterdir", "glob",
              "rglob"}
FILE_MODULES = {"pathlib", "tomllib", "tomli", "os", "io", "glob", "shutil", "pickle"}
FILE_NAMES = {"load_toml", "read_text", "tomllib", "open_text"}  # diagnose.inputs' file readers


def file_reads(source: str) -> list[str]:
    """Each call or import in `source` that reads or finds a file, as 'line: code'."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Call):
            func = node.func
            name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None
            if name in FILE_CALLS:
                found.append(f"{node.lineno}: {ast.unparse(node)[:80]}")
        elif isinstance(node, ast.Import) and any(a.name.split(".")[0] in FILE_MODULES for a in node.names):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
        elif isinstance(node, ast.ImportFrom) and ((node.module or "").split(".")[0] in FILE_MODULES or any(
                a.name in FILE_NAMES for a in node.names)):
            found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_rules_read_no_files_outside_the_catalog_loader():
    bad = [f"{name} line {hit}" for name, path in sorted(modules().items())
           if name.startswith("rules") and name != "rules.catalog" for hit in file_reads(path.read_text())]
    assert not bad, "\n".join(bad)


def test_the_file_read_check_sees_each_way_of_reading():
    """What the old rules/nccl.py did (open + tomllib.load), and the other ways, each caught; parsing text is not."""
    caught = file_reads('with open(CATALOG_DIR / name, "rb") as fh:\n    data = tomllib.load(fh)\n'
                        'x = Path("a").read_text()\nfrom diagnose.inputs import load_toml\nimport os\n')
    assert sorted(c.split(":")[0] for c in caught) == ["1", "2", "3", "3", "4", "5"]
    assert file_reads("import json\nconfig = json.loads(text)\nfrom diagnose.inputs import finite_number\n") == []

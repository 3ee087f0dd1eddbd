"""A module-level name bound twice silently replaces the first binding for every function that reads it at run time
(rules.claims once held two `_ALIKE`s, two `_SLOWER`s and two `_STATED_DIFFERENCE`s: the earlier readers ran the later
pattern). Each name is bound once, or extended from itself (`OUTPUT_FAMILIES = OUTPUT_FAMILIES + (...)`)."""
import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MODULES = sorted(p for d in ("rules", "diagnose", "benchmarks", "scripts") for p in (ROOT / d).rglob("*.py"))


def _rebound(path: Path) -> list[str]:
    seen: dict[str, int] = {}
    twice = []
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.Assign):
            names = [t.id for t in node.targets if isinstance(t, ast.Name)]
            extends = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name)}
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names, extends = [node.target.id], set()
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names, extends = [node.name], set()
        else:
            continue
        for name in names:
            if name in seen and name not in extends:
                twice.append(f"{name} (lines {seen[name]} and {node.lineno})")
            seen[name] = node.lineno
    return twice


def test_the_scan_finds_a_name_bound_twice(tmp_path):
    module = tmp_path / "m.py"
    module.write_text("A = 1\nB = (1,)\nB = B + (2,)\n\ndef f():\n    return A\n\nA = 2\n")
    assert _rebound(module) == ["A (lines 1 and 8)"]


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ROOT)))
def test_no_module_level_name_is_bound_twice(path):
    assert _rebound(path) == []

"""The GPU and model a ticket names are resolved once, by the rules engine, before the rules run
(rules.subject); the rules read `facts.subject` and never look the names up again."""

import ast

import pytest
from conftest import REPO, shared_path

from diagnose.bundle import read_bundle
from rules.engine import evaluate


@pytest.mark.parametrize("ticket, gpu, gpu_source, by_family, model, model_source, engine", [
    ("056-vllm-596-3x3090-llama2-13b-40-heads-tp3", "rtx-3090", "ticket.toml:3", False, "llama-2-13b",
     "ticket.toml:11", "vllm"),
    # "NVIDIA A100" fits four rows; NVLink seen in the bundle picks the SXM board, and the source says so
    ("006-nccl-949-a100-vm-internode-acs", "a100-80gb-sxm",
     "ticket.toml:3 (GPU family 'NVIDIA A100' read as a100-80gb-sxm)", True, None, None, None),
])
def test_the_engine_names_the_tickets_gpu_and_model_with_their_sources(ticket, gpu, gpu_source, by_family, model,
                                                                       model_source, engine):
    facts = read_bundle(shared_path("tickets", ticket))
    assert facts.subject is None
    evaluate(facts)
    named = facts.subject
    assert (named.gpu.key, named.gpu_source, named.gpu_by_family) == (gpu, gpu_source, by_family)
    assert (named.model.key if named.model else None, named.model_source) == (model, model_source)
    assert (named.engine.key if named.engine else None) == engine
    assert "subject" not in facts.to_dict()  # the report's facts stay what was read


def test_no_rule_resolves_a_name_again():
    """In the rules package only the engine resolves the subject; a rule that did would look the
    catalog up again, and could read another row than its neighbours."""
    callers = []
    for path in sorted((REPO / "rules").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "of"
                    and getattr(node.func.value, "id", None) == "Subject") and path.name != "engine.py":
                callers.append(f"{path.name}:{node.lineno}")
            if isinstance(node, ast.ImportFrom) and node.module == "rules.subject" and path.name != "engine.py":
                callers.append(f"{path.name}:{node.lineno} imports rules.subject")
    assert not callers, f"read facts.subject instead: {callers}"

"""load30 (issue 11): the load behind a measured throughput. A script that hands one offline generation call N
prompts (vLLM LLM.generate, SGLang Engine.generate: the engine batches them itself) states N requests in flight, and
a total rate under it is priced at that load (at most the sequences the KV cache holds), not at one stream's or at
'send more requests'. Real pastes: tests/data/load30/SOURCES.md, and QwenLM/Qwen3#244 in tests/data/extract30."""

from __future__ import annotations

import shutil
from pathlib import Path

from diagnose.artifacts import issue_md
from diagnose.bundle import read_bundle
from diagnose.evidence import Workload
from rules.engine import evaluate
from rules.stated_load import load_for, sent_at_once

DATA = Path(__file__).parent / "data"


def _sent(path: Path) -> list[dict]:
    facts = issue_md.parse(path.read_text(), path.name)
    return [f.extra for f in facts if isinstance(f, Workload) and f.extra.get("num_prompts")]


def test_one_call_with_a_list_repeated_over_lines():
    """sglang#4076: `prompts = [` "..." * 833 `] * 1000` then llm.async_generate(prompts, ...): 1000 prompts, not the
    833 that repeats a string inside one prompt."""
    (got,) = _sent(DATA / "load30" / "sglang4076.md")
    assert got["num_prompts"] == "1000"
    assert "async_generate(prompts" in got["prompts_in_call"]


def test_prompt_list_in_a_paste_cut_before_its_call():
    """Qwen3#244: `query_list = ["1" * 1000] * 100` beside LLM(...), the stored paste ending before generate: 100, not
    the 1000 characters of one prompt."""
    (got,) = _sent(DATA / "extract30" / "qwen244.md")
    assert got["num_prompts"] == "100"


def test_list_built_by_append_states_no_count():
    """Near-miss, sglang#1872: prompts appended from a file in a loop: its size is never written."""
    assert _sent(DATA / "load30" / "sglang1872.md") == []


def test_total_under_load_is_priced_at_the_load_the_cache_holds(tmp_path):
    """Qwen3#244: 1000 tok/s from 100 prompts of 1000+1000 tokens on one A100-80GB. Before, it was 'a small batch's
    throughput; send more requests' (priced at batch 64, full load). Now the figure is priced at the 100 requests
    sent at once, at most the sequences the KV cache holds, and the finding says the load exceeds the cache."""
    shutil.copy(DATA / "extract30" / "qwen244.md", tmp_path / "issue.md")
    facts = read_bundle(tmp_path)
    assert sent_at_once(facts, least=2)[0] == 100
    load = load_for(facts, None, sent=True)
    assert (load.n, load.kind) == (100, "concurrency")
    found = [f for f in evaluate(facts) if f.rule == "ticket.batched_rate"]
    assert found and found[0].category != "latency_bound_small_batch"
    details = " ".join(e.detail for e in found[0].evidence)
    assert "KV cache" in details and "of the 100 requests" in details

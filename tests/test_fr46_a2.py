"""The 46th session's final read, fixer a2: misfires of the known46b pass, each taken back narrowly.

A split-mode sweep is a list without spaces (issue_md.SPLIT_SWEEP); "could" alone is past ability and "would need to"
a need for more, neither a supposed figure (issue_md.HOPED_FIGURE); a label pairing compute and memory shares, or memory
set aside, hides no busy share (claims._MEMORY_BEFORE_FIGURE); a decimal comma is not read after "=" or ":"
(issue_md.DECIMAL_COMMA_RATE); two table cells with the same words each keep their own column (issue_md._rates).
The near-misses are the pass's intended readings (tests/test_known46b.py holds the rest).
"""
import pytest
from conftest import issue_bundle

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement, Workload
from rules import claims


def _rates(text: str) -> list[Measurement]:
    return [f for f in issue_md.parse(text, "issue.md")
            if isinstance(f, Measurement) and f.metric.endswith("tok_s")]


def _workloads(text: str) -> list[Workload]:
    return [f for f in issue_md.parse(text, "issue.md") if isinstance(f, Workload)]


def _busy(text: str) -> list[float]:
    return [c.data["percent"] for c in claims.claims(issue_bundle(text)) if c.kind == "gpu_util" and not c.negated]


# 3. A comma in prose after a split mode is no llama-bench sweep.

def test_split_mode_then_prose_comma_is_one_mode():
    # probe
    text = ("Two RTX 3090 cards, llama.cpp b5000, Llama-3-70B Q4_K_M.\n\nI run llama-server with -sm row, layer was "
            "slower in my earlier tests. Generation is 9 tokens/s.")
    assert any(w.extra.get("split_mode") == "row" for w in _workloads(text))


@pytest.mark.parametrize("flag", ["-sm none,layer,row", "-sm layer,row", "--split-mode row,layer"])
def test_split_sweep_list_still_no_layout(flag):
    # near-misses: llama-bench's own lists (tests/test_known46b.py)
    text = f"Two RTX 3090. I ran `llama-bench -m llama-70b-q4.gguf -ngl 99 {flag}` and generation is slow, 15 t/s."
    assert not any(w.extra.get("split_mode") for w in _workloads(text))


# 4 and 5. Past ability and a need for more are no supposed figure.

@pytest.mark.parametrize("text, value", [
    # probe (4): "could" as past ability
    ("Llama-3.1-8B on one RTX 4090, single request.\n\nOn vLLM 0.6.3 about 60 tok/s could be reached easily. After "
     "upgrading to vLLM 0.8.5 we only get 30 tok/s.", 60.0),
    # probe (5): the rate run, the need for more
    ("Llama-3.1-8B on one RTX 4090 with vLLM 0.8.5, a single request.\n\nThe current 20 tok/s decode rate would need "
     "to triple before we can ship this.", 20.0),
    ("Llama-3.1-8B on one RTX 4090 with vLLM 0.8.5. Our 20 tok/s would require a second card to double.", 20.0),
])
def test_past_ability_and_need_keep_the_measured_figure(text, value):
    assert value in [m.value for m in _rates(text)]


@pytest.mark.parametrize("sentence", [
    # near-misses (tests/test_known46b.py): supposed figures, perfect or passive
    "6.55T/s would have been achieved if P2P worked",
    "6.55 tokens per second could have been reached",
    "roughly 25,000 tokens/s would be needed to saturate a single PCIe 1.0 lane",
    "so 40 t/s would have required the whole kernel inside 84 us, below the memory-only floor",
    "even 5.0 Mbit/s would be possible",
])
def test_supposed_figures_still_hoped(sentence):
    assert issue_md.HOPED_FIGURE.search(sentence)


# 6. A label pairing compute and memory, or memory set aside, hides no busy share.

@pytest.mark.parametrize("line", [
    # probes
    "GPU Usage (Compute/Memory): 30% / 92% on both cards.",
    "nvidia-smi shows GPU utilization on both cards (not memory): 30% at most.",
    "GPU utilization, excluding memory 30% on both cards.",
])
def test_compute_share_after_memory_label_is_busy(line):
    assert 30.0 in _busy(f"vLLM TP 2 on two RTX 3090, decode is slow.\n{line}\n")


@pytest.mark.parametrize("line", [
    # near-misses (tests/test_known46b.py): the memory share itself
    "GPU usage: dedicated GPU memory ~80-90%",
    "GPU Usage: Memory 45.0% (threshold: 10%), Compute 12.0%",
    "GPU usage: VRAM 85%",
])
def test_memory_share_still_not_busy(line):
    assert not [p for p in _busy(f"vLLM TP 2 on two RTX 3090, decode is slow.\n{line}\n") if p >= 45]


# 7. A value list after "=" or ":" is no decimal comma.

def test_enumerating_comma_after_key_is_no_decimal():
    # probe
    text = ("Llama-3.1-70B on 4x A100 80GB with vLLM 0.8.5, a single request.\n\nDecode results (tp,rate): tp=2,18 "
            "tok/s and tp=4,25 tok/s. Scaling from 2 to 4 GPUs is poor.")
    values = [m.value for m in _rates(text)]
    assert 2.18 not in values and 4.25 not in values
    assert "tp=2,18" in issue_md.DECIMAL_COMMA_RATE.sub(r"\1.\2", text)


@pytest.mark.parametrize("text, value", [
    # near-misses: the pass's decimal commas, after a key with its space among them
    ("Two RTX 3090 with vLLM, tensor parallel 2. Generation only reaches 22,9 tokens/second on Llama 3 8B.", 22.9),
    ("Deux RTX 3090 avec vLLM. Pensée autour de la contrainte réelle du poste : ~5,8 tok/s en génération.", 5.8),
])
def test_decimal_comma_still_read(text, value):
    assert value in [m.value for m in _rates(text)]


def test_decimal_comma_llama_cli_line_still_read():
    line = "[ Prompt: 159,6 t/s | Generation: 51,5 t/s ]"
    assert issue_md.DECIMAL_COMMA_RATE.sub(r"\1.\2", line) == "[ Prompt: 159.6 t/s | Generation: 51.5 t/s ]"


# (issue_md._rates) Two cells with the same words: each figure under its own column.

def test_same_cells_keep_their_own_columns():
    # probe
    text = ("## Environment\n\nLlama-3.1-8B on 2x RTX 4090 (PCIe) with vLLM 0.8.5.\n\n## Results\n\nTP=2 gives no "
            "speedup at all for a single request:\n\n| run | TP=1 | TP=2 |\n|---|---|---|\n"
            "| cold | 40 tok/s, p90: 38 tok/s | 40 tok/s, p90: 38 tok/s |\n")
    pairs = {(m.value, m.tp) for m in _rates(text)}
    assert {(40.0, 1), (38.0, 1), (40.0, 2), (38.0, 2)} <= pairs


def test_table_columns_distinct_cells_unchanged():
    # near-miss (tests/test_known46b.py): distinct cells
    text = ("# TP=2 vs TP=1 on two RTX 3090\n\nI serve Llama 3 8B with vLLM on two RTX 3090 cards. Measured "
            "throughput agrees:\n\n| concurrency | TP=1 | TP=2 |\n|---|---|---|\n| 1 | 55.4 tok/s | 67.8 tok/s |\n")
    by_value = {m.value: m.tp for m in _rates(text)}
    assert by_value.get(55.4) == 1 and by_value.get(67.8) == 2

"""count34 (issue 11): GPU count, TP size and batch as people write them. The readers (diagnose.artifacts.issue_md,
launch) take llama.cpp's --tensor-split / -ts as a GPU count and its row / tensor split as TP over those GPUs, a count
glued to a board with a capital X ("2X3090"), a load said as "100 concurrency" / "concurrency = 10" / --concurrency,
and llama-server's --parallel said in prose (a cap, rules.stated_load); SGLang's *-max-bs limits are no batch.
Checked on real first posts of the studied sets (tests/data/extract32, 31), on paraphrases, and on near-misses that
must stay unread. tests/data/extract34 is the held-out check set: only its form is tested here (its score is in its
SOURCES.md)."""

from __future__ import annotations

from pathlib import Path

import pytest
from conftest import read_paste, report_json
from extract_set_checks import check_set

from diagnose.bundle import read_bundle
from diagnose.evidence import Workload
from rules.common import gpu_count
from rules.stated_load import load_for

DATA = Path(__file__).resolve().parent / "data"


def _tp(facts) -> int | None:
    return next((w.tp for w in facts.of(Workload) if w.tp), None)


def _load(facts) -> int | None:
    w = facts.workload()
    return w.batch or w.concurrency


def test_the_check_set_is_well_formed(capsys):
    """extract34: each annotation parses, pastes and annotations are the same set, keys name catalog rows."""
    check_set("tests/data/extract34", capsys)


# --- real first posts (studied material) ---

@pytest.mark.parametrize("paste, gpus, tp", [
    ("extract32/qwen38mtp78.md", 2, 2),  # "`--split-mode tensor --tensor-split 1,1`"
    ("extract32/qwen38mtp37.md", 2, 2),  # "tensor-parallel (`-sm tensor`, `--tensor-split 11,9`)"
    ("extract32/qwen38mtp32.md", 2, 2),  # "2× RTX 5060 Ti", "`--split-mode tensor`"
    ("extract31/lmstudio2271.md", 2, 2),  # "dual GPU, split mode tensor"
])
def test_a_llamacpp_tensor_split_over_counted_gpus_is_their_tp(paste, gpus, tp):
    facts = read_bundle([DATA / paste])
    assert (gpu_count(facts), _tp(facts)) == (gpus, tp)


@pytest.mark.parametrize("paste", ["extract32/qwen38mtp78.md", "extract32/qwen38mtp37.md", "extract32/qwen38mtp32.md"])
def test_one_slot_said_in_prose_is_the_engines_cap(paste):
    """"Both arms `--parallel 1`": llama-server's slots read from the prose as from a launch line, a cap of one
    sequence (the batch at full load that capture and scaling read; a figure's own load stays unstated)."""
    facts = read_bundle([DATA / paste])
    assert load_for(facts) is None
    full = load_for(facts, full_load=True)
    assert (full.n, full.cap[2]) == (1, "--parallel")


def test_a_capital_x_count_in_a_title_counts_the_boards():
    """"[bench] PHB&nvlink 2X3090 pcie3*16" (noonghunna/club-3090#488)."""
    assert gpu_count(read_bundle([DATA / "extract32/club3090_488.md"])) == 2


def test_a_count_before_concurrency_is_the_load_and_a_graph_limit_is_no_batch():
    """sglang-project#7726: "The throughput of 100 concurrency", launched with `--torch-compile-max-bs 32` (the largest
    batch SGLang compiles, not the batch the figures ran at)."""
    w = read_bundle([DATA / "extract31/sglang7726.md"]).workload()
    assert (w.batch, w.concurrency) == (None, 100)


def test_a_concurrency_key_with_its_value_is_the_load():
    """xorbitsai/inference#1976: "`num-prompt` = 100，`concurrency` = 10，`request-rate` = 10"."""
    assert read_bundle([DATA / "extract32/xinference1976.md"]).workload().concurrency == 10


# --- paraphrases ---

@pytest.mark.parametrize("text, gpus, tp", [
    ("Running llama-server -m q.gguf -ngl 99 -sm row -ts 1,1 on my box, 20 t/s.", 2, 2),
    ("With `--split-mode row --tensor-split 3,2` generation is 14 tokens/s.", 2, 2),
    ("llama.cpp on three cards, `-sm tensor -ts 1/1/1`, only 9 t/s", 3, 3),
    ("```\n./llama-server -m m.gguf -ngl 99 -sm row -ts 1,1,1,1\n```\nspeed is 30 t/s", 4, 4),
    ("I have 4X RTX 4090 and get 30 tok/s", 4, None),
])
def test_split_and_count_paraphrases(tmp_path, text, gpus, tp):
    facts = read_paste(tmp_path, "# slow generation\n\n" + text + "\n")
    assert (gpu_count(facts), _tp(facts)) == (gpus, tp)


@pytest.mark.parametrize("text, load", [
    ("We benchmarked at 64 concurrency and got 900 tok/s.", 64),
    ("bench settings: `concurrency` = 16, 800 output tok/s", 16),
    ("concurrency of 8 gives 300 tok/s", 8),
    ("genai-perf profile -m llama --concurrency 32 gives 700 tok/s", 32),
])
def test_load_paraphrases(tmp_path, text, load):
    facts = read_paste(tmp_path, f"# vLLM throughput on one H100\n\n{text}\n\nIs this expected on this machine?\n")
    assert _load(facts) == load


# --- near-misses that must stay unread ---

@pytest.mark.parametrize("text", [
    "llama-server -m m.gguf -ngl 99 on an RTX 3090, 20 t/s",  # layers offloaded, not GPUs
    "Mixtral 8x7B runs at 20 t/s on an RTX 3090",  # a model's name
    "register 0X1F reads back wrong, 20 t/s on an RTX 3090",  # hex
    "`--tensor-split 1,0` keeps it on the first GPU, 20 t/s on an RTX 3090",  # one GPU used
])
def test_no_count_from_layers_names_hex_or_a_one_gpu_split(tmp_path, text):
    assert gpu_count(read_paste(tmp_path, "# speed\n\n" + text + "\n")) in (None, 1)


@pytest.mark.parametrize("text", [
    "On 2 GPUs with -ts 1,1 and -sm layer I get 20 t/s; -sm row was slower",  # the layer split ran
    "On 2 GPUs with -ts 1,1 and without -sm row I get 20 t/s",  # the row split denied
])
def test_a_row_split_not_run_sets_no_tp(tmp_path, text):
    facts = read_paste(tmp_path, f"# llama.cpp speed on two RTX 3090\n\n{text}.\n\nIs this expected?\n")
    assert gpu_count(facts) == 2 and _tp(facts) is None


@pytest.mark.parametrize("text", [
    "SGLang with --cuda-graph-max-bs 16 gives 40 tok/s on an H100",  # a capture limit
    "vLLM logs: Maximum concurrency for 4096 tokens per request: 5.2x. 40 tok/s on an H100",  # a KV-cache capacity
    "I built with `cmake --build build --config Release --parallel 8`, 40 tok/s on an RTX 4090",  # build jobs
])
def test_limits_capacities_and_build_jobs_are_no_load(tmp_path, text):
    facts = read_paste(tmp_path, "# speed\n\n" + text + "\n")
    assert _load(facts) is None
    assert not any(w.extra.get("parallel") for w in facts.of(Workload))


def test_several_slots_are_a_cap_not_a_load(tmp_path):
    """"--parallel 4" says llama-server decodes up to four: a cap, not the load a figure ran at."""
    facts = read_paste(tmp_path, "# speed\n\nllama-server with `--parallel 4` gives 40 tok/s on an RTX 4090\n")
    assert load_for(facts) is None
    assert load_for(facts, full_load=True).n == 4


# --- a llama.cpp split read as TP does not bring the heads rules with it ---

def _categories(path: Path) -> tuple[str, set[str]]:
    report = report_json("ticket", str(path))
    return report["verdict"]["category"], {f.get("category") for f in report["findings"]}


def test_a_row_split_on_three_gpus_is_no_heads_verdict():
    """ollama/ollama#5458: "3xP40 ... row-split ... ~3t/s to ~10t/s" with `-sm row`: TP 3 over three GPUs, which
    llama.cpp runs (it apportions rows by --tensor-split, with no heads check), so no TP=3 heads verdict."""
    facts = read_bundle([DATA / "ut13/ollama5458.md"])
    assert (gpu_count(facts), _tp(facts)) == (3, 3)
    verdict, categories = _categories(DATA / "ut13/ollama5458.md")
    assert verdict != "tp_not_dividing_heads" and "tp_not_dividing_heads" not in categories


@pytest.mark.parametrize("launch, fires", [
    ("llama-server -m llama-2-70b.Q4_K_M.gguf -ngl 99 -sm row -ts 1,1,1", False),
    ("vllm serve meta-llama/Llama-2-70b-hf --tensor-parallel-size 3", True),
])
def test_the_heads_rule_keeps_to_engines_that_split_heads(tmp_path, launch, fires):
    """Llama-2-70B (64 heads) over three GPUs: llama.cpp's row split runs it, vLLM refuses TP 3."""
    path = tmp_path / "ticket.md"
    path.write_text(f"# Llama-2-70B on three RTX 3090\n\nI start it with\n\n```\n{launch}\n```\n\n"
                    "and it fails to give the speed I expect. What is wrong?\n")
    _, categories = _categories(path)
    assert ("tp_not_dividing_heads" in categories) is fires


@pytest.mark.xfail(strict=True, reason="the concurrency 4 the paste states is read now (it was not), and the engine is "
                   "LMDeploy since review34 (not the 'compared to vllm' of its title), but 93 tok/s at 4 requests is "
                   "still judged a weak 'other' below the healthy band. The thread's answer is a small-load benchmark "
                   "(InternLM/lmdeploy#1449)")
def test_a_small_stated_concurrency_is_the_answer_of_lmdeploy1449():
    verdict, _ = _categories(DATA / "ut27b/lmdeploy1449.md")
    assert verdict == "latency_bound_small_batch"

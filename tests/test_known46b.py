"""(known46b) Known wrong readings of launch lines and figures, each proved with a probe and then fixed in its
mechanism: a command named in prose runs to its sentence's end (launch.command_end); a llama-bench sweep of split
modes states no one layout (issue_md.SPLIT_SWEEP); a token rate with a decimal comma (issue_md.DECIMAL_COMMA_RATE);
a figure supposed with "would have been achieved" (issue_md.HOPED_FIGURE); a memory share after "GPU usage"
(claims._MEMORY_BEFORE_FIGURE); a results table whose column headers name the TP (issue_md._rates). Real sentences
say where they come from (a GitHub thread, or the find_string id of a public text); probes are labelled probes and
come with the near-misses that must keep today's reading. tests/data/known46b/SOURCES.md lists them."""

import pytest
from conftest import issue_bundle

from diagnose.artifacts import issue_md, launch
from diagnose.evidence import Measurement, Workload
from rules import claims


def _launch(text: str) -> list[Workload]:
    return [f for f in launch.parse(text, "issue.md") if isinstance(f, Workload)]


def _workloads(text: str) -> list[Workload]:
    return [f for f in issue_md.parse(text, "issue.md") if isinstance(f, Workload)]


def _rates(text: str) -> list[Measurement]:
    return [f for f in issue_md.parse(text, "issue.md")
            if isinstance(f, Measurement) and f.metric.endswith("tok_s")]


def _busy(text: str) -> list[float]:
    return [c.data["percent"] for c in claims.claims(issue_bundle(text)) if c.kind == "gpu_util" and not c.negated]


# 1. A command named in prose ends where its sentence ends.

@pytest.mark.parametrize("text", [
    # probe: the brief's own sentence, the next one a question with a flag
    "I run llama-server on both. Would `--split-mode none` be faster?",
    # probe: advice in the next sentence
    "I start llama-server -m model.gguf -ngl 99 on both cards. You could try -sm none instead.",
])
def test_later_sentence_flag_is_not_the_launch(text):
    assert not any(w.extra.get("split_mode") or w.tp for w in _launch(text))


def test_later_question_flag_real():
    # vllm-project/vllm#5613 (tests/data/other25): the question after the command names a flag it does not run with
    text = ("I have to add `--enforce-eager` or `--disable-custom-all-reduce` to the command `vllm serve ./deepseek-v3 "
            "--tensor-parallel-size 8 --pipeline-parallel-size 2 --trust-remote-code`. But what is the root cause? "
            "Does `--disable-custom-all-reduce` have bad performance on it? THX.")
    [w] = [w for w in _launch(text) if w.framework == "vLLM"]
    assert (w.tp, w.pp) == (8, 2)
    assert "disable-custom-all-reduce" not in w.extra and not w.eager


@pytest.mark.parametrize("text, tp, split", [
    # probes: one-line prose launches keep their flags
    ("I launch with `vllm serve X --tensor-parallel-size 2`", 2, None),
    ("I launch with `vllm serve X --tensor-parallel-size 2`. It is slow.", 2, None),
    ("ran llama-server -m x.gguf -ngl 99 -ts 1,1 -sm row", 2, "row"),
    # an elision inside the command is no sentence end (tests/data/ut22b: gpustack#2310's `vllm serve ...
    # --tensor-parallel-size 3`)
    ("auto-scheduled on 3 of 4 RTX 3090s, `vllm serve ... --tensor-parallel-size 3`; fixed by gpustack#2310", 3, None),
])
def test_prose_launch_keeps_its_own_flags(text, tp, split):
    ws = _launch(text)
    assert any(w.tp == tp for w in ws)
    assert any(w.extra.get("split_mode") == split for w in ws) or split is None


def test_later_sentence_command_is_its_own():
    # tests/data/para38 (a TensorRT-LLM T5 thread): the second sentence's mpirun is a command of its own, not flags of
    # the convert_checkpoint.py one
    text = ("At python convert_checkpoint.py step I set tp_size=4,pp_size=1 and tensorrt model is made successfully. "
            "But then I run command mpirun --allow-run-as-root -np 4 python3 run.py , and this error come out:")
    assert text[:launch.command_end(text, text.index("python"))].endswith("made successfully.")
    assert launch.COMMAND.search(text, text.index("But")).group("cmd") == "mpirun"


# 2. llama-bench sweeping split modes states no one layout.

@pytest.mark.parametrize("flag", [
    # real forms: "-sm none,layer,row" (find_string ids 52325272125, 51777843449), "-sm none,layer" (id 53164192311),
    # "-sm layer,row" (id 55349273043)
    "-sm none,layer,row", "-sm none,layer", "-sm layer,row", "-sm row,layer",
    # probe: the flag repeated, which llama-bench takes as two values (tools/llama-bench/README.md)
    "-sm none -sm row",
])
def test_llama_bench_split_sweep_is_no_layout(flag):
    text = f"Two RTX 3090. I ran `llama-bench -m llama-70b-q4.gguf -ngl 99 {flag}` and generation is slow, 15 t/s."
    ws = _workloads(text)
    assert not any(w.extra.get("split_mode") for w in ws), flag
    assert not any(w.extra.get("job_gpus") == 1 for w in ws), flag


@pytest.mark.parametrize("flag, mode", [
    # near-misses (probes): one mode given is the run's layout
    ("-sm row", "row"), ("-sm layer", "layer"),
])
def test_llama_bench_one_split_mode_is_read(flag, mode):
    text = f"Two RTX 3090. I ran `llama-bench -m llama-70b-q4.gguf -ngl 99 {flag}` and generation is slow, 15 t/s."
    assert any(w.extra.get("split_mode") == mode for w in _workloads(text))


def test_llama_bench_sweep_real_table_is_no_layout():
    # find_string id 53164192311 (a blog post's llama-bench run: its table's sm column none, then layer)
    text = ("After compiling llama.cpp, the first thing I did was run llama-bench. Here are my results:\n\n```\n"
            "./llama-bench -m ../models/Qwen3-Embedding-8B-Q6_K.gguf -embd 1 -p 512 -sm none,layer\n"
            "| model | size | params | backend | ngl | sm | embd | test | t/s |\n"
            "| qwen3 8B Q6_K | 5.78 GiB | 7.57 B | CUDA | 99 | none | 1 | tg128 | 35.36 ± 0.07 |\n"
            "| qwen3 8B Q6_K | 5.78 GiB | 7.57 B | CUDA | 99 | layer | 1 | tg128 | 11.65 ± 10.84 |\n```\n")
    assert not any(w.extra.get("split_mode") or w.extra.get("job_gpus") == 1 for w in _workloads(text))


# 3a. A token rate with a decimal comma.

@pytest.mark.parametrize("text, value", [
    # probe: the brief's figure
    ("Two RTX 3090 with vLLM, tensor parallel 2. Generation only reaches 22,9 tokens/second on Llama 3 8B.", 22.9),
    # real sentences: "velocidades de decodificación medidas de 23,8 tok/s en prosa" (find_string id 70977925308);
    # "Pensée autour de la contrainte réelle du poste : ~5,8 tok/s en génération" (id 65773929963)
    ("Con vLLM en dos RTX 3090: velocidades de decodificación medidas de 23,8 tok/s en prosa.", 23.8),
    ("Deux RTX 3090 avec vLLM. Pensée autour de la contrainte réelle du poste : ~5,8 tok/s en génération.", 5.8),
])
def test_decimal_comma_rate(text, value):
    assert value in [m.value for m in _rates(text)]


@pytest.mark.parametrize("text, absent", [
    # near-misses (probes): a thousands group, and a space-grouped figure left unread rather than misread
    ("Two RTX 3090 with vLLM, tensor parallel 2: the server reaches 1,500 tok/s over 64 users.", 1.5),
    ("Two RTX 3090 with vLLM, tensor parallel 2: N=32 aggregate 1 416,5 t/s.", 416.5),
])
def test_decimal_comma_near_misses(text, absent):
    assert absent not in [m.value for m in _rates(text)]


def test_decimal_comma_real_llama_cli_line():
    # find_string id 67140029482: llama-cli's own rate line under a comma locale
    line = "[ Prompt: 159,6 t/s | Generation: 51,5 t/s ]"
    assert issue_md.DECIMAL_COMMA_RATE.sub(r"\1.\2", line) == "[ Prompt: 159.6 t/s | Generation: 51.5 t/s ]"


# 3b. A request rate is no token rate (today's reading, kept).

def test_request_rate_is_no_token_rate():
    # probe
    text = "Two RTX 3090 with vLLM, tensor parallel 2. The server handles only 0.2 requests/s on Llama 3 8B."
    assert 0.2 not in [m.value for m in _rates(text)]


# 3c. A figure supposed, not measured.

@pytest.mark.parametrize("text", [
    # probe: the brief's sentence
    "Two RTX 3090 with vLLM, tensor parallel 2 on Llama 3 8B. 6.55T/s would have been achieved if P2P worked.",
    # probe: could-have
    "Two RTX 3090 with vLLM, tensor parallel 2 on Llama 3 8B. 6.55 tokens per second could have been reached.",
])
def test_counterfactual_figure_is_not_measured(text):
    assert 6.55 not in [m.value for m in _rates(text)]


@pytest.mark.parametrize("sentence", [
    # real: "roughly 25,000 tokens/s would be needed to saturate a single PCIe 1.0 lane" (find_string id 59191184141),
    # "40 t/s would have required the whole kernel inside 84 us" (id 71586547990)
    "roughly 25,000 tokens/s would be needed to saturate a single PCIe 1.0 lane",
    "so 40 t/s would have required the whole kernel inside 84 us, below the memory-only floor",
])
def test_counterfactual_real_forms(sentence):
    assert issue_md.HOPED_FIGURE.search(sentence)


@pytest.mark.parametrize("text, value", [
    # real near-misses: a figure run and weighed after it (find_string ids 71600216942, 55889521132)
    ("Two RTX 3090 with vLLM on Llama 3 8B. Without a reference to compare against, 3.4 tok/s would have looked like "
     "the hardware limit.", 3.4),
    # probe near-miss: a relative clause of its own after the figure
    ("Two RTX 3090 with vLLM, tensor parallel 2 on Llama 3 8B. I get 5 tok/s, which would need to be 10x faster.", 5.0),
])
def test_measured_figure_before_would_is_kept(text, value):
    assert value in [m.value for m in _rates(text)]


# 3d. A memory share after "GPU usage" is no busy share.

@pytest.mark.parametrize("line", [
    # probe: the brief's line (Task Manager's "Dedicated GPU memory")
    "GPU usage: dedicated GPU memory ~80-90%",
    # real: "GPU Usage: Memory 45.0% (threshold: 10%), Compute 12.0%" (find_string id 10837830219)
    "GPU Usage: Memory 45.0% (threshold: 10%), Compute 12.0%",
    # probe
    "GPU usage: VRAM 85%",
])
def test_memory_share_is_not_busy(line):
    assert not [p for p in _busy(f"vLLM TP 2 on two RTX 3090, decode is slow.\n{line}\n") if p >= 45]


@pytest.mark.parametrize("line, pct", [
    # near-misses (probes): the busy share itself, memory named after it or elsewhere
    ("GPU usage: 85%", 85.0),
    ("GPU usage is 85% and memory 90%", 85.0),
    ("GPU memory usage 90%, GPU usage 40%", 40.0),
])
def test_busy_share_kept(line, pct):
    assert pct in _busy(f"vLLM TP 2 on two RTX 3090, decode is slow.\n{line}\n")


# 3e. A results table whose column headers name the TP.

def test_table_columns_name_the_tp():
    # the form of "| concurrency | TP=1 | TP=2 |" over "| 1 | 55.4 tok/s | 67.8 tok/s |" (find_string id 68486858239)
    text = ("# TP=2 vs TP=1 on two RTX 3090\n\nI serve Llama 3 8B with vLLM on two RTX 3090 cards. Measured "
            "throughput agrees:\n\n| concurrency | TP=1 | TP=2 |\n|---|---|---|\n| 1 | 55.4 tok/s | 67.8 tok/s |\n")
    by_value = {m.value: m.tp for m in _rates(text)}
    assert by_value.get(55.4) == 1 and by_value.get(67.8) == 2


def test_table_column_without_tp_stays_unsaid():
    # near-miss (probe): a column that names no layout gives none
    text = ("# slow decode on two RTX 3090\n\nI serve Llama 3 8B with vLLM on two RTX 3090 cards.\n\n"
            "| concurrency | vLLM | SGLang |\n|---|---|---|\n| 1 | 55.4 tok/s | 67.8 tok/s |\n")
    assert all(m.tp is None for m in _rates(text) if m.value in (55.4, 67.8))

"""Session s47, pass known47b: wrong readings of launch lines and figures left by the s46 final read, each proved by a
probe first, then mended in the general mechanism.

1. launch._model_tag: the positional after `vllm serve` is its model tag (an HF name or a path, vLLM's CLI
   reference), never a bare word or count of the sentence ("I start vllm serve on 4 GPUs" served "on").
2. launch.FLAG_GROUP / _flag_group: a parenthesised flag group inside a prose command's own sentence is the
   command's ("... meta-llama/Llama-3.1-70B-Instruct (--tensor-parallel-size 4)." ran at the default TP 1).
3. issue_md._as_written: a figure read with its decimal comma ("22,9 tokens/second" read as 22.9) is quoted back in
   the reporter's characters (Measurement.said); its value stays 22.9. (fr47b2: the put-back into the evidence after
   the verdict was taken out, tests/test_fr47_b2.py.)
4. Tidy: LINE_COMMAND read once per command (parse), launch._asked by text.next_sentence.

Real sentences carry their source; probes (this pass's own sentences) are labelled probes. Sources:
tests/data/known47b/SOURCES.md."""

import pytest

from diagnose.artifacts import issue_md, launch
from diagnose.evidence import Measurement, Workload
from tests.conftest import report_json


def _launch(text: str) -> list[Workload]:
    return [f for f in launch.parse(text, "issue.md") if isinstance(f, Workload) and f.framework]


# ------------------------------------------------------------------ 1. a bare word after `vllm serve` is no model

@pytest.mark.parametrize("text, tp", [
    ("I start vllm serve on 4 GPUs with --tensor-parallel-size 4.", 4),  # probe (the brief's)
    ("I start vllm serve with --tensor-parallel-size 2 and it hangs.", 2),  # probe
    ("We run vllm serve using the default settings.", 1),  # probe
    ("Then I launch vllm serve for 4 users with --tp 4.", 4),  # probe: 'for', then a count
    ("After that vllm serve 4 times in a row failed.", 1),  # probe: a bare count
    # vllm-project/vllm#6636's title
    ("[Bug]: vllm serve hang at `Using model weights format ['*.safetensors']` when using tp", 1),
    # vllm-project/vllm#44878's title (tests/data/review44)
    ("[Bug]: vllm serve hangs permanently with data_parallel_size > 1 on multi-node Ray cluster (MoE model, "
     "--enable-expert-parallel)", 1),
])
def test_a_word_or_count_after_serve_is_no_model(text, tp):
    found = _launch(text)
    assert found and all(w.model is None for w in found), found
    assert found[0].tp == tp


@pytest.mark.parametrize("text, model, tp", [
    # vllm-project/vllm#13814
    ("CUDA_VISIBLE_DEVICES=2,3 vllm serve ./deepseek-r1-14b --max_model_len 8192 --tensor-parallel-size 2",
     "./deepseek-r1-14b", 2),
    # vllm-project/vllm#14449's title
    ("[Bug]: `vllm serve Qwen/QwQ-32B-AWQ --tensor-parallel-size 2` hangs with both RTX A6000 GPUs at max "
     "utilization", "Qwen/QwQ-32B-AWQ", 2),
    # near-misses (probes): a root-level Hub name, the current directory, a checkpoint directory by its size
    ("vllm serve gpt2 --tensor-parallel-size 2", "gpt2", 2),
    ("vllm serve . --tensor-parallel-size 4", ".", 4),
    ("I run vllm serve Qwen3-32B --tp 2.", "Qwen3-32B", 2),
    ("I serve it with vllm serve llama70B_awq_int4 --tensor-parallel-size 2", "llama70B_awq_int4", 2),
    ("aphrodite run /models/Llama-3-70B -tp 4", "/models/Llama-3-70B", None),
])
def test_a_model_tag_is_kept(text, model, tp):
    found = _launch(text)
    assert found[0].model == model
    if tp is not None:
        assert found[0].tp == tp


# ------------------------------------------------------- 2. a flag group in parentheses in the command's sentence

@pytest.mark.parametrize("text, tp, eager", [
    # probes (the brief's)
    ("I launch vllm serve meta-llama/Llama-3.1-70B-Instruct (--tensor-parallel-size 4).", 4, False),
    # probes: several flags in one group, a flag's value written with "=", the group before more words
    ("I launch vllm serve meta-llama/Llama-3.1-70B-Instruct (--tp 2 --enforce-eager) on two A100s.", 2, True),
    ("We start vllm serve Qwen/Qwen2.5-72B-Instruct (--tensor-parallel-size=4) and it is slow.", 4, False),
])
def test_a_flag_group_of_the_commands_sentence_is_read(text, tp, eager):
    w = _launch(text)[0]
    assert (w.tp, w.eager) == (tp, eager)


@pytest.mark.parametrize("text, tp", [
    # probes: a later sentence's group, asked, advised, weighed against the launch, or saying more than flags
    ("I launch vllm serve meta-llama/Llama-3.1-70B-Instruct. Should I try (--tp 2)?", 1),
    ("I launch vllm serve meta-llama/Llama-3.1-70B-Instruct. You could try it (--tp 2).", 1),
    ("I launch vllm serve meta-llama/Llama-3.1-70B-Instruct. It was faster before (--tp 2).", 1),
    ("I launch vllm serve meta-llama/Llama-3.1-70B-Instruct (--tp 2 was faster).", 1),
    # (fr47b2) a group after the prose's words is not taken as the command's (it was read TP 2 in known47b; as on
    # a40c2d75 it is not: the words before it may set it apart, "but the old launch (--tp 4)", tests/test_fr47_b2.py)
    ("I launch vllm serve meta-llama/Llama-3.1-70B-Instruct with TP (--tp 2).", 1),
    # a pasted line keeps every character: the shell would not run it, and no group is unwrapped
    ("vllm serve meta-llama/Llama-3.1-70B-Instruct (--tp 2)", 1),
])
def test_a_group_outside_the_commands_own_words_is_not_read(text, tp):
    assert _launch(text)[0].tp == tp


@pytest.mark.parametrize("text", [
    "I launch vllm serve meta-llama/Llama-3.1-70B-Instruct (not --tp 2).",  # probe
    "I launch vllm serve meta-llama/Llama-3.1-70B-Instruct (e.g. --tp 2).",  # probe
])
def test_a_group_opening_on_a_word_sets_no_tp(text):
    # as before this pass: no TP 2, and no default either (the flag's value "2)" is no count)
    assert _launch(text)[0].tp is None


def test_flag_groups_are_linear():
    import time

    for text in ("(" + "--a " * 5000, "(--a" + " " * 5000 + "x", "(" * 3000 + "--a 1 " * 1000, "(--a " + "b " * 5000):
        t = time.perf_counter()
        launch._in_prose(text)
        assert time.perf_counter() - t < 0.5


# ---------------------------------------------------------------- 3. a decimal comma is quoted as it was written

def test_real_decimal_comma_keeps_its_value_and_pairs():
    # exllamav2#401 (tests/data/audit30b/half_math/exllamav2_401.md)
    text = ("With lama-cpp-python I get the same response in **9.6 seconds, 232 tokens, 22,9 tokens/second**\n")
    out = issue_md.parse(text, "issue.md")
    assert any(isinstance(m, Measurement) and m.value == 22.9 for m in out)


@pytest.mark.parametrize("text, said", [
    # probes: a figure's quote found in its line, and one put together from pieces of it
    ("With --tensor-parallel-size 2 the output is 30% slower than 32,5 tokens/second on one GPU.",
     "30% slower than 32,5 tokens/second"),
    # (the size of a stated change, "40% slower (from 38,1 tok/s to 22,9 tok/s)", is no figure of its own since
    # tests/test_relative_change.py: a relative figure with its own reference quotes the reporter instead)
    ("Now it is 3x slower than my colleague's box, which does 90,5 tok/s with TP 2.",
     "3x slower than my colleague's box, which does 90,5 tok/s"),
    # near-miss: written with points, quoted with points
    ("Now it is 3x slower than my colleague's box, which does 90.5 tok/s with TP 2.",
     "3x slower than my colleague's box, which does 90.5 tok/s"),
])
def test_a_figures_quote_is_the_reporters(text, said):
    found = [m for m in issue_md.parse(text, "issue.md") if isinstance(m, Measurement) and m.said]
    assert [m.said for m in found] == [said]


def test_a_tickets_decimal_commas_are_read(tmp_path):
    # probe: a release comparison. (fr47b2) Only a figure's own quote (Measurement.said, above) is given back its comma;
    # the rules' evidence quotes keep the spelling they read (the put-back after the verdict was taken out): the
    # values are read right
    paste = tmp_path / "issue.md"
    paste.write_text("# Decode got slower after upgrading vLLM\n\nOn 2x RTX 3090 with --tensor-parallel-size 2, vLLM "
                     "0.6.3 gave 40,5 tokens/s. After upgrading to vLLM 0.7.2 I only get 22,9 tokens/s with the same "
                     "command.\n")
    report = report_json("ticket", paste)
    values = [m["value"] for m in report["facts"]["measurement"]]
    assert 40.5 in values and 22.9 in values


# ---------------------------------------------------------------------------------------------------- 4. tidy

@pytest.mark.parametrize("text, asked", [
    ("Would vllm serve X --tp 4 be faster?", True),
    ('Would "vllm serve X --tp 4" be faster?)', True),
    ("I run vllm serve X --tp 4.", False),
    ("I run vllm serve X --tp 4", False),
])
def test_asked(text, asked):
    assert launch._asked(text, text.index("vllm")) is asked

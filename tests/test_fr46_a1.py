"""(fr46a, a1) Launch lines cut short or read from a question by the known46b sentence cut (launch.command_end): a
line that starts with its command runs to the line's end; elsewhere a mark inside shell quotes, a lone "." and a
following sentence that goes on with the command end nothing; a later sentence's command that it asks about is no
launch; the elision check stays linear. Probes are labelled probes; the near-misses keep known46b's reading
(tests/test_known46b.py)."""

import time

import pytest

from diagnose.artifacts import launch
from diagnose.evidence import Workload


def _launch(text: str) -> list[Workload]:
    return [f for f in launch.parse(text, "issue.md") if isinstance(f, Workload)]


# 1. A pasted command (a code-block line that starts with it) is not cut inside its own arguments.

@pytest.mark.parametrize("text, field, value", [
    # probe (fr46a 24.md): serving the current directory
    ("vllm serve . --served-model-name llama --tensor-parallel-size 4 --enforce-eager", "eager", True),
    # probe (fr46a 5.md)
    ("vllm serve . --tensor-parallel-size 4 --max-model-len 16384", "max_model_len", 16384),
    ("$ CUDA_VISIBLE_DEVICES=0,1,2,3 vllm serve . --tensor-parallel-size 4", "tp", 4),
    # probe (fr46a 4.md): a quoted prompt with sentences of its own
    ('./llama-cli -m models/llama-3-70b-q4.gguf -p "You are a helpful assistant. Answer briefly." -n 256 -ngl 99 '
     "-ts 1,1 -sm row", "gpu_count", 2),
])
def test_line_command_runs_to_line_end(text, field, value):
    assert any(getattr(w, field) == value for w in _launch(text))


def test_quoted_prompt_llama_server():
    # probe (fr46a 11.md)
    text = ('./llama-server -m qwen2.5-14b-q4_k_m.gguf -ngl 99 --system-prompt "You are a support bot. Answer in '
            'English." -np 4 -c 16384 -fa')
    extra = {k: v for w in _launch(text) for k, v in w.extra.items()}
    assert extra.get("parallel") == 4 and extra.get("flash_attn") == "on"


@pytest.mark.parametrize("text, field, value", [
    # probe: in prose, a quoted prompt and a lone "." end no sentence either
    ('I run ./llama-cli -m m.gguf -p "Be brief. Answer in English." -ts 1,1 -sm row on both cards.', "gpu_count", 2),
    ("In the model folder I run vllm serve . --tensor-parallel-size 4 and it is slow.", "tp", 4),
])
def test_prose_quotes_and_lone_dot(text, field, value):
    assert any(getattr(w, field) == value for w in _launch(text))


# 2. The sentence after a prose command that goes on with it keeps its flags.

@pytest.mark.parametrize("text, tp, eager", [
    # probe (fr46a 22.md)
    ("I start the server with vllm serve meta-llama/Llama-3.1-70B-Instruct. I also pass --tensor-parallel-size 4 "
     "--enforce-eager to it.", 4, True),
    # probe (fr46a 3.md)
    ("I start the server with vllm serve meta-llama/Llama-3.1-70B-Instruct. I also pass --tensor-parallel-size 4 "
     "and --max-model-len 8192.", 4, False),
])
def test_next_sentence_goes_on(text, tp, eager):
    assert any(w.tp == tp and w.eager == eager for w in _launch(text))


@pytest.mark.parametrize("text", [
    # near-misses: the next sentence asks, advises, tells hearsay or says the flag did not help
    "I run llama-server -m m.gguf on both. Would `--split-mode none` be faster?",
    "I start llama-server -m model.gguf -ngl 99 on both cards. You could try -sm none instead.",
    "I start llama-server -m model.gguf -ngl 99 on both cards. Someone said -sm row is faster.",
    "I start llama-server -m model.gguf -ngl 99 on both cards. Setting -sm row doesn't help.",
    "I start llama-server -m model.gguf -ngl 99 on both cards. With -sm row it was faster.",
    "I start llama-server -m model.gguf -ngl 99 on both cards. I also tried -sm row.",
])
def test_next_sentence_that_does_not_go_on(text):
    assert not any(w.extra.get("split_mode") for w in _launch(text))


def test_inline_code_line_then_question():
    # near-miss: a line that opens with the command in a code span is prose after it; the question's flag stays out
    text = "`llama-server -m m.gguf -ngl 99` on both cards. Would `--split-mode none` be faster?"
    assert not any(w.extra.get("split_mode") for w in _launch(text))


def test_later_sentence_command_still_its_own():
    # tests/data/para38 (known46b): a later sentence's command stays a command of its own
    text = ("At python convert_checkpoint.py step I set tp_size=4,pp_size=1 and tensorrt model is made successfully. "
            "But then I run command mpirun --allow-run-as-root -np 4 python3 run.py , and this error come out:")
    assert text[:launch.command_end(text, text.index("python"))].endswith("made successfully.")


# launch.py:271. A later sentence's command that it asks about is no launch.

def test_asked_command_is_no_launch():
    # probe (fr46a 19.md)
    text = ("I start it with vllm serve Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 2. Would vllm serve "
            "Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 4 be faster?")
    assert not any(w.tp == 4 for w in _launch(text))


def test_later_stated_command_still_read():
    # near-miss: a later sentence's command stated, not asked, is read
    text = ("I first tried vllm serve Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 2 and it was slow. Now I run "
            "vllm serve Qwen/Qwen2.5-32B-Instruct --tensor-parallel-size 4 and it is still slow.")
    assert any(w.tp == 4 for w in _launch(text))


# 8. Repeated elisions stay linear.

def test_elisions_linear():
    # probe: 'vllm serve x ' + '... ' * 1500 + '--tp 2' took 0.16 s (0.62 s at 12,000 characters)
    for prefix in ("", "I run "):
        text = prefix + "vllm serve x " + "... " * 6000 + "--tp 2"
        t = time.perf_counter()
        assert any(w.tp == 2 for w in _launch(text))
        assert time.perf_counter() - t < 0.5

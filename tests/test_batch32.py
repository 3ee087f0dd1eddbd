"""The load a figure ran at, read the way the tools define it (pass batch32): batch 1 only where the program that
printed the figure runs one sequence by its own documentation (diagnose.artifacts.issue_md PROGRAMS, decided in
rules.stated_load.program_load), never from a server under an unknown load, a scheduler cap or a prompt micro-batch."""

from pathlib import Path

import pytest

from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement
from rules.stated_load import batch_words, load_for, program_load

DATA = Path(__file__).parent / "data"


def _read(tmp_path: Path, body: str):
    paste = tmp_path / "issue.md"
    paste.write_text("# Slow generation\n\n" + body + "\n\nIs this speed normal?\n")
    return read_bundle(paste)


def _code(text: str) -> str:
    return "```\n" + text + "\n```"


# llama-bench's own README output (https://github.com/ggml-org/llama.cpp/tree/master/tools/llama-bench): -b / -ub are
# the prompt's chunks, each test one sequence
LLAMA_BENCH = _code("./llama-bench -m models/7B/ggml-model-q4_0.gguf -b 2048 -ub 512 -ngl 99\n"
                    "| model                | size     | params | backend | ngl | test  | t/s           |\n"
                    "| -------------------- | -------: | -----: | ------- | --: | ----: | ------------: |\n"
                    "| llama 7B mostly Q4_0 | 3.56 GiB | 6.74 B | CUDA    |  99 | pp512 | 2368.80 ± 93.24 |\n"
                    "| llama 7B mostly Q4_0 | 3.56 GiB | 6.74 B | CUDA    |  99 | tg128 |  131.42 ± 0.59 |")
# `ollama run --verbose` (https://github.com/ollama/ollama/blob/main/docs/cli.md): one request's stats
OLLAMA = _code("$ ollama run llama3.1:70b --verbose\n>>> why is the sky blue?\n...\n"
               "prompt eval rate:     210.42 tokens/s\neval count:           331 token(s)\n"
               "eval rate:            14.61 tokens/s")
# llama-cli (https://github.com/ggml-org/llama.cpp/tree/master/tools/main): one prompt
LLAMA_CLI = _code("./llama-cli -m models/llama-3-8b.Q4_K_M.gguf -ngl 99 -p \"Hello\" -n 256\n"
                  "llama_print_timings:        eval time =   10000.00 ms /   255 runs   (   39.22 ms per token,"
                  "    25.50 tokens per second)")
# text-generation-webui's timing line (modules/text_generation.py): one request
WEBUI = _code("Output generated in 10.52 seconds (12.17 tokens/s, 128 tokens, context 50, seed 1234)")


@pytest.mark.parametrize("body, program", [
    (LLAMA_BENCH, "llama-bench"), (OLLAMA, "ollama run"), (LLAMA_CLI, "llama-cli"), (WEBUI, "text-generation-webui"),
    # written in prose, as reporters do (tests/data/ut11o/ollama8963.md's wording)
    ("I run the model with the command ollama run deepseek-r1:671b and get 2 tokens/s.", "ollama run"),
])
def test_one_sequence_programs_imply_batch_1(tmp_path, body, program):
    facts = _read(tmp_path, body)
    load = program_load(facts)
    assert load is not None and load[0] == 1 and program.split()[0].strip("`") in load[1]
    for m in facts.of(Measurement):
        priced = load_for(facts, m)
        assert (priced.n, priced.kind) == (1, "batch")


def test_llama_bench_row_is_one_sequence_and_b_is_no_batch(tmp_path):
    # the tg row carries batch 1 itself; -b 2048 is not read as a batch anywhere
    facts = _read(tmp_path, LLAMA_BENCH)
    tg = [m for m in facts.of(Measurement) if m.value == pytest.approx(131.42)]
    assert tg and (tg[0].batch, tg[0].concurrency) == (1, 1)
    assert facts.workload().batch is None


def test_words_say_which_program_implied_it(tmp_path):
    facts = _read(tmp_path, OLLAMA)
    words, assumed = batch_words(facts, facts.of(Measurement)[0])
    assert words.startswith("batch 1 (`ollama run` sends one request") and not assumed


@pytest.mark.parametrize("body", [
    # a server under a load nobody states: its slots, a serving engine's launch, the server alone
    _code("./llama-server -m model.gguf -ngl 99 -np 4\n./llama-cli -m model.gguf -p hi"),
    "Ollama gives 40 tok/s, but `vllm serve meta-llama/Llama-3.1-8B-Instruct` only 20 tok/s.\n"
    "I tested ollama with `ollama run llama3.1:8b`.",
    _code("OLLAMA_HOST=0.0.0.0 ollama serve") + "\nClients get 20 tok/s.",
    # caps and micro-batches alone (vLLM --max-num-seqs, LMDeploy --max-batch-size) say nothing of the load
    _code("vllm serve meta-llama/Llama-3.1-8B --max-num-seqs 256") + "\nI get 30 tok/s.",
    # a program denied, or only named as not affected (tests/data/ut13/llamacpp6476.md's wording)
    "I did not use ollama run llama3, I call the API from 16 threads: 30 tok/s.",
    "`llama-bench` is not affected, but `main` and `server` has this regression.",
    # llama-benchy is a serving benchmark at concurrency levels, not llama-bench (tests/data/ut26c)
    "Benchmark: llama-benchy, pp1024/tg128, 50 requests per concurrency level",
    # a version check is no run
    _code("$ ./llama-cli --version\nversion: 6100 (abc1234)"),
])
def test_near_misses_imply_nothing(tmp_path, body):
    assert program_load(_read(tmp_path, body)) is None


def test_stated_load_comes_before_the_program(tmp_path):
    # a concurrency the reporter states wins over the program's one-request default
    facts = _read(tmp_path, OLLAMA + "\nWith 8 concurrent requests the eval rate drops to 6 tokens/s each.")
    assert program_load(facts) is not None
    m = facts.of(Measurement)[0]
    assert load_for(facts, m).n == 8


@pytest.mark.parametrize("paste, program", [
    ("ut16/geerling44.md", "llama-bench"),
    ("normal_questions/llamacpp9881.md", "llama-cli"),
    ("engine31/llamacpp15125.md", "llama-cli"),  # llama-cli -hf ... --tensor-split 9,1
    ("engine31/ollama8964.md", "ollama run"),
    ("ut11o/ollama6008.md", "ollama run"),  # "When I run "ollama run llama3.1:70b", ..."
    ("audit30b/half_math/textgen3825.md", "text-generation-webui"),
])
def test_kept_pastes(paste, program):
    load = program_load(read_bundle(DATA / paste))
    assert load is not None and load[0] == 1 and program.split()[0].strip("`") in load[1]


@pytest.mark.parametrize("paste", ["ut13/llamacpp6476.md", "ut26c/spark_tp2_vs_2solo.md"])
def test_kept_near_miss_pastes(paste):
    assert program_load(read_bundle(DATA / paste)) is None


def _script(code: str) -> str:
    return "My script:\n\n```python\n" + code + "\n```\n\nI get 20 tok/s on one A100."


@pytest.mark.parametrize("code", [
    # Transformers' LLM tutorial (https://huggingface.co/docs/transformers/llm_tutorial): a list of one prompt
    'model_inputs = tokenizer(["A list of colors: red, blue"], return_tensors="pt").to("cuda")\n'
    'generated_ids = model.generate(**model_inputs)',
    # a prompt string, tokenized, then generated
    'prompt = "Tell me about GPUs"\ninputs = tokenizer(prompt, return_tensors="pt").to("cuda")\n'
    'out = model.generate(**inputs, max_new_tokens=256)',
    # vLLM's LLM.generate on "a single prompt" (https://docs.vllm.ai/en/latest/api/vllm/entrypoints/llm.html;
    # tests/data/ut15e/vllm730.md writes the same call)
    'llm = LLM(model="meta-llama/Llama-2-7b-hf", tensor_parallel_size=2)\n'
    'outputs = llm.generate("Hello, my name is", sampling_params)',
])
def test_one_prompt_string_is_batch_1(tmp_path, code):
    load = program_load(_read(tmp_path, _script(code)))
    assert load is not None and load[0] == 1 and "one prompt string" in load[1]


@pytest.mark.parametrize("code", [
    # the tutorial's batched form: two prompts padded into two rows
    'model_inputs = tokenizer(["A list of colors: red, blue", "Portugal is"], return_tensors="pt", padding=True)\n'
    'generated_ids = model.generate(**model_inputs)',
    # one prompt made into 8 rows, or decoded with beams or siblings: several sequences together
    'prompt = "hi"\ninputs = tokenizer(prompt, return_tensors="pt").input_ids.repeat(8, 1)\n'
    'out = model.generate(inputs)',
    'prompt = "hi"\ninputs = tokenizer(prompt, return_tensors="pt")\nout = model.generate(**inputs, num_beams=4)',
    'prompt = "hi"\ninputs = tokenizer(prompt, return_tensors="pt")\n'
    'out = model.generate(**inputs, do_sample=True, num_return_sequences=4)',
    # a list of unknown size (tests/data/other25/vllm_1386_assertion_021.md passes two)
    'outputs = llm.generate(prompts, sampling_params)',
    'output = llm.generate(["Hello, how are you?", "Tell me a joke!"], sampling_params=sampling_params)',
])
def test_more_rows_than_one_are_not_batch_1(tmp_path, code):
    assert program_load(_read(tmp_path, _script(code))) is None

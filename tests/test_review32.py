"""review32: readings merged in session 32, tried on real sentences they were not written from.
- rules.common._one_board (count32) reads an uncounted board as one GPU only where nothing speaks of a second; the
  reporter's words inside a fenced block count too (TensorFlow's template fences "Current Behaviour?" as shell:
  tensorflow/tensorflow#57893, "It happens only when I use multiple GPUs"), while a log's "found 1 CUDA devices" or
  "--parallel 1" keeps the one board (ggml-org/llama.cpp#2641, the beellama paste)."""
from pathlib import Path

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import claims, common

DATA = Path(__file__).parent / "data"


def facts_of(path: Path) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(path.read_text(), "issue.md"))
    return facts


def test_several_gpus_said_in_a_fenced_behaviour_section_is_no_single_board():
    facts = facts_of(DATA / "review50" / "tf57893.md")  # "10 RTX A5000 ... only when I use multiple GPUs"
    assert common.gpu_count(facts) is None
    assert not common.one_gpu_job(facts)


def test_a_log_counting_one_device_keeps_the_single_board():
    assert common.gpu_count(facts_of(DATA / "ut28a" / "llamacpp2641.md")) == 1  # "found 1 CUDA devices"
    assert common.gpu_count(facts_of(DATA / "ut29b" / "beellama139.md")) == 1  # "--parallel 1"


def test_multiple_gpu_written_as_one_word_is_several():
    assert common._SEVERAL_GPUS.search("Nan errors multiple-gpu training with MirroredStrategy")
    assert common._SEVERAL_GPUS.search("a multiple GPU setup")
    assert not common._SEVERAL_GPUS.search("multiple prompts on one A100")


# claims._LLAMA_MAIN (healthy32): the old llama.cpp `main` binary is read from a command line, options between it and
# -m; the word "main" in prose before another program's -m is no such run.
MAIN_RUNS = [("ut21b", "llamacpp6814.md"), ("ut28f", "powerinfer150.md"), ("ut28a", "llamacpp2641.md")]


def test_the_main_binary_is_read_from_the_kept_command_lines():
    for folder, name in MAIN_RUNS:
        assert claims._LLAMA_MAIN.search((DATA / folder / name).read_text()), name
    assert claims._LLAMA_MAIN.search("./main -t 8 --threads 4 -c 2048 -m models/7B/ggml-model-q4_0.gguf -p hi")


def test_the_word_main_in_prose_is_no_main_binary():
    assert not claims._LLAMA_MAIN.search("I'm on the main branch: llama-server -m qwen2.5-7b-q4_k_m.gguf")
    assert not claims._LLAMA_MAIN.search("git checkout main && python -m vllm.entrypoints.openai.api_server")


# rules.common._server_ranks (count32) and launch's documented TP 1: a server launched with --config reads its options
# from a YAML file (vLLM's docs, "Configuration file"), so the line alone says no TP, and a TP stated elsewhere (the
# pasted file) is the layout. No kept paste carries --config: the ticket below follows the docs' example.
CONFIGURED = """# Slow decode on 4x A100 with vLLM

I serve Llama-3.1-70B on a machine with 4x A100 80GB:

```
vllm serve meta-llama/Llama-3.1-70B-Instruct --config serve.yaml
```

serve.yaml:

```yaml
tensor-parallel-size: 4
max-num-seqs: 64
```
"""


def _facts(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def test_a_server_given_a_config_file_takes_the_tp_the_file_states():
    facts = _facts(CONFIGURED)
    assert facts.workload().tp == 4
    assert common.gpu_count(facts) == 4


def test_a_server_launched_with_no_parallel_option_still_holds_one_of_the_machine_gpus():
    plain = CONFIGURED.replace(" --config serve.yaml", "").replace("tensor-parallel-size: 4", "max-model-len: 8192")
    assert common.gpu_count(_facts(plain)) == 1  # count32's reading: vLLM's TP "Default: 1"

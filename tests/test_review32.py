"""review32: readings merged in session 32, tried on real sentences they were not written from.
- rules.common._one_board (count32) reads an uncounted board as one GPU only where nothing speaks of a second; the
  reporter's words inside a fenced block count too (TensorFlow's template fences "Current Behaviour?" as shell:
  tensorflow/tensorflow#57893, "It happens only when I use multiple GPUs"), while a log's "found 1 CUDA devices" or
  "--parallel 1" keeps the one board (ggml-org/llama.cpp#2641, the beellama paste)."""
from pathlib import Path

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import common

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

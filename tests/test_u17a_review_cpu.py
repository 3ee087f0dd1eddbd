"""Review of batch u17a (issue 11): the CPU said to out-work the GPU.

Each reading is tested on real text from public threads other than the ones it was first written from
(ollama/ollama#8655 and #7700, corpus cases u17a04 and u17a06), each quoted with its address, and on negations.

- The CPU said to work harder than the GPU: Chinese says what is compared (负载, 占用, 使用率, 利用率, ...), a clock, a
  temperature or a run time is no load; load figures with decimals and other load words count, a condition, one core's
  figure and a GPU memory share do not; the engine is the one the sentence names, else the ticket's.
"""

from __future__ import annotations

import pytest
from test_ticket_questions import said

from rules import claims


def split_read(text: str) -> list:
    """The observed, affirmed 'words' partial_offload claims: the CPU computing layers."""
    return [c for c in claims.partial_offload(said(text))
            if c.data["form"] == "words" and not c.negated and not c.guess]


# --------------------------------------------------------------------------- 2. Chinese load nouns
@pytest.mark.parametrize("text", [
    # https://blog.51cto.com/u_16213370/12304997
    "在某些情况下，CPU的使用率却会高于GPU。",
    # a PyTorch dataset's comment in a public training script (the code index's text): the load noun before the CPU
    "改成存了再读取速度会更快，因为从利用率上看CPU要远高于GPU，每次迭代取数处理耗时较久",
    "用ollama跑模型的时候，CPU的占用比GPU高很多。",  # (paraphrases)
    "ollama运行时GPU的负载比CPU还低，怎么回事？",
    "跑的时候CPU比GPU还忙",
])
def test_a_chinese_load_comparison_is_the_cpu_out_working_the_gpu(text):
    found = claims.cpu_over_gpu(text)
    assert found and not any(negated for _, negated in found)


@pytest.mark.parametrize("text", [
    "CPU主频要比GPU高2-3倍左右",  # a clock: https://jianye0428.github.io/posts/cuda/
    "因为cpu的温度一般会比gpu高20多度",  # a temperature (a public blog post, "Cool down dude!")
    "由于芯片面积等问题，CPU的温度在大部分情况下高于GPU",  # a temperature (a public quiz page)
    "而且可以发现cpu的一致性要比gpu高。",  # numerical agreement (a public debugging write-up)
    "cpu的耗时会明显高于gpu。",  # a run time (a public library's option table)
    # the GPU the busier: http://www.diannaoxiuli.cn/yingjian/24986.html
    "显卡驱动程序不兼容或过期,可能导致 GPU 无法充分发挥性能,或者与 CPU 的协同工作出现问题,"
    "使得 GPU 负载过高而 CPU 占用率低。",
    "如果CPU占用比GPU高，说明模型没有全部放进显存",  # a condition
])
def test_no_load_comparison_is_read_from_other_quantities_or_conditions(text):
    assert not claims.cpu_over_gpu(text)


def test_a_denied_chinese_load_comparison_is_negated():
    found = claims.cpu_over_gpu("用ollama跑的时候，CPU占用并不高于GPU。")
    assert found and all(negated for _, negated in found)


# --------------------------------------------------------------------------- 3. load figures
@pytest.mark.parametrize("text", [
    # https://github.com/abetlen/llama-cpp-python/issues/1123
    "Llama 70B 5bit gguf occupies <8GB of VRAM, and 32 cores of CPU are pinned at 100% while GPU utilization is "
    "around 2%.",
    # https://github.com/vllm-project/vllm/issues/4806 (read here; its engine decides below)
    "In a very high concurrency scenario, such as 128 concurrency, I found that the CPU utilization reached 100%, but "
    "I saw the GPU utilization rate is less than 60%",
    "Task Manager: CPU usage 98.5%, GPU-Util 3.5%.",  # (paraphrases: decimals, other load words)
    "GPU load is at 7 % and CPU load is at 93.4 %",
    "GPU占用5%，CPU占用90%",
])
def test_load_figures_with_the_gpu_lower_are_read(text):
    assert claims.cpu_over_gpu(text)


@pytest.mark.parametrize("text", [
    # https://github.com/ollama/ollama/issues/6993: one core's figure is the thread that drives the GPU
    "CPU only use one core at 100%, while gpu cores mostly run at at less than 20%.",
    # a Kaggle write-up's DataLoader: a process's figure above 100 % counts cores, not the CPU's share
    "CPU usage pinned at 109% while GPU usage hovered at 23%.",
    "Ollama: GPU at 40%, if the CPU were at 100% it would be offloading.",  # a condition
    "If the GPU were at 5% and the CPU at 80%, the model would be split.",
    "Ollama: GPU memory 90%, CPU 40%.",  # a share of memory
    "GPU fan 30%, CPU 80%",  # a fan's duty
    "Ollama: GPU at 95% while the CPU at 12%.",  # the GPU the busier
])
def test_figures_that_are_no_load_comparison_are_not_read(text):
    assert not claims.cpu_over_gpu(text)


# --------------------------------------------------------------------------- 4. the engine per sentence
def test_the_engine_the_ticket_runs_decides_a_sentence_that_names_none():
    # llama-cpp-python (https://github.com/abetlen/llama-cpp-python/issues/1123) places layers by -ngl; vLLM
    # (https://github.com/vllm-project/vllm/issues/4806) keeps every layer in VRAM: the same figures, two readings
    figures = ("Llama 70B 5bit gguf occupies <8GB of VRAM, and 32 cores of CPU are pinned at 100% while GPU "
               "utilization is around 2%.")
    assert split_read("I'm facing a similar issue with llama-cpp-python. " + figures)
    assert not split_read("I am using vllm to deploy the qwen 7b chat model service. In a very high concurrency "
                          "scenario, such as 128 concurrency, I found that the CPU utilization reached 100%, but I "
                          "saw the GPU utilization rate is less than 60%")


def test_the_engine_a_sentence_names_decides_it():
    # the ticket names Ollama too (https://github.com/ollama/ollama/issues/15063 moved to vLLM); the CPU sentence
    # names vLLM, which holds every layer in VRAM
    moved = ("With some previous ollama releases I could run deepseek-r1:70b (42GB) fast with GPU support. "
             "I moved to vLLM. With vLLM the CPU usage is higher than the GPU usage.")
    assert not split_read(moved)
    assert split_read("I use vLLM for serving. With Ollama the CPU usage is higher than the GPU usage.")

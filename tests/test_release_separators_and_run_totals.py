"""Issue 11 (s18, the reviewer's points on the merged s17 work): a release after a spaced separator, and the labels of a
run's total, read generally (diagnose.artifacts.text: engine_release, prompt_len).

Releases: pip's pin and PEP 440 spellings (https://pip.pypa.io/en/stable/reference/requirement-specifiers/,
https://packaging.python.org/en/latest/specifications/version-specifiers/) and lines from real threads, each with its
address; a pip bound (">=", "<=", "!="), a range or a list of releases names no one release. Totals: the serving
benchmarks' own result rows (vLLM benchmark_serving / `vllm bench serve`, SGLang bench_serving) as real threads show
them, a table's Total/All row and a "total:" label; a length said to be each request's is not a total.
"""

import pytest

from diagnose.artifacts.text import engine_release, prompt_len


@pytest.mark.parametrize("text, engine, release", [
    ("I have installed vllm==0.6.0 but the throughput remains same as earlier.", "vllm", "0.6.0"),  # vllm#8284
    ("old: vllm-0.6.1.post2 \nnew:  vllm=0.6.6.post1", "vllm", "0.6.1.post2"),                    # vllm#12274
    ("new:  vllm=0.6.6.post1", "vllm", "0.6.6.post1"),                                             # vllm#12274
    ("pip install vllm == 0.6.3", "vllm", "0.6.3"),
    ("vLLM - 0.6.3 on 2x A100", "vLLM", "0.6.3"),
    ("vLLM version : 0.6.3", "vLLM", "0.6.3"),
    ("vllm ： 0.3", "vllm", "0.3"),          # a full-width colon, as text.cjk_spaced sets it apart
    ("vllm = 0.6", "vllm", "0.6"),
    ("SGLang – 0.4", "SGLang", "0.4"),       # an en dash, in SGLang's range
])
def test_a_release_after_a_spaced_separator(text, engine, release):
    assert engine_release(text, engine) == release


@pytest.mark.parametrize("text, engine", [
    ("vllm : 35.2, sglang : 40.1", "vllm"),            # a label and a figure, outside vLLM's releases
    ("vLLM - 12.5 tok/s", "vLLM"),                      # a rate
    ("vLLM 0.5.4 - 0.6.3 all hang", "vLLM"),            # a range
    ("vllm 0.6.x through 0.7.2 are slow", "vllm"),
    ("vLLM 0.5.4, 0.6.0 and 0.6.3 all hang", "vLLM"),   # a list
    ("requires vllm>=0.5.0", "vllm"),                   # pip bounds name a range
    ("vllm<=0.6.3", "vllm"),
    ("vllm!=0.6.3", "vllm"),
    ("sglang - 2 GPUs", "sglang"),
    ("vllm -tp 2", "vllm"),
])
def test_no_release_in_a_figure_a_range_a_list_or_a_bound(text, engine):
    assert engine_release(text, engine) is None


@pytest.mark.parametrize("line", [
    "Total input tokens:                      369103    ",   # SGLang bench_serving, sgl-project/sglang#2805
    "Total input tokens:                      349601    ",   # vllm bench serve, ovg-project/kvcached#136
    "#Input tokens: 302991",                                # bench_serving's summary before its run
    "# of input tokens: 3000",
    "total: 25900 input tokens",
    "| Total | 25900 input tokens |",
    "| All | 25900 input tokens |",
    "Sum of input tokens: 40960",
    "cumulative prompt tokens: 1048576",
])
def test_a_run_total_is_no_prompt_length(line):
    assert prompt_len([(1, line)]) is None


@pytest.mark.parametrize("line, length", [
    ("--random-input-len 1024 \\", 1024),                     # sgl-project/sglang#5223's benchmark_serving call
    ("Total input tokens: 512 per request", 512),              # said to be each request's
    ("all prompts are 512 input tokens", 512),                 # "all" inside a sentence labels nothing
    ("the overall input length is 2048", 2048),
    ("Total token throughput (tok/s): 3055.2, input length 1024", 1024),  # a total rate, then a prompt's length
    ("| Llama-3-8B | 2048 input tokens | 12.3 tok/s |", 2048),  # a table's first cell is no total
])
def test_a_prompts_length_beside_total_words_is_still_read(line, length):
    assert prompt_len([(1, line)])[1] == length


# A release after a full-width comma or an ideographic separator, as CJK text writes it: the description of
# https://github.com/sgl-project/sglang/issues/2805 opens "sglang，0.4.0.post2". text.cjk_spaced sets the full-width
# comma (in U+FF00-FFEF) apart from the Latin around it; the ideographic comma and space (U+3001, U+3000) stay glued.
@pytest.mark.parametrize("text, engine, release", [
    ("sglang，0.4.0.post2", "sglang", "0.4.0.post2"),             # sglang#2805, as posted
    ("sglang ， 0.4.0.post2", "sglang", "0.4.0.post2"),           # the same after text.cjk_spaced
    ("用的是 vllm、0.6.3 版本", "vllm", "0.6.3"),            # as text.cjk_spaced leaves it
    ("vllm\u30000.6.3", "vllm", "0.6.3"),
    ("sglang，0.4", "sglang", "0.4"),                             # two parts, in SGLang's range
])
def test_a_release_after_a_full_width_or_ideographic_separator(text, engine, release):
    assert engine_release(text, engine) == release


@pytest.mark.parametrize("text, engine", [
    ("vLLM，0.5.4，0.6.0 和 0.6.3 都会卡住", "vLLM"),   # a list, in full-width commas
    ("vllm、0.5.4、0.6.0都试过", "vllm"),               # a list, in ideographic commas
    ("vllm，0.5.4～0.6.3都很慢", "vllm"),               # a range, with a full-width tilde
    ("vLLM，12.5 tok/s", "vLLM"),                       # a rate
    ("vLLM 0.9，SGLang 1.2 tok/s", "vLLM"),             # one figure of a list sharing its unit
    ("sglang，2 张卡", "sglang"),                       # a count
    ("vllm，35.2，sglang，40.1", "vllm"),               # labels and figures outside vLLM's releases
])
def test_no_release_in_a_full_width_list_range_or_figure(text, engine):
    assert engine_release(text, engine) is None


def test_sglang_2805s_release_reaches_the_workload():
    """The ticket's own opening line, as issue_md reads it (CJK spaced, the prose joined)."""
    from diagnose.artifacts import issue_md
    from diagnose.evidence import Workload
    text = ("# [Benchmark] sglang successful requests issue (may related to env)\n\nsglang，0.4.0.post2\n\n"
            "python -m sglang.launch_server --model-path /mnt/home/Llama-3.1-8B-Instruct --enable-torch-compile "
            "--disable-radix-cache\n")
    frameworks = [r.framework for r in issue_md.parse(text, "issue.md") if isinstance(r, Workload) and r.framework]
    assert any(f.lower() == "sglang 0.4.0.post2" for f in frameworks)

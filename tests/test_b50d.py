"""Blind batch b50d (training and collective-layer threads; tests/data/b50d/SOURCES.md) and the reading mended from
it.

An issue form (.github/ISSUE_TEMPLATE/*.yml) prints each field's label as a "### " heading above the reporter's answer
("### Who can help?", "### How is this issue impacting you?", "### Which llama.cpp modules do you know to be
affected?"), and GitHub's default feature-request template opens with "Is your feature request related to a problem?
Please describe.". claims.asks took those for the reporter's question in some thirty kept threads; in
horovod/horovod#1477 that made ticket.nothing_broken call "NVLink is not being used" normal (healthy), where the
thread's answer was a Horovod build without NCCL. The form's labels are no longer read as a question; the reporter's
own still are.
"""

import pytest
from conftest import issue_bundle, judged_issue, judged_kept_paste

from rules import claims


@pytest.mark.parametrize("rel", [
    "b49b/trtllm1039.md",                  # ### Who can help?
    "symptom34/trtllm_1049.md",
    "symptom34/transformers_33656.md",
    "ut16/trtllm2785.md",
    "extract35/trtllmbackend532.md",
    "p49f/nccl2001.md",                    # ### How is this issue impacting you?
    "ut22a/nccl1999.md",
    "ut23b/nccl2355.md",
    "ut15e/nccl2076.md",
    "extract35/llamacpp10860.md",          # ### Which llama.cpp modules do you know to be affected?
    "hostbound37/llamacpp24871.md",
    "extract32/xinference1976.md",         # ### Running Xinference with Docker? / 是否使用 Docker 运行 Xinfernece？
    "symptom34/xinference_3205.md",
    "ut22c/qwen970.md",                    # ### 是否已有关于该错误的issue或讨论？ | Is there an existing issue / ...?
    "cn38/minicpmv476.md",
    "symptom34/ragflow_1643.md",           # ### Is there an existing issue for the same bug?
    "review50/tf57893.md",                 # ### Current Behaviour?
    "issues/physicsnemo-691-watchdog-last-completed-49.md",  # ### On which installation method(s) does this occur?
    "b50d/horovod1477.md",                 # Is your feature request related to a problem? Please describe.
])
def test_an_issue_forms_label_is_not_the_reporters_question(tmp_path, rel):
    from conftest import REPO
    facts = issue_bundle((REPO / "tests" / "data" / rel).read_text())
    assert claims.asks(facts) is None


@pytest.mark.parametrize("rel, question", [
    # past the form's label, the reporter's own question is the one read
    ("ut17/nccl1856.md", "Where could the problem be?"),
    ("ut29b/llamacpp13735.md", "Anyone experience the same issue?"),
    ("ut28e/nccl1838.md", "Does sharing host memory through cumem require device p2p access?"),
])
def test_the_reporters_own_question_after_a_form_is_read(rel, question):
    from conftest import REPO
    asked = claims.asks(issue_bundle((REPO / "tests" / "data" / rel).read_text()))
    assert asked is not None and question in asked.quote


def test_nvlink_said_unused_is_not_called_normal(tmp_path):
    # horovod/horovod#1477: "the performance counters ... seem to show that NVLink is not being used"; the thread's
    # answer: Horovod built without HOROVOD_GPU_ALLREDUCE=NCCL. Nothing in the post asks whether that is normal.
    verdict, found = judged_kept_paste(tmp_path, "b50d/horovod1477.md")
    assert verdict.category != "healthy"
    assert "ticket.nothing_broken" not in found or found["ticket.nothing_broken"].category != "healthy"


@pytest.mark.parametrize("text, question", [
    # the reporter's question under a form's heading, in the answer's text
    ("# TP=2 slower than TP=1\n\n### Describe the bug\n\nWhy is TP=2 slower than TP=1 on two RTX 4090s?\n",
     "Why is TP=2 slower than TP=1"),
    # the title is the issue's one "# " heading: its question is the reporter's
    ("# Why is TP=2 slower than TP=1 on two RTX 4090s?\n\nvLLM 0.6.3, Llama-3-8B, 41 tok/s at TP=2, 58 at TP=1.\n",
     "Why is TP=2 slower"),
    # a section heading of the reporter's own writing, not a form's "### " label
    ("# Slow all-reduce\n\n## Why is all_reduce_perf at 5 GB/s on two A100s?\n\nbusbw 5.1 GB/s at 1 GB.\n",
     "Why is all_reduce_perf at 5 GB/s"),
    # the label's words in the reporter's prose
    ("# NCCL hang\n\nWho can help? The all-reduce hangs on two nodes since yesterday.\n", "Who can help?"),
    ("# Feature\n\nIs this feature related to a problem in NCCL's ring search?\n", "related to a problem in NCCL"),
])
def test_near_misses_keep_the_reporters_question(text, question):
    asked = claims.asks(issue_bundle(text))
    assert asked is not None and question in asked.quote


@pytest.mark.parametrize("text, question", [
    # (r50b) a reporter's own heading is "### " too (GitHub's editor writes it so): only the forms' labels are dropped
    ("# vLLM memory on startup\n\n### Is it normal that vLLM takes 90% of GPU memory as soon as it starts?\n\n"
     "I run `vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2` on two A100 80GB. Before any "
     "request nvidia-smi shows about 72 GB used on each GPU. Nothing else runs on the machine.\n",
     "Is it normal that vLLM takes 90% of GPU memory"),
    ("# vLLM memory on startup\n\nI run `vllm serve meta-llama/Llama-3.1-8B-Instruct --tensor-parallel-size 2` on two "
     "A100 80GB. Before any request nvidia-smi shows about 72 GB used on each GPU. Nothing else runs on the machine."
     "\n\n### Is this expected?\n", "Is this expected?"),
    ("# vLLM 启动显存\n\n### vLLM 一启动就占用 90% 显存，这是正常的吗？\n\n"
     "两张 A100 80GB，`vllm serve Qwen2-7B-Instruct --tensor-parallel-size 2`，"
     "还没有发任何请求，nvidia-smi 显示每张卡已经用了 72 GB。机器上没有别的程序。\n", "这是正常的吗"),
])
def test_a_reporters_own_h3_question_is_read(tmp_path, text, question):
    asked = claims.asks(issue_bundle(text))
    assert asked is not None and question in asked.quote
    (tmp_path / "issue.md").write_text(text)
    # vLLM reserves 90 % of each GPU by default (main's answer)
    assert judged_issue(folder=tmp_path)[0].category == "healthy"

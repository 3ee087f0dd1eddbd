"""Short untitled prose in a file named as prose is the reporter's words when a third of its lines are sentences
(README): "Is that normal?" and "Ollama with llama3.1:8b on one H100 SXM." are sentences though short. The texts are
written like the short tickets support threads get (the first is a user-tester's)."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.bundle import read_bundle
from diagnose.evidence import Measurement, Workload
from rules.subject import Subject

SHORT = [
    ("Ollama with llama3.1:8b on one H100 SXM.\n\neval rate: 110.5 tokens/s\n\nIs that normal?\n", "h100-sxm", 110.5),
    ("# slow\n\nOllama with llama3.1:8b on one H100 SXM.\n\neval rate: 110.5 tokens/s\n\nIs that normal?\n",
     "h100-sxm", 110.5),
    ("Mistral 7B Q4_K_M on an RTX 4090 with llama.cpp.\nI only get 60 tokens/s.\nWhy so slow?\n", "rtx-4090", 60),
    ("vLLM, Llama-3-8B, one A10G.\n\n42 tok/s per request at batch 1.\n\nExpected?\n", "a10g", 42),
]


@pytest.mark.parametrize("text,gpu,rate", SHORT)
def test_short_untitled_prose_is_read_as_the_ticket(tmp_path, text, gpu, rate):
    assert issue_md.detect_named(text, "issue.md") == 0.9
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    found = Subject.of(facts).gpu
    assert found is not None and found.key == gpu
    assert any(w.model for w in facts.of(Workload))
    assert rate in [m.value for m in facts.of(Measurement)]


@pytest.mark.parametrize("text", [
    "Loading model.\nDone.\neval rate: 110.5 tokens/s\n",  # a tool's lines, none a sentence of three words
    "llama_print_timings: eval time = 5920.00 ms / 100 tokens\nllama_print_timings: total time = 6000.00 ms\n",
])
def test_printed_lines_alone_stay_unread_as_prose(text):
    assert issue_md.detect_named(text, "issue.md") == 0.0


@pytest.mark.parametrize("text", [
    # Chinese posts often leave off the full stop: the whole stored first post of the u18c03 note
    # (https://notion-next-git-main-peteryang12s-projects.vercel.app/article/232ac7cc-fcf7-80d4-8eb9-e563c8afbde2)
    "在跑vllm ,tp≥2的时候碰到进程hang住的问题\n\n...\n",
    # Japanese, as sgl-project and vLLM reporters write it (a sentence without 。)
    "4090を2枚使ってvLLMでtensor parallelを試したら1枚より遅くなりました\n",
])
def test_a_cjk_sentence_without_its_full_stop_is_prose(text):
    assert issue_md.detect_named(text, "issue.md") == 0.9


def test_a_short_cjk_label_is_no_sentence():
    # a column header or a label of a few characters is not the reporter's words
    assert issue_md.detect_named("显卡型号\n---\nA100\n", "issue.md") == 0.0

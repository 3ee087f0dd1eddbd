"""scripts/case_url_used.py: a thread is the same case under a renamed owner or repository."""

import importlib.util
from pathlib import Path

_spec = importlib.util.spec_from_file_location("case_url_used",
                                               Path(__file__).resolve().parent.parent / "scripts" / "case_url_used.py")
case_url_used = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(case_url_used)


def test_a_renamed_repository_is_the_same_thread():
    key = case_url_used.key
    assert key("https://github.com/oobabooga/text-generation-webui/issues/1244") == \
        key("https://github.com/oobabooga/textgen/issues/1244")
    assert key("https://github.com/ggerganov/llama.cpp/issues/3120") == \
        key("https://github.com/ggml-org/llama.cpp/discussions/3120")


def test_other_threads_and_pages_stay_apart():
    key = case_url_used.key
    assert key("https://github.com/oobabooga/textgen/issues/1244") != key("https://github.com/oobabooga/textgen/issues/1245")
    assert key("https://discuss.vllm.ai/t/some-thread/1949") == "discuss.vllm.ai/t/some-thread/1949"


def test_a_renamed_thread_already_in_the_corpus_reads_used():
    assert case_url_used.key("https://github.com/oobabooga/text-generation-webui/issues/1244") in case_url_used.used()

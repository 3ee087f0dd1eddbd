"""A pasted issue whose title lost its '#' (copied from the issue page as text): 558 of 1,856 real kept pastes,
their '#' dropped, were read by no parser before the forty-third session, so every rule stayed silent. A file the user
named issue.md whose first line reads as a title, with a sentence or an issue form's heading below it, is the reporter's
issue; other files keep the test of sentences."""

import pytest
from conftest import REPO, judged_issue

from diagnose.artifacts import detect, issue_md

DATA = REPO / "tests" / "data"

# Real kept pastes of several shapes (an issue form, figure lines, a CJK title, a tag before the title, logs),
# none read when their '#' is dropped before this reading.
BARE = [
    "para38/t031-nccl-8xm40-allreduce-stalls/b.md",
    "ut17/ktransformers1497.md",
    "engine31/llamacpp15125.md",
    "physdoc33/ollama4995.md",
    "ut22b/tabbyapi188.md",
    "bydesign31/ollama8660.md",
    "para37d/u5c13-ollama-low-gpu-high-cpu-1-token-per-second/a.md",
    "hostbound36/llamacpp6742.md",
]


def _bare(rel: str) -> str:
    text = (DATA / rel).read_text(encoding="utf-8")
    assert text.startswith("# ")
    return text[2:]


@pytest.mark.parametrize("rel", BARE)
def test_an_issue_titled_without_its_hash_is_read_and_judged_as_with_it(tmp_path, rel):
    bare = _bare(rel)
    assert "issue_md" in [kind for kind, _ in detect(bare, name="issue.md")]
    titled, bare_folder = tmp_path / "titled", tmp_path / "bare"
    for folder, text in ((titled, "# " + bare), (bare_folder, bare)):
        folder.mkdir()
        (folder / "issue.md").write_text(text, encoding="utf-8")
    with_hash, _ = judged_issue(folder=titled)
    without, _ = judged_issue(folder=bare_folder)
    assert (without.category, without.confidence) == (with_hash.category, with_hash.confidence)


def test_only_a_file_named_issue_is_read_by_its_bare_title():
    text = "Speed comparison of two layouts\n\nTP2 40 tok/s\nTP4 41 tok/s\nTP8 42 tok/s\n\nIs this expected?\n"
    assert issue_md.detect_named(text, "notes.txt") == 0.0
    assert issue_md.detect_named(text, "issue.md") == 0.9
    assert issue_md.detect_named(text, "bundle/ISSUE.txt") == 0.9
    # figure lines alone under the title: no sentence, no issue form, no issue
    assert issue_md.detect_named(text.replace("Is this expected?\n", ""), "issue.md") == 0.0


@pytest.mark.parametrize("first", [
    "host1:1234:1234 [0] NCCL INFO Bootstrap : Using eth0:10.0.0.1<0>",   # NCCL's own prefix
    "NCCL INFO NET/IB : No device found.",
    "2024-05-01 10:00:01 INFO worker started on cuda:0",                  # a timestamp
    "Traceback (most recent call last):",
    "Here is the output of nvidia-smi topo -m:",                          # a lead-in, not a title
    "Mon Dec  7 14:08:14 2026",                                           # nvidia-smi's first line
    "tensor_parallel_size = 2",                                           # a setting
    "python -m vllm.entrypoints.openai.api_server --tensor-parallel-size 2",  # a command
    "[{\"size\": 1024, \"busbw\": 10}]",                                  # JSON
    "llama_print_timings: eval time = 5920.00 ms / 100 tokens",           # a program's own field
    "Dec  2 11:38:27 worker4 kernel: NVRM: GPU 0000:0a:00.0: RmInitAdapter failed!",  # syslog
    "user@GENOA-05:~/cuda-samples/p2pBandwidthLatencyTest$ ./p2pBandwidthLatencyTest",  # a shell prompt
    "GPU0\tGPU1\tCPU Affinity\tNUMA Affinity",                              # nvidia-smi topo -m's header
])
def test_a_printed_first_line_is_no_bare_title(first):
    assert not issue_md._bare_title(first)
    rows = "".join(f"GPU{i} X NV1 0-47 N/A\n" for i in range(6))
    text = first + "\n\n" + rows + "\nThe job hangs after this line.\n"
    assert issue_md.detect_named(text, "issue.md") == 0.0


@pytest.mark.parametrize("first", [
    "[Bug]: vLLM hangs with tensor parallel 2 on two RTX 4090",
    "💡 [REQUEST] - vLLM 部署时会占用整个显存，这个有办法限制吗？",
    "RuntimeError: NCCL error in: ProcessGroupNCCL.cpp:272, unhandled system error",
    "NCCL All-Reduce on 8x NVIDIA 5090: very poor",
])
def test_titles_as_people_write_them_are_bare_titles(first):
    assert issue_md._bare_title(first)

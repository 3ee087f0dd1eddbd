"""Pass b49c (issue 11): a pasted issue with no "# " title, written in short lines, is still the reporter's words.

A user who copies a GitHub issue pastes its title as a bare first line, then the body: an issue form's headings
("### What is the issue?", "### OS"), its one-word values ("Linux", "Nvidia"), a screenshot, and sentences typed
without their full stops. diagnose.artifacts.issue_md.detect_named counted every such line against the third of
sentences it asks of a file named issue.md, so the paste was read by no parser: no description, every rule silent,
insufficient_data. Real threads (tests/data/b49c/SOURCES.md and the folders named below): ollama/ollama#5635 and
oobabooga/text-generation-webui#1244 (kept with their "# " title; the test takes it off), ollama/ollama#961,
pytorch/pytorch#49481. The form's scaffolding now counts neither way, and a line of eight plain words counts as a
sentence typed without its stop where the file ends some sentence; logs and tool tables (printed lines, few plain
words) and fragments that end no sentence stay unread as prose.
"""

import pytest
from conftest import REPO, judged_issue

from diagnose.artifacts import issue_md
from diagnose.bundle import read_bundle
from diagnose.evidence import Note

DATA = REPO / "tests" / "data"


def _bare(rel: str) -> str:
    """The kept paste as a user copies it from GitHub: the title without its Markdown "# "."""
    text = (DATA / rel).read_text()
    return text[2:] if text.startswith("# ") else text


def _bundle(tmp_path, text: str):
    folder = tmp_path / "ticket"
    folder.mkdir()
    (folder / "issue.md").write_text(text)
    return folder


def _description_read(tmp_path, text: str) -> bool:
    facts = read_bundle([_bundle(tmp_path, text)])
    return any(n.kind == "description" and n.text for n in facts.of(Note))


def _as_pasted(rel: str, bare: bool) -> str:
    return _bare(rel) if bare else (DATA / rel).read_text()


@pytest.mark.parametrize("rel, bare", [
    ("b49c/ollama5635.md", True),       # "ollama not use all GPUs": one sentence line over the ollama form's headings
    ("b49c/textgen1244.md", True),      # "Speed when splitting model across 2 gpu's": lines typed without stops
    ("p2p41/ollama961.md", False),      # "garbage output on small models spread to many GPUs" (kept bare)
    # "# rank-0 gpu consume too high memory" over an unfenced nvidia-smi process table: the title is a heading, the
    # three sentences a third of what is left (kept with its "# ", read before by no parser)
    ("review50/pytorch49481.md", False),
])
def test_a_paste_in_short_lines_is_read_as_the_reporters_words(tmp_path, rel, bare):
    assert _description_read(tmp_path, _as_pasted(rel, bare))


@pytest.mark.parametrize("rel, bare, category", [
    ("b49c/ollama5635.md", True, "healthy"),          # maintainer: one GPU when the model fits, by design
    ("review50/pytorch49481.md", False, "healthy"),   # other processes' contexts on GPU 0 (device not set): by design
])
def test_read_so_it_gets_the_threads_answer(tmp_path, rel, bare, category):
    verdict, _ = judged_issue(folder=_bundle(tmp_path, _as_pasted(rel, bare)))
    assert verdict.category == category


@pytest.mark.parametrize("name, text", [
    # nvtop's header lines kept as an attachment (paraphrases/021-nvtop-6-gen1-at-idle-false-alarm-a)
    ("attachment1.txt", (DATA / "paraphrases/021-nvtop-6-gen1-at-idle-false-alarm-a/attachment1.txt").read_text()),
    # an issue form left empty: headings and one-word values, no sentence at all
    ("issue.md", "### What is the issue?\n\n### OS\n\nLinux\n\n### GPU\n\nNvidia\n\n### Ollama version\n\n0.2.1\n"),
    # llama.cpp's load lines pasted without a fence: tool output, few plain words each
    ("notes.txt", "llm_load_tensors: ggml ctx size =    0.27 MiB\n"
                  "llm_load_tensors: offloading 32 repeating layers to GPU\n"
                  "llm_load_tensors: offloaded 33/33 layers to GPU\n"
                  "llm_load_tensors:      CUDA0 buffer size =  4155.99 MiB\n"
                  "llama_new_context_with_model: n_ctx      = 8192\n"),
    # an nvidia-smi process table pasted alone
    ("issue.md", "|    0   N/A  N/A   2695172      C   python3                          26167MiB |\n"
                 "|    1   N/A  N/A   2695173      C   python3                            871MiB |\n"
                 "|    2   N/A  N/A   2695174      C   python3                            871MiB |\n"),
])
def test_output_and_empty_forms_are_not_taken_for_prose(name, text):
    assert issue_md.detect_named(text, name) == 0.0


def test_a_form_heading_alone_does_not_make_the_sentences(tmp_path):
    """Headings count neither way: a paste whose only 'sentence' is the form's "### What is the issue?" heading stays
    unread, as before, where the rest is a long run of fragments."""
    text = ("ollama not use all GPUs\n\n### What is the issue?\n\n4x A100\nonly one used\nsetting?\n"
            "driver 535 cuda 12.2\nollama 0.2.1 docker\nnvidia-smi screenshot attached\n")
    assert issue_md.detect_named(text, "issue.md") == 0.0

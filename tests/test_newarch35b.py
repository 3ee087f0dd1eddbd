"""Issue 11 (session s35, pass newarch35b): the build a ticket names, read from every form people give it
(rules/build_arch.build_tags): a wheel's +cuXXX tag or index URL, collect_env's "CUDA used to build PyTorch",
torch.version.cuda, nvcc's release line, conda's pytorch-cuda pin, and an NGC container tag through its release notes
(rules/catalog/ngc_containers.toml); and PyTorch wheels whose architecture list leaves an old GPU out although their
CUDA compiles for it (rules/catalog/torch_wheel_archs.toml: the 2.8 cu128/cu129 wheels without Pascal).

Tested on real first posts (tests/data/newarch35, tests/data/ut14, tests/data/ut17), paraphrases of each form, and
traps: nvidia-smi's header "CUDA Version" (the driver's newest, not a build), a tag tried before and replaced, a tag
of another machine, an old GPU on a wheel that still holds it.
"""

from pathlib import Path

import pytest
from conftest import judged_issue

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts
from rules import build_arch, catalog
from rules.engine import evaluate

DATA = Path(__file__).parent / "data"


def _said(text: str):
    return judged_issue("# question\n\n" + text + "\n")


def _builds(text: str) -> list[str]:
    """The CUDA of each build the ticket names, after the containers' release notes are read (evaluate)."""
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    evaluate(facts)
    return [v for _, v in build_arch.build_tags(facts)]


# ----------------------------------------------------------------------------- the catalog


def test_wheel_rows_say_which_wheels_dropped_pascal_and_cite_the_release_notes():
    rows = {r["variant"]: r for r in catalog.torch_wheel_archs()}
    assert rows["cu129"]["alone"] and not rows["cu128"]["alone"]   # PyTorch 2.7 shipped cu128 wheels too
    assert all(r["oldest"] == 7.0 and r["instead"] == "cu126" and "2.8.0 release notes" in r["source"]
               for r in rows.values())


# ----------------------------------------------------------------------------- real first posts


def test_comfyui9929_pascal_on_a_wheel_without_it():
    """Comfy-Org/ComfyUI#9929: a GTX 1070 (sm_61) on PyTorch 2.8.0+cu129; CUDA 12.9 compiles for Pascal, the wheel
    does not hold it."""
    verdict, findings = judged_issue((DATA / "newarch35" / "comfyui9929.md").read_text())
    f = findings["build.cuda_before_arch"]
    assert verdict.category == "other" and f.confidence == 0.55
    assert "sm_61" in f.title and "cu126" in f.fix
    (e,) = [e for e in f.evidence if e.source == "catalog:torch_wheel_archs.toml"]
    assert (e.measured, e.expected) == (6.1, 7.0)


@pytest.mark.parametrize("name, cuda", [
    ("ut14/vllm5161.md", "12.1"),    # collect_env of an RTX 4090: "CUDA used to build PyTorch: 12.1"
    ("ut17/vllm15663.md", "12.4"),   # collect_env of an H100: "CUDA used to build PyTorch: 12.4"
])
def test_collect_env_names_the_build_and_a_build_that_holds_the_gpu_is_no_lead(name, cuda):
    text = (DATA / name).read_text()
    assert "CUDA used to build PyTorch: " + cuda in text and cuda in _builds(text)
    _, findings = judged_issue(text)
    assert "build.cuda_before_arch" not in findings


# ----------------------------------------------------------------------------- each form, paraphrased


@pytest.mark.parametrize("text, cuda", [
    ("Inference on the RTX 5090 is slow inside nvcr.io/nvidia/pytorch:24.05-py3, about 10 tok/s.", "12.4"),
    ("Inference on the RTX 5090 is slow in the NGC PyTorch 24.05 container.", "12.4"),
    ("Inference on the RTX 5090 is slow. collect_env says:\n```\nPyTorch version: 2.5.1\nCUDA used to build PyTorch: "
     "12.1\nGPU models and configuration: GPU 0: NVIDIA GeForce RTX 5090\n```", "12.1"),
    ("Our H100 runs slowly. `nvcc --version`:\n```\nnvcc: NVIDIA (R) Cuda compiler driver\nCuda compilation tools, "
     "release 11.7, V11.7.99\n```\nWe built llama.cpp from source with it.", "11.7"),
    ("The RTX 5090 is slow; I installed with conda install pytorch pytorch-cuda=11.8 -c pytorch -c nvidia.", "11.8"),
    ("The RTX 5090 is very slow. print(torch.version.cuda) gives 12.1.", "12.1"),
    ("The RTX 5090 is slow. torch.__version__ prints 2.5.1+cu121.", "12.1"),
])
def test_each_form_of_an_old_build_is_read(text, cuda):
    verdict, findings = _said(text)
    assert cuda in _builds("# q\n\n" + text + "\n")
    assert verdict.category == "other" and "build.cuda_before_arch" in findings
    assert f"CUDA {cuda}" in findings["build.cuda_before_arch"].title


@pytest.mark.parametrize("text", [
    "My GTX 1080 Ti fails with a CUDA error on torch 2.8.0+cu128.",
    "My GTX 1070 gets errors on the cu129 wheel.",   # cu129 wheels exist from 2.8 on only
])
def test_an_old_gpu_on_a_wheel_without_it(text):
    verdict, findings = _said(text)
    assert verdict.category == "other" and "left out of its architecture list" in findings[
        "build.cuda_before_arch"].title


# ----------------------------------------------------------------------------- traps


@pytest.mark.parametrize("text", [
    # nvidia-smi's header: the newest CUDA the driver runs, not what the build was made with
    "The RTX 5090 is slow. nvidia-smi: NVIDIA-SMI 550.54.14 Driver Version: 550.54.14 CUDA Version: 12.4",
    "The RTX 5090 is slow; nvidia-smi shows CUDA Version: 12.4 and driver 550.54.",
])
def test_the_drivers_cuda_version_is_no_build(text):
    assert _builds("# q\n\n" + text + "\n") == []
    _, findings = _said(text)
    assert "build.cuda_before_arch" not in findings


@pytest.mark.parametrize("text", [
    "I tried cu118 before, now cu128, and the RTX 5090 is still slow.",           # a build that holds sm_120 named
    "The RTX 5090 is slow with pip install torch --index-url https://download.pytorch.org/whl/cu128",
    "On our old server with the A100 we used cu117; the new H100 box is slow with the same code.",
    "My H100 is slower than my A100 although both use the same container nvcr.io/nvidia/pytorch:24.05 (CUDA 12.4).",
    "Our V100 errors out with torch 2.8.0+cu129.",           # Volta kept in the 2.8 cu128/cu129 wheels
    "My GTX 1080 Ti gives errors with torch 2.8.0+cu126.",   # the wheel PyTorch names for Pascal
    "My GTX 1080 Ti works with torch 2.7.1+cu128 but is slow.",   # a 2.7 cu128 wheel: its list is not catalogued
])
def test_no_build_lead_where_a_build_named_holds_the_gpu(text):
    _, findings = _said(text)
    assert "build.cuda_before_arch" not in findings and "ticket.newer_arch_behind" not in findings


def test_an_ngc_tag_is_read_as_the_build_its_release_notes_state():
    """review35b a19: a container whose CUDA (12.4, ngc_containers.toml) holds sm_90 is a build named that holds the
    H100's architecture, so the newer-architecture lead gives way to the host's."""
    assert "12.4" in _builds("# q\n\nBoth use nvcr.io/nvidia/pytorch:24.05.\n")


# ----------------------------------------------------------------------------- an attached collect_env


def _bundle(tmp_path: Path, gpu: str) -> Path:
    """A ticket folder: a short complaint, and the collect_env report of vllm-project/vllm#5161 (tests/data/ut14) as
    an attached file, its GPU lines naming `gpu`."""
    report = (DATA / "ut14" / "vllm5161.md").read_text()
    report = report[report.index("PyTorch version:"):].replace("NVIDIA GeForce RTX 4090", f"NVIDIA GeForce {gpu}")
    (tmp_path / "issue.md").write_text(f"# slow\n\nGeneration on our {gpu} is very slow. collect_env attached.\n")
    (tmp_path / "collect_env.txt").write_text(report)
    return tmp_path


@pytest.mark.parametrize("gpu, lead", [("RTX 5090", True), ("RTX 4090", False)])
def test_an_attached_collect_env_names_the_build(tmp_path, gpu, lead):
    """The parsers read "CUDA used to build PyTorch: 12.1" and "2.3.0+cu121" from the attached report: a build
    before sm_120 on the RTX 5090; one that holds sm_89 on the RTX 4090 (the report's own GPU)."""
    verdict, findings = judged_issue(folder=_bundle(tmp_path, gpu))
    assert ("build.cuda_before_arch" in findings) is lead
    if lead:
        assert verdict.category == "other"
        assert any(e.source.startswith("collect_env.txt") for e in findings["build.cuda_before_arch"].evidence)

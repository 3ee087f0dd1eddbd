"""Issue 11 (s12-11v): a cloud instance type named where no GPU is ("on an EC2 g4dn.metal") is the GPUs it holds.

AWS names an instance <family>.<size> (https://docs.aws.amazon.com/ec2/latest/instancetypes/instance-type-names.html)
and lists the GPUs of each size on its family pages (rules/catalog/systems.toml cites each). An expert reads
"g5.12xlarge" as four A10G and "p4d.24xlarge" as eight A100 40GB SXM; the tool read neither, and took the "metal" of
a bare-metal size for Apple's Metal (another vendor: no verdict). The sentences below are written for this test, none
copied from a corpus case; tgi1129 (tests/data/normal_questions, a real thread) names its p4de.24xlarge the same way.
"""

from pathlib import Path

import pytest
from conftest import REPO

from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from rules import catalog, claims
from rules.common import gpu_count
from rules.engine import evaluate, ticket_verdict
from rules.subject import Subject


def _read(tmp_path: Path, text: str) -> Facts:
    (tmp_path / "issue.md").write_text(text)
    facts = read_bundle([tmp_path])
    facts.subject = Subject.of(facts)  # as rules.engine.evaluate sets it
    return facts


def _said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    facts.subject = Subject.of(facts)
    return facts


def _verdict(tmp_path: Path, text: str):
    facts = _read(tmp_path, text)
    return ticket_verdict(facts, evaluate(facts, ticket_predictions(facts)))


@pytest.mark.parametrize("name, gpu, count", [
    ("g4dn.metal", "t4", 8), ("g4dn.xlarge", "t4", 1), ("g4dn.12xlarge", "t4", 4),
    ("G5.12xlarge", "a10g", 4), ("g5.48xlarge", "a10g", 8), ("g6.xlarge", "l4", 1), ("g6e.12xlarge", "l40s", 4),
    ("p3.8xlarge", "v100-sxm2-16gb", 4), ("p3dn.24xlarge", "v100-sxm2-32gb", 8),
    ("p4d.24xlarge", "a100-40gb-sxm", 8), ("p4de.24xlarge", "a100-80gb-sxm", 8),
    ("p5.48xlarge", "h100-sxm", 8), ("p5e.48xlarge", "h200-sxm", 8),
    # Google Cloud: <series>-<type>-<GPUs>g, and G2 by its vCPUs
    ("a2-highgpu-1g", "a100-40gb-sxm", 1), ("a2-megagpu-16g", "a100-40gb-sxm", 16),
    ("a2-ultragpu-8g", "a100-80gb-sxm", 8), ("a3-highgpu-8g", "h100-sxm", 8), ("a3-ultragpu-8g", "h200-sxm", 8),
    ("g2-standard-8", "l4", 1), ("g2-standard-24", "l4", 2), ("g2-standard-96", "l4", 8),
])
def test_instance_holds_gpus(name, gpu, count):
    found = catalog.named_systems(f"on a {name} instance")
    assert len(found) == 1 and (found[0][0].gpu, found[0][0].gpus) == (gpu, count)
    assert found[0][0].source.startswith("https://")  # the vendor text it was read from (tests/test_systems.py)


@pytest.mark.parametrize("name", ["m5.metal", "c5.24xlarge", "g4dn.3xlarge", "p4d.xlarge", "g5", "A100", "", None,
                                  "n1-standard-8", "a2-highgpu-3g", "g2-standard-6"])
def test_no_guess(name):
    """A family with no GPUs, a size the family does not have, or no instance form: nothing is read."""
    assert catalog.named_systems(f"on a {name} instance" if name else name) == []


@pytest.mark.parametrize("text, gpu, count", [
    ("Serving Llama-2-13B with vLLM on a g5.12xlarge, one request gets 20 tok/s. Normal?", "a10g", 4),
    ("We rent p4d.24xlarge nodes and run Mixtral there; decode is 45 tokens/s for a single user.", "a100-40gb-sxm", 8),
    ("Our EC2 g6.xlarge box does 30 tok/s with llama3 8b, is that expected?", "l4", 1),
    ("On a GCP a2-ultragpu-2g VM, vLLM serves Llama-3-8B at 90 tokens/s per request.", "a100-80gb-sxm", 2),
    ("Benchmarking on g2-standard-24 (Google Cloud) with TGI: 25 tok/s for Mistral 7B.", "l4", 2),
    # a count the reporter states wins over the instance's
    ("On a g4dn.metal using only 2 GPUs, llama.cpp gives 9 tok/s on a 13B model.", "t4", 2),
])
def test_ticket_reads_instance(tmp_path, text, gpu, count):
    facts = _read(tmp_path, text)
    assert facts.subject.gpu is not None and facts.subject.gpu.key == gpu
    assert gpu_count(facts) == count


def test_named_gpu_wins(tmp_path):
    """The GPUs named beside an instance type are the reporter's reading of it: the name is kept."""
    facts = _read(tmp_path, "Running on an AWS instance (p4d.24xlarge) with 8x A100 80GB, vLLM gives 30 tok/s.")
    assert facts.subject.gpu.key.startswith("a100-80gb")


@pytest.mark.parametrize("text", [
    "The issue shows on our m5.metal CI hosts and on a g4dn.metal as well.",
    "Tried it on i3.metal and c5n.metal: the same error.",
])
def test_bare_metal_size_is_not_apple(text):
    assert claims.other_vendor(_said(text)) is None


@pytest.mark.parametrize("text", [
    "On my Mac Studio the Metal backend is 2x faster.",
    "llama.cpp with Metal on an M2 Max gives 30 tok/s.",
])
def test_apple_metal_still_other_vendor(text):
    assert claims.other_vendor(_said(text)) is not None


def test_same_figure_judged_by_the_instance(tmp_path):
    """One 70B 4-bit figure, split by llama.cpp over the instance's GPUs: at eight T4s' pace (320 GB/s each) 7 tok/s
    is the hardware; at eight A100s' pace it is far below what they give."""
    text = ("Llama-2-70B as a 4-bit GGUF (Q4_K_M) with llama.cpp on an EC2 {}, layers spread over all its GPUs. "
            "Generation tops out around 7 tokens/s. Is that what this hardware can do?")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    t4 = _verdict(tmp_path / "a", text.format("g4dn.metal"))
    a100 = _verdict(tmp_path / "b", text.format("p4d.24xlarge"))
    assert t4.category == "expected_physics" and t4.confidence < 0.7
    assert a100.category == "other"


def test_real_thread_names_its_instance():
    """tgi1129 (https://github.com/huggingface/text-generation-inference/issues/1129) names only 'p4de.24xlarge'."""
    facts = read_bundle([REPO / "tests" / "data" / "normal_questions" / "tgi1129.md"])
    facts.subject = Subject.of(facts)
    assert facts.subject.gpu.key == "a100-80gb-sxm" and gpu_count(facts) == 8


@pytest.mark.parametrize("text, gpu, count", [
    ("Deployed on a SageMaker endpoint, instance type ml.g5.12xlarge, 20 tok/s per request.", "a10g", 4),
    ("Our ml.p4d.24xlarge endpoint serves Llama-2-70B.", "a100-40gb-sxm", 8),
])
def test_sagemaker_prefix_names_the_ec2_type(text, gpu, count):
    """SageMaker writes an EC2 instance type with 'ml.' (https://aws.amazon.com/sagemaker/pricing/)."""
    (spec, _), = catalog.named_systems(text)
    assert (spec.gpu, spec.gpus) == (gpu, count)


def test_a_dotted_word_before_an_alias_is_not_a_prefix():
    assert catalog.named_systems("see html.g5.12xlarge") == []

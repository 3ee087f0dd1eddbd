"""GPUs named in public slow-inference threads that the catalog lacked (issue 11): each row resolves from the
wordings those threads use, holds its datasheet's figures, and a name two cards share maps only with its qualifier.

The wordings are quoted from the threads cited beside them; the figures from the NVIDIA pages each row cites.
"""

import pytest

from diagnose.artifacts.issue_md import GPU_NAME
from diagnose.bundle import read_bundle
from rules import catalog
from rules.catalog import find_gpu, find_gpu_family
from rules.engine import evaluate


# (text as written, row): the free-text and tool-printed forms of the threads
@pytest.mark.parametrize("text, key", [
    ("RTX 8000", "quadro-rtx-8000"),  # "I have 2 RTX 8000 GPU's" (github.com/AlexeyAB/darknet/issues/6824)
    ("RTX8000", "quadro-rtx-8000"),  # "用RTX8000训练" (github.com/caiyuanhao1998/Retinexformer/issues/218)
    ("Quadro RTX 8000", "quadro-rtx-8000"),
    ("RTX 5880 ADA", "rtx-5880-ada"),  # title of github.com/chatchat-space/Langchain-Chatchat/issues/3764
    ("RTX 5880", "rtx-5880-ada"),  # "Qwen1.5  RTX 5880 四卡推理" (same thread)
    ("NVIDIA RTX 5880 Ada Generation", "rtx-5880-ada"),  # ollama's log line (github.com/ollama/ollama/issues/11577)
    # "on an Nvidia A2 GPU", "Slow Inference on A2" (github.com/microsoft/VPTQ/issues/86)
    ("Nvidia A2", "a2"), ("A2", "a2"),
])
def test_thread_wordings_resolve_to_the_new_rows(text, key):
    assert find_gpu_family(text).key == key
    assert catalog.gpu(text).key == key  # `predict --gpu TEXT` takes the same row


@pytest.mark.parametrize("name, key", [
    ("Quadro RTX 8000", "quadro-rtx-8000"), ("NVIDIA RTX 5880 Ada Generation", "rtx-5880-ada"), ("NVIDIA A2", "a2"),
])
def test_nvml_names_map_exactly(name, key):
    assert find_gpu(name=name).key == key


@pytest.mark.parametrize("key, figures", [
    # Quadro RTX 8000 datasheet: 48 GB, 672 GB/s, 16.3 TFLOPS FP32, 130.5 tensor, NVLink 100 GB/s bidirectional
    ("quadro-rtx-8000", dict(memory_gb=48, hbm_gbs=672, fp32_tflops=16.3, fp16_tflops=130.5, fp8_tflops=0,
                             nvlink_gbs=50, pcie_gen=3, pcie_lanes=16, compute_capability=7.5)),
    # RTX 5880 Ada page: 48 GB, 960 GB/s, 69.3 TFLOPS FP32, 1,108.4 tensor TFLOPS (FP8 with sparsity), 285 W, no NVLink
    ("rtx-5880-ada", dict(memory_gb=48, hbm_gbs=960, fp32_tflops=69.3, fp8_tflops=1108.4 / 2,
                          bf16_tflops=1108.4 / 4, tdp_w=285, nvlink_gbs=0, pcie_gen=4, compute_capability=8.9)),
    # A2 datasheet: 16 GB, 200 GB/s, FP32 4.5, BF16/FP16 18 dense (36 sparse), INT8 36, PCIe Gen4 x8, 60 W
    ("a2", dict(memory_gb=16, hbm_gbs=200, fp32_tflops=4.5, bf16_tflops=18, fp16_tflops=18, int8_tops=36,
                tdp_w=60, pcie_gen=4, pcie_lanes=8, nvlink_gbs=0, compute_capability=8.6)),
])
def test_rows_hold_their_datasheet_figures(key, figures):
    spec = catalog.gpu(key)
    assert {f: getattr(spec, f) for f in figures} == pytest.approx(figures, rel=0.002)


def test_turing_twins_share_compute_and_differ_in_memory():
    """The Quadro RTX 6000 and 8000 are one TU102 board with 24 or 48 GB: the same rate, link and clock."""
    six, eight = catalog.gpu("quadro-rtx-6000"), catalog.gpu("quadro-rtx-8000")
    same = ("hbm_gbs", "fp16_tflops", "fp32_tflops", "sms", "max_clock_mhz", "nvlink_gbs", "interconnect")
    assert [getattr(six, f) for f in same] == [getattr(eight, f) for f in same]
    assert (six.memory_gb, eight.memory_gb) == (24, 48)


def test_a_shared_device_id_maps_no_row():
    """25B6 is both the A2 and the A16 ('GA107GL [A2 / A16]'); 1E30 both Quadro RTX 6000 and 8000."""
    assert find_gpu(pci_device_id="0x25B610DE") is None
    assert find_gpu(pci_device_id="10de:1e30") is None


@pytest.mark.parametrize("text, key", [
    ("Quadro RTX 6000", "quadro-rtx-6000"), ("Quadro RTX 8000", "quadro-rtx-8000"),
    ("RTX 6000 Ada", "rtx-6000-ada"), ("RTX PRO 6000 Blackwell", "rtx-pro-6000-blackwell"),
    # "Pro" after the number, as owners write it: "two rtx 6000 pro blackwell", "rtx 6000 pro's"
    # (github.com/vllm-project/vllm/issues/22479); it was the Ada card's row (960 vs 1792 GB/s)
    ("rtx 6000 pro blackwell", "rtx-pro-6000-blackwell"), ("RTX 6000 Pro", "rtx-pro-6000-blackwell"),
])
def test_a_qualified_rtx_6000_maps_to_its_own_card(text, key):
    assert find_gpu_family(text).key == key


def test_a_bare_rtx_6000_names_no_row(tmp_path):
    """'RTX 6000' is the Turing Quadro, the Ada card or (as owners write it) the RTX PRO 6000 Blackwell: with no word
    that tells them apart the ticket's subject has no GPU row (gpuname35; it was read as the Ada card before)."""
    (tmp_path / "ticket.toml").write_text('description = "Two RTX 6000 cards, vLLM TP=2 is slow."\n\n'
                                          '[hardware]\ngpu = "RTX 6000"\ngpu_count = 2\n')
    facts = read_bundle(tmp_path)
    evaluate(facts)
    assert facts.subject.gpu is None


@pytest.mark.parametrize("sentence, names", [
    # the threads' own sentences
    ("I have 2 RTX 8000 GPU's and I connected with a 2-slot NVLink HB.", ["RTX 8000"]),
    ("Qwen1.5 RTX 5880 ADA 四卡推理比双卡还慢", ["RTX 5880 ADA"]),
    ("I'm encountering performance issues with VPTQ on an Nvidia A2 GPU.", ["A2"]),
    # paraphrases and other forms, not from those threads
    ("Our box has four Quadro RTX 8000s behind a PLX switch.", ["Quadro RTX 8000"]),
    ("4x Quadro RTX 6000 over PCIe", ["Quadro RTX 6000"]),
    ("Deployed on a Tesla A2 16GB in the edge server.", ["A2 16GB"]),
    # a bare A2 is no GPU: a section, Google Cloud's A2 (A100) machine family
    ("See section A2 of the appendix.", []), ("We rent a2-highgpu-8g VMs on GCP.", []),
    ("tensor parallel is broken for rtx 6000 pro's", ["rtx 6000 pro"]),
    ("4x RTX 6000 PRO Blackwell Max-Q on PCIe 5", ["RTX 6000 PRO Blackwell"]),
    # "V100S" is NVIDIA's PCIe card (1134 GB/s, its own row); "V100s" is a plural of the V100
    ("We run 4x Tesla V100S on PCIe.", ["V100S"]), ("V100S PCIe 32GB", ["V100S PCIe 32GB"]),
    ("two V100s over NVLink", ["V100s"]),  # (the resolver reads it: V100 plural, test_gpu_names_one_reading)
    # negations: each card named is read as itself, for the rules to weigh
    ("It is NOT an A2, it is an A10.", ["A10"]),
    ("This is an RTX 6000 Ada, not an RTX 6000 Pro.", ["RTX 6000 Ada", "RTX 6000 Pro"]),
])
def test_prose_names_the_new_cards(sentence, names):
    assert [m.group(1) for m in GPU_NAME.finditer(sentence)] == names


@pytest.mark.parametrize("name", ["V100S", "V100S PCIe 32GB", "Tesla V100S-PCIE-32GB"])
def test_the_v100s_is_its_own_pcie_card(name):
    spec = find_gpu_family(name)
    assert (spec.key, spec.hbm_gbs, spec.nvlink_gbs) == ("v100s-pcie", 1134, 0)  # datasheet: 1134 GB/s, no NVLink
    assert find_gpu_family("V100").key == "v100-sxm2-32gb"  # the bare family stays the SXM2 board

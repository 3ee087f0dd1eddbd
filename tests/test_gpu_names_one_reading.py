"""One GPU name, one catalog row, in every command (issue 11, defect 2).

`diagnose predict`, `plan` and `scaling` read `--gpu`; `diagnose ticket` reads the reporter's
`[hardware] gpu` and the GPUs its prose names. All of them go through rules.catalog.resolve_gpu,
so the same string must give the same row everywhere. The spellings are the forms the tools and
people print: nvidia-smi / NVML names (with and without "NVIDIA ", "Tesla "), torch's
get_device_name (the NVML name), marketing names, catalog keys, lower case, doubled spaces,
counts ("8x H100", "2 x 3090", "4*4090") and plurals ("V100s" is V100s, not NVIDIA's V100S; but "L40s" is how owners
write the L40S, gpus.toml written_lower_s).
"""

import json

import pytest
from conftest import diagnose

from diagnose.artifacts.issue_md import GPU_NAME
from diagnose.bundle import read_bundle
from rules import catalog
from rules.subject import Subject

SPELLINGS = {
    # nvidia-smi --query-gpu=name / torch.cuda.get_device_name
    "NVIDIA H100 80GB HBM3": "h100-sxm",
    "NVIDIA A100-SXM4-80GB": "a100-80gb-sxm",
    "A100-SXM4-80GB": "a100-80gb-sxm",
    "NVIDIA A100-SXM4-40GB": "a100-40gb-sxm",
    "Tesla V100-SXM2-32GB": "v100-sxm2-32gb",
    "Tesla V100S-PCIE-32GB": "v100s-pcie",
    "NVIDIA GeForce RTX 4090": "rtx-4090",
    "NVIDIA GeForce RTX 4090 D": "rtx-4090-d",
    "NVIDIA RTX 6000 Ada Generation": "rtx-6000-ada",
    "NVIDIA L40S": "l40s",
    "Tesla T4": "t4",
    "NVIDIA A10G": "a10g",
    "NVIDIA  A2": "a2",  # two spaces, as pasted from a padded table
    "  NVIDIA H100 PCIe ": "h100-pcie",
    # marketing names and shorthand
    "H100 80GB HBM3": "h100-sxm",
    "H100 SXM": "h100-sxm",
    "H100 NVL": "h100-nvl",
    "RTX 4090": "rtx-4090",
    "GeForce RTX 3090": "rtx-3090",
    "RTX 3090 Ti": "rtx-3090-ti",
    "RTX A6000": "rtx-a6000",
    "V100S": "v100s-pcie",
    "L40S": "l40s",
    "B200": "b200",
    # catalog keys and lower case
    "h100-sxm": "h100-sxm",
    "l40s": "l40s",
    "v100s": "v100s-pcie",
    "rtx 4090": "rtx-4090",
    "a100-80gb-pcie": "a100-80gb-pcie",
    # counts
    "8x H100": "h100-sxm",
    "8 x H100 80GB HBM3": "h100-sxm",
    "2 x 3090": "rtx-3090",
    "4*4090": "rtx-4090",
    "4x4090": "rtx-4090",
    "8×A100-SXM4-80GB": "a100-80gb-sxm",
    "A100-SXM4-80GB x 8": "a100-80gb-sxm",
    # plurals: a lower-case s after the number, where the writer uses case ...
    "V100s": "v100-sxm2-32gb",
    "8 V100s": "v100-sxm2-32gb",
    "2 RTX 3090s": "rtx-3090",
    # ... unless owners write that S product's own S in lower case (r13a: public text's "L40s" is the L40S)
    "L40s": "l40s",
    "4 A100's": "a100-80gb-sxm",
}


def test_the_table_is_big_enough():
    assert len(SPELLINGS) >= 30


@pytest.mark.parametrize("text, key", sorted(SPELLINGS.items()))
def test_resolver(text, key):
    assert catalog.resolve_gpu(text).key == key


def _json(*args) -> dict:
    result = diagnose(*args, "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    return json.loads(result.stdout)


def _ticket_gpu(tmp_path, text: str) -> str | None:
    (tmp_path / "ticket.toml").write_text(
        'description = "Decode is slower than we expected."\n\n'
        f"[hardware]\ngpu = {json.dumps(text)}\n\n[workload]\nmodel = \"llama-3-8b\"\n")
    return getattr(Subject.of(read_bundle([str(tmp_path)])).gpu, "key", None)


@pytest.mark.parametrize("text", sorted(SPELLINGS))
def test_every_command_reads_the_same_row(text, tmp_path):
    want = catalog.resolve_gpu(text).key
    predict = _json("predict", "--model", "llama-3-8b", "--gpu", text, "--tp", "1")["inputs"]["gpu"]
    plan = _json("plan", "--model", "llama-3-8b", "--gpu", text, "--gpus", "1", "--context", "4096",
                 "--dtype", "int4")["inputs"]["gpu"]
    scaling = _json("scaling", "samples/scaling/runs.csv", "--model", "llama-2-7b", "--gpu", text,
                    "--engine", "gpt-fast")["inputs"]["gpu"]
    assert (predict, plan, scaling, _ticket_gpu(tmp_path, text)) == (want,) * 4


@pytest.mark.parametrize("sentence, key", [
    ("We serve Llama 3 on 8 V100s over NVLink.", "v100-sxm2-32gb"),
    ("Our box has four V100S cards.", "v100s-pcie"),
    ("the cluster nodes carry v100s", "v100s-pcie"),
    ("I benchmarked two RTX 3090s against each other.", "rtx-3090"),
    ("Tried it on 4 L40s and on 4 L40S too.", "l40s"),
])
def test_ticket_prose_reads_names_as_the_resolver(sentence, key):
    """The ticket's prose pattern cuts the plural off the name it hands to the resolver."""
    m = GPU_NAME.search(sentence)
    assert catalog.resolve_gpu(m.group(1)).key == key
    assert catalog.resolve_gpu(m.group(0).strip()).key == key


def test_unknown_names_still_refused():
    result = diagnose("predict", "--model", "llama-3-8b", "--gpu", "8x Radeon 7900", "--tp", "1")
    assert result.exit_code == 2
    assert "unknown GPU" in result.stderr and "Traceback" not in result.stderr


@pytest.mark.parametrize("text", ["NVIDIA GeForce RTX 4070 Laptop GPU", "RTX 4080 Laptop", "RTX 5090 Laptop",
                                  "NVIDIA GeForce RTX 4060 Laptop GPU", "NVIDIA GeForce RTX 3080 Laptop GPU"])
def test_a_laptop_part_never_takes_its_desktop_namesakes_row(text):
    """A laptop part has its own SMs, memory and clocks; without a row of its own it stays unknown."""
    spec = catalog.resolve_gpu(text)
    assert spec is None or "laptop" in spec.key


# (r13a) How a lower-case s after the number reads follows how owners write each S product, measured in public text
# (gpus.toml written_lower_s, cited in the rows): "L40s" names the L40S, "V100s" is V100s. Paraphrases and negations
# not taken from the text the flag was measured on.
@pytest.mark.parametrize("sentence, keys", [
    ("Each node carries 2 L40s GPUs behind one PCIe switch.", ["l40s"]),
    ("I rent one Nvidia L40s on a cloud box.", ["l40s"]),
    ("Llama 70B in fp8 over 4x L40s, TP=4.", ["l40s"]),
    ("It is NOT an L40S, it is a plain L40.", ["l40s", "l40"]),
    ("We have two L40 cards, not the S version.", ["l40"]),
    ("Our DGX-1 has 8 V100s on NVLink.", ["v100-sxm2-32gb"]),
    ("The V100S PCIe cards were ruled out; we run V100s.", ["v100s-pcie", "v100-sxm2-32gb"]),
])
def test_lower_case_s_follows_how_each_product_is_written(sentence, keys):
    assert [catalog.resolve_gpu(m.group(1)).key for m in GPU_NAME.finditer(sentence)] == keys


def test_only_an_s_product_claims_its_lower_case_s():
    # the flag marks a product whose own name ends in S after its number, and whose S-less namesake is a real row
    flagged = [g for g in catalog._catalog().gpu.values() if g.written_lower_s]
    assert [g.key for g in flagged] == ["l40s"]
    for g in flagged:
        assert g.name.endswith("S") and catalog.find_gpu(name=g.name[:-1]) is not None


@pytest.mark.parametrize("text, mixed", [
    # a plural in a sentence beside the product's name in the title: one product (was "V100, V100S": straggler 0.65)
    ("# SGLang on V100 fails\n\nRunning sglang with --tp 2 on two V100s:\n```\nRuntimeError: CUDA error: no kernel "
     "image is available for execution on the device\n```\n", False),
    ("# vLLM on A100\n\nWe have four A100s, tensor parallel 4 crashes.\n", False),
    # two products in one inventory still are two
    ("# Two cards\n\n- GPU: RTX 4090\n- GPU: RTX 3060\n\nllama.cpp splits the layers and it is slow.\n", True),
])
def test_a_plural_in_prose_names_the_same_product(tmp_path, text, mixed):
    (tmp_path / "issue.md").write_text(text)
    report = json.loads(diagnose("ticket", str(tmp_path), "--json", "--fail-on", "never").stdout)
    assert any(f["rule"] == "ticket.mixed_gpus" for f in report["findings"]) == mixed

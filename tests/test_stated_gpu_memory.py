"""A ticket that states its GPUs' memory differently from the catalog row (a modded RTX 4090 48GB, an nvidia-smi total)
is read with the stated size for weights-fit and the KV budget (rules.subject); totals, host RAM and model sizes
are not a board's memory."""

import json

import pytest
from click.testing import CliRunner

from diagnose.bundle import read_bundle
from diagnose.cli import cli
from diagnose.evidence import GpuFact
from rules.engine import evaluate


def _subject(tmp_path, text: str):
    (tmp_path / "issue.md").write_text(text, encoding="utf-8")
    facts = read_bundle(tmp_path)
    evaluate(facts)
    return facts


# https://github.com/sgl-project/sglang/issues/7568 (the reporter's own lines): two RTX 4090 48GB boards, Qwen3-32B
SGLANG_7568 = """# Performance regression: 4090 GPUs slower on v0.4.8-cu126 (was 27→20 tokens/sec, A100 unaffected)

Hi! After upgrading from `lmsysorg/sglang:v0.4.6.post5-cu124` to `lmsysorg/sglang:v0.4.8-cu126`, I've noticed a \
**significant drop in generation speed** and GPU utilization on my setup with 2x4090 (48Gb each).
- **v0.4.6:** 27 tokens/sec, GPU usage 100%
- **v0.4.8:** 20 tokens/sec, GPU usage ~75%

No other changes were made except switching the Docker image.

On an A100 80Gb, both versions work fine — no speed or GPU usage drop.

### Environment

- **GPUs:** 2x4090 48Gb
- **Model:** Qwen3-32B
"""


def test_a_modded_4090_48gb_is_read_with_its_own_memory_and_the_16_bit_weights_fit(tmp_path):
    facts = _subject(tmp_path, SGLANG_7568)
    gpu = facts.subject.gpu
    assert (gpu.key, gpu.memory_gb, gpu.hbm_gbs) == ("rtx-4090", 48, 1008)  # bandwidth still the row's
    # the first mention (line 3, "2x4090 (48Gb each)") carries its size in brackets
    assert "memory 48 GB a GPU" in facts.subject.gpu_source and "'4090 (48Gb each)'" in facts.subject.gpu_source
    assert "larger than any variant" not in gpu.memory_said  # the catalog knows the 48 GB mod
    report = facts.to_dict()  # (the facts stay what was read)
    assert "subject" not in report


def test_the_ticket_says_where_the_memory_came_from_and_assumes_no_quantisation(tmp_path):
    (tmp_path / "issue.md").write_text(SGLANG_7568, encoding="utf-8")
    run = CliRunner().invoke(cli, ["ticket", str(tmp_path), "--json", "--fail-on", "never"])
    assert run.exit_code == 0, run.output
    report = json.loads(run.output)
    judged = next(f for f in report["findings"] if f["rule"] == "ticket.measured_vs_expected")
    said = {e["source"]: e["detail"] for e in judged["evidence"]}
    assert "issue.md:3" in said["prediction:memory"] and "not the catalog's 24 GB" in said["prediction:memory"]
    assert not any("quantised" in str(e["detail"]) for e in judged["evidence"])


@pytest.mark.parametrize("said, key, memory", [
    # paraphrases of the same boards
    ("I run Qwen3-32B on 2x RTX 4090 48GB and get 20 tok/s.", "rtx-4090", 48),
    ("Serving Qwen3-32B with 2 x RTX 4090 48GB cards gives 20 tok/s.", "rtx-4090", 48),
    # modded 2080 Ti 22GB (https://github.com/Tencent-Hunyuan/HunyuanVideo/issues/103 "2080ti 22g 双卡"): 22 is
    # also 2 x 11, but it is the board's known mod, so one board's memory
    ("I run Llama-2-13B on 2x 2080 Ti 22GB and get 20 tok/s.", "rtx-2080-ti", 22),
    # a size the catalog has a row for resolves to that row, with no note
    ("I run Qwen3-32B on 2x A100 40GB and get 20 tok/s.", "a100-40gb-sxm", 40),
    ("I run Llama-2-13B on 1x H100 NVL 94GB and get 20 tok/s.", "h100-nvl", 94),
    ("I run Llama-2-13B on 1x RTX 6000 Ada 48GB and get 20 tok/s.", "rtx-6000-ada", 48),
    ("I run Llama-2-13B on 1x L40S 48GB and get 20 tok/s.", "l40s", 48),
    # the sum over the GPUs is no board's memory: 2 x 24
    ("I run Qwen3-32B on 2x RTX 3090 48GB and get 20 tok/s.", "rtx-3090", 24),
    # host RAM, a model's size, a negation: the catalog's size holds
    ("I run Qwen3-32B on 1x RTX 4090, 64GB RAM and get 20 tok/s.", "rtx-4090", 24),
    ("I run Qwen3-32B on 1x RTX 3090 48GB RAM and get 20 tok/s.", "rtx-3090", 24),
    ("I run Qwen3-32B on 1x RTX 3090 48GB of system RAM and get 20 tok/s.", "rtx-3090", 24),
    ("I run Qwen3-32B on 1x RTX 4090 64GB RAM and get 20 tok/s.", "rtx-4090", 24),
    ("I load a 48GB model on 1x RTX 4090 and get 20 tok/s.", "rtx-4090", 24),
    ("I run Llama-2-13B on 1x RTX 4090 (a stock one, not the 48GB version) and get 20 tok/s.", "rtx-4090", 24),
])
def test_which_stated_sizes_are_a_boards_memory(tmp_path, said, key, memory):
    gpu = _subject(tmp_path, f"# slow decode\n\n{said}\n").subject.gpu
    assert (gpu.key, gpu.memory_gb) == (key, memory)
    assert bool(gpu.memory_said) == (memory != _row(key).memory_gb)


def test_a_size_larger_than_any_variant_is_kept_as_the_reporters_figure(tmp_path):
    gpu = _subject(tmp_path, "# slow\n\nI run Llama-2-13B on 1x RTX 3080 20GB and get 20 tok/s.\n").subject.gpu
    assert (gpu.key, gpu.memory_gb) == ("rtx-3080", 20)
    assert "the reporter's figure" in gpu.memory_said


# the table's head as nvidia-smi 565 prints it (https://github.com/sgl-project/sglang/issues/7568)
SMI_HEAD = """+-----------------------------------------------------------------------------------------+
| NVIDIA-SMI 565.57.01              Driver Version: 565.57.01      CUDA Version: 12.7     |
|-----------------------------------------+------------------------+----------------------+
| GPU  Name                 Persistence-M | Bus-Id          Disp.A | Volatile Uncorr. ECC |
| Fan  Temp   Perf          Pwr:Usage/Cap |           Memory-Usage | GPU-Util  Compute M. |
|                                         |                        |               MIG M. |
|=========================================+========================+======================|
"""


def test_an_nvidia_smi_total_within_a_few_percent_of_the_row_is_the_rows_size(tmp_path):
    """nvidia-smi's totals sit under the marketed size: 46068 MiB on an L40S
    (https://github.com/modal-labs/modal-client/pull/2797); that is the 48 GB row, not another board."""
    smi = ("```\n" + SMI_HEAD
           + "|   0  NVIDIA L40S                    On  |   00000000:00:03.0 Off |                    0 |\n"
           "| N/A   27C    P8             25W /  350W |       4MiB /  46068MiB |      0%      Default |\n```\n")
    facts = _subject(tmp_path, f"# slow\n\nI run Llama-2-13B and get 20 tok/s.\n\n{smi}")
    assert [g.memory_total_mib for g in facts.of(GpuFact)] == [46068]
    assert (facts.subject.gpu.key, facts.subject.gpu.memory_gb, facts.subject.gpu.memory_said) == ("l40s", 48, "")


def test_an_nvidia_smi_total_of_another_size_is_the_boards_memory(tmp_path):
    """A 4090 whose nvidia-smi total is 49140 MiB (the row of a public Kimi-Audio run log on a 48 GB 4090; RTX A6000
    and RTX 6000 Ada 48 GB boards print the same total) is a 48 GB board; the parsed total outweighs the name."""
    smi = ("```\n" + SMI_HEAD
           + "|   0  NVIDIA GeForce RTX 4090        Off |   00000000:00:08.0 Off |                  Off |\n"
           "| 50%   50C    P2            244W /  450W |   30436MiB /  49140MiB |     60%      Default |\n```\n")
    facts = _subject(tmp_path, f"# slow\n\nI run Qwen3-32B on 1x RTX 4090 and get 20 tok/s.\n\n{smi}")
    gpu = facts.subject.gpu
    assert (gpu.key, gpu.memory_gb) == ("rtx-4090", 48)
    assert "nvidia-smi's total of 49140 MiB" in gpu.memory_said


def _row(key):
    from rules import catalog
    return catalog.gpus()[key]

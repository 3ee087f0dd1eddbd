"""ticket.explained sets a per-GPU memory figure against the 16-bit weights each GPU holds: under tensor parallelism
1/tp of them. sgl-project/sglang#4118 (tests/data/p49g): a 32B model at --tp-size 2 and 4 takes "about 43GB of VRAM
each" on every GPU: SGLang's --mem-fraction-static reservation, above the 40 GB (TP2) or 20 GB (TP4) of weights a GPU
holds; set against the whole model's 80 GB it was read as no reservation."""

import pytest
from conftest import judged_issue, judged_kept_paste


def test_a_reservation_on_every_gpu_of_a_tp_group_is_by_design(tmp_path):
    verdict, found = judged_kept_paste(tmp_path, "p49g/sglang4118.md")
    assert found["ticket.explained"].category == "healthy"
    assert verdict.category == "healthy"


@pytest.mark.parametrize("launch,each", [
    ("--tp-size 1", 43),   # one GPU holds all 80 GB of 16-bit weights: 43 GB is no reservation above them
    ("--tp-size 2", 30),   # 30 GB per GPU is below the 40 GB of weights each holds: quantised, not reserved
])
def test_a_figure_below_the_weights_each_gpu_holds_is_no_reservation(launch, each):
    text = ("# Request help: VRAM usage\n\n"
            f"When I run `python -m sglang.launch_server --model-path Qwen/Qwen2.5-32B-Instruct {launch}`, "
            f"my GPUs take up about {each}GB of VRAM each. Why is that?\n")
    _, found = judged_issue(text)
    assert "ticket.explained" not in found or found["ticket.explained"].category != "healthy"


@pytest.mark.parametrize("text", [
    # (r49b) a whole model's requirement or total at TP>1 is no per-GPU figure: no share of it is divided out
    "# how many GPUs for 70B with vLLM?\n\nThe Llama-2-70B model requires 140 GB of VRAM in fp16. Is "
    "--tensor-parallel-size 2 on 2x A100 80GB enough with vLLM, or do I need tp=4?\n",
    "# vLLM memory\n\nServing Llama-2-70B with vLLM --tensor-parallel-size 4 on 4x A100 80GB. In total the 70B model "
    "uses 150 GB across the four GPUs. Is that normal?\n",
])
def test_a_whole_model_figure_is_not_divided_by_the_tp_size(text):
    _, found = judged_issue(text)
    assert "ticket.explained" not in found or found["ticket.explained"].category != "healthy"


def test_a_figure_said_per_gpu_with_a_hyphen_is_each_gpus_share():
    # (r49d) "per-GPU" is each GPU's figure: 43 GB above the 40 GB of a 32B model's weights each of TP=2 holds
    _, found = judged_issue("# High memory use with SGLang\n\nI serve Qwen2.5-32B with SGLang --tp 2 on two A100 80GB. "
                            "The 32B model uses 43 GB per-GPU. Is that normal?\n")
    assert found["ticket.explained"].category == "healthy"

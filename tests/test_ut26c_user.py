"""Defects found by answering real forum and blog posts about multi-GPU speed as a support engineer (session s26, pass
ut26c, tests/data/ut26c; SOURCES.md gives each post's address, the answer it established and the verdict before and
after), fixed in general and tested on the paste that showed them, on real sentences of other posts, and on real
near-misses:

- llama.cpp's "PP" (prompt processing) row of a results table was read as a decode rate ("| PP | 310.1 tok/s |",
  peuqui/AIfred-Intelligence's tensor-split benchmark), a figure above the model's roofline that then led the verdict
  (issue_md._prompt_rate);
- GPUs the writer only planned to buy were counted as the machine's ("The plan was originally to buy four RTX
  3090s", platform-fools.pages.dev) (issue_md._planned);
- several boards counted and set against one board named by its memory or model ("Is 2x V100 16GB Faster Than One
  32GB Card?", knightli.com) was no scaling question (claims._boards_compared);
- llama-server's --tensor-split proportions (one a GPU) and --split-mode were not read, so a launch line over two GPUs
  gave no count, and "-sm tensor" still read as a layer split (launch._split_gpus, gpus_in_use.layer_split_engine).
"""

from pathlib import Path

import pytest
from conftest import finding, report_json, said

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement, Workload
from rules import claims
from rules.gpus_in_use import layer_split_engine

DATA = Path(__file__).parent / "data" / "ut26c"


def verdict(name: str) -> dict:
    return report_json("ticket", str(DATA / name))


def rates(text: str) -> list[tuple[str, float]]:
    return [(m.metric, m.value) for m in issue_md.parse(text, "post.md") if isinstance(m, Measurement)]


def gpus(text: str) -> list[tuple[str | None, int | None]]:
    return [(w.gpu, w.gpu_count) for w in issue_md.parse(text, "post.md")
            if isinstance(w, Workload) and (w.gpu or w.gpu_count)]


# --------------------------------------------------------------------------- the pastes, as answered

def test_aifred_mixed_pair_is_answered_as_the_slower_card_setting_the_pace():
    """RTX 8000 + P40 split 2:1 against 11:1: the slower P40 paces every token (the post's +15 % generation at 11:1)."""
    r = verdict("aifred_rtx8000_p40.md")
    assert r["verdict"]["category"] == "straggler"
    assert finding(r, "ticket.mixed_gpus")
    # the prompt-processing row is no decode rate: nothing judges 310 tok/s against one GPU's decode pace
    assert not finding(r, "ticket.layer_split_rate")
    assert "310" not in str(r["findings"])


def test_knightli_prospective_question_is_the_scaling_answer():
    r = verdict("knightli_2xv100.md")
    assert r["verdict"]["category"] == "expected_physics"
    lead = finding(r, "ticket.scaling_question")
    assert lead and "fewest GPUs that hold the model" in lead["fix"]


def test_asym_split_counts_no_planned_gpus():
    """The machine is an RTX 4090 beside an RTX 3090; the four 3090s were a plan. No count of four reaches a finding."""
    r = verdict("asym_4090_3090_split.md")
    counts = {w.get("gpu_count") for w in r["facts"]["workload"]} - {None}
    assert counts == {2}  # llama-server's "--tensor-split 1,1": one proportion a GPU
    assert r["verdict"]["category"] != "healthy"


@pytest.mark.parametrize("name", ["spark_tp2_vs_2solo.md", "ep3_3090_two_3060.md", "p2p_5060ti_gen3x4.md"])
def test_left_pastes_give_no_confident_fault(name):
    """Left as SOURCES.md says: none is answered with a hardware fault it does not have."""
    r = verdict(name)
    assert r["verdict"]["category"] not in ("pcie_link_degraded", "p2p_disabled", "shm_fallback", "healthy")


# --------------------------------------------------------------------------- a prompt-processing rate by its label

def test_pp_row_of_a_results_table_is_no_decode_rate():
    # peuqui.github.io/AIfred-Intelligence/examples/Benchmark_Tensor_Split_EN.html
    assert rates("# Tensor Split Benchmark\n\nTwo GPUs of different speeds, a balanced split.\n\n"
                 "| PP | 310.1 tok/s | 312.5 tok/s | -0.8% | |\n") == []


def test_pp_and_out_on_one_line_keep_the_output_rate():
    # dev.to/yiqinumber1/llamacpp-b9455-finally-caught-vllm-70ts-on-2x3090-qwen-27b-uq8-1m74 (a coding session on 2x
    # RTX 3090): 1417 t/s is the prompt's pace, 81 t/s the output's
    text = "# llama.cpp on 2x3090\n\nctx 27K · pp 27K/18.8s 1417t/s · out 248/3.0s 81t/s · cold\n"
    assert rates(text) == [("decode_tok_s", 81.0)]


@pytest.mark.parametrize("label", [
    "PP=2, TP=2  --> ",  # a pipeline degree (NVIDIA/TensorRT-LLM#1144)
    "llama-3.1-8b-instruct-pp_8 |114,532 |17,517 | 29.89 | ",  # vllm-project/vllm#11500's row name
    "with tp=2 and pp 2 i get ",
    "tp4-pp2 ",
])
def test_a_pipeline_degree_is_no_prompt_label(label):
    assert not issue_md._prompt_rate(label.lower())


def test_a_generation_label_after_the_prompt_one_wins():
    assert issue_md._prompt_rate("pp512: ")
    assert not issue_md._prompt_rate("pp512: 1200 t/s and tg128: ")


# --------------------------------------------------------------------------- GPUs planned, not owned

def test_planned_gpus_are_not_the_machines():
    # platform-fools.pages.dev/posts/2026-04-11-asymmetric-splits
    text = ("I recently upgraded my Home ML Server from one GPU to multiple GPUs. The plan was originally to buy four "
            "RTX 3090s. But through random luck, I happened to get an RTX 4090 for the price of a 3090.")
    assert gpus(text) == [("RTX 4090", None)]


@pytest.mark.parametrize("text, expected", [
    # what runs, beside a GPU to come (reddit r/LocalLLaMA 1t5nw2k, via reddit.sentinel-team.org)
    ("I am running 2x RTX 5060 TI 16gb ( and about to add a third ), and my PCIe setup is pretty bad.",
     ("RTX 5060 TI 16gb", 2)),
    # an inventory (r/LocalLLaMA, "I accidentally crippled my 4x RTX 3090 LLM rig", via prismix.dev)
    ("My setup (Node #04)\n\n  • Gigabyte X399 Designare EX\n  • Threadripper 1950X\n  • 4x RTX 3090\n",
     ("RTX 3090", 4)),
])
def test_near_misses_keep_the_gpus_that_run(text, expected):
    assert gpus(text)[0] == expected


# --------------------------------------------------------------------------- several boards against one

@pytest.mark.parametrize("text", [
    "A Practical llama.cpp Multi-GPU Benchmarking Approach: Is 2x V100 16GB Faster Than One 32GB Card?",  # knightli
])
def test_several_boards_against_one_is_a_layout_question(text):
    assert claims.layout_speed_asked(said(text))


@pytest.mark.parametrize("text", [
    # one board against another, no count of several (huggingface/blog, intel-protein-language-model-protst.md)
    "A single Gaudi 2 is 2.92x faster than a single A100.",
    # a statement, no question (the same post's prose)
    "The figure also shows how distributed training scales near-linearly with 4 or 8 Gaudi 2 accelerators.",
])
def test_near_misses_compare_no_layouts(text):
    assert not claims._boards_compared(text) or not claims.layout_speed_asked(said(text))
    assert not claims.layout_speed_asked(said(text))


# --------------------------------------------------------------------------- llama-server's GPUs, from --tensor-split

@pytest.mark.parametrize("line", [
    "llama-server -m Qwen3.5-27B-Q4_K_M.gguf -ngl 99 --tensor-split 1,1",  # platform-fools.pages.dev (asym split)
    "llama-server -m Qwen3-Next-80B-A3B-Instruct-Q4_K_M.gguf -ts 11,1 -c 32768",  # peuqui AIfred: "-ts 11,1"
])
def test_tensor_split_proportions_count_the_gpus(line):
    from diagnose.artifacts import launch

    assert [w.gpu_count for w in launch.parse(line, "run.sh") if w.gpu_count] == [2]


def test_split_mode_tensor_is_no_layer_split():
    """llama.cpp told to split each layer over the GPUs (dev.to/yiqinumber1 ..., "--tensor-split 50,50 -sm tensor") runs
    them together, not one after another: no layer-split reading of its rates."""
    from diagnose.artifacts import launch
    from diagnose.evidence import Facts

    tensor = launch.parse("llama-server -m Qwen3.6-27B-UD-Q8_K_XL.gguf --tensor-split 50,50 -sm tensor", "run.sh")
    assert any(w.extra.get("split_mode") == "tensor" for w in tensor)
    engine = Workload("run.sh:1", framework="llama-server")
    assert not layer_split_engine(Facts([engine, *tensor]))
    assert layer_split_engine(Facts([engine]))  # by layer when no split mode is said (llama.cpp's default)

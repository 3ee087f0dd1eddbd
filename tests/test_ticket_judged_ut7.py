"""How `diagnose ticket` judges the figures a user-tester's tickets state (/tmp/ut7 report, items 2, 5-12, 16):
each test runs the tester's own ticket (tests/data/ut7, copied from the tickets they wrote from public
threads) and paraphrases written here, with a negation that must keep its old answer."""

from pathlib import Path

import pytest
from test_ticket_figures import _issue

DATA = Path(__file__).parent / "data" / "ut7"


def _rule(findings, name):
    return [f for f in findings if f.rule == name]


def _ticket(name: str):
    return _issue((DATA / name).read_text())


# --------------------------------------------------------------------------- item 2: a total above any batch's ceiling
@pytest.mark.parametrize("text", [
    (DATA / "huge3.md").read_text(),
    "# t\n\nWith Mistral-7B on two L40S under vLLM TP2 we get 900000 tok/s overall.\n",
    "# t\n\nOur Llama-3-8B vLLM server on one A100 80GB reaches 2000000 tokens/s in total.\n",
    "# t\n\nLlama-2-7B on one RTX 4090 with vLLM serves 450000 tokens/s in total.\n",
])
def test_a_total_no_batch_can_reach_is_the_beyond_roofline_warning(text):
    _, findings, verdict = _issue(text)
    (f,) = _rule(findings, "ticket.batched_rate")
    assert (f.category, f.severity) == ("other", "warning") and "beats the roofline" in f.title
    assert verdict.category == "other"


def test_a_total_above_the_band_but_under_the_ceiling_beats_the_band_and_never_sits_inside_it():
    _, findings, _ = _issue("# t\n\nLlama-2-7B on one H100 gives 30000 tok/s.\n")
    (f,) = _rule(findings, "ticket.batched_rate")
    assert f.category == "expected_physics" and "beats the calibrated" in f.title
    assert "inside" not in f.summary


def test_a_plausible_total_is_still_judged_against_the_batch_band():
    _, findings, _ = _issue("# t\n\nOur Llama-3-8B vLLM server on one A100 80GB gives 1500 tok/s in total "
                            "under load.\n")
    (f,) = _rule(findings, "ticket.batched_rate")
    assert f.category == "latency_bound_small_batch" and "roofline" not in f.title


# --------------------------------------------------------------------------- item 7: 'by design' beside a shortfall
def _shown(text):
    """The findings `diagnose ticket` shows (weighed as its verdict weighs them) and the verdict."""
    from rules.engine import ticket_findings

    facts, findings, verdict = _issue(text)
    return ticket_findings(facts, findings), verdict


@pytest.mark.parametrize("text", [
    "# c\n\nOne request alone gets 60 tok/s on my A100 80GB with Llama-3.1-8B in vLLM; with 8 concurrent requests "
    "the total is 300 tok/s.\n",
    "# c\n\nLlama-3.1-8B on one A100 80GB in vLLM. A single request gets 62 tok/s; with 8 parallel requests the total "
    "is only 350 tok/s.\n",
    "# c\n\nServing Llama-3-8B with vLLM on an A100 80GB: one user sees 58 tok/s, and 8 concurrent users together get "
    "300 tok/s.\n",
])
def test_a_total_short_of_its_band_is_not_also_called_the_batch_by_design(text):
    shown, verdict = _shown(text)
    assert [f.category for f in _rule(shown, "ticket.batched_rate")] == ["other"]
    assert not _rule(shown, "ticket.concurrency_rates")
    assert verdict.category == "other"


def test_a_total_inside_its_band_keeps_the_by_design_answer():
    shown, verdict = _shown("# c\n\nLlama-3.1-8B on one A100 80GB in vLLM: one request gets 60 tok/s, with 8 "
                            "concurrent requests the total is 560 tok/s. Why is one request not faster?\n")
    assert _rule(shown, "ticket.concurrency_rates")
    assert verdict.category == "expected_physics"


# --------------------------------------------------------------------------- item 6: an idle GPU's reading
@pytest.mark.parametrize("text", [
    "# p\n\nMy idle RTX 3090 stays at P2 (38W / 350W) while the vLLM server waits for requests. Is this normal?\n",
    "# p\n\nWhen nothing runs, my RTX 3090 stays at P2 drawing 110W / 350W.\n",
    "# p\n\nWhile vLLM is waiting for incoming requests the A100 sits at P0 and draws 90W of its 400W. Why?\n",
    "# p\n\nThe GPU stays idle at P2 and only draws 60W / 350W, but nvidia-smi shows the clocks low.\n",
])
def test_an_idle_gpus_reading_is_never_a_throttle_under_load(text):
    shown, verdict = _shown(text)
    assert not _rule(shown, "ticket.clock_power")
    assert verdict.category != "throttling"


@pytest.mark.parametrize("text", [
    "# p\n\nUnder full load my RTX 3090 stays at P2 drawing 110W / 350W and the clocks drop to 1200 MHz.\n",
    "# p\n\nEven while generating, my idle-looking RTX 3090 is stuck at P2 drawing 110W / 350W.\n",
])
def test_the_same_reading_under_load_stays_a_throttle(text):
    shown, verdict = _shown(text)
    assert [f.category for f in _rule(shown, "ticket.clock_power")] == ["throttling"]


# --------------------------------------------------------------------------- item 12: a passed setting check
@pytest.mark.parametrize("text", [
    (DATA / "t10_vllm359.md").read_text(),  # vllm-project/vllm#359: "This is far from official, how to fix that?"
    "# q\n\nOur A100 runs Llama-2-7B through vLLM much slower than the blog post claims. What can we do?\n",
    "# q\n\nvLLM on one A100 with llama-7b, CUDA graphs on, runs far below the published results. Any idea how to "
    "fix it?\n",
])
def test_a_complaint_is_never_healthy_because_a_setting_check_passed(text):
    shown, verdict = _shown(text)
    assert verdict.category != "healthy"


def test_a_question_without_a_complaint_may_still_be_healthy():
    _, verdict = _shown("# q\n\nvLLM on one A100 with llama-7b, CUDA graphs on. The throughput matches the official "
                        "numbers. Is there anything else to tune?\n")
    assert verdict.category == "healthy"


# --------------------------------------------------------------------------- item 11: another vendor's GPU
@pytest.mark.parametrize("text", [
    (DATA / "t13_rocm5219.md").read_text(),  # ROCm/ROCm#5219: MI355 idle draw, B200 only for comparison
    "# Radeon RX 7900 XTX idle power\n\nMy Radeon RX 7900 XTX sits at 90W when idle with the model loaded in ollama. "
    "Is this normal?\n",
    "# idle draw\n\nOn our Intel Gaudi 2 box the cards draw 150W each at idle with nothing running. Is that "
    "expected?\n",
])
def test_nvidia_explanations_stay_silent_for_another_vendors_gpu(text):
    shown, verdict = _shown(text)
    assert not _rule(shown, "ticket.idle_reading") and not _rule(shown, "ticket.nothing_broken")
    assert verdict.category != "healthy"


def test_an_nvidia_gpu_beside_another_vendors_keeps_its_explanation():
    shown, verdict = _shown("# idle draw\n\nOur idle H100 draws 120W while the vLLM server waits for requests. A "
                            "MI300X next to it draws 150W. Is this normal?\n")
    assert _rule(shown, "ticket.idle_reading") and verdict.category == "healthy"


# --------------------------------------------------------------------------- item 8: a ratio the figures contradict
@pytest.mark.parametrize("text", [
    (DATA / "t02_ktransformers1012.md").read_text(),  # kvcache-ai/ktransformers#1012: 11.83 vs 6.15 tokens/s
    (DATA / "x03_ktransformers1012_zh.md").read_text(),  # the same figures, decode first, in Chinese
    "# pp vs tg\n\nWith llama.cpp on my RTX 3060 the prompt processing runs at 25 tok/s but generation at 12 tok/s. "
    "Why?\n",
    "# slow\n\nPrefill speed is 40 tokens/s while decode speed is 18 tokens/s on Qwen2-7B. Is this expected?\n",
])
def test_prefill_barely_faster_than_decode_is_not_called_the_phases_by_design(text):
    shown, _ = _shown(text)
    assert not _rule(shown, "ticket.serving_tradeoff")


@pytest.mark.parametrize("text", [
    "# pp vs tg\n\nWith llama.cpp on my RTX 3060 the prompt processing runs at 2500 tok/s but generation at 45 tok/s. "
    "Why?\n",
    "# slow\n\nprompt eval rate: 900.5 tokens/s, eval rate: 38.2 tokens/s. Why is generation so much slower?\n",
])
def test_prefill_many_times_faster_than_decode_is_still_by_design(text):
    shown, _ = _shown(text)
    assert [f.category for f in _rule(shown, "ticket.serving_tradeoff")] == ["expected_physics"]


def test_another_vendors_gpu_keeps_a_vendor_neutral_answer():
    # mlc-ai/mlc-llm: time to first token growing with the prompt on an Intel Arc is physics on any GPU
    _, verdict = _shown("# first token delay\n\nIs it normal that the time to the first token grows with the length of "
                        "the prompt? Using an Intel Arc A750.\n")
    assert verdict.category in ("healthy", "expected_physics")


# --------------------------------------------------------------------------- item 9: a split that cannot fit its GPUs
@pytest.mark.parametrize("text", [
    (DATA / "t19_ollama11676.md").read_text(),  # ollama/ollama#11676: gpt-oss:120b on two RTX 3090, 3.35 tok/s
    "# slow\n\nRunning Llama-3.1-405B with llama.cpp split over four RTX 4090 gives 0.4 tok/s.\n",
    "# slow\n\nOllama with qwen2.5:72b on 2x RTX 3060 12GB only gives 2 tokens/s. Why?\n",
])
def test_a_layer_split_that_cannot_fit_its_gpus_is_the_memory_fit_before_any_rate(text):
    shown, verdict = _shown(text)
    (f,) = _rule(shown, "ticket.layer_split_rate")
    assert (f.category, f.severity) == ("host_bound", "warning") and "does not fit" in f.title
    assert any(e.unit == "GB" for e in f.evidence)  # predict's shortfall, with its figures
    assert verdict.category == "host_bound"


def test_a_layer_split_that_fits_is_still_judged_against_its_band():
    shown, _ = _shown("# slow\n\nOllama with llama3.1:8b split over two RTX 3090 only gives 3 tokens/s. Why?\n")
    (f,) = _rule(shown, "ticket.layer_split_rate")
    assert f.category == "other" and "split by layers" in f.title and "slowest healthy run" in f.title


# --------------------------------------------------------------------------- item 5: one TP series, one judgement
P5_H100 = ("# Llama-3-8B on H100: more GPUs barely help?\n\nLlama-3-8B, vLLM, H100 80GB SXM, batch size 1. Decode "
           "speed:\n\n| GPUs | tok/s |\n|------|-------|\n| 1    | 160   |\n| 2    | 215   |\n| 4    | 250   |\n\n"
           "Is this expected?\n")


def _scaling(tmp_path, rates: dict, model: str, gpu: str):
    """`diagnose scaling` on the same figures: its verdict category and its findings' severities."""
    import json

    from click.testing import CliRunner

    from diagnose.cli import cli

    csv = tmp_path / "s.csv"
    csv.write_text("layout,batch,metric,value\n" + "".join(f"TP{tp},1,decode_tok_s,{v}\n" for tp, v in rates.items()))
    out = CliRunner().invoke(cli, ["scaling", str(csv), "--model", model, "--gpu", gpu, "--engine", "vllm", "--json"])
    return json.loads(out.output)


@pytest.mark.parametrize("text,rates,model,gpu", [
    ((DATA / "w11_table_series.md").read_text(), {1: 95, 2: 120, 4: 130}, "qwen2.5-7b", "a100-80gb-sxm"),
    ((DATA / "w11_table_series.md").read_text().replace("4      130", "4      60"), {1: 95, 2: 120, 4: 60},
     "qwen2.5-7b", "a100-80gb-sxm"),
    (P5_H100, {1: 160, 2: 215, 4: 250}, "llama-3-8b", "h100-sxm"),
    (P5_H100.replace("| 4    | 250   |", "| 4    | 90    |"), {1: 160, 2: 215, 4: 90}, "llama-3-8b", "h100-sxm"),
])
def test_a_tp_table_in_a_ticket_gets_the_verdict_and_severity_scaling_gives(tmp_path, text, rates, model, gpu):
    shown, verdict = _shown(text)
    (f,) = _rule(shown, "ticket.comparison_set")
    scaled = _scaling(tmp_path, rates, model, gpu)
    broken = [g for g in scaled["findings"] if g["rule"] == "scaling.broken_layout"]
    assert verdict.category == scaled["verdict"]["category"]
    assert f.severity == (broken[0]["severity"] if broken else "info")
    if broken:
        assert f.title == broken[0]["title"]


def test_a_table_without_a_stated_batch_keeps_the_flat_step_reading():
    shown, _ = _shown((DATA / "w11_table_series.md").read_text().replace(", batch 1:", ":"))
    assert all("expected band" not in f.title for f in _rule(shown, "ticket.comparison_set"))


# --------------------------------------------------------------------------- item 10: a time per step or per reply
@pytest.mark.parametrize("text", [
    (DATA / "t17_baichuan13b156.md").read_text(),  # baichuan-inc/Baichuan-13B#156: 8*V100, 一个step就需要10s+
    (DATA / "t21_secgpt48.md").read_text(),  # Clouditera/SecGPT#48: two A100, 一个回复要十几分钟
    "# slow on 2 GPUs\n\nRunning Qwen-14B on two A100 40GB, every decode step takes 8 s. Why so slow?\n",
    "# slow\n\n两张 A100，跑 Qwen-14B，每个回答要几分钟，这正常吗？\n",
    "# slow\n\nTwo A100 40GB serving a 14B model with vLLM: a reply takes over ten minutes. Is this normal?\n",
])
def test_a_time_per_step_or_reply_is_never_called_physics_unjudged(text):
    _, verdict = _shown(text)
    assert verdict.category != "expected_physics"


def test_a_layer_split_explains_a_time_per_request_as_its_turn_taking():
    # ymcui/Chinese-LLaMA-Alpaca#506 worded anew: transformers over eight GPUs runs the layers one GPU after another
    _, verdict = _shown("# slow\n\nAlpaca 13B with transformers spread over 8 A100: each request takes 40 s to answer. "
                        "Is that normal?\n")
    assert verdict.category == "expected_physics"


def test_a_slowdown_on_more_gpus_without_a_time_keeps_the_physics_prior():
    _, verdict = _shown("# slow on 2 GPUs\n\nRunning a 14B model on two A100 40GB with vLLM is slower than on one. "
                        "Why?\n")
    assert verdict.category == "expected_physics"

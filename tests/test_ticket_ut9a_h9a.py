"""How `diagnose ticket` reads the user-tester's tickets of report ut9a: each test runs the tester's own ticket
(tests/data/ut9a, pasted from public threads; SOURCES.md) and paraphrases written here, with a case that must keep
its old answer."""

from pathlib import Path

import pytest
from conftest import report_json
from test_ticket_figures import _issue

from diagnose.artifacts import issue_md

DATA = Path(__file__).parent / "data" / "ut9a"


def _rule(findings, name):
    return [f for f in findings if f.rule == name]


# --------------------------------------------------------------------------- item 2: the measured order of two boards
@pytest.mark.parametrize("line, value, gpu", [
    # TRT-LLM#4043's own line: the figure set beside NVIDIA's published one is the reporter's, on the H200
    ("I ran the same things on H200 and I got 6,051 token per second which is aligned with NV published data on H200.",
     6051, "H200"),
    ("On my H100 box we get 40 tok/s, which matches the official table.", 40, "H100"),
    ("We tested with an A100 and measured 55 tok/s that is close to the published 60 tok/s.", 55, "A100"),
    ("I get 30 tok/s, the H100 would give more.", 30, None),  # a board named after the run: not where it ran
])
def test_a_figure_beside_a_reference_is_the_reporters_on_the_board_it_ran_on(line, value, gpu):
    found = [(m.value, m.gpu_name) for m in issue_md._rates([(1, line)], "issue.md")]
    assert (value, gpu) in found
    assert not [v for v, _ in found if v == 60]  # the published figure itself stays out


def test_a_reference_figure_alone_is_still_not_measured():
    assert not issue_md._rates([(1, "The published table says 60 tok/s on the H100.")], "issue.md")


@pytest.mark.parametrize("text", [
    (DATA / "trt4043_b200.md").read_text(),
    "# B200 slow\n\nOn 8x B200 with vLLM, Llama-3.1-70B FP8 TP8 gives 2,000 tok/s. On our H200 box we got 3,500 tok/s. "
    "The B200 should be faster than the H200, why not?\n",
])
def test_boards_measured_in_the_order_the_datasheets_contradict_are_not_slower_by_design(text):
    _, findings, _ = _issue(text)
    assert not _rule(findings, "ticket.gpus_compared")


def test_boards_measured_in_the_datasheets_order_are_still_slower_by_design():
    _, findings, _ = _issue("# slow\n\nOn our H200 box Llama-3.1-70B FP8 TP8 with vLLM gives 2,000 tok/s. On 8x B200 "
                            "we got 3,500 tok/s. Why is the H200 slower than the B200?\n")
    (f,) = _rule(findings, "ticket.gpus_compared")
    assert f.category == "expected_physics"


# --------------------------------------------------------------------------- item 5: the lengths a ticket states
@pytest.mark.parametrize("text, prompt, output", [
    ("I reached about 2000 tokens per second for an input of 35 tokens and an output of 250 tokens.", 35, 250),
    ("trtllm-bench with ISL 124, OSL 2048, 3,000 prompts.", 124, 2048),
    ("vllm bench serve --random-input-len 512 --random-output-len 128", 512, 128),
    ("Prompt length: 2k, output length: 256.", 2000, 256),
    ("Each request has 300 input tokens and 64 output tokens.", 300, 64),
])
def test_the_stated_prompt_and_reply_lengths_are_read(text, prompt, output):
    facts, _, _ = _issue(f"# t\n\n{text}\n")
    assert facts.workload().prompt_len == prompt and facts.workload().output_len == output


def test_a_batch_total_is_judged_at_the_lengths_the_ticket_states():
    """TRT-LLM#2648: Llama-3-8B on an A100, 2,000 tok/s 'for an input of 35 tokens and an output of 250 tokens'. The
    full-load band is the predictor's at 35 in / 250 out (diagnose predict --prompt 35 --output-len 250), not at
    its default 1024 / 256 (a longer KV cache: a lower band). The ticket names TensorRT-LLM without its release: the
    band covers every release's profile (v0.5's, v0.6-v0.9's, v0.10+), centred on the newest."""
    from rules import catalog
    from rules.roofline import Layout, predict_any_build

    _, findings, _ = _issue((DATA / "trt2648.md").read_text())
    (f,) = _rule(findings, "ticket.batched_rate")
    (band,) = [e for e in f.evidence if e.source == "prediction:expected"]
    p = predict_any_build(catalog.model("llama-3-8b"), catalog.gpu("a100-80gb-sxm"), Layout(tp=1), batch=256,
                          prompt=35, output=250, engine=catalog.engine("trtllm"), build_stated=True,
                          releases=catalog.release_candidates("TensorRT-LLM"))
    assert any("band covers trtllm-0.5, trtllm-xqa8, trtllm" in e.detail for e in f.evidence)
    low, high = (float(x.replace(",", "")) for x in band.expected.split("-"))
    total = 256 * p.decode_tok_s_expected
    assert low == pytest.approx(total / p.band_high, rel=0.01) and high == pytest.approx(total / p.band_low, rel=0.01)


# --------------------------------------------------------------------------- item 9: another vendor's accelerator
@pytest.mark.parametrize("text", [
    (DATA / "habana204.md").read_text(),
    "# TP slower\n\nOn two MI300X with ROCm 6.1 and vLLM, TP=2 decodes Llama-3-8B slower than TP=1. Why?\n",
    "# slow\n\nOur Intel Arc A770 only gives 9 tok/s on Mistral-7B, is it broken?\n",
])
def test_another_vendors_speed_question_is_not_judged_with_nvidia_physics(text):
    facts, findings, verdict = _issue(text)
    assert verdict.category == "insufficient_data"
    (f,) = _rule(findings, "ticket.other_vendor")
    assert "not an NVIDIA GPU" in f.title
    asks = " ".join(x.ask or "" for x in findings) + verdict.summary
    assert "nvidia-smi" not in asks and "NCCL" not in asks


def test_an_nvidia_ticket_that_names_another_vendor_for_comparison_keeps_its_answer():
    _, findings, verdict = _issue("# TP slower on H100\n\nOn two H100 SXM with vLLM, TP=2 decodes Llama-3-8B slower "
                                  "than TP=1. On our MI300X box it scales. Why?\n")
    assert not _rule(findings, "ticket.other_vendor") and verdict.category != "insufficient_data"


# --------------------------------------------------------------------------- item 10: a complaint no check could judge
@pytest.mark.parametrize("text", [
    (DATA / "tr3090.md").read_text(),  # 11 tok/s on a model the catalog lacks; the cause was a PCIe 2.0 x4 slot
    "# slow\n\nFour RTX 3090 with llama.cpp, Foo-Ultra 90B Q4_K GGUF: only 6 tok/s and about 30% GPU usage each. "
    "Disappointing, what is wrong?\n",
])
def test_a_slow_figure_no_check_could_judge_is_not_called_healthy(text):
    _, findings, verdict = _issue(text)
    assert verdict.category == "insufficient_data" and "No problem found" not in verdict.summary
    assert "config.json" in verdict.summary and "model's name" not in verdict.summary


# --------------------------------------------------------------------------- item 15: several degraded PCIe links
HEADER = ("index, name, pci.bus_id, pcie.link.gen.current, pcie.link.width.current, pcie.link.gen.max, "
          "pcie.link.width.max\n")


@pytest.mark.parametrize("rows, worst", [
    # the tester's reading of the post ("Gen2 x1" on one card, x8 on another), and the same with the GPUs swapped
    (["0, NVIDIA GeForce RTX 3090, 00000000:0A:00.0, 3, 8, 3, 16", "1, NVIDIA GeForce RTX 3090, 00000000:0B:00.0, 3, "
      "16, 3, 16", "2, NVIDIA GeForce RTX 3090, 00000000:41:00.0, 2, 1, 3, 16"], "GPU2"),
    (["0, NVIDIA GeForce RTX 3090, 00000000:0A:00.0, 2, 1, 3, 16", "1, NVIDIA GeForce RTX 3090, 00000000:0B:00.0, 3, "
      "16, 3, 16", "2, NVIDIA GeForce RTX 3090, 00000000:41:00.0, 3, 8, 3, 16"], "GPU0"),
])
def test_the_narrowest_pcie_link_leads(tmp_path, rows, worst):
    (tmp_path / "smi.csv").write_text(HEADER + "\n".join(rows) + "\n")
    report = report_json("ticket", tmp_path)
    # the x8 link, read with no load stated, also asks for a reading under load (an info finding, not counted)
    links = [f for f in report["findings"] if f["rule"] == "topology.pcie_link" and f["severity"] != "info"]
    assert len(links) == 2 and links[0]["title"].startswith(f"{worst} PCIe link runs at x1 instead of x16 at Gen2")
    assert report["verdict"]["summary"].startswith(worst)


# --------------------------------------------------------------------------- item 2: a full load stated as its prompts
@pytest.mark.parametrize("text", [
    (DATA / "trt4043_b200.md").read_text(),  # trtllm-bench, 'number of prompt 3,000': 3,396 tok/s on 8 x B200
    "# slow\n\nLlama-3.1-70B FP8 on 8x H100 with vLLM TP8, benchmark_throughput.py --num-prompts 2000, input 1024 "
    "output 1024: only 900 tok/s output throughput.\n",
])
def test_a_rate_from_prompts_sent_at_once_below_the_band_is_a_fault_not_a_small_batch(text):
    _, findings, verdict = _issue(text)
    (f,) = _rule(findings, "ticket.batched_rate")
    assert (f.category, f.severity) == ("other", "info") and "sent at once" in f.title
    assert verdict.category == "other"


@pytest.mark.parametrize("text", [
    # a request rate: the load is what that rate keeps in flight, not every prompt at once
    "# slow\n\nLlama-3.1-70B FP8 on 8x H100 with vLLM TP8, --num-prompts 2000 --request-rate 2: only 900 tok/s.\n",
    # fewer prompts than a full batch
    "# slow\n\nLlama-3.1-70B FP8 on 8x H100 with vLLM TP8, --num-prompts 20: only 900 tok/s.\n",
])
def test_prompts_not_all_in_flight_keep_the_small_batch_reading(text):
    _, findings, _ = _issue(text)
    assert all(f.category != "other" for f in _rule(findings, "ticket.batched_rate"))


@pytest.mark.parametrize("line, figures", [
    ("With TP=1 the second token latency is 22 ms; with TP=2 it is 25 ms.", [(22.0, 1)]),  # HabanaAI/vllm-fork#204
    ("2nd token latency: 45 ms at batch 1", [(45.0, None)]),
    ("next-token latency 30ms, first token latency 200 ms", [(30.0, None)]),
])
def test_second_token_latency_is_the_per_token_latency(line, figures):
    found = [(m.value, m.tp) for m in issue_md._latencies([(1, line)], "issue.md") if m.metric == "itl_ms"]
    assert found == figures

"""Ticket figures and GPU names the user tester found misread after the ut7 run (fix h21): how a figure and
a GPU name are read and tied to each other. Each is tried on the tester's ticket, paraphrases written here
and a negation."""

import pytest

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Measurement, Note, Workload
from rules import beyond_band
from rules.engine import evaluate
from rules.subject import Subject


def issue(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


def fired(text: str) -> dict[str, list]:
    out: dict[str, list] = {}
    for f in evaluate(issue(text)):
        if f.confidence > 0:
            out.setdefault(f.rule, []).append(f)
    return out


def gpus_named(text: str) -> set[str]:
    """The distinct GPU products the prose names (the note is written only when it names two or more)."""
    return {g["name"] for n in issue(text).of(Note) if n.kind == "gpus_named" for g in n.data["gpus"]}


# --------------------------------------------------------------------------- 1. "A100 80GB" is one GPU name

@pytest.mark.parametrize("text, gpu", [
    # the tester's vLLM template ticket
    ("### Your current environment\n\nGPU: A100 80GB\nvLLM: 0.6.3\n\n### Describe the bug\n\n"
     "On my A100 the server hangs at startup.", "A100"),
    ("# Slow on my 3090\n\nGPU: RTX 3090 24GB.\nIs 20 tok/s normal for Llama-2-13B on this 3090?", "3090"),
    ("# 4090 decode\n\n- GPU: RTX 4090 24GB\n\nThe 4090 gives 40 tok/s on Llama-2-7B.", "4090"),
    ("# hang\n\nHardware: one A100-40GB (the A100 is idle otherwise).", "A100"),
    ("# V100\n\nGPU: Tesla V100 32G\nThe V100 runs out of memory.", "V100"),
])
def test_a_gpu_name_with_its_memory_size_is_one_name(text, gpu):
    assert gpus_named(text) in (set(), {gpu})
    assert "ticket.mixed_gpus" not in fired(text)


def test_two_products_with_sizes_are_still_two():
    # negation: an A10 24GB and an A100 80GB in one box are different cards
    text = "# slow split\n\n- GPU 0: A10 24GB\n- GPU 1: A100 80GB\n\nThe layer split over both is slow."
    assert gpus_named(text) == {"A10", "A100"}
    assert "ticket.mixed_gpus" in fired(text)


# --------------------------------------------------------------------------- 13. figures read whole; llama-bench models

def rates(text: str) -> list[float]:
    return [m.value for m in issue(text).of(Measurement) if m.unit == "tok/s"]


def times(text: str) -> list[float]:
    return [m.value for m in issue(text).of(Measurement) if m.unit == "ms"]


@pytest.mark.parametrize("text, value", [
    ("# huge\n\nLlama-2-7B on one H100 gives 1e308 tok/s. Is this normal?", 1e308),  # the tester's bad/huge.md
    ("# fast\n\nMy 4090 reports 2.5e3 tokens/s for Llama-2-7B at batch 1.", 2500.0),
    ("# q\n\nvLLM prints 1E+05 tok/s on one A100, is that right?", 1e5),
])
def test_a_figure_in_exponent_notation_is_read_whole(text, value):
    assert rates(text) == [value]  # whole, never its exponent ("308")


def test_a_time_in_exponent_notation_is_not_read_as_its_exponent():
    assert times("# itl\n\nTPOT is 1e308 ms on one H100.") == []


def test_a_rate_in_exponent_notation_beyond_the_roofline_is_a_measurement_error():
    (f,) = fired("# fast\n\nLlama-2-7B on one H100 gives 2.5e3 tok/s at batch 1.")["ticket.measured_vs_expected"]
    assert (f.category, f.evidence[0].measured) == ("other", 2500.0)


@pytest.mark.parametrize("text, value", [
    # negation: plain figures, glued to CJK or after a colon, are still read
    ("# q\n\nLlama-2-7B on one H100 gives 308 tok/s. Is this normal?", 308.0),
    ("# q\n\n我用一张4090跑Llama-2-7B，单请求速度是500tokens/s。", 500.0),
    ("# q\n\nLlama-2-7B on two A100, with TP=2:45 tok/s.", 45.0),
])
def test_a_plain_figure_is_still_read(text, value):
    assert value in rates(text)


def bench(cell: str, params: str, rate: str = "33.10 ± 0.20") -> str:
    return ("# Is this normal?\n\n```\n| model | size | params | backend | ngl | test | t/s |\n"
            "| ------ | ---------: | ---------: | ---------- | --: | ------------: | -------------------: |\n"
            f"| {cell} | 7.33 GiB | {params} | CUDA | 99 | pp512 | 2890.12 ± 8.41 |\n"
            f"| {cell} | 7.33 GiB | {params} | CUDA | 99 | tg128 | {rate} |\n```\nGPU: RTX 3090 24GB.")


@pytest.mark.parametrize("cell, params, model", [
    ("llama 13B Q4_K - Medium", "13.02 B", "llama-2-13b"),  # the tester's x02/y04 table
    ("llama 8B Q4_0", "8.03 B", "llama-3-8b"),
    ("llama 7B Q4_0", "6.74 B", "llama-2-7b"),
    ("llama 7B Q8_0", "7.24 B", "mistral-7b"),  # Mistral 7B prints as "llama 7B": its params tell it apart
    ("qwen3moe 30B.A3B Q4_K - Medium", "30.53 B", "qwen3-30b-a3b"),  # the tester's t20 table
])
def test_a_llama_bench_model_cell_names_the_model(cell, params, model):
    facts = issue(bench(cell, params))
    assert 33.1 in [m.value for m in facts.of(Measurement)]
    assert Subject.of(facts).model.key.split(" ")[0] == model
    assert ("int4" if "Q4" in cell else "int8") in [w.dtype for w in facts.of(Workload)]  # the weights it ran


def test_a_llama_bench_model_the_catalog_lacks_is_no_guess():
    # negation: a mixture the catalog does not hold gets no dense stand-in
    facts = issue(bench("gpt-oss 120B MXFP4 MoE", "116.83 B"))
    assert Subject.of(facts).model is None


def test_the_prose_model_wins_over_the_table_cell():
    facts = issue(bench("llama 13B Q4_K - Medium", "13.02 B").replace("# Is this normal?",
                                                                        "# Llama-2-13B-chat: is this normal?"))
    assert Subject.of(facts).model.key == "llama-2-13b"


# --------------------------------------------------------------------------- 3. each figure is its own GPU's

def judged(text: str) -> list[float]:
    """The decode rates ticket.measured_vs_expected set against the band (not the band-edge row that repeats one)."""
    return [e.measured for f in fired(text).get("ticket.measured_vs_expected", []) for e in f.evidence
            if e.unit == "tok/s" and isinstance(e.measured, float) and e.source != beyond_band.SOURCE]


@pytest.mark.parametrize("text, own, other", [
    # the tester's v08 and its Chinese twin w04: the ticket is about the H100 (its title), 95 tok/s is the A100's
    ("# H100 slower than A100 with vLLM?\n\nSame model (Llama-3.1-8B, bf16), same vLLM 0.6.3. On A100 80GB SXM I get "
     "95 tok/s, on H100 80GB SXM I get 70 tok/s for a single request. Is that expected?", 70.0, 95.0),
    ("# H100比A100还慢？\n\n同样的模型 Llama-3.1-8B (bf16)，同样的 vLLM 0.6.3，单请求：A100 80GB 上是 95 tok/s，"
     "H100 80GB 上只有 70 tok/s。这正常吗？", 70.0, 95.0),
    # the tester's w05: the ticket is about the 3090, 60 tok/s is the 4090's
    ("# 3090 slower than 4090 - normal?\n\nLlama-2-7B fp16 with llama.cpp: on the RTX 4090 I get 60 tok/s, on the "
     "RTX 3090 I get 50 tok/s. Two different machines. Is this normal?", 50.0, 60.0),
    # paraphrases: the figure after its GPU, the GPU after its figure
    ("# My L40S box lags\n\nQwen2.5-7B in vLLM, one request: the A100 machine does 45 tok/s while the L40S does "
     "25 tok/s. Why?", 25.0, 45.0),
    ("# Is my 3090 slow?\n\nLlama-2-7B fp16, llama.cpp, batch 1. A friend measures 45 tok/s on his RTX 4090; I "
     "measure 30 tok/s on the RTX 3090.", 30.0, 45.0),
])
def test_a_figure_said_of_another_gpu_is_not_judged_against_the_tickets_gpu(text, own, other):
    assert other not in judged(text)
    assert own in judged(text)


def test_a_figure_whose_gpu_is_ambiguous_is_not_judged():
    # the figure's clause names no GPU and its line names two: it could be either's
    text = "# q\n\nLlama-3.1-8B in vLLM on A100 vs H100, one request: 70 tok/s. Is that normal?"
    assert judged(text) == []


def test_a_figure_of_the_tickets_own_gpu_is_still_judged():
    # negation: the clause names the ticket's GPU with its memory size; another GPU named only in passing
    text = ("# slow decode\n\nLlama-3.1-8B bf16 in vLLM, one request. On my H100 80GB I get 70 tok/s. "
            "We do not own an A100.")
    assert judged(text) == [70.0]


def verdict_rule(text: str):
    (f,) = fired(text)["ticket.measured_vs_expected"]
    return f


@pytest.mark.parametrize("text", [
    # the tester's x08: two identical H100 servers
    "# 같은 H100인데 두 대의 속도가 다릅니다\n\n서버 A (H100 80GB) 는 Llama-3.1-8B 에서 110 tok/s, "
    "서버 B (H100 80GB) 는 75 tok/s 입니다. 같은 vLLM 버전입니다. 정상인가요?",
    "# Two identical H100 boxes differ\n\nLlama-3.1-8B, vLLM, one request. Box one gives 110 tok/s, box two only "
    "75 tok/s. Why?",
    "# 两台一样的 H100 服务器速度不同\n\nLlama-3.1-8B，vLLM，单请求。第一台 110 tok/s，第二台只有 75 tok/s。",
])
def test_of_twin_figures_for_one_layout_the_slower_is_judged_without_prose_slack(text):
    f = verdict_rule(text)
    assert (f.category, f.severity) == ("other", "info") and f.evidence[0].measured == 75.0
    assert any(e.measured == 110.0 for e in f.evidence)  # the twin the verdict rests on is shown


def test_a_lone_figure_at_the_bands_edge_keeps_its_prose_slack():
    # negation: without a faster twin the same 75 tok/s reads as the band's low edge
    f = verdict_rule("# H100 speed\n\nLlama-3.1-8B, vLLM, one request on one H100: 75 tok/s. Is this normal?")
    assert f.category == "expected_physics"


def test_twin_figures_both_inside_the_band_are_physics():
    f = verdict_rule("# Two H100 boxes\n\nLlama-3.1-8B, vLLM, one request. Box one gives 110 tok/s, box two 100 tok/s.")
    assert f.category == "expected_physics" and f.evidence[0].measured == 100.0


# --------------------------------------------------------------------------- 4. a quoted figure is a reference

@pytest.mark.parametrize("text, mine", [
    # the tester's t05 (exllamav2 #346): the frontpage row is a reference, the pasted exllamav2 line the measurement
    ("# Slow inference speed on A100?\n\nAccording to the benchmark info on the project frontpage:\n\n"
     "Llama2 | EXL2 4.0 bpw | 7B | - | - | 164 t/s | 197 t/s\n-- | -- | -- | -- | -- | -- | --\n\n"
     "I compiled ExLlama V2 from source and ran it on a A100-SXM4-80GB GPU. I got\n\n```\n"
     "Response generated in 8.56 seconds, 1024 tokens, 119.64 tokens/second\n```\n", [119.64]),
    # the tester's w07: the README's second figure follows "and"
    ("# ExLlamaV2 on A100 slower than README\n\nThe README says 164 t/s for Llama2 7B EXL2 4.0 bpw on a 4090 and "
     "197 t/s on an A100.\nI only get 60 tokens/second on my A100-SXM4-80GB. Is this expected?", [60.0]),
    # the tester's w08: "The README benchmark is ..."
    ("# slower than README\n\nI get 60 tokens/second on my A100-SXM4-80GB with Llama2 7B EXL2 4.0 bpw. The README "
     "benchmark is 197 t/s on A100.\nIs this expected?", [60.0]),
    # the tester's v01: a Markdown table under "The README lists these figures:"
    ("# Slow inference speed on A100?\n\nThe README lists these figures:\n\n| Model | Quant | Size | 4090 | A100 |\n"
     "|---|---|---|---|---|\n| Llama2 | EXL2 4.0 bpw | 7B | 164 t/s | 197 t/s |\n\nOn my A100-SXM4-80GB with "
     "turboderp/Llama2-7B-exl2 4.0bpw I only get 60 tokens/second. Is this expected?", [60.0]),
    # paraphrases
    ("# slow\n\nThe docs quote 90 tok/s on an L40S, and 140 tok/s on an H100 for Qwen2.5-7B. On my L40S I see "
     "45 tok/s.", [45.0]),
    ("# 慢\n\n官方文档里 4090 是 160 tokens/s，A100 是 190 tokens/s。我的 A100 只有 70 tokens/s。", [70.0]),
])
def test_a_quoted_figure_is_a_reference_not_the_measurement(text, mine):
    assert rates(text) == mine
    assert "ticket.mixed_gpus" not in fired(text)  # a quoted table's GPU columns are no machine of the reporter's


@pytest.mark.parametrize("text, mine", [
    # negations: the reporter's own figure beside a reference, after "but", in the first person, under a plain heading
    ("# slow\n\nThe README says 197 t/s, but I get 60 t/s on my A100.", [60.0]),
    ("# slow\n\nFollowing the README I get 60 t/s on my A100.", [60.0]),
    ("# results\n\nMy results:\n\n| GPU | t/s |\n|---|---|\n| A100 | 60 t/s |", [60.0]),
])
def test_the_reporters_own_figure_beside_a_reference_is_read(text, mine):
    assert rates(text) == mine


# --------------------------------------------------------------------------- 7. machines compared, in any language

@pytest.mark.parametrize("text", [
    # the tester's w06 (German) and v10 (Russian)
    "# 4090 schneller als 3090?\n\nLlama-2-7B in fp16 mit llama.cpp: auf der RTX 4090 bekomme ich 60 tok/s, auf der "
    "RTX 3090 nur 50 tok/s (zwei verschiedene Rechner). Ist das normal?",
    "# 3090 медленнее 4090 — это нормально?\n\nLlama-2-7B в fp16 через llama.cpp: на RTX 4090 получаю 60 tok/s, а на "
    "RTX 3090 — 50 tok/s. Это нормально?",
    # paraphrases: Spanish, French, Korean, and an English inventory of two separate machines
    "# ¿La 3090 más lenta que la 4090?\n\nMismo modelo, la RTX 3090 da 50 tok/s y la RTX 4090 60 tok/s en "
    "máquinas distintas.",
    "# Vitesse\n\nMême modèle sur deux machines différentes :\n\n- RTX 4090\n- RTX 3090",
    "# 속도 질문\n\n두 대의 다른 서버입니다.\n\n- RTX 4090\n- RTX 3090",
    "# speed\n\n- Box A: RTX 4090\n- Box B: RTX 3090\n\nThese are two separate machines; same model on each.",
])
def test_gpus_of_machines_compared_are_not_mixed(text):
    assert "ticket.mixed_gpus" not in fired(text)


@pytest.mark.parametrize("text", [
    # negations: one box holding both cards, said in German and in English
    "# langsam\n\n- GPU0: RTX 3090\n- GPU1: RTX 4060 Ti\n\nBeide Karten in einem Rechner, Layer-Split, 3 tok/s.",
    "# slow\n\n- GPU 0: RTX 3090\n- GPU 1: RTX 4060 Ti\n\nBoth cards sit in the same machine; the layers are split.",
])
def test_one_box_with_two_products_is_still_mixed(text):
    assert "ticket.mixed_gpus" in fired(text)


# --------------------------------------------------------------------------- 14. a figure said twice is judged once

@pytest.mark.parametrize("text", [
    # the tester's x09: the title and the text state the same rate
    "# GPU-Util 100% but only 5 tok/s\n\nLlama-2-70B fp16 on 4x A100 80GB with HF transformers device_map=\"auto\". "
    "nvidia-smi shows all four at ~25% each in turn. I get 5 tok/s. Is this normal?",
    "# Only 5 tok/s\n\nLlama-2-70B fp16, accelerate device_map=auto over 4x A100 80GB. I get 5 tok/s on 4 GPUs.",
    "# 只有 5 tok/s\n\nLlama-2-70B fp16，transformers device_map=auto，4 张 A100 80GB。速度只有 5 tok/s。",
])
def test_one_figure_said_twice_gives_one_finding(text):
    assert len(fired(text)["ticket.layer_split_rate"]) == 1


def test_two_different_figures_each_get_their_finding():
    # negation: two rates are two figures
    text = ("# slow\n\nLlama-2-70B fp16, accelerate device_map=auto over 4x A100 80GB. Yesterday I got 5 tok/s, "
            "today 9 tok/s.")
    assert sorted(f.evidence[0].measured for f in fired(text)["ticket.layer_split_rate"]) == [5.0, 9.0]


# --------------------------------------------------------------------------- 15. a total at a stated load is judged

@pytest.mark.parametrize("text", [
    # the tester's sentence
    "# slow with concurrency\n\nLlama-3.1-8B in vLLM on one A100 80GB. With 8 concurrent requests each gets 12 tok/s. "
    "Total is only 96 tok/s. Is this normal?",
    "# slow\n\nLlama-3.1-8B, vLLM, one A100 80GB, 8 concurrent requests: the total is 96 tok/s.",
    "# slow\n\nLlama-3.1-8B on vLLM (one A100 80GB). At 8 concurrent requests the aggregate was just 96 tok/s.",
])
def test_a_total_said_at_a_stated_load_is_judged_as_the_batchs_total(text):
    (f,) = fired(text)["ticket.batched_rate"]
    # one total beyond the band: the beyond-band lead (rules.beyond_band), info by policy since session 16
    assert (f.category, f.severity, f.evidence[0].measured) == ("other", "info", 96.0)
    assert "8 concurrent requests" in f.title


def test_a_healthy_total_at_a_stated_load_is_physics():
    # negation: 8 requests sharing 560 tok/s is what batched decode gives
    text = "# ok?\n\nLlama-3.1-8B, vLLM, one A100 80GB, 8 concurrent requests: the total is 560 tok/s."
    (f,) = fired(text)["ticket.batched_rate"]
    assert f.category == "expected_physics"


def test_a_rate_not_called_a_total_is_left_to_the_per_stream_rules():
    # negation: "each gets 12 tok/s" is one stream's rate in a batch of 8, judged per stream
    text = "# slow\n\nLlama-3.1-8B, vLLM, one A100 80GB. With 8 concurrent requests each gets 12 tok/s."
    assert "ticket.batched_rate" not in fired(text)
    assert judged(text) == [12.0]

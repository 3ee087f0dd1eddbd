"""(issue 11, batch u12a) Readings added after the u12a development cases, each from an engine's documentation or
physics, with paraphrases and negations:
- Ollama's server log line `msg="offload to cuda" layers.model=M layers.offload=N` (llm/memory.go): N < M puts the
  rest of the layers on the CPU (ticket.partial_offload);
- text-generation-webui's `--pre_layer N` (GPTQ loader: "The number of layers to allocate to the GPU"), judged
  against the model's layer count, with `--model_type llama|opt|gptj` declaring a dense architecture for a fine-tune
  the catalog does not know;
- "loading a model would automatically use one card": the engine's own placement, said without "only";
- "will it be slower without NVLink?" (ticket.nvlink_question);
- Chinese "no faster": "速度和单卡差不多", "还没有单卡的快"."""

from __future__ import annotations

from pathlib import Path

from test_ticket_public_issues import ticket  # the same folder-and-diagnose helper

ISSUES = Path(__file__).parent / "data" / "issues"


def rules_of(report: dict) -> set[str]:
    return {f["rule"] for f in report["findings"]}


def verdict(report: dict) -> str:
    return report["verdict"]["category"]


# --------------------------------------------------------------------------- Ollama's "offload to cuda" line

OLLAMA_LINE = ('time=2025-02-07T19:24:39.411+05:30 level=INFO source=memory.go:326 msg="offload to cuda" '
               'layers.requested=-1 layers.model={model} layers.offload={offload} layers.split="" '
               'memory.available="[7.6 GiB]" memory.required.full="11.0 GiB" memory.required.partial="7.4 GiB"')


def test_real_thread_ollama_6348_log_line_puts_21_of_33_layers_on_the_cpu(tmp_path):
    """https://github.com/ollama/ollama/issues/6348: 'CPU is in heavy use and GPU is doing nothing'; the server log
    says layers.model=33 layers.offload=12 with 2.2 GiB of VRAM free."""
    report = ticket(tmp_path, (ISSUES / "ollama-6348-mistral-7b-12-of-33-layers-offloaded.md").read_text())
    assert verdict(report) == "host_bound"
    (f,) = [f for f in report["findings"] if f["rule"] == "ticket.partial_offload"]
    assert f["title"].startswith("12 of 33 layers on the GPU")


def test_ollama_log_partial_offload_paraphrases(tmp_path):
    for k, (offload, model) in enumerate(((42, 65), (1, 33), (80, 81))):
        text = ("# Why is the GPU not at full power while processing requests?\n\n```\n"
                + OLLAMA_LINE.format(model=model, offload=offload) + "\n```\n")
        report = ticket(tmp_path, text, f"p{k}")
        assert verdict(report) == "host_bound", (offload, model)
        assert "ticket.partial_offload" in rules_of(report)


def test_ollama_log_keys_in_the_other_order_are_read_too(tmp_path):
    text = ("# GPU mostly idle\n\n```\nmsg=\"offload to cuda\" layers.offload=20 layers.split=\"\" "
            "layers.model=41 memory.available=\"[5.1 GiB]\"\n```\n")
    assert "ticket.partial_offload" in rules_of(ticket(tmp_path, text))


def test_ollama_log_with_every_layer_offloaded_is_no_partial_offload(tmp_path):
    """The negation: layers.offload equal to layers.model is the whole model in VRAM."""
    text = ("# Why is the GPU not at full power while processing requests?\n\n```\n"
            + OLLAMA_LINE.format(model=65, offload=65) + "\n```\n")
    report = ticket(tmp_path, text)
    assert "ticket.partial_offload" not in rules_of(report)
    assert verdict(report) != "host_bound"


# --------------------------------------------------------------------------- textgen --pre_layer

def _pre_layer_ticket(flags: str, model: str = "Manticore-13b-4bit-128g") -> str:
    return (f"# Slow generation\n\nI'm running {model}.safetensors and generation is about 1 token/s, GPU usage "
            f"only 30%.\n\nHere's my args:\n--chat --model manticore {flags} --wbits 4 --groupsize 128\n")


def test_pre_layer_below_the_models_layers_is_partial_offload(tmp_path):
    for k, flags in enumerate(("--pre_layer 20 --model_type llama", "--pre-layer 30 --model_type LLaMA",
                               "--pre_layer 10 30 --model_type llama")):
        report = ticket(tmp_path, _pre_layer_ticket(flags), f"p{k}")
        assert verdict(report) == "host_bound", flags
        (f,) = [f for f in report["findings"] if f["rule"] == "ticket.partial_offload"]
        assert " of 40 layers on the GPU" in f["title"], f["title"]


def test_pre_layer_covering_every_layer_is_no_partial_offload(tmp_path):
    """The negation: --pre_layer 40 (or more) on a 13B LLaMA (40 layers) keeps every layer on the GPU."""
    for k, flags in enumerate(("--pre_layer 40 --model_type llama", "--pre_layer 20 40 --model_type llama")):
        report = ticket(tmp_path, _pre_layer_ticket(flags), f"n{k}")
        assert "ticket.partial_offload" not in rules_of(report), flags


def test_pre_layer_of_an_unknown_family_without_model_type_is_not_judged(tmp_path):
    """Without --model_type the fine-tune's family is unknown (it might be a mixture): no stand-in, no count."""
    report = ticket(tmp_path, _pre_layer_ticket("--pre_layer 20"))
    assert "ticket.partial_offload" not in rules_of(report)


# --------------------------------------------------------------------------- one GPU, said without "only"

SEVERAL = ("# Multi-GPU use\n\nI have 4 GPU cards. Before v0.1.32, when loading a model, it would be evenly "
           "distributed across all GPU cards. {sentence}\n")


def test_engine_placing_the_model_on_one_card_is_by_design(tmp_path):
    for k, sentence in enumerate(("In v0.1.33, it was found that loading a model would automatically use one card.",
                                  "Now it always loads the model onto a single GPU.",
                                  "Since the update it automatically uses one GPU.")):
        report = ticket(tmp_path, SEVERAL.format(sentence=sentence), f"p{k}")
        assert verdict(report) == "healthy", sentence
        assert "ticket.one_gpu_by_design" in rules_of(report)


def test_one_card_in_a_condition_or_negated_is_no_observation(tmp_path):
    for k, sentence in enumerate(("If I set CUDA_VISIBLE_DEVICES=0 it would automatically use one card.",
                                  "It does not automatically use one card any more.")):
        report = ticket(tmp_path, SEVERAL.format(sentence=sentence), f"n{k}")
        assert "ticket.one_gpu_by_design" not in rules_of(report), sentence


# --------------------------------------------------------------------------- "slower without NVLink?"

def test_asking_whether_gpus_without_nvlink_are_slower_is_expected_physics(tmp_path):
    for k, text in enumerate((
            "# About the speed\n\nDoes that mean the speed may be slower when the GPUs are not linked with NVLink?",
            "# DDP on two 3090s\n\nMy cards have no NVLink bridge. Will training be slower without NVLink?",
            "# 双卡\n\n两张4090没有nvlink，速度会慢吗？")):
        report = ticket(tmp_path, text, f"p{k}")
        assert verdict(report) == "expected_physics", text
        assert "ticket.nvlink_question" in rules_of(report)


def test_nvlink_absence_stated_without_a_question_or_beside_a_fault_is_not_this_answer(tmp_path):
    for k, text in enumerate((
            "# Setup\n\nWe train on two GPUs without NVLink. Everything runs fine, thanks for the library.",
            "# Hang\n\nTraining hangs at the first all_reduce with NCCL. Will it be slower without NVLink?")):
        report = ticket(tmp_path, text, f"n{k}")
        assert "ticket.nvlink_question" not in rules_of(report), text


# --------------------------------------------------------------------------- Chinese "no faster"

def test_chinese_no_faster_on_more_cards_is_the_scaling_question(tmp_path):
    for k, text in enumerate(("# 为啥8卡还没有单卡的快呢？\n\n我启用了8卡来跑，速度和我用单卡跑的差不多，为什么？",
                              "# 四卡\n\n用了4张卡，速度还不如单卡快，这正常吗？")):
        report = ticket(tmp_path, text, f"p{k}")
        assert verdict(report) == "expected_physics", text
        # (cn42) "8卡还没有单卡的快" is now the scaling symptom, as "8卡还不如单卡的快" and "8 GPUs are slower than
        # one" were: the symptom's prior answers it (the question's prior stays quiet beside it, rules.engine)
        assert {"ticket.scaling_question", "ticket.symptom_prior"} & rules_of(report)


def test_chinese_faster_on_more_cards_is_no_scaling_question(tmp_path):
    report = ticket(tmp_path, "# 四卡\n\n用了4张卡，速度比单卡快很多，这正常吗？")
    assert "ticket.scaling_question" not in rules_of(report)

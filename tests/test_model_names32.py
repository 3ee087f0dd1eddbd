"""The model a ticket ran, as Hugging Face names models and as reporters write around them (issue 11, model32).

tests/data/model32/names.toml: repository names whose model card states their base (a mixture named by its experts'
shape, a fine-tune with a release number inside its name) and vision-language models that must get no row nor a dense
stand-in of their size. The ticket-level cases read a real paste (ggml-org/llama.cpp#6740) and sentences of the shapes
issue 11 names: two models where one is said as tried before, wished for, an example or a speculative-decoding draft.
"""

from pathlib import Path

import pytest
import tomllib

from diagnose.bundle import read_bundle
from rules import catalog
from rules.subject import Subject, model_named

DATA = Path(__file__).parent / "data"
NAMES = tomllib.loads((DATA / "model32" / "names.toml").read_text())


@pytest.mark.parametrize("row", NAMES["name"], ids=[r["text"] for r in NAMES["name"]])
def test_names_read_as_the_base_their_card_states(row):
    assert model_named(row["text"]).key == row["expect"], row["where"]


@pytest.mark.parametrize("row", NAMES["near_miss"], ids=[r["text"] for r in NAMES["near_miss"]])
def test_no_row_for_a_shape_or_a_vision_model_the_catalog_lacks(row):
    with pytest.raises(catalog.UnknownName):
        model_named(row["text"])


def ticket_model(tmp_path: Path, text: str) -> str | None:
    path = tmp_path / "issue.md"
    path.write_text(text)
    model = Subject.of(read_bundle(path)).model
    return model.key if model else None


def test_a_fine_tune_named_by_its_mixture_shape_in_a_real_paste():
    """ggml-org/llama.cpp#6740: "I am Running WizardLM2-8x22B IQ4_XS on an AWS g5.12xlarge" (WizardLM-2 8x22B is
    Mixtral-8x22B's fine-tune: its card); the title's bare "mixtral" names no size."""
    model = Subject.of(read_bundle(DATA / "extract30" / "llamacpp6740.md")).model
    assert model is not None and model.key == "mixtral-8x22b"


@pytest.mark.parametrize("body, expect", [
    ("I tried Llama-2-13B before; now I run Mistral-7B-Instruct on 2 T4 and get 15 tok/s", "mistral-7b"),
    ("I switched from Llama-2-70B to Llama-3.1-70B on 4 A100 and now get 20 tok/s", "llama-3-70b"),
    ("Previously I ran Mixtral-8x7B, now Qwen2.5-72B-Instruct on 4 A100 gives 12 tok/s", "qwen2.5-72b"),
    ("I'd like to run Llama-3.1-405B someday; today Llama-3.1-8B on 2 A10 gives 40 tok/s", "llama-3-8b"),
    ("Small models (e.g. Llama-3.2-3B) are fine, but Llama-3.1-70B on 4 A100 gives 10 tok/s", "llama-3-70b"),
    ("Other models such as Llama-2-13B run fine; Qwen2.5-32B on 2 A100 gives 8 tok/s", "qwen2.5-32b"),
    ("Using Llama-3.2-1B as a draft for Llama-3.1-70B on 4 H100, 40 tok/s", "llama-3-70b"),
    ("draft model Qwen2.5-0.5B, target Qwen2.5-72B on 4 H100, 40 tok/s", "qwen2.5-72b"),
    ("以前用 Llama-2-13B 速度正常，现在 Qwen1.5-72B 在 4 张 A100 上只有 5 tokens/s", "qwen1.5-72b"),
])
def test_a_model_said_as_not_the_run_gives_way_to_the_one_run(tmp_path, body, expect):
    assert ticket_model(tmp_path, f"# Slow decode\n\n{body}\n") == expect


@pytest.mark.parametrize("body, expect", [
    # the only model named: a planning question's model stays the ticket's
    ("I would like to run Llama-3.1-405B on 8 A100. How fast will it be?", "llama-3-405b"),
    # "want to know" is no wish to run another model
    ("I want to know why Llama-3.1-70B is slow on 4 A100: 12 tok/s", "llama-3-70b"),
    # "tried" alone is the run
    ("I tried Llama-3.1-70B on 4 A100 and got 10 tok/s", "llama-3-70b"),
    # the draft named second: the target, named first, stays
    ("speculative decoding with Llama-3.1-70B target and Llama-3.2-1B draft on 4 H100, 40 tok/s", "llama-3-70b"),
])
def test_near_misses_keep_the_model_named(tmp_path, body, expect):
    assert ticket_model(tmp_path, f"# Slow decode\n\n{body}\n") == expect


@pytest.mark.parametrize("body", ["meta-llama/Llama-3.2-11B-Vision-Instruct on 1 A100, 20 tok/s",
                                  "Llama 3.2 11B Vision on 1 A100, 20 tok/s"])
def test_a_vision_model_gets_no_dense_stand_in_of_its_size(tmp_path, body):
    """Llama-3.2-11B-Vision's 11B is Llama 3.1 8B plus image layers (its model card): no 11B language model."""
    assert ticket_model(tmp_path, f"# Slow decode\n\n{body}\n") is None


def test_a_size_written_before_its_line_and_release_in_real_pastes():
    """ggml-org/llama.cpp#2638 (a development ticket): "I run with the 70B llama-2 q4 model by TheBloke";
    ggml-org/llama.cpp#3772 (tests/data/ut24): "the 13B Llama 2 produces nice output". Both are Llama 2, not a
    stand-in of their size."""
    (ticket,) = (DATA / "tickets").glob("u11b12-*")
    assert Subject.of(read_bundle(ticket)).model.key == "llama-2-70b"
    assert Subject.of(read_bundle(DATA / "ut24" / "llamacpp3772.md")).model.key == "llama-2-13b"


@pytest.mark.parametrize("body, expect", [
    ("an 8B Llama 3.1 on 2 A10 gives 40 tok/s", "llama-3-8b"),
    ("a 72B Qwen2.5 on 4 A100 gives 12 tok/s", "qwen2.5-72b"),
    # near-misses: a line's variant after the release, the engine's name, a line without its release
    ("a 7B Qwen2.5-Coder on 2 T4 gives 20 tok/s", "mistral-7b (stand-in for a 7B model)"),
    ("the 13B on llama.cpp with 2 T4 gives 20 tok/s", "llama-2-13b (stand-in for a 13B model)"),
])
def test_size_first_names(tmp_path, body, expect):
    assert ticket_model(tmp_path, f"# Slow decode\n\n{body}\n") == expect


@pytest.mark.parametrize("body, expect", [
    # vLLM's serving benchmark docs: --dataset-path anon8231489123/ShareGPT_Vicuna_unfiltered (an HF dataset id whose
    # name holds "GPT" and "Vicuna"), which main read as the ticket's model
    ("I benchmark with --dataset-path anon8231489123/ShareGPT_Vicuna_unfiltered and meta-llama/Llama-3.1-8B-Instruct "
     "on 2 A10, 40 tok/s", "llama-3-8b"),
    ("We used the anon8231489123/ShareGPT_Vicuna_unfiltered dataset. Model: Qwen2.5-7B-Instruct on 2 A10, 40 tok/s",
     "qwen2.5-7b"),
])
def test_a_dataset_named_beside_the_model_is_no_model(tmp_path, body, expect):
    assert ticket_model(tmp_path, f"# Slow decode\n\n{body}\n") == expect


@pytest.mark.parametrize("body, expect", [
    ("I tried Llama-2-13B before. Now this is slow on 2 A10: 20 tok/s\n\n```\n"
     "vllm serve Qwen/Qwen2.5-7B-Instruct --tensor-parallel-size 2\n```", "qwen2.5-7b"),
    ("I want to run Llama-3.1-70B eventually. Now this is slow on 2 A10: 20 tok/s\n\n```\n"
     "python -m vllm.entrypoints.openai.api_server --model /models/qwen2.5-7b-instruct -tp 2\n```", "qwen2.5-7b"),
])
def test_the_pasted_launch_names_the_run_where_the_prose_names_only_another(tmp_path, body, expect):
    assert ticket_model(tmp_path, f"# Slow decode\n\n{body}\n") == expect

"""The model catalog's rows against their published sizes, and model names as people write them (issue 11 q).

Every id below is a real repository or tag, copied from its public page (the URL beside it); none is a catalog alias
written for the row it resolves to unless the comment says so: most reach their row through the naming conventions
(an org, a quantisation or format suffix, a publisher's words around the base's name, Ollama's tags), which is
what the test checks. The negatives are real models the catalog does not have (another size, another line), which
must stay unknown rather than borrow a near name's shape.
"""

import json
import re

import pytest
from conftest import diagnose

from diagnose.artifacts import issue_md
from diagnose.evidence import Facts, Measurement
from rules import catalog
from rules.engine import evaluate
from rules.subject import Subject, model_named

# How far a shape's computed count may be from the size its card quotes: cards round ('40B', '1T' is not used), and
# count or leave out a multi-token-prediction layer, a vision encoder, learned positions. A wrong layer count, width
# or expert count moves the total by far more.
SIZE_TOLERANCE = 0.035


def _rows_with_sizes():
    return [m for m in catalog.models().values() if m.published_params_b]


@pytest.mark.parametrize("m", _rows_with_sizes(), ids=lambda m: m.key)
def test_every_row_counts_its_published_size(m):
    assert abs(m.params() / 1e9 / m.published_params_b - 1) <= SIZE_TOLERANCE, (m.key, m.params() / 1e9)


@pytest.mark.parametrize("m", [m for m in _rows_with_sizes() if m.published_active_b], ids=lambda m: m.key)
def test_every_mixture_counts_its_published_active_size(m):
    """Cards quote the active size with or without the embedding table and LM head: the published figure lies
    between the two counts."""
    active = m.active_params() / 1e9
    without_tables = active - (m.embedding_params() + (0 if m.tied_embeddings else m.lm_head_params())) / 1e9
    low, high = without_tables * (1 - SIZE_TOLERANCE), active * (1 + SIZE_TOLERANCE)
    assert low <= m.published_active_b <= high, (m.key, without_tables, active)


def test_every_row_of_this_issue_cites_its_config_or_report():
    text = catalog.CATALOG_DIR.joinpath("models.toml").read_text()
    section = text.split("(issue 11 q)")[1]
    keys = re.findall(r"^\[model\.\"?([\w.-]+)\"?\]", section, re.M)
    assert len(keys) >= 39
    for key in keys:
        sources = catalog.model(key).sources
        assert any(re.match(r"https://(huggingface\.co/.+/config\.json|arxiv\.org/abs/)", s) for s in sources), key


# (name as written, catalog row, where the name comes from)
REAL_NAMES = [
    ("meta-llama/Llama-3.3-70B-Instruct", "llama-3-70b", "https://huggingface.co/meta-llama/Llama-3.3-70B-Instruct"),
    ("hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4", "llama-3-70b",
     "https://huggingface.co/hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4"),
    ("neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8", "llama-3-8b",
     "https://huggingface.co/neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8"),
    ("RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic", "llama-3-70b",
     "https://huggingface.co/RedHatAI/Llama-3.3-70B-Instruct-FP8-dynamic"),
    ("unsloth/Llama-3.3-70B-Instruct-bnb-4bit", "llama-3-70b",
     "https://huggingface.co/unsloth/Llama-3.3-70B-Instruct-bnb-4bit"),
    ("unsloth/Qwen2.5-7B-Instruct-unsloth-bnb-4bit", "qwen2.5-7b",
     "https://huggingface.co/unsloth/Qwen2.5-7B-Instruct-unsloth-bnb-4bit"),
    ("bartowski/Meta-Llama-3.1-8B-Instruct-GGUF", "llama-3-8b",
     "https://huggingface.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF"),
    ("Meta-Llama-3.1-8B-Instruct-Q4_K_M.gguf", "llama-3-8b",
     "https://huggingface.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF (its files)"),
    ("hf.co/bartowski/Meta-Llama-3.1-8B-Instruct-GGUF:Q4_K_M", "llama-3-8b",
     "https://huggingface.co/docs/hub/en/ollama (Ollama's hf.co/<repo>:<quant> form)"),
    ("NousResearch/Hermes-3-Llama-3.1-70B", "llama-3-70b", "https://huggingface.co/NousResearch/Hermes-3-Llama-3.1-70B"),
    ("teknium/OpenHermes-2.5-Mistral-7B", "mistral-7b", "https://huggingface.co/teknium/OpenHermes-2.5-Mistral-7B"),
    ("NousResearch/Nous-Hermes-2-Mixtral-8x7B-DPO", "mixtral-8x7b",
     "https://huggingface.co/NousResearch/Nous-Hermes-2-Mixtral-8x7B-DPO"),
    ("TheBloke/Mixtral-8x7B-Instruct-v0.1-GPTQ", "mixtral-8x7b",
     "https://huggingface.co/TheBloke/Mixtral-8x7B-Instruct-v0.1-GPTQ"),
    ("nvidia/Llama-3.1-Nemotron-70B-Instruct-HF", "llama-3-70b",  # an alias (its config.json is Llama 3.1 70B's)
     "https://huggingface.co/nvidia/Llama-3.1-Nemotron-70B-Instruct-HF"),
    ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout",
     "https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E-Instruct"),
    # Qwen's own AWQ of the 72B is its own row: padded to FFN 29696 so TP 2/4/8 load (QwenLM/Qwen3-VL#230)
    ("Qwen/Qwen2.5-72B-Instruct-AWQ", "qwen2.5-72b-padded-int4", "https://huggingface.co/Qwen/Qwen2.5-72B-Instruct-AWQ"),
    ("Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4", "qwen2.5-7b", "https://huggingface.co/Qwen/Qwen2.5-7B-Instruct-GPTQ-Int4"),
    ("Qwen/Qwen2.5-Coder-32B-Instruct-GPTQ-Int4", "qwen2.5-32b",
     "https://huggingface.co/Qwen/Qwen2.5-Coder-32B-Instruct-GPTQ-Int4"),
    ("Qwen/Qwen2.5-VL-72B-Instruct-AWQ", "qwen2.5-72b", "https://huggingface.co/Qwen/Qwen2.5-VL-72B-Instruct-AWQ"),
    ("Qwen/Qwen2.5-Math-7B-Instruct", "qwen2.5-7b", "https://huggingface.co/Qwen/Qwen2.5-Math-7B-Instruct"),
    ("Qwen/QwQ-32B-AWQ", "qwen2.5-32b", "https://huggingface.co/Qwen/QwQ-32B-AWQ"),
    ("Qwen/Qwen2.5-14B-Instruct-1M", "qwen2.5-14b", "https://huggingface.co/Qwen/Qwen2.5-14B-Instruct-1M"),
    ("Qwen/Qwen3-30B-A3B-Instruct-2507-FP8", "qwen3-30b-a3b", "https://huggingface.co/Qwen/Qwen3-30B-A3B-Instruct-2507-FP8"),
    ("unsloth/Qwen3-30B-A3B-GGUF", "qwen3-30b-a3b", "https://huggingface.co/unsloth/Qwen3-30B-A3B-GGUF"),
    ("Qwen/Qwen3-235B-A22B-Thinking-2507", "qwen3-235b-a22b", "https://huggingface.co/Qwen/Qwen3-235B-A22B-Thinking-2507"),
    ("Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8", "qwen3-coder-480b-a35b",
     "https://huggingface.co/Qwen/Qwen3-Coder-480B-A35B-Instruct-FP8"),
    ("Qwen/Qwen2-57B-A14B-Instruct", "qwen2-57b-a14b", "https://huggingface.co/Qwen/Qwen2-57B-A14B-Instruct"),
    ("deepseek-ai/DeepSeek-R1-Distill-Qwen-32B", "qwen2.5-32b", "https://huggingface.co/deepseek-ai/DeepSeek-R1-Distill-Qwen-32B"),
    ("deepseek-ai/DeepSeek-R1-Distill-Llama-70B", "llama-3-70b",
     "https://huggingface.co/deepseek-ai/DeepSeek-R1-Distill-Llama-70B"),
    ("deepseek-ai/DeepSeek-R1-0528-Qwen3-8B", "qwen3-8b", "https://huggingface.co/deepseek-ai/DeepSeek-R1-0528-Qwen3-8B"),
    ("cognitivecomputations/DeepSeek-V3-AWQ", "deepseek-v3", "https://huggingface.co/cognitivecomputations/DeepSeek-V3-AWQ"),
    ("deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct", "deepseek-v2-lite",
     "https://huggingface.co/deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct"),
    ("deepseek-ai/DeepSeek-V2.5", "deepseek-v2", "https://huggingface.co/deepseek-ai/DeepSeek-V2.5"),
    ("zai-org/GLM-4.5-Air-FP8", "glm-4.5-air", "https://huggingface.co/zai-org/GLM-4.5-Air-FP8"),
    ("cpatonn/GLM-4.5-Air-AWQ-4bit", "glm-4.5-air", "https://huggingface.co/cpatonn/GLM-4.5-Air-AWQ-4bit"),
    ("unsloth/GLM-4.6-GGUF", "glm-4.5", "https://huggingface.co/unsloth/GLM-4.6-GGUF"),
    ("moonshotai/Kimi-K2-Instruct-0905", "kimi-k2", "https://huggingface.co/moonshotai/Kimi-K2-Instruct-0905"),
    ("mistralai/Mistral-Large-Instruct-2411", "mistral-large-123b",
     "https://huggingface.co/mistralai/Mistral-Large-Instruct-2411"),
    ("mistralai/Mixtral-8x22B-Instruct-v0.1", "mixtral-8x22b", "https://huggingface.co/mistralai/Mixtral-8x22B-Instruct-v0.1"),
    ("mistralai/Mistral-Small-3.2-24B-Instruct-2506", "mistral-small-24b",
     "https://huggingface.co/mistralai/Mistral-Small-3.2-24B-Instruct-2506"),
    ("mistralai/Ministral-8B-Instruct-2410", "ministral-8b", "https://huggingface.co/mistralai/Ministral-8B-Instruct-2410"),
    ("mistral-7b-instruct-v0.3.Q4_K_M.gguf", "mistral-7b-v0.3",
     "https://huggingface.co/MaziyarPanahi/Mistral-7B-Instruct-v0.3-GGUF (its files)"),
    ("google/gemma-3-27b-it", "gemma-3-27b", "https://huggingface.co/google/gemma-3-27b-it"),
    ("google/gemma-3-12b-it-qat-q4_0-gguf", "gemma-3-12b", "https://huggingface.co/google/gemma-3-12b-it-qat-q4_0-gguf"),
    ("microsoft/Phi-3-medium-4k-instruct", "phi-3-medium", "https://huggingface.co/microsoft/Phi-3-medium-4k-instruct"),
    ("microsoft/Phi-3.5-MoE-instruct", "phi-3.5-moe", "https://huggingface.co/microsoft/Phi-3.5-MoE-instruct"),
    ("CohereForAI/c4ai-command-r-plus", "command-r-plus-104b", "https://huggingface.co/CohereForAI/c4ai-command-r-plus"),
    ("tiiuae/falcon-40b-instruct", "falcon-40b", "https://huggingface.co/tiiuae/falcon-40b-instruct"),
    ("01-ai/Yi-1.5-34B-Chat", "yi-34b", "https://huggingface.co/01-ai/Yi-1.5-34B-Chat"),
    ("TheBloke/CodeLlama-13B-Instruct-AWQ", "llama-2-13b", "https://huggingface.co/TheBloke/CodeLlama-13B-Instruct-AWQ"),
    ("lmsys/vicuna-13b-v1.5", "llama-2-13b", "https://huggingface.co/lmsys/vicuna-13b-v1.5"),
    ("facebook/opt-66b", "opt-66b", "https://huggingface.co/facebook/opt-66b"),
    ("EleutherAI/gpt-neox-20b", "gpt-neox-20b", "https://huggingface.co/EleutherAI/gpt-neox-20b"),
    ("bigcode/starcoder2-15b", "starcoder2-15b", "https://huggingface.co/bigcode/starcoder2-15b"),
    ("baichuan-inc/Baichuan2-13B-Chat-4bits", "baichuan2-13b", "https://huggingface.co/baichuan-inc/Baichuan2-13B-Chat-4bits"),
    ("internlm/internlm2_5-7b-chat", "internlm2.5-7b", "https://huggingface.co/internlm/internlm2_5-7b-chat"),
    # Ollama's library tags (https://ollama.com/library/<name>/tags)
    ("llama3.1:70b-instruct-q4_0", "llama-3-70b", "https://ollama.com/library/llama3.1/tags"),
    ("gemma3:27b", "gemma-3-27b", "https://ollama.com/library/gemma3/tags"),
    ("qwen2.5-coder:32b-instruct-q8_0", "qwen2.5-32b", "https://ollama.com/library/qwen2.5-coder/tags"),
    ("deepseek-r1:70b", "llama-3-70b", "https://ollama.com/library/deepseek-r1/tags"),
    ("command-r-plus:104b", "command-r-plus-104b", "https://ollama.com/library/command-r-plus/tags"),
    # a release's version as Kubernetes names and file names spell it (no dot)
    ("llama-3-1-8b-instruct", "llama-3-8b", "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"),
    ("llama3_1-70b", "llama-3-70b", "an underscore for the dot"),
    ("qwen2-5-72b-instruct", "qwen2.5-72b", "https://kubernetes.io/docs/concepts/overview/working-with-objects/names/"),
]

# Real models the catalog does not have: another size of a known line, another line of a known family, another
# family. None may borrow a near row's shape.
NOT_IN_CATALOG = [
    "meta-llama/Llama-3.2-11B-Vision-Instruct",  # a cross-attention decoder the catalog has no row for
    "meta-llama/Llama-4-Maverick-17B-128E-Instruct",  # Scout's 17B active, other experts
    "Qwen/Qwen3.5-9B",  # a size of a line the catalog has at 27B, 35B-A3B, 122B-A10B, 397B-A17B
    "Qwen/CodeQwen1.5-7B",  # Qwen1.5-7B's size and line name, other shapes (GQA, its own vocabulary)
    "google/gemma-3n-E4B-it",  # an 'E4B' is not Gemma 3's 4B
    "deepseek-ai/deepseek-coder-1.3b-instruct",  # a size of a line the catalog has at 6.7B and 33B
    "tiiuae/falcon-11B",  # a size of a line the catalog has at 7B, 40B, 180B
    "mosaicml/mpt-30b",  # a size of MPT the catalog lacks (7B is a row since s25)
    "hf-internal-testing/llama-tokenizer",  # 'llama' in a tokenizer's repository (TinyLlama is a row since s25)
    "nvidia/Llama-3_3-Nemotron-Super-49B-v1",  # a pruned 70B: its own shapes
    "meta-llama/Llama-3.1-7B",  # no such size of the line
]


@pytest.mark.parametrize("name, key, where", REAL_NAMES, ids=[n for n, _, _ in REAL_NAMES])
def test_real_model_names_resolve_to_their_rows(name, key, where):
    assert model_named(name).key == key, where


def test_the_names_are_many_and_mostly_not_aliases():
    aliases = {catalog._norm(a) for m in catalog.models().values() for a in (m.key, *m.aliases)}
    not_alias = [n for n, _, _ in REAL_NAMES if catalog._norm(n) not in aliases
                 and catalog._norm(n.rsplit("/", 1)[-1]) not in aliases]
    assert len(REAL_NAMES) >= 40 and len(not_alias) >= 30


@pytest.mark.parametrize("name", NOT_IN_CATALOG)
def test_models_the_catalog_lacks_stay_unknown(name):
    with pytest.raises(catalog.UnknownName):
        model_named(name)


def _ticket(text: str) -> Facts:
    facts = Facts()
    facts.add(*issue_md.parse(text, "issue.md"))
    return facts


@pytest.mark.parametrize("name, key", [
    ("zai-org/GLM-4.5-Air-FP8", "glm-4.5-air"),
    ("google/gemma-3-27b-it", "gemma-3-27b"),
    ("Qwen/Qwen2.5-VL-72B-Instruct-AWQ", "qwen2.5-72b"),
    ("NousResearch/Hermes-3-Llama-3.1-70B", "llama-3-70b"),
])
def test_a_ticket_naming_a_new_model_is_judged_against_its_expected_figure(name, key):
    text = (f"# decode is slow\n\nWe serve {name} with vLLM on 4x H100 SXM, tensor parallel 4.\n"
            "Single request decode runs at 9 tok/s at batch 1. Is this expected?")
    facts = _ticket(text)
    assert Subject.of(facts).model.key == key
    judged = [f for f in evaluate(facts) if f.rule == "ticket.measured_vs_expected" and f.confidence > 0]
    assert judged and judged[0].evidence[0].expected, [f.rule for f in evaluate(facts)]


def test_a_ticket_naming_a_model_the_catalog_lacks_gets_no_borrowed_shape():
    facts = _ticket("# slow\n\nWe serve Qwen/Qwen3.5-397B-A17B on 8x H100 SXM with TP 8: 9 tok/s at batch 1.")
    model = Subject.of(facts).model
    assert model is None or model.key not in ("qwen3-30b-a3b", "qwen3.6-35b-a3b", "qwen3.6-27b")


@pytest.mark.parametrize("command, args", [
    ("predict", ["--gpu", "h100-sxm", "--tp", "4", "--json"]),
    ("plan", ["--gpu", "h100-sxm", "--gpus", "8", "--context", "4096", "--json"]),
])
@pytest.mark.parametrize("name, key", [("zai-org/GLM-4.5-Air-FP8", "glm-4.5-air"),
                                       ("unsloth/Llama-3.3-70B-Instruct-bnb-4bit", "llama-3-70b"),
                                       ("gemma3:27b", "gemma-3-27b")])
def test_predict_and_plan_take_the_names(command, args, name, key):
    result = diagnose(command, "--model", name, *args)
    assert result.exit_code in (0, 1), result.output + result.stderr
    assert catalog.model(key).name in result.stdout


def test_predict_refuses_a_model_the_catalog_lacks_in_one_line():
    result = diagnose("predict", "--model", "mosaicml/mpt-30b", "--gpu", "h100-sxm", "--tp", "1")
    assert result.exit_code == 2 and "unknown model 'mosaicml/mpt-30b'" in result.stderr
    assert "Traceback" not in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_scaling_takes_the_names(tmp_path):
    csv = tmp_path / "runs.csv"
    csv.write_text("layout,batch,metric,value\nTP1,1,decode_tok_s,30\nTP2,1,decode_tok_s,50\n")
    result = diagnose("scaling", str(csv), "--model", "google/gemma-3-12b-it-qat-q4_0-gguf", "--gpu", "h100-sxm",
                      "--json")
    assert result.exit_code in (0, 1), result.output + result.stderr
    assert json.loads(result.stdout)["kind"] == "scaling" and "Gemma-3-12B" in result.stdout


@pytest.mark.parametrize("text, key", [
    ("# slow\n\nWe serve Command R+ on 4x A100 80GB: 9 tok/s at batch 1.", "command-r-plus-104b"),
    ("# slow\n\ncommand-r-plus behind vLLM on four A100s gives 9 tok/s.", "command-r-plus-104b"),
    ("# slow\n\nCommand R (the 35B) on 2x A100 gives 20 tok/s.", "command-r-35b"),
    ("# slow\n\nKimi K2 on 16 H200 decodes at 20 tok/s per request.", "kimi-k2"),
    ("# slow\n\nOur GLM-4.5-Air deployment on 4x H100 decodes at 30 tok/s.", "glm-4.5-air"),
    ("# slow\n\nglm4.5 on 8x H200 with SGLang: 25 tok/s single stream.", "glm-4.5"),
    ("# slow\n\nLlama 4 Scout on one H100 decodes at 40 tok/s.", "llama-4-scout"),
    ("# slow\n\nRunning moonshotai/Kimi-K2-Instruct on 16 H200 gives 20 tok/s.", "kimi-k2"),
])
def test_lines_named_without_a_size_are_read_from_prose(text, key):
    assert Subject.of(_ticket(text)).model.key == key


@pytest.mark.parametrize("text", [
    "# slow\n\nWe moved off Command R+ and now run Llama-3.1-8B on one H100: 90 tok/s.",
    "# slow\n\nNot the GLM-4.5-Air: we run Llama-3.1-8B on one H100 at 90 tok/s.",
])
def test_a_line_named_as_not_run_is_not_the_figures_model(text):
    (m,) = [m for m in _ticket(text).of(Measurement) if m.unit == "tok/s"]
    assert m.model is None or "Llama-3.1-8B" in m.model


@pytest.mark.parametrize("path, key", [
    ("/models/Meta-Llama-3.1-8B-Instruct/", "llama-3-8b"),  # a model's folder, its closing slash kept
    ("~/hf/Qwen2.5-72B-Instruct-AWQ/", "qwen2.5-72b-padded-int4"),
    ("./gemma-3-27b-it", "gemma-3-27b"),
])
def test_a_models_folder_is_its_model(path, key):
    assert model_named(path).key == key


def test_the_readme_counts_the_catalogs_shapes():
    readme = (catalog.CATALOG_DIR.parent.parent / "README.md").read_text()
    assert f"the model\ncatalog holds {len(catalog.models())} shapes" in readme


def test_capture_takes_the_names():
    """capture's --model is read by the same resolver: a quantised repository's name is its base's shape, with the
    weights its name states (as ticket, predict and scaling read them: tests/test_weights_from_model_name.py)."""
    from conftest import REPO, report_json

    healthy = REPO / "samples" / "captures" / "tp4_nvlink_healthy.sqlite"
    by_key = report_json("capture", healthy, "--model", "llama-3-70b")
    by_repo = report_json("capture", healthy, "--model", "hugging-quants/Meta-Llama-3.1-70B-Instruct-AWQ-INT4")
    key, repo = by_key["predictions"]["roofline"], by_repo["predictions"]["roofline"]
    assert key["model"] == repo["model"] == "llama-3-70b"
    assert (key["dtype"], repo["dtype"]) == ("bf16", "int4")
    assert [f["rule"] for f in by_repo["findings"]].count("capture.step_vs_prediction") == 1


def test_no_two_rows_share_a_name_as_names_are_compared():
    """Names compare without their punctuation ('3.1' = '3_1' = '31'), so two rows' names must not collapse into one:
    'qwen2-57b' (Qwen2's 57B mixture) once read as 'qwen2.5-7b'."""
    owners: dict[str, set[str]] = {}
    for key, m in catalog.models().items():
        for name in (key, m.name, *m.aliases):
            owners.setdefault(catalog._norm(name), set()).add(key)
    assert not {n: keys for n, keys in owners.items() if len(keys) > 1}
    assert model_named("qwen2:57b").key == "qwen2-57b-a14b" and model_named("qwen2.5:7b").key == "qwen2.5-7b"
    assert model_named("Qwen2-57B-A14B").key != model_named("Qwen2.5-7B").key

"""One answer to "does this engine keep every weight in VRAM?" (issue 11): rules.offload.keeps_weights_on_gpu, asked by
the partial-offload claims (claims._layers_may_sit_on_cpu) and by the offload placements (ticket_offload.placements)
alike, whatever spelling the ticket uses: a catalog key, a framework line, a container image, a program, an argument.
vLLM/SGLang offload only with --cpu-offload-gb (https://docs.vllm.ai/en/latest/configuration/engine_args.html);
llama.cpp (-ngl), Ollama, accelerate's device_map="auto"
(https://huggingface.co/docs/accelerate/usage_guides/big_modeling) and KTransformers
(https://github.com/kvcache-ai/ktransformers) place layers or experts on the CPU."""

import pytest

from diagnose.artifacts import ticket_toml
from diagnose.evidence import Facts, Note
from rules import claims
from rules.offload import keeps_weights_on_gpu
from rules.ticket_offload import engine_keeps_weights

NAMES = [
    ("vLLM", True), ("vllm-0.8", True), ("vLLM 0.6.3", True), ("vllm/vllm-openai:v0.6.3", True),
    ("Aphrodite engine (vLLM fork)", True),
    ("SGLang v0.4.1", True), ("lmsysorg/sglang:latest", True),
    ("TensorRT-LLM 0.9", True), ("trtllm", True), ("trtllm-0.10", True),
    ("nvcr.io/nvidia/tritonserver:24.05-trtllm", True),
    ("TGI", True), ("text-generation-inference", True), ("ghcr.io/huggingface/text-generation-inference:2.0", True),
    ("tgi-1.0", True), ("LMDeploy", True), ("gpt-fast", True),
    ("llama.cpp", False), ("llama-server", False), ("llamacpp-eager", False), ("Ollama 0.5.7", False),
    ("koboldcpp", False), ("KTransformers", False), ("accelerate", False), ("hf-eager", False),
    ('transformers (device_map="auto")', False),
    ("exllamav2", None), ("", None), (None, None),
]


@pytest.mark.parametrize("name, resident", NAMES)
def test_each_spelling_gets_its_engines_answer(name, resident):
    assert keeps_weights_on_gpu(name) is resident


def _ticket(tmp_path, framework: str) -> Facts:
    path = tmp_path / "ticket.toml"
    path.write_text(f'description = "Decode is slow, the GPU looks half idle."\n\n[software]\nframework = '
                    f"'{framework}'\n\n[hardware]\ngpu = \"RTX 4090\"\ngpu_count = 1\n")
    facts = Facts()
    facts.add(*ticket_toml.parse(path.read_text(), str(path)))
    return facts


@pytest.mark.parametrize("name, resident", [(n, r) for n, r in NAMES if n])
def test_the_claims_and_the_placements_agree(tmp_path, name, resident):
    """The same ticket's engine, asked by both callers: layers may sit on the CPU exactly where the engine does not
    keep every weight in VRAM."""
    facts = _ticket(tmp_path, name)
    assert claims._layers_may_sit_on_cpu(facts) is (engine_keeps_weights(facts) is not True)
    assert engine_keeps_weights(facts) is resident


def test_an_offload_switch_opens_a_resident_engine():
    """--cpu-offload-gb above 0 under vLLM lets layers sit in host memory; 0 does not (vLLM engine args)."""
    def facts_of(text):
        f = Facts()
        f.add(Note("issue.md:1", "description", text))
        return f

    assert claims._layers_may_sit_on_cpu(facts_of("vllm serve Qwen/Qwen2.5-72B --cpu-offload-gb 20 on 2x RTX 4090"))
    assert not claims._layers_may_sit_on_cpu(facts_of("vllm serve Qwen/Qwen2.5-72B --cpu-offload-gb 0 on 2x 4090"))


@pytest.mark.parametrize("image, key", [
    # TGI's image (https://huggingface.co/docs/text-generation-inference/quicktour) sits under the huggingface
    # organisation: its repository names the engine, not the organisation (was read as hf-eager)
    ("ghcr.io/huggingface/text-generation-inference:2.0", "tgi"),
    ("vllm/vllm-openai:v0.8.5", "vllm-0.8"),  # the tag still picks the release profile
    ("lmsysorg/sglang:v0.4.1-cu124", "sglang"),
])
def test_a_container_image_names_its_engine_by_its_repository(image, key):
    from rules import catalog

    assert catalog.find_engine(image).key == key

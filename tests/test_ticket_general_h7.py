"""Issue 11 (h7): general gaps in ticket reasoning, each from documentation and physics.

Every sentence is a paraphrase written here, the way such situations are worded across threads and in the
tools' own output (NVML's utilisation, Ollama's `ollama ps`, llama.cpp's `-ngl`); none is copied from a
corpus case. Paraphrases must be read; negations, questions and suggestions must not.
"""

import pytest

from diagnose.artifacts import parse_text
from diagnose.evidence import Facts, Note
from rules import catalog, ticket_rules
from rules.subject import Subject


def said(text: str, kind: str = "description") -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", kind, text))
    return facts


# 4. A GPU utilisation figure means the GPU runs: "no GPU goes above 40%" is no CPU-only engine.
@pytest.mark.parametrize("sentence", [
    "Upgrading the CPU made it faster; no GPU goes above 40% utilisation.",
    "The CPU is the bottleneck: one core at 100% and no GPU exceeds 35 %.",
    "One core is pegged and none of the GPUs gets past 30% util, the GPUs wait on the CPU.",
    "The CPU is the bottleneck, with no GPU ever reaching 50% while a core sits at 100%.",
])
def test_a_gpu_utilisation_figure_is_no_cpu_only_engine(sentence):
    facts = said(sentence)
    assert not ticket_rules._cpu_only(facts)
    assert [f.category for f in ticket_rules.cpu_bound(facts)] == ["host_bound"]


@pytest.mark.parametrize("sentence", [
    "There is no GPU in this box, the CPU is the bottleneck at 100%.",
    "Running without a GPU, the CPU is the bottleneck.",
    "It runs in CPU-only mode and the CPU is the bottleneck.",
])
def test_an_engine_without_a_gpu_stays_cpu_only(sentence):
    facts = said(sentence)
    assert ticket_rules._cpu_only(facts)
    assert not list(ticket_rules.cpu_bound(facts))


# 3. A letter suffix glued to (or spaced from) the model number names its own row, never the plain card's.
def _subject_of(text: str) -> Subject:
    records, _ = parse_text(text, "issue.md")
    facts = Facts()
    for r in records:
        facts.add(r)
    return Subject.of(facts)


def _gpu_of(text: str) -> str | None:
    gpu = _subject_of(text).gpu
    return gpu.key if gpu else None


@pytest.mark.parametrize("text, key", [
    ("# vLLM slow\n\nRunning Qwen2.5-72B on 2x 4090D with TP=2, I get 10 tok/s.\n", "rtx-4090-d"),
    ("# slow\n\nI have 4x RTX 4090 D cards and TP 4 gives 12 tok/s.\n", "rtx-4090-d"),
    ("# slow\n\nOn two GeForce 4090D's with tensor parallel 2 it gives 12 tok/s.\n", "rtx-4090-d"),
    ("# slow\n\n2x 3090Ti with TP 2 gives 20 tok/s.\n", "rtx-3090-ti"),
    ("# slow\n\nTwo A6000Ada GPUs, tensor parallel 2, 20 tok/s.\n", "rtx-6000-ada"),
    ("# slow\n\nTwo RTX A6000 Ada cards, tensor parallel 2, 20 tok/s.\n", "rtx-6000-ada"),
    ("# slow\n\n4x 6000 Ada with TP 4 gives 30 tok/s.\n", "rtx-6000-ada"),
    # the plain cards keep their rows
    ("# slow\n\n2x 4090 with TP=2 gives 10 tok/s.\n", "rtx-4090"),
    ("# slow\n\nTwo RTX A6000 cards, tensor parallel 2, 20 tok/s.\n", "rtx-a6000"),
    ("# slow\n\n2x 3090 with TP 2 gives 20 tok/s.\n", "rtx-3090"),
])
def test_a_letter_suffix_on_the_model_number_names_its_own_row(text, key):
    assert _gpu_of(text) == key


@pytest.mark.parametrize("name, key", [
    ("4090D", "rtx-4090-d"), ("RTX 4090 D", "rtx-4090-d"), ("3090Ti", "rtx-3090-ti"), ("A6000Ada", "rtx-6000-ada"),
    ("A6000 Ada", "rtx-6000-ada"), ("RTX 6000Ada", "rtx-6000-ada"), ("A6000", "rtx-a6000"), ("4090", "rtx-4090"),
])
def test_catalog_spellings(name, key):
    spec = catalog.find_gpu(name) or catalog.find_gpu_family(name)
    assert spec is not None and spec.key == key


# 2. An Ollama tag without a size pulls the library's default size ("latest"): llama3.3 is the 70B.
def _model_of(text: str) -> str | None:
    model = _subject_of(text).model
    return model.key if model else None


@pytest.mark.parametrize("text", [
    "# slow\n\nI run `ollama run llama3.3` on 2x RTX 3090 and get 5 tok/s.\n",
    "# Ollama slow\n\nAfter `ollama pull llama3.3` the model answers at 4 tok/s on two 3090s.\n",
    "# slow\n\n`ollama ps` lists llama3.3:latest on 2x RTX 3090, 5 tok/s.\n",
])
def test_a_sizeless_ollama_tag_resolves_as_its_default_size(text):
    assert _model_of(text) == catalog.find_model("llama3.3:70b").key == "llama-3-70b"


@pytest.mark.parametrize("tag, sized", [("qwq", "qwq:32b"), ("mistral", "mistral:7b"), ("gemma2", "gemma2:9b"),
                                        ("qwen2.5", "qwen2.5:7b"), ("llama3.1", "llama3.1:8b")])
def test_each_bare_tag_is_its_library_default(tag, sized):
    assert catalog.ollama_sized_tag(tag) == sized
    assert catalog.find_model(f"{tag}:latest").key == catalog.find_model(sized).key
    assert catalog.tag_weights(f"{tag}:latest") == "int4"  # the default tag is the library's 4-bit build


def test_a_sized_tag_or_a_name_outside_ollama_keeps_its_own_size():
    assert _model_of("# slow\n\n`ollama run llama3.1:70b` on 2x RTX 3090 gives 5 tok/s.\n") == "llama-3-70b"
    assert catalog.ollama_sized_tag("llama3.3:70b") is None and catalog.ollama_sized_tag("no-such-model") is None
    # "mistral" in prose without Ollama's command is no tag
    assert _model_of("# slow\n\nI ran mistral on 2x RTX 3090 at 5 tok/s.\n") is None


# 1. Part of the model's layers on the CPU (Ollama's `ollama ps` PROCESSOR column, the runner's "offloaded N/M
# layers to GPU", llama.cpp's -ngl below the layer count, or said in words): those layers stream from system RAM.
def _offload(text: str, model: str | None = None):
    facts = said(text)
    facts.subject = Subject(model=catalog.find_model(model) if model else None)
    return list(ticket_rules.partial_offload(facts))


@pytest.mark.parametrize("text", [
    "Slow generation. `ollama ps` shows: llama3.3:70b  a6eb4748fd29  49 GB  45%/55% CPU/GPU  4 minutes from now",
    "The server log says: load_tensors: offloaded 20/81 layers to GPU, and I get 1.5 tok/s.",
    "llm_load_tensors: offloaded 40/81 layers to GPU\nIt generates 2 tokens per second.",
    "The model doesn't fit in VRAM, so part of it runs on the CPU and it is very slow.",
    "Only half of the layers are on the GPUs, the rest spill over into system RAM; it crawls at 2 tok/s.",
    "Since the 70B is too big for my two 3090s, some layers are offloaded to the CPU and decoding is slow.",
    "Part of the model runs on the CPU even though nvidia-smi shows 100% GPU utilization; 3 tok/s.",  # no ollama ps
])
def test_layers_on_the_cpu_are_a_host_bound_slowdown(text):
    (f,) = _offload(text)
    assert (f.rule, f.category) == ("ticket.partial_offload", "host_bound")
    assert f.evidence and f.evidence[0].detail  # the quote that says where the layers are


def test_ngl_below_the_models_layer_count_is_a_partial_offload():
    (f,) = _offload("I start llama-server -m llama-70b.gguf -ngl 40 -c 4096 and it gives 3 tok/s.", "llama3.3:70b")
    assert f.category == "host_bound" and "40" in f.title and "80" in f.title
    assert not _offload("I start llama-server -m llama-70b.gguf -ngl 99 -c 4096 and it gives 3 tok/s.", "llama3.3:70b")
    assert not _offload("I start llama-server -m model.gguf -ngl 40 and it gives 3 tok/s.")  # layer count unknown


@pytest.mark.parametrize("text", [
    "`ollama ps` shows llama3.3:70b  49 GB  100% GPU  4 minutes from now, still 5 tok/s.",
    "load_tensors: offloaded 81/81 layers to GPU, yet it is slow.",
    "The model fits in VRAM; no part of it runs on the CPU.",
    "Part of the model no longer runs on the CPU since I added the second card, but it is still slow.",
    "Could part of the model be running on the CPU?",
    "Maybe try offloading some layers to the CPU to fit a bigger context?",
    "The model is not split; nothing is offloaded to the CPU.",
    "Some tokenization runs on the CPU and part of the sampling too, and it is slow.",  # not the model's layers
])
def test_everything_on_the_gpu_or_a_question_is_no_offload(text):
    assert _offload(text) == []


OLLAMA_PS = ("# Ollama very slow on RTX 4090\n\nRunning `ollama run llama3.3` on one RTX 4090, I only get 2 tok/s.\n\n"
             "```\nNAME              ID            SIZE   PROCESSOR          UNTIL\n"
             "llama3.3:latest   a6eb4748fd29  47 GB  {processor}    4 minutes from now\n```\n")


@pytest.mark.parametrize("processor, verdict", [("49%/51% CPU/GPU", "host_bound"), ("100% GPU", None)])
def test_ollama_ps_pasted_in_an_issue_decides_the_verdict(tmp_path, processor, verdict):
    from diagnose.bundle import read_bundle
    from diagnose.commands.ticket import ticket_predictions
    from rules.engine import evaluate, ticket_verdict

    (tmp_path / "issue.md").write_text(OLLAMA_PS.format(processor=processor))
    facts = read_bundle([tmp_path])
    findings = evaluate(facts, ticket_predictions(facts))
    offload = [f for f in findings if f.rule == "ticket.partial_offload"]
    if verdict:
        assert ticket_verdict(facts, findings).category == verdict
        assert offload[0].evidence[0].source == "issue.md:7"  # the `ollama ps` row, cited by its line
    else:
        assert offload == []


# 5. NCCL binds each GPU's threads to the process's CPUs within the GPU's local ones ("Setting affinity for GPU N to
# <mask>"): one core for a rank, or CPUs off the GPU's NUMA node, put its launches and proxy threads in the wrong place.
def _affinity_facts(lines: list[str], topo_cpus: dict[int, str] | None = None) -> Facts:
    from diagnose.artifacts import nccl_log
    from diagnose.evidence import GpuFact

    facts = Facts()
    for r in nccl_log.parse("\n".join(lines), "nccl.log"):
        facts.add(r)
    for index, cpus in (topo_cpus or {}).items():
        facts.add(GpuFact("topo.txt:2", index=index, cpu_affinity=cpus, numa_node=0 if cpus.startswith("0") else 1))
    return facts


def _nccl_affinity(facts: Facts):
    from rules import host

    return [f for f in host.nccl_affinity(facts) if f.category != "healthy"]


@pytest.mark.parametrize("mask", ["5", "00000020", "00000001,00000000"])
def test_an_nccl_affinity_of_one_core_is_a_numa_affinity_finding(mask):
    facts = _affinity_facts([f"n1:7:7 [0] NCCL INFO Setting affinity for GPU 0 to {mask}",
                             "n1:8:8 [1] NCCL INFO Setting affinity for GPU 1 to 0-31"])
    (f,) = _nccl_affinity(facts)
    assert (f.rule, f.category) == ("host.nccl_affinity", "numa_affinity") and "GPU0" in f.title
    assert f.evidence[0].source == "nccl.log:1" and f.evidence[0].measured == 1


def test_an_nccl_affinity_off_the_gpus_numa_node_is_a_finding():
    facts = _affinity_facts(["n1:7:7 [1] NCCL INFO Setting affinity for GPU 1 to 0-15"], {0: "0-31", 1: "32-63"})
    (f,) = _nccl_affinity(facts)
    assert "GPU1" in f.title and "32-63" in f.evidence[1].detail


@pytest.mark.parametrize("lines, topo", [
    (["n1:7:7 [0] NCCL INFO Setting affinity for GPU 0 to 0-31,64-95"], {0: "0-31,64-95"}),
    (["n1:7:7 [0] NCCL INFO Setting affinity for GPU 0 to ffffffff"], None),
    (["n1:7:7 [1] NCCL INFO Setting affinity for GPU 1 to 32-47"], {0: "0-31", 1: "32-63"}),  # a subset of its node
])
def test_a_several_core_mask_on_the_gpus_own_node_is_fine(lines, topo):
    assert _nccl_affinity(_affinity_facts(lines, topo)) == []


def test_a_ticket_toml_naming_ollama_and_a_bare_tag_resolves_its_default_size():
    from diagnose.evidence import Workload

    def model(framework):
        facts = Facts()
        facts.add(Workload("ticket.toml:3", model="llama3.3", framework=framework))
        spec = Subject.of(facts).model
        return spec.key if spec else None

    assert model("ollama 0.5.4") == "llama-3-70b"
    assert model("vllm") is None  # a bare family name outside Ollama names no size

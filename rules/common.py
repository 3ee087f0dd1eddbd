"""Small helpers the topic rule modules share: building findings, and questions many rules ask
of the facts (which GPU is this, is NVLink there, how many nodes, what does the NIC carry).

Each answer comes with the evidence it rests on, so a finding can quote it.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections import Counter
from typing import Any, Iterable

from diagnose.evidence import (
    CollectiveResult,
    Facts,
    GpuFact,
    Measurement,
    NcclSetting,
    NcclTransport,
    NvLinkFact,
    P2PStatus,
    PairBandwidth,
    TopologyPath,
    Workload,
    where,
)
from diagnose.findings import Evidence, Finding
from rules import claims as _claims

# Documentation the findings point to.
DOCS = {
    "nccl_env": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html",
    "nccl_trouble": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html",
    "deepspeed_zero3": "https://deepspeed.readthedocs.io/en/latest/zero3.html",
    "nccl_acs": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#pci-access-control-services-acs",
    "nvml_p2p": "https://docs.nvidia.com/deploy/nvml-api/group__nvmlDeviceEnumvs.html",
    "nccl_docker": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/troubleshooting.html#sharing-data",
    "nccl_tests_perf": "https://github.com/NVIDIA/nccl-tests/blob/master/doc/PERFORMANCE.md",
    "nccl_releases": "https://docs.nvidia.com/deeplearning/nccl/release-notes/index.html",
    "gdr": "https://docs.nvidia.com/cuda/gpudirect-rdma/index.html",
    "fabric_manager": "https://docs.nvidia.com/datacenter/tesla/fabric-manager-user-guide/index.html",
    "xid": "https://docs.nvidia.com/deploy/xid-errors/index.html",
    "mem_errors": "https://docs.nvidia.com/deploy/a100-gpu-mem-error-mgmt/index.html",
    "nvidia_smi": "https://docs.nvidia.com/deploy/nvidia-smi/index.html",
    "persistence": "https://docs.nvidia.com/deploy/driver-persistence/overview.html",
    "throttle": "https://docs.nvidia.com/deploy/nvml-api/group__nvmlClocksEventReasons.html",
    "vllm_parallel": "https://docs.vllm.ai/en/latest/serving/distributed_serving.html",
    "vllm_graphs": "https://docs.vllm.ai/en/latest/configuration/optimization.html",
    "numa": "https://docs.nvidia.com/deeplearning/nccl/user-guide/docs/env.html#nccl-ignore-cpu-affinity",
    "cuda_graphs": "https://developer.nvidia.com/blog/cuda-graphs/",
}

DESCRIPTION_NOTE = "the reporter's words"


def ev(src: Any, detail: str, measured: Any = None, expected: Any = None, unit: str | None = None) -> Evidence:
    """Evidence from a record (its `source`) or a source string."""
    source = src if isinstance(src, str) else getattr(src, "cited", None) or getattr(src, "source", str(src))
    return Evidence(source=source, detail=detail, measured=measured, expected=expected, unit=unit)


def claim_ev(c: _claims.Claim, detail: str) -> Evidence:
    return Evidence(source=c.cited, detail=f'{detail}: "{c.quote}"')


def make(rule: str, category: str, severity: str, confidence: float, title: str, summary: str,
         evidence: Iterable[Evidence] = (), fix: str = "", refs: Iterable[str] = (), ask: str = "") -> Finding:
    # a title opening on an unnumbered GPU (label: "the GPU PCIe link runs at x8") starts a sentence, and the verdict
    # quotes it as one
    title = "The" + title[3:] if title.startswith("the ") else title
    return Finding(rule=rule, category=category, severity=severity, confidence=round(confidence, 2),
                   title=title, summary=summary, evidence=list(evidence), fix=fix,
                   references=[DOCS.get(r, r) for r in refs], ask=ask)


def need(rule: str, title: str, summary: str, attach: str, evidence: Iterable[Evidence] = ()) -> Finding:
    """An insufficient_data finding whose fix names exactly the artifact to attach."""
    return make(rule, "insufficient_data", "info", 0.0, title, summary, evidence, fix=f"attach {attach}", ask=attach)


def passed(rule: str, title: str, summary: str, evidence: Iterable[Evidence], confidence: float = 0.8) -> Finding:
    return make(rule, "healthy", "ok", confidence, title, summary, evidence)


# --------------------------------------------------------------------------- hardware


def tp_engine(key: str | None) -> bool:
    """Does the catalog engine `key` (as engine_of returns it) split each layer over the GPUs it is given unless
    told otherwise? Its profile's `parallel` says so, first (engines.toml): a layer split (llama.cpp, Ollama,
    accelerate's device_map) puts whole layers on each GPU instead; every release profile carries its own."""
    from rules import catalog

    found = catalog.engines().get(key) if key else None
    return found is not None and found.parallel[:1] == ("tp",)


# llama.cpp's profiles (Ollama, llama-cpp-python, LM Studio, koboldcpp run it): whole layers per GPU, GGUF weights
LLAMACPP_ENGINES = ("llamacpp", "llamacpp-eager")


def runs_ollama(facts: Facts) -> bool:
    """Does a launch line or ticket.toml name Ollama as the framework (its library tags and default weights apply)?"""
    return any(re.search(r"\bollama\b", w.framework or "", re.I) for w in facts.of(Workload))


def engine_of(facts: Facts) -> str | None:
    """The catalog engine profile of the framework a launch line or ticket.toml names, if any."""
    from rules import catalog

    found = catalog.engine_named(facts)
    return found.key if found is not None else None


def engine_releases(facts: Facts) -> tuple[tuple, str]:
    """The profiles the framework a launch line or ticket names could have run where it names no release ('vLLM'),
    oldest first, and how the material narrowed them ("" where nothing did); ((), "") where it states one or the
    engine has one profile (rules.catalog.release_candidates). What narrows them: the release markers the material
    shows (engines.toml release_markers; rules.catalog.narrow_releases weighs them), each where it is first shown and
    not said to be off on its line ("we do not set VLLM_USE_V1=0": diagnose.artifacts.launch.setting_off)."""
    from rules import catalog

    for w in facts.of(Workload):
        if catalog.find_engine(w.framework) is not None:
            candidates = catalog.release_candidates(w.framework)
            base = next((e for e in candidates if e.releases), None)
            if base is None or not base.release_markers:
                return candidates, ""
            marks: dict[tuple, dict] = {}
            for name, text in facts.material:
                for h in _release_marks(text, base.key):
                    marks.setdefault((h["marker"], h["release"]), {**h, "source": where(name, h["line"])})
            return catalog.narrow_releases(candidates, list(marks.values()))
    return (), ""


@functools.lru_cache(maxsize=32)
def _release_marks(text: str, engine_key: str) -> tuple[dict, ...]:
    """The engine's release markers `text` shows, each where first shown and not said to be off on its line or left
    behind ("upgraded from vllm==0.6.3"), with its line number (a ticket's rules ask for them many times; a text's
    hash is cached, so the lookup is cheap)."""
    from diagnose.artifacts.launch import setting_off
    from diagnose.artifacts.text import left_behind
    from rules import catalog

    found: dict[tuple, dict] = {}
    for h in catalog.release_marks(text, engine_key):
        if (h["marker"], h["release"]) not in found and not setting_off(text, h["start"], h["end"]) \
                and not left_behind(text, _word_start(text, h["start"])):
            found[(h["marker"], h["release"])] = {**h, "line": text.count("\n", 0, h["start"]) + 1}
    return tuple(found.values())


def _word_start(text: str, at: int) -> int:
    """Where the whitespace-delimited word holding text[at] starts ("ghcr.io/huggingface/text-generation-..."))."""
    return max(text.rfind(c, 0, at) for c in " \t\n") + 1


def engine_builds(facts: Facts) -> list[str]:
    """The engine builds the facts state (parsers read them: diagnose.artifacts.text.llamacpp_builds), in order; none
    where the ticket runs a fork of llama.cpp (ik_llama.cpp counts its own commits: its build dates no upstream one)."""
    if any(w.extra.get("engine_fork") for w in facts.of(Workload)):
        return []
    return list(dict.fromkeys(b for w in facts.of(Workload) for b in w.extra.get("engine_builds", ())))


def engine_flash_attn(facts: Facts) -> tuple[bool | str | None, bool]:
    """(flash attention as a llama-server line states it: True for on, False for off, 'auto', None where none says;
    whether a line ran llama-server, whose -fa default an unstated one takes, not llama-bench's: rules.catalog
    .attention_build)."""
    said = next((w.extra["flash_attn"] for w in facts.of(Workload) if w.extra.get("flash_attn")), None)
    server = any(w.extra.get("llamacpp_tool") == "llama-server" for w in facts.of(Workload))
    return {"on": True, "off": False, "auto": "auto"}.get(said or ""), server


def figure_tp(facts: Facts, m: Measurement) -> tuple[int, str] | None:
    """(TP, how it is known) from a figure's own clause: the TP stated with it, or the GPUs it names where the
    engine splits every layer over them ("with 4 GPUs 205 tok/s" under vLLM); None when the clause says neither."""
    if m.tp:
        return m.tp, "stated with the figure"
    engine = engine_of(facts) or ""
    if m.gpus and tp_engine(engine):
        return m.gpus, f"assumed: the {engine} engine splits the model over the {m.gpus} GPUs of the figure"
    return None


def label(g: GpuFact) -> str:
    """'GPU3', or 'the GPU' when the source did not number it."""
    return f"GPU{g.index}" if g.index is not None else "the GPU"


def wfield(facts: Facts, name: str):
    """(value, source) of the first Workload record that states `name`; (None, None) if none does."""
    for w in facts.of(Workload):
        value = getattr(w, name, None)
        if value is not None:
            return value, w.source
    return None, None


def llamacpp_split_tp(facts: Facts) -> bool:
    """Is the ticket's TP size a llama.cpp row / tensor split (-sm row|tensor with --tensor-split, read by
    diagnose.artifacts.launch and issue_md)? llama.cpp apportions each matrix's rows by the --tensor-split proportions
    (tools/server/README.md: "-ts ... fraction of the model to offload to each GPU") and documents no load-time check
    that the GPU count divides the attention heads, the refusal the heads rules rest on (vLLM's "must be divisible by
    tensor parallel size")."""
    tp, _ = wfield(facts, "tp")
    return bool(tp) and any(w.tp == tp and w.extra.get("split_mode") in ("row", "tensor", "graph")
                            for w in facts.of(Workload))


def gpu_name(facts: Facts) -> str | None:
    for g in facts.of(GpuFact):
        if g.name:
            return g.name
    return facts.workload().gpu


def gpu_indices(facts: Facts) -> set[int]:
    idx = {g.index for g in facts.of(GpuFact) if g.index is not None}
    for t in facts.of(TopologyPath):
        for end in (t.a, t.b):
            m = re.fullmatch(r"GPU(\d+)", end)
            if m:
                idx.add(int(m.group(1)))
    return idx


def distinct_gpus(gpus: list[GpuFact]) -> list[GpuFact]:
    """One record per GPU (the numbered one where there is one): records are one GPU read from several sources (an
    `nvidia-smi -q -x` paste and a table of the same GPU) where they share a UUID, bus ID or index and no UUID or bus
    ID tells them apart; a record naming none of them adds no GPU beside others."""
    def ids(g):
        bus = (g.bus_id or "").lower()[-12:] or None  # (0000:01:00.0 and 00000000:01:00.0 are one address)
        return {"uuid": g.uuid, "bus": bus, "index": g.index}

    def same(a: dict, b: dict) -> bool:
        if any(a[k] is not None and b[k] is not None and a[k] != b[k] for k in ("uuid", "bus")):
            return False
        shared = [k for k in a if a[k] is not None and a[k] == b[k]]
        return bool(shared) or all(v is None for v in a.values()) or all(v is None for v in b.values())

    groups: list[list] = []  # [representative, ids]
    for g in gpus:
        own = ids(g)
        match = next((grp for grp in groups if same(grp[1], own)), None)
        if match is None:
            groups.append([g, own])
            continue
        match[1].update({k: v for k, v in own.items() if v is not None})
        if match[0].index is None and g.index is not None:
            match[0] = g
    return [first for first, _ in groups]


def job_gpus(facts: Facts) -> tuple[int, Workload] | None:
    """(GPUs the job runs on, the fact that says so) where the ticket sets them apart from the machine's: its words
    ("on one GPU of a g6.48xlarge", `--gpus 1`) or one CUDA_VISIBLE_DEVICES list of GPU numbers; None otherwise
    (several lists, per-rank or per-server, say nothing about one job)."""
    said = next((w for w in facts.of(Workload) if w.extra.get("job_gpus")), None)
    if said:
        return int(said.extra["job_gpus"]), said
    lists = {w.cuda_visible_devices.strip(): w for w in facts.of(Workload) if w.cuda_visible_devices}
    if len(lists) == 1:
        devices, w = visible_devices(facts)
        # (not a list an MPI launch hands every rank, "mpirun -np 32 -H <hosts> -x CUDA_VISIBLE_DEVICES=0,...,7",
        # whose same line counts more GPUs, 32 x 8: each node's GPUs, not the job's)
        more = any((x.gpu_count or 0) > len(set(devices or ())) for x in facts.of(Workload) if x.source == w.source)
        if devices and all(d.isdigit() for d in devices) and not more:
            return len(set(devices)), w
    return _server_ranks(facts)


def _server_ranks(facts: Facts) -> tuple[int, Workload] | None:
    """(TP x PP x DP, the launch line) where one serving engine's launch states its layout (its documented default
    TP 1 included) and the ticket counts more GPUs than that: the machine's inventory ("8x H100", a collect_env list
    of 8) is not what the one server runs on ("vllm serve ... --tensor-parallel-size 2" holds 2 of them). Not
    where several launches (replicas, a second server) or a count below the layout (GPUs per node) are given."""
    launched = [w for w in facts.of(Workload) if w.extra.get("server_layout") and w.tp]
    if len({(w.tp, w.pp or 1, w.dp or 1) for w in launched}) != 1:
        return None
    w = launched[0]
    if "tp" in w.extra.get("defaults", ()) and facts.workload().tp != w.tp:
        return None  # the launch's TP is its default, and another record states the TP (a pasted config file)
    ranks = w.tp * (w.pp or 1) * (w.dp or 1)
    counted = max(facts.workload().gpu_count or 0, len(gpu_indices(facts)))
    return (ranks, w) if counted > ranks else None


def gpu_count(facts: Facts) -> int | None:
    """GPUs in the job or the node, from any source: the job's own where the ticket says it uses fewer than the
    machine has (job_gpus), last the GPUs of the one system or cloud instance the ticket names (a g5.12xlarge holds
    4); None when unknown."""
    job = job_gpus(facts)
    if job:
        return job[0]
    w = facts.workload()
    seen = len(gpu_indices(facts))
    counts = [c for c in (w.gpu_count, seen or None) if c]
    return max(counts) if counts else _system_gpus(facts) or layout_gpus(facts) or _one_board(facts)


def layout_gpus(facts: Facts) -> int | None:
    """The GPUs the stated layout occupies where nothing counts them: every TP x PP rank holds a GPU of its own, and
    each data-parallel replica its own TP x PP group (the parsers read no replicas from SGLang's DP attention, whose
    dp groups share the TP group's GPUs). A TP of 4 is 4 GPUs at least; a server launched with no parallel flag
    (its documented TP 1, launch.SERVER_DEFAULT_TP1) is one. Not inferred the other way: a machine's GPU count says
    nothing of the TP size (TP 2 replicas, or one process on one GPU, run on 8-GPU servers)."""
    w = facts.workload()
    if not w.tp:
        return None
    return w.tp * (w.pp or 1) * (w.dp or 1)


# Words that speak of several GPUs working together, in a ticket that counts none: "GPUs", "multi-GPU", "cards",
# "devices", "TP", "tensor_parallel_size", "shards", a tensor or GPU split (--tensor-split), NVLink, a board's name in
# the plural ("H100s", "4090s"; "L40S" reads as one too, which only keeps the asks), 多卡. A false "several" only keeps
# the asks for links and NCCL.
_SEVERAL_GPUS = re.compile(r"\b(?:GPUs|multi(?:ple)?[- ]?GPUs?|cards|devices|NCCL|NVLink|all[-_ ]?reduce|TP|PP|EP|"
                           r"\w*parallel\w*|shard\w*|(?:tensor|gpu)[-_ ]?split|nodes|(?:[A-Z]{1,2}\d{2,4}|\d{4})s)\b|"
                           r"多卡|多张|多机|并行", re.I)
# ... and boards counted before their name, as people write them: "dual 4090" (turboderp/exllama#149), "2x 3090"
# (noonghunna/club-3090#356), "4 A100" (case kept: "2 x86" is no board)
_BOARDS_COUNTED = re.compile(r"\b(?:[Dd]ual|[Tt]win|[Tt]wo|[Ff]our|[Ee]ight|[2-9]|1[0-6])\s*[x×*]?\s*"
                             r"(?:(?:NVIDIA|GeForce|RTX|GTX|Tesla)\s+)*(?:[A-Z]{1,2}\d{1,4}|[1-5]0[5-9]0)(?:\s*Ti)?\b")


def one_gpu_job(facts: Facts) -> bool:
    """Does everything the ticket says run on one GPU: one counted (or none counted and no word of several, no NCCL
    record), and no tensor or pipeline split? Then links and NCCL cannot explain its figures, and asking for them is
    noise."""
    w = facts.workload()
    if (w.tp or 1) > 1 or (w.pp or 1) > 1:
        return False
    count = gpu_count(facts)
    if count is not None:
        return count <= 1
    return _no_second_gpu(facts)


def _one_board(facts: Facts) -> int | None:
    """1 where the ticket names a GPU board uncounted ("GPU: A100 40GB", "with A100 80G") and nothing anywhere speaks
    of a second (_no_second_gpu) nor splits the model: a count people leave off when it is one. None otherwise."""
    w = facts.workload()
    named = w.gpu or facts.of(GpuFact)
    if not named or (w.tp or 1) > 1 or (w.pp or 1) > 1 or (w.dp or 1) > 1:
        return None
    if any(_BOARDS_COUNTED.search(text) or _MULTI_GPU.search(text) for _, text in _claims.pasted_blocks(facts)):
        return None  # a second GPU said inside a fenced block: TensorFlow's template fences its "Current Behaviour?"
    return 1 if _no_second_gpu(facts) else None


# The reporter's words of several GPUs as they also appear inside a fenced block ("It happens only when I use multiple
# GPUs", tensorflow/tensorflow#57893, whose template fences the behaviour section as shell); not the wider
# _SEVERAL_GPUS, which a log's "--parallel 1" or "found 1 CUDA devices" would trip.
_MULTI_GPU = re.compile(r"\b(?:multi(?:ple)?|several|many)[- ]?GPUs?\b", re.I)


def _no_second_gpu(facts: Facts) -> bool:
    """No NCCL record, at most one board named, and no word of several GPUs in the ticket's text."""
    from diagnose.evidence import CollectiveResult, NcclEvent, NcclTransport, Note

    if facts.of(NcclEvent) or facts.of(NcclTransport) or facts.of(CollectiveResult):
        return False
    boards = {g["name"].lower() for n in facts.of(Note) if n.kind == "gpus_named" for g in n.data.get("gpus", [])}
    if len(boards) > 1:  # two boards named ("a 3090 and a P40"): several GPUs, whatever the words
        return False
    return not any(_SEVERAL_GPUS.search(text) or _BOARDS_COUNTED.search(text) for _, text in _claims.texts(facts))


def _system_gpus(facts: Facts) -> int | None:
    named = named_system(facts)
    return named[0].gpus if named else None


def node_count(facts: Facts) -> tuple[int | None, list[Evidence]]:
    """How many nodes the job spans, and why we think so."""
    nodes, source = wfield(facts, "nodes")
    if nodes:
        return nodes, [ev(source, "nodes", nodes)]
    for r in facts.of(CollectiveResult):
        if r.nodes:
            return r.nodes, [ev(r, "nodes in the collective benchmark", r.nodes)]
    hosts = facts.host("hostnames")
    if hosts and isinstance(hosts.value, (list, tuple)) and hosts.value:
        return len(hosts.value), [ev(hosts, "distinct hosts in the logs", len(hosts.value))]
    nets = [t for t in facts.of(NcclTransport) if t.transport == "NET"]
    if nets:
        return 2, [ev(nets[0], f"NCCL uses a network transport ({nets[0].detail}), so ranks span nodes")]
    said = _claims.find(facts, "multi_node")
    if said:
        n = _claims.nodes_said(said[0].quote) or 2
        return n, [claim_ev(said[0], "the job spans nodes" if n == 2 else f"the job spans {n} nodes")]
    one = [c for c in _claims.find(facts, "one_node") if not c.guess]
    if one:  # the reporter places the job on one host ("on a single node", "8 GPUs in one server")
        return 1, [claim_ev(one[0], "the job runs on one host")]
    return None, []


def tp_sizes(facts: Facts) -> list[tuple[int, Evidence]]:
    """The tensor-parallel sizes the ticket names, each with its evidence: the launch line's first, then the
    reporter's words ("TP=4", "mp_size=4"; a size asked about too: "should I use TP 3?" is what a heads rule answers),
    not those ruled out. One reading for every rule, so the same words give the same verdict."""
    tp, src = wfield(facts, "tp")
    out = [(int(tp), ev(src, "tensor-parallel size", tp))] if tp else []
    for c in _claims.find(facts, "tp_size_named"):
        out += [(int(g), claim_ev(c, "TP size")) for g in c.data.get("groups", []) if str(g).isdigit()]
    return out


def host_cpu(facts: Facts) -> tuple[str, Evidence] | None:
    """The host's CPU and where it is said: as read from the machine (a node report, the live probe, a capture's
    CpuDescription), else as the reporter names it (claims.host_platform, not guessed nor ruled out); None where
    neither says."""
    read = facts.host("cpu_model")
    if read is not None and read.value:
        return str(read.value), ev(read, "host CPU", read.value)
    for c in _claims.host_platform(facts):
        if c.data.get("cpu") and not c.guess and not c.negated:
            return c.data["cpu"], claim_ev(c, "host CPU")
    return None


def host_copy_gbs(facts: Facts) -> tuple[float, Evidence] | None:
    """The host's one-way copy between two GPUs without peer access, as measured, and where: the mean off-diagonal
    cell of p2pBandwidthLatencyTest's 'Unidirectional P2P=Disabled' matrix, in which the driver stages each chunk
    through host memory as NCCL's SHM transport does (rules.collectives.shm_busbw_gbs's `copy_gbs`); None where no
    such matrix is pasted."""
    cells = [p for p in facts.of(PairBandwidth) if p.a != p.b and p.p2p_enabled is False and p.direction == "uni"
             and p.unit.lower() == "gb/s" and p.value > 0]
    if not cells:
        return None
    mean = sum(p.value for p in cells) / len(cells)
    return mean, ev(cells[0], f"the host's copy between GPUs without peer access: mean of {len(cells)} cells of a "
                              "'Unidirectional P2P=Disabled' bandwidth matrix", round(mean, 1), unit="GB/s")


def gpus_per_node(facts: Facts) -> int | None:
    w = facts.workload()
    if w.extra.get("gpus_per_node"):  # counted per node in the ticket's words, the nodes left uncounted
        return w.extra["gpus_per_node"]
    nodes, _ = node_count(facts)
    if w.gpu_count and nodes:
        # (mend41) every TP x PP rank holds a GPU, so a count below the launch's ranks is not the job's total: "2*H100
        # 2*8*80G" beside --tp 16 --nnodes 2 is two machines of 8, not 2 GPUs (sgl-project/sglang#3656)
        ranks = (wfield(facts, "tp")[0] or 1) * (wfield(facts, "pp")[0] or 1)
        return max(1, max(w.gpu_count, ranks) // nodes)
    seen = len(gpu_indices(facts))
    if seen:
        return seen
    if w.gpu_count and nodes is None:
        return w.gpu_count
    return _system_gpus(facts)


# A GPU the driver has to initialise costs "order of 1-3 second" each (ECC scrubbing), per NVIDIA's
# driver-persistence overview: https://docs.nvidia.com/deploy/driver-persistence/overview.html.
# An NVML inventory slower than the upper figure for every GPU is more than a cold start.
COLD_INIT_PER_GPU_S = 3.0


def driver_stall(facts: Facts):
    """(the NVML time fact, the cold-start budget in s, GPUs counted) when NVML took longer than
    cold-starting every GPU should, else None."""
    seconds = facts.host("nvml_seconds")
    count = facts.host("gpu_count")
    n = max(len([g for g in facts.of(GpuFact) if g.index is not None]),
            int(count.value) if count is not None and count.value else 0, 1)
    budget = COLD_INIT_PER_GPU_S * n
    if not seconds or not seconds.value or seconds.value <= budget:
        return None
    return seconds, budget, n


def max_links_per_gpu(links) -> int:
    """The most links any one GPU lists: a paste cut off after a GPU's first link must not add it."""
    return max(Counter(n.gpu for n in links).values(), default=0)


def links_per_gpu(links) -> str:
    """'12 on each of 2 GPUs', or '12 on GPU 0, 1 on GPU 1' when the GPUs list different counts."""
    counts = Counter(n.gpu for n in links)
    if len(set(counts.values())) == 1:
        n = next(iter(counts.values()))
        return f"{n} on each of {len(counts)} GPUs" if len(counts) > 1 else f"{n} on GPU {next(iter(counts))}"
    return ", ".join(f"{c} on GPU {g}" for g, c in sorted(counts.items(), key=lambda kv: str(kv[0])))


def nvlink_evidence(facts: Facts) -> list[Evidence]:
    """Evidence that the GPUs have NVLink between them (hardware, not NCCL's choice)."""
    out: list[Evidence] = []
    for t in facts.of(TopologyPath):
        if t.nvlinks > 0 or t.path.upper().startswith("NV"):
            out.append(ev(t, f"{t.a}<->{t.b} connected by {t.path} in the topology matrix", t.path))
            break
    active = [n for n in facts.of(NvLinkFact) if n.active]
    if active:
        out.append(ev(active[0], f"NVLinks reported active: {links_per_gpu(active)}", max_links_per_gpu(active)))
    for p in facts.of(P2PStatus):
        if p.capability == "nvlink" and p.ok:
            out.append(ev(p, f"GPU{p.a}<->GPU{p.b} NVLink P2P status {p.status}", p.status))
            break
    gpu_pairs = [t for t in facts.of(TopologyPath) if t.a.upper().startswith("GPU") and t.b.upper().startswith("GPU")]
    if not out and not gpu_pairs:  # a matrix read without NV# answers for the hardware, whatever the prose says
        for src, text in _claims.texts(facts):
            m = next((m for m in _NVLINK_WORD.finditer(text) if not _nvlink_denied(text, m)), None)
            if m:
                said = _claims.one_line(text[max(0, m.start() - 60):m.end() + 60])
                out.append(ev(src, f'the reporter describes NVLink: "{said}"'))
                break
    return out


_NVLINK_WORD = re.compile(r"\bNVLink\b|\bNVSwitch\b|\bNV\d+\b", re.I)
# NVLink said absent: "no NVLink", "without NVLink", "non-NVLink", "lacks NVLink", "doesn't have NVLink", "NVLink-less",
# a spec list's "NVLink: None" / "NVLink bridge: N/A", "NVLink is not installed", "无 nvlink"; or only asked.
# (s41 final read) and a requirement said missing: "lacks the required NVLink bridge", "without the needed NVLink"
_NVLINK_ABSENT = re.compile(r"(?:\b(?:non|no)[- ]|\black(?:s|ing)?\s+(?:an?\s+)?|"
                            r"\b(?:lack(?:s|ing)?|without|no\s+support\s+for|missing)\s+(?:the|an?)\s+"
                            r"(?:required|needed)\s+|"
                            r"\b(?:don't|doesn't|do not|does not)\s+have\s+(?:an?\s+)?|"
                            r"(?:无|没有|没|不带|未)\s*)$", re.I)
_NVLINK_NONE_AFTER = re.compile(r"[- ]less\b|(?:\s*(?:(?:bridge|links?)\s*)?[:=]\s*|\s+(?:is|are)\s+)"
                                r"(?:none|no|n/?a|absent|not present|not installed|not available)\b", re.I)


# The clause around an NVLink mention asks about it: it opens on a question word ("Do I need NVLink?", "so would an
# NVLink bridge help?") or weighs it ("whether NVLink matters"). "...joined by an NVLink bridge, so why is it slow?"
# asks about the speed, not the link.
_ASKS_ABOUT = re.compile(r"^\s*(?:(?:so|and|but|then|also)\s+)?(?:do|does|did|is|are|was|were|would|will|should|could|"
                         r"can|shall|might|must|may|has|have|what|which|how)\b|\b(?:whether|if)\b|需要|是否|要不要",
                         re.I)


# (p2p41) NVLink named as what a program needs, not what the host has: "requires NVLink", "needs NVLink", "the
# NVLink/full-mesh P2P requirement isn't met" (deepseek-ai/DeepEP#584, on an 8-GPU PCIe-only host), "NVLink is
# required". Said the same way of hosts without it in public text: "Multi-GPU inference via llama.cpp requires NVLink,
# which the 1650 lacks", "NVLink SHARP requires NVLink; H20 has none".
# (s41review) Not the participle as an adjective after an article or possessive: "with the required NVLink bridge
# installed", "I installed the needed NVLink bridge" say the host has it.
_NVLINK_NEEDED_BEFORE = re.compile(r"\b(?:requires?|requiring|needs?|needing|"
                                   r"(?<!\bthe )(?<!\ba )(?<!\ban )(?<!\bmy )(?<!\bour )(?:required|needed))"
                                   r"\s+(?:an?\s+|the\s+)?$", re.I)
_NVLINK_NEEDED_AFTER = re.compile(r"(?:\s?/\s?[\w-]+|\s+or\s+[\w-]+){0,2}(?:\s+(?:P2P|bandwidth|support))?\s+"
                                  r"(?:requirements?|(?:is|are)\s+(?:required|needed)|required)\b", re.I)


def _nvlink_denied(text: str, m: re.Match) -> bool:
    """Is this NVLink mention one the reporter rules out, only asks about ("Do I need NVLink?") or names as a
    program's requirement ("DeepEP requires NVLink")?"""
    before = text[max(0, m.start() - 30):m.start()].rsplit("\n", 1)[-1]
    rest = re.match(r"[^.!?。！？\n]*[.!?。！？]?", text[m.end():]).group(0)  # the sentence's end: a question?
    clause = re.split(r"[,;:.!?，；：。！？\n]", text[max(0, m.start() - 80):m.start()])[-1]  # its words before it
    if _NVLINK_NEEDED_BEFORE.search(before) or _NVLINK_NEEDED_AFTER.match(text, m.end()):
        return True
    return bool(_NVLINK_ABSENT.search(before) or _NVLINK_NONE_AFTER.match(text, m.end())
                or _claims.ruled_out(text, m) or (_claims.asked(rest) and _ASKS_ABOUT.search(clause)))


def has_nvlink(facts: Facts) -> bool:
    return bool(nvlink_evidence(facts))


def settings(facts: Facts, name: str) -> list[NcclSetting]:
    """NCCL_* settings from logs and launch lines, then those the reporter wrote in the text as in use (not one
    only tried for comparison)."""
    found = facts.settings(name)
    for c in _claims.find(facts, "setting"):
        if c.data["name"] == name and not c.data.get("tried"):
            found.append(NcclSetting(source=c.source, name=name, value=c.data["value"]))
    return found


def visible_devices(facts: Facts) -> tuple[list[str], Workload | None]:
    """CUDA_VISIBLE_DEVICES's entries as written (indices or UUIDs) and the workload fact that states it; ([], None)
    when unset. What UUIDs mean is each caller's to decide."""
    w = next((w for w in facts.of(Workload) if w.cuda_visible_devices), None)
    return ([x for x in re.split(r"[,\s]+", w.cuda_visible_devices.strip()) if x] if w else []), w


# What a VM's tenant can do when P2P between its GPUs fails: the hypervisor, not the guest, decides ACS and IOMMU.
P2P_VM_FIX = ("In a VM the hypervisor decides whether GPUs may reach each other (ACS and the IOMMU are on "
              "the host, out of the guest's reach): keep NCCL_P2P_DISABLE=1, or ask the provider for an instance "
              "type or host setting with GPU peer-to-peer (or NVLink); on your own hypervisor pass the GPUs through "
              "behind one PCIe switch with ACS off.")


# WSL 2 is a Hyper-V utility VM running Microsoft's own Linux kernel ("...-microsoft-standard-WSL2"; WSL 1's
# "...-Microsoft" has no GPU at all); its GPUs are the Windows host's, under Windows' display driver model (WDDM),
# with the host's driver (https://docs.nvidia.com/cuda/wsl-user-guide/index.html).
_WSL_KERNEL = re.compile(r"microsoft", re.I)


def wsl_evidence(facts: Facts) -> list[Evidence]:
    """What shows the job runs in WSL 2 (or on the Windows host under it) in the tools' own output: the kernel
    release, the GPUs' WDDM driver model, nvidia-smi's Linux build beside the Windows driver's version."""
    out: list[Evidence] = []
    kernel = facts.host("kernel")
    if kernel is not None and _WSL_KERNEL.search(str(kernel.value)):
        out.append(ev(kernel, "the kernel is Microsoft's WSL 2 build", kernel.value))
    wddm = next((g for g in facts.of(GpuFact) if (g.driver_model or "").upper() == "WDDM"), None)
    if wddm is not None:
        out.append(ev(wddm, f"GPU{wddm.index if wddm.index is not None else ''} driver model: Windows' display "
                      "driver model (a Windows host, or a WSL 2 guest on it)", "WDDM", "TCC or a Linux driver"))
    tool, driver = facts.host("nvidia_smi_version"), facts.host("driver_version")
    if tool is not None and driver is not None and tool.source == driver.source and tool.value != driver.value:
        out.append(ev(tool, "nvidia-smi's build against the driver's version (the same on a native Linux or Windows "
                      "install; a WSL 2 guest runs the Linux tool on the Windows host's driver)", tool.value,
                      driver.value))
    return out


_WSL = re.compile(r"\bWSL|\bWindows Subsystem\b|\bDocker Desktop\b", re.I)  # which virtualized claims are WSL 2


def wsl_signs(facts: Facts) -> list:
    """What says the job runs under WSL 2: the tools' output (kernel release, WDDM, nvidia-smi vs driver version),
    else the reporter's observation (a guess, or a setup left behind or ruled out, is none)."""
    found = wsl_evidence(facts)
    if not found:
        found = [claim_ev(c, "the reporter runs under WSL 2") for c in _claims.find(facts, "virtualized")
                 if _WSL.search(c.quote) and not c.guess][:1]
    return found


def is_virtualized(facts: Facts) -> list[Evidence]:
    out: list[Evidence] = wsl_evidence(facts)[:1]
    for g in facts.of(GpuFact):
        if g.virtualization_mode and g.virtualization_mode.strip().lower() not in ("none", "n/a", "bare metal", ""):
            out.append(ev(g, f"GPU{g.index if g.index is not None else ''} virtualization mode", g.virtualization_mode))
            break
    h = facts.host("virtualization")
    if h and str(h.value).lower() not in ("none", "no", "false", "bare metal", ""):
        out.append(ev(h, "host virtualization", h.value))
    if not out:
        for c in _claims.find(facts, "virtualized"):
            out.append(claim_ev(c, "the reporter runs in a virtual machine"))
            break
    return out


# --------------------------------------------------------------------------- networks

# Per-port data rate in GB/s (per direction) of the scale-out link generations.
_IB_RATES = {"EDR": 12.5, "HDR": 25.0, "NDR": 50.0, "XDR": 100.0}


def nic_rate_gbs(facts: Facts) -> tuple[float | None, list[Evidence]]:
    """The node's scale-out bandwidth per direction (GB/s), from what is known of its NICs."""
    h = facts.host("nic_rate_gbs")
    if h and isinstance(h.value, (int, float)):
        return float(h.value), [ev(h, "NIC data rate", h.value, unit="GB/s")]
    for src, text in _claims.texts(facts):
        rate, quote = _rate_and_quote(text)
        if rate:
            return rate, [ev(src, f'NIC line rate as the reporter states it: "{quote}"', rate, unit="GB/s")]
    return _system_nic_rate(facts)


def nic_ports(facts: Facts) -> int | None:
    """How many NIC ports nic_rate_gbs's figure adds up, where known: the reporter's "8 x 200 Gb/s" (1 with no
    count), or the named system's NIC count. A run with fewer GPUs per node than ports uses fewer of them."""
    if facts.host("nic_rate_gbs"):
        return None
    for _, text in _claims.texts(facts):
        if _rate_from_text(text):
            return max(_ports(text, m) for pattern in (_GBIT_RATE, _IB_NAME) for m in pattern.finditer(text))
    named = named_system(facts)
    return named[0].nics if named and named[0].nic_gbit else None


def named_system(facts: Facts):
    """(spec, source, quote) of the one system or cloud instance the ticket names ('two DGX A100', 'on a
    p4de.24xlarge'), from rules/catalog/systems.toml; None when it names none, or several (which one ran is then
    unclear). A mention the reporter rules out ("not on a p4d", "p4d was ruled out") names nothing."""
    from rules.catalog import named_systems

    named = {}
    for src, text in _claims.texts(facts):
        for spec, m in named_systems(text):
            start = max(text.rfind(c, 0, m.start()) for c in ".!?\n") + 1  # the sentence that names it
            sentence = text[start:]
            if not _claims.negated_words(sentence, re.compile(re.escape(m.group(0))).search(sentence)):
                named.setdefault(spec.key, (spec, src, m.group(0)))
    return next(iter(named.values())) if len(named) == 1 else None


def _system_nic_rate(facts: Facts) -> tuple[float | None, list[Evidence]]:
    """The NIC aggregate of the one system the ticket names, from rules/catalog/systems.toml."""
    named = named_system(facts)
    if named is None or not named[0].nic_gbit:
        return None, []
    spec, src, quote = named
    rate = spec.nic_gbit / 8.0
    nics = f"{spec.nics} x {spec.nic_gbit / spec.nics:g} Gb/s" if spec.nics else f"{spec.nic_gbit:g} Gb/s in all"
    return rate, [ev(src, f'NIC aggregate of the named system "{quote}" from the system table '
                          f"(rules/catalog/systems.toml: {spec.name}, {nics}, {spec.cited})", rate, unit="GB/s")]


# Gigabits, not gigabytes: the lower-case "b" decides ("200Gb/s", "200 Gbps", "200Gb", "200 Gbit/s"),
# so a measured "250 GB/s" is never read as a NIC's line rate. A bare "G" is a line rate too where a network port
# follows ("two 200G ports", "a 100G NIC", "8x 400G RoCE", "400G CX7"), as network vendors and users name port speeds
# (https://github.com/NVIDIA/nccl/issues/766: "a 100G NIC ... 4 to 8 200G RDMA NICs";
# https://github.com/NVIDIA/nccl/issues/2409: "8x 400G RoCE"; https://github.com/NVIDIA/nccl/issues/1277:
# "400G CX7 =4"); never before a card or memory ("a 24G card" is its memory).
_PORT = (r"(?:\w+\s+)?(?:NICs?|ports?|links?|HCAs?|IB\b|InfiniBand|RoCE|Ethernet|network|CX-?\d|ConnectX|adapters?|"
         r"uplinks?|interfaces?|fabric)")
_GBIT = r"G(?:(?-i:b)(?:it)?(?:ps|/s|/sec|E\b|\b)|\b(?=[\s-]*" + _PORT + r"))"  # (GbE: gigabit Ethernet, "25 GbE")
# How many ports a rate counts: "2x", "8 x", "8 *100 Gbps" (https://github.com/NVIDIA/nccl/issues/495), or a count
# written before a plural port noun ("two 200G ports", "2 HDR NICs", "four 100G links").
_PORT_COUNT_WORDS = {"two": 2, "three": 3, "four": 4, "six": 6, "eight": 8, "sixteen": 16}
_GBIT_RATE = re.compile(r"(?:(?P<x>\d+)\s*[x×*]\s*)?(?:(?:EDR|HDR|NDR|XDR)\s*)?(?P<gbit>\d+(?:\.\d+)?)\s*" + _GBIT,
                        re.I)
_IB_NAME = re.compile(r"(?:(?P<x>\d+)\s*[x×*]\s*)?\b(?P<ib>EDR|HDR|NDR|XDR)\b", re.I)


# ... or the ports counted first and their rate given to each of them in the same sentence: "8 Roce NICs, all of which
# are 100Gb" (https://github.com/NVIDIA/nccl-tests/issues/169), "four ConnectX-7 NICs at 400Gb/s", "2 HCAs, each
# 200 Gbps" (not one of several rates: "2 NICs, one at 100Gb")
_PORTS_THEN_RATE = re.compile(r"(?<![\w.])(\d+|" + "|".join(_PORT_COUNT_WORDS) + r")\s+(?:[\w-]+\s+){0,2}?"
                              r"(?:NICs|ports|links|HCAs|adapters|uplinks|interfaces)\s*,?\s*(?:(?:all\s+)?(?:of\s+)?"
                              r"(?:which|them)\s+(?:are|run at|at)|each\s+(?:at|of|is|running at|rated at)?|"
                              r"(?:rated\s+|running\s+)?at|of)\s*$", re.I)


def _ports_then_rate(text: str, start: int) -> re.Match | None:
    """_PORTS_THEN_RATE in the sentence that ends at `start` (a rate's match)."""
    return _PORTS_THEN_RATE.search(re.split(r"[.;\n]", text[:start])[-1])


def _ports(text: str, m: re.Match) -> int:
    """The port count before a rate match `m` (1 when none is written)."""
    if m.group("x"):
        return int(m.group("x"))
    before = re.search(r"(?<![\w.])(\d+|" + "|".join(_PORT_COUNT_WORDS) + r")\s+$", text[:m.start()], re.I)
    if not (before and re.match(r"[\s-]*(?:\w+\s+){0,2}?(?:NICs|ports|links|HCAs|adapters|uplinks|interfaces|cards)\b",
                                text[m.end():], re.I)):
        before = _ports_then_rate(text, m.start())
    if before:
        word = before.group(1).lower()
        return _PORT_COUNT_WORDS.get(word) or int(word)
    return 1


def _rate_and_quote(text: str) -> tuple[float | None, str]:
    rate = _rate_from_text(text)
    if not rate:
        return None, ""
    m = re.search(r"(?:\d+\s*[x×]\s*)?(?:(?:EDR|HDR|NDR|XDR)\s*)?\d+(?:\.\d+)?\s*" + _GBIT + r"[^;.,:(]{0,25}|"
                  r"(?:\d+\s*[x×]\s*)?\b(?:EDR|HDR|NDR|XDR)\b[^;.,]{0,40}", text, re.I)
    quote = m.group(0).strip() if m else text[:80]
    # the ports counted apart from the rate ("8 Roce NICs, all of which are 100Gb"): the quote names them too
    counted = m and (r := _GBIT_RATE.match(text, m.start())) and not r.group("x") and _ports(text, r) > 1
    if counted and (p := _ports_then_rate(text, m.start())):
        quote = p.group(0).strip() + " " + quote
    return rate, quote


def _rate_from_text(text: str) -> float | None:
    """'2x HDR 200Gb/s' -> 50.0; '800 Gbps' -> 100.0; 'two 200G ports' -> 50.0 (the highest rate mentioned wins)."""
    best = None
    for m in _GBIT_RATE.finditer(text):
        rate = _ports(text, m) * float(m.group("gbit")) / 8.0
        best = max(best or 0.0, rate)
    if best is None:
        for m in _IB_NAME.finditer(text):
            rate = _ports(text, m) * _IB_RATES[m.group("ib").upper()]
            best = max(best or 0.0, rate)
    return best


def large_results(facts: Facts, min_bytes: int = 64 << 20) -> list[CollectiveResult]:
    """Collective rows big enough to measure bandwidth; small sizes only measure latency."""
    return [r for r in facts.of(CollectiveResult) if r.size_bytes >= min_bytes and r.busbw_gbs > 0]


def usual_load(series: list[Measurement]) -> int | None:
    """The running requests most of a log's periodic lines state (the steady load), or None where none states one."""
    loads = [m.batch for m in series if m.batch]
    return max(sorted(set(loads)), key=loads.count) if loads else None


def _periodic(m: Measurement) -> bool:
    """An engine's stats line: an aggregate rate with no statistic of its own, stating its running requests."""
    return m.scope == "aggregate" and m.stat is None and bool(m.concurrency)


def steady_rates(ms: list[Measurement]) -> list[Measurement]:
    """The figures, with each file's periodic aggregate rates (an engine's stats lines, each stating its running
    requests) reduced to those at the usual load: lines as requests arrive or drain are a ramp, not the load judged,
    and a log whose every line states another count (a queue draining) has no steady load at all. A reporter's
    figures and one-off results pass as they are."""
    series: dict[str, list[Measurement]] = {}
    for m in ms:
        if _periodic(m):
            series.setdefault(m.source.rsplit(":", 1)[0], []).append(m)
    keep = set()
    for one in series.values():
        usual = usual_load(one)
        at_usual = [m for m in one if m.batch == usual]
        if len(one) == 1 or len(at_usual) >= 2:
            keep.update(id(m) for m in at_usual)
    return [m for m in ms if not _periodic(m) or id(m) in keep]


def steady_logs(facts: Facts, metric: str = "decode_tok_s") -> list[Measurement]:
    """One figure per log of an engine's periodic throughput: the median of its lines at the steady load
    (steady_rates), its `said` naming the running requests, how many lines it stands for and how many ramp lines
    were left out, so that a finding says where its number came from."""
    by_file: dict[str, list[Measurement]] = {}
    for m in measurements(facts, metric):
        if _periodic(m):
            by_file.setdefault(m.source.rsplit(":", 1)[0], []).append(m)
    out = []
    for series in by_file.values():
        steady = sorted(steady_rates(series), key=lambda m: m.value)
        if not steady:
            continue
        mid = steady[(len(steady) - 1) // 2]
        ramp = len(series) - len(steady)
        said = (f"{mid.value:g} tok/s over {mid.concurrency} running requests"
                + (f", median of {len(steady)} lines at that load" if len(steady) > 1 else "")
                + (f"; {ramp} lines at other loads left out" if ramp else ""))
        out.append(dataclasses.replace(mid, said=said))
    return out


def one_off(ms: list[Measurement]) -> list[Measurement]:
    """The figures that are not an engine's periodic stats lines (steady_logs stands for those)."""
    return [m for m in ms if not _periodic(m)]


def measurements(facts: Facts, metric: str) -> list[Measurement]:
    """The figures of one metric that are the ticket GPU's and model's: one its own clause says of another GPU ("on the
    A100 I get 95 tok/s" in a ticket about an H100) or another model ("the 13B does 30 tok/s" in a ticket about a 7B)
    is that GPU's or model's, not judged against this one's band."""
    subject = facts.subject
    return [m for m in facts.of(Measurement) if m.metric == metric
            and (subject is None or (subject.said_of(m.gpu_name) and subject.model_said_of(m.model)))]



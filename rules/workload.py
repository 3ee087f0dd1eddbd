"""Rules about how the model is laid out and run: TP across nodes, eager mode, batch-1 decode,
TP that does not divide the heads, PP over the network, and measured TP scaling against the
roofline (`rules.roofline.predict`).
"""

from __future__ import annotations

import re

from diagnose.evidence import (
    CaptureInfo,
    Facts,
    GpuFact,
    Measurement,
    NcclTransport,
    Note,
    NvLinkFact,
    P2PStatus,
    PairBandwidth,
    TopologyPath,
    Workload,
)
from rules import claims
from rules.common import (
    claim_ev,
    distinct_gpus,
    engine_of,
    engine_releases,
    ev,
    gpu_count,
    gpu_indices,
    gpus_per_node,
    job_gpus,
    llamacpp_split_tp,
    make,
    measurements,
    named_system,
    need,
    node_count,
    passed,
    runs_ollama,
    wfield,
    wsl_signs,
)
from rules.engine import FAILURES, WORDS_ONLY, rule
from rules.gpus_in_use import layer_split_over_gpus, one_gpu_in_use, sharding_asked
from rules.offload import keeps_weights_on_gpu  # the engines that hold every weight in VRAM (rules.offload says why)
from rules.stated_load import any_load
from rules.topology import fabric_failure, no_nvswitch_board, nvswitch_by_catalog, ring_route

DECODE = ("decode_tok_s", "output_tok_s")
# The checkpoint's own float widths: weights stated in one of them are no quantisation (weight_dtype is None).
FLOAT_WEIGHTS = ("fp16", "bf16", "fp32")


def weight_dtype(facts: Facts) -> str | None:
    """The weights' quantisation the ticket states (a Workload's int4/int8/fp8, or the model's name:
    '-AWQ', 'GPTQ-Int8', 'Q4_K_M', Ollama's ':8b-instruct-fp16'), else Ollama's 4-bit default where it
    serves; None for the checkpoint's own dtype."""
    from rules import catalog

    for w in facts.of(Workload):
        if w.dtype in ("int4", "int8", "fp8"):
            return w.dtype
        gguf = catalog.gguf_weights(w.dtype)  # a GGUF type stated as the dtype ('Q4_0'), read as a published row's is
        if gguf and gguf[0] not in FLOAT_WEIGHTS:
            return gguf[0]
    for w in facts.of(Workload):
        found = catalog.named_weights(w.model)
        if found:
            return found
    for w in facts.of(Workload):  # a library model that ships its own weights in every tag (gpt-oss: MXFP4)
        own = catalog.ollama_default_gguf(w.model) if catalog.tag_weights(w.model) else None
        if own:
            return catalog.gguf_type(own).dtype
    return catalog.OLLAMA_DEFAULT_WEIGHTS if ollama_default(facts) else None


# Ollama's library tags ('llama3.1:70b') pull 4-bit weights unless the tag names others (rules.catalog.tag_weights,
# the one resolution `predict --model llama3.1:70b` uses too); https://devtoolkit.sh/examples/llama/quantization
# ('ollama pull llama3.1:8b  # default Q4_K_M').
OLLAMA_WEIGHTS = "Ollama library tags ship 4-bit weights (Q4_K_M / Q4_0) unless the tag names another: int4 assumed"


def ollama_default(facts: Facts) -> bool:
    """Is the ticket served by Ollama (named, or a model named by its library tag) with no weights named (so its
    default 4-bit weights apply)? An explicit tag ('-fp16', '-q8_0') or quantisation wins."""
    from rules import catalog

    models = [w.model for w in facts.of(Workload) if w.model]
    return ((runs_ollama(facts) or any(catalog.tag_weights(m) for m in models))
            and not any(w.dtype for w in facts.of(Workload)) and not any(catalog.named_weights(m) for m in models)
            and not any(catalog.ollama_default_gguf(m) for m in models))


def spans_nodes(facts: Facts, n: int) -> bool:
    """Does a layout of n GPUs reach past one node (the ticket's nodes, each holding fewer than n GPUs)? Its
    all-reduces then cross the network between the nodes."""
    per_node = gpus_per_node(facts)
    nodes, _ = node_count(facts)
    return bool(per_node and nodes and nodes > 1 and n > per_node)


def _loss_to(facts: Facts, tp: int):
    """The largest slowdown the reporter measured from fewer GPUs to this TP layout (claims.stated_losses; a loss
    whose larger side is unstated is the ticket's layout), or None."""
    found = [c for c in claims.stated_losses(facts)
             if (c.data["large"] or tp) == tp and (c.data["small"] or 1) < tp]
    return max(found, key=lambda c: c.data["factor"], default=None)


def _wider_than_a_machine(facts: Facts, tp: int, tp_src):
    """(issue 11) TP wider than any machine of the ticket's GPU holds (rules.catalog.most_per_machine: an SXM
    baseboard's NVLink fabric, 8 Hopper or Blackwell GPUs, 16 A100 or DGX-2 V100s, 72 in a GB200 NVL72) spans
    machines whether or not the ticket counts its nodes. A named system that holds that many (a DGX-2) fits it."""
    from rules import catalog

    gpu = facts.subject.gpu
    most = catalog.most_per_machine(gpu) if gpu is not None else None
    system = named_system(facts)
    if most is None or tp <= most[0] or most[0] <= 1 or (system and (system[0].gpus or 0) >= tp):
        return  # (one GPU a machine: the branch below for stated nodes, or nothing to say)
    yield make(
        "workload.cross_node_tp", "cross_node_tp", "critical", 0.8,
        f"TP={tp} spans at least {-(-tp // most[0])} machines: no {gpu.name} machine holds more than {most[0]}",
        "Tensor parallelism all-reduces the activations twice per layer, every token. One machine's NVLink fabric "
        f"joins at most {most[0]} of these GPUs, so a group of {tp} reaches past it: those all-reduces cross the "
        "network between machines at a tenth of NVLink's bandwidth and several times its latency, and the whole "
        "model waits on the network.",
        [ev(tp_src, "tensor-parallel size", tp, f"<= {most[0]} (the most GPUs one machine holds)"),
         ev(most[1], f"the most {gpu.name} GPUs one machine or NVLink domain holds", most[0]),
         ev(facts.subject.gpu_source, "GPU", gpu.name)],
        fix=f"Keep TP within a machine (TP={most[0]}) and split across machines by pipeline "
        f"(PP={-(-tp // most[0])}), or run independent replicas per machine behind a load balancer.",
        refs=["vllm_parallel"],
    )


@rule("workload.cross_node_tp", "cross_node_tp")
def cross_node_tp(facts: Facts, predictions=None):
    """Tensor parallelism wider than one node puts two all-reduces per layer on the network."""
    tp, tp_src = wfield(facts, "tp")
    per_node = gpus_per_node(facts)
    nodes, node_ev = node_count(facts)
    if tp and (not per_node or not nodes):
        yield from _wider_than_a_machine(facts, tp, tp_src)
    if not tp or not per_node or not nodes:
        return
    gpu = facts.subject.gpu
    across = nodes > 1 and tp > per_node  # (spans_nodes, from the counts read above)
    loss = _loss_to(facts, tp) if across else None
    if loss and gpu is not None and gpu.gpus_per_machine == 1:
        # (issue 11) the measurement the lead below asks for, stated: TP over the network slower than fewer GPUs. The
        # network's all-reduces, two a layer every token, cost more than the halved weight traffic saves; the layout
        # is the cause (rules.loss_bound prices one machine's fabric and leaves such a loss to this rule).
        yield make(
            "workload.cross_node_tp", "cross_node_tp", "warning", WORDS_ONLY,
            f"TP={tp} over the network is x{loss.data['factor']:.2g} slower than {loss.data['small'] or 1} GPU"
            f"{'s' if (loss.data['small'] or 1) > 1 else ''}: the all-reduces between nodes cost more than the split "
            "saves",
            "With one GPU per node every tensor-parallel step crosses the network: two all-reduces per layer, every "
            "token, each paying the NIC's round trip. The reporter measured the larger layout slower, so those round "
            "trips cost more than reading half the weights per GPU saves: the layout, not a fault, sets the pace.",
            [claim_ev(loss, "the loss stated"),
             ev(tp_src, "tensor-parallel size", tp, "1 (GPUs per node)"),
             ev(facts.subject.gpu_source, f"GPUs one {gpu.name} machine holds (rules/catalog/gpus.toml)", 1)]
            + node_ev,
            fix="Serve the model from one node where it fits (replicas per node behind a load balancer for "
            f"throughput); where it needs both, split it by pipeline (PP={tp}) rather than TP across the network, "
            "and measure both.",
            refs=["vllm_parallel"],
        )
    elif across and gpu is not None and gpu.gpus_per_machine == 1:
        # (issue 11) a board that comes one to a machine (rules/catalog/gpus.toml gpus_per_machine: DGX Spark's GB10):
        # every layout over several GPUs crosses the network, so TP across nodes is no misplacement; whether it beats
        # one GPU or a pipeline split over the same network depends on the network's latency, which a measurement
        # decides. (Nodes that could hold more GPUs but run one each, "--nnodes 16" of H100 servers, stay critical.)
        yield make(
            "workload.cross_node_tp", "cross_node_tp", "info", 0.3,
            f"TP={tp} runs over the network: each node holds one GPU",
            "With one GPU per node every multi-GPU layout crosses the network. Tensor parallelism puts two "
            "all-reduces per layer on the NIC, every token; a pipeline split across nodes sends the activations once "
            "per stage instead but decodes one stream no faster than one GPU. Which pays depends on the network's "
            "latency: a lead to measure, not a fault.",
            [ev(tp_src, "tensor-parallel size", tp, "1 (GPUs per node)"),
             ev(facts.subject.gpu_source, f"GPUs one {gpu.name} machine holds (rules/catalog/gpus.toml)", 1)]
            + node_ev,
            fix=f"Measure TP={tp} against one GPU and against PP={tp} over the same network; keep TP across nodes "
            "where it is the faster.",
            refs=["vllm_parallel"],
        )
    elif across and (hang := _start_up_hang(facts)):
        # (ut29d) a job that never serves a token is not slowed by its layout: TP across nodes costs speed, the hang
        # has another cause (sgl-project/sglang#2658: TP=16 over two A800 nodes, SGLang's documented DeepSeek-V3
        # layout, stuck at "Init torch distributed begin." because node 2 named itself as the rendezvous); (review44)
        # likewise a job that fails to start with errors (sgl-project/sglang#4978)
        yield make(
            "workload.cross_node_tp", "cross_node_tp", "info", 0.3,
            f"TP={tp} spans {-(-tp // per_node)} nodes of {per_node} GPUs: a speed lead once it runs, not the "
            f"{hang[2]}",
            "Tensor parallelism across nodes puts two all-reduces per layer on the network, every token: it makes a "
            f"running job slow. The reporter's job does not run yet, so its layout does not explain the {hang[2]}; it "
            "is worth measuring against TP within a node once the job serves.",
            [ev(tp_src, "tensor-parallel size", tp, f"<= {per_node} (GPUs per node)"),
             ev(hang[0], f'the symptom: "{hang[1]}"')] + node_ev,
            fix=f"Once it serves, compare TP={tp} with TP={per_node} and pipeline parallelism across nodes "
            f"(PP={max(1, tp // per_node)}).",
            refs=["vllm_parallel"],
        )
    elif across:
        yield make(
            "workload.cross_node_tp", "cross_node_tp", "critical", 0.85,
            f"TP={tp} spans {-(-tp // per_node)} nodes of {per_node} GPUs",
            "Tensor parallelism all-reduces the activations twice per layer, every token. Inside a node that "
            "runs over NVLink at hundreds of GB/s and a few microseconds; across nodes it runs over the NIC at "
            "a tenth of the bandwidth and several times the latency, so the whole model waits on the network.",
            [ev(tp_src, "tensor-parallel size", tp, f"<= {per_node} (GPUs per node)")] + node_ev,
            fix=f"Keep TP within a node (TP={per_node}) and use pipeline parallelism across nodes "
            f"(PP={max(1, tp // per_node)}), or run independent replicas per node behind a load balancer.",
            refs=["vllm_parallel"],
        )
    elif nodes >= 1 and tp <= per_node:
        yield passed("workload.cross_node_tp", "Tensor parallelism stays within one node",
                     f"TP={tp} fits in the {per_node} GPUs of a node.",
                     [ev(tp_src, "tensor-parallel size", tp, f"<= {per_node}")], 0.4)


def _start_up_hang(facts: Facts) -> tuple[str, str, str] | None:
    """(source, quote, symptom) of the reporter's hang, crash or error when the ticket complains of nothing slower:
    the job does not serve. (review44) A failure counts as a hang does: sgl-project/sglang#4978's reporter, TP=16
    over two H20 nodes, saw "more error messages, seemingly due to IPv6 network connectivity issues"."""
    said = claims.symptom_quote(facts)
    if said is None or said[2] not in FAILURES or claims.complaint(facts) is not None:
        return None
    return said[0], said[1], said[2]


# A rendezvous value that stands for an address rather than naming one: a shell variable ("$MASTER_IP:5000"), a
# template ("{my k8s pod ip}", "<head-ip>") or a redaction ("xxx"); two of them say nothing about two hosts.
_STAND_IN = re.compile(r"[$<>{}]|^x+$", re.I)


@rule("workload.rendezvous_split", "other")
def rendezvous_split(facts: Facts, predictions=None):
    """Every node of one multi-node job names node 0's address as the place to meet (SGLang
    --dist-init-addr, torchrun --master-addr; diagnose.artifacts.launch.RENDEZVOUS). Launch lines for different node
    ranks that name different addresses start two groups that each wait for the other's ranks: the job stalls in
    its distributed init (ut29d: sgl-project/sglang#2658, #3467). Lines are compared only within one job (review44)."""
    for lines in _rendezvous_jobs(facts):
        yield from _split(lines)


def _rendezvous_jobs(facts: Facts) -> list[dict]:
    """{node rank: (address, source)} per job the launch lines describe. (review44) Lines of different jobs name
    different addresses by design: SGLang's prefill and decode servers each meet at their own node 0
    (sgl-project/sglang#5435), and lines that differ in node count or model are other jobs. A node rank named with two
    addresses in one job is two attempts or two jobs pasted together, not one job's layout: that job is left out."""
    jobs: dict[tuple, dict[int, list]] = {}
    for w in facts.of(Workload):
        addr, rank = w.extra.get("init_addr"), w.extra.get("node_rank")
        if isinstance(addr, str) and isinstance(rank, str) and rank.isdigit():
            key = (w.extra.get("pd_role"), w.extra.get("nnodes"), w.model)
            jobs.setdefault(key, {}).setdefault(int(rank), []).append((addr.strip(), w.source))
    return [{rank: named[0] for rank, named in ranks.items()} for ranks in jobs.values()
            if all(len({a for a, _ in named}) == 1 for named in ranks.values())]


def _split(lines: dict):
    """The finding for one job's lines when its node ranks name different rendezvous addresses."""
    addrs = {a for a, _ in lines.values()}  # host and port: a different port is another rendezvous too
    if len(lines) < 2 or len(addrs) < 2 or any(_STAND_IN.search(a) for a in addrs) or _one_host_two_names(addrs):
        return
    head = lines.get(0)
    evidence = [ev(src, f"node rank {rank}: rendezvous address", addr,
                   head[0] if head and rank != 0 else None) for rank, (addr, src) in sorted(lines.items())]
    yield make(
        "workload.rendezvous_split", "other", "critical", 0.8,
        f"The nodes name {len(addrs)} different rendezvous addresses: they cannot meet",
        "A multi-node job starts when every node's processes reach the same rendezvous, the address of node rank 0. "
        "These launch lines give different node ranks different addresses, so each waits at its own for ranks that "
        "never come: the job stalls in its distributed init (\"Init torch distributed begin.\") until it times out.",
        evidence,
        fix="Start every node with node rank 0's address and port (SGLang: the same --dist-init-addr on every node; "
        "torchrun: the same --master-addr or --rdzv-endpoint), reachable from each node; set GLOO_SOCKET_IFNAME "
        "and NCCL_SOCKET_IFNAME to the interface that carries that address.",
    )


@rule("workload.checkpoint_split", "other")
def checkpoint_split(facts: Facts, predictions=None):
    """A checkpoint saved already split for model parallelism (Meta's reference llama checkpoints: one
    consolidated.NN.pth per rank, MP 1 for 7B/8B, 2 for 13B, 8 for 70B) loads only with as many processes as it has
    shards: the reference code asserts it (claims.checkpoint_split). Fewer GPUs than its MP is no fault of the GPUs
    and nothing by design to accept: the checkpoint has to be converted (meta-llama/llama#415, #594, #556)."""
    c = claims.checkpoint_split(facts)
    if c is None:
        return
    mp, ranks = c.data["mp"], c.data["ranks"]
    split = f"split for {mp} model-parallel ranks (MP={mp})" if mp else "split for a fixed number of model-parallel " \
        "ranks (its MP)"
    yield make(
        "workload.checkpoint_split", "other", "warning", 0.6,
        f"The checkpoint is {split}, and the job has {ranks}: it loads only with as many ranks as shards",
        "A checkpoint saved in model-parallel shards (the reference llama format: one consolidated.NN.pth per rank) "
        "is loaded shard by shard, one per process, so the process count must equal its MP: Meta's llama code "
        "asserts \"Loading a checkpoint for MP=N but world size is M\" otherwise, and its README sets "
        "--nproc_per_node to the model's MP. Neither the GPUs nor the link are at fault; the checkpoint's layout "
        "does not match the GPUs at hand.",
        [claim_ev(c, "the checkpoint's split and the GPUs at hand")],
        fix="Run with as many processes as the checkpoint's MP (torchrun --nproc_per_node=MP, one GPU each); to use "
        "another number of GPUs, convert the checkpoint to the Hugging Face format (transformers' "
        "convert_llama_weights_to_hf.py) and load it with device_map=\"auto\" or serve it with an engine's "
        "tensor parallelism at the size you have (vLLM --tensor-parallel-size), memory permitting.",
    )


def _host(addr: str) -> str:
    """The host of "host:port" (an IPv6 literal in brackets kept whole), lower-cased."""
    host = addr.rsplit(":", 1)[0] if addr.count(":") == 1 or addr.startswith("[") else addr
    return host.strip("[]").lower()


_IP = re.compile(r"^[\d.]+$|:")
_LOOPBACK = {"localhost", "127.0.0.1", "0.0.0.0", "::1"}


def _one_host_two_names(addrs: set) -> bool:
    """Different strings that may still name one machine: a hostname on one node and an IP on another, or a short
    name and its fully qualified form (pytorch/pytorch#73656: one host reachable as node0.cluster and node0i.cluster).
    Only addresses of one kind (IPs, or unrelated names) are compared; loopback names stay comparable, since a worker
    told to meet at its own loopback never reaches node 0 (pytorch/pytorch#76367)."""
    hosts = {_host(a) for a in addrs} - _LOOPBACK
    if len(hosts) < 2:
        return False
    kinds = {bool(_IP.search(h)) for h in hosts}
    if len(kinds) > 1:
        return True
    names = [h for h in hosts if not _IP.search(h)]
    return any(a != b and b.startswith(a.split(".")[0]) for a in names for b in names)


def _line(source: str) -> tuple[str, int]:
    name, _, line = source.rpartition(":")
    return (name, int(line)) if line.isdigit() else (source, 0)


def _eager_pairs(facts: Facts):
    """Measurements paired with the launch line above them in the same file: (eager, Measurement)."""
    launches = [w for w in facts.of(Workload) if w.eager is not None or (w.tp and w.framework)]
    out = []
    for m in facts.of(Measurement):
        if m.metric not in DECODE:
            continue
        mf, ml = _line(m.source)
        above = [w for w in launches if _line(w.source)[0] == mf and _line(w.source)[1] < ml]
        if above:
            w = max(above, key=lambda w: _line(w.source)[1])
            out.append((bool(w.eager), m, w))
    return out


def runs_eager(facts: Facts):
    """(whether the engine ran without CUDA graphs, the record that says so): a parsed launch line or the engine's echo
    of its arguments that sets the switch (Workload.eager: --enforce-eager, --disable-cuda-graph, enforce_eager=True),
    else the reporter's words or a pasted call (claims eager_flag: LLM(..., enforce_eager=True), cuda_graph_config:
    null, CUDAGraphMode.NONE, "CUDA graphs are disabled"; tool output first), over a serving launch whose False is the
    engine's default; (None, None) where nothing says. One reading for ticket and scaling: the eager findings and the
    expected figure (roofline.predict_any_build eager) both rest on it."""
    parsed = [w for w in facts.of(Workload) if w.eager is not None]
    if any(w.eager for w in parsed):
        return True, next(w for w in parsed if w.eager)
    said = [c for c in claims.find(facts, "eager_flag") if not c.guess]
    if said:  # stated, over a serving launch whose False is only the engine's default (launch.py)
        return True, next((c for c in said if c.data.get("origin") == "output"), said[0])
    return (False, parsed[0]) if parsed else (None, None)


@rule("workload.eager_mode", "eager_mode")
def eager_mode(facts: Facts, predictions=None):
    """Without CUDA graphs every decode step pays the CPU cost of launching each kernel."""
    eager = [w for w in facts.of(Workload) if w.eager]
    if not eager:
        if runs_eager(facts)[0]:
            return  # said in words or a pasted call over the launch's default: ticket.eager_flag judges it
        explicit = [w for w in facts.of(Workload) if w.eager is False]
        graph_notes = [(src, text) for src, text in claims.texts(facts)
                       if re.search(r"(?:using|with|enabled?)\s+cuda[ -]?graphs?|cuda[ -]?graphs? (?:on|enabled)",
                                    text, re.I)]
        graph_notes += [(n.source, n.text) for n in facts.of(Note) if n.kind not in ("description",)
                        and re.search(r"using cuda[ -]?graphs?", n.text, re.I)]
        if explicit or graph_notes:
            src = explicit[0].source if explicit else graph_notes[0][0]
            yield passed("workload.eager_mode", "CUDA graphs are on",
                         "The engine captures decode steps as CUDA graphs.", [ev(src, "CUDA graphs", "on", "on")], 0.55)
        return
    if claims.graphs_tried_no_gain(facts):
        return  # the reporter turned CUDA graphs on and the figure did not move (ticket.eager_flag says the same)
    if claims.settings_as_reference(facts):
        return  # the reference the reporter falls short of ran the same flags (ticket.eager_flag says the same)
    w = eager[0]
    pairs = _eager_pairs(facts)
    on = [m for e, m, _ in pairs if e]
    off = [m for e, m, _ in pairs if not e]
    evidence = [ev(w, "engine runs in eager mode (--enforce-eager / --disable-cuda-graph)", True, False)]
    confidence = 0.8
    summary_extra = ""
    if on and off:
        slow, fast = on[0], max(off, key=lambda m: m.value)
        evidence.append(ev(slow, f"{slow.metric} in eager mode", slow.value, fast.value, slow.unit))
        evidence.append(ev(fast, f"{fast.metric} with CUDA graphs", fast.value, unit=fast.unit))
        if slow.value < 0.9 * fast.value:
            confidence = 0.9
            summary_extra = (f" The attached runs show it: {slow.value:g} vs {fast.value:g} {slow.unit or ''} "
                             "with graphs.")
    yield make(
        "workload.eager_mode", "eager_mode", "warning", confidence,
        "The engine runs without CUDA graphs (eager mode)",
        "In eager mode the CPU launches every kernel of every layer for each decoded token; at small batch "
        "the GPU finishes each kernel faster than the next one is launched, so decode becomes launch-bound. "
        "With TP every rank must also launch its share in lock-step around the all-reduces." + summary_extra,
        evidence,
        fix="Remove --enforce-eager (vLLM/Aphrodite) or --disable-cuda-graph (SGLang) so decode runs as captured "
        "CUDA graphs; if a feature (a quantisation kernel) forces eager mode, weigh it against the loss.",
        refs=["vllm_graphs"],
    )


def heads_title(tp: int, heads: int) -> str:
    """One wording for a TP size the heads refuse, in every command (predict.invalid_layout too)."""
    return f"TP={tp} does not divide the model's {heads} attention heads: the layout cannot run"


def _command_line() -> str:
    """The source of what `capture`'s command line gave (imported only where a capture was read)."""
    from diagnose.capture.facts import GIVEN

    return GIVEN


def _tp_from_gpu_count(facts: Facts):
    """(TP, source, claim) where no TP is given but the reporter ties the model's heads to the number of GPUs its
    instance runs on ("stuck in the analyzing state when the number of attention heads is not divisible by gpu count"
    beside "specify 3 GPUs", gpustack/gpustack#907; "when `num_attention_heads` is not divisible by `GPUs per
    Replica`(tp)", gpustack/gpustack#3251): an engine that splits one model instance over N GPUs by tensor
    parallelism runs TP=N, and the heads of the catalog model decide. (None, None, None) otherwise: a GPU count
    alone may be the machine's, or a layer split that heads do not constrain."""
    count, src = wfield(facts, "gpu_count")
    if not count or count < 2:
        return None, None, None
    said = [c for c in claims.find(facts, "tp_size_error") if not c.negated and _HEADS_BY_GPUS.search(c.quote)]
    return (count, src, said[0]) if said else (None, None, None)


# the heads said against the devices, not the engine's TP size ("heads is not divisible by gpu count")
_HEADS_BY_GPUS = re.compile(r"(?<![a-z])heads?\b[^.\n]{0,40}?\bdivisible by\b[^.\n]{0,30}?"
                            r"\b(?:GPUs?|devices?|cards?)\b", re.I)


@rule("workload.tp_not_dividing_heads", "tp_not_dividing_heads", "other")
def tp_not_dividing_heads(facts: Facts, predictions=None):
    """TP must divide the attention heads (and the KV heads, or be a multiple of them). A TP given on
    the command line of a capture that ran cannot have been the run's: the command line is wrong,
    not the run (a warning, as capture.layout_does_not_fit)."""
    tp, tp_src = wfield(facts, "tp")
    inferred = None
    if not tp:
        tp, tp_src, inferred = _tp_from_gpu_count(facts)
    if not tp or tp < 2 or llamacpp_split_tp(facts):
        return  # (llama.cpp's row / tensor split apportions rows, whatever the heads: rules.common.llamacpp_split_tp)
    spec = facts.subject.model
    heads = kv = None
    heads_src = None
    for w in facts.of(Workload):
        if w.extra.get("attention_heads"):
            heads, heads_src = int(w.extra["attention_heads"]), w.source
            break
    if spec is not None:
        heads = heads or spec.heads
        heads_src = heads_src or f"catalog model {spec.key}"
        kv = spec.kv_heads if not spec.is_mla else None
    if not heads:
        return
    problems = []
    if heads % tp:
        problems.append(ev(heads_src, "attention heads not divisible by TP", heads, f"a multiple of {tp}"))
    if kv and (kv % tp if tp <= kv else tp % kv):
        problems.append(ev(f"catalog model {spec.key}", "KV heads neither divisible by TP nor a divisor of it", kv, tp))
    if not problems and inferred:
        return  # the GPU count only stands in for a TP the words tie to the heads: nothing to confirm
    if inferred:
        problems.append(claim_ev(inferred, "the reporter ties the heads to the GPU count"))
    if not problems:
        yield passed("workload.tp_not_dividing_heads", f"TP={tp} divides the model's heads",
                     f"{heads} attention heads" + (f" and {kv} KV heads" if kv else "")
                     + f" split evenly over {tp} GPUs.",
                     [ev(heads_src, "attention heads", heads, f"multiple of {tp}"),
                      ev(tp_src, "tensor-parallel size", tp)], 0.4)
        return
    good = [d for d in (1, 2, 4, 8, 16) if heads % d == 0 and d != tp]
    if facts.of(CaptureInfo) and tp_src == _command_line():
        yield make(
            "workload.tp_not_dividing_heads", "other", "warning", 0.8,
            f"--tp {tp} (command line) cannot be the captured run's layout: "
            + (f"it does not divide the model's {heads} attention heads" if heads % tp
               else f"it does not split the model's {kv} KV heads"),
            "Tensor parallelism gives each GPU a whole number of heads, so an engine refuses this layout; the "
            "capture ran, so what the command line gives is not the run, and figures compared with the "
            "prediction are of another layout.",
            problems + [ev(tp_src, "tensor-parallel size given", tp)],
            fix=f"Give the TP the run used (one that divides {heads}, e.g. {', '.join(map(str, good[-3:]))}), "
                "or drop --tp to use what the capture recorded.",
        )
        return
    yield make(
        "workload.tp_not_dividing_heads", "tp_not_dividing_heads", "critical", 0.95,
        heads_title(tp, heads) if heads % tp
        else f"TP={tp} does not split the model's {kv} KV heads: the layout cannot run",
        "Tensor parallelism gives each GPU a whole number of attention heads, so the TP size must divide the "
        "head count; engines refuse to start (or pad and waste GPUs) otherwise.",
        problems + [ev(tp_src, "tensor-parallel size", tp)],
        fix=f"Use a TP size that divides {heads} (e.g. {', '.join(map(str, good[-3:]))}); use the remaining GPUs "
        "for pipeline parallelism or another replica.",
        refs=["vllm_parallel"],
    )


def _by_tp(facts: Facts, metric: str) -> dict[int, Measurement]:
    """{TP: figure at batch 1}: the TP stated with each figure, or the GPUs its clause names where the engine
    splits every layer over them (rules.common.tp_engine)."""
    from rules.common import figure_tp

    out: dict[int, Measurement] = {}
    for m in measurements(facts, metric):
        own = figure_tp(facts, m) if metric in DECODE else ((m.tp, "") if m.tp else None)
        if own and (m.batch in (None, 1)):
            out.setdefault(own[0], m)
    return out


# GGUF (llama.cpp, Ollama) stores weights in blocks that carry their own scales: Q4_K 144 bytes per 256 weights
# (4.5 bits), Q5_K 176 (5.5), Q6_K 210 (6.5625), Q8_0 34 per 32 (8.5): rules/catalog/gguf_types.toml, from ggml's
# ggml-common.h. The predictor streams the bytes of the type the ticket names (rules.shapes.bytes_per_param).
_GGUF = re.compile(r"\bgguf\b|\bI?Q[1-8]_|\bllama\.?cpp\b|\bollama\b", re.I)
# Without a type named, llama.cpp's common 4- and 8-bit files (the quantize README's recommended Q4_K_M, Q8_0).
GGUF_BY_DTYPE = {"int4": "Q4_K_M", "int8": "Q8_0", "mxfp4": "MXFP4"}


def quant_group(facts: Facts) -> str | None:
    """The GGUF type that gives the ticket's weights their bytes where llama.cpp or Ollama serves them (or the
    model is named as a GGUF file): the one a model name, tag or the reporter's text names ('llama-2-7b.Q5_K_M.gguf'),
    else the common one of its dtype; None for other engines (the dtype's default group) and 16-bit weights."""
    from rules import catalog

    statements = ([w.model for w in facts.of(Workload) if w.model] + [w.dtype for w in facts.of(Workload) if w.dtype]
                  + [text for _, text in claims.texts(facts)])
    dtype = weight_dtype(facts)
    if dtype not in GGUF_BY_DTYPE or not any(_GGUF.search(text) for text in statements):
        return None
    named = (catalog.named_gguf(text) for text in statements)
    return next((t for t in named if t and catalog.gguf_type(t).dtype == dtype), GGUF_BY_DTYPE[dtype])


def stated_lengths(facts: Facts) -> tuple[int | None, int | None]:
    """(prompt, reply) lengths in tokens the input states (its prose, ticket.toml, a launch line, a benchmark's
    result), None where it states none: `ticket` predicts a figure at them and `scaling` takes them as the run's
    setup, both through this one reading, so the same ticket gets the same expected figure from both."""
    return wfield(facts, "prompt_len")[0], wfield(facts, "output_len")[0]


def memory_share(facts: Facts) -> tuple[float, str, str] | None:
    """The share of each GPU's memory the run's engine was told to fill, where the material states it: (fraction,
    what it is of: "total" GPU memory or the "free" memory left after the weights, the words saying where it was
    stated). The flag decides what it is of (diagnose.artifacts.memory_share.FLAGS, from each engine's docs); prose
    naming no flag takes the meaning of the ticket's engine's own flag, else the whole GPU's. None: unstated, and
    the predictor keeps the engine profile's default (engines.toml memory_utilization)."""
    from diagnose.artifacts.memory_share import FLAGS
    from rules import catalog

    for w in facts.of(Workload):
        value = w.extra.get("memory_share")
        if value is None:
            continue
        flag = w.extra.get("memory_share_flag", "")
        of = FLAGS[flag][1] if flag in FLAGS else "total"
        if flag not in FLAGS and (key := engine_of(facts)):
            family = key.split("-")[0]
            of = next((o for label, o in FLAGS.values()
                       if (e := catalog.find_engine(label)) is not None and e.key.split("-")[0] == family), of)
        return float(value), of, f"stated: {flag} {value:g} ({w.source})"
    return None


def predict_layout(facts: Facts, tp: int, batch: int, prompt: int | None = None, pp: int = 1,
                   dtype: str | None = None, gpu=None, model=None, interconnect: str | None = None,
                   engine=None):
    """The prediction for the ticket's model and GPU at this TP, batch and prompt length (its engine's
    profile), with the pipeline stages the ticket states (placed on its nodes), else `pp` stages the caller
    assumed (a layer split over every GPU named), or None when the catalog does not know them or the predictor
    rejects the layout. The prompt and reply lengths the ticket states, where the caller gives none (else
    1024 in and the predictor's default out): a decode rate is averaged over the reply's contexts.
    `dtype`: weights to assume in place of the ticket's (quantised_stream's 4-bit). `gpu`: another board the ticket
    names, in place of its own (two boards' rates set side by side). `model`: the model a figure's own clause names, in
    place of the ticket's (rules.subject.figure_model). `interconnect`: the fabric to put the TP group on in place of
    the board's own, and `engine`: another engine profile in place of the ticket's (rules.loss_bound's worst case:
    PCIe, each release of each engine the run may have been), priced as that one profile: no other release widens its
    band, since both layouts a loss compares ran on one."""
    from diagnose.errors import InputError
    from rules import catalog, roofline

    model = model or facts.subject.model
    gpu = gpu or facts.subject.gpu
    if model is None or gpu is None:
        return None
    gguf = None if dtype else quant_group(facts)
    stated, pp_src = wfield(facts, "pp")
    # a stated PP on top of this TP needing more GPUs than the ticket names (in all, not per node) is another run's
    named = None if facts.workload().extra.get("gpus_per_node") else gpu_count(facts)
    if stated and stated > 1 and not (named and tp * stated > named):
        pp = stated
    else:
        pp, pp_src = max(pp, 1), None
    per_node = gpus_per_node(facts) if pp > 1 else None  # where the stages sit: a boundary may cross the network
    stated_prompt, stated_output = stated_lengths(facts)
    prompt = prompt or stated_prompt or 1024
    # the ticket's engine over the releases it may have run; a profile the caller names, as that one release
    releases, release_note = engine_releases(facts) if engine is None else ((), "")

    def priced(dtype):
        return roofline.predict_any_build(model, gpu, roofline.Layout(tp=tp, pp=pp), batch=batch, prompt=prompt,
                                          output=stated_output or None, engine=engine or facts.subject.engine,
                                          dtype=dtype, quant_group=gguf, gpus_per_node=per_node or 8,
                                          build_stated=build_stated(facts), releases=releases,
                                          release_note=release_note, interconnect=interconnect,
                                          memory_share=memory_share(facts), eager=bool(runs_eager(facts)[0]),
                                          **ring_route(facts, tp))
    try:
        p = priced(dtype=dtype or weight_dtype(facts))
        if not dtype and p.kv_budget_gb < 0 and may_run_quantised(facts):
            p = fits_only_quantised(p, priced, gpu, engine_of(facts))
    except InputError:  # a layout the predictor rejects is not this rule's problem
        return None
    if pp_src:
        p.assumptions["pp_source"] = pp_src
    if ollama_default(facts):
        p.assumptions["weights"] = OLLAMA_WEIGHTS
    if gguf:
        t = catalog.gguf_type(gguf)
        p.assumptions["gguf"] = (f"GGUF {t.name} weights: {t.bits:g} bits a weight ({t.block}, "
                                 "rules/catalog/gguf_types.toml)")
    elif not dtype and (file := unread_gguf(facts)):  # the cheap test first: unread_gguf reads every text
        p.assumptions["gguf"] = (f"the GGUF type could not be read from '{file}': the checkpoint's "
                                 f"{p.dtype} weights assumed (a 4-bit file streams about a quarter of the bytes)")
    return p


QUANTISED_TO_FIT = ("assumed: quantised weights, 4-bit (the expected figure) to 8-bit (the band's slow edge): the "
                    "checkpoint's {dtype} weights with the engine's activations, graphs and buffers need {need:.0f} GB "
                    "a GPU where {engine} fills {usable:.0f} GB of {gpu}'s {have:g} GiB ({share}), "
                    "leaving no KV cache, and it keeps every weight on the GPU and starts only with room for its KV "
                    "cache, so the run that gave the figure was quantised; the ticket does not say to what")


def seated(facts: Facts, tp: int, n: int, pp: int = 1, dtype: str | None = None):
    """(sequences decoded together, prediction, evidence) for `n` requests in flight at this layout: `n` where the
    KV cache holds them (evidence None), else the seats it holds (the predictor's max_concurrent_seqs at batch 1): an
    engine decodes at most that many and queues the rest, so a figure stated at `n` is priced at those seats, and the
    evidence says the load is a bound (at most that many decode together), with the cache's size as its source. The
    prediction is None where the layout is not predicted or not even one sequence fits."""
    from diagnose.findings import Evidence

    p = predict_layout(facts, tp, n, pp=pp, dtype=dtype)
    if p is None or not p.valid or p.fits or n < 2:
        return n, p, None
    one = predict_layout(facts, tp, 1, pp=pp, dtype=dtype)
    seats = one.max_concurrent_seqs if one is not None and one.valid and one.fits else 0
    q = predict_layout(facts, tp, seats, pp=pp, dtype=dtype) if 1 <= seats < n else None
    if q is None or not (q.valid and q.fits):
        return n, p, None
    return seats, q, Evidence(
        source=f"prediction:kv_cache (TP={tp}" + (f" PP={pp}" if pp > 1 else "") + ")",
        detail=f"at most {seats} sequences fit the KV cache ({one.kv_budget_gb:g} GB a GPU for it, "
        f"{one.kv_gb_per_seq_per_gpu:g} GB a sequence at {one.context} tokens): of the {n} requests stated at most "
        f"{seats} decode together, the rest queue, so the figure is priced at {seats}", measured=n, expected=seats)


def may_run_quantised(facts: Facts) -> bool:
    """Could the run have used quantised weights the ticket does not name? Its engine keeps every weight on the GPU
    (offload.keeps_weights_on_gpu) and nothing says the weights, 16 bits or an offload: then a checkpoint whose 16-bit
    weights do not fit the layout's GPUs (fits_only_quantised) ran quantised. An engine that spills layers to the
    CPU, or an unnamed one, may have run it off the GPU instead."""
    from diagnose.artifacts.text import SIXTEEN_BIT

    engine = engine_of(facts) or ""
    if not keeps_weights_on_gpu(engine) or weight_dtype(facts) or any(w.dtype for w in facts.of(Workload)):
        return False
    if unread_gguf(facts):
        return False
    texts = [text for _, text in claims.texts(facts)]
    if any(SIXTEEN_BIT.search(t) for t in texts):
        return False
    # an offload the ticket states (claims.partial_offload, the one reader: --cpu-offload-gb above 0, layers or
    # experts on the CPU, accelerate's warning, words), or a launch field asking for one
    return not any(not c.negated for c in claims.partial_offload(facts)) and not any(
        _offload_gb(v) for w in facts.of(Workload) for k, v in w.extra.items() if "offload" in k)


def _offload_gb(value) -> bool:
    """Does a launch field's offload value (text or number) keep any weights off the GPU? Only zero keeps none."""
    try:
        return float(str(value).strip() or 0) != 0
    except ValueError:
        return True  # a value that is no number is still an offload asked for


def fits_only_quantised(p, priced, gpu, engine: str):
    """The prediction a run that may be quantised (may_run_quantised) is judged by: where the checkpoint's own 16-bit
    weights leave no KV cache on the GPUs (`p`: with the engine's activations, graphs and buffers they pass the share
    of memory it fills, its memory_utilization; vLLM then refuses to start: "No available memory for the cache
    blocks", https://github.com/vllm-project/vllm/issues/2248), the 4-bit one (`priced(dtype)` prices another) with
    its band reaching the 8-bit one's slow edge, as predict_any_build widens a band over the builds an engine may have
    run; the 4-bit one alone where 8 bits leave none either; `p` where even 4 bits do (a layout or format the ticket
    does not state). The assumption is said. `ticket` (predict_layout) and `scaling` (rules.scaling.analyse) both
    take it from here."""
    if p.kv_budget_gb >= 0 or p.dtype not in ("bf16", "fp16"):
        return p
    p4 = priced(dtype="int4")
    if p4.kv_budget_gb < 0:
        return p
    p8 = priced(dtype="int8")
    if p8.kv_budget_gb >= 0 and p4.decode_step_ms_expected:
        ratio = p8.decode_step_ms_expected / p4.decode_step_ms_expected
        p4.band_high = max(p4.band_high, p8.band_high * ratio)
        p4.assumptions["band"] = [round(p4.band_low, 3), round(p4.band_high, 3)]
        said = QUANTISED_TO_FIT
    else:
        said = QUANTISED_TO_FIT.replace("4-bit (the expected figure) to 8-bit (the band's slow edge)",
                                        "4-bit (8-bit does not fit either)")
    p4.assumptions["weights"] = said.format(dtype=p.dtype, need=p.weights_gb_per_gpu + p.reserved_gb,
                                            usable=p.weights_gb_per_gpu + p.reserved_gb + p.kv_budget_gb,
                                            gpu=gpu.name, have=gpu.memory_gb, engine=engine,
                                            share=p.assumptions.get("memory_share", "its memory utilisation"))
    return p4


# Below the band of weights assumed quantised, which quantisation ran decides first: the band is the fast kernels'
# (AWQ/GPTQ with Marlin, FP8), and vLLM warns that its bitsandbytes path "can be slower than non-quantized models"
# (https://docs.vllm.ai/en/latest/features/quantization/bnb.html; its load-time warning).
QUANTISATION_ASK = ("Say which quantisation ran (AWQ, GPTQ, FP8, bitsandbytes, GGUF): the band assumed 4- to 8-bit "
                    "weights on the engine's fast kernels, and bitsandbytes decodes slower than 16-bit weights;")


def assumed_weights(p) -> str | None:
    """The weights fits_only_quantised inferred for a prediction, as its evidence says them; None where read."""
    said = str(p.assumptions.get("weights", ""))
    return said if said.startswith(QUANTISED_TO_FIT[:26]) else None


def assumed_cut(p) -> float:
    """How much an answer resting on weights assumed to fit (fits_only_quantised) gives up in confidence: the format is
    inferred, not read, so a figure inside its band is physics less surely than one priced at weights stated."""
    return 0.1 if assumed_weights(p) else 0.0


_GGUF_FILE = re.compile(r"[\w.+-]+\.gguf\b", re.I)


def unread_gguf(facts: Facts) -> str | None:
    """A GGUF file the ticket names whose weights nothing states (no type in its name, no quantisation said), or None:
    the prediction then prices the checkpoint's own dtype and must say so."""
    from rules import catalog

    if weight_dtype(facts):
        return None
    names = [w.model for w in facts.of(Workload) if w.model] + [text for _, text in claims.texts(facts)]
    files = [m.group(0) for text in names for m in _GGUF_FILE.finditer(text)]
    return next((f for f in files if not catalog.named_gguf(f)), None)


def build_stated(facts: Facts) -> bool:
    """Do the builds the ticket states (its framework, log lines or prose) decide its engine's profile
    (rules.catalog.build_decides)? Where they put it before the boundary the subject already runs the twin."""
    from rules import catalog
    from rules.common import engine_builds

    return catalog.build_decides(facts.subject.engine, engine_builds(facts))


def quantised_stream(facts: Facts, tp: int, rate: float, margin: float = 1.0) -> bool:
    """Could one stream give `rate` tok/s if the weights, which the ticket does not state, were 4-bit (the usual
    quantisation of local and community checkpoints)? True only when the ticket states no weights, the checkpoint
    ships 16-bit and no catalog serving engine (which loads the checkpoint as named) runs it: then a rate above the
    16-bit roofline says 'quantised' as readily as 'batched'."""
    from rules.common import LLAMACPP_ENGINES

    model, gpu = facts.subject.model, facts.subject.gpu
    if model is None or gpu is None or weight_dtype(facts) or model.checkpoint_dtype not in ("bf16", "fp16", "fp32"):
        return False
    if engine_of(facts) not in (None, "generic", *LLAMACPP_ENGINES):
        # a serving engine loads the checkpoint named, 16-bit unless the name or a flag says otherwise; llama.cpp
        # (Ollama) runs a GGUF file, most often a 4-bit one (Ollama's bare tags are Q4_K_M)
        return False
    q = predict_layout(facts, tp, 1, dtype="int4")
    return q is not None and q.valid and rate <= margin * q.decode_tok_s


def checkpoint_unfit(facts: Facts, tp: int, pp: int = 1) -> bool:
    """Do the checkpoint's 16-bit weights, where the ticket states no weights, overflow the GPUs at this layout? Then
    the run streamed a quantised copy (or offloaded, which only a figure below every width's band can show), whatever
    the engine: no engine serves from GPU memory what it does not hold."""
    model = facts.subject.model
    if model is None or facts.subject.gpu is None or weight_dtype(facts) or \
            model.checkpoint_dtype not in ("bf16", "fp16", "fp32"):
        return False
    p = predict_layout(facts, tp, 1, pp=pp)
    return p is not None and p.valid and not p.fits


# The widths quantised checkpoints are published in, which a run whose weights nobody states may have streamed:
# 8 bits (LLM.int8, GGUF Q8_0, FP8, 8-bit GPTQ/AWQ/MLC) and 4 bits (GGUF Q4_K_M / Q4_0, AWQ, GPTQ, NF4, MLC q4f16).
SPANNED_WEIGHTS = ("int8", "int4")


def weights_span(facts: Facts, m, tp: int, pp: int = 1):
    """(low, high, [(dtype, prediction)]): the band one stream gives over every width in SPANNED_WEIGHTS, where the
    ticket states no weights, no batch or load for the figure, and the figure is above the checkpoint's 16-bit
    roofline but within reach of 4-bit weights (quantised_stream), or the 16-bit weights do not fit the GPUs at all
    (checkpoint_unfit): the unknown fact answered with the band over its
    plausible values, not with a question; a width that does not fit the GPUs is left out of the band. None where the
    figure needs no span or no width fits."""
    if any_load(facts, m):
        return None  # a load stated: the rate may be a batch's, which the widths alone do not bound
    if not (quantised_stream(facts, tp, m.value, margin=1.1) or checkpoint_unfit(facts, tp, pp)):
        return None
    from diagnose.artifacts.text import SIXTEEN_BIT

    if any(SIXTEEN_BIT.search(text) for _, text in claims.texts(facts)):
        return None  # 16-bit weights said in words: a figure above their bound is a load or a misreading, not a width
    priced = [(d, predict_layout(facts, tp, 1, pp=pp, dtype=d)) for d in SPANNED_WEIGHTS]
    priced = [(d, p) for d, p in priced if p is not None and p.valid and p.fits and p.decode_tok_s_expected]
    if not priced:
        return None  # no width fits: offload or another layout, not a width, decides the rate
    low = min(p.decode_tok_s_expected / p.band_high for _, p in priced)
    high = max(p.decode_tok_s_expected / p.band_low for _, p in priced)
    return low, high, priced


def span_reach(span) -> float:
    """The most one stream can read at the fastest width a weights_span priced: its roofline, with the 10 % margin
    a catalog's nominal bandwidth leaves (as quantised_stream's)."""
    return 1.1 * max(p.decode_tok_s for _, p in span[2])


def weights_span_holding(facts: Facts, m, tp: int, pp: int = 1):
    """weights_span where one stream at one of its widths could give the figure: from the slow edge's lowest normal
    reading up to the fastest width's roofline (above the band's fast edge the figure beats the calibrated band, as a
    figure of one stated width may), else None: the one test ticket.measured_vs_expected answers from and
    ticket.figure_unjudged stays silent on."""
    from rules.expectations import lowest_normal

    span = weights_span(facts, m, tp, pp)
    return span if span and lowest_normal(span[0], m) <= m.value <= span_reach(span) else None


@rule("workload.latency_bound_small_batch", "latency_bound_small_batch", "expected_physics")
def latency_bound_small_batch(facts: Facts, predictions=None):
    """At batch 1 adding TP GPUs adds per-layer all-reduce latency and shrinks GEMMs; the model
    may already be limited by fixed per-step costs, not by memory bandwidth."""
    for metric in DECODE:
        by_tp = _by_tp(facts, metric)
        if len(by_tp) >= 2:
            break
    else:
        return
    tps = sorted(by_tp)
    lo, hi = by_tp[tps[0]], by_tp[tps[-1]]
    measured = hi.value / lo.value
    evidence = [ev(lo, f"{metric} at TP={tps[0]}, batch 1", lo.value, unit=lo.unit),
                ev(hi, f"{metric} at TP={tps[-1]}, batch 1 "
                   f"(expected: TP={tps[0]} x {tps[-1] / tps[0]:g}, ideal scaling)", hi.value,
                   round(lo.value * tps[-1] / tps[0], 1), lo.unit)]
    p_lo, p_hi = predict_layout(facts, tps[0], 1), predict_layout(facts, tps[-1], 1)
    predicted = consistent = None
    if p_lo and p_hi and p_lo.decode_tok_s_expected:
        predicted = p_hi.decode_tok_s_expected / p_lo.decode_tok_s_expected
        evidence.append(ev("prediction:expected", f"expected speed-up TP={tps[0]}->{tps[-1]} ({p_hi.engine} profile)",
                           round(measured, 2), round(predicted, 2), "x"))
        # as scaling judges a layout: the larger TP's distance from its expected figure, relative to the
        # smaller TP's, inside the band (x band_high slower at most)
        consistent = predicted / measured <= p_hi.band_high
    if consistent is False:
        return  # slower than physics explains: not this rule's verdict (scaling and the transport rules judge it)
    if consistent is None and measured < 0.6:
        return  # far slower than fixed per-step costs make a batch-1 split: something else costs the time
    if measured <= 1.1:
        yield make(
            "workload.latency_bound_small_batch", "latency_bound_small_batch", "warning", 0.75,
            f"More TP GPUs do not speed up batch-1 decode (x{measured:.2f} from TP={tps[0]} to TP={tps[-1]})",
            "At batch 1 each decode step streams little data per GPU, so its time is dominated by fixed costs: "
            "kernel launches and two all-reduces per layer whose latency grows with the TP size. Splitting the "
            "weights further saves less time than the extra synchronisation costs; this is physics, not a fault.",
            evidence,
            fix=f"Serve single streams on the smallest TP that fits the model (TP={tps[0]} here) and use the other "
            "GPUs for replicas; raise the batch (concurrency) to make TP pay off; keep CUDA graphs on and "
            "prefer the engine's custom all-reduce.",
            refs=["vllm_parallel"],
        )
    elif consistent:
        yield make(
            "workload.latency_bound_small_batch", "expected_physics", "info", 0.6,
            f"TP scaling x{measured:.2f} is what the predictor expects (x{predicted:.2f}, within its band)",
            "The measured speed-up from more GPUs is what the memory-bandwidth, kernel and all-reduce terms of "
            "the expected model give for this model, GPU and engine; nothing is slowing it down beyond physics.",
            evidence, fix="Nothing to fix; to go faster, raise the batch or use faster interconnect/GPUs.")


@rule("workload.pp_network", "expected_physics")
def pp_network(facts: Facts, predictions=None):
    """Pipeline stages on different nodes exchange one activation per micro-batch: the network
    is not on the critical path of decode, so a faster network does not raise tok/s."""
    pp, pp_src = wfield(facts, "pp")
    tp, _ = wfield(facts, "tp")
    nodes, node_ev = node_count(facts)
    per_node = gpus_per_node(facts)
    if not pp or pp < 2 or not nodes or nodes < 2 or (tp and per_node and tp > per_node):
        return
    said = claims.symptom_quote(facts)
    if said and said[2] in FAILURES:
        return  # (ut28c) a job that fails to start or hangs has no decode speed to explain (aws-samples/aws-do-eks#50)
    model = facts.subject.model
    evidence = [ev(pp_src, "pipeline-parallel size across nodes", pp)] + node_ev
    detail = ""
    if model is not None:
        per_token = model.hidden * 2
        evidence.append(ev(f"catalog model {model.key}", "activation bytes crossing a stage boundary per token (bf16)",
                           per_token, unit="bytes"))
        detail = (f" For {model.name} that is {per_token / 1024:g} KiB per token per boundary — microseconds on any "
                  "datacenter network, against a decode step of tens of milliseconds.")
    yield make(
        "workload.pp_network", "expected_physics", "info", 0.6,
        "Across nodes only pipeline activations cross the network; its bandwidth does not limit decode",
        "With pipeline parallelism between nodes (and TP inside each node), each token sends one hidden-state "
        "vector from one stage to the next." + detail + " A faster network therefore cannot raise tokens/s; the "
        "step time is set by the GPUs' memory bandwidth and the pipeline's sequential stages.",
        evidence,
        fix="To go faster at low concurrency, use TP inside a node with more GPUs per stage; raise concurrency so "
        "both stages stay busy. A network upgrade helps TP across nodes or very large batches, not this layout.",
        refs=["vllm_parallel"],
    )


@rule("workload.batch1_fits_fewer", "latency_bound_small_batch")
def batch1_fits_fewer(facts: Facts, predictions=None):
    """Batch-1 decode on more TP GPUs than the model needs, with no scaling measurement."""
    if len(_by_tp(facts, "decode_tok_s")) >= 2:
        return  # latency_bound_small_batch judges the measured scaling
    tp, tp_src = wfield(facts, "tp")
    batch, batch_src = wfield(facts, "batch")
    if not tp or tp < 2 or batch != 1:
        return
    p_small = predict_layout(facts, tp // 2, 1)
    if p_small is None or not p_small.fits:
        return
    yield make(
        "workload.batch1_fits_fewer", "latency_bound_small_batch", "info", 0.4,
        f"Batch-1 decode on TP={tp} although the model fits on {tp // 2} GPUs",
        "At batch 1 decode time is dominated by fixed per-layer costs (launches, all-reduce latency), so "
        "halving the weights per GPU buys little while each extra rank adds synchronisation.",
        [ev(tp_src, "tensor-parallel size", tp), ev(batch_src, "batch", batch),
         ev("prediction:roofline", f"model fits at TP={tp // 2}", p_small.weights_gb_per_gpu, unit="GB per GPU")],
        fix=f"Compare TP={tp // 2} against TP={tp} at batch 1; use the spare GPUs as another replica.",
        refs=["vllm_parallel"],
    )


def _layer_split_decode(facts: Facts) -> bool:
    """Is the ticket's question the decode speed of a model split by layers over its GPUs (not its prompt processing,
    loading or host offload, claims.link_heavy_phase; not a hang, crash or error, which peer copies between the GPUs
    can cause)?"""
    said = claims.symptom_quote(facts)
    return bool(said) and said[2] in ("slow", "normal?", "scaling") and layer_split_over_gpus(facts) \
        and not claims.link_heavy_phase(said[1]) and not claims.tensor_split_said(facts)


@rule("workload.evidence_coverage", "insufficient_data")
def evidence_coverage(facts: Facts, predictions=None):
    """Name the basic artifact a multi-GPU case lacks: how the GPUs are connected (NVIDIA's tools: not asked of
    another vendor's accelerator)."""
    if claims.other_vendor(facts):
        return
    if any(c.data["error"].before_traffic for c in claims.known_errors(facts)) or any(
            len(c.data.get("groups", [])) != 2 and not c.guess for c in claims.find(facts, "tp_size_error")):
        return  # the engine refused the layout, the build or the platform before any GPU talked to another (a
        # dimension the TP size does not divide is such a refusal; the bare "25 is not divisible by 4" is not read)
    tp, tp_src = wfield(facts, "tp")
    pp, pp_src = wfield(facts, "pp")
    per_node = gpus_per_node(facts)
    _, count_src = wfield(facts, "gpu_count")
    if pp and pp >= 2:  # every pipeline stage holds its own TP group: TP x PP GPUs work together
        tp, tp_src = (tp or 1) * pp, tp_src if tp and tp >= 2 else pp_src
    if per_node and per_node == len(gpu_indices(facts)):  # counted from the GPUs seen: a MIG GPU is no TP peer
        per_node -= sum(1 for g in distinct_gpus(facts.of(GpuFact)) if g.mig_mode and g.index is not None)
    local = [t for t in facts.of(NcclTransport) if t.transport in ("P2P", "SHM")]  # NCCL's intra-node connections
    ranks = {r for t in local for r in (t.rank, t.peer) if r is not None}
    by_nccl = not per_node and len(ranks) >= 2
    if by_nccl:  # a NCCL log that connects ranks inside a node: they work together
        per_node, count_src = len(ranks), local[0].source
    if (job := job_gpus(facts)) and job[0] == 1:
        per_node = None  # the job runs on one of the node's GPUs: no peers to connect
    if not tp and one_gpu_in_use(facts) and not sharding_asked(facts):
        per_node = None  # (s28, ut28d) one GPU seen doing the work, no split asked for: no peers talk, so how they
        # connect decides nothing ("双卡4090推理时有一卡一直没有用上", chatchat-space/Langchain-Chatchat#3002)
    if not ((tp and tp >= 2) or (per_node and per_node >= 2)):
        return
    if facts.subject.gpu is not None and facts.subject.gpu.gpus_per_machine == 1:
        return  # one GPU per machine (gpus.toml gpus_per_machine): no GPUs inside a node to connect; the network
        # between the machines is nccl.gdr's to ask about
    fabric = fabric_failure(facts)
    if fabric and not any(g.fabric_state for g in facts.of(GpuFact)):
        # NVSwitch / NVLS set-up failing: what decides it is the fabric's registration state (NVML's GPU fabric
        # state, fabric manager user guide), which `nvidia-smi topo -m` does not show
        yield need("workload.evidence_coverage", "The NVSwitch fabric's state was not shown",
                   "The ticket shows the NVSwitch fabric (NVLink SHARP / multicast) failing to set up; whether the "
                   "GPUs finished registering with the fabric is in `nvidia-smi -q`'s Fabric section, not in the "
                   "topology matrix.",
                   "`nvidia-smi -q` from the node (its Fabric section: State, Status) and "
                   "`systemctl status nvidia-fabricmanager`",
                   [claim_ev(fabric, "the fabric / NVLS failure")])
        return
    if _layer_split_decode(facts):
        return  # (ut28b) a layer split's decode hands one hidden-state vector per token from GPU to GPU: how they are
        # connected does not set its pace, so asking for the topology answers nothing (ticket_rules._layer_split_link)
    links = facts.of(TopologyPath) or facts.of(NvLinkFact) or facts.of(P2PStatus) or facts.of(PairBandwidth)
    if links:
        return
    board = nvswitch_by_catalog(facts)  # the GPU model named exactly: what topology's rules assume
    system = named_system(facts)  # (the count of a named system's GPUs is its catalog row's, from where it is named)
    source = tp_src or count_src or _first_gpu_source(facts, system)
    # (a system named where the GPU the ticket names is no NVSwitch board is not this node: "NVSwitches are supported
    # starting with DGX-2", quoted from a guide on a box of two RTX 4090s, data-infra/cube-studio#29)
    if not board and system and system[0].gpu_link == "nvswitch" and (tp or per_node or 0) <= (system[0].gpus or 0) \
            and not no_nvswitch_board(facts):
        board = [ev(system[1], f'the named system "{system[2]}": an NVSwitch system, every GPU pair on NVLink '
                               f"(rules/catalog/systems.toml: {system[0].name}, {system[0].cited})", "nvswitch")]
    # (the label names NCCL's ranks only where the count shown is theirs: a stated TP size is shown from its source)
    count = [ev(source, "GPUs working together in a node"
                + (" (ranks NCCL connects inside it)" if by_nccl and not tp else "")
                + (f' (the named system "{system[2]}" holds {system[0].gpus})' if system and source == system[1]
                   and not (tp or count_src) else ""), tp or per_node)]
    if board:
        what = (f"The catalog's {facts.subject.gpu.key} is an NVSwitch board" if facts.subject.gpu is not None
                and nvswitch_by_catalog(facts) else f"The named {system[0].name} is an NVSwitch system")
        yield need("workload.evidence_coverage", "How the GPUs are connected was not measured",
                   f"Several GPUs work together. {what}, so every pair should share NVLink, but nothing measured on "
                   "this node shows it (links down or a disabled fabric manager would not show here).",
                   "`nvidia-smi topo -m` from the node (and `nvidia-smi nvlink -s` if it shows NV# links)",
                   count + board)
        return
    if wsl := wsl_signs(facts):
        # (left29) under WSL 2 the GPUs sit behind Windows' paravirtual driver and `nvidia-smi topo -m` shows no
        # topology ("wsl里面这个命令输出不正常，不显示拓扑结构", weicj/vLLM-2080Ti-Definitive#114; NVML is partial
        # there, https://docs.nvidia.com/cuda/wsl-user-guide/index.html): ask for what a run shows, NCCL's own lines
        yield need("workload.evidence_coverage", "How the GPUs are connected is not known",
                   "Several GPUs work together under WSL 2, where `nvidia-smi topo -m` does not show how they are "
                   "connected; what NCCL joins them with in a run does.",
                   "the NCCL_DEBUG=INFO output of one run on these GPUs under WSL 2 (its 'via P2P' or 'via SHM' "
                   "lines say whether the GPUs reach each other directly or through host memory)",
                   count + wsl[:1])
        return
    spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
    if spec is not None and not spec.nvlink_links:  # a board without NVLink (L40S, GeForce since Ada): PCIe only
        yield need("workload.evidence_coverage", "How the GPUs are connected is not known",
                   f"Several GPUs work together over PCIe ({spec.name} has no NVLink), but nothing measured shows "
                   "whether they share a PCIe switch, one CPU's root complex, or cross CPU sockets.",
                   "`nvidia-smi topo -m` from the node",
                   count + [ev(spec_src or "catalog", f"catalog {spec.key}: no NVLink links", spec.interconnect)])
        return
    yield need("workload.evidence_coverage", "How the GPUs are connected is not known",
               "Several GPUs work together, but nothing measured shows whether they talk over NVLink, a PCIe switch, "
               "or across CPU sockets.",
               "`nvidia-smi topo -m` from the node (and `nvidia-smi nvlink -s` if it shows NV# links)", count)


def _first_gpu_source(facts: Facts, system=None) -> str:
    """Where the GPUs were seen when no field states their count (a probe, nvidia-smi output), else where the ticket
    names the system whose catalog row gives the count (common.gpus_per_node)."""
    gpu = next((g for g in facts.of(GpuFact) if g.index is not None), None)
    if gpu:
        return gpu.source
    return system[1] if system else "GPU count: source not recorded"

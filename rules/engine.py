"""The rule registry, evaluation, and the verdict.

A rule is a function `(facts, predictions) -> iterable of Finding`. It never reads files or
calls NVML; it reads `diagnose.evidence.Facts`, and the command's rules.predictions object
(None, or the type its `needs=` names). Register it with `@rule(...)` in a module
of the `rules` package: every module there is imported, so every command sees every rule.
"""

from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable, Iterable

from diagnose.errors import DiagnoseError, strict
from diagnose.findings import SEVERITY_RANK, Evidence, Finding, Verdict
from rules import beyond_band, catalog

if TYPE_CHECKING:
    from rules.predictions import Predictions


@dataclass
class Rule:
    id: str
    categories: tuple[str, ...]
    func: Callable[..., Iterable[Finding]]
    doc: str
    needs: type | None = None  # the rules.predictions type the rule reads; it runs only where the command made one

    @property
    def needs_name(self) -> str | None:
        """The prediction type's name, as `diagnose rules --format json` shows it."""
        return self.needs.__name__ if self.needs else None


REGISTRY: dict[str, Rule] = {}


def rule(rule_id: str, *categories: str, needs: type | None = None):
    """Register a rule under a stable id; its docstring is its documentation. `needs` names the
    prediction type it reads (rules.predictions: PredictResult, ScalingAnalysis, Plan): the engine
    runs it only where the command made one."""

    def wrap(func):
        if rule_id in REGISTRY and REGISTRY[rule_id].func is not func:
            raise ValueError(f"rule id {rule_id} registered twice")
        REGISTRY[rule_id] = Rule(rule_id, tuple(categories), func, (func.__doc__ or "").strip(), needs)
        return func

    return wrap


# Any check may pass (healthy) or say it could not judge (insufficient_data); every other
# category a rule gives must be one it declares, so `diagnose rules` tells the truth.
ANY_RULE_CATEGORIES = ("healthy", "insufficient_data")


class UndeclaredFinding(Exception):
    """A rule emitted a finding under another id or a category it does not declare: a bug in the rule."""


def check_declared(r: Rule, f: Finding) -> None:
    if f.rule != r.id:
        raise UndeclaredFinding(f"rule {r.id} emitted a finding as {f.rule}")
    if f.category not in r.categories and f.category not in ANY_RULE_CATEGORIES:
        raise UndeclaredFinding(f"rule {r.id} emitted category {f.category}, declared {', '.join(r.categories)}")


def summary(r: Rule) -> str:
    """A rule's documentation's first paragraph, on one line."""
    return " ".join(r.doc.split("\n\n")[0].split())


def load_rules() -> dict[str, Rule]:
    """Every rule of the `rules` package: importing its modules registers them (adding a rule is
    adding a decorated function; no list to keep)."""
    import rules

    for info in pkgutil.iter_modules(rules.__path__):
        importlib.import_module(f"rules.{info.name}")
    return REGISTRY


def evaluate(facts, predictions: Predictions | None = None, only: Iterable[str] | None = None) -> list[Finding]:
    """Run every registered rule (or those whose id starts with one of `only`).

    A rule that crashes is a bug in the tool, not in the user's input: the rest of the report
    still arrives, and the crash becomes an `other` finding. DIAGNOSE_STRICT=1 (the tests)
    re-raises instead. The GPU and model the facts name are resolved once, here, before any rule
    runs (facts.subject, rules.subject): a broken catalog stops the run as bad input.
    """
    from rules.containers import derive_container_versions
    from rules.subject import Subject

    derive_container_versions(facts)  # an NGC tag's NCCL/CUDA, before anything reads the versions
    facts.subject = Subject.of(facts)
    findings: list[Finding] = []
    prefixes = tuple(only) if only else None
    for rule_id, r in sorted(load_rules().items()):
        if prefixes and not rule_id.startswith(prefixes):
            continue
        if r.needs and not isinstance(predictions, r.needs):
            continue
        try:
            found = list(r.func(facts, predictions) or [])
            if strict():  # the tests: a rule's declaration must be true
                for f in found:
                    check_declared(r, f)
            findings.extend(found)
        except DiagnoseError:  # bad input (a broken --catalog) or a failed probe: the user must see it
            raise
        except Exception as exc:  # noqa: BLE001 - see docstring
            if strict():
                raise
            findings.append(
                Finding(
                    rule=rule_id,
                    category="other",
                    severity="info",
                    confidence=0.0,
                    title=f"rule {rule_id} failed: {type(exc).__name__}: {exc}",
                    summary="This is a bug in diagnose; the other findings are unaffected.",
                    evidence=[Evidence(source=f"rule:{rule_id}", detail=repr(exc))],
                    fix="Report it with the inputs that triggered it.",
                )
            )
    return sorted(flag_unconfirmed_row(facts, quiet_priors(explain_gaps(corroborate(findings)))), key=Finding.sort_key)


def flag_unconfirmed_row(facts, findings: list[Finding]) -> list[Finding]:
    """A finding that judges with the GPU of a named instance whose systems.toml row no vendor text confirmed says
    so in its evidence: its figures came from that row (a NIC ceiling from the row says so where it is cited)."""
    from rules.common import named_system

    named, gpu = named_system(facts), facts.subject.gpu
    if not named or named[0].confirmed or gpu is None or named[0].gpu != gpu.key:
        return findings
    spec, src, quote = named
    note = Evidence(source=src, detail=f"GPU board and count of the named instance '{quote}' "
                                       f"(rules/catalog/systems.toml: {spec.name}, {spec.cited})", measured=gpu.key)
    for f in findings:
        said = " ".join(f"{e.source} {e.detail} {e.measured} {e.expected}" for e in f.evidence)
        if gpu.key in said and "unconfirmed catalog row" not in said:
            f.evidence.append(note)
    return findings


def quiet_priors(findings: list[Finding]) -> list[Finding]:
    """Drop a symptom prior that says nothing is broken (expected_physics, or healthy when the reporter only
    asks) when another finding names a cause at warning or critical: "nothing shows a broken link or setting"
    would contradict it; and drop "nothing broken" where the symptom's own prior spoke. Rules cannot see
    each other's findings, so this is decided here, where they are combined."""
    fault = any(f.rule not in PRIORS and f.severity in ("warning", "critical") and is_cause(f) for f in findings)
    figures = any(f.rule in FIGURE_CHECKS and (f.is_problem or beyond_band.is_lead(f)) for f in findings)
    prior_spoke = any(f.rule == SYMPTOM_PRIOR for f in findings)
    # the reporter's figure could not be set against an expected one (model, GPU or weights unknown): it may be any
    # distance from physics, so no prior may call it physics or healthy (a verdict needs evidence)
    unjudged = any(f.rule == FIGURE_UNJUDGED for f in findings)
    # (wrong30) a stated loss beyond what physics allows (ticket.loss_beyond_physics, at any severity: within one
    # doubling of the bound it is only info) contradicts "physics predicts this": the prior gives way to the lead
    beyond_physics = any(f.rule == LOSS_BEYOND_PHYSICS for f in findings)

    def quiet(f: Finding) -> bool:
        return f.rule in PRIORS and (((fault or unjudged or beyond_physics) and f.category in NOTHING_BROKEN_FORMS)
                                     or (figures and f.category in FIGURE_ANSWERED)
                                     or (prior_spoke and f.rule != SYMPTOM_PRIOR))

    return [f for f in findings if not quiet(f)]


# A setting or transport that produces a measured symptom (NCCL_P2P_DISABLE=1 puts the all-reduce on
# PCIe or host memory; no CUDA graphs means a CPU launch per kernel). When both are found, the cause
# is what to fix and the measurement is its proof: the cause leads, at the symptom's severity.
# Sources: NCCL environment variables and troubleshooting guides (rules/common.py DOCS nccl_env,
# nccl_trouble), vLLM's CUDA-graph documentation (vllm_graphs).
EXPLAINS = {
    "p2p_disabled": ("pcie_fallback", "shm_fallback", "comm_bound"),
    "shm_fallback": ("pcie_fallback", "comm_bound"),
    "virtualization_no_p2p": ("pcie_fallback", "shm_fallback", "comm_bound"),
    "socket_fallback": ("comm_bound",),
    "eager_mode": ("launch_bound",),
    "throttling": ("straggler",),  # a GPU whose clocks are held down is the rank the others wait for
}


def corroborate(findings: list[Finding]) -> list[Finding]:
    """Each cause in EXPLAINS whose measured symptom was also found takes the symptom's severity
    when that is higher, and the two independent findings' joint confidence (noisy-OR:
    1 - (1-a)(1-b)), so the same evidence gives the same lead in every command. A symptom counts only
    when it carries a measured figure: a setting that forces a slow path (NCCL_PROTO=Simple, read as
    comm_bound) is a cause of its own, not a measurement of another cause (issue 11: a PCIe hang's P2P lead,
    0.5, rose to 0.85 on a protocol setting)."""
    out = []
    for f in findings:
        symptoms = [s for s in findings if s is not f and s.category in EXPLAINS.get(f.category, ())
                    and s.is_problem and s.confidence > 0 and any(_number(e.measured) for e in s.evidence)]
        if not f.is_problem or not symptoms:
            out.append(f)
            continue
        s = max(symptoms, key=lambda x: (SEVERITY_RANK[x.severity], x.confidence))
        joint = round(1 - (1 - f.confidence) * (1 - s.confidence), 2)
        severity = max(f.severity, s.severity, key=SEVERITY_RANK.get)
        out.append(dataclasses.replace(
            f, severity=severity, confidence=max(f.confidence, joint),
            summary=f"{f.summary} The measurement agrees: {sentence_inside(s.title)} ({s.rule}).",
            evidence=f.evidence + s.evidence[:1]))
    return out


def _number(x) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and x > 0


def _band_edges(f: Finding, unit: str | None) -> list[float]:
    """The edges of an expected band ("77-115") that `f` states in `unit`."""
    edges = []
    for e in f.evidence:
        if e.unit == unit and e.measured is None and isinstance(e.expected, str):
            low, sep, high = e.expected.partition("-")
            try:
                edges += [float(low), float(high)] if sep else []
            except ValueError:
                continue
    return [x for x in edges if x > 0]


def shortfall(f: Finding) -> float | None:
    """How many times worse than expected the first measured-vs-expected figure of `f` is (expected /
    measured for a rate, measured / expected for a time), against the band's lenient edge where the
    finding states a band (what lies beyond the band is the gap to account for); None when it meets it. A figure beyond
    the band (rules.beyond_band) is the size its title states, past the edge it was judged by."""
    if beyond_band.is_lead(f):
        return beyond_band.size(f)
    for e in f.evidence:
        if _number(e.measured) and _number(e.expected):
            time = (e.unit or "").lower() in ("s", "ms", "us", "µs")
            edges = [e.expected] + _band_edges(f, e.unit)
            factor = e.measured / max(edges) if time else min(edges) / e.measured
            return factor if factor > 1 else None
    return None


def is_gap(f: Finding) -> bool:
    """A finding that only measures a gap ("slower than expected", "busbw low") without placing it: a symptom. Two of
    the reporter's own runs that differ in one thing (FIGURE_AB: two releases of the engine) place their gap in that
    thing, which nothing the two runs share explains (sgl-project/sglang#7568: a GeForce board without P2P ran both
    releases)."""
    return f.category == "other" and (f.is_problem or beyond_band.is_lead(f)) and f.confidence > 0 \
        and shortfall(f) is not None and not _figure_ab(f)


def explain_gaps(findings: list[Finding]) -> list[Finding]:
    """A finding that only measures a gap (is_gap) is a symptom; a finding whose mechanism predicts a
    slowdown of that size (a release comparison, eager mode, P2P off, SHM, sockets, a PCIe fallback, a
    throttle: rules/catalog/gap_costs.toml) is its explanation. The explanation decides: it takes the gap's
    severity and their joint confidence (noisy-OR) and carries the gap as evidence, and the gap stays as an
    info note. A mechanism that cannot account for the gap's size (eager mode beside a 20x shortfall) is
    only part of it, and says so: below a gap that warns it drops to an info lead under that gap; beside a figure
    beyond the band (an info lead) it keeps its severity, so eager mode at 20 tok/s exits as it does at 40.
    The same rule for every category, decided here where the findings are combined, so every command gives
    the same verdict and exit code on the same evidence."""
    gaps = [(g, shortfall(g)) for g in findings if is_gap(g)]
    costs = catalog.gap_costs() if gaps else {}
    weighed: dict[int, Finding] = {}
    explained: dict[int, Finding] = {}
    for f in findings:
        most = costs.get(f.category)
        if most is None or not f.is_problem or f.confidence <= 0 or priced_in(f):
            continue
        fitting = [(g, k) for g, k in gaps if k <= most]
        if fitting:
            g, k = max(fitting, key=lambda x: (SEVERITY_RANK[x[0].severity], x[0].confidence))
            weighed[id(f)] = dataclasses.replace(
                f, severity=max(f.severity, g.severity, key=SEVERITY_RANK.get),
                confidence=max(f.confidence, round(1 - (1 - f.confidence) * (1 - g.confidence), 2)),
                summary=f"{f.summary.rstrip()} It accounts for the measured gap: {sentence_inside(g.title)} ({g.rule}, "
                        f"{k:.1f}x; {f.category} costs up to {most:g}x).",
                evidence=f.evidence + g.evidence[:1])
            for g, _ in fitting:
                explained.setdefault(id(g), f)
        else:
            g, k = max(gaps, key=lambda x: (SEVERITY_RANK[x[0].severity], x[0].confidence))
            partial = f"{f.summary.rstrip()} It cannot account for the measured gap alone: " \
                      f"{sentence_inside(g.title)} ({g.rule}) is {k:.1f}x, and {f.category} costs at most {most:g}x; " \
                      "something else costs the rest."
            # below a gap that warns the cause is a lead under it; beside a figure beyond the band (rules.beyond_band,
            # an info lead) it keeps its own severity and confidence: a worse figure never earns a milder exit code
            weighed[id(f)] = dataclasses.replace(lead_below(f, g.confidence), summary=partial) \
                if g.is_problem else dataclasses.replace(f, summary=partial)
    out = []
    for f in findings:
        if id(f) in explained:
            e = explained[id(f)]
            f = dataclasses.replace(f, severity="info",
                                    summary=f"{f.summary.rstrip()} Explained by {e.rule} ({e.category}).")
        out.append(weighed.get(id(f), f))
    return out


def priced_in(f: Finding) -> bool:
    """A cause the expected figure already holds, so no gap beyond that figure is its doing: a board whose stock
    driver refuses PCIe P2P (the symptom prior's p2p_disabled, catalog pcie_p2p = false) is predicted with its
    all-reduce staged through host memory (rules.collectives.peer_to_peer), so a figure below that band has another
    cause (sgl-project/sglang#7568: 2x RTX 4090, 20 tok/s against a 28-61 band that is already NCCL over SHM)."""
    return f.rule == SYMPTOM_PRIOR and f.category == "p2p_disabled"


def sentence_inside(title: str) -> str:
    """A title quoted mid-sentence: its first word lower-cased only when it is an ordinary word
    ("All-reduce" -> "all-reduce"); an acronym or identifier ("TP8", "NCCL_P2P_DISABLE", "nvidia-smi") stays."""
    word = title.split(" ", 1)[0]
    if word[:1].isupper() and word[1:].islower() and word.replace("-", "").isalpha():
        return title[0].lower() + title[1:]
    return title


# Inventory observations (where the GPUs sit, which TP groups a box serves well): context for the
# other findings, never a root cause by themselves.
# (warnings33) and an engine's notice of what the box is (rules/engine_notices.py): the same line prints on every
# healthy box of that kind
CONTEXT_ONLY = ("node.numa_placement", "node.tp_groups", "ticket.engine_notice_context")


def is_cause(f: Finding) -> bool:
    """Can this finding be the verdict? Problems, and explanations such as expected_physics."""
    if f.severity == "ok" or f.category in ("healthy", "insufficient_data") or f.rule in CONTEXT_ONLY:
        return False
    return not (f.severity == "info" and f.category == "other") or beyond_band.is_lead(f)


# Passes weaker than this (configuration checks only) do not make a bundle "healthy".
WEAK = 0.5
# (issue 11) Checks of a setting the user chose (a launch flag, the layout against the model or the node): their pass
# says the setting is fine, which moves a prior, and is no finding about the system, so it never makes "healthy" alone
# (a bare launch line with CUDA graphs on is no evidence that nothing is wrong).
SETTING_CHECKS = ("workload.",)
# Informational findings that are conclusions in their own right; other info-level causes are
# leads, and a check that could not run outranks them.
CONCLUSIONS = ("expected_physics",)
# Causes that read a figure as what the hardware gives (a small batch's throughput is physics too).
PHYSICS_READINGS = ("expected_physics", "latency_bound_small_batch")
# What a prior says when nothing is broken: any fault found contradicts both forms (rules.engine.quiet_priors).
NOTHING_BROKEN_FORMS = (*CONCLUSIONS, "healthy")


# The basic artifacts of a multi-GPU ticket, as a reporter is asked for them.
TOPO_MATRIX = "`nvidia-smi topo -m`"
SMI_QUERY = "`nvidia-smi -q`"
NCCL_LOG = "the NCCL_DEBUG=INFO output of one all_reduce_perf run on the affected GPUs"


def ticket_gaps(facts) -> list[str]:
    """The basic artifacts (TOPO_MATRIX, SMI_QUERY, NCCL_LOG) whose facts the ticket does not hold; of a cut
    `nvidia-smi -q` paste, only the sections it lacks (smi_gap)."""
    from diagnose.evidence import CollectiveResult, NcclEvent, NcclTransport, TopologyPath

    held = {TOPO_MATRIX: facts.of(TopologyPath),
            NCCL_LOG: (facts.of(NcclEvent) + facts.of(NcclTransport)
                       + facts.printed_nccl_versions()
                       + facts.of(CollectiveResult))}
    gaps = [ask for ask, records in held.items() if not records]
    from rules.common import wsl_signs
    if TOPO_MATRIX in gaps and wsl_signs(facts):
        # (left29) under WSL 2 `nvidia-smi topo -m` shows no topology (weicj/vLLM-2080Ti-Definitive#114: "wsl里面这个
        # 命令输出不正常，不显示拓扑结构"): NCCL's own lines of a run (NCCL_LOG, asked where not held) say how the GPUs
        # reach each other there
        gaps.remove(TOPO_MATRIX)
    smi = smi_gap(facts)
    return gaps[:1] + [smi] + gaps[1:] if smi else gaps


def smi_gap(facts) -> str | None:
    """What to ask of `nvidia-smi -q`: all of it when no part of one is attached, else the sections the checks read
    (PCIe link, power, clock event reasons) that are missing, by name; None when all are there. Which sections a GPU's
    record holds is GpuFact.held_sections' answer alone."""
    from diagnose.evidence import SMI_SECTIONS, GpuFact

    gpus = facts.of(GpuFact)
    held = {s for g in gpus for s in g.held_sections()}
    if not held and not any(g.smi_sections for g in gpus):
        return SMI_QUERY  # no -q paste at all, and no source gave a section's figures
    missing = [s for s in SMI_SECTIONS if s not in held]
    if not missing:
        return None
    names = ", ".join(missing[:-1]) + " and " + missing[-1] if len(missing) > 1 else missing[0]
    return f"the {names} section{'s' if len(missing) > 1 else ''} of {SMI_QUERY}"


# (ask25, issue 11) The artifact that settles each symptom class in the threads that settled (development tickets,
# tests/data/ask25/audit.md): a hang is placed by the stuck ranks' stacks and the kernel's Xid lines, not a topology;
# an error by its whole output and the versions that produced it; a speed question by the exact launch and benchmark
# (engine, batch, quantisation, CUDA graphs) that made the figure; a scaling question by the same benchmark at the
# smaller layout beside it. vLLM's and NCCL's issue templates ask for the same (collect_env, the full log).
_ERROR_ASK = ("the complete error output of the failing run (the traceback and the lines before it, NCCL_DEBUG=INFO "
              "set) and `python -m torch.utils.collect_env` (PyTorch, NCCL, CUDA and driver versions) with the "
              "engine's version")
_SPEED_ASK = ("the exact launch line and benchmark command with the figures it printed (engine and version, batch "
              "or concurrency, quantisation, CUDA graphs on or off)")
# ... and for a collective benchmark (nccl-tests) whose figures the ticket does not hold as text (a screenshot, a linked
# log: NVIDIA/nccl-tests#19, NVIDIA/nccl#325): its table and command, which no engine, batch or CUDA graph describes.
_COLLECTIVE_ASK = ("the nccl-tests output as text (the command line and the whole table it printed, not a screenshot) "
                   "with NCCL_DEBUG=INFO set")
_NCCL_TESTS_NAMED = re.compile(r"\b(?:all_reduce|all_gather|reduce_scatter|alltoall|sendrecv|broadcast)_perf"
                               r"(?:_mpi)?\b|\bnccl-tests\b", re.I)  # (left27) an MPI build's suffix too
LINK_METRICS = ("busbw_gbs", "algbw_gbs", "h2d_gbs", "d2h_gbs")
# A stuck nccl-tests binary (all_reduce_perf, a C/CUDA program: https://github.com/NVIDIA/nccl-tests) has no Python
# stack for py-spy to read; gdb's backtrace of every thread shows whether it waits in NCCL's init or in a collective,
# and NCCL's own INFO log the step it reached (NVIDIA/nccl-tests#200: a multi-node all_reduce_perf hang).
NCCL_TESTS_HANG_ASK = ("the NCCL_DEBUG=INFO output (NCCL_DEBUG_SUBSYS=INIT,NET) of the stuck all_reduce_perf up to "
                       "where it stops, `gdb -p <pid> -batch -ex 'thread apply all bt'` of it on each node, "
                       "`dmesg | grep -i xid` from the time of the hang, and the NCCL, driver and (across nodes) "
                       "MLNX_OFED / HPC-X versions of every node")
NCCL_TESTS_ERROR_ASK = ("the complete output of the failing all_reduce_perf with NCCL_DEBUG=INFO "
                        "(NCCL_DEBUG_SUBSYS=INIT,NET), and the NCCL, driver and (across nodes) MLNX_OFED / HPC-X "
                        "versions of every node")
# (ask30) A hang of a job whose NCCL has spoken in the ticket (its version line, some INFO lines, "stuck at init
# nccl"): NCCL's own INFO log, whole, says which step of init or which collective the ranks reached and which NCCL_*
# settings it read, the environment's and /etc/nccl.conf's (NCCL user guide, Environment Variables and
# Troubleshooting); a quoted excerpt or the version line alone places nothing (pytorch/pytorch#7019: /etc/nccl.conf in
# the image; vllm-project/vllm#6370: an init log cut before the hang).
NCCL_HANG_ASK = ("the whole NCCL_DEBUG=INFO output (NCCL_DEBUG_SUBSYS=INIT,NET) of the stuck run up to where it stops, "
                 "not an excerpt, with a `py-spy dump` of each stuck process, `dmesg | grep -i xid` from the time of "
                 "the hang, and the launch line with `python -m torch.utils.collect_env` (engine, NCCL and driver "
                 "versions)")
SYMPTOM_ASKS = {
    "hang": ("a `py-spy dump` of each stuck process, `dmesg | grep -i xid` from the time of the hang, and the launch "
             "line with `python -m torch.utils.collect_env` (engine, NCCL and driver versions)"),
    "crash": _ERROR_ASK,
    "error": _ERROR_ASK,
    "slow": _SPEED_ASK,
    "normal?": _SPEED_ASK,
    "scaling": ("the same benchmark at the smaller layout (one GPU, or the TP that scaled) beside the larger one, "
                "with each launch line"),
}


# (left26) A slowdown since an update that names no release ("slower since update", "after latest changes"): the two
# releases settle it, each with the same benchmark, as a release A/B (ticket.engine_versions) is read.
UPDATE_ASK = ("the release (or image tag) before the update and the one after it (`pip show <package>`, `docker "
              "images`), and the same benchmark's figures on each with its launch line")


# (ask30) Works on one machine, not on another (claims.machine_ab): the difference between the two machines decides it,
# so the same versions and topology are asked of both (ggml-org/llama.cpp#3772: driver 545 on one box, 535 the other).
MACHINE_AB_ASK = ("from both machines, the one where it works and the one where it does not: the driver (`nvidia-smi`"
                  "), `python -m torch.utils.collect_env` (PyTorch, CUDA and NCCL), the engine's version and launch "
                  "line, and `nvidia-smi topo -m`, so the difference between them shows")


def symptom_ask(facts) -> str | None:
    """What would settle this ticket's kind of question (SYMPTOM_ASKS), asked before the general artifacts; None for
    a ticket with no class or one that already holds it (a launch line that states engine, batch and CUDA graphs)."""
    from diagnose.evidence import CollectiveResult, Measurement, Workload
    from rules import claims

    said = _ticket_symptom(facts)
    if claims.machine_ab(facts):
        return MACHINE_AB_ASK
    if said in ("slow", "normal?", "scaling", "other") and claims.update_without_release(facts):
        return UPDATE_ASK
    if said in ("slow", "normal?", "scaling") and (facts.of(CollectiveResult) or any(
            m.metric in LINK_METRICS for m in facts.of(Measurement))):
        return None  # a link or collective bandwidth is decided by the path (topology, NCCL log), not an engine launch
    if said in ("slow", "normal?") and any(w.framework and (w.batch or w.concurrency) and w.eager is not None
                                           for w in facts.of(Workload)):
        return None
    if said in ("slow", "normal?") and (any(w.framework == "nccl-tests" for w in facts.of(Workload)) or any(
            _NCCL_TESTS_NAMED.search(text) for _, text in claims.texts(facts))):
        return _COLLECTIVE_ASK
    if said == "scaling" and (len({w.tp or w.gpu_count for w in facts.of(Workload)} - {None}) > 1
                              or len(claims.rates_by_layout(facts)) > 1):
        return None  # two layouts already stated, or a rate at each in the reporter's words
    frameworks = {w.framework for w in facts.of(Workload)} - {None}
    if said == "hang" and frameworks == {"nccl-tests"}:
        return NCCL_TESTS_HANG_ASK  # (ut26b) no Python to dump: py-spy reads a Python interpreter's stacks only
    if said in ("crash", "error") and frameworks == {"nccl-tests"}:
        return NCCL_TESTS_ERROR_ASK  # (ut26b) nor a PyTorch to describe: torch's collect_env says nothing of it
    if said == "hang" and nccl_spoke(facts):
        return NCCL_HANG_ASK
    return SYMPTOM_ASKS.get(said)


def nccl_spoke(facts) -> bool:
    """Has the job's NCCL shown itself in the ticket: a version line it printed (not one derived from a package), any
    INFO line, or the reporter's word that it is stuck at NCCL's init?"""
    from diagnose.evidence import NcclEvent, NcclTransport
    from rules import claims

    return bool(facts.of(NcclEvent) or facts.of(NcclTransport)
                or facts.printed_nccl_versions()
                or any(not c.guess for c in claims.find(facts, "nccl_init_stuck")))


_COMMAND = re.compile(r"`([^`]+)`")


def without_repeats(asks: list[str]) -> list[str]:
    """The asks in order, less each whose first command an earlier ask already names (a lead asks for
    `nvidia-smi topo -m` with its own reason; the coverage check's ask for the same command adds nothing)."""
    kept, named = [], set()
    for ask in dict.fromkeys(asks):
        commands = _COMMAND.findall(ask)
        if commands and commands[0] in named:
            continue
        kept.append(ask)
        named.update(commands)
    return kept


def fallback_ask(kind: str, facts) -> str | None:
    """What to ask for when no check named its own gap, worded for the report kind and never for
    what the facts already hold: a ticket asks the reporter for artifacts; a node run says which of
    its checks have no measurement and how to run them. None: nothing sensible to ask."""
    from diagnose.evidence import (
        CollectiveResult,
        Measurement,
        PairBandwidth,
    )

    if kind == "ticket":
        from rules.claims import other_vendor
        from rules.common import one_gpu_job

        if getattr(facts, "subject", None) is not None and other_vendor(facts):
            # (ut28f) another vendor's accelerator: nvidia-smi, its topology and NCCL see none
            return None
        wanted = ticket_gaps(facts)
        if one_gpu_job(facts):  # one GPU: no links or NCCL to show, only the GPU's own state
            wanted = [w for w in wanted if SMI_QUERY in w]
        return "attach " + ", ".join(wanted) if wanted else None
    if kind == "node":
        unmeasured = [check for check, records in (
            ("the collective sweep (nccl.busbw, node.small_message_latency)",
             facts.of(CollectiveResult)),
            ("the P2P copies (topology.pair_bandwidth)", facts.of(PairBandwidth)),
            ("the HBM and GEMM rates (node.hbm_below_catalog, node.gemm_below_catalog)", facts.of(Measurement)))
            if not records]
        if unmeasured:
            return (f"these checks have no measurement: {'; '.join(unmeasured)}. Run `diagnose node --standard` on "
                    "the machine (add `--record node.json` to replay it elsewhere)")
    return None


def node_verdict(facts, findings: list[Finding]) -> Verdict:
    """The verdict for a node run: when no check decides, which checks have no measurement."""
    return verdict(findings, facts.missing, fallback=fallback_ask("node", facts))


# Categories that explain a slow system, not a hang, crash or error: for a ticket that reports a
# failure they are context, and the verdict comes from the other causes when there are any.
PERFORMANCE_ONLY = ("eager_mode", "latency_bound_small_batch", "expected_physics", "launch_bound", "comm_bound",
                    "pp_bubble", "host_bound", "numa_affinity", "pcie_fallback")
FAILURES = ("hang", "crash", "error")
# Symptoms no passed check answers: something stopped or died ("error" also covers questions that quote a
# warning, which a passed check can answer).
NEVER_HEALTHY = ("hang", "crash")
COMPLAINTS = (*FAILURES, "slow", "scaling")
# Checks whose pass answers a performance complaint (they measure the figure complained about):
# other passes (a setting that is fine, a link that is up) do not make a complaint "healthy".
ANSWERS_COMPLAINT = ("ticket.", "nccl.busbw", "topology.pair_bandwidth",
                     "workload.latency_bound_small_batch", "scaling.")
# Rules that only state the symptom class's prior: any check that answers the question outweighs them.
# The symptom's own prior gives the layout's reasons: where it speaks, the weaker "nothing broken" gives way.
SYMPTOM_PRIOR = "ticket.symptom_prior"
FIGURE_UNJUDGED = "ticket.figure_unjudged"  # a reporter's figure no expected figure could be set against
MESSAGE_ONLY = "ticket.message_only"  # the run said to work, only a message asked about (rules.ticket_questions)
LOSS_BEYOND_PHYSICS = "ticket.loss_beyond_physics"  # a stated loss larger than the worst healthy layout gives
PRIORS = (SYMPTOM_PRIOR, "ticket.nothing_broken", "ticket.scaling_question")
# Checks that read the reporter's own figures or setup against what the hardware should give: when one finds
# more than physics, the prior's "nothing points at a fault" and its PCIe-without-P2P ceiling give way to it.
FIGURE_CHECKS = ("ticket.measured_vs_expected", "ticket.latency_vs_expected", "ticket.batched_rate",
                 "ticket.vm_pcie_slow")
FIGURE_ANSWERED = ("expected_physics", "p2p_disabled")
MEASURED = ("nccl.busbw", "topology.pair_bandwidth")


# (issue 11 u) "insufficient_data means nothing favours any category": on a ticket, an info-level cause that is not a
# conclusion (a prior about the layout, a cause the gap weighing found too small alone) beside open gaps is the
# verdict, at this confidence at most (below 0.5: a lead, never a confident answer), with what to attach next beside
# it. Measured on the development and shared tickets (2026-12-02, /tmp/q11u): of 24 insufficient_data verdicts, 23
# had no cause at any severity (they stay insufficient_data) and the one weak lead was the label; of every case's
# best info-level lead, 4 of 5 were right, and the wrong one sat below a measured figure that fits, which outranks it.
# Other commands keep such a lead behind the gap: no figures for them.
WEAK_LEAD = 0.45
# A lead its own rule rates below this says the evidence leans against it (ticket.hang_on_pcie at 0.25 when switching
# P2P off did not cure the hang): it stays a lead behind insufficient_data. Rules' favouring leads sit at 0.4-0.6.
LEAD_FLOOR = 0.4
LEAD_SAYS = "Weak lead:"  # how a weak lead's verdict opens (rules.engine.verdict_class reads it)


def verdict(findings: list[Finding], missing: Iterable[str] = (), symptom: str | None = None,
            fallback: str | None = None, verb: str = "attach", weak_lead: float | None = None,
            first_ask: str | None = None) -> Verdict:
    """The single most likely root cause, or healthy, or insufficient_data with what to attach.

    `symptom` (a ticket's class: hang, crash, error, scaling, normal?, slow; None elsewhere) weighs
    the causes: a failure is not explained by a performance-only category when another cause is
    present, and only checks that measured the complained-about figure can answer a complaint.
    `fallback` (fallback_ask) is what to ask for when no finding names a gap of its own. `verb`
    asks for each gap: a ticket's reporter attaches files; a capture's user collects them. `weak_lead` (WEAK_LEAD,
    tickets): an info-level lead beside gaps is the verdict at that confidence at most, not insufficient_data.
    `first_ask` (symptom_ask, tickets): what settles the ticket's kind of question, first unless a lead has its own.
    """
    causes, passed, answered = _weighed(findings, symptom)
    gaps = [f for f in findings if f.category == "insufficient_data"]
    # a ticket keeps each gap's own fix; elsewhere the ask, under the command's verb
    requests = [f.fix for f in gaps if f.fix] if verb == "attach" else [f"{verb} {f.ask}" if f.ask else f.fix
                                                                        for f in gaps if f.fix or f.ask]
    requests += [f"{verb} {m}" for m in missing if m]
    lead = ""
    blocking = next((g for g in gaps if g.severity == "critical"), None)
    if blocking and not any(f.severity == "critical" for f in causes):
        # a gap that keeps every check of the subject from running (no GPU answered) ranks first and leads
        return Verdict("insufficient_data", 0.0, f"{blocking.title}: {blocking.summary} Next: {blocking.fix}")
    if causes:
        top = causes[0]
        lead_only = top.severity == "info" and top.category not in CONCLUSIONS
        # a lead its rule rates below LEAD_FLOOR leans against its category: never the verdict, gaps or none; a
        # figure beyond the band (rules.beyond_band) is the verdict as a weak lead in every command
        if not (lead_only and (gaps or top.confidence < LEAD_FLOOR or beyond_band.is_lead(top))):
            # (ut27f) not a lead its own rule rates below LEAD_FLOOR: it leans against its category ("A hang under
            # Nsight Compute: the profiler, not the path between the GPUs" is no p2p_disabled also seen)
            others = [f.category for f in causes[1:] if f.category != top.category
                      and not (f.severity == "info" and f.confidence < LEAD_FLOOR)]
            also = f" Also seen: {', '.join(dict.fromkeys(others))}." if others else ""
            return Verdict(top.category, round(top.confidence, 2), f"{top.title}.{also}")
        lead = f" Weak lead so far: {top.title} ({top.category})."
    if any(beyond_band.is_lead(f) for f in causes) or any(f.rule == LOSS_BEYOND_PHYSICS for f in findings):
        passed = []  # a figure beyond the band, or a loss beyond physics, that nothing places: no pass answers it away
    best = max((f.confidence for f in passed if not f.rule.startswith(SETTING_CHECKS)), default=0.0)
    if passed and symptom in ("slow", "scaling") and all(f.rule.startswith(MEASURED) for f in passed) and best >= WEAK:
        checks = ", ".join(dict.fromkeys(f.rule for f in passed))
        return Verdict("expected_physics", round(min(best, 0.7), 2),
                       f"The measured figures are what this hardware delivers; checks that passed: {checks}.")
    if passed and not gaps and best >= WEAK:
        checks = ", ".join(dict.fromkeys(f.rule for f in passed))
        return Verdict("healthy", round(best, 2), f"No problem found; checks that passed: {checks}.")
    # a speed complained of whose figure no check could judge (ticket.figure_unjudged) is not answered by a check of
    # something else passing: the gaps are asked for, no "no problem found"
    unjudged = symptom in ("slow", "scaling") and any(g.rule == "ticket.figure_unjudged" for g in gaps)
    if passed and not lead and best >= WEAK and not unjudged:
        conf = min(0.6, max(f.confidence for f in passed))
        return Verdict(
            "healthy",
            round(conf, 2),
            "No problem found in what was given, but some checks could not run: "
            + "; ".join(dict.fromkeys(requests)),
        )
    # what would show the cause a lead points at comes first, standing in for the question kind's (the more specific)
    first = [f"{verb} {top.ask}"] if lead and top.ask else [f"{verb} {first_ask}"] if first_ask else []
    ask = "; ".join(without_repeats(first + (requests or ([fallback] if fallback else []))))
    weak_lead = WEAK_LEAD if causes and beyond_band.is_lead(top) else weak_lead
    if lead and weak_lead is not None and top.confidence >= LEAD_FLOOR:  # a lead favours its category, weakly
        return Verdict(top.category, round(min(top.confidence, weak_lead), 2),
                       f"{LEAD_SAYS} {top.title}. Not enough evidence to be sure."
                       f"{f' What to attach next: {ask}.' if ask else ''}")
    return Verdict("insufficient_data", 0.0, f"Not enough evidence to decide.{f' Next: {ask}.' if ask else ''}{lead}")


def _weighed(findings: list[Finding], symptom: str | None) -> tuple[list[Finding], list[Finding], float]:
    """The causes ranked for `symptom` (none when a passed check outweighs the prior that leads them), the
    passed checks that count for it, and the confidence of the best one that answers the complaint."""
    # a figure beyond the band (rules.beyond_band) contradicts a physics reading of the ticket's figures: among leads
    # of one severity it ranks before "that is the batch / the physics" (fastchat#2746: 0.2 tok/s at TP4 beside a
    # 700 tok/s batch total)
    beyond = any(beyond_band.is_lead(f) for f in findings)

    def rank(f: Finding):
        demoted = symptom in FAILURES and (f.category in PERFORMANCE_ONLY or is_gap(f))  # a shortfall is speed
        severity, *rest = Finding.sort_key(f)
        return (demoted, severity, beyond and f.category in PHYSICS_READINGS, *rest)

    causes = sorted((f for f in findings if is_cause(f)), key=rank)
    passed = [f for f in findings if f.severity == "ok"]
    if any(f.rule == MESSAGE_ONLY for f in passed):
        # (healthy40) the reporter says the run works and asks about a message, with no speed called short and no
        # figure: a cause that only explains speed (read off the launch settings) answers a question no one asked
        causes = [f for f in causes if f.category not in PERFORMANCE_ONLY or f.severity == "critical"]
    if symptom in COMPLAINTS:  # only checks that answer what the reporter complains of
        passed = [f for f in passed if f.rule.startswith(ANSWERS_COMPLAINT)]
    if symptom in NEVER_HEALTHY:  # links up or a setting fine does not explain a hang or a crash away
        passed = []
    answered = max((f.confidence for f in passed if f.rule.startswith(ANSWERS_COMPLAINT)), default=0.0)
    if causes and causes[0].rule in PRIORS and answered > causes[0].confidence:
        causes = []  # a check that answers the question outweighs the symptom's prior
    return causes, passed, answered


def _ticket_symptom(facts) -> str | None:
    from rules.claims import complaint, symptom

    said = symptom(facts)
    if said not in COMPLAINTS and complaint(facts):
        # "only 235 GB/s, is that normal?", "far from official, how to fix that?": a complaint however it is asked;
        # matching numbers make it physics, a setting check that passed does not answer it
        said = "slow"
    return said


def ticket_findings(facts, findings: list[Finding]) -> list[Finding]:
    """The findings a ticket reports, weighed as its verdict weighs them (fits_first, and a prior that a passed
    check outweighs), so their severities and the exit code say what the verdict says: a cause the weighing set
    aside stays in the report as an info lead below the check that outweighed it."""
    findings = _ticket_order(facts, findings)
    causes, _, answered = _weighed(findings, _ticket_symptom(facts))
    if causes or not any(is_cause(f) for f in findings):
        return findings
    return [lead_below(f, answered) if is_cause(f) and SEVERITY_RANK[f.severity] > SEVERITY_RANK["info"] else f
            for f in findings]


def _ticket_order(facts, findings: list[Finding]) -> list[Finding]:
    """The findings as a ticket's verdict and report both weigh them: one reading each, a cause the figures fit first,
    then a change between builds and a refusal before any GPU traffic above the layout the reporter chose, and a
    limit of the boards or their path above the inventory of unlike boards."""
    return board_limit_first(shared_setting_context(
        facts, refusal_first(facts, change_first(fits_first(facts, one_reading(findings))))))


def ticket_verdict(facts, findings: list[Finding]) -> Verdict:
    """The verdict for a ticket: the findings weighed by the symptom its reporter describes. Its confidence is at
    least the development share right of its evidence class (verdict_class, catalog.verdict_levels) but never past
    the line when everything behind it is the reporter's own prose or a base rate, and at most CONTESTED beside a
    rival cause."""
    weighed = _ticket_order(facts, findings)
    v = verdict(weighed, getattr(facts, "missing", ()), _ticket_symptom(facts), fallback_ask("ticket", facts),
                weak_lead=WEAK_LEAD, first_ask=symptom_ask(facts))
    kind = verdict_class(facts, findings, v)
    line, levels = catalog.verdict_levels()
    if kind in levels:  # at least the share right of its evidence class on development, never past the line
        v = dataclasses.replace(v, confidence=round(max(v.confidence, levels[kind]), 2))
    if kind in ("words", "prior") and v.confidence > line:  # prose or a base rate alone is never a confident answer
        v = dataclasses.replace(v, confidence=line)
    rival = contested(weighed, v.category)
    if v.confidence > CONTESTED and rival:
        return dataclasses.replace(v, confidence=CONTESTED, summary=f"{v.summary} Not sure: {rival.title} "
                                   f"({rival.category}, {rival.confidence:.2f}) explains the ticket another way.")
    return v


def verdict_class(facts, findings: list[Finding], v: Verdict) -> str | None:
    """The class of the evidence behind a ticket verdict (rules/catalog/verdict_confidence.toml): `lead` (a weak lead
    beside open gaps), `prior` (only the symptom's base rate, no check of this system), `words` (every piece of
    evidence the reporter's prose), `passes` (healthy or physics from checks that passed), `artifact` (a cause with a
    parsed artifact or tool output behind it); None for insufficient_data."""
    if v.category == "insufficient_data":
        return None
    if v.summary.startswith(LEAD_SAYS):
        return "lead"
    behind = [f for f in findings
              if f.category == v.category and f.confidence > 0 and (is_cause(f) or f.severity == "ok")]
    if behind and all(f.rule in PRIORS for f in behind):
        return "prior"
    if not any(is_cause(f) and f.category == v.category for f in findings):
        return "passes"
    return "words" if words_only(facts, findings, v.category) else "artifact"


# The most a verdict may claim while another cause of another category stands beside it at warning or worse with a
# fair confidence (RIVAL): two explanations of one ticket, each from its own evidence, leave neither sure ("confidently
# wrong" counts verdicts from 0.7 up, benchmarks/ticket_accuracy.py).
CONTESTED = 0.65
RIVAL = 0.5


def contested(findings: list[Finding], category: str) -> Finding | None:
    """The strongest cause of another category than `category` at warning or worse and at least RIVAL, if any."""
    # (comm_bound, time spent communicating, is what every slow transport shows: a symptom, no rival to it)
    rivals = [f for f in findings if is_cause(f) and f.category != category
              and f.category not in (*CONCLUSIONS, "comm_bound")
              and SEVERITY_RANK[f.severity] >= SEVERITY_RANK["warning"] and f.confidence >= RIVAL]
    return max(rivals, key=lambda f: f.confidence, default=None)


# Checks that set a figure the reporter measured against the expected band of the hardware (or its
# datasheet arithmetic): their expected_physics says the measurement fits.
FIGURE_FITS = ("ticket.measured_vs_expected", "ticket.latency_vs_expected", "ticket.batched_rate", "ticket.link_figure",
               "ticket.bridge_figure", "ticket.pcie_figure", "ticket.layer_split_rate", "ticket.speedup_vs_expected",
               "ticket.ttft_vs_expected", "ticket.copy_figure", "ticket.host_copy_figure",
               "ticket.device_memory_figure", "ticket.ttft_under_load", "ticket.sparse_peak")


# (issue 11 s) Checks that set two of the reporter's own runs against each other on the same system (two releases
# of the engine, a run bound to one NUMA node and one unbound): when their evidence carries both figures, the
# difference is measured, not a keyword, and one run fitting its band does not explain the other.
FIGURE_AB = ("ticket.engine_versions", "ticket.numa_words")


def _figure_ab(f: Finding) -> bool:
    return f.rule in FIGURE_AB and any(e.measured is not None and e.expected is not None for e in f.evidence)


# (issue 11, s17) The figure a release comparison tells of the older release alone ("on 0.12 I achieved 6200
# tokens/s; since upgrading it is very poor"): the setup before the change, not the slow run.
RELEASE_BEFORE = "the release before the change"


def _before_change(findings: list[Finding]) -> set:
    """The figures release comparisons tell of the older release alone (RELEASE_BEFORE), as the reporter wrote them
    (a fit states the same value in its own unit's spelling: "tok/s" for "tokens/s")."""
    return {e.measured for f in findings if f.rule in FIGURE_AB
            for e in f.evidence if e.measured is not None and e.detail.endswith(RELEASE_BEFORE)}


# (review38) A catalog error message the ticket quotes (rules/catalog/engine_errors.toml) is the failure itself, not a
# keyword: a figure that fits its band says the run was as fast as it should be while it ran, not why it stopped
# ("slow, then CUDA error: out of memory" is answered by the out-of-memory, not by the speed that fits).
FAILURE_MESSAGES = ("ticket.known_error",)


def fits_first(facts, findings: list[Finding]) -> list[Finding]:
    """A measured figure that fits the expected band outranks a cause whose every piece of evidence is the
    reporter's prose (a keyword, an inventory line, a guess), and a weaker prior about the layout: such a cause stays
    in the report as a lead, at the fit's level less a step, and keeps the lead only where a parsed artifact shows
    it. An A/B of the reporter's own figures (FIGURE_AB) is not demoted, nor outranked by a fit of the figure it tells
    of the release before the change."""
    before = _before_change(findings)  # a fit of the release before the change says nothing of the slow run
    fits = [f for f in findings if f.rule in FIGURE_FITS and f.category in CONCLUSIONS and f.confidence > 0
            and not ({e.measured for e in f.evidence if e.measured is not None} & before)]
    if not fits:
        return findings
    best = max(f.confidence for f in fits)
    # a figure below its band's low edge fits only through the slack a prose figure is read with (the way it was
    # timed); how far below is the shortfall a mechanism the ticket shows may explain instead
    short = max((shortfall(f) or 0 for f in fits if f.confidence >= best), default=0)

    def outranks_on_words(f: Finding) -> bool:
        return (is_cause(f) and f.category not in CONCLUSIONS and f.rule not in FIGURE_FITS and not _figure_ab(f)
                and f.rule not in FAILURE_MESSAGES
                and (SEVERITY_RANK[f.severity] > SEVERITY_RANK["info"] or f.confidence >= best)
                and (words_only(facts, [f], f.category) or prior_below(f)) and not accounts_for_shortfall(f))

    def accounts_for_shortfall(f: Finding) -> bool:
        # a mechanism explains that shortfall better than the timing (a setting the calibrated band assumes absent:
        # eager mode, 26 tok/s against 30-48) only where it is seen (observed), where the run's layout can pay it
        # (a cost between GPUs is none of a one-GPU run's) and where it costs at least that much: both factors are
        # expected / measured (rules/catalog/gap_costs.toml max_slowdown, shortfall)
        most = catalog.gap_costs().get(f.category)
        return short > 1 and most is not None and f.rule not in PRIORS and most >= short and observed(facts, f) \
            and not (f.category in catalog.gap_costs_between_gpus() and one_gpu_run(facts))

    def prior_below(f: Finding) -> bool:
        # a prior about the layout (GeForce boards without P2P) says what usually holds; a figure that fits says what
        # holds here, at a higher confidence (issue 11 r)
        return f.rule in PRIORS and f.confidence < best

    return [lead_below(f, best) if outranks_on_words(f) else f for f in findings]


def lead_below(f: Finding, above: float) -> Finding:
    """f kept in the report as an info lead under a finding of confidence `above` that outweighs it."""
    return dataclasses.replace(f, severity="info", confidence=round(min(f.confidence, above - 0.05), 2))


# Findings that a slowdown between two builds of one setup is that change's: releases or a code change of the engine,
# or PyTorch (whose wheels pin their NCCL), or the driver, compared by the reporter; the setup otherwise the same.
CHANGE_RULES = ("ticket.engine_versions", "ticket.torch_releases", "ticket.driver_change")
# The parallel layout the reporter chose: it is the same on both builds.
STANDING_LAYOUT = ("cross_node_tp", "tp_not_dividing_heads", "pp_bubble")


def change_first(findings: list[Finding]) -> list[Finding]:
    """Where the reporter's complaint is a change between two builds of one setup (CHANGE_RULES found it), a layout
    the setup has on both builds (STANDING_LAYOUT) cannot be what changed: it stays in the report as an info lead,
    below the change (sgl-project/sglang#5527: TP = 16 over two nodes before and after a pull request that stopped
    CUDA graphs from launching)."""
    change = [f for f in findings if f.rule in CHANGE_RULES and is_cause(f)
              and SEVERITY_RANK[f.severity] >= SEVERITY_RANK["warning"]]
    if not change:
        return findings
    below = min(f.confidence for f in change)
    return [lead_below(f, below) if f.category in STANDING_LAYOUT and is_cause(f) and f.rule not in CHANGE_RULES
            else f for f in findings]


def refusal_first(facts, findings: list[Finding]) -> list[Finding]:
    """(left29) Where the ticket quotes a catalog message that refuses the job before any GPU talks to another
    (engine_errors.toml before_traffic: a launch, layout, bookkeeping or request check) and ticket.known_error reports
    it, the parallel layout the reporter chose (STANDING_LAYOUT) is no cause of that failure: a job that never ran is
    not slowed by its layout. It stays as an info lead below the message (vllm-project/vllm#7815: Ray's placement
    group pending on nodes of 2x8 L4, TP 16)."""
    from rules import claims

    refused = [f for f in findings if f.rule == "ticket.known_error" and is_cause(f)]
    if not refused or not any(c.data["error"].before_traffic for c in claims.known_errors(facts)):
        return findings
    below = min(f.confidence for f in refused)
    return [lead_below(f, below) if (f.category in STANDING_LAYOUT or f.rule in REFUSAL_WAITS) and is_cause(f)
            and f.rule != "ticket.known_error" else f for f in findings]


# Categories a launch setting of the software setup decides (the recipe's flags, the image): what a shared image or
# recipe makes common to every arm. Hardware facts (a narrow link, clocks, the GPU set) are not: arms of one comparison
# often run on different GPUs of the machine.
SOFTWARE_SETTINGS = ("eager_mode",)


def shared_setting_context(facts, findings: list[Finding]) -> list[Finding]:
    """(setting30, issue 11) Where the reporter says every arm of the comparison ran one software setup (claims.
    arms_share_setup: "All 4 runs same day, same model, same image"), a launch setting read only from the prose
    (words_only, SOFTWARE_SETTINGS) holds for every arm, and one whose cost each GPU pays alike (gap_costs.toml, not
    between_gpus) costs every arm alike: it cannot explain why one arm is slower or faster than another. It stays as
    an info lead below LEAD_FLOOR, which leans against its category. A cost paid on traffic between GPUs (P2P off) is
    kept: it differs between a one-GPU arm and a tensor-parallel one. A change between builds (CHANGE_RULES) or the
    reporter's own A/B figures (FIGURE_AB) are the difference itself and are kept (NVIDIA forums 364926:
    --enforce-eager in the recipe of solo, TP=2 and two solo engines alike, read as the cause of TP=2 beating two solo
    engines)."""
    from rules import claims

    if not claims.arms_share_setup(facts):
        return findings
    between = catalog.gap_costs_between_gpus()

    def common(f: Finding) -> bool:
        return (is_cause(f) and SEVERITY_RANK[f.severity] > SEVERITY_RANK["info"]
                and f.category in SOFTWARE_SETTINGS and f.category not in between
                and f.rule not in PRIORS + CHANGE_RULES + FIGURE_AB and words_only(facts, [f], f.category))

    return [lead_below(f, LEAD_FLOOR) if common(f) else f for f in findings]


# (wrong37) The inventory of unlike GPU models in one job (ticket.mixed_gpus): such a job runs at the slower board's
# pace, a loss no larger than how far apart the boards are (the finding's own pace figure, a few x at most).
INVENTORY_LEADS = ("ticket.mixed_gpus",)
# Limits of the path between the boards, each able to cost far more than that pace (gap_costs.toml: 16x for a link
# trained down, 40x for traffic staged through host memory), and of a board's own arithmetic (ticket.half_math_gpu:
# FP16 at 1/64 of the FP32 rate on compute capability 6.1, CUDA C++ Programming Guide).
PATH_LIMITS = ("p2p_disabled", "virtualization_no_p2p", "shm_fallback", "pcie_fallback", "nvlink_down",
               "pcie_link_degraded")
BOARD_LIMITS = ("ticket.half_math_gpu",)


def board_limit_first(findings: list[Finding]) -> list[Finding]:
    """Where a check finds a limit of the boards or of the path between them (PATH_LIMITS, BOARD_LIMITS; a prior
    about the board class is no finding, and a suspect below RIVAL at info is too weak), the unlike boards' inventory
    (INVENTORY_LEADS) is not the cause before it: that limit is what sets the slower board's pace, and it may cost far
    more than the boards' difference. A suspect of the path at warning (a hang across PCIe boards) counts as well: a
    slower board sets a pace, it stops no job. The inventory stays as an info lead below the limit
    (oobabooga/textgen#2949: ExLlama's FP16 on a 1080 Ti + 1080; aikitoria/open-gpu-kernel-modules#13: P2P refused
    among a 5060 Ti, 5070 Ti and 5090; sudoingX/qwen38-mtp#65: an x1 riser under an RTX 2070 beside an RTX 5060 Ti)."""
    limits = [f.confidence for f in findings
              if is_cause(f) and f.rule not in INVENTORY_LEADS + PRIORS
              and (f.category in PATH_LIMITS or f.rule in BOARD_LIMITS)
              and (SEVERITY_RANK[f.severity] >= SEVERITY_RANK["warning"] or f.confidence >= RIVAL)]
    if not limits:
        return findings
    return [lead_below(f, max(limits)) if f.rule in INVENTORY_LEADS and is_cause(f) else f for f in findings]


# (review47) A hang read from a job refused before any GPU traffic is the refusal's own wait, not a collective stuck
# between GPUs: vllm-project/vllm#8908's "the code gets stuck at ... Waiting for creating a placement group" (Ray,
# TP 16 on 4x4 A100) was read as a PCIe peer-to-peer hang (p2p_disabled) beside the placement-group message.
REFUSAL_WAITS = ("ticket.hang_on_pcie",)


# Explanations that call the reporter's figures normal by design ("the batch shares each step"): a figure check that
# finds one of those same figures short of its band says otherwise, so they stay silent beside it.
BY_DESIGN = ("ticket.concurrency_rates", "ticket.serving_tradeoff")


def _shortfall_figures(findings: list[Finding]) -> set:
    """The reporter's figures (value, unit) that a figure check found beyond its band: at warning or worse, or as the
    beyond-band lead (rules.beyond_band), which is info by policy but still says the figure is short."""
    return {(e.measured, e.unit) for f in findings
            if f.rule in FIGURE_FITS and f.category not in FIGURE_ANSWERED
            and (SEVERITY_RANK[f.severity] >= SEVERITY_RANK["warning"] or beyond_band.is_lead(f))
            for e in f.evidence if e.measured is not None and not e.source.startswith("prediction:")}


def one_reading(findings: list[Finding]) -> list[Finding]:
    """The findings less a 'by design' explanation (BY_DESIGN) of a figure a figure check finds short: the same
    figures get one verdict."""
    short = _shortfall_figures(findings)
    return [f for f in findings if not (f.rule in BY_DESIGN and short & {(e.measured, e.unit) for e in f.evidence})]


# The most a finding resting only on the reporter's prose may claim (rules.ticket_rules.OBSERVED): a
# keyword, an inventory line or a guess in the description, however many rules read it, is right far
# less often than a parsed artifact (benchmarks/ticket_accuracy.py, confidently wrong). A ticket verdict on prose
# alone states its class's level instead, below the line (rules/catalog/verdict_confidence.toml).
WORDS_ONLY = 0.65
# Free-text notes: what the reporter wrote, not what a tool printed.
PROSE_KINDS = ("description", "software", "hardware", "interconnect", "comment")


def words_only(facts, findings: list[Finding], category: str) -> bool:
    """Does every piece of evidence behind `category` come from the reporter's prose (the description
    and the lines of it an issue's prose facts were read from)?"""
    prose = _prose_sources(facts)
    sources = {e.source for f in findings if f.category == category and is_cause(f) for e in f.evidence}
    return bool(sources) and sources <= prose


def _prose_sources(facts) -> set:
    """Where the reporter's prose was read: the notes' sources and the lines of them that are no quoted tool output."""
    from diagnose.evidence import Note

    prose = set()
    for n in facts.of(Note):
        if n.kind in PROSE_KINDS:
            prose.add(n.source)
            prose.update(set(n.data.get("prose_sources", ())) - set(n.data.get("output_lines", ())))
    return prose


# Sources that are no record of the ticket's: the predictor's figures and the catalog's rows.
NOT_SEEN = ("prediction:", "catalog:", "rules/")


def observed(facts, f: Finding) -> bool:
    """Is some evidence behind `f` seen: a parsed artifact (or tool output quoted in the prose), a statement of the
    reporter's that claims.py reads as an observation (neither a guess, "maybe it is P2P?", nor ruled out), or a line
    of prose a parser read a record from (a launch command's flags) where no guess is said? A keyword of the prose
    that nothing reads, the predictor's figures and the catalog's rows are not."""
    from diagnose.evidence import Note
    from rules.claims import claims

    prose = _prose_sources(facts)
    said = [c for c in claims(facts) if not c.negated]
    guessed = {c.cited for c in said if c.guess}
    read = {r.source for r in facts.records if not isinstance(r, Note)}
    for e in f.evidence:
        if e.source.startswith(NOT_SEEN):
            continue
        quoted = [c for c in said if c.cited == e.source and f'"{c.quote}"' in e.detail]
        if e.source not in prose or (any(not c.guess for c in quoted) if quoted else
                                     e.source in read and e.source not in guessed):
            return True
    return False


def one_gpu_run(facts) -> bool:
    """Does the ticket's run use one GPU: tensor and pipeline parallel degrees of 1 stated, or one GPU in the job or
    node? Unknown is not one."""
    from rules.common import gpu_count, wfield

    tp, pp = wfield(facts, "tp")[0], wfield(facts, "pp")[0]
    if tp is not None or pp is not None:
        return (tp or 1) * (pp or 1) == 1
    return gpu_count(facts) == 1


def fails(findings: list[Finding], fail_on: str) -> bool:
    """Does any finding reach the --fail-on severity? ('never' never fails.)"""
    if fail_on == "never":
        return False
    threshold = SEVERITY_RANK[fail_on]
    return any(SEVERITY_RANK[f.severity] >= threshold and f.severity != "ok" for f in findings)

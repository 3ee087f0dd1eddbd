"""Rules about the GPUs' health: clock throttling, and hardware faults (ECC, Xid, fallen off the bus).

A throttled GPU runs every kernel slower and, in TP, makes every other rank wait for it at
each all-reduce. Clock-event reasons say why clocks are low; 'idle' and application-clock
settings are not throttling.
"""

from __future__ import annotations

import re

from diagnose.evidence import Facts, GpuFact, Measurement, NcclEvent, Note, XidEvent
from rules import claims
from rules.catalog import fatal_xids
from rules.common import claim_ev, ev, label, make, need, passed, usual_load
from rules.engine import rule

THERMAL = {"sw_thermal_slowdown", "hw_thermal_slowdown"}
HARD = {"hw_slowdown", "hw_power_brake_slowdown"}
BENIGN = {"idle", "applications_clocks_setting", "display_clocks_setting", "sync_boost", "none", "gpu_idle"}

# Xid codes that alone prove a GPU fault, each reviewed against NVIDIA's Xid catalog (rules/catalog/xids.toml):
# not 92 (corrected single-bit errors), 94 (contained: only the application restarts), 63 (a remap recorded),
# nor the GSP timeouts 119/120 (NVIDIA investigates the driver first); 13/31/43 are the application's.
FATAL_XIDS = fatal_xids()


@rule("health.throttling", "throttling")
def throttling(facts: Facts, predictions=None):
    """Clocks held down by temperature, power or a hardware slowdown signal."""
    gpus = facts.of(GpuFact)
    spec, spec_src = facts.subject.gpu, facts.subject.gpu_source
    found = []
    for g in gpus:
        reasons = set(g.clock_event_reasons or []) - BENIGN
        hot = (g.temperature_c is not None and g.temperature_slowdown_c
               and g.temperature_c >= g.temperature_slowdown_c - 2)
        if reasons & (THERMAL | HARD) or hot:
            detail = ", ".join(sorted(reasons)) or f"temperature {g.temperature_c:g} C"
            found.append((g, "critical", 0.85,
                          ev(g, f"{label(g)} clock event reasons active", detail, "none (or idle)")))
            if g.temperature_c is not None:
                found.append((g, None, 0,
                              ev(g, f"{label(g)} temperature", g.temperature_c, g.temperature_slowdown_c, "C")))
        elif "sw_power_cap" in reasons:
            # At full load a GPU running at its default power limit is managed by power: normal.
            # A limit lowered well below the board's TDP is a throttle someone set.
            if spec is not None and g.power_limit_w and g.power_limit_w < claims.LOWERED_LIMIT * spec.tdp_w:
                found.append((g, "warning", 0.65,
                              ev(g, f"{label(g)} held at a lowered power cap", g.power_draw_w, g.power_limit_w, "W")))
                found.append((g, None, 0, ev(spec_src, f"catalog {spec.key} TDP", expected=spec.tdp_w, unit="W")))
    if found:
        severity, confidence = next((s, c) for _, s, c, _ in found if s)
        yield make(
            "health.throttling", "throttling", severity, confidence,
            "GPU clocks are throttled" if severity == "critical" else "GPU clocks are held at the power cap",
            "The driver reports active clock-event reasons beyond idle: the GPU runs below its clocks because "
            "of heat, power or a hardware slowdown signal. In tensor parallelism the slowest GPU sets the "
            "pace, since every all-reduce waits for it.",
            [e for *_, e in found][:6],
            fix="Check cooling (fans, airflow, inlet temperature, dust) and the power limit (`nvidia-smi -q -d "
            "POWER,TEMPERATURE,PERFORMANCE`); restore the default power limit with `nvidia-smi -pl`; a "
            "HW slowdown or power-brake signal points at the PSU or chassis.",
            refs=["throttle", "nvidia_smi"],
        )
        return
    readings = [g for g in gpus if g.clock_event_reasons or g.temperature_c is not None]
    if readings:
        g = readings[0]
        yield passed("health.throttling", "No GPU is throttled",
                     f"{len(readings)} GPU reading(s) show no thermal, power or hardware slowdown.",
                     [ev(g, f"{label(g)} clock event reasons / temperature",
                         ", ".join(g.clock_event_reasons) or f"{g.temperature_c:g} C", "none")], 0.6)
    yield from _slowdown_over_time(facts, readings)


def _slowdown_over_time(facts: Facts, readings):
    """A run that gets slower under a constant load is the signature of heat building up."""
    said = [c for c in claims.find(facts, "slowdown_over_time") if not c.guess]  # "is it thermal?" is a question
    series = _declining_series(facts)
    if not said and not series:
        return
    evidence = [claim_ev(c, "the reporter sees a progressive slowdown") for c in said[:1]]
    if series:
        first, last = series
        evidence.append(ev(last, f"{last.metric} fell from {first.value:g} ({first.source}) to {last.value:g}",
                           last.value, first.value, last.unit))
    if readings:
        return  # clocks were read and are fine: heat is not it
    if claims.find(facts, "clock_power", negated=True) or claims.find(facts, "clock_at_max"):
        return  # the reporter read the clocks and rules a throttle out ("no throttling in nvidia-smi -q")
    if _hang_seen(facts):
        return  # (review38) lower clocks make every step slower, never stop one: a hang (a collective's watchdog
        # timing out, "after a few minutes all ranks hang") has another cause, whatever slowed before it
    yield make(
        "health.throttling", "throttling", "warning", 0.55 if series else 0.5,
        "Throughput falls over time under a constant load: likely thermal throttling",
        "A workload that runs the same steps but gets steadily slower is the textbook sign of a GPU "
        "heating up until it lowers its clocks (laptops and poorly cooled cards especially). No clock "
        "or temperature reading is attached to confirm it.",
        evidence,
        fix="Log `nvidia-smi --query-gpu=timestamp,temperature.gpu,clocks.sm,power.draw,clocks_event_reasons.active "
        "--format=csv -l 5` during the run; improve cooling or cap clocks/power to a sustainable level.",
        refs=["throttle"],
    )
    yield need("health.throttling", "No temperature or clock reading during the slow phase",
               "Throttling is suspected from the trend alone.",
               "`nvidia-smi -q -d PERFORMANCE,TEMPERATURE,POWER,CLOCK` taken while the run has slowed down "
               "(or `nvidia-smi dmon -s pct` for the whole run)")


def _hang_seen(facts: Facts) -> bool:
    """Does the ticket show a hang: an NCCL or watchdog timeout parsed from its output, or a hang said and not offered
    or asked ("Gets slower and then hangs?", "would it hang?"); a why- or how-question presupposes the hang it asks
    about ("Why does it hang after an hour?")."""
    if any(e.kind == "timeout" for e in facts.of(NcclEvent)):
        return True
    return any(not c.guess and (not claims.asked(c.quote) or _WHY.match(c.quote)) for c in claims.find(facts, "hang"))


# (review38b) "how" presupposes the hang only when it asks the cause or the cure of it ("How do I find out why it
# hangs?", "how to fix this hang"); "How can I avoid a hang if it keeps getting slower?" fears one that has not come.
_WHY = re.compile(r"\W*(?:why|how\s+come|how\s+(?:(?:do|can|should|could)\s+(?:I|we)\s+|to\s+)"
                  r"(?:fix|debug|solve|resolve|find|diagnose|troubleshoot|investigate|track|trace)\w*)\b", re.I)


def _declining_series(facts: Facts):
    """(first, last) of a throughput series from one file that ends >=15% below where it began. A series is
    samples a log printed in turn (line order), not the figures a reporter states ("up to 80 tok/s") among
    them; where the samples say their load (vLLM's "Running: N reqs"), only those at the usual load count:
    a window as a request arrives or drains is not the same load slowing down."""
    by_file: dict[tuple[str, str], list[Measurement]] = {}
    for m in facts.of(Measurement):
        if m.metric.endswith(("_s", "tok_s")) and ":" in m.source and m.stat != "reported":
            by_file.setdefault((m.source.rsplit(":", 1)[0], m.metric), []).append(m)
    for series in by_file.values():
        series.sort(key=lambda m: claims.line_number(m.source))
        usual = usual_load(series)
        if usual:
            series = [m for m in series if m.batch == usual]
        if len(series) >= 6:
            q = max(1, len(series) // 4)
            head = sum(m.value for m in series[:q]) / q
            tail = sum(m.value for m in series[-q:]) / q
            if tail < 0.85 * head:
                return series[0], series[-1]
    return None


@rule("health.hardware_fault", "hardware_fault")
def hardware_fault(facts: Facts, predictions=None):
    """Uncorrectable ECC errors, failed row remapping, fatal Xids, a GPU off the bus."""
    evidence = []
    for g in facts.of(GpuFact):
        if g.ecc_uncorrected_volatile:
            evidence.append(ev(g, f"{label(g)} volatile uncorrectable ECC errors", g.ecc_uncorrected_volatile, 0))
        if g.remapped_rows_failure:
            evidence.append(ev(g, f"{label(g)} row remapping failed", True, False))
        if g.remapped_rows_pending or g.retired_pages_pending:
            evidence.append(ev(g, f"{label(g)} row remap / page retirement pending (needs a GPU reset)", True, False))
    for x in facts.of(XidEvent):
        if x.xid in FATAL_XIDS:
            evidence.append(ev(x, f"Xid {x.xid}: {FATAL_XIDS[x.xid]}", x.xid))
    for e in facts.of(NcclEvent):
        if "fallen off the bus" in e.message.lower():
            evidence.append(ev(e, "GPU has fallen off the bus", e.message[:80]))
    for n in facts.of(Note):
        if n.kind == "gpu_fallen_off_bus":
            evidence.append(ev(n, "GPU has fallen off the bus", n.data.get("bus_id") or n.text[:80]))
    if evidence:
        yield make(
            "health.hardware_fault", "hardware_fault", "critical", 0.9,
            "A GPU reports a hardware fault",
            "The driver reports memory errors or a fatal Xid. A faulty GPU slows or stops every collective "
            "it takes part in, and results computed on it may be wrong.",
            evidence[:6],
            fix="Drain the node; reset the GPU (`nvidia-smi -r`) to apply pending row remaps; if uncorrectable "
            "errors or Xid 79/48/95 recur, run the field diagnostic (`dcgmi diag -r 3`) and RMA the GPU.",
            refs=["xid", "mem_errors"],
        )
        return
    read = [g for g in facts.of(GpuFact)
            if g.ecc_uncorrected_volatile is not None or g.remapped_rows_failure is not None]
    if read:
        yield passed("health.hardware_fault", "No ECC or remapping errors",
                     f"{len(read)} GPU(s) report zero uncorrectable ECC errors and no failed row remapping.",
                     [ev(read[0], f"{label(read[0])} uncorrectable ECC errors",
                         read[0].ecc_uncorrected_volatile or 0, 0)], 0.7)

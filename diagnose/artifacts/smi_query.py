"""`nvidia-smi -q` (text) and `nvidia-smi -q -x` (XML): one GpuFact per GPU, plus driver/CUDA.

Both forms become a list of (key path, value, line) per GPU; one table per form maps key paths
to GpuFact fields, so text and XML give the same facts. The text form is read through its
indentation; where a paste lost the indentation, the nearest section header still tells
`PCIe Generation / Current` from `Link Width / Current`.
"""

from __future__ import annotations

import re
import xml.parsers.expat

from diagnose.artifacts.smi_common import bus_id, clean_lines, idle_or_loaded, to_float, to_int
from diagnose.evidence import PCIE_LINK, POWER, REASONS, GpuFact, HostFact, where

KIND = "smi_query"

_GPU_BLOCK = re.compile(r"^\s*GPU\s+([0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:[0-9A-Fa-f]{2}\.[0-7])\s*$")
_KEY_VALUE = re.compile(r"^(\s*)(\S|[^:\s][^:]*?\S)\s*:(?:\s+(.*)|$)")
_TEXT_MARKERS = ("NVSMI LOG", "Product Name", "Attached GPUs", "Persistence Mode", "PCIe Generation", "Link Width",
                 "Throttle Reasons", "Event Reasons")
# Sections only -q prints; a paste of one of them alone (`nvidia-smi -q -d ROW_REMAPPER | grep -A4 Remapped`)
# still names the output when its items sit under it.
_PASTED_SECTIONS = {"remapped rows", "fabric", "ecc errors", "retired pages", "clocks event reasons",
                    "clocks throttle reasons", "pcie generation", "link width"}

# Clock event (throttle) reason names as -q prints them (XML tags with "_" read as spaces).
_REASONS = {
    "idle": "idle",
    "gpu idle": "idle",
    "applications clocks setting": "applications_clocks_setting",
    "sw power cap": "sw_power_cap",
    "hw slowdown": "hw_slowdown",
    "hw thermal slowdown": "hw_thermal_slowdown",
    "hw power brake slowdown": "hw_power_brake_slowdown",
    "sync boost": "sync_boost",
    "sw thermal slowdown": "sw_thermal_slowdown",
    "display clock setting": "display_clocks_setting",
    "display clocks setting": "display_clocks_setting",
}

# The parents (text and XML names) of SMI_SECTIONS' items: a paste records which sections it held (SMI_SECTIONS'
# names, and any other by its first header as printed, lower-case: "remapped rows").
_SECTION_OF = {"pcie generation": PCIE_LINK, "link width": PCIE_LINK, "gpu link info": PCIE_LINK,
               "pcie_gen": PCIE_LINK, "link_widths": PCIE_LINK, "power readings": POWER}

# (parent section or None for any, key) -> field, for the text form. Keys compare lower-case.
_TEXT_FIELDS = {
    (None, "product name"): "name",
    (None, "gpu uuid"): "uuid",
    (None, "bus id"): "bus_id",
    (None, "device id"): "pci_device_id",
    (None, "persistence mode"): "persistence_mode",
    (None, "performance state"): "pstate",
    (None, "compute mode"): "compute_mode",
    (None, "virtualization mode"): "virtualization_mode",
    ("driver model", "current"): "driver_model",
    (None, "replays since reset"): "pcie_replay_counter",
    (None, "replay counter"): "pcie_replay_counter",
    (None, "replay number rollovers"): "pcie_replay_rollovers",
    ("pcie generation", "current"): "pcie_gen_current",
    ("pcie generation", "max"): "pcie_gen_max",
    ("link width", "current"): "pcie_width_current",
    ("link width", "max"): "pcie_width_max",
    ("mig mode", "current"): "mig_mode",
    ("ecc mode", "current"): "ecc_mode",
    ("fb memory usage", "total"): "memory_total_mib",
    ("utilization", "gpu"): "utilization_pct",
    ("temperature", "gpu current temp"): "temperature_c",
    ("temperature", "gpu slowdown temp"): "temperature_slowdown_c",
    ("power readings", "power draw"): "power_draw_w",
    ("power readings", "average power draw"): "power_draw_w",
    ("power readings", "instantaneous power draw"): "power_draw_w",
    ("power readings", "current power limit"): "power_limit_w",
    ("power readings", "power limit"): "power_limit_w",
    ("clocks", "sm"): "sm_clock_mhz",
    ("max clocks", "sm"): "sm_clock_max_mhz",
    ("retired pages", "pending page blacklist"): "retired_pages_pending",
    ("retired pages", "pending page retirement"): "retired_pages_pending",
    ("retired pages", "pending"): "retired_pages_pending",
    ("remapped rows", "pending"): "remapped_rows_pending",
    ("remapped rows", "remapping failure occurred"): "remapped_rows_failure",
    ("fabric", "state"): "fabric_state",
    ("fabric", "status"): "fabric_status",
    ("health", "summary"): "fabric_health",  # Fabric > Health: the only Health section -q prints
    ("health", "bandwidth"): "fabric_bandwidth",
}

# XML: (parent tag or None, tag) -> field.
_XML_FIELDS = {
    (None, "product_name"): "name",
    (None, "uuid"): "uuid",
    ("pci", "pci_bus_id"): "bus_id",
    ("pci", "pci_device_id"): "pci_device_id",
    (None, "persistence_mode"): "persistence_mode",
    (None, "performance_state"): "pstate",
    (None, "compute_mode"): "compute_mode",
    ("gpu_virtualization_mode", "virtualization_mode"): "virtualization_mode",
    ("driver_model", "current_dm"): "driver_model",
    ("pci", "replay_counter"): "pcie_replay_counter",
    ("pci", "replay_rollover_counter"): "pcie_replay_rollovers",
    ("pcie_gen", "current_link_gen"): "pcie_gen_current",
    ("pcie_gen", "max_link_gen"): "pcie_gen_max",
    ("link_widths", "current_link_width"): "pcie_width_current",
    ("link_widths", "max_link_width"): "pcie_width_max",
    ("mig_mode", "current_mig"): "mig_mode",
    ("ecc_mode", "current_ecc"): "ecc_mode",
    ("fb_memory_usage", "total"): "memory_total_mib",
    ("utilization", "gpu_util"): "utilization_pct",
    ("temperature", "gpu_temp"): "temperature_c",
    ("temperature", "gpu_temp_slow_threshold"): "temperature_slowdown_c",
    ("power readings", "power_draw"): "power_draw_w",
    ("power readings", "average_power_draw"): "power_draw_w",
    ("power readings", "instant_power_draw"): "power_draw_w",
    ("power readings", "current_power_limit"): "power_limit_w",
    ("power readings", "power_limit"): "power_limit_w",
    ("clocks", "sm_clock"): "sm_clock_mhz",
    ("max_clocks", "sm_clock"): "sm_clock_max_mhz",
    ("retired_pages", "pending_blacklist"): "retired_pages_pending",
    ("retired_pages", "pending_retirement"): "retired_pages_pending",
    ("remapped_rows", "remapped_row_pending"): "remapped_rows_pending",
    ("remapped_rows", "remapped_row_failure"): "remapped_rows_failure",
    ("fabric", "state"): "fabric_state",
    ("fabric", "status"): "fabric_status",
    ("health", "summary"): "fabric_health",  # Fabric > Health: the only Health section -q prints
    ("health", "bandwidth"): "fabric_bandwidth",
}

_INTS = {"pcie_gen_current", "pcie_gen_max", "pcie_width_current", "pcie_width_max", "pcie_replay_counter",
         "pcie_replay_rollovers"}
_FLOATS = {"memory_total_mib", "utilization_pct", "temperature_c", "temperature_slowdown_c", "power_draw_w",
           "power_limit_w", "sm_clock_mhz", "sm_clock_max_mhz"}
_BOOLS = {"persistence_mode", "mig_mode", "ecc_mode", "retired_pages_pending", "remapped_rows_pending",
          "remapped_rows_failure"}


def detect(text: str) -> float:
    head = text[:400_000]
    if "<nvidia_smi_log" in head:
        return 0.95
    markers = sum(marker in head for marker in _TEXT_MARKERS)
    if re.search(r"(?m)^[^\S\n]*GPU\s+[0-9A-Fa-f]{4,8}:[0-9A-Fa-f]{2}:", head):
        markers += 2
    if markers >= 2:
        return min(1.0, 0.3 * markers)
    gpus, _ = _text_items(clean_lines(head[:50_000]))
    pasted = any(set(sections) & _PASTED_SECTIONS for gpu in gpus for sections, *_ in gpu["items"])
    return 0.6 if pasted else 0.0


def parse(text: str, name: str) -> list:
    lines = clean_lines(text)
    records: list = []
    joined = "\n".join(lines)
    if "<nvidia_smi_log" in joined:
        gpus, host = _xml_items(joined)
        records.extend(_facts(gpus, host, name, _XML_FIELDS))
    text_gpus, text_host = _text_items(lines)
    records.extend(_facts(text_gpus, text_host, name, _TEXT_FIELDS))
    return records


# --------------------------------------------------------------------------- text form


def _text_items(lines):
    """Per GPU block: [(section path, key, value, line)], plus top-level (key, value, line)."""
    gpus, host, attached = [], [], None
    current = None
    stack: list[tuple[int, str]] = []
    for i, raw in enumerate(lines):
        line = raw.replace("\t", "    ")
        if not line.strip() or line.lstrip().startswith(("<", "==")):
            continue
        block = _GPU_BLOCK.match(line)
        if block:
            current = {"bus": block.group(1), "line": i + 1, "items": []}
            gpus.append(current)
            stack = []
            continue
        indent = len(line) - len(line.lstrip())
        kv = _KEY_VALUE.match(line)
        # A header closes its sibling sections; a value line keeps a same-indent header as
        # its parent, which is all that is left when a paste lost the indentation.
        while stack and (stack[-1][0] >= indent if not kv else stack[-1][0] > indent):
            stack.pop()
        if not kv:
            if len(line.strip()) < 60:
                stack.append((indent, line.strip().lower()))
            continue
        key, value = kv.group(2).strip().lower(), (kv.group(3) or "").strip()
        sections = tuple(s for _, s in stack)
        if current is None or current.get("anonymous"):
            if not sections or (current is None and indent == 0):
                host.append((key, value, i + 1))
                attached = to_int(value) if key == "attached gpus" else attached
                continue
            if not _known(sections, key):
                continue
            # `nvidia-smi -q | grep -A3 "PCIe Generation"`: sections without a GPU line; a
            # repeated item starts the next GPU.
            if current is None or (sections[-1], key) in current["seen"]:
                current = {"bus": None, "line": i + 1, "items": [], "anonymous": True, "seen": set()}
                gpus.append(current)
            current["seen"].add((sections[-1], key))
        current["items"].append((sections, key, value, i + 1))
    if attached is None or attached != len(gpus):
        for gpu in gpus:
            gpu["no_index"] = True
    return gpus, host


# --------------------------------------------------------------------------- XML form


def _xml_items(text):
    """The same shape as _text_items, from the XML via expat (a cut-off file gives what it has)."""
    start = text.index("<nvidia_smi_log")
    offset = text.count("\n", 0, start)
    gpus, host = [], []
    path: list[str] = []
    chars: list[str] = []
    state = {"gpu": None, "attached": None}
    parser = xml.parsers.expat.ParserCreate()

    def start_element(tag, attrs):
        path.append(tag)
        chars.clear()
        if tag == "gpu" and len(path) == 2:
            state["gpu"] = {"bus": attrs.get("id", ""), "line": parser.CurrentLineNumber + offset, "items": []}
            gpus.append(state["gpu"])

    def end_element(tag):
        value = "".join(chars).strip()
        chars.clear()
        line = parser.CurrentLineNumber + offset
        sections = tuple(path[2:-1]) if len(path) > 2 else ()
        if len(path) == 2 and tag != "gpu":
            host.append((tag.replace("_", " "), value, line))
            if tag == "attached_gpus":
                state["attached"] = to_int(value)
        elif state["gpu"] is not None and len(path) > 2 and value:
            state["gpu"]["items"].append((sections, tag, value, line))
        path.pop()

    parser.StartElementHandler = start_element
    parser.EndElementHandler = end_element
    parser.CharacterDataHandler = chars.append
    body = text[start:]
    end = body.find("</nvidia_smi_log>")
    try:
        parser.Parse(body[: end + len("</nvidia_smi_log>")] if end >= 0 else body, True)
    except xml.parsers.expat.ExpatError:
        pass  # cut-off or mangled: keep what was read
    if state["attached"] != len(gpus):
        for gpu in gpus:
            gpu["no_index"] = True
    return gpus, host


# --------------------------------------------------------------------------- both forms


def _facts(gpus, host, name, table) -> list:
    records: list = []
    for key, value, line in host:
        if key in ("driver version", "cuda version") and value and value.upper() != "N/A":
            fact = "driver_version" if key == "driver version" else "cuda_driver_version"
            records.append(HostFact(where(name, line), fact, value))
    for index, gpu in enumerate(gpus):
        fact = GpuFact(where(name, gpu["line"]), index=None if gpu.get("no_index") else index)
        fact.bus_id = bus_id(gpu["bus"])
        pstate = None
        for sections, key, value, _line in gpu["items"]:
            parent = sections[-1] if sections else ""
            ecc = _ecc(sections, key)
            if ecc:
                count = to_int(value)
                if count is not None:
                    setattr(fact, ecc, (getattr(fact, ecc) or 0) + count)
                continue
            first = sections[0] if sections and re.search("[a-z]", sections[0]) else None
            section = REASONS if _reason(sections, key) else _SECTION_OF.get(_power_parent(parent)) or first
            if section and section not in fact.smi_sections:
                fact.smi_sections.append(section)
            reason = _reason(sections, key)
            if reason:
                if value.strip().lower() == "active":
                    fact.clock_event_reasons.append(reason)
                continue
            field = _field(table, parent, key)
            if field == "pstate":
                pstate = value.strip()
            elif field:
                _set(fact, field, value)
        fact.pcie_read_under_load = (
            idle_or_loaded(fact.utilization_pct, pstate, fact.clock_event_reasons)
            if fact.pcie_gen_current is not None or fact.pcie_width_current is not None
            else None
        )
        records.append(fact)
    return records


def _known(sections, key) -> bool:
    parent = sections[-1] if sections else ""
    return bool(_field(_TEXT_FIELDS, parent, key) or _reason(sections, key) or _ecc(sections, key))


def _power_parent(parent: str) -> str:
    """Power Readings under its other names (driver 530+ text "GPU Power Readings", XML tags)."""
    return "power readings" if parent in ("gpu power readings", "gpu_power_readings", "power_readings") else parent


def _field(table, parent, key):
    parent = _power_parent(parent)
    return table.get((parent, key)) or table.get((None, key))


def _ecc(sections, key) -> str | None:
    """The volatile ECC counter field an item adds to, if it is one (text and XML names)."""
    sections = [s.replace("_", " ") for s in sections]
    key = key.replace("_", " ")
    if "volatile" not in sections or not any("ecc errors" in s for s in sections):
        return None
    if "double bit" in sections:
        return "ecc_uncorrected_volatile" if key == "total" else None
    if "single bit" in sections:
        return "ecc_corrected_volatile" if key == "total" else None
    if re.fullmatch(r"(?:sram|dram) uncorrectable.*", key):
        return "ecc_uncorrected_volatile"
    if re.fullmatch(r"(?:sram|dram) correctable.*", key):
        return "ecc_corrected_volatile"
    return None


def _reason(sections, key) -> str | None:
    """The normalised clock event reason this item reports, if it is one."""
    joined = " ".join(sections).replace("_", " ")
    key = key.replace("_", " ")
    if "throttle reasons" in joined or "event reasons" in joined:
        return _REASONS.get(re.sub(r"^clocks (?:event|throttle) reason ", "", key))
    return None


def _set(fact: GpuFact, field: str, value: str) -> None:
    value = value.strip()
    if field in _INTS:
        setattr(fact, field, to_int(value))
    elif field in _FLOATS:
        setattr(fact, field, to_float(value))
    elif field in _BOOLS:
        lowered = value.lower()
        if lowered in ("enabled", "yes", "on", "true"):
            setattr(fact, field, True)
        elif lowered in ("disabled", "no", "off", "false"):
            setattr(fact, field, False)
    elif field == "bus_id":
        fact.bus_id = bus_id(value) or fact.bus_id
    elif field == "pci_device_id":
        m = re.match(r"(?:0x)?([0-9A-Fa-f]{8})$", value)
        fact.pci_device_id = f"0x{m.group(1)[:4].lower()}" if m else None
    elif value and value.upper() not in ("N/A", "[N/A]"):
        setattr(fact, field, value)

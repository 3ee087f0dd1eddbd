"""Precision of three readings (issue 11), on real public inputs (tests/data/prec25/SOURCES.md):

1. which Xid codes prove a GPU fault (rules/catalog/xids.toml, reviewed against NVIDIA's Xid catalog): not the
   corrected (92) or contained (94) ECC events, a recorded remap (63), the GSP timeouts (119/120) or the
   application's own faults (13, 31, 43);
3. host_bound: a process held at one core ("only one core is used") beside an idle GPU, and "GPU利用率不高", read as
   the host limit; a core that spins in a CUDA synchronisation while the GPU works is not (near-misses beside them).
"""

from pathlib import Path

import pytest

from diagnose.artifacts import dmesg
from diagnose.bundle import read_bundle
from diagnose.commands.ticket import ticket_predictions
from diagnose.evidence import Facts, Note
from diagnose.inputs import tomllib
from rules.catalog import xid_rows
from rules.engine import evaluate, ticket_verdict
from rules.health import FATAL_XIDS

DATA = Path(__file__).parent / "data" / "prec25"
HW = Path(__file__).parent / "data" / "hardware" / "real"


def kernel_log(path: Path) -> Facts:
    facts = Facts()
    facts.add(dmesg.parse(path.read_text(), path.name))
    return facts


def fault_found(facts: Facts, rule: str) -> bool:
    return any(f.category == "hardware_fault" and f.severity == "critical"
               for f in evaluate(facts, only=[rule]))


def said(text: str) -> Facts:
    facts = Facts()
    facts.add(Note("issue.md:1", "description", text))
    return facts


def test_every_reviewed_xid_says_why():
    rows = xid_rows()
    assert {92, 94, 63, 119, 120, 13, 31, 43} <= set(rows) and not {92, 94, 63, 119, 120, 13, 31, 43} & set(FATAL_XIDS)
    assert {48, 64, 79, 95, 140} <= set(FATAL_XIDS)


@pytest.mark.parametrize("path, fault", [
    (HW / "dmesg_xid79_fallen_off_bus_akash209.txt", True),   # Xid 79: RESTART_BM
    (HW / "syslog_xid48_xid64_dbe_gpu_operator1146.txt", True),  # Xid 48 + 64: uncorrectable, remap not recorded
    (HW / "dmesg_xid43_31_94_akash244.txt", False),  # 43, 31 (the application's) and 94 (contained: app restarts)
    (HW / "dmesg_xid63_a100_row_remap.txt", False),  # 63: the remap recorded; pending state is nvidia-smi's to say
    (DATA / "dmesg_xid13_109_gpud46.txt", False),  # 13 illegal instruction, then 109 ctx-switch timeout
])
def test_a_kernel_log_proves_a_fault_only_with_a_fatal_xid(path, fault):
    assert fault_found(kernel_log(path), "health.hardware_fault") == fault


@pytest.mark.parametrize("text, fault", [
    # turbo-tan/llama.cpp-tq3#37
    ('The GPU hard-crashed with Xid 79 ("GPU has fallen off the bus") followed immediately by Xid 154 '
     '("Node Reboot Required") after approximately 6 hours of stable inference', True),
    # NVIDIA/open-gpu-kernel-modules#1151 (title)
    ("RTX 5080 (GB203): Random Xid 79 with zero precursor — any load level, instant atomic GPU death", True),
    # NVIDIA/open-gpu-kernel-modules#1045 (comment): a driver upgrade ended it
    ("At first, everything was working fine a couple of weeks ago, but then I started getting error messages "
     "when generating through llama.cpp - Xid 119.", False),
    # NVIDIA/open-gpu-kernel-modules#446 (comment quoting the 525 release notes)
    ("Fixed an issue specific to GSP-RM that could lead to GSP RPC timeout errors (Xid 119).", False),
])
def test_an_xid_named_in_words(text, fault):
    assert fault_found(said(text), "ticket.hardware_error") == fault


THREADS = tomllib.loads((DATA / "host_bound_threads.toml").read_text())


@pytest.mark.parametrize("key", sorted(THREADS))
def test_host_bound_threads_and_their_near_misses(key, tmp_path):
    row = THREADS[key]
    (tmp_path / "issue.md").write_text(row["text"])
    facts = read_bundle([tmp_path])
    verdict = ticket_verdict(facts, evaluate(facts, ticket_predictions(facts))).category
    assert (verdict == "host_bound") == (row["expect"] == "host_bound"), (row["url"], verdict)

"""Fuzz: random bytes and mutated real artifacts never make a hardware parser raise.

Seeded, a few hundred cases per parser, well under a second each. A parser may return
nothing or part of the facts; it must not crash, and every record must point at a line
that exists.
"""

import random
from pathlib import Path

import pytest
from artifact_fuzz import fuzz_texts
from conftest import SHARED

from diagnose.artifacts import dmesg, lspci, nvlink, nvtop, p2p_test, smi_csv, smi_query, smi_table, topo

PARSERS = [topo, smi_query, smi_table, smi_csv, nvlink, lspci, p2p_test, dmesg, nvtop]
DATA = Path(__file__).parent / "data" / "hardware"
TOKENS = ["GPU0", "GPU12", "NV12", "X", "SYS", "Link 3:", "<inactive>", "LnkSta:", "Speed", "GT/s", "x16",
          "P2P=Enabled", "D\\D", "NVRM: Xid (PCI:", "|", ":", "\t", "\r", "\x1b[31m", "[1,0]<stdout>:",
          "<gpu id=\"", "</pci>", "<nvidia_smi_log>", "Current", "   ", "...", "N/A", "-1", "99999999999999999999"]


def _corpus() -> list[str]:
    texts = [p.read_text() for p in sorted(DATA.rglob("*")) if p.is_file()]  # real/ holds public samples
    tickets = SHARED / "tickets"
    if tickets.is_dir():
        texts += [p.read_text(errors="replace") for p in sorted(tickets.glob("*/attachment*"))]
    return texts


def _with_tokens(rng: random.Random, text: str) -> str:
    """A real artifact with hardware-table tokens dropped into random lines (fused cells, cut rows)."""
    lines = text.splitlines(keepends=True) or [""]
    for _ in range(rng.randint(1, 6)):
        i = rng.randrange(len(lines))
        cut = rng.randint(0, len(lines[i]))
        lines[i] = lines[i][:cut] + rng.choice(TOKENS) + lines[i][cut:]
    return "".join(lines[: rng.randint(1, len(lines))])


@pytest.mark.parametrize("parser", PARSERS, ids=lambda m: m.KIND)
def test_random_and_mutated_inputs_never_raise(parser):
    rng = random.Random(20261129)
    corpus = _corpus()
    own = [text for text in corpus if parser.parse(text, "seed")]  # the artifacts of this kind
    if not own and not (SHARED / "tickets").is_dir():
        pytest.skip(f"the only {parser.KIND} artifacts are in ../shared/tickets, which is absent")
    assert own, f"no real or fixture artifact of kind {parser.KIND}"
    cases = [bytes(rng.randrange(256) for _ in range(rng.randint(0, 400))).decode("latin-1") for _ in range(50)]
    cases += list(fuzz_texts(own, n=150)) + list(fuzz_texts(corpus, n=100))
    cases += [_with_tokens(rng, rng.choice(own)) for _ in range(100)]
    cases += ["", "\n\n", "GPU0\tGPU1\n", "<nvidia_smi_log><gpu id='x'>", "Link 0:", "LnkSta:"]
    parsed = 0
    for text in cases:
        score = parser.detect(text)
        assert 0.0 <= score <= 1.0
        records = parser.parse(text, "f")
        n_lines = max(1, len(text.splitlines()))
        for record in records:
            line = record.source.rsplit(":", 1)[-1]
            assert record.source.startswith("f") and (line == "f" or 1 <= int(line) <= n_lines), record
        parsed += bool(records)
    assert parsed >= 50  # the mutations keep enough of the real text to be read

"""(bigpaste35) A long paste is read in time proportional to its size, and reads the same as before.

Each block of a pasted issue is read alone and its sources moved to the issue's lines (artifacts.parse_text
first_line), where it was read after as many blank lines as the issue has above it; the catalog's messages are found
once per ticket text (claims._catalog_messages), where each rule asking for them searched the whole text again.
These tests check the results are the same on real pastes; the speed itself is benchmarks/ticket_speed.py's.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from diagnose.artifacts import issue_md, parse_text
from diagnose.bundle import read_bundle
from rules import claims

DATA = Path(__file__).parent / "data"
# real pastes with many blocks far down the issue: the two largest kept, and ones with output, NCCL lines and errors
PASTES = ["fa24/validated_asus_esc8000a_e12_4x_rtx6000ada.md", "fa24/validated_puget_wrx90_2x_rtx6000ada.md",
          "ut27c/perlmutter_gb25.md", "ut27c/ofi584.md", "ut24/vllm42609.md", "ut15e/verl161.md"]


def _blocks(path: Path) -> list[tuple[int, str]]:
    """The (first line, text) of each block issue_md.parse hands the parsers: code blocks, then the prose."""
    text = path.read_text().translate(issue_md._HYPHENS)
    prose, code = issue_md.blocks(text)
    quoted = issue_md._quoted_tables(prose)
    return [*code, (1, "\n".join("" if i in quoted else ln for i, ln in prose))]


@pytest.mark.parametrize("paste", PASTES)
def test_a_block_read_alone_reads_as_after_blank_lines(paste):
    """Every block's records and kinds, read alone from its first line, equal those read after start-1 blank lines
    (the padding that kept the issue's line numbers before): the same sources, figures and notes."""
    path = DATA / paste
    far = 0
    for start, body in _blocks(path):
        padded = parse_text("\n" * (start - 1) + body, path.name, skip=(issue_md.KIND, "ticket_toml"))
        alone = parse_text(body, path.name, skip=(issue_md.KIND, "ticket_toml"), first_line=start)
        assert alone == padded, (paste, start)
        far += start > 1 and any(r.source != path.name for r in alone[0])
    assert far, "no block below the first line gave a record with a line: the test checks nothing"


def test_a_record_read_alone_points_into_its_block():
    """Each record with a line, read from a block further down the issue, points at a line of that block that holds
    text: the issue's own line, not the block's."""
    path = DATA / "fa24/validated_asus_esc8000a_e12_4x_rtx6000ada.md"
    issue = path.read_text().splitlines()
    checked = 0
    for start, body in _blocks(path)[:-1]:  # the code blocks (the prose, last, starts at line 1)
        records, _ = parse_text(body, path.name, skip=(issue_md.KIND, "ticket_toml"), first_line=start)
        for r in records:
            line = int(r.source.rpartition(":")[2]) if r.source != path.name else None
            if line:
                assert start <= line < start + len(body.splitlines()) and issue[line - 1].strip(), (start, r)
                checked += 1
    assert checked > 20


def test_catalog_messages_same_text_same_claims_fresh_objects():
    """The messages are read once per text: asked again, the same claims come back, as new objects (a rule that
    changes one does not change what the next rule is given)."""
    facts = read_bundle([DATA / "ut27c/ofi584.md"])
    first, again = claims.known_errors(facts), claims.known_errors(facts)
    assert [c.data["error"].id for c in first] == ["efa_libfabric_nccl_mismatch", "ofi_gpu_memory_refused",
                                                   "rdma_resources"]
    assert first == again and all(a is not b and a.data is not b.data for a, b in zip(first, again))
    first[0].data["origin"] = "changed by a rule"
    assert claims.known_errors(facts)[0].data["origin"] == "output"


def test_catalog_messages_another_text_is_read_anew():
    """Another ticket's text is read for itself, never answered from the last one's."""
    one, other = read_bundle([DATA / "ut27c/ofi584.md"]), read_bundle([DATA / "ut15e/verl161.md"])
    assert [c.data["error"].id for c in claims.known_errors(one)][0] == "efa_libfabric_nccl_mismatch"
    assert [c.data["error"].id for c in claims.known_errors(other)] == ["nccl_duplicate_gpu", "nccl_invalid_usage"]
    assert {c.source.partition(":")[0] for c in claims.known_errors(other)} == {"verl161.md"}

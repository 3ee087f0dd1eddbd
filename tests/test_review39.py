"""Precision review of the readings session 28 merged from ut28g (issue 11, review39), each tried on real lines of
threads none of them was written from (tests/data/review39/<reading>.toml, URLs in SOURCES.md): near-misses that look
alike but must not be read that way, and positives that must. `xfail`: why a case still fails (strict); `mended`: what
it did before this review.

- torch_cuda_nccl_missing: torch.cuda.nccl's "PyTorch is not compiled with NCCL support" (engine_errors.toml);
- nccl_absent_on_windows: NCCL not available on native Windows, WSL not named (engine_errors.toml);
- wsl_pinned_memory: CUDA on WSL 2's pinned-memory limit (engine_errors.toml);
- non_wsl: "non-WSL" is no WSL 2 VM (rules.claims virtualized, rules.common.is_virtualized);
- gpu_not_supported: the `topo -p2p` legend words "GPU not supported" (rules.claims no_p2p)."""

from pathlib import Path

import pytest
import tomllib
from conftest import said, threads_reused, toml_cases

from rules import claims
from rules.catalog import engine_errors
from rules.common import is_virtualized
from rules.topology import WSL_FIX

DATA = Path(__file__).parent / "data" / "review39"
FAMILIES = {p.stem: tomllib.loads(p.read_text()) for p in sorted(DATA.glob("*.toml"))}
ROWS = ("torch_cuda_nccl_missing", "nccl_absent_on_windows", "wsl_pinned_memory")


def _rows_read(text: str) -> dict:
    """The catalog rows claims.known_errors names for the text said as a ticket's description."""
    return {c.data["error"].id: c.data["error"] for c in claims.known_errors(said(text))}


@pytest.mark.parametrize("case", [c for name in ROWS for c in toml_cases(DATA, name)])
def test_a_catalog_row_reads_its_message_only(case):
    family = next(n for n in ROWS if case in FAMILIES[n]["case"])
    read = _rows_read(case["text"])
    assert (family in read) is case["read"]
    if case.get("fix_says"):
        assert case["fix_says"] in read[family].fix


@pytest.mark.parametrize("case", toml_cases(DATA, "non_wsl"))
def test_wsl_ruled_out_or_named_as_an_option_is_no_vm(case):
    assert bool(is_virtualized(said(case["text"]))) is case["vm"]


@pytest.mark.parametrize("case", toml_cases(DATA, "gpu_not_supported"))
def test_gpu_not_supported_is_p2p_refused_only_beside_p2p(case):
    assert bool(claims.find(said(case["text"]), "no_p2p")) is case["p2p"]


def test_wsl_fix_says_what_nccl_supports_there():
    """NVIDIA's NCCL 2.10.3 release notes: 'Added WSL2 support (single GPU only)'
    (https://docs.nvidia.com/deeplearning/nccl/release-notes/rel_2-10-3.html): not 'not supported under WSL 2'."""
    assert WSL_FIX.startswith("NCCL supports WSL 2 for a single GPU only")
    assert "not supported under WSL" not in WSL_FIX
    rows = {r.id: r for r in engine_errors()}
    assert "unsupported" not in rows["nccl_absent_on_windows"].fix


def test_every_case_names_its_thread_and_each_reading_has_near_misses_and_positives():
    sources = (DATA / "SOURCES.md").read_text()
    held = {"torch_cuda_nccl_missing": "read", "nccl_absent_on_windows": "read", "wsl_pinned_memory": "read",
            "non_wsl": "vm", "gpu_not_supported": "p2p"}
    for name, family in FAMILIES.items():
        assert family["family"] == name and name in held
        assert all(c["url"].startswith("https://github.com/") and c["url"] in sources for c in family["case"]), name
        assert any(not c[held[name]] for c in family["case"]), name
        assert any(c[held[name]] for c in family["case"]), name


def test_no_thread_is_one_the_readings_were_written_from():
    """Not a thread of the readings' own sources (tests/data/ut28g, the ut12x paste the non-WSL reading came from)."""
    assert threads_reused(FAMILIES, ("ut28g", "ut12x")) == []

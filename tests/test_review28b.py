"""Precision review, part B (issue 11, review28b): figures that are not measurements, and two rate-parser errors.
A bandwidth said as a reference (theoretical, advertised, "according to" a talk, a target, what it "should be") is no
measured busbw, while the figure measured beside it still is; a range takes its thousands multiplier for both ends
("~0.55–0.85k tok/s" is 550 to 850); a rate said relative to a per-GPU figure is per GPU, not one stream's decode
rate. Real sentences with their threads in tests/data/review28b/<reading>.toml (URLs in SOURCES.md); `near`: a
near-miss that looks alike; `xfail`: why a case still fails (strict); `mended`: what it read before this review."""

from pathlib import Path

import pytest
import tomllib
from conftest import toml_cases

from diagnose.artifacts import issue_md
from diagnose.evidence import Measurement

DATA = Path(__file__).parent / "data" / "review28b"


def _read(text: str, metric: str) -> list[float]:
    return [m.value for m in issue_md.parse(text, "issue.md") if isinstance(m, Measurement) and m.metric == metric]


@pytest.mark.parametrize("case", toml_cases(DATA, "busbw_reference"))
def test_a_reference_bandwidth_is_no_measured_busbw(case):
    assert _read(case["text"], "busbw_gbs") == case["busbw"]


@pytest.mark.parametrize("case", toml_cases(DATA, "rate_range"))
def test_a_range_takes_its_multiplier_for_both_ends(case):
    assert _read(case["text"], "decode_tok_s") == case["decode"]


@pytest.mark.parametrize("case", toml_cases(DATA, "per_gpu"))
def test_a_rate_relative_to_a_per_gpu_figure_is_per_gpu(case):
    assert _read(case["text"], "decode_tok_s") == case["decode"]
    assert _read(case["text"], "output_tok_s_per_gpu") == case["per_gpu"]


def test_every_case_names_its_source_and_the_reference_reading_has_near_misses():
    sources = (DATA / "SOURCES.md").read_text()
    for path in DATA.glob("*.toml"):
        for case in tomllib.loads(path.read_text())["case"]:
            assert case["url"].startswith("https://") and case["url"] in sources, (path.name, case["url"])
    cases = tomllib.loads((DATA / "busbw_reference.toml").read_text())["case"]
    assert sum(bool(c["busbw"]) for c in cases if c.get("near")) >= 3
    assert sum(not c.get("near") for c in cases) >= 3

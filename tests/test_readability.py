"""What a reader sees in a finding (review item 14): at 80, 100 and 120 columns no evidence table
splits into an orphan table of values with no detail beside them, a number is printed with its
unit, one finding uses one unit convention, and an expected cell says what is expected."""

from __future__ import annotations

import sqlite3

import pytest
from conftest import REPO, diagnose, report_json, shared_path

from diagnose.report.text import fmt_value

SAMPLES = REPO / "samples" / "captures"
WIDTHS = ("80", "100", "120")


def _text(*args, width):
    return diagnose(*args, "--fail-on", "never", env={"COLUMNS": width}).stdout


@pytest.mark.parametrize("width", WIDTHS)
@pytest.mark.parametrize("capture", ["nsysai_rtx3080_torch_mock.sqlite", "cardiac_rtx3060_2021_notables.sqlite"])
def test_no_evidence_table_is_split_into_an_orphan_part(capture, width):
    """Both real exports gave, at 100 columns, a second table holding only the expected column."""
    text = _text("capture", shared_path("captures", capture), width=width)
    findings = text.split("\n1. ", 1)[1] if "\n1. " in text else ""
    headers = [line for line in findings.splitlines() if line.strip().startswith("source ")]
    assert all("detail" in line and "measured" in line for line in headers), headers
    assert "(continued)" not in findings


@pytest.mark.parametrize("width", WIDTHS)
def test_compare_prints_each_number_with_its_unit(width):
    """The unit column printed in a continuation part, away from A's values, at 100 columns."""
    a, b = SAMPLES / "tp4_nvlink_healthy.sqlite", SAMPLES / "tp8_pcie_fallback.sqlite"
    (table,) = report_json("compare", a, b)["tables"].values()
    text = " ".join(_text("compare", a, b, width=width).split())
    unit = table["columns"].index("unit")
    for row in table["rows"]:
        for value in (row[3], row[4]):
            assert f"{fmt_value(value)} {row[unit]}" in text, (row, width)


def test_a_copy_finding_uses_one_unit_convention():
    """sc23's T4 export: the title said "moved 51.20 GB" while its table said "47.7 GiB". Decimal
    units throughout, as its GB/s (bytes / ns) is; the figure is the SQL sum of the copies."""
    path = shared_path("captures", "sc23_t4_openmp_offload_2023_3.sqlite")
    found = [f for f in report_json("capture", path)["findings"] if f["rule"] == "capture.copy_bandwidth"]
    htod = next(f for f in found if f["title"].startswith("HtoD copies from pageable memory"))
    (moved,) = [e for e in htod["evidence"] if e["detail"] == "bytes moved"]
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        total = db.execute("""SELECT sum(bytes) FROM CUPTI_ACTIVITY_KIND_MEMCPY
                              WHERE copyKind = 1 AND srcKind = 0 AND bytes >= 1048576""").fetchone()[0]
    assert (moved["measured"], moved["unit"]) == (round(total / 1e9, 2), "GB")
    assert f"moved {moved['measured']} GB in" in htod["summary"]
    assert "GiB" not in diagnose("capture", path, "--fail-on", "never", env={"COLUMNS": "120"}).stdout.split(
        "capture.copy_bandwidth")[1]


def test_expected_cells_state_what_is_expected():
    """">= 10 to matter %" put the unit after the words; the straggler's "expected 486" was just the
    number of collectives, equal to the measured count."""
    grids = next(f for f in report_json("capture",
                                        shared_path("captures", "nsysai_rtx3080_torch_mock.sqlite"))["findings"]
                 if f["rule"] == "capture.small_grids")
    (busy,) = [e for e in grids["evidence"] if e["detail"].startswith("kernel time, share of the GPUs' summed span")]
    assert (busy["expected"], busy["unit"]) == (">= 10", "%")
    report = report_json("capture", *sorted(SAMPLES.glob("straggler_rank*.sqlite")))
    (late,) = [e for f in report["findings"] if f["rule"] == "capture.straggler" for e in f["evidence"]
               if e["detail"].startswith("collectives rank")]
    matched = int(late["detail"].split(" of ")[1].split()[0])
    assert late["measured"] == matched == 486 and late["expected"] == f"< {matched // 2}"


def test_compare_says_how_many_metrics_of_a_group_only_one_run_has():
    """"NVLink: 36 only in A" after 36 compared NVLink rows read as a contradiction: the HGX report
    gives 2 GPUs' link states and speeds, the DGX 8 GPUs' states and no speeds. The note counts per
    metric, beside the rows compared, and a link state reads up/down, not 1.0."""
    import json

    from diagnose.compare import metrics
    from diagnose.findings import Report

    a, b = (REPO / "samples/fleet/hgx-h100-nvlink-status-mig-disabled.json",
            REPO / "samples/fleet/dgx-h100-topo-numa.json")
    (table,) = report_json("compare", a, b)["tables"].values()
    rows = [r for r in table["rows"] if r[0] == "NVLink"]
    own = {p.name: [m for m in metrics(Report.from_dict(json.loads(p.read_text()))) if m.group == "NVLink"]
           for p in (a, b)}
    count = {(p, name): sum(1 for m in own[p] if m.name == name) for p in own for name in ("active", "speed")}
    assert (len(rows) == 36 and {r[2] for r in rows} == {"active"}
            and {r[3] for r in rows} == {r[4] for r in rows} == {"up"})
    assert (f"NVLink active: 36 compared above, {count[b.name, 'active'] - 36} only in {b.name}; "
            f"NVLink speed: {count[a.name, 'speed']} only in {a.name}.") in table["note"]
    assert count[b.name, "speed"] == 0 and count[a.name, "speed"] > 0

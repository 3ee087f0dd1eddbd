"""The reliability table of benchmarks/ticket_accuracy.py (issue 11: a confidence that means what it says) on the
24 shared tickets (../shared/tickets, each a public thread with its URL in its README/expected.toml): verdicts
bucketed by confidence, each bucket's count and share right, and the expected calibration error.

The verdicts and confidences are the README's table of the shared tickets (tests/test_tickets_real.py holds it to
what `diagnose ticket` gives today), scored against each ticket's answer key the way the benchmark scores it."""

import importlib.util

import pytest
import tomllib
from conftest import REPO, SHARED, shared_path

spec = importlib.util.spec_from_file_location("ticket_accuracy", REPO / "benchmarks" / "ticket_accuracy.py")
ticket_accuracy = importlib.util.module_from_spec(spec)
spec.loader.exec_module(ticket_accuracy)


def _rows() -> dict[str, tuple[str, str, float]]:
    """ticket -> (label, verdict, confidence), from the README table between its tickets markers."""
    text = (REPO / "README.md").read_text()
    table = text.split("<!-- tickets:start -->", 1)[1].split("<!-- tickets:end -->", 1)[0]
    rows = [[c.strip() for c in line.strip().strip("|").split("|")] for line in table.strip().splitlines()[2:]]
    return {r[0]: (r[1], r[2], float(r[3])) for r in rows}


def _results(strict: bool) -> list[dict]:
    """The benchmark's result rows; `strict` scores the label alone (no acceptable alternative, no
    'cannot decide' key), so the verdicts that differ from the thread's label count wrong."""
    shared_path("tickets")
    out = []
    for name, (_label, verdict, conf) in _rows().items():
        key = tomllib.loads((SHARED / "tickets" / name / "expected.toml").read_text())
        accepted = {key["label"]} if strict else ticket_accuracy.accepted(key)
        out.append({"case": name, "verdict": verdict, "confidence": conf, "top1": verdict in accepted})
    return out


def _tenth(conf: float) -> int:
    """The bucket a confidence falls in, by its first decimal (< 0.5 together, >= 0.9 together)."""
    return min(max(round(conf * 100) // 10, 4), 9)


@pytest.mark.parametrize("strict", [False, True], ids=["as-scored", "label-only"])
def test_buckets_count_the_shared_verdicts_by_confidence(strict):
    results = _results(strict)
    rel = ticket_accuracy.reliability(results)
    decided = [r for r in results if r["verdict"] != "insufficient_data"]
    gave_up = [r for r in results if r["verdict"] == "insufficient_data"]
    assert len(results) == 24 and rel["insufficient"] == len(gave_up) == 1  # 033: GDR asked for, not decided
    assert sum(b["n"] for b in rel["buckets"]) == len(decided) == 23
    for b in rel["buckets"]:  # 0.50, 0.60 and 0.70 verdicts (075, 021, 022 ...) sit in the bucket that starts there
        tenth = round(b["low"] * 10) if b["low"] else 4
        inside = [r for r in decided if _tenth(r["confidence"]) == tenth]
        assert b["n"] == len(inside)
        assert b["right"] == pytest.approx(sum(r["top1"] for r in inside) / len(inside))
        assert b["conf"] == pytest.approx(sum(r["confidence"] for r in inside) / len(inside))
    ece = sum(abs(b["right"] - b["conf"]) * b["n"] for b in rel["buckets"]) / 23
    assert rel["ece"] == pytest.approx(ece)
    if not strict:  # every shared ticket is answered right (test_tickets_real): each bucket is 100 % right,
        assert all(b["right"] == 1 for b in rel["buckets"])  # and the error is how far below 1 the confidences sit
        assert rel["insufficient_right"] == 1
        assert rel["ece"] == pytest.approx(sum(1 - r["confidence"] for r in decided) / 23)
    else:  # the verdicts that name an accepted alternative, not the label, count wrong in their buckets
        wrong = [r for r in decided if r["verdict"] != _rows()[r["case"]][0]]
        assert sum(round(b["n"] * (1 - b["right"])) for b in rel["buckets"]) == len(wrong) >= 4
        assert rel["insufficient_right"] == 0  # 033's label is gdr_disabled


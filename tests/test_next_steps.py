"""What to run or attach next, per report kind: each finding that needs more evidence carries a
structured `ask` (JSON), and the terminal, Markdown and HTML reports list the asks once under
"Next" -- except where the verdict already names the cause, and in a ticket, whose own table
says what to attach."""

from __future__ import annotations

from conftest import REPO, diagnose, report_json, shared_path

BENCH = REPO / "samples/bench/llmd-llama-3.2-3b-l40s-tp1-dp4.json"
BENCH_MODEL = REPO / "samples/bench/llama-3.2-3b-config.json"


def _asks(report: dict) -> dict[str, str]:
    return {f["rule"]: f["ask"] for f in report["findings"] if f.get("ask")}


def _next_block(text: str) -> str:
    """The terminal's Next list, or '' when there is none."""
    return text.split("\nNext:\n", 1)[1].split("\n\n", 1)[0] if "\nNext:\n" in text else ""


def test_capture_without_kernels_asks_for_a_new_capture():
    """A real export made without the CUDA trace: capture again with the trace options the checks read."""
    path = shared_path("captures", "cardiac_rtx3060_2021_notables.sqlite")
    report = report_json("capture", path)
    assert report["verdict"]["category"] == "insufficient_data"
    # nobody attaches anything to a capture: the user collects it again (a ticket's reporter attaches)
    assert "Next: collect a new capture: `nsys profile" in report["verdict"]["summary"]
    assert "attach" not in report["verdict"]["summary"]
    ask = _asks(report)["capture.trace_present"]
    assert "--trace=cuda,nvtx,osrt" in ask and "--cuda-graph-trace=node" in ask
    text = diagnose("capture", path, "--fail-on", "never", env={"COLUMNS": "120"}).stdout
    block = _next_block(text)
    assert "--trace=cuda,nvtx,osrt" in block and "(capture.trace_present)" in block
    assert "Fix: attach a new capture" not in text  # said once, in the Next list
    assert text.count("--cuda-graph-trace=node") == 2  # the verdict line and the Next list
    markdown = diagnose("capture", path, "--format", "md", "--fail-on", "never").stdout
    assert "### Next" in markdown and "`capture.trace_present`" in markdown
    html = diagnose("capture", path, "--format", "html", "--fail-on", "never").stdout
    assert "<h2>Next</h2>" in html and "<code>nsys profile --trace=cuda,nvtx,osrt" in html


def test_capture_with_a_certain_cause_asks_nothing():
    """The demo capture's cause is in its recorded launch line: no "Next" under a confident verdict."""
    args = ("capture", REPO / "samples/captures/tp8_pcie_fallback.sqlite", "--model", "llama-3-70b", "--tp", "8")
    report = report_json(*args)
    assert report["verdict"]["confidence"] >= 0.75 and report["verdict"]["category"] == "shm_fallback"
    assert _asks(report)  # JSON keeps each finding's ask as data
    text = diagnose(*args, "--fail-on", "never").stdout
    assert "Next:" not in text
    assert "### Next" not in diagnose(*args, "--format", "md", "--fail-on", "never").stdout


def test_scaling_of_one_layout_names_the_layout_to_measure():
    report = report_json("scaling", BENCH, "--model", BENCH_MODEL, "--gpu", "l40s")
    assert report["verdict"]["category"] == "expected_physics"
    assert _asks(report)["scaling.tracks_prediction"] == "the same benchmark at TP2 to judge the scaling"
    text = diagnose("scaling", BENCH, "--model", BENCH_MODEL, "--gpu", "l40s").stdout
    assert "the same benchmark at TP2" in _next_block(text)


def test_fleet_with_too_few_nodes_says_how_to_collect_more():
    report = report_json("fleet", REPO / "samples/fleet")
    ask = _asks(report)["fleet.too_few_nodes"]
    assert (ask.startswith("`diagnose node --standard --json") and "a100-80gb-sxm" in ask
            and "h100-sxm" not in ask.replace("a100-80gb-sxm", ""))
    assert "outvote" in next(f["summary"] for f in report["findings"] if f["rule"] == "fleet.too_few_nodes")
    assert "diagnose node --standard --json" in _next_block(diagnose("fleet", REPO / "samples/fleet").stdout)


def test_compare_of_different_layouts_says_what_to_compare():
    args = ("compare", REPO / "samples/captures/tp4_nvlink_healthy.sqlite",
            REPO / "samples/captures/tp8_pcie_fallback.sqlite")
    assert "compare.layout_differs" in _asks(report_json(*args))


def test_ticket_lists_its_asks_in_its_own_table_only():
    folder = REPO / "samples/tickets/gptoss-tp2-slower"
    markdown = diagnose("ticket", folder, "--fail-on", "never").stdout
    assert "### Next" not in markdown

"""HTML reports in a real headless Chromium: they load with no console errors, no blocked
fetches (the page is offline by construction) and their SVG plots render with a real size.

Chromium is driven over the DevTools protocol on a pipe (--remote-debugging-pipe): standard
library only, no port. Where Chromium is absent the browser tests skip with the reason; the
CI script installs Debian's `chromium`.
"""

from __future__ import annotations

import json
import os
import re
import select
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from click.testing import CliRunner
from conftest import REPO, shared_path

from diagnose.cli import cli
from diagnose.findings import Evidence, Finding, Report, Verdict
from diagnose.report.html import render_html

# --------------------------------------------------------------------------- Chromium driver

CANDIDATES = ("chromium", "chromium-browser", "google-chrome", "chrome")


def find_chromium() -> str | None:
    for name in CANDIDATES:
        path = shutil.which(name)
        if path:
            return path
    return None


@dataclass
class Page:
    url: str
    messages: list[dict] = field(default_factory=list)  # console / exception / log events
    measure: object = None  # what the measuring script returned

    def problems(self) -> list[str]:
        """Console errors and warnings, exceptions, and browser log errors (e.g. CSP, network)."""
        out = []
        for m in self.messages:
            p = m.get("params", {})
            if m["method"] == "Runtime.exceptionThrown":
                out.append("exception: " + json.dumps(p.get("exceptionDetails", {}))[:300])
            elif m["method"] == "Runtime.consoleAPICalled" and p.get("type") in ("error", "warning", "assert"):
                out.append(f"console.{p.get('type')}: " + " ".join(str(a.get("value")) for a in p.get("args", [])))
            elif m["method"] == "Log.entryAdded" and p.get("entry", {}).get("level") in ("error", "warning"):
                e = p["entry"]
                out.append(f"log {e.get('source')} {e.get('level')}: {e.get('text')} {e.get('url', '')}")
        return out


class Browser:
    """One headless Chromium for many page loads."""

    def __init__(self, binary: str, timeout: float = 20.0):
        self.timeout = timeout
        self.profile = tempfile.mkdtemp(prefix="diagnose-chromium-")
        to_chrome_r, self._w = os.pipe()
        self._r, from_chrome_w = os.pipe()

        def wire():  # Chromium reads commands on fd 3 and writes answers on fd 4
            import fcntl

            high_r = fcntl.fcntl(to_chrome_r, fcntl.F_DUPFD, 10)  # out of the way of 3 and 4 first
            high_w = fcntl.fcntl(from_chrome_w, fcntl.F_DUPFD, 10)
            os.dup2(high_r, 3)
            os.dup2(high_w, 4)

        self.proc = subprocess.Popen(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--remote-debugging-pipe",
             "--no-first-run", "--disable-extensions", f"--user-data-dir={self.profile}", "about:blank"],
            pass_fds=(3, 4), preexec_fn=wire,
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )
        os.close(to_chrome_r)
        os.close(from_chrome_w)
        self._buf = b""
        self._id = 0
        self.events: list[dict] = []

    def _send(self, method: str, params: dict | None = None, session: str | None = None) -> int:
        self._id += 1
        msg = {"id": self._id, "method": method, "params": params or {}}
        if session:
            msg["sessionId"] = session
        os.write(self._w, json.dumps(msg).encode() + b"\0")
        return self._id

    def _wait(self, pred, deadline: float) -> dict:
        while True:
            while b"\0" in self._buf:
                raw, self._buf = self._buf.split(b"\0", 1)
                msg = json.loads(raw)
                if "id" not in msg:
                    self.events.append(msg)
                if pred(msg):
                    return msg
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("chromium did not answer in time")
            ready, _, _ = select.select([self._r], [], [], min(left, 0.5))
            if ready:
                chunk = os.read(self._r, 1 << 20)
                if not chunk:
                    raise RuntimeError("chromium exited")
                self._buf += chunk

    def call(self, method: str, params: dict | None = None, session: str | None = None,
             deadline: float | None = None) -> dict:
        i = self._send(method, params, session)
        answer = self._wait(lambda m: m.get("id") == i, deadline or time.monotonic() + self.timeout)
        if "error" in answer:
            raise RuntimeError(f"{method}: {answer['error']}")
        return answer.get("result", {})

    def load(self, path: Path, measure_js: str) -> Page:
        """Open `path` in a fresh tab, wait for the load event, run `measure_js` (returns JSON)."""
        deadline = time.monotonic() + self.timeout
        target = self.call("Target.createTarget", {"url": "about:blank"}, deadline=deadline)["targetId"]
        session = self.call("Target.attachToTarget", {"targetId": target, "flatten": True},
                            deadline=deadline)["sessionId"]
        for domain in ("Runtime.enable", "Log.enable", "Page.enable"):
            self.call(domain, session=session, deadline=deadline)
        start = len(self.events)
        url = Path(path).resolve().as_uri()
        self._send("Page.navigate", {"url": url}, session)
        self._wait(lambda m: m.get("method") == "Page.loadEventFired" and m.get("sessionId") == session, deadline)
        result = self.call("Runtime.evaluate", {"expression": measure_js, "returnByValue": True}, session, deadline)
        self.call("Target.closeTarget", {"targetId": target}, deadline=deadline)
        kinds = ("Runtime.consoleAPICalled", "Runtime.exceptionThrown", "Log.entryAdded")
        messages = [e for e in self.events[start:] if e.get("method") in kinds and e.get("sessionId") == session]
        value = result.get("result", {}).get("value")
        return Page(url, messages, json.loads(value) if isinstance(value, str) else value)

    def close(self) -> None:
        try:
            self._send("Browser.close")
            self.proc.wait(10)
        except Exception:
            self.proc.kill()
        finally:
            os.close(self._w)
            os.close(self._r)
            shutil.rmtree(self.profile, ignore_errors=True)


# What the HTML tests measure on every page: each SVG plot's rendered size and its contents.
MEASURE_SVGS = """JSON.stringify([...document.querySelectorAll('svg.plot')].map(s => {
  const r = s.getBoundingClientRect();
  return {cls: s.getAttribute('class'), title: (s.querySelector('title') || {}).textContent || '',
          width: r.width, height: r.height,
          marks: s.querySelectorAll('polyline, circle, rect').length,
          ceilings: [...s.querySelectorAll('.ceiling')].map(c => c.getBoundingClientRect().width)};
}))"""


def screenshot(binary: str, path: Path, png: Path, size=(1200, 1600), timeout: float = 30.0) -> None:
    """chromium --headless --screenshot of a file."""
    profile = tempfile.mkdtemp(prefix="diagnose-chromium-")
    try:
        subprocess.run(
            [binary, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", f"--user-data-dir={profile}",
             f"--window-size={size[0]},{size[1]}", f"--screenshot={png}", Path(path).resolve().as_uri()],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=timeout, check=True,
        )
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def png_pixels(png: Path) -> tuple[int, int, list[bytes]]:
    """Decode an 8-bit RGB/RGBA non-interlaced PNG (what Chromium writes): width, height, rows."""
    import struct
    import zlib

    data = png.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n", "not a PNG"
    pos, idat, width = 8, b"", 0
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b"IHDR":
            width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", body)
            assert depth == 8 and colour in (2, 6) and interlace == 0, (depth, colour, interlace)
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * bpp
    rows, prev = [], bytearray(stride)
    for y in range(height):
        f, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], (prev[i - bpp] if i >= bpp else 0)
            if f == 1:
                line[i] = (line[i] + a) & 255
            elif f == 2:
                line[i] = (line[i] + b) & 255
            elif f == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif f == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append(bytes(line) if bpp == 3 else bytes(v for k, v in enumerate(line) if k % 4 != 3))
        prev = line
    return width, height, rows


# --------------------------------------------------------------------------- fixtures

CHROMIUM = find_chromium()
needs_chromium = pytest.mark.skipif(
    CHROMIUM is None,
    reason="headless Chromium is not installed (Debian: `apt-get install -y chromium`; .ci/run installs it)",
)


@pytest.fixture(scope="module")
def browser():
    b = Browser(CHROMIUM)
    try:
        b.call("Target.getTargets")
    except (RuntimeError, TimeoutError, OSError) as exc:
        b.close()
        pytest.skip(f"{CHROMIUM} is installed but does not start headless here: {exc}")
    yield b
    b.close()


def ticket_report(folder: str) -> Report:
    """A ticket report the way `diagnose ticket` builds it: real artifacts -> facts -> rules."""
    from diagnose.bundle import read_bundle
    from rules.engine import evaluate, verdict

    path = next(shared_path("tickets").glob(folder + "*"))
    facts = read_bundle([path])
    findings = evaluate(facts)
    return Report(kind="ticket", inputs={"bundle": path.name[:3]}, facts=facts.to_dict(), findings=findings,
                  verdict=verdict(findings, facts.missing))


def rendered(browser, tmp_path, report: Report, name="report.html"):
    path = tmp_path / name
    path.write_text(render_html(report), encoding="utf-8")
    return browser.load(path, MEASURE_SVGS)


def assert_renders(page, *titles):
    """No console errors or warnings, every plot has a real size and marks, the wanted plots exist."""
    assert page.problems() == [], page.problems()
    svgs = page.measure
    assert svgs, "no plot on the page"
    for svg in svgs:
        assert svg["width"] > 100 and svg["height"] > 50 and svg["marks"] >= 2, svg  # background + data
    found = [s["title"] for s in svgs]
    for title in titles:
        assert any(title in f for f in found), (title, found)
    return {s["title"]: s for s in svgs}


# --------------------------------------------------------------------------- no browser needed


HOSTILE = '<script>alert("x")</script><img src="http://example.invalid/a.png">'


def test_user_text_is_escaped_and_page_is_offline():
    report = Report(
        kind="ticket",
        inputs={"bundle": HOSTILE},
        facts={"topology_path": [{"source": HOSTILE, "a": "GPU0", "b": "GPU1", "path": "NV4", "nvlinks": 4},
                                 {"source": "x", "a": "GPU1", "b": "GPU0", "path": "NV4", "nvlinks": 4}]},
        findings=[Finding("t.x", "other", "warning", 0.5, HOSTILE, HOSTILE, [Evidence(HOSTILE, HOSTILE, HOSTILE, 1)],
                          fix=HOSTILE)],
        verdict=Verdict("other", 0.5, HOSTILE),
        tables={HOSTILE: {"columns": [HOSTILE], "rows": [[HOSTILE]], "note": HOSTILE}},
    )
    html = render_html(report)
    assert "<script" not in html and "<img" not in html
    assert html.count("&lt;script&gt;") >= 8
    # Nothing is fetched: no src/href attributes at all, and a CSP that forbids fetching.
    assert not re.search(r"<[^>]*\s(src|href)=", html)
    assert "default-src 'none'" in html


def test_html_format_is_offered():
    from diagnose.report import FORMATS

    assert "html" in FORMATS


def test_plots_are_well_formed_svg(tmp_path, straggler_capture):
    """Without a browser: every plot of every kind parses as XML with a size and a title."""
    import xml.etree.ElementTree as ET

    pages = [
        command_html(tmp_path, "predict", "predict", "--model", "llama-3-70b", "--gpu", "h100-sxm", "--tp", "1,2,4,8"),
        command_html(tmp_path, "capture", "capture", *straggler_capture),
        command_html(tmp_path, "node", "node", "--replay", RECORDINGS / "dgx-h100-topo-numa.json"),
    ]
    pages.append(tmp_path / "sweep.html")
    sweep = Report(kind="node", facts={"collective_result": published_sweep()})
    pages[-1].write_text(render_html(sweep), encoding="utf-8")
    count = 0
    for page in pages:
        for svg in re.findall(r"<svg\b.*?</svg>", page.read_text(encoding="utf-8"), flags=re.S):
            root = ET.fromstring(svg)
            assert float(root.get("width")) > 100 and float(root.get("height")) > 50
            assert root.find("{http://www.w3.org/2000/svg}title").text
            count += 1
    assert count >= 6


# --------------------------------------------------------------------------- in Chromium


@needs_chromium
def test_browser_check_catches_errors(browser, tmp_path):
    """The harness itself: a blocked remote image and a script error are both reported."""
    page = tmp_path / "bad.html"
    page.write_text(
        "<!DOCTYPE html><html><head><meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'\">"
        '</head><body><img src="http://example.invalid/a.png">'
        '<svg class="plot" width="0" height="0"></svg></body></html>'
    )
    result = browser.load(page, MEASURE_SVGS)
    assert any("example.invalid" in p or "Content Security Policy" in p for p in result.problems()), result.messages
    assert result.measure[0]["width"] == 0  # and a zero-size plot would fail assert_renders


@needs_chromium
def test_topology_heatmap_from_real_topo_matrix(browser, tmp_path):
    """DGX H100 `nvidia-smi topo -m` (ticket 080): 8x8 GPU pairs, all NV18."""
    page = rendered(browser, tmp_path, ticket_report("080-"))
    plots = assert_renders(page, "GPU-pair topology")
    heat = plots["GPU-pair topology"]
    assert heat["marks"] >= 64 + 1  # one rect per GPU pair plus the legend


@needs_chromium
def test_p2p_bandwidth_heatmap_from_real_p2p_test(browser, tmp_path):
    """HGX H100 p2pBandwidthLatencyTest (ticket 071): 56 measured pairs as a heatmap."""
    page = rendered(browser, tmp_path, ticket_report("071-"))
    plots = assert_renders(page, "P2P bandwidth")
    assert any(s["marks"] >= 64 for t, s in plots.items() if "P2P bandwidth" in t)


@needs_chromium
def test_collective_plots_multinode_without_intranode_ceiling(browser, tmp_path):
    """nccl-tests rows from a 2-node A100 run (ticket 006): latency and busbw curves render,
    and no NVSwitch ceiling is drawn, because the traffic crossed InfiniBand."""
    report = ticket_report("006-")
    html = render_html(report)
    assert "Multi-node run" in html
    page = rendered(browser, tmp_path, report)
    plots = assert_renders(page, "Bus bandwidth: all_reduce", "Latency: all_reduce")
    assert plots["Bus bandwidth: all_reduce"]["ceilings"] == []


@needs_chromium
def test_screenshot_is_not_blank(tmp_path):
    path = tmp_path / "report.html"
    path.write_text(render_html(ticket_report("080-")), encoding="utf-8")
    png = tmp_path / "shot.png"
    screenshot(CHROMIUM, path, png, size=(900, 700))
    width, height, rows = png_pixels(png)
    assert (width, height) == (900, 700)
    colours = set()
    for row in rows[::7]:
        colours.update(row[i:i + 3] for i in range(0, len(row), 21))
    dark = sum(1 for row in rows[::7] for i in range(0, len(row), 21) if sum(row[i:i + 3]) < 200)
    assert len(colours) > 20 and dark > 50, (len(colours), dark)


# --------------------------------------------------------------------------- every command


RECORDINGS = Path(__file__).parent / "recordings"


def command_html(tmp_path, name, *args) -> Path:
    """Run a command with --format html -o FILE, as a user would."""
    out = tmp_path / f"{name}.html"
    result = CliRunner().invoke(cli, [str(a) for a in args]
                                + ["--format", "html", "-o", str(out), "--fail-on", "never"])
    assert result.exit_code == 0, (name, result.output, result.exception)
    html = out.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and "Verdict:" in html
    return out


def node_json(tmp_path, recording, name):
    """A node report replayed from its own copy of the recording (named after the node), as each live
    node names its own host: fleet counts reports of the same text once."""
    import shutil

    out = tmp_path / f"{name}.json"
    own = tmp_path / f"{name}.recording.json"
    shutil.copy(RECORDINGS / recording, own)
    result = CliRunner().invoke(cli, ["node", "--replay", str(own), "--json", "-o", str(out),
                                      "--fail-on", "never"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def straggler_capture(tmp_path_factory):
    gen = pytest.importorskip("samples.generate_capture", reason="the capture generator (samples/) is not installed")
    return gen.generate("straggler", tmp_path_factory.mktemp("cap") / "tp4.sqlite", kernels=3000)


@needs_chromium
def test_predict_html_scaling_chart(browser, tmp_path):
    path = command_html(tmp_path, "predict", "predict", "--model", "llama-3-70b", "--gpu", "h100-sxm",
                        "--tp", "1,2,4,8")
    plots = assert_renders(browser.load(path, MEASURE_SVGS), "Scaling")
    assert plots["Scaling"]["marks"] >= 2 * 3  # predicted and ideal lines with their points


@needs_chromium
def test_scaling_html_measured_predicted_ideal(browser, tmp_path):
    """gpt-fast's published TP1..TP8 decode rates (the scaling command's test data): measured,
    the model's expected and roofline throughput, and ideal linear scaling, four lines."""
    data = Path(__file__).parent / "data" / "scaling" / "gpt-fast-llama-2-7b-a100.csv"
    if not data.exists():
        pytest.skip(f"{data} is absent")
    path = command_html(tmp_path, "scaling", "scaling", data, "--model", "llama-2-7b", "--gpu", "a100-80gb-sxm")
    html = path.read_text(encoding="utf-8")
    for label in ("measured decode tok/s", "expected", "roofline", "ideal: linear from 1"):
        assert f">{label}<title>" in html  # a legend entry
    # the three dashed lines each have their own pattern
    assert {m for m in re.findall(r'<polyline [^>]*stroke-dasharray="([^"]+)"', html)} == {"7,4", "2,3", "10,3,2,3"}
    plots = assert_renders(browser.load(path, MEASURE_SVGS), "Scaling")
    assert plots["Scaling"]["marks"] >= 4 * 4 + 4  # four lines of four layouts, with their markers


@needs_chromium
def test_capture_html_breakdown_and_steps(browser, tmp_path, straggler_capture):
    path = command_html(tmp_path, "capture", "capture", *straggler_capture)
    plots = assert_renders(browser.load(path, MEASURE_SVGS), "Per-GPU breakdown", "Step times")
    assert plots["Per-GPU breakdown"]["marks"] >= 4 * 3  # 4 ranks x (compute, exposed comm, idle)
    html = path.read_text(encoding="utf-8")
    # steps in the order they ran beside the expected and roofline steps (the capture's own prediction)
    assert ">expected step (" in html and ">roofline step (" in html and 'class="ceiling"' in html


def test_capture_with_one_step_says_why_there_is_no_step_plot():
    from diagnose.report.html import _step_figures

    report = Report(kind="capture", facts={"step_durations": [{"source": "capture:x.sqlite", "duration_ms": 26.4}]})
    ((caption, svg),) = _step_figures(report, report.facts)
    assert svg is None and caption.startswith("No step plot: the capture holds 1 complete step(s)")


@needs_chromium
def test_ticket_and_node_html(browser, tmp_path):
    ticket = command_html(tmp_path, "ticket", "ticket", next(shared_path("tickets").glob("033-*")))
    assert_renders(browser.load(ticket, MEASURE_SVGS), "GPU-pair topology")
    node = command_html(tmp_path, "node", "node", "--replay", RECORDINGS / "hgx-h100-smi-p2p-bidirectional.json")
    assert_renders(browser.load(node, MEASURE_SVGS), "P2P bandwidth")


@needs_chromium
def test_compare_and_fleet_html(browser, tmp_path):
    a = node_json(tmp_path, "dgx-h100-topo-numa.json", "a")
    b = node_json(tmp_path, "dgx-h100-topo-numa.json", "b")
    c = node_json(tmp_path, "dgx-h100-topo-numa.json", "c")
    same = command_html(tmp_path, "compare", "compare", a, b)
    assert "No chart of changes: all" in same.read_text(encoding="utf-8")  # zero-length bars say nothing
    captures = REPO / "samples" / "captures"
    compare = command_html(tmp_path, "compare", "compare", captures / "straggler_rank0.sqlite",
                           captures / "straggler_rank1.sqlite")
    assert_renders(browser.load(compare, MEASURE_SVGS), "Changes")
    fleet = command_html(tmp_path, "fleet", "fleet", a, b, c)
    assert_renders(browser.load(fleet, MEASURE_SVGS), "Fleet outliers")


def published_sweep(row_start: str = "| 8× H100 SXM (DGX) | NCCL via PyTorch (vidur", n: int = 8) -> list[dict]:
    """An all_reduce sweep on a DGX as collectives-reference.md quotes it [R14] (kernel times for
    16 KiB .. 64 MiB), read from the document; busbw by nccl-tests' formula."""
    doc = shared_path("docs", "collectives-reference.md").read_text(encoding="utf-8").splitlines()
    at = next(i for i, line in enumerate(doc) if line.startswith(row_start))
    cells = [c.strip() for c in doc[at].split("|")]
    sized = next(line for line in reversed(doc[: at + 1]) if "KiB / " in line)  # "same sizes": the row above
    sizes = [int(s.split()[0]) << {"KiB": 10, "MiB": 20}[s.split()[1]]
             for s in sized.split("|")[4].strip().split(" / ")]
    times = [float(t.split()[0]) for t in cells[6].split(" / ")]
    return [{"source": "collectives-reference.md [R14]", "op": "all_reduce", "size_bytes": s, "time_us": t,
             "algbw_gbs": s / t / 1e3, "busbw_gbs": s / t / 1e3 * 2 * (n - 1) / n, "nranks": n, "in_place": False}
            for s, t in zip(sizes, times)]


@needs_chromium
def test_collective_plots_with_catalog_ceilings(browser, tmp_path):
    """A single-node DGX H100 sweep: the catalog's NVSwitch gen3 line rate and typical busbw are
    drawn across the busbw plot, its base latency across the latency plot."""
    rows = published_sweep()
    assert len(rows) == 6 and round(rows[2]["busbw_gbs"]) == 56  # the document's own figure at 1 MiB
    report = Report(kind="node", facts={
        "gpu_fact": [{"source": "probe:nvml", "index": i, "name": "NVIDIA H100 80GB HBM3"} for i in range(8)],
        "collective_result": rows,
    })
    html = render_html(report)
    assert "NVSwitch gen3" in html
    plots = assert_renders(rendered(browser, tmp_path, report), "Bus bandwidth: all_reduce", "Latency: all_reduce")
    bus = plots["Bus bandwidth: all_reduce"]
    assert len(bus["ceilings"]) == 2 and min(bus["ceilings"]) > 100
    assert len(plots["Latency: all_reduce"]["ceilings"]) == 1


@needs_chromium
def test_nvlink_state_grid_shows_the_down_link(browser, tmp_path):
    """DGX H100 replay with GPU3 link 5 down: a GPU x link grid, 144 cells, one of them down."""
    from test_fleet import recording_with_link_down

    path = command_html(tmp_path, "node", "node", "--replay", recording_with_link_down(tmp_path))
    assert "143 up, 1 down" in path.read_text(encoding="utf-8")
    plots = assert_renders(browser.load(path, MEASURE_SVGS), "NVLink state", "GPU-pair topology")
    assert plots["NVLink state"]["marks"] >= 144 + 2


@needs_chromium
def test_one_line_per_rank_count(browser, tmp_path):
    """The published DGX H100 sweeps on 8, 4 and 2 of its GPUs [R14]: one line each."""
    rows = (published_sweep() + published_sweep("| 4 of 8× H100 (DGX) |", 4)
            + published_sweep("| 2 of 8× H100 (DGX) |", 2))
    assert {r["nranks"] for r in rows} == {8, 4, 2} and len(rows) == 18
    report = Report(kind="node", facts={"collective_result": rows})
    html = render_html(report)
    for label in (">×8<", ">×4<", ">×2<"):
        assert label in html
    plots = assert_renders(rendered(browser, tmp_path, report), "Bus bandwidth: all_reduce", "Latency: all_reduce")
    assert plots["Latency: all_reduce"]["marks"] >= 3 * (1 + 6) + 1  # three lines of six points


# --------------------------------------------------------------------------- a screenshot per plot kind


def _plot_pages(tmp_path) -> dict[str, Report]:
    """A real report for each kind of plot the HTML report draws."""
    def report_of(*args) -> Report:
        result = CliRunner().invoke(cli, [str(a) for a in args] + ["--json", "--fail-on", "never"])
        assert result.exit_code == 0, (args, result.stderr)
        return Report.from_dict(json.loads(result.stdout))

    samples = Path(__file__).parent.parent / "samples"
    node = [node_json(tmp_path, "dgx-h100-topo-numa.json", n) for n in "abc"]
    return {
        "Scaling": report_of("scaling", samples / "scaling" / "runs.csv", "--model", "llama-2-7b",
                             "--gpu", "a100-80gb-sxm"),
        "Step times": report_of("capture", *sorted((samples / "captures").glob("straggler_rank*.sqlite"))),
        "Per-GPU breakdown": report_of("capture", samples / "captures" / "tp8_pcie_fallback.sqlite"),
        "P2P bandwidth": report_of("node", "--replay", RECORDINGS / "hgx-h100-smi-p2p-bidirectional.json"),
        "GPU-pair topology": report_of("node", "--replay", RECORDINGS / "dgx-h100-topo-numa.json"),
        "Latency: all_reduce": Report(kind="node", facts={"collective_result": published_sweep()}),
        "Changes": report_of("compare", samples / "captures" / "straggler_rank0.sqlite",
                             samples / "captures" / "straggler_rank1.sqlite"),
        "Fleet outliers": report_of("fleet", *node),
    }


@needs_chromium
def test_a_screenshot_of_each_plot_kind_shows_a_drawing(tmp_path):
    """Each kind of plot, on its own page, screenshot by Chromium: many colours and dark ink (axes,
    labels, marks), not a blank box. DIAGNOSE_SHOTS=DIR keeps the PNGs to look at."""
    from diagnose.report.html import figures_for

    keep = os.environ.get("DIAGNOSE_SHOTS")
    for title, report in _plot_pages(tmp_path).items():
        svgs = [svg for _, svg in figures_for(report) if svg and f"<title>{title}" in svg]
        assert svgs, (title, [s[:120] for _, s in figures_for(report)])
        page = tmp_path / f"{title}.html".replace(" ", "_").replace(":", "")
        page.write_text(f"<!DOCTYPE html><html><body style='margin:0;background:#fff'>{svgs[0]}</body></html>",
                         encoding="utf-8")
        png = page.with_suffix(".png")
        screenshot(CHROMIUM, page, png, size=(720, 560))
        _, _, rows = png_pixels(png)
        colours = {row[i:i + 3] for row in rows[::5] for i in range(0, len(row), 15)}
        dark = sum(1 for row in rows[::5] for i in range(0, len(row), 15) if sum(row[i:i + 3]) < 300)
        assert len(colours) > 8 and dark > 20, (title, len(colours), dark)
        if keep:
            shutil.copy(png, Path(keep) / png.name)


def test_code_spans_and_reference_links():
    """A rule's `code` shows as code and its https references are links; a reference that is not a
    plain https URL stays text."""
    f = Finding("t.x", "other", "warning", 0.5, "title", "run `nvidia-smi topo -m` <b>", fix="attach `dmesg`",
                references=["https://docs.nvidia.com/deploy/nvidia-smi/index.html", "javascript:alert(1)"])
    html = render_html(Report(kind="ticket", findings=[f]))
    assert "run <code>nvidia-smi topo -m</code> &lt;b&gt;" in html and "attach <code>dmesg</code>" in html
    assert '<a href="https://docs.nvidia.com/deploy/nvidia-smi/index.html" rel="noreferrer">' in html
    assert 'href="javascript' not in html and "javascript:alert(1)" in html


def test_verdict_code_spans_show_as_code(tmp_path):
    """The verdict's own text (here the Next asks of the fleet sample's H100 nodes, which quote commands)
    shows its `code` as code, as findings do, never as literal backticks; markup in it stays inert."""
    from click.testing import CliRunner

    from diagnose.cli import cli

    for sample in Path("samples/fleet").glob("*h100*.json"):  # the A100 and A40 nodes' own causes lead otherwise
        shutil.copy(sample, tmp_path / sample.name)
    out = tmp_path / "fleet.html"
    result = CliRunner().invoke(cli, ["fleet", str(tmp_path), "--format", "html", "-o", str(out)])
    assert result.exit_code == 0, result.output
    verdict = out.read_text(encoding="utf-8").split('<div class="verdict', 1)[1].split("</div></div>", 1)[0]
    assert "<code>diagnose node --standard --json -o $(hostname).json</code>" in verdict
    assert "`" not in verdict

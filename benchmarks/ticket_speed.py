"""How `diagnose ticket` time grows with the size of what is pasted: real pastes read as they are and grown.

A support engineer pastes a whole NCCL_DEBUG=INFO log or a long issue thread. Each input is read at 1x and grown to
each --sizes factor by repeating its body, as a user pasting a longer log would (an issue's title stays once, its
body is repeated; a log is repeated whole; a ticket folder has each attachment grown, its ticket.toml kept). Inputs:
the two largest kept pastes (tests/data/fa24), an NCCL debug log and a small ticket from ../shared/tickets; and a
small kept paste with one run of a single kind of character after it (RUNS: spaces, tabs, blank lines, digits, a
letter), 2 kB at x1, the run grown with the size factor.

Each size is read in ONE process of its own (`diagnose ticket --json`, the command's whole path), so the fixed cost
of that process is paid once and printed apart: the import, and the regexes compiled (time inside re's compiler,
all of a process's compiles). Prints, per input and size: bytes, seconds, seconds per 100 kB, and the ratio of the
largest size's time to the 1x time (linear growth reads as a ratio near the size factor). A ratio printed here is
measured in one run on a loaded machine: a speed target is this script, never a timed test.

Each process first reads the small ticket once, untimed in the table: that first read pays most of the fixed cost
(printed as the warm-up), so the inputs' times are what their size costs (each run's own compile time is printed too).

    python benchmarks/ticket_speed.py [--sizes 1,4,10] [--only NAME_PART] [--repo CHECKOUT]

(--repo: time another checkout of the code, e.g. main's, with these same inputs.)
"""

from __future__ import annotations

import argparse
import json
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
SHARED = REPO.parent / "shared" / "tickets"
INPUTS = {  # name -> path (a file, or a ticket folder)
    "issue 97 kB (fa24 asus)": REPO / "tests/data/fa24/validated_asus_esc8000a_e12_4x_rtx6000ada.md",
    "issue 52 kB (fa24 puget)": REPO / "tests/data/fa24/validated_puget_wrx90_2x_rtx6000ada.md",
    "NCCL debug log (shared 032)": SHARED / "032-nccl-tests-152-a100-nv-peer-mem-not-loaded/attachment2.log",
    "small ticket (shared 030)": SHARED / "030-nccl-451-docker-ibv-open-device-failed-socket",
}
NOT_READ = {"expected.toml"}  # a shared ticket's answer, not part of the ticket
# A small real issue with one run of a single kind of character added after it, 2 kB at x1 and grown with the size
# factor: aligned output pasted with its padding, a log with its blank lines, a hex dump. A pattern that tries a run
# from each of its characters costs the run's length squared here (20 kB of spaces took 408 s before the clause
# splitter was bounded); linear reading keeps the ratio near the size factor.
RUN_BASE = REPO / "tests/data/insuff32/djl1798.md"
# a run of one failure word, unpunctuated: each match reads the sentence before it (the thirty-eighth session bounded
# that read at hearsay.SENTENCE_SPAN; read back to the text's start, 2,500 x 停滞 had taken 0.7 s in claims alone)
RUNS = {"spaces": " ", "tabs": "\t", "blank lines": "\n", "digits and dots": "3.14.159.2", "one letter": "a",
        "a hang word": "stuck ", "a Chinese stall word": "停滞"}


def grown(path: Path, times: int, into: Path) -> Path:
    """`path` with its body repeated `times` times, written under `into`."""
    if path.is_dir():
        folder = into / path.name
        folder.mkdir()
        for item in sorted(path.iterdir()):
            if item.name in NOT_READ:
                continue
            if item.name == "ticket.toml":
                shutil.copy(item, folder / item.name)
            else:
                grown(item, times, folder)
        return folder
    text = path.read_text(errors="replace")
    if path.suffix == ".md":  # an issue: its title once, then the body again and again
        title, _, body = text.partition("\n")
        text = title + "\n" + "\n".join([body.rstrip("\n")] * times) + "\n"
    else:
        text = "\n".join([text.rstrip("\n")] * times) + "\n"
    out = into / path.name
    out.write_text(text)
    return out


def with_run(unit: str, times: int, into: Path) -> Path:
    """RUN_BASE with one run of `unit`, 2 kB a size step, on a line of its own after it."""
    out = into / RUN_BASE.name
    run = unit * (2000 * times // len(unit))
    out.write_text(RUN_BASE.read_text() + "\n" + run + "\n")
    return out


def size_of(path: Path) -> int:
    return sum(p.stat().st_size for p in path.iterdir()) if path.is_dir() else path.stat().st_size


# The worker: one process reads every input of one size. re's compiler is wrapped to count the time spent compiling.
WORKER = r"""
import json, re, sys, time
start = time.perf_counter()
sys.path.insert(0, sys.argv[1])
try:
    from re import _compiler
except ImportError:  # Python 3.10
    import sre_compile as _compiler
compiling = [0.0, 0]
_compile = _compiler.compile
def timed(*args, **kwargs):
    t = time.perf_counter()
    try:
        return _compile(*args, **kwargs)
    finally:
        compiling[0] += time.perf_counter() - t
        compiling[1] += 1
_compiler.compile = timed
from click.testing import CliRunner
from diagnose.cli import cli
imported = time.perf_counter() - start
out = {"import_s": imported, "runs": []}
for path in sys.argv[2:]:  # the first is the warm-up
    before = compiling[0]
    t = time.perf_counter()
    result = CliRunner().invoke(cli, ["ticket", path, "--json"])
    seconds = time.perf_counter() - t
    out["runs"].append({"path": path, "seconds": seconds, "compile_s": compiling[0] - before,
                        "exit": result.exit_code, "error": repr(result.exception) if result.exit_code > 1 else None})
out["compile_s"], out["compiled"] = compiling
print(json.dumps(out))
"""


def run_size(repo: Path, paths: list[Path]) -> dict:
    done = subprocess.run([sys.executable, "-c", WORKER, str(repo), *map(str, paths)], capture_output=True,
                          text=True, check=False)
    if done.returncode:
        sys.exit(f"worker failed: {done.stderr[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1,4,10", help="growth factors, comma-separated (1 is always run)")
    parser.add_argument("--only", default="", help="only the inputs whose name holds this")
    parser.add_argument("--repo", type=Path, default=REPO, help="the checkout whose code is timed")
    args = parser.parse_args()
    sizes = sorted({1, *(int(s) for s in args.sizes.split(","))})
    inputs: dict[str, Path | str] = {name: path for name, path in INPUTS.items() if path.exists()}
    inputs |= {f"run of {name} ({RUN_BASE.stem})": unit for name, unit in RUNS.items() if RUN_BASE.exists()}
    inputs = {name: item for name, item in inputs.items() if args.only.lower() in name.lower()}
    times: dict[str, dict[int, float]] = {name: {} for name in inputs}
    warm_up = INPUTS["small ticket (shared 030)"]
    with tempfile.TemporaryDirectory() as tmp:
        (Path(tmp) / "warm").mkdir()
        warm_up = grown(warm_up, 1, Path(tmp) / "warm")
        for size in sizes:
            into = Path(tmp) / f"x{size}"
            into.mkdir()
            paths = {}
            for k, (name, path) in enumerate(inputs.items()):
                (into / str(k)).mkdir()
                paths[name] = with_run(path, size, into / str(k)) if isinstance(path, str) else \
                    grown(path, size, into / str(k))
            started = time.perf_counter()
            result = run_size(args.repo, [warm_up, *paths.values()])
            wall = time.perf_counter() - started
            first = result["runs"][0]
            print(f"x{size}: one process, {wall:.1f} s in all; import {result['import_s']:.2f} s; regex compile "
                  f"{result['compile_s']:.2f} s in all ({result['compiled']} patterns); warm-up read of the small "
                  f"ticket {first['seconds']:.2f} s (of which compile {first['compile_s']:.2f} s)")
            for (name, path), run in zip(paths.items(), result["runs"][1:]):
                kb = size_of(path) / 1000
                times[name][size] = run["seconds"]
                note = f"  exit {run['exit']} {run['error']}" if run["error"] else ""
                print(f"  {name:30} {kb:8.1f} kB {run['seconds']:8.2f} s  {run['seconds'] / kb * 100:7.2f} s/100 kB"
                      f"  (of which compile {run['compile_s']:.2f} s){note}")
    top = sizes[-1]
    if top > 1:
        print(f"ratio of the x{top} time to the x1 time (linear: about {top}):")
        for name, by_size in times.items():
            print(f"  {name:30} {by_size[top] / by_size[1]:6.1f}")


if __name__ == "__main__":
    main()

"""How long `diagnose capture` takes on a large export, against the cheapest possible query.

Generates (or reuses) an nsys export with N kernel rows and one launch-API row per kernel
(samples.generate_capture, eager scenario), then in one run times, each in its own process:
  1. a bare SQLite aggregate over the kernel table (GROUP BY name: count, sum of durations);
  2. the full `diagnose capture FILE --json` analysis.
Prints the ratio and each process's peak memory (ru_maxrss from wait4).
Targets (issue 3): analysis within 3x the bare aggregate, peak memory under 1 GB.

    python benchmarks/capture_bench.py [--kernels 5000000] [--path FILE] [--profile]
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent

BARE = """
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
rows = db.execute('''SELECT s.value, count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k
                     JOIN StringIds s ON s.id = k.shortName GROUP BY k.shortName''').fetchall()
print(len(rows), "kernel names")
"""

PROFILED = """
import cProfile, pstats, sys
from diagnose.cli import cli
prof = cProfile.Profile()
prof.enable()
try:
    cli.main(["capture", sys.argv[1], "--json", "-o", sys.argv[2], "--fail-on", "never"], standalone_mode=False)
finally:
    prof.disable()
    pstats.Stats(prof, stream=sys.stderr).sort_stats("cumulative").print_stats(25)
"""


def timed(argv: list[str]) -> tuple[float, int, str, float]:
    """Run argv; return (wall seconds, peak RSS in MB of that process, its stdout+stderr tail,
    CPU seconds (user + system) of that process)."""
    start = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{argv[:4]} failed:\n{out[-3000:]}")
    return wall, usage.ru_maxrss // 1024, out, usage.ru_utime + usage.ru_stime


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--kernels", type=int, default=5_000_000)
    p.add_argument("--path", help="use (or create) this export instead of a temporary one")
    p.add_argument("--scenario", default="eager_no_graphs", help="scenario to scale up (eager: one launch per kernel)")
    p.add_argument("--schema", default="recent", choices=("recent", "old"))
    p.add_argument("--profile", action="store_true", help="also run the analysis under cProfile (top 25)")
    a = p.parse_args()

    tmp = None
    if a.path and Path(a.path).exists():
        path = Path(a.path)
        print(f"reusing {path}")
    else:
        if a.path:
            path = Path(a.path)
        else:
            tmp = tempfile.TemporaryDirectory(prefix="capture_bench_")
            path = Path(tmp.name) / "big.sqlite"
        # In a child process: a fork of a large parent would inflate the children's ru_maxrss.
        gen_s, gen_mb, *_ = timed([sys.executable, "-m", "samples.generate_capture", "--scenario", a.scenario,
                                  "-o", str(path), "--kernels", str(a.kernels), "--schema", a.schema])
        print(f"generated {path} in {gen_s:.1f} s (generator peak {gen_mb} MB)")

    db = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    kernels = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_KERNEL").fetchone()[0]
    runtime = db.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME").fetchone()[0]
    db.close()
    print(f"{kernels:,} kernel rows, {runtime:,} runtime rows, {path.stat().st_size / 1e9:.2f} GB")

    out_json = path.with_suffix(".report.json")
    bare_s, bare_mb, _, bare_cpu = timed([sys.executable, "-c", BARE, str(path)])
    full_s, full_mb, _, full_cpu = timed([sys.executable, "-m", "diagnose", "capture", str(path), "--json", "-o", str(out_json),
                                "--fail-on", "never"])
    ratio = full_s / bare_s
    print(f"bare aggregate (GROUP BY name)  {bare_s:8.2f} s   cpu {bare_cpu:6.2f} s   peak {bare_mb:6d} MB")
    print(f"diagnose capture (full)         {full_s:8.2f} s   cpu {full_cpu:6.2f} s   peak {full_mb:6d} MB")
    print(f"ratio {ratio:.2f}x (target <= 3x): {'ok' if ratio <= 3 else 'MISSED'};"
          f" peak memory {full_mb} MB (target < 1024 MB): {'ok' if full_mb < 1024 else 'MISSED'}")
    print(f"CPU time ratio {full_cpu / bare_cpu:.2f}x (the analysis runs the CUDA API and NVTX aggregates on a "
          f"second thread: wall time is lower than CPU time where a second core is free)")
    if a.profile:
        _, _, prof, _ = timed([sys.executable, "-c", PROFILED, str(path), str(out_json)])
        print(prof[-6000:])
    if tmp:
        tmp.cleanup()
    return 0


if __name__ == "__main__":
    sys.exit(main())

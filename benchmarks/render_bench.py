"""How long the terminal renderer takes on a long table (an NVTX summary of a training run has
tens of thousands of ranges), laid out by rich and by the plain path tables over PLAIN_ROWS take.
Both give the same text (tests/test_terminal_layout.py); prints each time and the ratio.

    python benchmarks/render_bench.py [--rows 18500] [--width 120]
"""

from __future__ import annotations

import argparse
import time

from diagnose.findings import Report
from diagnose.report import terminal


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=18500)
    parser.add_argument("--width", type=int, default=120)
    args = parser.parse_args()
    rows = [[0.9, 12_680_044 - i, 1, 12_680_044.0, 12_680_044.0, 12_680_044, 12_680_044, 0.0, "PushPop",
             f"aten::_to_copy, op_id = {999_600 + i}"] for i in range(args.rows)]
    report = Report(kind="capture", tables={"NVTX range summary": {
        "columns": ["Time (%)", "Total Time (ns)", "Count", "Avg", "Med", "Min", "Max", "StdDev", "Style", "Name"],
        "rows": rows}})
    start = time.perf_counter()
    plain = terminal.render_terminal(report, width=args.width)
    t_plain = time.perf_counter() - start
    terminal.PLAIN_ROWS = 10**12
    start = time.perf_counter()
    rich = terminal.render_terminal(report, width=args.width)
    t_rich = time.perf_counter() - start
    print(f"{args.rows} rows at {args.width} columns: plain {t_plain:.2f} s, rich {t_rich:.2f} s, "
          f"{t_rich / t_plain:.1f}x faster; same text: {plain == rich}")


if __name__ == "__main__":
    main()

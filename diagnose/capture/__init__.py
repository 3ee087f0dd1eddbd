"""Nsight Systems capture analysis: reader, nsys-stats summaries, timeline, multi-rank, facts."""

import os

# numpy's OpenBLAS starts one spinning thread per core when numpy is imported: 60-80 ms of CPU
# on every run (measured with `python -c "import numpy"` under /usr/bin/time, 2 cores). The
# capture analysis calls no BLAS routine, so one thread; a value the user set is kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")


def capture_facts(paths, names=None):
    """Facts records of nsys SQLite exports analysed together (entry point for the ticket bundle reader)."""
    from diagnose.capture.facts import capture_facts as _capture_facts

    return _capture_facts(paths, names)

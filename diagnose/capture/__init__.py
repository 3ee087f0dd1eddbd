"""Nsight Systems capture analysis: reader, nsys-stats summaries, timeline, multi-rank, facts."""


def capture_facts(paths, names=None):
    """Facts records of nsys SQLite exports analysed together (entry point for the ticket bundle reader)."""
    from diagnose.capture.facts import capture_facts as _capture_facts

    return _capture_facts(paths, names)

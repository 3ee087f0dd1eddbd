"""Nsight Systems capture analysis: reader, nsys-stats summaries, timeline, multi-rank, facts."""


def capture_facts(path, name=None):
    """Facts records of one nsys SQLite export (entry point for the ticket bundle reader)."""
    from diagnose.capture.facts import capture_facts as _capture_facts

    return _capture_facts(path, name)

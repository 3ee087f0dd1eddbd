"""Errors that map onto the documented exit codes.

Raise `InputError` for anything the user handed us that we cannot read (exit 2) and
`ProbeError` when a measurement or the tool itself failed (exit 3). The CLI turns both into
one line on stderr; nothing else should reach the user as a traceback.
"""

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_BAD_INPUT = 2
EXIT_TOOL_FAILED = 3


class DiagnoseError(Exception):
    exit_code = EXIT_TOOL_FAILED


class InputError(DiagnoseError):
    """Bad usage or unreadable input: a file, a name, a field. Exit code 2."""

    exit_code = EXIT_BAD_INPUT


class ProbeError(DiagnoseError):
    """A probe or the tool itself failed. Exit code 3."""

    exit_code = EXIT_TOOL_FAILED


def strict() -> bool:
    """DIAGNOSE_STRICT set (the tests set it to 1): a crashing parser, rule or plot raises
    instead of becoming a note or finding. The one place the variable is read."""
    import os

    return os.environ.get("DIAGNOSE_STRICT", "") not in ("", "0")


def closest_names(name: str, known, n: int = 5) -> list[str]:
    """The known names nearest to `name`, for 'did you mean' messages."""
    import difflib

    known = list(known)
    lowered = {k.lower(): k for k in known}
    hits = difflib.get_close_matches(name.lower(), list(lowered), n=n, cutoff=0.4)
    contains = [k for k in known if name.lower() in k.lower() or k.lower() in name.lower()]
    out = []
    for k in contains + [lowered[h] for h in hits]:
        if k not in out:
            out.append(k)
    return out[:n]

"""`.nsys-rep` input: export it to SQLite with the installed `nsys`, into a temporary folder.

The analysis reads SQLite exports only; an Nsight Systems report is converted by the tool that
wrote it (`nsys export --type sqlite`), never parsed here. Without `nsys` on PATH the user is told
the command to run where it is installed.
"""

from __future__ import annotations

from pathlib import Path

from diagnose.errors import InputError

REPORT_SUFFIXES = (".nsys-rep", ".qdrep")
EXPORT_TIMEOUT_S = 1800
EXPORTED: set[str] = set()  # the temporary exports written by this run (capture.cache keeps none of them)


def is_report(path) -> bool:
    return Path(path).suffix.lower() in REPORT_SUFFIXES


def export_command(path) -> list[str]:
    p = Path(path)
    return ["nsys", "export", "--type", "sqlite", "--output", str(p.with_suffix(".sqlite")), str(p)]


def to_sqlite(path) -> Path:
    """The SQLite export of an .nsys-rep report, written by `nsys export` into a temporary folder
    (removed at exit); InputError when nsys is absent or the export fails."""
    import atexit  # here, not at the top: every `diagnose capture` run imports this module
    import shutil
    import subprocess
    import tempfile

    p = Path(path)
    if not p.is_file():
        raise InputError(f"{p}: no such file")
    nsys = shutil.which("nsys")
    if not nsys:
        raise InputError(f"{p}: an Nsight Systems report, and `nsys` is not installed here to export it; run "
                         f"`{' '.join(export_command(p))}` where it is, and give the .sqlite file")
    folder = Path(tempfile.mkdtemp(prefix="diagnose-nsys-"))
    atexit.register(shutil.rmtree, folder, True)
    out = folder / (p.stem + ".sqlite")
    try:
        done = subprocess.run([nsys, "export", "--type", "sqlite", "--force-overwrite", "true", "--output", str(out),
                               str(p)], capture_output=True, text=True, timeout=EXPORT_TIMEOUT_S)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise InputError(f"{p}: `nsys export` did not finish ({exc})") from None
    if done.returncode != 0 or not out.is_file():
        last = (done.stderr or done.stdout or "").strip().splitlines()[-1:] or ["no output"]
        raise InputError(f"{p}: `nsys export` failed (exit {done.returncode}: {last[0][:200]})")
    EXPORTED.add(str(out))
    return out

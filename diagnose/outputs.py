"""Writing a report file so that an interrupted run never leaves half of one.

The text goes to a temporary file beside the target, then is renamed over it in one step
(rename is atomic within a folder on POSIX). A target that is a symbolic link, or exists and
is not a regular file (a FIFO a script reads, a device), is written through directly: renaming
over it would replace the link or node itself, not feed what it points to. `-o /dev/stdout`
with stdout redirected to a file is the case that matters: /dev/stdout is a link whose target
is that regular file, and a rename would replace the system's /dev/stdout.
"""

from __future__ import annotations

import os
import stat
import tempfile


def write_atomic(path, text: str) -> None:
    """Write `text` (UTF-8) to `path` by rename; OSError as the caller's to report."""
    path = os.fspath(path)
    try:
        mode = os.lstat(path).st_mode  # the link itself, not what it points to
    except FileNotFoundError:
        mode = None
    if mode is not None and not stat.S_ISREG(mode):
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(text)
        return
    folder = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{os.path.basename(path)}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
        umask = os.umask(0)
        os.umask(umask)
        os.chmod(tmp, stat.S_IMODE(mode) if mode is not None else 0o666 & ~umask)
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise

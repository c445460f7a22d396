"""Atomic file writes: a crash (even SIGKILL) leaves the old file or the new one, never half of one.

The one write helper every stage uses. `fsync=True` also survives power loss (the bytes and the
directory entry reach the disk), for files that are the record of truth (golden manifests).
"""

from __future__ import annotations

import os
import uuid
from pathlib import Path


def fsync_dir(path: str | Path) -> None:
    """Persist a directory entry (a rename or a new file) so it survives power loss, not just SIGKILL."""
    try:
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:  # platforms without directory fds (Windows): rename durability is best effort
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)


def write_bytes_atomic(
    path: str | Path,
    data: bytes,
    *,
    fsync: bool = False,
    tmp_dir: str | Path | None = None,
    tmp_prefix: str | None = None,
) -> None:
    """Write `data` to a temp file, then rename it over `path`.

    tmp_dir: where the temp file goes (default: beside `path`; it must be on the same file
    system); tmp_prefix: its name's start (default `.<name>.`), for sweepers that clean up after
    a crash by prefix. The temp file is opened like any new file, so the umask sets its mode.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    where = Path(tmp_dir) if tmp_dir is not None else path.parent
    prefix = tmp_prefix if tmp_prefix is not None else f".{path.name}."
    tmp = where / f"{prefix}{uuid.uuid4().hex}.tmp"
    try:
        with open(tmp, "xb") as f:
            f.write(data)
            if fsync:
                f.flush()
                os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            tmp.unlink(missing_ok=True)
        except OSError:
            pass
        raise
    if fsync:
        fsync_dir(path.parent)


def write_text_atomic(path: str | Path, text: str, *, fsync: bool = False) -> None:
    write_bytes_atomic(path, text.encode("utf-8"), fsync=fsync)

"""Advisory file locks (flock): the kernel drops them when their holder dies, so a SIGKILLed
process never leaves a stale lock behind. Build and publish locks are both made of these."""

from __future__ import annotations

import fcntl
import os
from pathlib import Path


def open_lock_file(path: str | Path) -> int:
    """A descriptor on the lock file (created if absent); closing it releases any lock it holds."""
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    return os.open(path, os.O_RDWR | os.O_CREAT, 0o644)


def try_flock(fd: int, *, shared: bool = False) -> bool:
    """Take the lock without waiting: True when held, False when another process holds it."""
    try:
        fcntl.flock(fd, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
    except BlockingIOError:
        return False
    return True

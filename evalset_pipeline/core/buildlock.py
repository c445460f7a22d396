"""One build per data directory at a time.

Two builds writing one data directory mix their corpora (each stage reads its inputs from where
the previous stage left them, whoever that was). So a build takes an exclusive `flock` on
`<data>/.build.lock` for its whole duration, and records who it is (pid, start time, corpus)
in `<data>/.build.holders/<pid>.json`, so a second build can say whom it is waiting for. The
kernel drops a flock when its holder dies: a SIGKILLed build never leaves a stale lock, and a
holder file whose pid is gone is ignored and cleaned up.

Dagster steps launched outside `evalset build` (UI, schedule, sensor, `dagster asset
materialize`) take the same lock *shared* for the step's duration (the `settings` resource does
it), so they cannot run while a CLI build holds the directory, and a CLI build cannot start
while one of them is mid-step. Runs of the build job are kept one per data dir by Dagster's run
queue (tag `evalset/data_dir`, deploy/dagster.yaml); see docs/golden_sets.md.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from pathlib import Path

from evalset_pipeline.core.atomic import write_text_atomic
from evalset_pipeline.core.flock import open_lock_file, try_flock
from evalset_pipeline.core.paths import DataPaths

POLL_S = 0.2


class BuildLocked(RuntimeError):
    """Another build holds the data directory; the message names it."""


@dataclass(frozen=True)
class Holder:
    pid: int
    kind: str  # "evalset build" | "evalset import" | "dagster step"
    started_at: str  # UTC, ISO 8601
    corpus: str
    host: str
    detail: str = ""  # e.g. the Dagster run id and step

    def describe(self) -> str:
        extra = f", {self.detail}" if self.detail else ""
        source = "input" if self.kind == "evalset import" else "corpus"
        return f"{self.kind} pid {self.pid} on {self.host}, started {self.started_at}, {source} {self.corpus}{extra}"


# Data dirs whose exclusive lock this process holds: its own in-process steps must not re-lock
# (flock conflicts between two descriptors even within one process).
_held: dict[Path, Holder] = {}
_held_lock = threading.Lock()


def _key(paths: DataPaths) -> Path:
    return paths.root.resolve()


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def holders(paths: DataPaths) -> list[Holder]:
    """Who holds the data directory now (live processes only; files of dead ones are removed)."""
    folder = paths.build_holders
    out = []
    for path in sorted(folder.glob("*.json")) if folder.is_dir() else []:
        try:
            holder = Holder(**json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError, TypeError):
            continue
        if _alive(holder.pid) and holder.pid != os.getpid():
            out.append(holder)
        elif not _alive(holder.pid):
            path.unlink(missing_ok=True)
    return out


def _describe_holders(paths: DataPaths) -> str:
    found = holders(paths)
    if not found:
        return "another process (it left no holder record)"
    return "; ".join(h.describe() for h in found)


def _record(paths: DataPaths, holder: Holder) -> Path:
    path = paths.build_holders / f"{holder.pid}.json"
    write_text_atomic(path, json.dumps(asdict(holder)))
    return path


def _me(kind: str, corpus: str | Path, detail: str = "") -> Holder:
    return Holder(
        os.getpid(),
        kind,
        datetime.now(UTC).isoformat(timespec="seconds"),
        str(corpus),
        socket.gethostname(),
        detail,
    )


@contextmanager
def build_lock(
    paths: DataPaths,
    corpus: str | Path,
    *,
    wait: bool = False,
    timeout_s: float | None = None,
    on_wait: Callable[[str], None] | None = None,
    kind: str = "evalset build",
) -> Iterator[Holder]:
    """Hold the data directory exclusively for a whole build (or an import: `kind` is what a
    second process is told holds it).

    wait=False: `BuildLocked` at once, naming the holder. wait=True: block until it is free (or
    `timeout_s` passes), calling `on_wait(description of the holder)` once.
    """
    fd = open_lock_file(paths.build_lock)
    record: Path | None = None
    try:
        told = False
        deadline = None if timeout_s is None else time.monotonic() + timeout_s
        while not try_flock(fd):
            who = _describe_holders(paths)
            if not wait:
                raise BuildLocked(
                    f"{paths.root} is in use by {who}. One build per data directory at a time: "
                    f"wait for it to finish, or run with --wait to queue behind it."
                )
            if deadline is not None and time.monotonic() >= deadline:
                raise BuildLocked(f"{paths.root} stayed in use by {who} for {timeout_s:.0f}s")
            if not told and on_wait is not None:
                on_wait(who)
                told = True
            time.sleep(POLL_S)
        holder = _me(kind, corpus)
        record = _record(paths, holder)
        with _held_lock:
            _held[_key(paths)] = holder
        yield holder
    finally:
        with _held_lock:
            if record is not None:
                _held.pop(_key(paths), None)
        if record is not None:
            record.unlink(missing_ok=True)
        os.close(fd)  # releases the flock


def held_here(paths: DataPaths) -> bool:
    with _held_lock:
        return _key(paths) in _held


@contextmanager
def step_lock(paths: DataPaths, corpus: str | Path, detail: str = "") -> Iterator[None]:
    """For a Dagster step not run by `evalset build`: the data directory, shared, for the step.

    A no-op inside a process that holds the build lock for this directory (its own steps).
    Fails at once, naming the holder, while a CLI build holds it.
    """
    if held_here(paths):
        yield
        return
    fd = open_lock_file(paths.build_lock)
    record: Path | None = None
    try:
        if not try_flock(fd, shared=True):
            raise BuildLocked(
                f"{paths.root} is in use by {_describe_holders(paths)}; this step did not start. "
                f"Launch it again when that build has finished."
            )
        record = _record(paths, _me("dagster step", corpus, detail))
        yield
    finally:
        if record is not None:
            record.unlink(missing_ok=True)
        os.close(fd)

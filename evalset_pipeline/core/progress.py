"""Where stages report what they are doing: the stage that started, and countable work in it
(pages rendered, pages embedded, model calls).

A display in the same process (the `evalset build` progress bars) installs itself with
`showing(sink)`; without one these calls do nothing (the stage's log gets every tenth, see
defs/resources.py). Display only: nothing here changes what a stage computes.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Protocol


class Sink(Protocol):
    def started(self, stage: str) -> None: ...

    def advance(self, task: str, done: int, total: int | None) -> None: ...  # total None: not known


_sinks: list[Sink] = []


@contextmanager
def showing(sink: Sink) -> Iterator[Sink]:
    _sinks.append(sink)
    try:
        yield sink
    finally:
        _sinks.remove(sink)


def started(stage: str) -> None:
    for sink in list(_sinks):
        sink.started(stage)


def report(task: str, done: int, total: int | None) -> None:
    for sink in list(_sinks):
        sink.advance(task, done, total)

"""The live display of `evalset build` in a terminal: the running stage, and one bar per stage
with countable work (render, embed, each model task). Drawn on stderr with rich; never used when
stderr is not a terminal, with --json or with --verbose (the events are the display then)."""

from __future__ import annotations

import time

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
)


class BuildProgress:
    """A `core.progress.Sink` backed by one rich Progress."""

    def __init__(self, console: Console | None = None):
        self.progress = Progress(
            SpinnerColumn(),
            TextColumn("{task.description:<40}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=console or Console(stderr=True),
            transient=False,
        )
        self.tasks: dict[str, int] = {}
        self.stage_task: int | None = None
        self.stage_name = ""
        self.stage_since = 0.0

    def __enter__(self) -> BuildProgress:
        self.progress.start()
        self.stage_task = self.progress.add_task("starting", total=None)
        return self

    def __exit__(self, *exc) -> None:
        if self.stage_task is not None:
            self.progress.update(self.stage_task, description="done", total=1, completed=1)
        for task in self.progress.tasks:  # counts without a known total end as full bars
            if task.total is None:
                self.progress.update(task.id, total=task.completed)
        self.progress.stop()

    def started(self, stage: str) -> None:
        self.stage_name, self.stage_since = stage, time.monotonic()
        if self.stage_task is not None:
            self.progress.update(self.stage_task, description=f"running {stage}")

    def advance(self, task: str, done: int, total: int | None) -> None:
        if task not in self.tasks:
            self.tasks[task] = self.progress.add_task(task, total=total)
        self.progress.update(self.tasks[task], completed=done, total=total)

"""Open the model backend for a stage and keep what the stage spent beside its table."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager

from evalset_pipeline.core.atomic import write_text_atomic
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.vlm.cache import CachedBackend, CallStats

MODEL_STAGES = ("candidate_questions", "validated_questions", "candidate_labels")


@contextmanager
def stage_backend(ctx: StageContext, stage: str) -> Iterator[CachedBackend]:
    if ctx.open_backend is None:
        raise RuntimeError(f"{stage} needs a model backend, and none was configured")
    backend: CachedBackend = ctx.open_backend()
    made: dict[str, int] = {}

    def calls_made(task: str, n: int) -> None:  # model calls (cache hits are not work), per task
        made[task] = made.get(task, 0) + n
        if ctx.progress:
            ctx.progress(f"{stage} · {task} calls", made[task], None)

    backend.on_progress = calls_made
    try:
        yield backend
    finally:
        backend.cache.close()
    write_text_atomic(
        ctx.paths.table_file(f"{stage}.calls.json"), json.dumps(backend.stats.as_dict())
    )


def load_call_stats(ctx: StageContext) -> CallStats:
    total = CallStats()
    for stage in MODEL_STAGES:
        path = ctx.paths.table_file(f"{stage}.calls.json")
        if path.exists():
            total = total.merge(CallStats.from_dict(json.loads(path.read_text())))
    return total

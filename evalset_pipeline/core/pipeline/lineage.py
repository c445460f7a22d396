"""Who produced a working table: recorded by the stage that wrote it, read by whoever publishes it.

A golden set's provenance and config fingerprint must describe the rows it publishes, not the
settings of whichever run happens to publish them (`dagster asset materialize --select
golden_set` runs with default resources). So each model stage writes, beside its table, a small
record of what produced it (the backend identity, the build knobs, the sha256 of the table
bytes it wrote). The record is only believed while the table still has those bytes.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from evalset_pipeline.core.atomic import write_text_atomic
from evalset_pipeline.core.hashing import canonical_json, sha256_file
from evalset_pipeline.core.pipeline.context import StageContext


class LineageMismatch(RuntimeError):
    """A table has no producer record, or the record describes other bytes than the table holds."""


@dataclass(frozen=True)
class Producer:
    stage: str
    table_sha256: str  # sha256 of the table file the stage wrote
    backend: dict[str, Any]  # backend identity: backend, model, prompt hashes (never a secret)
    knobs: dict[str, Any]  # BuildConfig.knobs() of the run that wrote the table


def _record_path(ctx: StageContext, stage: str) -> Path:
    return ctx.paths.table_file(f"{stage}.producer.json")


def record_producer(ctx: StageContext, stage: str, backend_identity: dict[str, Any]) -> Producer:
    """Call right after the stage wrote `tables/<stage>.parquet`."""
    producer = Producer(
        stage, sha256_file(ctx.paths.table(stage)), dict(backend_identity), ctx.config.knobs()
    )
    write_text_atomic(_record_path(ctx, stage), canonical_json(asdict(producer)))
    return producer


def load_producer(ctx: StageContext, stage: str, table_sha256: str | None = None) -> Producer:
    """The producer of the table as it is now; `LineageMismatch` if it cannot be vouched for."""
    path = _record_path(ctx, stage)
    if not path.exists():
        raise LineageMismatch(
            f"{stage} has no producer record ({path.name}): materialize {stage} again "
            f"so the table says which model and settings produced it"
        )
    producer = Producer(**json.loads(path.read_text(encoding="utf-8")))
    actual = table_sha256 or sha256_file(ctx.paths.table(stage))
    if producer.table_sha256 != actual:
        raise LineageMismatch(
            f"{stage}.parquet (sha256 {actual[:12]}…) is not the table its producer record "
            f"describes ({producer.table_sha256[:12]}…): it was changed outside the pipeline; "
            f"materialize {stage} again"
        )
    return producer

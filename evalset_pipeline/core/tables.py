"""Working tables: one Parquet file per asset, replaced atomically.

Why Parquet and not DuckDB for these: the multiprocess executor runs independent assets
(metadata, embeddings) at the same time, and DuckDB admits one writing process per file.
Each asset owning its own file means no step ever waits on another's lock, and any asset can
be re-materialized alone because its inputs are plain files where upstream left them.
"""

from __future__ import annotations

import io
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.atomic import write_bytes_atomic


class MissingUpstream(FileNotFoundError):
    """An asset's input was never materialized."""


def write_table(path: str | Path, table: pa.Table) -> None:
    buf = io.BytesIO()
    pq.write_table(table, buf, compression="zstd")
    write_bytes_atomic(path, buf.getvalue())


def write_rows(path: str | Path, rows: Iterable[dict[str, Any]], schema: pa.Schema) -> pa.Table:
    table = pa.Table.from_pylist(list(rows), schema=schema)
    write_table(path, table)
    return table


def read_table(path: str | Path, *, producer: str | None = None) -> pa.Table:
    path = Path(path)
    if not path.exists():
        who = producer or path.stem
        raise MissingUpstream(
            f"{path} does not exist: materialize the `{who}` asset first "
            f"(e.g. `dagster asset materialize -m evalset_pipeline.definitions --select {who}`)"
        )
    return pq.read_table(path)


def read_rows(path: str | Path, *, producer: str | None = None) -> list[dict[str, Any]]:
    return read_table(path, producer=producer).to_pylist()

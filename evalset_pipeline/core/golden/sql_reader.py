"""A read-only SQL connection to the reader copy that a publish's swap cannot break.

DuckDB opens a database file three times while connecting read-only (checked with `strace`: a
magic-byte read, the header, then the handle it reads blocks through). A publish that swaps a
new reader copy in (`warehouse.build_reader_db`: `os.replace`) between the second and the third
open hands the connection one file's header and the other file's blocks, and the connect, or
its first read, fails with an IO error ("Could not read enough bytes from file …"). Both files
are complete; only the straddling connect is broken, so it is opened again: the next connect
reads one file whole. A connection that opened cleanly keeps its file until it is closed.
"""

from __future__ import annotations

from pathlib import Path

import duckdb

from evalset_pipeline.core.golden.layout import GoldenLayout
from evalset_pipeline.core.paths import DataPaths

__all__ = ["CONNECT_ATTEMPTS", "connect_golden_sql"]

# A swap takes microseconds and publishes are seconds apart: two straddled connects in a row
# would need two publishes within one connect; a third failure is a real error.
CONNECT_ATTEMPTS = 3


def connect_golden_sql(data_dir: str | Path | None = None) -> duckdb.DuckDBPyConnection:
    """A read-only connection to `golden/evalsets_read.duckdb` (tables `golden_*`, views
    `latest_golden_*`), retried when a connect straddled a publish's swap. Raises the IO error
    of the last attempt when every one fails (a missing or damaged file fails every time)."""
    path = GoldenLayout(DataPaths.at(data_dir)).reader_db
    if not path.exists():
        raise FileNotFoundError(
            f"{path}: no reader copy yet (it is written by the first publish of a golden set)"
        )
    for attempt in range(1, CONNECT_ATTEMPTS + 1):
        con = None
        try:
            con = duckdb.connect(str(path), read_only=True)
            con.execute("SELECT count(*) FROM golden_sets").fetchone()  # reads through the handle
            return con
        except duckdb.IOException:
            if con is not None:
                con.close()
            if attempt == CONNECT_ATTEMPTS:
                raise
    raise AssertionError("unreachable")  # the loop returns or raises

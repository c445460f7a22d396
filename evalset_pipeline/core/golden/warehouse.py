"""DuckDB side of golden sets: the writer's warehouse and the swapped-in reader copy.

DuckDB allows one read-write process *or* any number of read-only processes per file, and a
read-only open fails while a writer holds the file. Hence two files:

- `evalsets.duckdb` (the warehouse): written by the pipeline in one short transaction per
  version. Fine for ad-hoc SQL when no build is running; a long-lived reader here would block
  the next publish (it retries, then fails clearly).
- `golden/evalsets_read.duckdb` (the reader copy): rebuilt from the immutable snapshots after
  every publish into a temp file and `os.replace`d into place. Nobody ever opens it read-write,
  so read-only connections never meet a lock; a connection opened before a swap keeps reading
  the old inode, which is also a complete set of versions. (A connect that a swap straddles can
  fail: DuckDB opens the file three times while connecting; `sql_reader.connect_golden_sql`
  opens it again.)
"""

from __future__ import annotations

import os
import random
import shutil
import time
from collections.abc import Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from evalset_pipeline.core.atomic import fsync_dir
from evalset_pipeline.core.golden.errors import GoldenSetLocked
from evalset_pipeline.core.golden.layout import GoldenLayout, fsync_file
from evalset_pipeline.core.golden.schema import GOLDEN_PUBLISHES, GOLDEN_SETS, TABLES
from evalset_pipeline.core.golden.snapshot import FILES, golden_sets_table

_SQL_TYPES = {
    pa.string(): "VARCHAR",
    pa.int64(): "BIGINT",
    pa.timestamp("us", tz="UTC"): "TIMESTAMPTZ",
    pa.bool_(): "BOOLEAN",
}
# Latest = the version of the last publish event (the current inputs), not the highest seq. Data
# written before publish events existed has none: the highest seq of a built version then (an
# import never becomes latest without an event, issue 30).
_LATEST_ID = (
    "(SELECT coalesce((SELECT version_id FROM golden_publishes ORDER BY event DESC LIMIT 1), "
    "(SELECT version_id FROM golden_sets WHERE coalesce(json_extract_string(provenance_json, "
    "'$.kind'), '') <> 'import' ORDER BY seq DESC LIMIT 1)))"
)
VIEWS = {
    "latest_golden_set": f"SELECT * FROM golden_sets WHERE version_id = {_LATEST_ID}",
    "latest_golden_items": f"SELECT * FROM golden_items WHERE version_id = {_LATEST_ID}",
    "latest_golden_judgments": f"SELECT * FROM golden_judgments WHERE version_id = {_LATEST_ID}",
    "latest_golden_units": f"SELECT * FROM golden_units WHERE version_id = {_LATEST_ID}",
}


def _columns(schema: pa.Schema) -> str:
    return ", ".join(f'"{name}"' for name in schema.names)


def _create_table(name: str, schema: pa.Schema, primary_key: str | None = None) -> str:
    cols = [f'"{f.name}" {_SQL_TYPES[f.type]}' for f in schema]
    if primary_key:
        cols.append(f'PRIMARY KEY ("{primary_key}")')
    return f"CREATE TABLE IF NOT EXISTS {name} ({', '.join(cols)})"


def ensure_schema(con: duckdb.DuckDBPyConnection) -> None:
    con.execute(_create_table("golden_sets", GOLDEN_SETS, primary_key="version_id"))
    con.execute(_create_table("golden_publishes", GOLDEN_PUBLISHES, primary_key="event"))
    for name, schema in TABLES.items():
        con.execute(_create_table(name, schema))
    for name, sql in VIEWS.items():
        con.execute(f"CREATE OR REPLACE VIEW {name} AS {sql}")


def connect_writer(path: Path, timeout_s: float) -> duckdb.DuckDBPyConnection:
    """Open the warehouse read-write, waiting (with jittered backoff) while another process holds it."""
    path.parent.mkdir(parents=True, exist_ok=True)
    deadline = time.monotonic() + timeout_s
    delay = 0.02
    while True:
        try:
            con = duckdb.connect(str(path))
            ensure_schema(con)
            return con
        except duckdb.IOException as exc:
            if "lock" not in str(exc).lower():
                raise
            if time.monotonic() >= deadline:
                raise GoldenSetLocked(
                    f"{path} stayed locked for {timeout_s:.0f}s by another process ({exc}). "
                    "Close other DuckDB sessions on the warehouse (SQL readers belong on "
                    "golden/evalsets_read.duckdb) and publish again; the snapshot was not made visible."
                ) from exc
            time.sleep(delay * (0.5 + random.random()))
            delay = min(delay * 2, 1.0)


def known_versions(con: duckdb.DuckDBPyConnection) -> set[str]:
    return {r[0] for r in con.execute("SELECT version_id FROM golden_sets").fetchall()}


def max_seq(con: duckdb.DuckDBPyConnection) -> int:
    """Highest seq the warehouse ever gave out: seq stays monotonic even if a snapshot goes unreadable."""
    return _count(con, "SELECT coalesce(max(seq), 0) FROM golden_sets")


def max_event(con: duckdb.DuckDBPyConnection) -> int:
    return _count(con, "SELECT coalesce(max(event), 0) FROM golden_publishes")


def _count(con: duckdb.DuckDBPyConnection, sql: str) -> int:
    row = con.execute(sql).fetchone()  # an aggregate always returns one row
    return int(row[0]) if row is not None else 0


def publishes_table(events: Iterable[dict[str, Any]]) -> pa.Table:
    rows = [
        {
            k: (datetime.fromisoformat(v) if k == "published_at" else v)
            for k, v in e.items()
            if k in GOLDEN_PUBLISHES.names
        }
        for e in events
    ]
    return pa.Table.from_pylist(rows, schema=GOLDEN_PUBLISHES)


def insert_events(con: duckdb.DuckDBPyConnection, events: Iterable[dict[str, Any]]) -> int:
    """Insert the publish events the warehouse lacks (one transaction); returns how many."""
    have = {r[0] for r in con.execute("SELECT event FROM golden_publishes").fetchall()}
    new = [e for e in events if e["event"] not in have]
    if not new:
        return 0
    con.execute("BEGIN TRANSACTION")
    try:
        con.register("_incoming_golden_publishes", publishes_table(new))
        cols = _columns(GOLDEN_PUBLISHES)
        con.execute(
            f"INSERT INTO golden_publishes ({cols}) SELECT {cols} FROM _incoming_golden_publishes"
        )
        con.unregister("_incoming_golden_publishes")
        con.execute("COMMIT")
    except BaseException:
        con.execute("ROLLBACK")
        raise
    return len(new)


def insert_version(
    con: duckdb.DuckDBPyConnection, row: dict[str, Any], tables: dict[str, pa.Table | Path]
) -> bool:
    """Insert one version's rows in a single transaction; False (and no change) if it is already there.
    A table given as a path is its snapshot Parquet file, read by DuckDB in bounded memory (a
    large import's million rows are never held in Python)."""
    sources: dict[str, pa.Table | Path] = {"golden_sets": golden_sets_table([row]), **tables}
    con.execute("BEGIN TRANSACTION")
    try:
        if con.execute(
            "SELECT 1 FROM golden_sets WHERE version_id = ?", [row["version_id"]]
        ).fetchone():
            con.execute("ROLLBACK")
            return False
        for name, table in sources.items():
            if isinstance(table, Path):
                cols = _columns(TABLES[name])
                con.execute(
                    f"INSERT INTO {name} ({cols}) SELECT {cols} FROM read_parquet(?)", [str(table)]
                )
                continue
            view = f"_incoming_{name}"
            con.register(view, table)
            try:
                cols = _columns(table.schema)
                con.execute(f"INSERT INTO {name} ({cols}) SELECT {cols} FROM {view}")
            finally:
                con.unregister(view)
        con.execute("COMMIT")
        return True
    except BaseException:
        con.execute("ROLLBACK")
        raise


def reader_db_state(path: Path) -> tuple[int, int, int] | None:
    """(number of versions, max seq, max publish event) in the reader copy, or None if missing or unreadable."""
    try:
        con = duckdb.connect(str(path), read_only=True)
    except (duckdb.Error, OSError):
        return None
    try:
        row = con.execute(
            "SELECT count(*), coalesce(max(seq), -1), "
            "(SELECT coalesce(max(event), -1) FROM golden_publishes) FROM golden_sets"
        ).fetchone()
        return (int(row[0]), int(row[1]), int(row[2])) if row else None
    except duckdb.Error:
        return None
    finally:
        con.close()


def _reader_db_versions(path: Path) -> set[str] | None:
    try:
        con = duckdb.connect(str(path), read_only=True)
    except (duckdb.Error, OSError):
        return None
    try:
        return known_versions(con)
    except duckdb.Error:
        return None
    finally:
        con.close()


def build_reader_db(
    layout: GoldenLayout, rows: Iterable[dict[str, Any]], events: Iterable[dict[str, Any]] = ()
) -> Path:
    """Write a reader copy holding exactly `rows`' versions and swap it in atomically.

    Incremental when possible: the current copy is never written after its swap (it was closed
    and checkpointed, no WAL), so a byte copy of it plus the new versions' rows is a valid new
    copy. That keeps a publish O(one version) instead of O(all versions). Falls back to a full
    rebuild when the copy is missing, unreadable, or holds a version that no longer has a snapshot.
    """
    rows = sorted(rows, key=lambda r: r["seq"])
    wanted = {r["version_id"] for r in rows}
    tmp = layout.tmp_path(".duckdb")
    try:
        have = _reader_db_versions(layout.reader_db) if layout.reader_db.exists() else None
        if have is not None and have <= wanted:
            shutil.copyfile(layout.reader_db, tmp)
        else:
            have = set()
        new_rows = [r for r in rows if r["version_id"] not in have]
        con = duckdb.connect(str(tmp))
        try:
            ensure_schema(con)
            con.execute("BEGIN TRANSACTION")
            con.register("_incoming_golden_sets", golden_sets_table(new_rows))
            cols = _columns(GOLDEN_SETS)
            con.execute(
                f"INSERT INTO golden_sets ({cols}) SELECT {cols} FROM _incoming_golden_sets"
            )
            for name, filename in FILES.items():
                files = [str(layout.snapshot(r["version_id"]) / filename) for r in new_rows]
                if files:
                    cols = _columns(TABLES[name])
                    con.execute(
                        f"INSERT INTO {name} ({cols}) SELECT {cols} FROM read_parquet(?)", [files]
                    )
            con.execute("COMMIT")
            insert_events(con, list(events))
            con.execute("CHECKPOINT")  # fold the WAL in: the swapped-in file must stand alone
        finally:
            con.close()
        fsync_file(tmp)
        os.replace(tmp, layout.reader_db)
    finally:
        for leftover in (tmp, tmp.with_name(tmp.name + ".wal")):
            leftover.unlink(missing_ok=True)
    fsync_dir(layout.root)
    return layout.reader_db

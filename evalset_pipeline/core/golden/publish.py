"""Publish a golden-set draft as an immutable, content-addressed version.

Order of operations (under an exclusive publish lock):

1. Reconcile: remove stray temp files left by a killed publisher.
2. Write the snapshot into `golden/.tmp-<uuid>/`, fsync every file and the directory.
3. Open the DuckDB warehouse (bounded retry while another process holds it). Doing this *before*
   step 4 means a locked warehouse fails the publish while the version is still invisible.
4. `os.rename` the temp directory onto `versions/<version_id>`: the single commit point.
5. Insert the version's rows into the warehouse in one transaction (plus any snapshot a crash
   left without rows), then rebuild and swap the SQL reader copy, then swap `LATEST`.

A SIGKILL anywhere leaves either no trace of the new version (before 4) or a complete snapshot
whose derived indexes lag; the next publish repairs them. Readers never see a partial version
because nothing they read is ever written in place.
"""

from __future__ import annotations

import json
import logging
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.atomic import fsync_dir
from evalset_pipeline.core.corpus.manifest import CorpusManifest
from evalset_pipeline.core.environment import environment
from evalset_pipeline.core.flock import open_lock_file, try_flock
from evalset_pipeline.core.golden import warehouse
from evalset_pipeline.core.golden.errors import GoldenSetCorrupt, GoldenSetLocked
from evalset_pipeline.core.golden.events import PublishEvent, as_row, read_events, write_event
from evalset_pipeline.core.golden.fingerprint import IDENTITY_FORMAT, compute_version_id
from evalset_pipeline.core.golden.layout import TMP_PREFIX, GoldenLayout, atomic_write_bytes
from evalset_pipeline.core.golden.model import GoldenSetDraft, PublishResult
from evalset_pipeline.core.golden.snapshot import (
    FILES,
    load_snapshot,
    manifest_file_sha256,
    read_manifest,
    with_version_id,
    write_manifest,
    write_table_file,
)
from evalset_pipeline.core.golden.validate import normalise_draft
from evalset_pipeline.core.hashing import canonical_json
from evalset_pipeline.core.paths import DataPaths

log = logging.getLogger(__name__)

# Test seam: crash tests set this in a child process to SIGKILL it at a named phase
# ("snapshot_written", "renamed", "committed", "reader_db_swapped", "latest_swapped").
_PHASE_HOOK: Callable[[str], None] | None = None

DEFAULT_LOCK_TIMEOUT_S = 120.0


def _phase(name: str) -> None:
    if _PHASE_HOOK is not None:
        _PHASE_HOOK(name)


@contextmanager
def publish_lock(layout: GoldenLayout, timeout_s: float) -> Iterator[None]:
    """Serialise publishers. flock is dropped by the kernel when its holder dies, so a SIGKILLed
    publisher never leaves a stale lock behind."""
    fd = open_lock_file(layout.publish_lock)
    try:
        deadline = time.monotonic() + timeout_s
        while not try_flock(fd):
            if time.monotonic() >= deadline:
                raise GoldenSetLocked(
                    f"another process kept {layout.publish_lock} for {timeout_s:.0f}s; is a build still running?"
                )
            time.sleep(0.05)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the flock


def _remove_stray_tmp(layout: GoldenLayout) -> None:
    """Temp files can only belong to a dead publisher: we hold the publish lock."""
    for path in layout.root.glob(f"{TMP_PREFIX}*"):
        log.info("removing leftover %s from an interrupted publish", path)
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path, ignore_errors=True)
        else:
            path.unlink(missing_ok=True)


def scan_rows(layout: GoldenLayout) -> dict[str, dict[str, Any]]:
    """golden_sets rows (JSON form) of every complete snapshot, by version id.

    A snapshot whose manifest cannot be trusted is never skipped silently: publishing on top of
    it would hand out its seq again and split "latest" between readers (issue 16).
    """
    rows, corrupt = scan_snapshots(layout)
    if corrupt:
        listed = "; ".join(f"{v}: {why}" for v, why in sorted(corrupt.items()))
        raise GoldenSetCorrupt(
            f"refusing to publish: {len(corrupt)} snapshot(s) under {layout.versions} fail their checksum ({listed}). "
            "Run `evalset golden verify` for the full report and `evalset golden verify --repair` to rewrite a "
            "manifest from the warehouse where the data files still prove the version id; otherwise restore the "
            "directory from a backup. Nothing was published."
        )
    return rows


def scan_snapshots(layout: GoldenLayout) -> tuple[dict[str, dict[str, Any]], dict[str, str]]:
    """(rows of readable snapshots, {version id: why it is corrupt})."""
    rows: dict[str, dict[str, Any]] = {}
    corrupt: dict[str, str] = {}
    for version_id in layout.version_ids():
        try:
            rows[version_id] = read_manifest(layout.snapshot(version_id))["golden_set"]
        except GoldenSetCorrupt as exc:
            corrupt[version_id] = str(exc)
    return rows, corrupt


def _utc(value: datetime) -> datetime:
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def _new_row(
    version_id: str, version: PreparedVersion, seq: int, parent: str | None
) -> dict[str, Any]:
    slices = version.slices
    return {
        "version_id": version_id,
        "seq": seq,
        "created_at": datetime.now(UTC),
        "parent_version": parent,
        "corpus_fingerprint": version.corpus.fingerprint,
        "config_fingerprint": version.config_fingerprint,
        "corpus_built_at": _utc(version.corpus.built_at),
        "corpus_documents": int(version.corpus.documents),
        "corpus_pages": int(version.corpus.pages),
        "n_items": version.n_items,
        "n_main": slices.get("main", 0),
        "n_underspecified": slices.get("underspecified", 0),
        "n_regression": slices.get("regression", 0),
        "funnel_json": canonical_json(version.funnel),
        "provenance_json": canonical_json(version.provenance),
    }


@dataclass(frozen=True)
class PreparedVersion:
    """A version ready to publish: its id and row facts, and how to write and insert its tables.
    A draft's tables are in memory (`publish_golden_set`); a large import's are staged on disk and
    written by DuckDB (`core/imports/staging.py`), so one publish path serves both."""

    version_id: str
    corpus: CorpusManifest
    config_fingerprint: str
    funnel: dict[str, Any]
    provenance: dict[str, Any]
    n_items: int
    slices: dict[str, int]  # items per slice
    # (empty temp dir, version id) -> manifest `files` entries, the three table files written in it
    write_files: Callable[[Path, str], dict[str, dict[str, Any]]]
    # the rows to insert into the warehouse, given the published snapshot directory
    warehouse_tables: Callable[[Path], dict[str, pa.Table | Path]]


def prepare_draft(draft: GoldenSetDraft) -> PreparedVersion:
    """A draft held in memory: validated, normalised and named by its content."""
    tables = normalise_draft(draft)
    version_id = compute_version_id(draft.corpus.fingerprint, draft.config_fingerprint, tables)
    versioned = {name: with_version_id(name, t, version_id) for name, t in tables.items()}

    def write_files(directory: Path, _: str) -> dict[str, dict[str, Any]]:
        directory.mkdir(parents=True)
        return {
            filename: write_table_file(directory / filename, name, versioned[name])
            for name, filename in FILES.items()
        }

    slices = tables["golden_items"].column("slice").to_pylist()
    return PreparedVersion(
        version_id,
        draft.corpus,
        draft.config_fingerprint,
        draft.funnel,
        draft.provenance,
        tables["golden_items"].num_rows,
        {s: slices.count(s) for s in set(slices)},
        write_files,
        lambda _: dict(versioned),
    )


def _reconcile_warehouse(con: Any, layout: GoldenLayout, rows: dict[str, dict[str, Any]]) -> None:
    """Insert snapshots that a crash left between rename and commit (verified before use)."""
    missing = sorted(set(rows) - warehouse.known_versions(con), key=lambda v: rows[v]["seq"])
    for version_id in missing:
        golden = load_snapshot(layout.snapshot(version_id))
        tables = {
            "golden_items": golden.items,
            "golden_judgments": golden.judgments,
            "golden_units": golden.units,
        }
        warehouse.insert_version(con, rows[version_id], tables)
        log.info("reconciled %s into %s", version_id, layout.paths.warehouse)


def _sync_readers(
    layout: GoldenLayout, rows: dict[str, dict[str, Any]], events: list[PublishEvent]
) -> None:
    """Bring the SQL reader copy and then LATEST up to the last publish event (an import published
    without `--as-latest` before any build version has no event: only the reader copy moves)."""
    if warehouse.reader_db_state(layout.reader_db) != (
        len(rows),
        max(r["seq"] for r in rows.values()),
        events[-1].event if events else -1,
    ):
        warehouse.build_reader_db(layout, rows.values(), [as_row(e) for e in events])
    _phase("reader_db_swapped")
    if not events:
        return
    last = events[-1]
    pointer = {"version_id": last.version_id, "seq": last.seq, "event": last.event}
    try:
        current = layout.read_latest()
    except ValueError:
        current = None
    if current != pointer:
        atomic_write_bytes(layout.latest, canonical_json(pointer).encode("utf-8"))
    _phase("latest_swapped")


def is_import_row(row: dict[str, Any]) -> bool:
    """A version published by `evalset import` (its provenance says so), not by a build."""
    try:
        return bool(json.loads(row.get("provenance_json") or "{}").get("kind") == "import")
    except (TypeError, ValueError, AttributeError):
        return False


def _backfill_events(
    layout: GoldenLayout, rows: dict[str, dict[str, Any]], events: list[PublishEvent]
) -> list[PublishEvent]:
    """Data published before events existed: one event per version, in seq order (latest = highest seq).
    Imports are left out: an import never became latest without being asked (`--as-latest`)."""
    if events or not rows:
        return events
    built = [r for r in rows.values() if not is_import_row(r)]
    for i, row in enumerate(sorted(built, key=lambda r: r["seq"]), start=1):
        event = PublishEvent(
            i,
            row["version_id"],
            row["seq"],
            str(row["created_at"]),
            True,
            manifest_file_sha256(layout.snapshot(row["version_id"])),
        )
        write_event(layout, event)
        events.append(event)
    return events


def _warehouse_wait_s() -> float:
    return environment().warehouse_wait_s


def publish_golden_set(
    paths: DataPaths,
    draft: GoldenSetDraft,
    *,
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
    warehouse_wait_s: float | None = None,
    make_latest: bool = True,
) -> PublishResult:
    """Publish `draft` and make it latest: a new version, or the identical existing one (created=False).

    Latest is the version of the inputs published last, so confirming an older version again moves
    LATEST back to it (a publish event; no new golden_sets row). With `make_latest=False` (what
    `evalset import` does unless `--as-latest`) the version is published (snapshot, warehouse rows,
    reader copy) and no publish event is written: LATEST, the `latest_*` views and
    `load_golden_set("latest")` stay where the last build put them. A warehouse held by a reader for
    longer than `warehouse_wait_s` does not stop the publish: snapshots, reader copy and LATEST are
    the published state, the warehouse catches up on the next publish (`warnings` says so).
    """
    return publish_prepared(
        paths,
        prepare_draft(draft),
        lock_timeout_s=lock_timeout_s,
        warehouse_wait_s=warehouse_wait_s,
        make_latest=make_latest,
    )


def publish_prepared(
    paths: DataPaths,
    version: PreparedVersion,
    *,
    lock_timeout_s: float = DEFAULT_LOCK_TIMEOUT_S,
    warehouse_wait_s: float | None = None,
    make_latest: bool = True,
) -> PublishResult:
    """`publish_golden_set` for a version already prepared (see `PreparedVersion`)."""
    layout = GoldenLayout(paths)
    version_id = version.version_id
    wait = _warehouse_wait_s() if warehouse_wait_s is None else warehouse_wait_s
    warnings: list[str] = []
    moved = False
    with publish_lock(layout, lock_timeout_s):
        _remove_stray_tmp(layout)
        rows = scan_rows(layout)  # refuses when a snapshot is corrupt
        events = _backfill_events(layout, rows, read_events(layout))
        created = version_id not in rows
        if created and layout.snapshot(version_id).exists():
            raise GoldenSetCorrupt(
                f"{layout.snapshot(version_id)} exists but its manifest is unreadable; move it aside and publish again"
            )
        try:
            con = warehouse.connect_writer(paths.warehouse, wait)
        except GoldenSetLocked as exc:
            con = None
            warnings.append(
                f"{exc} The version was published anyway (snapshot, reader copy, LATEST); the "
                "warehouse gets its rows on the next publish once the other session closes."
            )
            log.warning("%s", warnings[-1])
        tmp_dir: Path | None = None
        try:
            if con is not None:
                _reconcile_warehouse(con, layout, rows)
            if created:
                latest_now = events[-1].version_id if events else None
                # seq is monotonic across everything ever handed out: manifests and the warehouse.
                top = max(
                    [r["seq"] for r in rows.values()]
                    + [e.seq for e in events]
                    + [warehouse.max_seq(con) if con is not None else 0]
                )
                row = _new_row(version_id, version, seq=top + 1, parent=latest_now)
                tmp_dir = layout.tmp_path()
                files = version.write_files(tmp_dir, version_id)
                manifest = write_manifest(tmp_dir, row, files, extra={"identity": IDENTITY_FORMAT})
                _phase("snapshot_written")
                layout.versions.mkdir(parents=True, exist_ok=True)
                os.rename(tmp_dir, layout.snapshot(version_id))
                tmp_dir = None
                fsync_dir(layout.versions)
                rows[version_id] = manifest["golden_set"]
                _phase("renamed")
                if con is not None:
                    warehouse.insert_version(
                        con, rows[version_id], version.warehouse_tables(layout.snapshot(version_id))
                    )
                _phase("committed")
            if make_latest and (not events or events[-1].version_id != version_id):
                top_event = max(
                    [e.event for e in events] + [warehouse.max_event(con) if con is not None else 0]
                )
                event = PublishEvent(
                    top_event + 1,
                    version_id,
                    rows[version_id]["seq"],
                    datetime.now(UTC).isoformat(),
                    created,
                    manifest_file_sha256(layout.snapshot(version_id)),
                )
                write_event(layout, event)  # the moment this version becomes "latest"
                events.append(event)
                moved = True
            if con is not None:
                warehouse.insert_events(con, [as_row(e) for e in events])
        finally:
            if con is not None:
                con.close()
            if tmp_dir is not None:
                shutil.rmtree(tmp_dir, ignore_errors=True)
        _sync_readers(layout, rows, events)
        row = rows[version_id]
    return PublishResult(
        version_id=version_id,
        seq=row["seq"],
        created=created,
        snapshot_dir=layout.snapshot(version_id),
        parent_version=row["parent_version"],
        is_latest=bool(events) and events[-1].version_id == version_id,
        event=events[-1].event if events and events[-1].version_id == version_id else 0,
        latest_moved=moved,
        warnings=tuple(warnings),
    )

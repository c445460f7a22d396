"""`evalset golden verify`: check every snapshot and every index derived from them, loudly.

Checked: each snapshot's manifest (parses, matches its own checksum, and the checksum recorded
when it was published) and each data file (sha256, rows); the publish history and LATEST (the
last event); the SQL reader copy and the warehouse (same versions, unique seq, same latest).
`repair` rewrites a damaged manifest from the warehouse row, only when the data files still
hash to the version id (the proof that they are what was published).
"""

from __future__ import annotations

import io
import json
import os
from dataclasses import dataclass, field
from datetime import UTC
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.golden.errors import GoldenSetCorrupt
from evalset_pipeline.core.golden.events import read_events
from evalset_pipeline.core.golden.fingerprint import IDENTITY_FORMAT, compute_version_id
from evalset_pipeline.core.golden.layout import (
    MANIFEST,
    SNAPSHOT_FORMAT,
    GoldenLayout,
    atomic_write_bytes,
)
from evalset_pipeline.core.golden.snapshot import (
    FILES,
    SELF_HASH,
    load_snapshot,
    manifest_file_sha256,
    manifest_hash,
    read_manifest,
)
from evalset_pipeline.core.hashing import sha256_bytes
from evalset_pipeline.core.paths import DataPaths


@dataclass(frozen=True)
class Problem:
    where: str  # a version id, "LATEST", "history", "reader copy", "warehouse"
    message: str

    def __str__(self) -> str:
        return f"{self.where}: {self.message}"


@dataclass
class VerifyReport:
    versions: int = 0
    events: int = 0
    problems: list[Problem] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # e.g. the warehouse was in use and not checked
    # Indexes behind the snapshots after an interrupted publish (LATEST, reader copy, warehouse):
    # every reader still gets a complete version and the next publish catches them up, so these
    # are reported but are not corruption (exit 0).
    lags: list[Problem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def corrupt_versions(self) -> list[str]:
        return sorted({p.where for p in self.problems if p.where.startswith("gs-")})


def verify_golden(paths: DataPaths, *, check_warehouse: bool = True) -> VerifyReport:
    layout = GoldenLayout(paths)
    report = VerifyReport()
    good: dict[str, int] = {}  # version -> seq
    for version_id in layout.version_ids():
        report.versions += 1
        try:
            golden = load_snapshot(layout.snapshot(version_id))
            good[version_id] = int(golden.info["seq"])
        except GoldenSetCorrupt as exc:
            report.problems.append(Problem(version_id, str(exc)))
    try:
        events = read_events(layout)
    except GoldenSetCorrupt as exc:
        report.problems.append(Problem("history", str(exc)))
        events = []
    report.events = len(events)
    for e in events:
        snap = layout.snapshot(e.version_id)
        if not snap.is_dir():
            report.problems.append(
                Problem("history", f"event {e.event} names {e.version_id}, which has no snapshot")
            )
        elif (
            e.manifest_sha256
            and e.version_id in good
            and manifest_file_sha256(snap) != e.manifest_sha256
        ):
            report.problems.append(
                Problem(
                    e.version_id, f"{MANIFEST} differs from the bytes published at event {e.event}"
                )
            )
    try:
        pointer = layout.read_latest()
    except ValueError as exc:
        pointer = None
        report.problems.append(Problem("LATEST", str(exc)))
    if events:
        expected: str | None = events[-1].version_id
    else:  # data from before publish events: the newest built version (never an import)
        built = {v: seq for v, seq in good.items() if v not in _imports(layout, good)}
        expected = max(built, key=lambda v: built[v]) if built else None
    if pointer is not None and expected is not None and pointer["version_id"] != expected:
        (report.lags if pointer["version_id"] in good else report.problems).append(
            Problem(
                "LATEST", f"names {pointer['version_id']}, the last publish event is {expected}"
            )
        )
    _check_sql(layout.reader_db, "reader copy", good, expected, report, read_only_copy=True)
    if check_warehouse:
        _check_sql(paths.warehouse, "warehouse", good, expected, report, read_only_copy=False)
    return report


def _imports(layout: GoldenLayout, good: dict[str, int]) -> set[str]:
    """Versions `evalset import` published: never latest without a publish event."""
    from evalset_pipeline.core.golden.publish import is_import_row

    out = set()
    for version_id in good:
        try:
            if is_import_row(read_manifest(layout.snapshot(version_id))["golden_set"]):
                out.add(version_id)
        except GoldenSetCorrupt:
            continue
    return out


def _check_sql(
    path: Path,
    name: str,
    good: dict[str, int],
    latest: str | None,
    report: VerifyReport,
    read_only_copy: bool,
) -> None:
    import duckdb

    if not path.exists():
        if good:
            report.lags.append(Problem(name, f"{path} is missing (the next publish rebuilds it)"))
        return
    try:
        con = duckdb.connect(str(path), read_only=True)
    except duckdb.Error as exc:
        if "lock" in str(exc).lower() and not read_only_copy:
            report.notes.append(f"{name} {path} is in use by a writer; not checked")
            return
        report.problems.append(Problem(name, f"cannot open {path}: {exc}"))
        return
    try:
        rows = con.execute("SELECT version_id, seq FROM golden_sets").fetchall()
        try:
            sql_latest = con.execute("SELECT version_id FROM latest_golden_set").fetchall()
        except duckdb.Error:
            sql_latest = []
    finally:
        con.close()
    seqs = [s for _, s in rows]
    dupes = sorted({s for s in seqs if seqs.count(s) > 1})
    if dupes:
        report.problems.append(Problem(name, f"seq given to more than one version: {dupes}"))
    have = {v for v, _ in rows}
    if missing := sorted(set(good) - have):
        report.lags.append(
            Problem(name, f"lacks version(s) {', '.join(missing)} (the next publish adds them)")
        )
    if latest is None and not sql_latest:
        return  # only imports published yet: nothing is latest, in SQL as in LATEST
    if len(sql_latest) != 1 or (latest and sql_latest[0][0] != latest):
        shown = ", ".join(v for (v,) in sql_latest) or "nothing"
        # an older complete version is a lag (interrupted publish); anything else is corrupt
        lagging = len(sql_latest) == 1 and sql_latest[0][0] in good
        (report.lags if lagging else report.problems).append(
            Problem(name, f"latest_golden_set shows {shown}; latest is {latest}")
        )


def repair_manifests(paths: DataPaths) -> list[str]:
    """Rewrite each unreadable manifest from its warehouse row, where the data files prove the version id.

    Returns one line per damaged snapshot saying what was done. Never touches data files.
    """
    import duckdb

    from evalset_pipeline.core.golden.schema import GOLDEN_SETS, TABLES

    layout = GoldenLayout(paths)
    events = {e.version_id: e for e in read_events(layout)}
    out = []
    for version_id in verify_golden(paths, check_warehouse=False).corrupt_versions:
        snap = layout.snapshot(version_id)
        try:
            con = duckdb.connect(str(paths.warehouse), read_only=True)
            try:
                cur = con.execute("SELECT * FROM golden_sets WHERE version_id = ?", [version_id])
                names = [d[0] for d in cur.description]
                found = cur.fetchone()
            finally:
                con.close()
        except duckdb.Error as exc:
            out.append(f"{version_id}: not repaired, the warehouse cannot be read ({exc})")
            continue
        if found is None:
            out.append(
                f"{version_id}: not repaired, the warehouse has no row for it; restore it from a backup"
            )
            continue
        row = {n: v for n, v in zip(names, found, strict=False) if n in GOLDEN_SETS.names}
        row = {
            k: (v.astimezone(UTC).isoformat() if hasattr(v, "astimezone") else v)
            for k, v in row.items()
        }
        files, tables = {}, {}
        for name, filename in FILES.items():
            data = (snap / filename).read_bytes()
            table = pq.read_table(pa.BufferReader(data)).cast(TABLES[name])
            tables[name] = table.drop_columns(["version_id"])
            files[filename] = {
                "table": name,
                "sha256": sha256_bytes(data),
                "bytes": len(data),
                "rows": table.num_rows,
            }
        if (
            compute_version_id(row["corpus_fingerprint"], row["config_fingerprint"], tables)
            != version_id
        ):
            out.append(
                f"{version_id}: not repaired, its data files no longer hash to the version id; restore it from a backup"
            )
            continue
        manifest = {
            "format": SNAPSHOT_FORMAT,
            "version_id": version_id,
            "golden_set": row,
            "files": files,
            "identity": IDENTITY_FORMAT,
        }
        manifest[SELF_HASH] = manifest_hash(manifest)
        buf = io.StringIO()
        json.dump(manifest, buf, indent=2, sort_keys=True, ensure_ascii=False)
        path = snap / MANIFEST
        os.chmod(path, 0o644)
        atomic_write_bytes(path, buf.getvalue().encode("utf-8"))
        os.chmod(path, 0o444)
        same = (
            events.get(version_id) is not None
            and manifest_file_sha256(snap) == events[version_id].manifest_sha256
        )
        out.append(
            f"{version_id}: manifest rewritten from the warehouse row; data files verified against the version id"
            + ("; byte-identical to the published manifest" if same else "")
        )
    return out

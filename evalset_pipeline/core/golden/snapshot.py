"""Per-version snapshot files: written once, checksummed, and verified on every read.

    versions/<version_id>/items.parquet      golden_items rows of this version
    versions/<version_id>/judgments.parquet  golden_judgments rows
    versions/<version_id>/units.parquet      golden_units rows
    versions/<version_id>/manifest.json      the golden_sets row + sha256/bytes/rows of each file

Readers only ever touch these files and `LATEST`, never DuckDB, so no database lock can reach them.
"""

from __future__ import annotations

import hashlib
import json
import os
from datetime import datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.atomic import fsync_dir
from evalset_pipeline.core.golden.errors import GoldenSetCorrupt
from evalset_pipeline.core.golden.layout import MANIFEST, SNAPSHOT_FORMAT
from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.golden.schema import GOLDEN_SETS, TABLES
from evalset_pipeline.core.hashing import canonical_json, sha256_bytes

SELF_HASH = "manifest_sha256"
LEGACY_FORMATS = (1,)  # written before manifests hashed themselves; read without that check
FILES = {
    "golden_items": "items.parquet",
    "golden_judgments": "judgments.parquet",
    "golden_units": "units.parquet",
}
TIMESTAMP_FIELDS = ("created_at", "corpus_built_at")


def with_version_id(name: str, table: pa.Table, version_id: str) -> pa.Table:
    """Prepend the version_id column so snapshot rows are the exact rows of the DuckDB tables."""
    column = pa.array([version_id] * table.num_rows, pa.string())
    return table.add_column(0, "version_id", column).cast(TABLES[name])


def _row_to_json(row: dict[str, Any]) -> dict[str, Any]:
    return {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in row.items()}


def _row_from_json(row: dict[str, Any]) -> dict[str, Any]:
    out = dict(row)
    for key in TIMESTAMP_FIELDS:
        if isinstance(out.get(key), str):
            out[key] = datetime.fromisoformat(out[key])
    return out


def golden_sets_table(rows: list[dict[str, Any]]) -> pa.Table:
    """golden_sets rows (as in manifests) as an Arrow table with the contract schema."""
    return pa.Table.from_pylist([_row_from_json(r) for r in rows], schema=GOLDEN_SETS)


def write_snapshot(
    directory: Path,
    row: dict[str, Any],
    tables: dict[str, pa.Table],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Write the files of one version into `directory` (a temp dir) and fsync them all.

    `tables` already carry the version_id column. Returns the manifest.
    """
    directory.mkdir(parents=True)
    files = {
        filename: write_table_file(directory / filename, name, tables[name])
        for name, filename in FILES.items()
    }
    return write_manifest(directory, row, files, extra)


def write_table_file(path: Path, name: str, table: pa.Table) -> dict[str, Any]:
    """One table's Parquet file, fsynced and read-only; its manifest entry."""
    sink = pa.BufferOutputStream()
    pq.write_table(table, sink, compression="zstd")
    data = sink.getvalue().to_pybytes()
    # Hash the exact bytes written, so a reader can prove it got them back.
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())
    return seal_table_file(path, name, table.num_rows, sha256_bytes(data), len(data))


def seal_table_file(
    path: Path, name: str, rows: int, sha256: str | None = None, size: int | None = None
) -> dict[str, Any]:
    """Make a written table file read-only and describe it for the manifest; a file written by
    someone else (DuckDB's COPY, for a large import) is fsynced and hashed here in chunks."""
    if sha256 is None:
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                h.update(chunk)
            os.fsync(f.fileno())
        sha256, size = h.hexdigest(), path.stat().st_size
    os.chmod(path, 0o444)  # a guard against edits in place, not a security boundary
    return {"table": name, "sha256": sha256, "bytes": size, "rows": rows}


def write_manifest(
    directory: Path,
    row: dict[str, Any],
    files: dict[str, dict[str, Any]],
    extra: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The manifest over files already written into `directory`; fsyncs the directory."""
    manifest = {
        "format": SNAPSHOT_FORMAT,
        "version_id": row["version_id"],
        "golden_set": _row_to_json(row),
        "files": files,
        **(extra or {}),
    }
    # The manifest checks its own bytes too: a flipped byte in the golden_sets row (seq, counts,
    # funnel) would otherwise pass for the truth.
    manifest[SELF_HASH] = manifest_hash(manifest)
    with open(directory / MANIFEST, "w", encoding="utf-8") as f:
        json.dump(manifest, f, indent=2, sort_keys=True, ensure_ascii=False)
        f.flush()
        os.fsync(f.fileno())
    os.chmod(directory / MANIFEST, 0o444)
    fsync_dir(directory)
    return manifest


def manifest_hash(manifest: dict[str, Any]) -> str:
    return sha256_bytes(
        canonical_json({k: v for k, v in manifest.items() if k != SELF_HASH}).encode("utf-8")
    )


def manifest_file_sha256(snapshot_dir: Path) -> str:
    return sha256_bytes((snapshot_dir / MANIFEST).read_bytes())


def read_manifest(snapshot_dir: Path) -> dict[str, Any]:
    path = snapshot_dir / MANIFEST
    try:
        manifest = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as exc:
        raise GoldenSetCorrupt(f"{path} is missing: the snapshot directory is incomplete") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise GoldenSetCorrupt(f"{path} is not valid JSON: {exc}") from exc
    if not isinstance(manifest, dict):
        raise GoldenSetCorrupt(f"{path} is not a manifest object")
    if manifest.get("format") not in LEGACY_FORMATS and manifest.get(SELF_HASH) != manifest_hash(
        manifest
    ):
        raise GoldenSetCorrupt(
            f"{path}: its content does not match its own checksum ({SELF_HASH}): the manifest "
            f"was changed after it was written"
        )
    if (
        manifest.get("version_id") != snapshot_dir.name
        or manifest.get("golden_set", {}).get("version_id") != snapshot_dir.name
    ):
        raise GoldenSetCorrupt(
            f"{path} describes {manifest.get('version_id')!r}, not {snapshot_dir.name!r}"
        )
    if manifest.get("format") not in (SNAPSHOT_FORMAT, *LEGACY_FORMATS):
        raise GoldenSetCorrupt(f"{path}: unsupported snapshot format {manifest.get('format')!r}")
    return manifest


def decode_info(row: dict[str, Any]) -> dict[str, Any]:
    """The golden_sets row as readers get it: timestamps parsed, funnel/provenance JSON decoded."""
    row = _row_from_json(row)
    # Schema column order, so printed rows read the same everywhere.
    info = {name: row.get(name) for name in GOLDEN_SETS.names if not name.endswith("_json")}
    info["funnel"] = json.loads(row.get("funnel_json") or "{}")
    info["provenance"] = json.loads(row.get("provenance_json") or "{}")
    return info


def load_snapshot(snapshot_dir: Path, verify: bool = True) -> GoldenSet:
    """Read one version, checking each file's sha256 and row count against the manifest."""
    manifest = read_manifest(snapshot_dir)
    tables: dict[str, pa.Table] = {}
    for name, filename in FILES.items():
        entry = manifest["files"].get(filename)
        path = snapshot_dir / filename
        if entry is None:
            raise GoldenSetCorrupt(f"{snapshot_dir / MANIFEST} lists no {filename}")
        try:
            data = path.read_bytes()
        except FileNotFoundError as exc:
            raise GoldenSetCorrupt(f"{path} is missing") from exc
        # Parse the bytes that were hashed, so nothing can change between check and use.
        if verify and sha256_bytes(data) != entry["sha256"]:
            raise GoldenSetCorrupt(
                f"{path}: sha256 {sha256_bytes(data)[:12]}… does not match manifest {entry['sha256'][:12]}…"
            )
        try:
            table = pq.read_table(pa.BufferReader(data))
        except (pa.ArrowInvalid, OSError) as exc:
            raise GoldenSetCorrupt(f"{path} is not readable Parquet: {exc}") from exc
        if table.num_rows != entry["rows"]:
            raise GoldenSetCorrupt(f"{path}: {table.num_rows} rows, manifest says {entry['rows']}")
        tables[name] = table.cast(TABLES[name])
    info = decode_info(manifest["golden_set"])
    n_items = tables["golden_items"].num_rows
    if info["n_items"] != n_items:
        raise GoldenSetCorrupt(
            f"{snapshot_dir}: golden_sets row says {info['n_items']} items, items.parquet has {n_items}"
        )
    return GoldenSet(
        version_id=manifest["version_id"],
        info=info,
        items=tables["golden_items"],
        judgments=tables["golden_judgments"],
        units=tables["golden_units"],
        snapshot_dir=snapshot_dir,
    )

"""Read golden sets without ever touching DuckDB: `LATEST` + an immutable, checksummed snapshot.

Safe at any moment of a rebuild: LATEST is replaced atomically and only ever names a version
whose directory was complete before it became visible, and version directories never change.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalset_pipeline.core.golden.errors import (
    GoldenSetCorrupt,
    GoldenSetNotFound,
    InvalidVersionId,
)
from evalset_pipeline.core.golden.fingerprint import compute_version_id
from evalset_pipeline.core.golden.layout import VERSION_PREFIX_RE, VERSION_RE, GoldenLayout
from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.golden.snapshot import decode_info, load_snapshot, read_manifest
from evalset_pipeline.core.paths import DataPaths

__all__ = [
    "load_golden_set",
    "list_golden_sets",
    "resolve_version",
    "GoldenSetNotFound",
    "GoldenSetCorrupt",
]


def _layout(data_dir: str | Path | None) -> GoldenLayout:
    return GoldenLayout(DataPaths.at(data_dir))


def _not_found(layout: GoldenLayout, what: str) -> GoldenSetNotFound:
    ids = layout.version_ids()
    if not ids:
        return GoldenSetNotFound(
            f"{what}: no golden set has been published under {layout.root} yet"
        )
    shown = ", ".join(ids[:20]) + (f", … ({len(ids)} in all)" if len(ids) > 20 else "")
    return GoldenSetNotFound(f"{what}; available under {layout.root}: {shown}")


def resolve_version(version: str = "latest", data_dir: str | Path | None = None) -> str:
    """Turn 'latest', a version id or a unique id prefix (gs- + at least 4 hex) into a version id."""
    layout = _layout(data_dir)
    text = version.strip()
    if text == "latest":
        try:
            pointer = layout.read_latest()
        except ValueError as exc:
            raise GoldenSetCorrupt(str(exc)) from exc
        if pointer is None:
            raise _not_found(layout, "no LATEST pointer")
        if not layout.snapshot(pointer["version_id"]).is_dir():
            raise GoldenSetCorrupt(
                f"{layout.latest} names {pointer['version_id']}, which has no snapshot"
            )
        return str(pointer["version_id"])
    # Validate before building any path from user input.
    if not VERSION_PREFIX_RE.match(text):
        raise InvalidVersionId(
            f"{version!r} is not 'latest' or a version id like gs-0123456789abcdef"
        )
    if VERSION_RE.match(text):
        if layout.snapshot(text).is_dir():
            return text
        raise _not_found(layout, f"version {text} not found")
    matches = [v for v in layout.version_ids() if v.startswith(text)]
    if len(matches) == 1:
        return matches[0]
    if not matches:
        raise _not_found(layout, f"no version starts with {text}")
    raise InvalidVersionId(f"{text} is ambiguous: {', '.join(matches)}")


def load_golden_set(
    version: str = "latest", data_dir: str | Path | None = None, *, verify_fingerprint: bool = False
) -> GoldenSet:
    """Load one complete version as pyarrow tables, verifying each file's sha256.

    `version` is "latest", a version id, or a unique prefix of one. `data_dir` defaults to
    $EVALSET_DATA_DIR or ./data. With `verify_fingerprint`, the content is also re-hashed and
    must reproduce the version id (slower; proves the snapshot is what its name says).
    """
    layout = _layout(data_dir)
    version_id = resolve_version(version, data_dir)
    golden = load_snapshot(layout.snapshot(version_id))
    if verify_fingerprint:
        tables = {
            "golden_items": golden.items.drop_columns(["version_id"]),
            "golden_judgments": golden.judgments.drop_columns(["version_id"]),
            "golden_units": golden.units.drop_columns(["version_id"]),
        }
        actual = compute_version_id(
            golden.info["corpus_fingerprint"], golden.info["config_fingerprint"], tables
        )
        if actual != version_id:
            raise GoldenSetCorrupt(
                f"{golden.snapshot_dir}: content hashes to {actual}, not {version_id}"
            )
    return golden


def publish_history(data_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """Every publish event, oldest first: when each version became latest (new, or confirmed again)."""
    from dataclasses import asdict

    from evalset_pipeline.core.golden.events import read_events

    return [asdict(e) for e in read_events(_layout(data_dir))]


def imported_versions(data_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """Versions `evalset import` published (provenance kind "import"), oldest first: version_id,
    seq, created_at, source. They are named by id; "latest" is one only when imported `--as-latest`."""
    out = []
    for info in list_golden_sets(data_dir):
        prov = info.get("provenance") or {}
        if info.get("corrupt") is None and prov.get("kind") == "import":
            out.append(
                {
                    "version_id": info["version_id"],
                    "seq": info["seq"],
                    "created_at": info["created_at"],
                    "source": prov.get("source", ""),
                    "is_latest": info["is_latest"],
                }
            )
    return out


def latest_import(data_dir: str | Path | None = None) -> str:
    """The newest imported version's id (what `evalset report hardening` reads by default)."""
    imports = imported_versions(data_dir)
    if not imports:
        raise GoldenSetNotFound(
            f"no imported version under {_layout(data_dir).root}: run `evalset import` first, "
            "or name a version with --golden"
        )
    return str(imports[-1]["version_id"])


def list_golden_sets(data_dir: str | Path | None = None) -> list[dict[str, Any]]:
    """Every published version's golden_sets row (decoded), oldest first, with `is_latest`.

    Reads manifests only (no data-file checksum pass), so it stays fast with hundreds of versions.
    A snapshot whose manifest is unreadable or fails its own checksum is listed too, with
    `corrupt` saying why (and seq None): a listing never silently drops a version.
    """
    layout = _layout(data_dir)
    try:
        pointer = layout.read_latest()
    except ValueError:
        pointer = None
    latest_id = pointer["version_id"] if pointer else None
    out: list[dict[str, Any]] = []
    for version_id in layout.version_ids():
        try:
            info = decode_info(read_manifest(layout.snapshot(version_id))["golden_set"])
            info["corrupt"] = None
        except GoldenSetCorrupt as exc:
            info = {"version_id": version_id, "seq": None, "corrupt": str(exc)}
        info["is_latest"] = version_id == latest_id
        out.append(info)
    return sorted(out, key=lambda r: (r["seq"] is None, r["seq"] or 0))

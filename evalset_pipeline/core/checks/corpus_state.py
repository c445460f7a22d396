"""The corpus as it is now, cheaply: the fingerprint the sensor polls and the freshness check compares.

`current_corpus_fingerprint` gives exactly the fingerprint `scan_corpus` (and so the `documents`
asset and every golden set) records: sha256 over sorted (relative path, document sha256) of every
PDF under the root, unreadable files and outside symlinks with an empty hash. It hashes only
files whose (size, mtime) changed since the last call, using a small JSON cache of earlier
hashes, so polling a 400,000-page corpus costs a directory walk and a `stat` per file, not a
read of every byte. The cache is a file under the data directory, never process state.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalset_pipeline.core.atomic import write_text_atomic

# The walker itself, so what counts as "a PDF under the root" can never drift from scan_corpus.
from evalset_pipeline.core.corpus.documents import (
    RejectedDocument,
    _rel,
    _walk_pdfs,
    corpus_fingerprint,
)
from evalset_pipeline.core.golden.errors import GoldenSetCorrupt, GoldenSetNotFound
from evalset_pipeline.core.golden.layout import GoldenLayout
from evalset_pipeline.core.golden.reader import resolve_version
from evalset_pipeline.core.golden.snapshot import decode_info, read_manifest
from evalset_pipeline.core.hashing import sha256_file
from evalset_pipeline.core.paths import DataPaths

STAT_CACHE = "corpus_stat_cache.json"


def stat_cache_path(paths: DataPaths) -> Path:
    return paths.root / "cache" / STAT_CACHE


def _load_cache(path: Path | None) -> dict[str, list]:
    if path is None or not path.exists():
        return {}
    try:
        data = json.loads(path.read_text())
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # a damaged cache only costs a re-hash


def current_corpus_fingerprint(
    root: str | Path, cache_file: str | Path | None = None, follow_symlinks: bool = False
) -> str:
    """The corpus fingerprint `scan_corpus(root, follow_symlinks)` would record, re-hashing only
    changed files."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"corpus root {root} is not a directory")
    cache_path = Path(cache_file) if cache_file is not None else None
    old = _load_cache(cache_path)
    new: dict[str, list] = {}
    rejected: list[RejectedDocument] = []
    entries: list[tuple[str, str]] = []
    for path in _walk_pdfs(root, rejected, follow_symlinks):
        rel = _rel(path, root)
        try:
            st = path.stat()
            stamp = [st.st_size, st.st_mtime_ns]
            hit = old.get(rel)
            sha = hit[2] if hit and hit[:2] == stamp else sha256_file(path)
            new[rel] = [*stamp, sha]
        except OSError:
            sha = ""  # scan_corpus rejects it with an empty hash too
        entries.append((rel, sha))
    entries += [(r.path, r.sha256) for r in rejected]
    if cache_path is not None and new != old:
        write_text_atomic(cache_path, json.dumps(new, sort_keys=True))
    return corpus_fingerprint(entries)


def latest_golden_info(data_dir: str | Path) -> dict[str, Any] | None:
    """The latest golden set's golden_sets row (decoded), or None when none was published."""
    try:
        version_id = resolve_version("latest", data_dir)
    except (GoldenSetNotFound, GoldenSetCorrupt):
        return None
    return decode_info(
        read_manifest(GoldenLayout(DataPaths.at(data_dir)).snapshot(version_id))["golden_set"]
    )


@dataclass(frozen=True)
class SensorDecision:
    rebuild: bool
    cursor: str  # always the fingerprint just seen
    reason: str


def decide_rebuild(cursor: str | None, fingerprint: str, built_from: str | None) -> SensorDecision:
    """One rebuild per corpus change: compare with the last fingerprint seen (the sensor cursor).

    With no cursor yet (a new sensor), compare with what the latest golden set was built from,
    so switching the sensor on rebuilds only when the golden set is actually behind the corpus.
    """
    if cursor:
        if cursor == fingerprint:
            return SensorDecision(False, fingerprint, f"corpus unchanged ({fingerprint[:16]})")
        return SensorDecision(
            True, fingerprint, f"corpus changed: {cursor[:16]} -> {fingerprint[:16]}"
        )
    if built_from == fingerprint:
        return SensorDecision(
            False, fingerprint, f"latest golden set already built from corpus {fingerprint[:16]}"
        )
    what = f"golden set built from {built_from[:16]}" if built_from else "no golden set yet"
    return SensorDecision(True, fingerprint, f"{what}; corpus is {fingerprint[:16]}")


def sidecar_fingerprint(root: str | Path) -> str:
    """Data version of the corpus's metadata sidecar: sha256 of its bytes, or `absent`."""
    from evalset_pipeline.core.metadata.sidecar import SIDECAR_NAME

    path = Path(root) / SIDECAR_NAME
    return sha256_file(path) if path.is_file() else "absent"

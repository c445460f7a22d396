"""Where a golden set's files live under `golden/`, and the few filesystem moves that make them safe.

    golden/
      versions/<version_id>/      immutable snapshot: items/judgments/units Parquet + manifest.json
      publishes/<event>.json      one per publish event (a new version, or an older one confirmed again):
                                  the history of what "latest" was; the last one is latest
      LATEST                      {"version_id", "seq", "event"}: swapped atomically, read by the Python API
      evalsets_read.duckdb        SQL reader copy, swapped atomically after each publish
      .publish.lock               serialises publishers (flock; released by the kernel on SIGKILL)
      .tmp-*                      work in progress; never read, removed by the next publish

A version becomes visible in exactly one step: `os.rename` of a fully written, fsynced temp
directory onto `versions/<version_id>`. Everything else (DuckDB rows, the reader copy, LATEST)
is an index derived from the snapshots and is repaired by the next publish after a crash.
"""

from __future__ import annotations

import json
import os
import re
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalset_pipeline.core.atomic import write_bytes_atomic
from evalset_pipeline.core.paths import DataPaths

VERSION_RE = re.compile(r"^gs-[0-9a-f]{16}$")
# What a user may type for a version: a full id or a unique prefix of at least 4 hex digits.
VERSION_PREFIX_RE = re.compile(r"^gs-[0-9a-f]{4,16}$")

MANIFEST = "manifest.json"
TMP_PREFIX = ".tmp-"
SNAPSHOT_FORMAT = 2  # 2: the manifest carries its own sha256


@dataclass(frozen=True)
class GoldenLayout:
    paths: DataPaths

    @property
    def root(self) -> Path:
        return self.paths.golden

    @property
    def versions(self) -> Path:
        return self.root / "versions"

    @property
    def latest(self) -> Path:
        return self.root / "LATEST"

    @property
    def reader_db(self) -> Path:
        return self.root / "evalsets_read.duckdb"

    @property
    def publishes(self) -> Path:
        return self.root / "publishes"

    @property
    def publish_lock(self) -> Path:
        return self.root / ".publish.lock"

    def snapshot(self, version_id: str) -> Path:
        if not VERSION_RE.match(version_id):
            # Checked before any path is built, so a crafted id can never escape versions/.
            raise ValueError(
                f"not a golden-set version id: {version_id!r} (expected gs- and 16 hex digits)"
            )
        return self.versions / version_id

    def tmp_path(self, suffix: str = "") -> Path:
        return self.root / f"{TMP_PREFIX}{uuid.uuid4().hex}{suffix}"

    def version_ids(self) -> list[str]:
        """Ids of the complete snapshots on disk (a directory here is complete by construction)."""
        if not self.versions.is_dir():
            return []
        return sorted(
            p.name for p in self.versions.iterdir() if VERSION_RE.match(p.name) and p.is_dir()
        )

    def read_latest(self) -> dict[str, Any] | None:
        try:
            data = self.latest.read_bytes()
        except FileNotFoundError:
            return None
        pointer = json.loads(data)
        if not VERSION_RE.match(str(pointer.get("version_id", ""))):
            raise ValueError(f"{self.latest} does not hold a version id: {data[:200]!r}")
        return pointer


def fsync_file(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Replace `path` so any reader sees either the old bytes or the new, never a torn file, even
    after a power loss; the temp name starts with TMP_PREFIX, which publishing sweeps."""
    write_bytes_atomic(path, data, fsync=True, tmp_prefix=f"{TMP_PREFIX}{path.name}-")

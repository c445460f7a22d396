"""Records crossing module lines for golden sets: what a build hands in, what readers get back."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.corpus.manifest import CorpusManifest


@dataclass
class GoldenSetDraft:
    """A complete golden set before it has a version id.

    Tables follow `schema.py` minus the `version_id` column, which publishing adds.
    """

    items: pa.Table
    judgments: pa.Table
    units: pa.Table
    corpus: CorpusManifest
    config_fingerprint: str  # knobs + backend/model ids + prompt hashes
    funnel: dict[str, Any] = field(default_factory=dict)
    provenance: dict[str, Any] = field(
        default_factory=dict
    )  # not part of the identity (call counts differ on a cached rebuild)


@dataclass(frozen=True)
class PublishResult:
    version_id: str
    seq: int
    created: bool  # False when an identical version already existed
    snapshot_dir: Path
    parent_version: str | None = None  # the latest version when this one was first published
    is_latest: bool = (
        True  # a build's publish makes its version latest; an import only with --as-latest
    )
    event: int = 0  # the publish event that made it latest (golden/publishes/)
    latest_moved: bool = (
        False  # this publish moved LATEST (a new version, or an older one confirmed again)
    )
    warnings: tuple[
        str, ...
    ] = ()  # e.g. the warehouse was held by a reader and lags until the next publish


@dataclass(frozen=True)
class GoldenSet:
    """One complete, checksum-verified golden-set version as readers see it."""

    version_id: str
    info: dict[
        str, Any
    ]  # its golden_sets row (funnel_json / provenance_json decoded into funnel / provenance)
    items: pa.Table
    judgments: pa.Table
    units: pa.Table
    snapshot_dir: Path

"""What a stage returns to its asset: the numbers it reports, and what its data version is."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class StageResult:
    # The asset's metadata: numbers stay numbers (the UI plots them), nested values become JSON.
    metrics: dict[str, Any]
    # The data version: a hash of these tables and of these files beside them under tables/, so
    # what reads them is stale exactly when their content changed...
    tables: tuple[str, ...] = ()
    files: tuple[str, ...] = ()
    # ...or a version of the stage's own (documents: the corpus fingerprint).
    version: str | None = None
    # Row-level detail the asset shows as a table (rejected files, per-item decisions).
    rows: list[dict[str, Any]] = field(default_factory=list)

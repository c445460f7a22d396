"""What a golden set records about the corpus it was built from (its identity, not its content)."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime


@dataclass(frozen=True)
class CorpusManifest:
    fingerprint: str  # sha256 over sorted (relative path, document sha256)
    built_at: datetime  # when the corpus was scanned (UTC)
    documents: int
    pages: int

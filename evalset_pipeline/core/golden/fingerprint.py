"""Version identity: a golden set is named by what it contains.

version_id = "gs-" + 16 hex of sha256 over, canonically encoded:
  corpus fingerprint, config fingerprint (knobs, backend/model ids, prompt hashes),
  and the sorted rows of items, judgments and units.

Provenance (call counts, tokens, cost, timings) and the corpus scan time are deliberately left
out: a fully cached rebuild makes zero model calls and must still land on the same version.
Units are in: a version id must name everything in its snapshot, or two different snapshots
could share an id and "immutable" would mean nothing.
"""

from __future__ import annotations

import hashlib

import pyarrow as pa

from evalset_pipeline.core.golden.schema import TABLES
from evalset_pipeline.core.hashing import canonical_json

# Bump when the canonical encoding changes; old ids then stay valid names for old content.
IDENTITY_FORMAT = "golden-set/v1"
TABLE_ORDER = ("golden_items", "golden_judgments", "golden_units")


def content_columns(table_name: str) -> list[str]:
    """Columns that carry content: every schema column except the version id itself."""
    return [name for name in TABLES[table_name].names if name != "version_id"]


def _canonical_rows(table: pa.Table, columns: list[str]) -> list[str]:
    values = [table.column(c).to_pylist() for c in columns]
    # Sorting the encoded rows makes the id independent of row order in the draft.
    return sorted(canonical_json(list(row)) for row in zip(*values, strict=True))


def compute_version_id(
    corpus_fingerprint: str, config_fingerprint: str, tables: dict[str, pa.Table]
) -> str:
    """Content fingerprint of a golden set; `tables` are keyed like `schema.TABLES`."""
    h = hashlib.sha256()
    header = {"format": IDENTITY_FORMAT, "corpus": corpus_fingerprint, "config": config_fingerprint}
    h.update(canonical_json(header).encode("utf-8"))
    for name in TABLE_ORDER:
        columns = content_columns(name)
        rows = _canonical_rows(tables[name], columns)
        # Table name, columns and row count delimit the sections unambiguously.
        h.update(f"\n#{name}:{canonical_json(columns)}:{len(rows)}\n".encode())
        for row in rows:  # JSON escapes newlines, so "\n" cannot occur inside a row
            h.update(row.encode("utf-8"))
            h.update(b"\n")
    return "gs-" + h.hexdigest()[:16]

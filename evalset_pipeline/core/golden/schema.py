"""The golden-set contract downstream readers rely on. Keep these names stable.

Tables (DuckDB `data/evalsets.duckdb` and per-version Parquet snapshots):
  golden_sets       one row per version
  golden_items      one row per question
  golden_judgments  one row per (question, candidate unit) with its three-way label
  golden_units      one row per page referenced by the version
  golden_publishes  one row per publish event (LATEST moved: a new version, or an older one confirmed again)
Views: latest_golden_set / _items / _judgments / _units: the version of the last publish event.
"""

from __future__ import annotations

import pyarrow as pa

from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.labels import PAGE_FIELDS

ROLES = ("gold", "distractor", "pooled")
# What a golden_units row says about its page (beside its id, paths and hash): what diffs compare
# and exports carry as metadata.
UNIT_DESCRIPTION = ("document_sha256", "page_number", *PAGE_FIELDS)

GOLDEN_SETS = pa.schema(
    [
        ("version_id", pa.string()),
        ("seq", pa.int64()),
        ("created_at", pa.timestamp("us", tz="UTC")),
        ("parent_version", pa.string()),
        ("corpus_fingerprint", pa.string()),
        ("config_fingerprint", pa.string()),
        ("corpus_built_at", pa.timestamp("us", tz="UTC")),
        ("corpus_documents", pa.int64()),
        ("corpus_pages", pa.int64()),
        ("n_items", pa.int64()),
        ("n_main", pa.int64()),
        ("n_underspecified", pa.int64()),
        ("n_regression", pa.int64()),
        ("funnel_json", pa.string()),  # decision counts with reasons
        (
            "provenance_json",
            pa.string(),
        ),  # backend, model, prompt hashes, calls, tokens, cost, code version
    ]
)

GOLDEN_PUBLISHES = pa.schema(
    [
        ("event", pa.int64()),
        ("version_id", pa.string()),
        ("seq", pa.int64()),
        ("published_at", pa.timestamp("us", tz="UTC")),
        ("new_version", pa.bool_()),
    ]
)

GOLDEN_ITEMS = pa.schema(
    [
        ("version_id", pa.string()),
        ("item_id", pa.string()),
        ("slice", pa.string()),
        ("question", pa.string()),
        ("answer", pa.string()),
        ("gold_unit_id", pa.string()),
        ("original_question", pa.string()),  # as the writer wrote it, before qualifiers
        ("language", pa.string()),
        (
            "qualified_axes",
            pa.string(),
        ),  # comma-separated axes whose qualifiers were added, "" if none
    ]
)

GOLDEN_JUDGMENTS = pa.schema(
    [
        ("version_id", pa.string()),
        ("item_id", pa.string()),
        ("unit_id", pa.string()),
        ("role", pa.string()),
        ("axis", pa.string()),  # axis on which a distractor differs from the gold; "" for the gold
        ("label", pa.string()),
        ("rationale", pa.string()),
        ("label_source", pa.string()),  # model | human | adjudicated
    ]
)

GOLDEN_UNITS = pa.schema(
    [
        ("version_id", pa.string()),
        ("unit_id", pa.string()),
        ("document_path", pa.string()),
        ("document_sha256", pa.string()),
        ("page_number", pa.int64()),
        ("render_path", pa.string()),  # relative to the data directory
        ("text_path", pa.string()),  # relative to the data directory (JSON text layer)
        ("render_hash", pa.string()),
        ("template_id", pa.string()),
        ("entity", pa.string()),
        ("metric", pa.string()),
        ("period", pa.string()),
        ("revision", pa.string()),
        ("language", pa.string()),
    ]
)

TABLES: dict[str, pa.Schema] = {
    "golden_items": GOLDEN_ITEMS,
    "golden_judgments": GOLDEN_JUDGMENTS,
    "golden_units": GOLDEN_UNITS,
}

# The contract's version: bump it (and say why in CHANGELOG.md) whenever a schema above changes,
# so a downstream reader can tell which layout it is reading. The test suite pins the schemas'
# fingerprint to this number, so a change that forgets the bump fails there.
CONTRACT_VERSION = 1
CONTRACT_SCHEMAS: dict[str, pa.Schema] = {
    "golden_sets": GOLDEN_SETS,
    "golden_publishes": GOLDEN_PUBLISHES,
    **TABLES,
}


def contract_fingerprint() -> str:
    """sha256 over every contract table's column names and types, in order."""
    lines = [
        f"{name}.{f.name}:{f.type}"
        for name, schema in sorted(CONTRACT_SCHEMAS.items())
        for f in schema
    ]
    return sha256_text("\n".join(lines))

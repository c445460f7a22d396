"""Check and normalise a draft before it is frozen into a version.

A version is immutable, so a contract violation caught after publishing can only be fixed by a
new version; catching it here costs nothing. Normalising (column order, types, row order) also
makes the snapshot files themselves canonical.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

import pyarrow as pa

from evalset_pipeline.core.golden.errors import InvalidDraft
from evalset_pipeline.core.golden.fingerprint import content_columns
from evalset_pipeline.core.golden.model import GoldenSetDraft
from evalset_pipeline.core.golden.schema import ROLES, TABLES
from evalset_pipeline.core.labels import LABELS, SLICES

SORT_KEYS = {
    "golden_items": ["item_id"],
    "golden_judgments": ["item_id", "unit_id", "role"],
    "golden_units": ["unit_id"],
}
REQUIRED_NON_NULL = {
    "golden_items": ["item_id", "slice", "question", "gold_unit_id"],
    "golden_judgments": ["item_id", "unit_id", "role", "label"],
    "golden_units": ["unit_id", "render_path", "text_path"],
}


def _normalise(name: str, table: object, problems: list[str]) -> pa.Table | None:
    if not isinstance(table, pa.Table):
        problems.append(f"{name}: expected a pyarrow.Table, got {type(table).__name__}")
        return None
    columns = content_columns(name)
    present = set(table.column_names)
    if "version_id" in present:
        problems.append(f"{name}: drafts carry no version_id column (publishing assigns it)")
    missing = [c for c in columns if c not in present]
    extra = sorted(present - set(columns) - {"version_id"})
    if missing:
        problems.append(f"{name}: missing columns {missing}")
    if extra:
        problems.append(
            f"{name}: unexpected columns {extra} (the schema in golden/schema.py is the contract)"
        )
    if missing or extra:
        return None
    target = pa.schema([TABLES[name].field(c) for c in columns])
    try:
        typed = table.select(columns).cast(target)
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, pa.ArrowTypeError) as exc:
        problems.append(f"{name}: cannot cast to the schema types: {exc}")
        return None
    for column in REQUIRED_NON_NULL[name]:
        nulls = typed.column(column).null_count
        if nulls:
            problems.append(f"{name}.{column}: {nulls} null value(s)")
    return typed.combine_chunks().sort_by([(k, "ascending") for k in SORT_KEYS[name]])


def _dupes(values: Iterable[object]) -> list[object]:
    return [v for v, n in Counter(values).items() if n > 1][:5]


def _unknown(values: Iterable[object], allowed: Iterable[object]) -> list[object]:
    allowed = set(allowed)
    return sorted({v for v in values if v not in allowed}, key=str)[:5]


def normalise_draft(draft: GoldenSetDraft) -> dict[str, pa.Table]:
    """Return the draft's tables in schema order and canonical row order, or raise InvalidDraft."""
    problems: list[str] = []
    if not draft.corpus.fingerprint:
        problems.append("corpus.fingerprint is empty")
    if not draft.config_fingerprint:
        problems.append("config_fingerprint is empty")
    raw = {
        "golden_items": draft.items,
        "golden_judgments": draft.judgments,
        "golden_units": draft.units,
    }
    tables = {name: _normalise(name, table, problems) for name, table in raw.items()}
    items, judgments, units = (
        tables["golden_items"],
        tables["golden_judgments"],
        tables["golden_units"],
    )
    if items is not None and judgments is not None and units is not None and not problems:
        item_ids = items.column("item_id").to_pylist()
        unit_ids = units.column("unit_id").to_pylist()
        j_items = judgments.column("item_id").to_pylist()
        j_units = judgments.column("unit_id").to_pylist()
        checks = [
            ("golden_items: duplicate item_id", _dupes(item_ids)),
            ("golden_units: duplicate unit_id", _dupes(unit_ids)),
            (
                "golden_judgments: duplicate (item_id, unit_id)",
                _dupes(zip(j_items, j_units, strict=True)),
            ),
            ("golden_items: unknown slice", _unknown(items.column("slice").to_pylist(), SLICES)),
            (
                "golden_judgments: unknown role",
                _unknown(judgments.column("role").to_pylist(), ROLES),
            ),
            (
                "golden_judgments: unknown label",
                _unknown(judgments.column("label").to_pylist(), LABELS),
            ),
            ("golden_judgments: item_id not in items", _unknown(j_items, item_ids)),
            ("golden_judgments: unit_id not in units", _unknown(j_units, unit_ids)),
            (
                "golden_items: gold_unit_id not in units",
                _unknown(items.column("gold_unit_id").to_pylist(), unit_ids),
            ),
        ]
        problems.extend(f"{what}: {examples}" for what, examples in checks if examples)
    if problems:
        raise InvalidDraft("golden-set draft rejected:\n  - " + "\n  - ".join(problems))
    return {name: table for name, table in tables.items() if table is not None}


def normalise_table(name: str, table: pa.Table) -> pa.Table:
    """One table of a draft in schema order and canonical row order, or raise InvalidDraft
    (a large import checks its staged tables in SQL, `core/imports/staging.py`, and its small
    units table here)."""
    problems: list[str] = []
    typed = _normalise(name, table, problems)
    if typed is None or problems:
        raise InvalidDraft("golden-set draft rejected:\n  - " + "\n  - ".join(problems))
    return typed

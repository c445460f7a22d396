"""In-memory golden sets for the scoring tests: no files, no publish step, any creation date."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pyarrow as pa

from evalset_pipeline.core.golden.model import GoldenSet

VERSION = "gs-00000000000000aa"
CORPUS_FP = "corpus-fp-gold"
CORPUS_PAGES = 1000


def make_golden(
    items: Iterable[tuple[str, str, str | None]],
    judgments: Iterable[tuple[str, str, str]],
    *,
    age_days: float = 1.0,
    corpus_fingerprint: str = CORPUS_FP,
    corpus_pages: int = CORPUS_PAGES,
    version_id: str = VERSION,
) -> GoldenSet:
    """items: (item_id, slice, gold_unit_id); judgments: (item_id, unit_id, label)."""
    items = list(items)
    judgments = list(judgments)
    item_table = pa.table(
        {
            "version_id": [version_id] * len(items),
            "item_id": [i[0] for i in items],
            "slice": [i[1] for i in items],
            "question": [f"question {i[0]}" for i in items],
            "gold_unit_id": pa.array([i[2] for i in items], pa.string()),
        }
    )
    judgment_table = pa.table(
        {
            "version_id": [version_id] * len(judgments),
            "item_id": [j[0] for j in judgments],
            "unit_id": [j[1] for j in judgments],
            "role": ["pooled"] * len(judgments),
            "label": [j[2] for j in judgments],
        }
    )
    info = {
        "version_id": version_id,
        "seq": 1,
        "created_at": datetime.now(UTC) - timedelta(days=age_days),
        "corpus_fingerprint": corpus_fingerprint,
        "corpus_pages": corpus_pages,
        "corpus_documents": corpus_pages // 10,
        "n_items": len(items),
    }
    return GoldenSet(
        version_id=version_id,
        info=info,
        items=item_table,
        judgments=judgment_table,
        units=pa.table({"unit_id": pa.array([], pa.string())}),
        snapshot_dir=Path("/nonexistent/golden") / version_id,
    )

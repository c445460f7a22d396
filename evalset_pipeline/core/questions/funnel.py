"""Every decision about a candidate question, kept with its reason, so the set's shape is explainable."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass

import pyarrow as pa

# Stages in order; a question's final decision is its last row.
WRITE, GOLD_CHECK, DISTRACTOR_CHECK, QUALIFY, FINAL = (
    "write",
    "gold_check",
    "distractor_check",
    "qualify",
    "final",
)

# The funnel's counts in the order every report prints them (summaries, Dagster metadata, the CLI).
FUNNEL_ORDER = (
    "sampled",
    "skipped",
    "generated",
    "kept_as_written",
    "qualified",
    "kept",
    "underspecified",
    "dropped",
)

SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("gold_unit_id", pa.string()),
        ("stage", pa.string()),
        ("decision", pa.string()),
        ("reason", pa.string()),
        ("question", pa.string()),
    ]
)


@dataclass(frozen=True)
class FunnelRow:
    item_id: str
    gold_unit_id: str
    stage: str
    decision: str  # pass | fail | kept | qualified | dropped | underspecified | skipped
    reason: str
    question: str = ""


def summarize(rows: Iterable[FunnelRow]) -> dict:
    """generated / kept / qualified / underspecified / dropped, with drop reasons counted."""
    final = [r for r in rows if r.stage == FINAL]
    decisions = Counter(r.decision for r in final)
    dropped = Counter(_reason_family(r.reason) for r in final if r.decision == "dropped")
    skipped = Counter(_reason_family(r.reason) for r in final if r.decision == "skipped")
    return {
        "sampled": len(final),
        "generated": len(final) - decisions.get("skipped", 0),
        "skipped": decisions.get("skipped", 0),
        "kept": decisions.get("kept", 0) + decisions.get("qualified", 0),
        "kept_as_written": decisions.get("kept", 0),
        "qualified": decisions.get("qualified", 0),
        "underspecified": decisions.get("underspecified", 0),
        "dropped": decisions.get("dropped", 0),
        "dropped_reasons": dict(sorted(dropped.items())),
        "skipped_reasons": dict(skipped.most_common()),
    }


def _reason_family(reason: str) -> str:
    """Group reasons so counts are readable ("answerable from distractor on axis=period")."""
    return reason.split(";")[0].strip()

"""Honest counts of an item's look-alikes: which of its distractors differ from it on one axis.

A distractor is judged with the axis it was mined on (`candidate_labels`: role `distractor`,
axis period / entity / metric / ... / `appearance`). A one-axis look-alike is a distractor
mined on an axis; `appearance` neighbours fill a slot when no such page exists and are never
counted as one. Reported per axis as the share of items with at least one, so a set whose
"period" slot is filled by unrelated pages cannot read as hard.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.negatives.mining import FALLBACK_AXIS

__all__ = ["DISTRACTOR_ROLE", "distractors_by_kind", "golden_lookalikes", "lookalike_shares"]

DISTRACTOR_ROLE = "distractor"
_ANSWERS = "sufficient"  # a distractor judged to answer is evidence, not a look-alike


def distractors_by_kind(judgments: pa.Table) -> dict[str, dict[str, set[str]]]:
    """item id -> kind (the axis it was mined on, or `appearance`) -> its distractor unit ids,
    from golden judgments (item_id, unit_id, role, axis, label); one judged to answer is left out."""
    out: dict[str, dict[str, set[str]]] = defaultdict(lambda: defaultdict(set))
    columns = (
        judgments.column(c).to_pylist() for c in ("item_id", "unit_id", "role", "axis", "label")
    )
    for item, unit, role, axis, label in zip(*columns, strict=True):
        if role == DISTRACTOR_ROLE and axis and label != _ANSWERS:
            out[item][axis].add(unit)
    return out


def golden_lookalikes(items: pa.Table, judgments: pa.Table) -> dict[str, Any]:
    """`lookalike_shares` of a golden set's main slice (items and judgments as published)."""
    main = [
        i
        for i, s in zip(*(items.column(c).to_pylist() for c in ("item_id", "slice")), strict=True)
        if s == "main"
    ]
    return lookalike_shares(main, distractors_by_kind(judgments))


def lookalike_shares(
    item_ids: Sequence[str], kinds: Mapping[str, Mapping[str, set[str]]]
) -> dict[str, Any]:
    """Items, and per kind the number and share of them with at least one such distractor;
    `one_axis` = at least one on any axis, `appearance_only` = distractors but none on an axis."""
    items = list(dict.fromkeys(item_ids))
    n = len(items)
    counts: dict[str, int] = defaultdict(int)
    one_axis = appearance_only = 0
    for item in items:
        found = {k for k, units in kinds.get(item, {}).items() if units}
        for kind in found:
            counts[kind] += 1
        if found - {FALLBACK_AXIS}:
            one_axis += 1
        elif found:
            appearance_only += 1

    def share(c: int) -> float | None:
        return round(c / n, 4) if n else None

    return {
        "items": n,
        "one_axis_items": one_axis,
        "one_axis_share": share(one_axis),
        "appearance_only_items": appearance_only,
        "by_kind": {k: {"items": c, "share": share(c)} for k, c in sorted(counts.items())},
    }

"""What changed between two golden-set versions, item by item.

A retrieval metric can move because the retriever changed or because the gold changed. The diff
makes the second visible: items added / removed, and for items in both, which fields changed
(question text, answer, slice, gold page), which candidates' labels changed, and how the
distractor set changed.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.golden.schema import UNIT_DESCRIPTION

ITEM_FIELDS = (
    "question",
    "answer",
    "slice",
    "gold_unit_id",
    "original_question",
    "language",
    "qualified_axes",
)
INFO_FIELDS = (
    "corpus_fingerprint",
    "config_fingerprint",
    "corpus_documents",
    "corpus_pages",
    "n_items",
    "n_main",
    "n_underspecified",
    "n_regression",
)
UNIT_FIELDS = ("render_hash", *UNIT_DESCRIPTION)


@dataclass
class ItemChange:
    item_id: str  # id in version A
    new_item_id: str  # id in version B (differs only when matched by gold page)
    matched_by: str  # "item_id" | "gold_unit_id"
    fields: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # field -> (A, B)
    labels: dict[str, tuple[str | None, str | None]] = field(
        default_factory=dict
    )  # unit -> (A, B); None = not a candidate
    distractors_added: list[str] = field(default_factory=list)
    distractors_removed: list[str] = field(default_factory=list)


@dataclass
class GoldenSetDiff:
    a: str
    b: str
    info: dict[str, tuple[Any, Any]]  # golden_sets fields that differ (fingerprints, counts)
    added: list[dict[str, Any]]  # {item_id, slice, question}
    removed: list[dict[str, Any]]
    changed: list[ItemChange]
    unchanged: int
    label_transitions: dict[str, int]  # "supporting -> sufficient": count, over items in both
    units_added: list[str]
    units_removed: list[str]
    units_changed: dict[
        str, list[str]
    ]  # unit -> fields that differ (a re-render shows as render_hash)

    @property
    def is_empty(self) -> bool:
        return not (
            self.added
            or self.removed
            or self.changed
            or self.units_added
            or self.units_removed
            or self.units_changed
        )

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def _rows_by(table: pa.Table, key: str) -> dict[str, dict[str, Any]]:
    return {row[key]: row for row in table.to_pylist()}


def _judgments_by_item(table: pa.Table) -> dict[str, dict[str, dict[str, Any]]]:
    out: dict[str, dict[str, dict[str, Any]]] = {}
    for row in table.to_pylist():
        out.setdefault(row["item_id"], {})[row["unit_id"]] = row
    return out


def _pair_leftovers(removed: dict[str, dict], added: dict[str, dict]) -> list[tuple[str, str]]:
    """Pair unmatched items that share a gold page (unique on both sides): the same question
    re-worded under a new id is a change, not a removal plus an addition."""
    by_gold_a = Counter(r["gold_unit_id"] for r in removed.values())
    by_gold_b = Counter(r["gold_unit_id"] for r in added.values())
    gold_b = {r["gold_unit_id"]: i for i, r in added.items() if by_gold_b[r["gold_unit_id"]] == 1}
    return [
        (i, gold_b[r["gold_unit_id"]])
        for i, r in removed.items()
        if by_gold_a[r["gold_unit_id"]] == 1 and r["gold_unit_id"] in gold_b
    ]


def _compare_item(
    a_id: str, b_id: str, how: str, a: dict, b: dict, ja: dict, jb: dict, transitions: Counter
) -> ItemChange | None:
    change = ItemChange(item_id=a_id, new_item_id=b_id, matched_by=how)
    for name in ITEM_FIELDS:
        if a.get(name) != b.get(name):
            change.fields[name] = (a.get(name), b.get(name))
    for unit in sorted(set(ja) | set(jb)):
        old = ja[unit]["label"] if unit in ja else None
        new = jb[unit]["label"] if unit in jb else None
        if old != new:
            change.labels[unit] = (old, new)
            if old is not None and new is not None:
                transitions[f"{old} -> {new}"] += 1
    dist_a = {u for u, r in ja.items() if r["role"] == "distractor"}
    dist_b = {u for u, r in jb.items() if r["role"] == "distractor"}
    change.distractors_added = sorted(dist_b - dist_a)
    change.distractors_removed = sorted(dist_a - dist_b)
    if change.fields or change.labels or change.distractors_added or change.distractors_removed:
        return change
    return None


def diff_golden_sets(a: GoldenSet, b: GoldenSet) -> GoldenSetDiff:
    """Structured diff from version `a` to version `b`."""
    items_a, items_b = _rows_by(a.items, "item_id"), _rows_by(b.items, "item_id")
    judg_a, judg_b = _judgments_by_item(a.judgments), _judgments_by_item(b.judgments)
    pairs = [(i, i, "item_id") for i in sorted(items_a.keys() & items_b.keys())]
    removed = {i: items_a[i] for i in items_a.keys() - items_b.keys()}
    added = {i: items_b[i] for i in items_b.keys() - items_a.keys()}
    for ia, ib in _pair_leftovers(removed, added):
        pairs.append((ia, ib, "gold_unit_id"))
        del removed[ia], added[ib]
    transitions: Counter = Counter()
    changed = []
    for ia, ib, how in pairs:
        change = _compare_item(
            ia,
            ib,
            how,
            items_a[ia],
            items_b[ib],
            judg_a.get(ia, {}),
            judg_b.get(ib, {}),
            transitions,
        )
        if change is not None:
            changed.append(change)
    units_a, units_b = _rows_by(a.units, "unit_id"), _rows_by(b.units, "unit_id")
    units_changed = {
        u: [f for f in UNIT_FIELDS if units_a[u].get(f) != units_b[u].get(f)]
        for u in sorted(units_a.keys() & units_b.keys())
        if any(units_a[u].get(f) != units_b[u].get(f) for f in UNIT_FIELDS)
    }
    brief = lambda r: {"item_id": r["item_id"], "slice": r["slice"], "question": r["question"]}  # noqa: E731
    return GoldenSetDiff(
        a=a.version_id,
        b=b.version_id,
        info={
            k: (a.info.get(k), b.info.get(k)) for k in INFO_FIELDS if a.info.get(k) != b.info.get(k)
        },
        added=[brief(added[i]) for i in sorted(added)],
        removed=[brief(removed[i]) for i in sorted(removed)],
        changed=sorted(changed, key=lambda c: c.item_id),
        unchanged=len(pairs) - len(changed),
        label_transitions=dict(sorted(transitions.items())),
        units_added=sorted(units_b.keys() - units_a.keys()),
        units_removed=sorted(units_a.keys() - units_b.keys()),
        units_changed=units_changed,
    )

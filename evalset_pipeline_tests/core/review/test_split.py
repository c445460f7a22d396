"""Development vs held-out split: deterministic, by item, and exemplars come only from development."""

from __future__ import annotations

from datetime import UTC, datetime

from evalset_pipeline.core.review.split import DEV, HELDOUT, dev_exemplars, split_of
from evalset_pipeline.core.review.store import resolve


def _row(item: str, unit: str, label: str, who: str = "alice") -> dict:
    return {
        "item_id": item,
        "unit_id": unit,
        "question_sha": "q" + item,
        "question": f"Q {item}",
        "render_hash": "h",
        "label": label,
        "note": "",
        "annotator": who,
        "imported_at": datetime(2025, 1, 1, tzinfo=UTC),
        "model_label": None,
    }


def test_split_is_deterministic_by_item_and_near_its_share():
    ids = [f"q-{k:05d}" for k in range(4000)]
    first = [split_of(i) for i in ids]
    assert first == [split_of(i) for i in ids]
    share = first.count(DEV) / len(ids)
    assert 0.27 < share < 0.33
    assert {split_of(i, dev_fraction=0.0) for i in ids[:50]} == {HELDOUT}
    assert {split_of(i, dev_fraction=1.0) for i in ids[:50]} == {DEV}


def test_exemplars_only_from_development_balanced_one_per_item():
    rows = []
    for k in range(200):
        item = f"q-{k:04d}"
        rows += [
            _row(item, "gold", "sufficient"),
            _row(item, "d1", "supporting"),
            _row(item, "d2", "irrelevant"),
        ]
    reviews = resolve(rows, [])
    ex = dev_exemplars(reviews.values(), per_class=3)
    assert (
        sorted(e["label"] for e in ex)
        == ["irrelevant"] * 3 + ["sufficient"] * 3 + ["supporting"] * 3
    )
    assert all(split_of(e["item_id"]) == DEV for e in ex)
    assert len({e["item_id"] for e in ex}) == len(ex)  # no two exemplars from one question
    assert ex == dev_exemplars(reviews.values(), per_class=3)


def test_pairs_in_conflict_are_never_exemplars():
    dev_item = next(f"q-{k}" for k in range(100) if split_of(f"q-{k}") == DEV)
    reviews = resolve(
        [_row(dev_item, "u", "sufficient", "alice"), _row(dev_item, "u", "irrelevant", "bob")], []
    )
    assert dev_exemplars(reviews.values()) == []

"""One-axis look-alike shares: a distractor mined on an axis counts, an `appearance` neighbour
or a distractor judged to answer does not."""

from __future__ import annotations

import pyarrow as pa

from evalset_pipeline.core.negatives.lookalikes import golden_lookalikes


def _judgment(item: str, unit: str, role: str, axis: str, label: str = "irrelevant") -> dict:
    return {"item_id": item, "unit_id": unit, "role": role, "axis": axis, "label": label}


def test_shares_count_items_with_a_true_one_axis_distractor_per_axis():
    items = pa.Table.from_pylist(
        [
            {"item_id": "a", "slice": "main"},
            {"item_id": "b", "slice": "main"},
            {"item_id": "c", "slice": "main"},
            {"item_id": "d", "slice": "main"},
            {"item_id": "x", "slice": "underspecified"},
        ]
    )
    judgments = pa.Table.from_pylist(
        [
            _judgment("a", "g1", "gold", "", "sufficient"),
            _judgment("a", "p1", "distractor", "period"),
            _judgment("a", "e1", "distractor", "entity", "supporting"),
            _judgment("b", "n1", "distractor", "appearance"),
            _judgment("c", "p2", "distractor", "period", "sufficient"),  # answers: evidence
            _judgment("c", "s1", "pooled", "figure"),
            _judgment("x", "p3", "distractor", "period"),  # not the main slice
        ]
    )
    shares = golden_lookalikes(items, judgments)
    assert shares["items"] == 4
    assert (shares["one_axis_items"], shares["one_axis_share"]) == (1, 0.25)
    assert shares["appearance_only_items"] == 1
    assert shares["by_kind"] == {
        "appearance": {"items": 1, "share": 0.25},
        "entity": {"items": 1, "share": 0.25},
        "period": {"items": 1, "share": 0.25},
    }


def test_no_main_item_gives_no_share():
    empty = pa.Table.from_pylist([], pa.schema([("item_id", pa.string()), ("slice", pa.string())]))
    judgments = pa.Table.from_pylist(
        [],
        pa.schema([(c, pa.string()) for c in ("item_id", "unit_id", "role", "axis", "label")]),
    )
    assert golden_lookalikes(empty, judgments)["one_axis_share"] is None

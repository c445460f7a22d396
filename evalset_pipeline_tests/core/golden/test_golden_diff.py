"""Diff of two versions that differ by known changes."""

from __future__ import annotations

import pyarrow as pa

from evalset_pipeline import load_golden_set
from evalset_pipeline.core.golden.diff import diff_golden_sets
from evalset_pipeline.core.golden.publish import publish_golden_set


def _edit(table: pa.Table, match: dict, **changes: object) -> pa.Table:
    rows = table.to_pylist()
    for row in rows:
        if all(row[k] == v for k, v in match.items()):
            row.update(changes)
    return pa.Table.from_pylist(rows, schema=table.schema)


def test_diff_reports_exactly_the_known_changes(paths, draft):
    a = publish_golden_set(paths, draft(n_items=6))
    changed = draft(n_items=7)  # adds it-0006
    changed.items = changed.items.filter(
        pa.compute.not_equal(changed.items["item_id"], "it-0005")
    )  # removes it-0005
    changed.judgments = changed.judgments.filter(
        pa.compute.not_equal(changed.judgments["item_id"], "it-0005")
    )
    changed.items = _edit(
        changed.items,
        {"item_id": "it-0001"},
        question="What was Acme revenue in FY24 Q2, consolidated?",
    )
    # it-0002: a distractor relabelled supporting -> sufficient, and one distractor swapped.
    changed.judgments = _edit(
        changed.judgments, {"item_id": "it-0002", "label": "supporting"}, label="sufficient"
    )
    changed.judgments = _edit(
        changed.judgments, {"item_id": "it-0003", "unit_id": "doc1:p1"}, unit_id="doc1:p4"
    )
    b = publish_golden_set(paths, changed)
    diff = diff_golden_sets(
        load_golden_set(a.version_id, paths.root), load_golden_set(b.version_id, paths.root)
    )

    assert [r["item_id"] for r in diff.added] == ["it-0006"]
    assert [r["item_id"] for r in diff.removed] == ["it-0005"]
    by_id = {c.item_id: c for c in diff.changed}
    assert set(by_id) == {"it-0001", "it-0002", "it-0003"}
    assert by_id["it-0001"].fields == {
        "question": (
            "What was Acme revenue in FY24 Q2?",
            "What was Acme revenue in FY24 Q2, consolidated?",
        )
    }
    assert by_id["it-0001"].labels == {}
    assert (
        by_id["it-0002"].labels == {"doc1:p1": ("supporting", "sufficient")}
        and not by_id["it-0002"].fields
    )
    assert by_id["it-0003"].distractors_added == ["doc1:p4"] and by_id[
        "it-0003"
    ].distractors_removed == ["doc1:p1"]
    assert diff.label_transitions == {"supporting -> sufficient": 1}
    assert diff.unchanged == 2  # it-0000, it-0004
    assert diff.info == {
        "n_main": (5, 6),
        "n_underspecified": (1, 0),
    }  # it-0005 was the underspecified one
    assert diff_golden_sets(
        load_golden_set(a.version_id, paths.root), load_golden_set(a.version_id, paths.root)
    ).is_empty


def test_reworded_item_under_a_new_id_is_a_change_not_add_remove(paths, draft):
    a = publish_golden_set(paths, draft(n_items=3))
    renamed = draft(n_items=3)
    renamed.items = _edit(
        renamed.items, {"item_id": "it-0002"}, item_id="it-0002b", question="Reworded?"
    )
    renamed.judgments = _edit(renamed.judgments, {"item_id": "it-0002"}, item_id="it-0002b")
    b = publish_golden_set(paths, renamed)
    diff = diff_golden_sets(
        load_golden_set(a.version_id, paths.root), load_golden_set(b.version_id, paths.root)
    )
    assert not diff.added and not diff.removed
    (change,) = diff.changed
    assert (change.item_id, change.new_item_id, change.matched_by) == (
        "it-0002",
        "it-0002b",
        "gold_unit_id",
    )
    assert change.fields["question"][1] == "Reworded?"

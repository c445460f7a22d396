"""Table identity: the same table across filings (a row renamed or added), the same statement
across filers, and unrelated tables kept apart."""

from __future__ import annotations

from datetime import date

import pyarrow as pa

from evalset_pipeline.core.evidence.index import CELLS_SCHEMA, label_key
from evalset_pipeline.core.negatives.table_signature import (
    SAME_TABLE,
    TableSignature,
    page_signatures,
    similarity,
    table_families,
)

MDA = ["Product revenue", "Service revenue", "Total revenue", "Backlog"]
SEGMENTS = ["Americas", "Europe", "Asia Pacific", "Corporate and other"]


def _sig(unit: str, labels: list[str], statement: str = "") -> TableSignature:
    return TableSignature(
        unit,
        frozenset(x.casefold() for x in labels),
        frozenset({"m3"}),
        frozenset({"results", "operations"}),
        statement,
    )


def test_a_renamed_or_added_row_keeps_the_tables_identity():
    before = _sig("a", MDA)
    renamed = _sig("b", ["Product revenue", "Subscription and service revenue", *MDA[2:]])
    added = _sig("c", [*MDA, "Deferred revenue"])
    assert similarity(before, renamed) >= SAME_TABLE
    assert similarity(before, added) >= SAME_TABLE
    assert similarity(before, _sig("d", SEGMENTS)) < SAME_TABLE


def test_statements_are_the_same_table_across_filers_whatever_their_rows():
    ours = _sig("a", ["Net sales", "Cost of sales"], "income_statement")
    theirs = _sig("b", ["Revenues", "Cost of revenues"], "income_statement")
    balance = _sig("c", ["Net sales", "Cost of sales"], "balance_sheet")
    assert similarity(ours, theirs) == 1.0
    assert similarity(ours, balance) == 0.0
    assert similarity(ours, _sig("d", ["Net sales", "Cost of sales"])) == 0.0


def test_families_group_a_drifting_table_and_keep_other_tables_apart():
    pages = [
        _sig("q1", MDA),
        _sig("q2", ["Product revenue", "Subscription and service revenue", *MDA[2:]]),
        _sig("q3", ["Product revenue", "Subscription and service revenue", *MDA[2:], "Other"]),
        _sig("seg1", SEGMENTS),
        _sig("seg2", SEGMENTS[:3]),
        _sig("is1", ["Net sales"], "income_statement"),
        _sig("is2", ["Revenues"], "income_statement"),
    ]
    families = table_families(pages)
    assert families["q1"] == families["q2"] == families["q3"]
    assert families["seg1"] == families["seg2"] != families["q1"]
    assert families["is1"] == families["is2"] == "statement:income_statement"
    # the grouping does not depend on the order pages come in
    assert table_families(pages[::-1]) == families


def test_signatures_are_read_from_evidence_cells():
    def cell(unit: str, label: str, months: int | None, col: int) -> dict:
        return {
            "unit_id": unit,
            "table": 0,
            "row": 0,
            "col": col,
            "label": label,
            "parent": "",
            "subject": "Results of Operations",
            "title": "",
            "header": "",
            "months": months,
            "end": date(2024, 3, 31),
            "year": 2024,
            "display": "1",
            "value": 1.0,
            "unit": "",
            "scale": None,
            "percent": False,
            "key": "1",
        }

    rows = [cell("p", label, 3, c) for label in MDA for c in (0, 1)]
    rows += [cell("p", "Cash", None, 2), cell("lonely", "Cash", None, 0)]
    sigs = page_signatures(pa.Table.from_pylist(rows, CELLS_SCHEMA), {"p": ""}, label_key)
    assert set(sigs) == {"p"}  # one label is not a table
    assert sigs["p"].columns == {"m3", "i"}
    assert "backlog" in sigs["p"].labels and len(sigs["p"].labels) == 5
    assert {"results", "operations"} <= sigs["p"].heading

"""Table identity across documents: which pages print *the same table*.

A hard negative of a table question is worth something when it is the same table one axis away:
the same filer's table in another filing (period), another filer's same statement (entity), or
another table of the same kind in the same filing (metric). Visual clusters cannot say that two
pages are the same table; their row labels can.

A page's signature is read from the evidence index the pipeline already keeps (the table
reader's cells: row label, table heading, column period), so no page is read twice:

  labels      the page's row labels, normalised as the evidence index compares them
              (`label_key`: words in any order, case, punctuation and sign words aside)
  columns     the column kinds it prints ("m3", "m12", "i" for a balance at a date)
  heading     the words of its tables' headings
  statement   the primary statement it is (income_statement, balance_sheet, ...), "" otherwise

Similarity: two statements are the same table when they are the same statement (the statement
reader already names it, across filers and languages); other tables by a weighted Jaccard of
their row labels (a label printed by few tables weighs more than "Total"), with a little weight
on heading and column kinds. At `SAME_TABLE` (0.5) a table keeps its identity when a row is
renamed or added (four rows, one renamed: 3/5 of the labels are shared).

`table_families` gives every page a family id (pages of one family are one table), found
greedily over the distinct label sets, each compared only with the families that share one of
its rarest labels: no pass over all pairs.
"""

from __future__ import annotations

import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass

import pyarrow as pa
import pyarrow.compute as pc

__all__ = [
    "MIN_LABELS",
    "SAME_TABLE",
    "TableSignature",
    "label_weights",
    "page_signatures",
    "similarity",
    "family_numbers",
    "table_families",
    "table_kind",
]

MIN_LABELS = 2  # a page with fewer row labels is not read as a table
SAME_TABLE = 0.5
_LOOKUP_LABELS = 4  # the rarest labels of a table that find its candidate families
_COMMON_LABEL = 2000  # a label already on this many distinct tables names none of them
_WEIGHTS = {"labels": 0.8, "heading": 0.1, "columns": 0.1}


@dataclass(frozen=True, slots=True)  # one per table page: 400,000 of them must stay small
class TableSignature:
    unit_id: str
    labels: frozenset[str]
    columns: frozenset[str] = frozenset()
    heading: frozenset[str] = frozenset()
    statement: str = ""


def table_kind(signature: TableSignature) -> str:
    """What a metric distractor must share with the gold: statements stand beside statements,
    other tables beside other tables."""
    return "statement" if signature.statement else "table"


def _column_kind(months: int | None, has_end: bool) -> str:
    if months is None:
        return "i" if has_end else ""
    return f"m{months}"


def _words(text: str) -> set[str]:
    return {w for w in re.split(r"\W+", text.casefold()) if len(w) > 2}


def page_signatures(
    cells: pa.Table, statements: Mapping[str, str], label_key: Callable[[str], str]
) -> dict[str, TableSignature]:
    """One signature per page with at least `MIN_LABELS` row labels, from evidence cells
    (columns unit_id, label, title, subject, months, end: the evidence index's CELLS_SCHEMA).
    `label_key` is the evidence index's label normalisation (a layer above this one, so the
    caller hands it in)."""
    if not cells.num_rows:
        return {}
    cols = cells.select(["unit_id", "label", "title", "subject", "months", "end"])
    # one row per distinct (page, label, heading, column kind): a page prints a label once per column
    kinds = pc.if_else(pc.is_null(cols["months"]), pa.scalar(-1), cols["months"])
    has_end = pc.invert(pc.is_null(cols["end"]))
    slim = (
        pa.table(
            {
                "unit_id": cols["unit_id"],
                "label": cols["label"],
                "heading": pc.binary_join_element_wise(
                    pc.fill_null(cols["title"], ""), pc.fill_null(cols["subject"], ""), " "
                ),
                "kind": kinds,
                "has_end": has_end,
            }
        )
        .group_by(["unit_id", "label", "heading", "kind", "has_end"])
        .aggregate([])
    )
    labels: dict[str, set[str]] = defaultdict(set)
    columns: dict[str, set[str]] = defaultdict(set)
    headings: dict[str, set[str]] = defaultdict(set)
    keys: dict[str, str] = {}
    for unit, label, heading, kind, end in zip(
        *(slim[c].to_pylist() for c in ("unit_id", "label", "heading", "kind", "has_end")),
        strict=True,
    ):
        key = keys.get(label)
        if key is None:
            key = keys[label] = label_key(label or "")
        if key:
            labels[unit].add(key)
        column = _column_kind(None if kind == -1 else kind, bool(end))
        if column:
            columns[unit].add(column)
        headings[unit] |= _words(heading or "")
    return {
        u: TableSignature(
            u,
            frozenset(ls),
            frozenset(columns[u]),
            frozenset(headings[u]),
            statements.get(u, ""),
        )
        for u, ls in labels.items()
        if len(ls) >= MIN_LABELS
    }


def label_weights(label_sets: Iterable[tuple[frozenset[str], int]]) -> dict[str, float]:
    """Inverse document frequency of each row label over the corpus's tables, from distinct
    label sets and how many tables print each."""
    df: Counter[str] = Counter()
    n = 0
    for labels, count in label_sets:
        for label in labels:
            df[label] += count
        n += count
    return {label: math.log(1.0 + n / c) for label, c in df.items()}


def _jaccard(a: frozenset[str], b: frozenset[str], weights: Mapping[str, float] | None) -> float:
    union = a | b
    if not union:
        return 0.0
    if weights is None:
        return len(a & b) / len(union)
    w = weights.get
    return sum(w(x, 1.0) for x in a & b) / sum(w(x, 1.0) for x in union)


def similarity(
    a: TableSignature, b: TableSignature, weights: Mapping[str, float] | None = None
) -> float:
    """1.0 for the same table, 0.0 for unrelated ones (see the module's docstring)."""
    if a.statement or b.statement:
        return 1.0 if a.statement == b.statement else 0.0
    return (
        _WEIGHTS["labels"] * _jaccard(a.labels, b.labels, weights)
        + _WEIGHTS["heading"] * _jaccard(a.heading, b.heading, None)
        + _WEIGHTS["columns"] * _jaccard(a.columns, b.columns, None)
    )


def table_families(
    signatures: Sequence[TableSignature], threshold: float = SAME_TABLE
) -> dict[str, str]:
    """unit id -> family id ("statement:<name>" or "table:<n>"): pages of one family print the
    same table (`family_numbers`, named)."""
    numbers, _ = family_numbers(signatures, threshold)
    return {
        s.unit_id: f"statement:{s.statement}" if s.statement else f"table:{n}"
        for s, n in zip(signatures, numbers, strict=True)
    }


def family_numbers(
    signatures: Sequence[TableSignature], threshold: float = SAME_TABLE
) -> tuple[list[int], list[str]]:
    """A family number per signature (statements numbered by their name, after the tables) and
    the statement names in that numbering. Greedy and independent of page order: distinct label
    sets are visited largest first (ties by their sorted labels), each joining the family of the
    most similar set seen so far when that reaches `threshold`, else starting its own."""
    by_shape: dict[tuple[frozenset[str], frozenset[str], frozenset[str]], list[int]] = defaultdict(
        list
    )
    for i, s in enumerate(signatures):
        if not s.statement:
            by_shape[(s.labels, s.heading, s.columns)].append(i)
    weights = label_weights((labels, len(rows)) for (labels, _, _), rows in by_shape.items())
    shapes = sorted(by_shape, key=lambda k: (-len(k[0]), sorted(k[0]), sorted(k[1]), sorted(k[2])))
    numbers = [0] * len(signatures)
    # Single linkage over each family's distinct shapes: a table whose rows drift one rename at a
    # time over many filings stays one family.
    members: list[tuple[int, TableSignature]] = []
    members_of_label: dict[str, list[int]] = defaultdict(list)
    families = 0
    for labels, heading, columns in shapes:
        probe = TableSignature("", labels, columns, heading)
        rare = sorted(labels, key=lambda x: (-weights.get(x, 0.0), x))[:_LOOKUP_LABELS]
        seen_with = [members_of_label[x] for x in rare if len(members_of_label[x]) < _COMMON_LABEL]
        best, best_sim = -1, threshold
        for m in sorted({m for found in seen_with for m in found}):
            family, seen = members[m]
            sim = similarity(probe, seen, weights)
            if sim > best_sim or (best < 0 and sim >= best_sim):
                best, best_sim = family, sim
        if best < 0:
            best, families = families, families + 1
        for x in labels:
            members_of_label[x].append(len(members))
        members.append((best, probe))
        for row in by_shape[(labels, heading, columns)]:
            numbers[row] = best
    statements = sorted({s.statement for s in signatures if s.statement})
    number_of = {name: families + i for i, name in enumerate(statements)}
    for i, s in enumerate(signatures):
        if s.statement:
            numbers[i] = number_of[s.statement]
    return numbers, statements

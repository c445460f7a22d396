"""Completeness: the pages of the corpus that print an item's answer for its row and period, and
were never judged for it.

A golden set claims its judgments list every page that answers. That claim is measured here,
never assumed: for each item whose answer is a specific figure (`figures.MIN_DIGITS`+
significant digits), the gold page's cells that print it say which row and period the answer is
(its label, its column's period); every other cell of the corpus printing the same figure for a
row of that label (word order and case aside, or nearly the same words) and a shared period is
a page that answers, and it must be among the item's judged pages. The same report on an
imported benchmark is its audit: how many of its questions another page also answers.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evalset_pipeline.core.evidence.figures import Figure, answer_figure
from evalset_pipeline.core.evidence.index import EvidenceCell, EvidenceIndex, period_keys
from evalset_pipeline.core.reader.table_questions import (
    named_alike,
    parse_table_question,
    same_item,
)

__all__ = [
    "ItemRef",
    "evidence_judge",
    "item_refs",
    "UnjudgedPage",
    "CompletenessReport",
    "EvidenceAudit",
    "answered_by_evidence",
    "answering_cells",
    "completeness",
]


@dataclass(frozen=True)
class ItemRef:
    """What completeness needs of an item: its answer and the pages that hold it."""

    item_id: str
    question: str
    answer: str
    gold_units: tuple[str, ...]


def item_refs(
    items: Iterable[Mapping[str, Any]], judgments: Iterable[Mapping[str, Any]] = ()
) -> list[ItemRef]:
    """Golden items (or validated questions) as completeness reads them: the gold page, and every
    other page the set marks `gold` (an imported benchmark's several evidence pages)."""
    golds: dict[str, list[str]] = {}
    for j in judgments:
        if j["role"] == "gold":
            golds.setdefault(j["item_id"], []).append(j["unit_id"])
    return [
        ItemRef(
            i["item_id"],
            i["question"],
            i["answer"] or "",
            tuple(dict.fromkeys([i["gold_unit_id"], *golds.get(i["item_id"], [])])),
        )
        for i in items
    ]


@dataclass(frozen=True)
class UnjudgedPage:
    item_id: str
    question: str
    answer: str
    unit_id: str
    where: str  # the row, column and figure the page prints


@dataclass
class CompletenessReport:
    items: int = 0  # items considered
    checkable: int = 0  # the answer is a specific figure the gold page prints in a table cell
    not_located: int = 0  # a specific figure, but no cell of the gold page holds it
    other_answering_pages: int = 0  # non-gold pages that print the answer for its row and period
    items_with_other_answering_pages: int = 0
    unjudged: list[UnjudgedPage] = field(default_factory=list)
    units_missing_from_index: int = 0  # gold pages the corpus index does not hold (corpus changed)

    @property
    def items_with_unjudged(self) -> int:
        return len({u.item_id for u in self.unjudged})

    @property
    def share_answered_elsewhere(self) -> float | None:
        return (
            round(self.items_with_other_answering_pages / self.checkable, 4)
            if self.checkable
            else None
        )

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["unjudged_pages"] = len(self.unjudged)
        out["items_with_unjudged"] = self.items_with_unjudged
        out["share_answered_elsewhere"] = self.share_answered_elsewhere
        return out


def same_row(a: EvidenceCell, b: EvidenceCell, specific: bool = False) -> bool:
    """Two cells printing one line item: a period in common, and labels that may name the same
    item (`table_questions.same_item`: the same words, or one's content words within the
    other's; for a `specific` figure printed digit for digit, also labels `named_alike`: "Cash
    Flows from Operations" for "Net cash provided by operating activities") — asked only of
    cells that print the same figure, as the labeller asks it (`prints_answer`)."""
    if not set(a.periods) & set(b.periods):
        return False
    return same_item(a.label, b.label) or (specific and named_alike(a.label, b.label))


def asked_period_cells(question: str, gold_cells: Sequence[EvidenceCell]) -> list[EvidenceCell]:
    """The gold's cells in the period a table question asks: a balance printed unchanged in two
    columns ("당분기말 11,172 | 전기말 11,172") is the answer for the date asked only, and another
    page printing it for the other column's date does not answer. Every cell where the question
    names no period this reader keys, or none of the cells is in it."""
    table_q = parse_table_question(question)
    if table_q is None:
        return list(gold_cells)
    asked = set(period_keys(table_q.months, table_q.end, table_q.year))
    in_period = [g for g in gold_cells if asked & set(g.periods)]
    return in_period or list(gold_cells)


def answering_cells(
    index: EvidenceIndex, figure: Figure, gold_cells: Iterable[EvidenceCell], exclude: set[str]
) -> list[EvidenceCell]:
    """Cells of other pages that print the figure for one of the gold cells' rows and periods."""
    golds = list(gold_cells)
    if not golds:
        return []
    exact = {(c.unit_id, c.table, c.row, c.col): c for c in index.cells_printing(figure)}
    found = dict(exact)
    # the same amount printed at another precision: finer ("11,988" millions for "12.0
    # billion"), or coarser ("703,911" 백만원 for "703,910,702" 천원)
    for c in [*index.cells_rounding_to(figure), *index.cells_rounded_from(figure)]:
        found.setdefault((c.unit_id, c.table, c.row, c.col), c)
    return [
        c
        for key, c in found.items()
        if c.unit_id not in exclude
        and any(same_row(c, g, figure.specific and key in exact) for g in golds)
    ]


def completeness(
    items: Iterable[ItemRef], judged: set[tuple[str, str]], index: EvidenceIndex
) -> CompletenessReport:
    """`judged`: the (item id, unit id) pairs the golden set labels."""
    report = CompletenessReport()
    for item in items:
        report.items += 1
        figure = answer_figure(item.answer)
        if figure is None or not (figure.specific or figure.precise):
            continue
        report.units_missing_from_index += sum(1 for g in item.gold_units if g not in index)
        gold_cells = asked_period_cells(
            item.question, [c for g in item.gold_units for c in index.matching_cells(g, figure)]
        )
        if not gold_cells:
            report.not_located += 1
            continue
        report.checkable += 1
        others: dict[str, EvidenceCell] = {}
        for c in answering_cells(index, figure, gold_cells, set(item.gold_units)):
            others.setdefault(c.unit_id, c)
        report.other_answering_pages += len(others)
        report.items_with_other_answering_pages += bool(others)
        report.unjudged += [
            UnjudgedPage(item.item_id, item.question, item.answer, unit, cell.where())
            for unit, cell in others.items()
            if (item.item_id, unit) not in judged
        ]
    return report


@dataclass
class EvidenceAudit:
    """The same question asked of the answer-evidence judge (vlm/answer_evidence.py), for answers
    no cell rule can place (an imported benchmark's "$1577.00", a figure in prose): every page
    that prints the answer's digits is shown to the judge with the item's question and answer."""

    items: int = 0  # items with a specific figure
    items_answered_elsewhere: int = 0
    pages_answering: int = 0
    unjudged: list[UnjudgedPage] = field(default_factory=list)

    @property
    def share_answered_elsewhere(self) -> float | None:
        return round(self.items_answered_elsewhere / self.items, 4) if self.items else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "items": self.items,
            "items_answered_elsewhere": self.items_answered_elsewhere,
            "share_answered_elsewhere": self.share_answered_elsewhere,
            "pages_answering": self.pages_answering,
            "unjudged_pages": len(self.unjudged),
            "items_with_unjudged": len({u.item_id for u in self.unjudged}),
        }


def answered_by_evidence(
    items: Iterable[ItemRef],
    judged: set[tuple[str, str]],
    index: EvidenceIndex,
    sufficient: Callable[[ItemRef, str], bool],
) -> EvidenceAudit:
    """`sufficient(item, unit)`: does the page state the item's answer for its question? Asked of
    every page whose cells print the answer's figure, or whose text prints its digits (4 or more:
    shorter ones are on half the corpus)."""
    audit = EvidenceAudit()
    for item in items:
        figure = answer_figure(item.answer)
        if figure is None or not figure.specific:
            continue
        audit.items += 1
        pages = {c.unit_id for c in index.cells_printing(figure)}
        if figure.digits >= 4:
            pages |= index.pages_printing_text(figure.key)
        answering = sorted(u for u in pages - set(item.gold_units) if sufficient(item, u))
        audit.items_answered_elsewhere += bool(answering)
        audit.pages_answering += len(answering)
        audit.unjudged += [
            UnjudgedPage(item.item_id, item.question, item.answer, u, "states the answer")
            for u in answering
            if (item.item_id, u) not in judged
        ]
    return audit


def evidence_judge(
    root: Path, renders: Iterable[Mapping[str, Any]], facts: Iterable[Mapping[str, Any]]
) -> Callable[[ItemRef, str], bool]:
    """`sufficient(item, unit)` for `answered_by_evidence`: the offline answer-evidence judge on the
    page, in its document (`renders`: page_renders rows; `facts`: document_facts rows). The judge
    cannot see whose figure it reads, so a page of another company than the item's gold pages'
    never answers it."""
    from evalset_pipeline.core.judging.base import PageContext
    from evalset_pipeline.core.metadata.facts_record import DocumentFacts
    from evalset_pipeline.core.pagetext.layer import text_layer_or_empty
    from evalset_pipeline.core.reader.answer_evidence import judge_evidence

    pages = {r["unit_id"]: r for r in renders}
    contexts = {f["document_sha256"]: DocumentFacts.from_row(dict(f)).page_context() for f in facts}

    def context(unit: str) -> PageContext | None:
        r = pages.get(unit)
        return contexts.get(r["document_sha256"]) if r is not None else None

    def sufficient(item: ItemRef, unit: str) -> bool:
        if unit not in pages:
            return False
        # another company's page never answers; one filer's renamed document is no other company
        golds = [c for c in map(context, item.gold_units) if c is not None and c.entity]
        own = context(unit)
        if golds and not (own is not None and any(own.same_filer(g) for g in golds)):
            return False
        layer = text_layer_or_empty(root / pages[unit]["text_path"])
        return (
            judge_evidence(item.question, item.answer, layer, context(unit)).label == "sufficient"
        )

    return sufficient

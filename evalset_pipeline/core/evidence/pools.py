"""A pool per item, TREC-style: every page that might answer its question, found in the whole
corpus before anything is labelled, each with the sources that found it.

Mined one-axis negatives are the pages a retriever will confuse; they are not the pages that might
also answer. So the pool is their union with:

  comparative   period candidates that print the gold's period (negatives/comparatives.py)
  sibling       pages of another template with every axis value of the gold (questions/siblings.py)
  twin          near-identical copies of the gold (same text or render, or nearly every figure
                in common: a re-saved or re-encrypted copy of a document)
  answer        every page that prints the answer's figure (in any format, or rounded to it) for
                a row of the gold's label and the gold's period: the same fact, never capped
  figure        every page that prints the answer's figure, in any format or scale (a table cell
                with agreeing magnitude, or one that rounds to it: 11,988 million for "12.0
                billion"; or, for figures of `TEXT_DIGITS`+ digits, anywhere in its text)
  same_row      every page that prints the gold's row (its label, any entity, basis or segment)
                for the gold's period: another company's table of the same row and date
  same_subject  pages whose metadata has the gold's metric and period (for answers no table cell
                holds: a chart's segment, a prose figure)
  bm25, appearance   the top pages of each baseline retriever on the question

Every member is judged (core/questions/validation.py) and labelled; the sources say how it got
there, so each source's yield can be measured.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from evalset_pipeline.core.evidence.completeness import answering_cells
from evalset_pipeline.core.evidence.figures import answer_figure
from evalset_pipeline.core.evidence.index import (
    EvidenceCell,
    EvidenceIndex,
    label_key,
    specific_label,
)

__all__ = [
    "ANSWER",
    "CAPS",
    "MINED",
    "SOURCES",
    "TEXT_DIGITS",
    "PoolMember",
    "PoolBuilder",
    "answer_cells",
    "evidence_sources",
    "TwinFinder",
]

MINED = "mined"
ANSWER = "answer"  # prints the gold's figure for the gold's row and period: the same fact
SOURCES = (
    MINED,
    "comparative",
    "sibling",
    "twin",
    ANSWER,
    "figure",
    "same_row",
    "same_subject",
    "bm25",
    "appearance",
)
# At most this many members per source and item, nearest kinds first (a figure printed in the
# gold's own row before the same digits in prose): a 400,000-page corpus prints "1,064" often.
CAPS = {"figure": 100, "same_row": 100, "same_subject": 30, "twin": 20}
TEXT_DIGITS = 4  # a figure found in a page's text, outside any table, needs this many digits
TWIN_SHARE = 0.9  # share of the gold's figures a near-identical page prints too...
TWIN_MIN_FIGURES = 8  # ...when the gold prints at least this many


@dataclass(frozen=True)
class PoolMember:
    unit_id: str
    sources: tuple[str, ...]
    axis: str = ""  # the axis a mined negative differs on; "" otherwise


@dataclass
class PoolBuilder:
    """One item's pool as sources add to it: members in the order first found, gold never a member."""

    gold: str
    _sources: dict[str, list[str]] = field(default_factory=dict)
    _axis: dict[str, str] = field(default_factory=dict)
    truncated: dict[str, int] = field(default_factory=dict)

    def add(self, source: str, units: Iterable[str], axis: str = "", capped: bool = True) -> None:
        cap = CAPS.get(source) if capped else None
        taken = 0
        for unit in dict.fromkeys(units):
            if unit == self.gold:
                continue
            if cap is not None and taken >= cap:
                self.truncated[source] = self.truncated.get(source, 0) + 1
                continue
            taken += 1
            found = self._sources.setdefault(unit, [])
            if source not in found:
                found.append(source)
            if axis and unit not in self._axis:
                self._axis[unit] = axis

    def members(self) -> list[PoolMember]:
        rank = {s: i for i, s in enumerate(SOURCES)}
        return [
            PoolMember(
                u, tuple(sorted(s, key=lambda x: rank.get(x, len(rank)))), self._axis.get(u, "")
            )
            for u, s in self._sources.items()
        ]


def answer_cells(index: EvidenceIndex, gold: str, answer: str) -> list[EvidenceCell]:
    """Where the gold page prints the answer: its cells holding the answer's figure."""
    figure = answer_figure(answer)
    return index.matching_cells(gold, figure) if figure is not None else []


def evidence_sources(
    index: EvidenceIndex, gold: str, answer: str, gold_cells: Sequence[EvidenceCell]
) -> tuple[list[str], dict[str, list[str]]]:
    """(pages that print the answer for the gold's row and period, which every pool holds
    whatever the caps; the other `figure` and `same_row` members, nearest kinds first)."""
    out: dict[str, list[str]] = {}
    figure = answer_figure(answer)
    answering: list[str] = []
    if figure is not None and not (figure.specific or figure.precise):
        # "850" is printed by chance on many pages, but not in the gold's own row ("대한테크렌")
        # for the gold's period: a page doing so states the answer (only rows naming a line item)
        named = [g for g in gold_cells if specific_label(g.label)]
        answering = [c.unit_id for c in answering_cells(index, figure, named, {gold})]
    elif figure is not None:
        answering = [c.unit_id for c in answering_cells(index, figure, gold_cells, {gold})]
        labels = {label_key(c.label) for c in gold_cells}
        # Few digits ("12.0 billion") find too many cells by their digits: only their own row's.
        cells = index.cells_printing(figure) if figure.specific else []
        # An amount that merely rounds to the answer is its figure only in the gold's own row
        # (11,988 million for "12.0 billion" of R&D); in other rows it is a near number, no more.
        rounded = [
            c
            for c in [*index.cells_rounding_to(figure), *index.cells_rounded_from(figure)]
            if label_key(c.label) in labels
        ]
        same_label = [c.unit_id for c in [*cells, *rounded] if label_key(c.label) in labels]
        other = [c.unit_id for c in cells]
        text = (
            sorted(index.pages_printing_text(figure.key))
            if figure.specific and figure.digits >= TEXT_DIGITS
            else []
        )
        out["figure"] = [u for u in dict.fromkeys([*same_label, *other, *text]) if u != gold]
    rows: list[str] = []
    for c in gold_cells:
        rows += sorted(index.pages_with_row(c.label, c.periods))
    rows = [u for u in dict.fromkeys(rows) if u != gold]
    if rows:
        out["same_row"] = rows
    return list(dict.fromkeys(answering)), out


class TwinFinder:
    """Pages that are another page again: the same text or pixels, or nearly all of its figures
    (a re-saved or re-encrypted copy of a document prints the same page under another hash)."""

    def __init__(
        self,
        text_hash: Mapping[str, str],
        render_hash: Mapping[str, str],
        index: EvidenceIndex,
        empty_text_hash: str,
    ):
        self._text_hash, self._render_hash, self._index = text_hash, render_hash, index
        self._by_text: dict[str, list[str]] = {}
        self._by_render: dict[str, list[str]] = {}
        for u, h in text_hash.items():
            if h != empty_text_hash:
                self._by_text.setdefault(h, []).append(u)
        for u, h in render_hash.items():
            self._by_render.setdefault(h, []).append(u)

    def __call__(self, gold: str) -> list[str]:
        same = [
            *self._by_text.get(self._text_hash.get(gold, ""), ()),
            *self._by_render.get(self._render_hash.get(gold, ""), ()),
        ]
        keys = self._index.text_keys.get(gold, frozenset())
        if len(keys) >= TWIN_MIN_FIGURES:
            shared: dict[str, int] = {}
            for k in keys:
                for u in self._index.pages_printing_text(k):
                    shared[u] = shared.get(u, 0) + 1
            for u, n in sorted(shared.items(), key=lambda kv: (-kv[1], kv[0])):
                other = self._index.text_keys.get(u, frozenset())
                if n / len(keys | other) >= TWIN_SHARE:
                    same.append(u)
        return [u for u in dict.fromkeys(same) if u != gold]

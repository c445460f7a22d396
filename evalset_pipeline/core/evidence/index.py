"""The evidence index: every figure every page of the corpus prints, read once per text layer.

Two tables, one row per page and one per table cell:

  evidence_pages  unit_id, page_key, text_keys: the keys (`figures.digit_key`) of every specific
                  figure the page's text prints, in tables or in prose
  evidence_cells  one row per printed cell of the page's tables (the table reader's, prose
                  figures for a named period included): row label, parent and section, column
                  header and period (months, end, year; columns named relative to the filing
                  dated by its document), the cell as printed, its value, unit and scale

Cells are read by the same reader the offline writer and judge use (`table_questions.
read_table_page`), so "the page prints X for row R and period P" means here what it means to
the judge. A page's rows are keyed by `page_key` (its text hash, its document's facts and the
reader's code version): a rebuild reads only pages whose key changed.

Lookups (`EvidenceIndex`) find the pages that print a figure (by key, scale-checked), and the
pages that print a row label for a period: what pooling asks of the whole corpus.
"""

from __future__ import annotations

import re
import unicodedata
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

import numpy as np
import pyarrow as pa

from evalset_pipeline.core.evidence.figures import (
    MIN_DIGITS,
    Figure,
    digit_key,
    same_magnitude,
    scale_of_unit,
    text_figure_keys,
)
from evalset_pipeline.core.hashing import canonical_json, sha256_text
from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.pagetext.fiscal import effective_year
from evalset_pipeline.core.pagetext.layer import text_layer_or_empty
from evalset_pipeline.core.pagetext.text import has_hangul
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.reader.table_page import is_target_header
from evalset_pipeline.core.reader.table_questions import (
    dated_page,
    label_words,
    norm_words,
    read_table_page,
)
from evalset_pipeline.core.reader.table_reader import cell_unit

__all__ = [
    "CELLS_SCHEMA",
    "PAGES_SCHEMA",
    "EvidenceCell",
    "EvidenceIndex",
    "label_key",
    "page_evidence",
    "page_key",
    "period_keys",
]

PAGES_SCHEMA = pa.schema(
    [
        ("unit_id", pa.string()),
        ("page_key", pa.string()),
        ("text_keys", pa.list_(pa.string())),
    ]
)
CELLS_SCHEMA = pa.schema(
    [
        ("unit_id", pa.string()),
        ("table", pa.int32()),
        ("row", pa.int32()),
        ("col", pa.int32()),
        ("label", pa.string()),
        ("parent", pa.string()),
        ("subject", pa.string()),
        ("title", pa.string()),
        ("header", pa.string()),
        ("months", pa.int32()),
        ("end", pa.date32()),
        ("year", pa.int32()),
        ("display", pa.string()),
        ("value", pa.float64()),
        ("unit", pa.string()),
        ("scale", pa.float64()),
        ("percent", pa.bool_()),
        ("key", pa.string()),
    ]
)


@dataclass(frozen=True)
class EvidenceCell:
    """One printed cell: what it is (row label, section, column period) and what it says."""

    unit_id: str
    table: int
    row: int
    col: int
    label: str
    parent: str
    subject: str
    title: str
    header: str
    months: int | None
    end: date | None
    year: int | None
    display: str
    value: float
    unit: str
    scale: float | None
    percent: bool
    key: str

    @property
    def figure(self) -> Figure:
        return Figure(self.key, abs(self.value), self.scale, self.percent)

    @property
    def section(self) -> str:
        """The heading a row is printed under: its parent row, else the table's heading."""
        return self.parent or self.subject

    @property
    def periods(self) -> tuple[str, ...]:
        return period_keys(self.months, self.end, self.year, is_target_header(self.header))

    def where(self) -> str:
        """ "Net sales (Total revenues), year ended 2022-12-31: 1,064 (USD millions)"."""
        under = f" ({self.section})" if self.section else ""
        return f"{self.label}{under}, {self.header or 'column ' + str(self.col)}: {self.display}"


def label_key(label: str) -> str:
    """A row label as compared across pages: words in any order, case and punctuation aside;
    a Korean label also spacing aside ("현금및현금성자산" is "현금 및 현금성자산")."""
    words = label_words(label)
    if has_hangul(words):
        return words.replace(" ", "")
    return " ".join(sorted(words.split()))


def period_keys(
    months: int | None, end: date | None, year: int | None, target: bool = False
) -> tuple[str, ...]:
    """The periods a column states, as keys two columns share when the judge would take one for
    the other: an instant, a span ending on a date, and a fiscal year (a twelve-month span is
    also the fiscal year it is named after, as a bare "2022" column is; a balance is also the
    twelve months ending on its day, and at December 31 that bare year: a five-year summary
    prints year-end balances under "Year Ended" or bare-year columns). A target's column ("FY 2014
    Target") shares its keys only with other targets: the judge never takes one for a result."""
    keys = _period_keys(months, end, year)
    return tuple(f"target:{k}" for k in keys) if target else keys


def _period_keys(months: int | None, end: date | None, year: int | None) -> tuple[str, ...]:
    if end is not None:
        if months is None:  # a balance: also the year that ends on that day (a summary's column)
            keys = (f"i:{end.isoformat()}", f"m12:{end.isoformat()}")
            return (*keys, f"y:{end.year}") if (end.month, end.day) == (12, 31) else keys
        span = f"m{months}:{end.isoformat()}"
        return (span, f"y:{effective_year(end)}") if months == 12 else (span,)
    if year is not None and months in (None, 12):
        return (f"y:{year}",)
    return ()


def page_key(text_hash: str, context: PageContext | None, reader_version: str) -> str:
    """What a page's evidence depends on: its text, its document's facts, the reader's code."""
    facts = context.as_dict() if context is not None else {}
    return sha256_text(canonical_json([text_hash, facts, reader_version]))[:32]


def page_evidence(
    unit_id: str, text_path: str, context: PageContext | None
) -> tuple[list[str], list[dict[str, Any]]]:
    """(text keys, cell rows) of one page, read from its text layer."""
    layer = text_layer_or_empty(text_path)
    text = unicodedata.normalize("NFKC", str(layer.get("text") or ""))
    page = dated_page(read_table_page(layer), context)
    cells: list[dict[str, Any]] = []
    for t, table in enumerate(page.tables):
        for r, row in enumerate(table.rows):
            for c, (display, value) in enumerate(zip(row.cells, row.values, strict=False)):
                if display is None or value is None:
                    continue
                key = digit_key(display)
                if not key:
                    continue  # a zero ("0", "-0-") names no figure to find
                col = table.columns[c] if c < len(table.columns) else None
                unit = cell_unit(table, row, c)
                cells.append(
                    {
                        "unit_id": unit_id,
                        "table": t,
                        "row": r,
                        "col": c,
                        "label": row.label,
                        "parent": row.parent,
                        "subject": table.subject,
                        "title": table.title,
                        "header": col.header if col is not None else "",
                        "months": col.months if col is not None else None,
                        "end": col.end if col is not None else None,
                        "year": col.year if col is not None else None,
                        "display": display,
                        "value": float(value),
                        "unit": unit,
                        "scale": scale_of_unit(unit),
                        "percent": unit == "%" or display.rstrip().endswith("%"),
                        "key": key,
                    }
                )
    return text_figure_keys(text), cells


def _cell(row: dict[str, Any]) -> EvidenceCell:
    return EvidenceCell(**{f: row[f] for f in EvidenceCell.__dataclass_fields__})


_GENERIC = re.compile(
    r"^(?:(?:sub)?total|other|all other|net|corporate|change|increase|decrease|amount|balance|"
    r"합계|소계|총계|계|기타)$",
    re.I,
)


def specific_label(label: str) -> bool:
    """A label that names a line item ("Total assets", "Net sales") rather than a position in a
    table ("Total", "Other"): only such labels find the same row on other pages."""
    words = norm_words(label)
    return bool(words) and not _GENERIC.match(words) and sum(ch.isalpha() for ch in words) >= 4


class EvidenceIndex:
    """The corpus's printed figures, for lookups by figure and by (row label, period).

    Cells stay columnar (an Arrow table, one page's cells contiguous); only the cells a lookup
    returns become `EvidenceCell`s, so an index of millions of cells costs its Arrow buffers and
    a few integer arrays, not a Python object per cell."""

    def __init__(self, pages: pa.Table, cells: pa.Table):
        self.text_keys: dict[str, frozenset[str]] = {
            u: frozenset(k or ())
            for u, k in zip(
                pages.column("unit_id").to_pylist(),
                pages.column("text_keys").to_pylist(),
                strict=True,
            )
        }
        self._cells = cells.combine_chunks() if cells.num_rows else cells
        units = self._cells.column("unit_id").to_pylist()
        self._unit_rows: dict[str, tuple[int, int]] = {}
        for i, u in enumerate(units):
            first, _ = self._unit_rows.get(u, (i, i))
            self._unit_rows[u] = (first, i + 1)
        self._key_rows = _rows_by(self._cells.column("key").to_pylist())
        # magnitudes of the cells whose scale the table states, sorted: amounts near a rounded one
        values = np.abs(self._cells.column("value").to_numpy(zero_copy_only=False))
        scales = self._cells.column("scale").to_numpy(zero_copy_only=False).astype(float)
        percent = self._cells.column("percent").to_numpy(zero_copy_only=False).astype(bool)
        scaled = np.flatnonzero(~np.isnan(scales) & ~percent)
        magnitudes = values[scaled] * scales[scaled]
        order = np.argsort(magnitudes, kind="stable")
        self._magnitudes, self._magnitude_rows = magnitudes[order], scaled[order]
        self._row_units: dict[tuple[str, str], set[str]] = defaultdict(set)
        labels = self._cells.column("label").to_pylist()
        keyed = {lab: label_key(lab) for lab in set(labels) if specific_label(lab)}
        months = self._cells.column("months").to_pylist()
        ends = self._cells.column("end").to_pylist()
        years = self._cells.column("year").to_pylist()
        targets = [is_target_header(h) for h in self._cells.column("header").to_pylist()]
        for i, lab in enumerate(labels):
            k = keyed.get(lab)
            if k is None:
                continue
            for p in period_keys(months[i], ends[i], years[i], targets[i]):
                self._row_units[(k, p)].add(units[i])
        self._text_units: dict[str, set[str]] = defaultdict(set)
        for unit, ks in self.text_keys.items():
            for k in ks:
                self._text_units[k].add(unit)

    @classmethod
    def read(cls, paths: DataPaths) -> EvidenceIndex:
        """The index `evidence_index` persisted in a data dir (the usual error if it never ran)."""
        from evalset_pipeline.core.tables import read_table

        return cls(
            read_table(paths.table("evidence_pages"), producer="evidence_index"),
            read_table(paths.table("evidence_cells"), producer="evidence_index"),
        )

    def __contains__(self, unit_id: str) -> bool:
        return unit_id in self.text_keys

    def _take(self, rows: Sequence[int]) -> list[EvidenceCell]:
        if not len(rows):
            return []
        return [_cell(r) for r in self._cells.take(pa.array(rows, pa.int64())).to_pylist()]

    def cells_of(self, unit_id: str) -> list[EvidenceCell]:
        first, end = self._unit_rows.get(unit_id, (0, 0))
        return self._take(range(first, end))

    def cells_printing(self, figure: Figure) -> list[EvidenceCell]:
        """Every cell of the corpus that prints this figure (same key, magnitudes agreeing)."""
        found = self._take(self._key_rows.get(figure.key, ()))
        return [c for c in found if same_magnitude(c.figure, figure)]

    def cells_rounding_to(self, figure: Figure) -> list[EvidenceCell]:
        """Cells whose amount rounds to the figure at its printed precision: 11,988 (millions) for
        "12.0 billion", 6,065 (millions) for "6.1 billion". Only cells whose table states its scale."""
        step, magnitude = figure.step, figure.magnitude
        if step is None or magnitude is None or figure.percent:
            return []
        lo = np.searchsorted(self._magnitudes, magnitude - step / 2 * (1 + 1e-9), side="left")
        hi = np.searchsorted(self._magnitudes, magnitude + step / 2 * (1 + 1e-9), side="right")
        return self._take(sorted(self._magnitude_rows[lo:hi].tolist()))

    def cells_rounded_from(self, figure: Figure) -> list[EvidenceCell]:
        """Cells printing the figure rounded to a coarser unit: 703,911 (백만원) for 703,910,702
        (천원), 1,064 (millions) for 1,063,842 (thousands); each within half its own last digit
        of the figure, with `MIN_DIGITS` or more. Only cells whose table states its scale."""
        step, magnitude = figure.step, figure.magnitude
        if step is None or magnitude is None or figure.percent or not magnitude:
            return []
        # a print of MIN_DIGITS digits or more is within half a percent of its amount
        reach = magnitude * 10.0 ** (1 - MIN_DIGITS) / 2
        lo = np.searchsorted(self._magnitudes, magnitude - reach, side="left")
        hi = np.searchsorted(self._magnitudes, magnitude + reach, side="right")
        out = []
        for c in self._take(sorted(self._magnitude_rows[lo:hi].tolist())):
            printed = _printed_step(c)
            if (
                printed > step
                and c.figure.specific
                and abs(abs(c.value) * (c.scale or 0) - magnitude) <= printed / 2 * (1 + 1e-9)
            ):
                out.append(c)
        return out

    def pages_printing_text(self, key: str) -> set[str]:
        """Pages whose text prints these digits anywhere (no table needed, no scale known)."""
        return set(self._text_units.get(key, ()))

    def pages_with_row(self, label: str, periods: Sequence[str]) -> set[str]:
        """Pages with a row of this label (word order, case aside) in a column of one of these periods."""
        if not specific_label(label):
            return set()
        key = label_key(label)
        out: set[str] = set()
        for p in periods:
            out |= self._row_units.get((key, p), set())
        return out

    def matching_cells(self, unit_id: str, figure: Figure) -> list[EvidenceCell]:
        """The cells of one page that print the figure: where on that page an answer is printed."""
        return [c for c in self.cells_of(unit_id) if same_magnitude(c.figure, figure)]


def _printed_step(cell: EvidenceCell) -> float:
    """What the cell's last printed digit is worth: "703,911" in 백만원 -> 1e6, "0.8" 조원 -> 1e11."""
    decimals = cell.display.split(".", 1)[1] if "." in cell.display else ""
    return (cell.scale or 0.0) * 10.0 ** -len(re.sub(r"\D", "", decimals))


def _rows_by(values: Sequence[str]) -> dict[str, list[int]]:
    out: dict[str, list[int]] = defaultdict(list)
    for i, v in enumerate(values):
        out[v].append(i)
    return out

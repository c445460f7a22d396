"""A page's tables as the table questions see them: the tables read once (`read_table_page`), the
dated ones (`dated_page`), and what a column or cell says (its measure, its printed answer).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from datetime import date
from typing import Any

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.pagetext.dates import MONTH_NAMES, MONTH_WORD
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar
from evalset_pipeline.core.pagetext.korean import date_relative, months_to_date, printed_unit
from evalset_pipeline.core.pagetext.text import has_hangul
from evalset_pipeline.core.reader.korean_columns import (
    THREE_MONTHS,
    korean_header_measure,
    to_date_measure,
)
from evalset_pipeline.core.reader.korean_prose import read_korean_prose_tables
from evalset_pipeline.core.reader.korean_questions import korean_period_phrase
from evalset_pipeline.core.reader.prose_reader import read_prose_tables
from evalset_pipeline.core.reader.table_captions import column_kind
from evalset_pipeline.core.reader.table_reader import Column, Table, read_tables
from evalset_pipeline.core.reader.table_records import Row
from evalset_pipeline.core.reader.table_reshape import reshape_tables
from evalset_pipeline.core.reader.table_units import cell_counter, cell_unit

ROW_WITHOUT_PERIOD = (
    "is on the page but not for the asked period"  # the judge's reason a labeller reads
)
SEVERAL_FIGURES = "prints several figures for the asked period"  # the row found, no one answer


def holds_positions(table: Table, col: Column) -> bool:
    """Do `col` and the columns of its period hold positions built up to their date ("누적공사수익
    | 누적발생원가 | 유보금" under "<당분기>", `korean_columns.to_date_measure`)?"""
    return any(
        to_date_measure(korean_header_measure(c.header))
        for c in table.columns
        if (c.end, c.months) == (col.end, col.months)
    )


_SPANS = {3: "three months", 6: "six months", 9: "nine months", 12: "year"}


@dataclass(frozen=True)
class TablePage:
    """A page as this module reads it: its text (for entity names) and its tables, read once;
    the figures its prose states for a named period are one-row tables too (`prose_reader`)."""

    text: str
    tables: tuple[Table, ...]


def read_table_page(layer: dict[str, Any]) -> TablePage:
    return TablePage(
        str(layer.get("text") or ""),
        tuple(reshape_tables(read_tables(layer)))
        + tuple(read_prose_tables(layer))
        + tuple(read_korean_prose_tables(layer)),
    )


def _date_text(d: date) -> str:
    return f"{MONTH_NAMES[d.month - 1]} {d.day}, {d.year}"


def _period_phrase(col: Column, language: str = "en") -> str | None:
    if language == "ko":
        return korean_period_phrase(col.months, col.end, col.year)
    if col.end is not None and col.months in _SPANS:
        return f"for the {_SPANS[col.months]} ended {_date_text(col.end)}"
    if col.end is not None and col.months is None:
        return f"as of {_date_text(col.end)}"
    if col.end is not None and col.months == 1:  # a month's table ("… November 2023")
        return f"in {MONTH_NAMES[col.end.month - 1]} {col.end.year}"
    if col.end is None and col.year is not None and col.months in (None, 12):
        # As the page prints it: "Fiscal 2023" and "FY 2023" are asked "in fiscal 2023", a bare
        # "2023" "in 2023".
        fiscal = re.search(r"\bfiscal\b|\bFY", col.header, re.I)
        return f"in fiscal {col.year}" if fiscal else f"in {col.year}"
    return None


# A bare total row: asked "Total Operating Income", read back against its section (`_row_score`).
_TOTAL = re.compile(r"^(?:sub)?total$", re.I)


# A heading that states the basis of its figures: a row under "Pro Forma Financial Information" or
# "International Segment" is not the same figure as the statements' row of that name, so
# it is asked under its heading.
_BASIS = re.compile(
    r"\bpro\s+forma\b|\bsegments?\b|\bnon-gaap\b|\bdiscontinued\s+operations\b|"
    r"\bseparate\s+accounts?\b|\bparent\s+company\b|\bguarantors?\b|\bobligors?\b|\bconstant\s+currency\b",
    re.I,
)


def has_dated_table(page: TablePage, context: PageContext | None = None) -> bool:
    """Does the page hold a table with at least one column this writer can name a period for?"""
    return any(_period_phrase(c) for t in dated_page(page, context).tables for c in t.columns)


def dated_page(page: TablePage, context: PageContext | None) -> TablePage:
    """The page with its columns named relative to the filing ("당기말", "전기") dated by the
    filing's own period, and its quarters named without a date ("1Q21", "Q4 2020") by the
    filer's fiscal calendar (the filing's own quarter ends on the filing's own date, so a
    52/53-week quarter keeps its day); without the document's period they stay undated (never
    asked). A Korean table printed without a unit line is in the unit its document's unit lines
    agree on (`PageContext.unit`)."""
    page = _in_document_unit(page, context)
    if not any(
        c.relative is not None or c.quarter is not None for t in page.tables for c in t.columns
    ):
        return page
    if context is None or not context.period or not context.period_end:
        return page
    calendar = FiscalCalendar.of_period(context.period, context.period_end)

    def dated(col: Column, to_date: bool) -> Column:
        if col.quarter is not None:
            if calendar is None:
                return col
            end = calendar.quarter_end(*col.quarter)
            own = date.fromisoformat(context.period_end)
            if context.period == f"{col.quarter[0]}-Q{col.quarter[1]}" or (
                context.period == str(col.quarter[0]) and col.quarter[1] == 4
            ):
                end = own
            return replace(col, end=end, quarter=None)
        if col.relative is None:
            return col
        months = col.months
        if months == 3 and not THREE_MONTHS.search(col.header):
            if to_date:
                months = 0  # a roll-forward's "당분기" runs from the year's opening balance
            elif (months_to_date(context.period) or 3) > 3:
                # a later quarter's bare "당분기" is the quarter in one note and the year to date
                # in another (a cash-flow note's): a span the page does not say is never asked
                return col
        found = date_relative(months, col.relative, context.period, context.period_end)
        if found is None:
            return col
        return replace(col, months=found[0], end=found[1], relative=None)

    return replace(
        page,
        tables=tuple(
            replace(t, columns=tuple(dated(c, _rolls_forward(t)) for c in t.columns))
            for t in page.tables
        ),
    )


# A roll-forward opens with the balance at the start of the year ("기초", "기 초", "기초잔액"): in a
# quarterly report its "당분기" / "전분기" columns are the year to date (a third quarter's 기초 is
# the year-end balance the "전기" column closes on), unless the header says "3개월".
_OPENING_BALANCE = re.compile(r"^기초(?:잔액|금액|장부금액)?$")


def _rolls_forward(table: Table) -> bool:
    """Rows opening on "기초", or columns ("기 초 | 증 감 | 기 말" of a transposed roll-forward)."""
    names = [r.label for r in table.rows] + [c.header for c in table.columns]
    return any(_OPENING_BALANCE.match(re.sub(r"\s+", "", name)) for name in names)


def _in_document_unit(page: TablePage, context: PageContext | None) -> TablePage:
    """The page with its Korean tables that state no unit of their own, nor take one from the
    page, in the document's unit (a budget sheet's later page prints its table without the
    "(단위 : 백만원)" its other pages state); counts and percentages keep theirs (`cell_unit`)."""
    if context is None or not context.unit:
        return page
    bare = [
        not t.unit
        and not t.counter
        and not t.stated
        and has_hangul(" ".join([t.title, *(r.label for r in t.rows[:3])]))
        for t in page.tables
    ]
    if not any(bare):
        return page
    return replace(
        page,
        tables=tuple(
            replace(t, unit=context.unit) if b else t
            for t, b in zip(page.tables, bare, strict=True)
        ),
    )


def _answer(cell: str, unit: str, language: str = "en", counter: str = "") -> str:
    """A cell as printed with its unit: "1,234 (USD millions)", "12.5%", "2,663.9" (a count); in
    Korean the unit as the page prints it: "1,234 백만원", "56 억원"."""
    if unit == "%":
        return cell if cell.endswith("%") else f"{cell}%"
    if language == "ko" and not unit and counter:
        return f"{cell} {counter}"  # a count as the page states it: "1,234 명"
    printed = printed_unit(unit) if language == "ko" else ""
    if printed and not cell.endswith("%"):
        return f"{cell} {printed}"
    return cell if not unit or cell.endswith("%") else f"{cell} ({unit})"


def cell_answer(table: Table, row: Row, column: int, language: str = "en") -> str:
    """A cell's answer as `_answer` prints it, in its own unit: a Korean count in the counter its
    column or unit line names ("398 명" of a "직원수" column under "(단위 : 백만원)")."""
    counter = cell_counter(table, row, column) if language == "ko" else ""
    return _answer(row.cells[column] or "", cell_unit(table, row, column), language, counter)


_PERIOD_WORDS = re.compile(
    r"\b(?:for\s+the\s+)?(?:(?:three|six|nine|twelve)\s+months?|(?:fiscal\s+)?years?|quarters?|"
    r"periods?|weeks?)\s+(?:ended|ending)\b|\b(?:as\s+of|at|ended|ending|fiscal|fy)\b|"
    r"\b" + MONTH_WORD + r"(?:\s+\d{1,2})?\b|"
    r"\b(?:19|20)\d{2}\b",
    re.I,
)


MAX_MEASURE_WORDS = 5


def column_measure(col: Column) -> str:
    """What a column's header says besides its period: "Fair Value" of "December 31, 2018 Fair
    Value", "U.S." of "2021 U.S."; "" when the header is the period alone."""
    return header_measure(col.header)


def is_target_header(header: str) -> bool:
    """Does a column's header name a target ("FY 2014 Target", "2024 Budget")? Its figures are
    not the period's result: the judge and the evidence index keep them apart."""
    return column_kind(header_measure(header)) == "target"


def header_measure(header: str) -> str:
    """`column_measure` of a header's text."""
    text = _PERIOD_WORDS.sub(" ", header)
    text = re.sub(r"(?<=\w)\((?:[a-z]|\d{1,2})\)", " ", text)  # footnote marks: "mortgage(d)"
    text = re.sub(r"\(\s*[,;:]?\s*\)", " ", text)  # "(2021)" once its year is gone
    # Parentheses inside stay as printed: "Income (loss) before tax", not "Income loss before tax".
    text = re.sub(r"\s+", " ", re.sub(r"[,;:]+", " ", text)).strip(" -–")
    if text.count("(") != text.count(")"):
        text = re.sub(r"[()]", " ", text)
        text = re.sub(r"\s+", " ", text).strip(" -–")
    return text if sum(ch.isalpha() for ch in text) >= 2 else ""

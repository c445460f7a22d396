"""What a table's caption says about its cells, and what kind of figure a column holds.

Performance tables print one measure per table: the measure's name is the caption ("Table 6.01C
PERFORMANCE MEASURE: Percent of agencies that …") and the only row has no label of its own, so
its first cell ("N/A*", a value the year did not have) is read as the label. Such a row is named
by its caption. A column whose header pairs a year with a kind word ("FY 2014 Target", "FY 2014
Results", "2024 Budget | 2023 Actual") holds a target or a result: the two are different facts
for the same year, so a question names the kind and the judge matches it.
"""

from __future__ import annotations

import calendar
import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from evalset_pipeline.core.pagetext.dates import MONTH_WORD, YEAR, find_dates
from evalset_pipeline.core.pagetext.korean import relative_caption, without_relative_words
from evalset_pipeline.core.pagetext.periods import normalize_period, parse_periods
from evalset_pipeline.core.reader.table_cells import UNPRINTED as _UNPRINTED
from evalset_pipeline.core.reader.table_records import Column, Row

_UNPRINTED_TAIL = re.compile(r"(?:\s+" + _UNPRINTED + r")+\s*$")
_UNPRINTED_ONLY = re.compile(r"\s*" + _UNPRINTED + r"(?:\s+" + _UNPRINTED + r")*\s*")

# A caption's numbering ("Table 6.01C", "TABLE 1 .5 A", "Exhibit 3") and its label word before a
# colon ("PERFORMANCE MEASURE:", "Indicator:") are not the measure's name.
_NUMBERING = re.compile(
    r"(?i)^\s*(?:table|exhibit|figure|chart)\s*\d+(?:\s?\.\s?\d+)*(?:\s?[A-Z]\b)?[.:]?\s*"
)
_LEAD_LABEL = re.compile(r"^[^:]{1,30}:\s+")

_TARGET = re.compile(
    r"(?i)^(?:targets?|goals?|plan(?:ned)?|budget(?:ed)?|estimated?|estimates|projected|"
    r"projections?|forecast|계획|예산)$"
)
_RESULT = re.compile(r"(?i)^(?:results?|actuals?|실적|결산)$")


def column_kind(measure: str) -> str:
    """ "target" when a column's measure is a target word alone ("Target", "Plan", "Budget"),
    "result" when a result word ("Results", "Actual"), else ""."""
    text = measure.strip()
    if _TARGET.match(text):
        return "target"
    if _RESULT.match(text):
        return "result"
    return ""


def caption_measure(title: str) -> str:
    """The measure a table's caption names, its numbering and label word dropped; "" when the
    caption is only a number or a heading of one or two words."""
    text = _NUMBERING.sub("", title)
    text = _LEAD_LABEL.sub("", text).strip(" :;-–—")
    return text if len(text.split()) >= 3 else ""


def without_unprinted(label: str) -> str:
    """ "4.03G Desktop Availability N/A* N/A" -> "4.03G Desktop Availability": unprinted cells
    left of the first figure are read into the label, but they are no part of its name."""
    if _UNPRINTED_ONLY.fullmatch(label):
        return ""
    return _UNPRINTED_TAIL.sub("", label)


def rows_named_by_caption(rows: tuple[Row, ...], title: str) -> tuple[Row, ...]:
    """A table's rows with unprinted cells dropped from their labels, and the one valued row of a
    table without a label column named by the table's caption."""
    rows = tuple(
        replace(r, label=without_unprinted(r.label)) if _UNPRINTED_TAIL.search(r.label) else r
        for r in rows
    )
    valued = [r for r in rows if any(v is not None for v in r.values)]
    measure = caption_measure(title)
    if len(valued) != 1 or not measure:
        return rows
    row = valued[0]
    if without_unprinted(row.label) or row.parent:
        return rows  # the row names itself
    # The caption names the row only where it is a one-measure table's caption: the row starts
    # with an unprinted cell, or the caption introduces its measure ("MEASURE: …"). A note's
    # heading ("31.4 제공받은 지급보증내용") over a row whose label sits elsewhere names no row.
    if not (row.label or _LEAD_LABEL.match(_NUMBERING.sub("", title))):
        return rows
    return tuple(replace(r, label=measure) if r is row else r for r in rows)


# "… November 2023" in a title: a month without a day (this module's own pattern: the shared date
# patterns read a month only with its day; `normalize_period` reads the match).
_MONTH_YEAR = re.compile(r"\b" + MONTH_WORD + r",?\s+" + YEAR + r"\b", re.I)
# "Change", "% change", "vs.": a column of differences, not of the month's figures.
_NOT_THE_MONTH = re.compile(r"\bchange\b|\bvs\b\.?|\bversus\b|%|\bpercent\b", re.I)


def caption_month(title: str) -> date | None:
    """The last day of the one month a table's title names ("Retail sales by state, November
    2023"), or None: a title with a full date, or with two months, dates no column by month."""
    if find_dates(title):
        return None
    found = {normalize_period(m.group(0)) for m in _MONTH_YEAR.finditer(title)}
    if len(found) != 1:
        return None
    month = found.pop()
    if month is None or len(month) != 7:
        return None
    year, mon = int(month[:4]), int(month[5:])
    return date(year, mon, calendar.monthrange(year, mon)[1])


def columns_dated_by_caption_month(
    columns: tuple[Column, ...], title: str, rows: Sequence[Row]
) -> tuple[Column, ...]:
    """A table whose columns name no period ("Units | Sales | % Change") under a title naming one
    month: its figure columns are that month's (a change column stays undated); its "Target |
    Actual" columns under a title naming one year: that year's. Rows dated on their own
    ("Balance as of June 30, 2023") leave the table alone."""
    if any(
        c.end is not None or c.year is not None or c.quarter is not None or c.relative is not None
        for c in columns
    ):
        return columns
    if any(find_dates(r.label) for r in rows):
        return columns
    end = caption_month(title)
    if end is not None:
        return tuple(
            c if _NOT_THE_MONTH.search(c.header) else replace(c, end=end, months=1) for c in columns
        )
    # "Performance results, fiscal year 2014" over "Target | Actual": kind columns take the one
    # year the caption names. Columns of any other kind are left undated (a filing's "2023 Stock
    # Repurchases" over "Shares | Price" is no table of the year's figures).
    years = [p for p in parse_periods(title) if len(p) == 4]
    if len(years) != 1 or not any(column_kind(c.header) for c in columns):
        return columns
    return tuple(replace(c, year=int(years[0])) if column_kind(c.header) else c for c in columns)


# A Korean column of changes or shares ("증감", "비율(%)") is no figure of the caption's period.
_NOT_THE_PERIOD_KO = re.compile(r"증\s*감|비\s*율|구\s*성\s*비|%")


def columns_dated_by_relative_caption(
    columns: tuple[Column, ...], heading: str
) -> tuple[Column, ...]:
    """A Korean note's table printed once per period under "<당분기말>" / "<전기말>" (its columns
    name measures: 취득원가, 장부금액): every figure column is the caption's period, named
    relative to the filing as a "당분기말" header is (the document dates it, `dated_page`). A
    table whose columns name periods of their own is left alone."""
    if any(
        c.end is not None or c.year is not None or c.quarter is not None or c.relative is not None
        for c in columns
    ):
        return columns
    found = relative_caption(heading)
    if found is None:
        return columns
    months, back = found
    # A column naming a period of its own ("평가충당금 당기", "당기누계") under the caption keeps it:
    # the caption dates only the columns that name none.
    return tuple(
        c
        if _NOT_THE_PERIOD_KO.search(c.header) or without_relative_words(c.header) != c.header
        else replace(c, months=months, relative=back)
        for c in columns
    )

"""Which month a document's filer closes its fiscal year in, and how sure the document is of it.

Strongest evidence first, each with its source and a confidence:

  cover    an annual report's own period ("For the fiscal year ended January 28, 2023"), or the
           range a cover states ("2023.01.01 부터 2023.09.30 까지": the year began in January)
  stated   what the text says of the filer's year: "fiscal year ended / ending <date>", "fiscal
           2023 ended <date>", "year ended <date>" where the date is not the report's own quarter
           end (a quarterly report refers to its annual report's year), "our fiscal year ends on
           the Saturday closest to January 31"
  spans    a year-to-date column ending on the report's date ("Six Months Ended June 30": the
           year began in January; "Twenty-Six Weeks Ended July 29": it began in February)
  guess    a quarterly report that prints only a three-month column is taken as a first quarter
  default  nothing said: a calendar year

A column's span never decides alone against a statement. In a quarterly report a twelve-month
column ending on the quarter's own date is a trailing twelve months, not a fiscal year: a
quarterly report never covers the fourth quarter, so the month its quarter ends in is never the
year's end. The filer's documents then vote (`filer_facts.py`).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import date

from evalset_pipeline.core.pagetext.dates import MONTHS, find_dates
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar

__all__ = ["CalendarEvidence", "year_end_statements", "document_calendar", "CONFIDENCE"]

CONFIDENCE = {"cover": 0.95, "stated": 0.85, "spans": 0.7, "guess": 0.4, "default": 0.2}

_MONTH_NAME = "|".join(sorted((m for m in MONTHS if len(m) > 3), key=len, reverse=True))
# "fiscal year ended December 31, 2022", "fiscal 2023 ended January 28, 2023", "year ending
# February 3, 2024"; the date follows within a few words ("ended on", a comma).
_YEAR_ENDED = re.compile(
    r"\b(?P<fiscal>fiscal\s+)?(?:year|(?<=fiscal\s)(?:19|20)\d{2})s?\s+end(?:ed|ing)\s*,?\s*(?:on\s+)?",
    re.I,
)
# "our fiscal year ends on the Saturday closest to January 31", "… on the last Sunday of December"
_YEAR_ENDS_ON = re.compile(
    r"fiscal\s+year\s+(?:ends|end|closes)\s+on\s+the\s+(?:\w+\s+(?:closest|nearest)\s+to|"
    r"last\s+\w+\s+(?:of|in))\s+(?P<mon>" + _MONTH_NAME + r")\b",
    re.I,
)


@dataclass(frozen=True)
class CalendarEvidence:
    calendar: FiscalCalendar = FiscalCalendar()
    source: str = "default"  # cover | stated | spans | guess | default | filer
    confidence: float = CONFIDENCE["default"]


def _effective_month(d: date) -> int:
    return FiscalCalendar.from_year_end(d).year_end_month


def year_end_statements(texts: Sequence[str], not_month: int | None = None) -> Counter[int]:
    """Year-end months the text states ("fiscal year ended <date>", "year ended <date>", "our
    fiscal year ends on the Saturday closest to January 31"), counted; `not_month`: a month that
    cannot be the year's end (a quarterly report's own quarter end), left out."""
    counts: Counter[int] = Counter()
    flat = re.sub(r"\s+", " ", "\n".join(texts))
    for m in _YEAR_ENDED.finditer(flat):
        found = find_dates(flat[m.end() : m.end() + 24])
        if not found or found[0][0] > 2:
            continue
        month = _effective_month(found[0][2])
        # A statement with "fiscal" names the filer's year; a bare "year ended" counts half as much.
        counts[month] += 2 if m["fiscal"] else 1
    for m in _YEAR_ENDS_ON.finditer(flat):
        counts[MONTHS[m["mon"].lower()]] += 2
    if not_month is not None:
        counts.pop(not_month, None)
    return counts


def _from_spans(
    spans: Sequence[tuple[int, date]], end: date, quarterly: bool
) -> CalendarEvidence | None:
    """A year-to-date column ending on the report's date: six months ended December 31 -> June.
    A twelve-month column is a year only outside quarterly reports (there it trails the quarter)
    and only where no six- or nine-month column ends on the same date (the year is not over)."""
    counts = Counter(n for n, d in spans if d == end)
    for months in (9, 6):
        if counts.get(months, 0) >= 1:
            return CalendarEvidence(
                FiscalCalendar.from_span(end, months), "spans", CONFIDENCE["spans"]
            )
    if not quarterly and counts.get(12, 0) >= 2:
        return CalendarEvidence(FiscalCalendar.from_year_end(end), "spans", CONFIDENCE["spans"])
    if quarterly and counts.get(3):
        return CalendarEvidence(FiscalCalendar.from_span(end, 3), "guess", CONFIDENCE["guess"])
    return None


def document_calendar(
    texts: Sequence[str],
    spans: Sequence[tuple[int, date]],
    end: date,
    kind: str,
    quarterly: bool,
    cover_source: str,
) -> CalendarEvidence:
    """The fiscal calendar one document gives for its period ending on `end` of `kind`."""
    if kind == "year":
        return CalendarEvidence(
            FiscalCalendar.from_year_end(end), cover_source or "spans", CONFIDENCE["cover"]
        )
    own = _effective_month(end)
    stated = year_end_statements(texts, not_month=own if quarterly else None)
    from_spans = _from_spans(spans, end, quarterly)
    if quarterly and from_spans is not None and from_spans.calendar.year_end_month == own:
        from_spans = None  # would make a quarterly report the fourth quarter
    if stated:
        month, votes = stated.most_common(1)[0]
        if votes >= 2 or from_spans is None or from_spans.source == "guess":
            return CalendarEvidence(FiscalCalendar(month), "stated", CONFIDENCE["stated"])
    if from_spans is not None:
        return from_spans
    return CalendarEvidence()

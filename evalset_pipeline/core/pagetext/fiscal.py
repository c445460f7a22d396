"""Fiscal calendars: turn a period-end date into the filer's own label (FY2023 Q2 -> "2023-Q2").

A filing states its period as a date ("For the quarterly period ended December 31, 2022") and,
in its statements, as spans ("Six Months Ended December 31, 2022"). The label a filer uses
depends on when its fiscal year ends:

- the fiscal year is named after the calendar year it ends in (a year ending June 30, 2023 is
  FY2023), except that a 52/53-week year ending in the first days of January belongs to the
  year before (the year ended January 1, 2023 is FY2022);
- the same early-month rule places a quarter ending July 1 or October 1 in June or September;
- a quarter's number counts quarters from the first month after the fiscal year end.

The fiscal year end month comes from the document itself where it says so (a 10-K's "fiscal
year ended", a "twelve months ended" span that ends on the quarter's date, or the longest
"N months ended <date>" span of a quarterly report: six months ended December 31 means the
year started in July), else from another document of the same filer, else December.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, timedelta

__all__ = [
    "FiscalCalendar",
    "named_quarter",
    "EARLY_MONTH_DAYS",
    "months_in_words",
    "SPAN_WORDS",
]

# A 52/53-week period ending on one of the first days of a month belongs to the month before.
EARLY_MONTH_DAYS = 7

SPAN_WORDS = {
    "one": 1,
    "three": 3,
    "six": 6,
    "nine": 9,
    "twelve": 12,
    "fifty-two": 12,
    "fifty-three": 12,
    "1": 1,
    "3": 3,
    "6": 6,
    "9": 9,
    "12": 12,
}


def months_in_words(word: str) -> int | None:
    return SPAN_WORDS.get(word.lower())


def _effective_month(d: date) -> tuple[int, int]:
    """(year, month) a period ending on `d` is counted in: early-month ends count in the month before."""
    if d.day <= EARLY_MONTH_DAYS:
        prev = d.replace(day=1) - timedelta(days=1)
        return prev.year, prev.month
    return d.year, d.month


def effective_year(d: date) -> int:
    """The year a period ending on `d` is named after: the year ended January 1, 2023 is 2022."""
    return _effective_month(d)[0]


@dataclass(frozen=True)
class FiscalCalendar:
    """A filer's fiscal year, known by the month it ends in (12 = calendar year)."""

    year_end_month: int = 12

    @classmethod
    def from_year_end(cls, year_end: date) -> FiscalCalendar:
        return cls(_effective_month(year_end)[1])

    @classmethod
    def from_span(cls, end: date, months: int) -> FiscalCalendar:
        """The calendar in which a year-to-date span of `months` ends on `end` (six months ended Dec 31 -> June)."""
        _, month = _effective_month(end)
        return cls((month - months - 1) % 12 + 1)

    def fiscal_year(self, end: date) -> int:
        year, month = _effective_month(end)
        return year if month <= self.year_end_month else year + 1

    def quarter(self, end: date) -> int:
        _, month = _effective_month(end)
        months_into_year = (month - self.year_end_month - 1) % 12 + 1
        return (months_into_year + 2) // 3

    def label(self, end: date, kind: str) -> str:
        """Canonical label of the period of `kind` (year | half | quarter | month) ending on `end`."""
        fy = self.fiscal_year(end)
        if kind == "year":
            return str(fy)
        if kind == "quarter":
            return f"{fy}-Q{self.quarter(end)}"
        if kind == "half":
            return f"{fy}-H{1 if self.quarter(end) <= 2 else 2}"
        year, month = _effective_month(end)
        return f"{year}-{month:02d}"

    def quarter_end(self, fiscal_year: int, quarter: int) -> date:
        """The last day of a fiscal quarter: Q1 FY2023 of a June year ends September 30, 2022."""
        month = (self.year_end_month + 3 * quarter - 1) % 12 + 1
        year = fiscal_year - 1 if month > self.year_end_month else fiscal_year
        following = date(year + month // 12, month % 12 + 1, 1)
        return following - timedelta(days=1)

    @classmethod
    def of_period(cls, period: str, period_end: str) -> FiscalCalendar | None:
        """The calendar a document's own period says: "2023" ending 2023-06-30 is a June year,
        "2021-Q1" ending 2021-03-31 a December one; None when the period names neither."""
        try:
            end = date.fromisoformat(period_end)
        except ValueError:
            return None
        if re.fullmatch(r"\d{4}", period):
            return cls.from_year_end(end)
        quarter = re.fullmatch(r"\d{4}-Q([1-4])", period)
        return cls.from_span(end, 3 * int(quarter[1])) if quarter else None


# A quarter named compactly over a column: "1Q21", "Q4 2020", "Q1 FY23", "FY2023 Q2", "2Q 2023".
_NAMED_QUARTER = re.compile(
    r"^(?:(?P<q1>[1-4])Q\s?'?(?P<y1>\d{2}|(?:19|20)\d{2})"
    r"|Q(?P<q2>[1-4])\s?(?:FY\s?)?'?(?P<y2>\d{2}|(?:19|20)\d{2})"
    r"|FY\s?'?(?P<y3>\d{2}|(?:19|20)\d{2})\s?Q(?P<q3>[1-4]))$",
    re.I,
)


def named_quarter(header: str) -> tuple[int, int] | None:
    """(fiscal year, quarter) a column header names compactly, else None. Such a header says
    neither the quarter's end nor its calendar: the filer's fiscal calendar dates it."""
    m = _NAMED_QUARTER.match(header.strip())
    if m is None:
        return None
    year = m["y1"] or m["y2"] or m["y3"]
    quarter = m["q1"] or m["q2"] or m["q3"]
    full = int(year) if len(year) == 4 else 2000 + int(year)
    return full, int(quarter)

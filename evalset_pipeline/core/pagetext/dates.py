"""Dates as documents print them: the one date grammar every reader composes its patterns from.

A date reaches the pipeline in five spellings, and every reader (the period finder, the fiscal
calendar, the cover reader, the table and prose readers, the question parsers) needs the same
ones, so they are defined here once, from named parts:

    month_day_year   December 31, 2022   (also "Dec. 31, 2022", "December 31,2022", "June 30 2023")
    day_month_year   31 December 2022
    iso              2022-12-31
    korean           2022년 12월 31일
    dotted           2022.12.31, 2022. 12. 31

`NUMERIC_DATE` is the looser year-month-day in digits that Korean statements print, separators
mixed ("2023. 1. 1", "2023년 1월 1일", "2023-01-01"), read by `numeric_date`.

Each form is a regex string with the groups `y`, `d` and `mon` (a month word) or `m` (a month
number), so a caller can read the parts of its own match; `plain()` drops the group names for a
caller that composes a form into a larger pattern. Month words match in any case on their own
(`(?i:...)`), so a case-sensitive pattern can embed them too.
"""

from __future__ import annotations

import re
from datetime import date

__all__ = [
    "DATE_FORMS",
    "DAY",
    "DAY_MONTH_YEAR",
    "DOTTED_DATE",
    "ISO_DATE",
    "KOREAN_DATE",
    "MONTHS",
    "MONTH_DAY",
    "MONTH_DAY_YEAR",
    "MONTH_NAMES",
    "MONTH_PATTERN",
    "MONTH_PREFIX",
    "MONTH_WORD",
    "NUMERIC_DATE",
    "YEAR",
    "find_dates",
    "numeric_date",
    "parse_date",
    "plain",
]

MONTH_NAMES = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
# Month words (lower case) -> month number: full names and the abbreviations filings print.
MONTHS = {name.lower(): i for i, name in enumerate(MONTH_NAMES, start=1)} | {
    name[:3].lower(): i for i, name in enumerate(MONTH_NAMES, start=1)
}
MONTHS["sept"] = 9

# Longest first, so "september" is not read as "sep" + "tember".
_MONTH_ALTERNATION = "(?i:" + "|".join(sorted(MONTHS, key=len, reverse=True)) + ")"

# --- named parts ---------------------------------------------------------------------------------

YEAR = r"(?:19|20)\d{2}"  # a four-digit year of this or the last century
DAY = r"\d{1,2}"
MONTH_WORD = _MONTH_ALTERNATION + r"\.?"  # "December", "Dec", "Dec.", "Sept."
MONTH_PATTERN = r"(?P<mon>" + _MONTH_ALTERNATION + r")\.?"  # the same, captured as `mon`
# The three letters every month word starts with, for readers that match a word by its start
# ("Sept", "Septem" cut by a column edge): compose as MONTH_PREFIX + r"[a-z]*".
MONTH_PREFIX = "(?:" + "|".join(name[:3].lower() for name in MONTH_NAMES) + ")"
MONTH_DAY = MONTH_WORD + r"\s+" + DAY  # "December 31" (a column header's date without its year)

_Y = r"(?P<y>" + YEAR + r")"
_D = r"(?P<d>" + DAY + r")"
_M = r"(?P<m>\d{1,2})"

# --- the forms -----------------------------------------------------------------------------------

# Covers and headers print the comma and spaces loosely: "December 31,2022", "June 30 2023".
MONTH_DAY_YEAR = MONTH_PATTERN + r"\s+" + _D + r"\s*,?\s*" + _Y
DAY_MONTH_YEAR = _D + r"\s+" + MONTH_PATTERN + r",?\s+" + _Y
ISO_DATE = _Y + r"-(?P<m>\d{2})-(?P<d>\d{2})"
KOREAN_DATE = _Y + r"\s*년\s*" + _M + r"\s*월\s*" + _D + r"\s*일"
DOTTED_DATE = _Y + r"\.\s?" + _M + r"\.\s?" + _D + r"(?!\d)"
DATE_FORMS = (MONTH_DAY_YEAR, DAY_MONTH_YEAR, ISO_DATE, KOREAN_DATE, DOTTED_DATE)

# Korean statements: "2023.01.01", "2023. 1. 1", "2023년 1월 1일", "2023-01-01" (separators mixed).
NUMERIC_DATE = YEAR + r"\s*[.년-]\s*\d{1,2}\s*[.월-]\s*" + DAY + r"(?!\d)\s*일?\.?"

_GROUP_NAME = re.compile(r"\(\?P<\w+>")


def plain(form: str) -> str:
    """`form` without its group names, to compose into a pattern that names its own groups."""
    return _GROUP_NAME.sub("(?:", form)


_COMPILED = [re.compile(form) for form in DATE_FORMS]


def _to_date(m: re.Match[str]) -> date | None:
    try:
        month = MONTHS[m["mon"].lower()] if m.groupdict().get("mon") else int(m["m"])
        return date(int(m["y"]), month, int(m["d"]))
    except (ValueError, KeyError):
        return None


def find_dates(text: str) -> list[tuple[int, int, date]]:
    """(start, end, date) of every full date in `text`, in order, overlaps resolved by first start."""
    found: list[tuple[int, int, date]] = []
    for pattern in _COMPILED:
        for m in pattern.finditer(text):
            d = _to_date(m)
            if d is not None:
                found.append((m.start(), m.end(), d))
    found.sort(key=lambda t: (t[0], -(t[1] - t[0])))
    out: list[tuple[int, int, date]] = []
    for item in found:
        if not out or item[0] >= out[-1][1]:
            out.append(item)
    return out


def parse_date(text: str) -> date | None:
    """The first full date in `text` ("December 31, 2022", "31 December 2022", "2022-12-31", "2022년 12월 31일")."""
    found = find_dates(text)
    return found[0][2] if found else None


def numeric_date(text: str) -> date | None:
    """The date of one `NUMERIC_DATE` match ("2023. 12. 31" -> 2023-12-31)."""
    parts = [int(x) for x in re.findall(r"\d+", text)[:3]]
    try:
        return date(parts[0], parts[1], parts[2]) if len(parts) == 3 else None
    except ValueError:
        return None

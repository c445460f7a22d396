"""Reporting periods: find them in free text and normalise them to one canonical spelling.

Business documents spell the same quarter a dozen ways ("FY24 Q3", "3Q24", "Q3'24", "third
quarter 2024", "quarter ended September 30, 2024", "2024년 3분기", ...). Hard negatives on the
period axis and period qualifiers both compare periods, so every spelling has to collapse to one
canonical value:

    YYYY-Qn   a quarter            (2024-Q3)
    YYYY-Hn   a half year          (2024-H1)
    YYYY-MM   a month              (2024-06)
    YYYY      a fiscal/calendar year (2024)

Free text is read in the calendar year: "quarter ended September 30, 2024" is 2024-Q3 here. A
document's reporting period in the filer's own fiscal calendar (for a year ending in June, the
quarter ended December 31, 2022 is FY2023 Q2) is worked out from dates and "N months ended"
phrases by `metadata.fiscal`, which knows the document; labels the filer prints itself
("FY23 Q2", "second quarter of fiscal 2023") are already fiscal and pass through unchanged.

A bare four-digit number ("2024") is *not* recognised as a period inside free text (too many
false positives: amounts, page numbers, years in prose); `normalize_period` accepts it because a
single value handed to it is known to be a period.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass

from evalset_pipeline.core.pagetext.dates import (
    DAY_MONTH_YEAR,
    ISO_DATE,
    KOREAN_DATE,
    MONTH_DAY_YEAR,
    MONTH_NAMES,
    MONTH_PATTERN,
    MONTHS,
    YEAR,
)

__all__ = [
    "PeriodMatch",
    "find_periods",
    "parse_periods",
    "normalize_period",
    "display_period",
    "quarter_of_date",
    "period_kind",
    "period_order",
]


@dataclass(frozen=True)
class PeriodMatch:
    """One period found in a text: canonical value and the character span it came from."""

    canonical: str
    start: int
    end: int
    text: str


# --- building blocks -------------------------------------------------------------------------

# Custom boundaries: Hangul counts as \w, so "\b" would not separate "2024" from "년".
_L = r"(?<![A-Za-z0-9])"
_R = r"(?![A-Za-z0-9])"

_ORDINALS = {
    "first": 1,
    "second": 2,
    "third": 3,
    "fourth": 4,
    "1st": 1,
    "2nd": 2,
    "3rd": 3,
    "4th": 4,
}
_QUARTER_END_DAY = {3: 31, 6: 30, 9: 30, 12: 31}

_YEAR4 = r"(?P<y>" + YEAR + r")"
_YEAR24 = r"(?P<y>(?:19|20)?\d{2})"  # four- or two-digit year
_ORD = r"(?P<o>first|second|third|fourth|1st|2nd|3rd|4th)"
_DATE_MDY = MONTH_DAY_YEAR  # September 30, 2024
_DATE_DMY = DAY_MONTH_YEAR  # 30 September 2024
_DATE_ISO = ISO_DATE  # 2024-09-30
_DATE_KO = KOREAN_DATE  # 2024년 9월 30일
_YEAR_ENDED = r"(?:fiscal\s+)?year\s+(?:ended|ending)\s+"
_PERIOD_ENDED = r"(?:(?:three|3)[- ]months?|quarter|period|3M)\s+(?:ended|ending|to)\s+"


def _year(text: str) -> int:
    """Two-digit years are read as 20xx (the corpus is about the present, not 1924)."""
    value = int(text)
    return value + 2000 if value < 100 else value


def quarter_of_date(year: int, month: int, day: int, *, require_quarter_end: bool) -> str | None:
    """Canonical quarter holding a date; with `require_quarter_end`, only a quarter's last day counts."""
    if not 1 <= month <= 12 or not 1 <= day <= 31:
        return None
    if require_quarter_end and _QUARTER_END_DAY.get(month) != day:
        return None
    return f"{year}-Q{(month - 1) // 3 + 1}"


def _q(m: re.Match[str]) -> str | None:
    return f"{_year(m['y'])}-Q{m['q']}"


def _ordinal_q(m: re.Match[str]) -> str | None:
    return f"{_year(m['y'])}-Q{_ORDINALS[m['o'].lower()]}"


def _h(m: re.Match[str]) -> str | None:
    return f"{_year(m['y'])}-H{m['h']}"


def _fy(m: re.Match[str]) -> str | None:
    return str(_year(m["y"]))


def _month_of(m: re.Match[str]) -> int:
    if m.groupdict().get("mon"):
        return MONTHS[m["mon"].lower().rstrip(".")]
    return int(m["m"])


def _date_in_context(m: re.Match[str]) -> str | None:
    """'Quarter ended <date>': the quarter containing the date (any day; the phrase says quarter)."""
    return quarter_of_date(int(m["y"]), _month_of(m), int(m["d"]), require_quarter_end=False)


def _bare_date(m: re.Match[str]) -> str | None:
    """A bare date is a period only when it is a quarter-end day (2024-09-30, not 2024-09-15)."""
    return quarter_of_date(int(m["y"]), _month_of(m), int(m["d"]), require_quarter_end=True)


def _year_ended(m: re.Match[str]) -> str | None:
    return str(int(m["y"]))


def _month(m: re.Match[str]) -> str | None:
    return f"{int(m['y'])}-{int(m['m']):02d}"


_KO_HALF = {"상반기": 1, "하반기": 2}

# (pattern, converter). All patterns are tried; overlapping matches are resolved longest-first,
# so "FY24 Q3" wins over the "FY24" inside it and "2024년 3분기" over "2024년".
_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str | None]]] = [
    # canonical forms first: 2024-Q3, 2024-H1, 2024Q3
    (re.compile(_L + _YEAR4 + r"\s*-?\s*Q(?P<q>[1-4])" + _R, re.I), _q),
    (re.compile(_L + _YEAR4 + r"\s*-?\s*H(?P<h>[12])" + _R, re.I), _h),
    # FY24 Q3, FY2024 Q3, FY 2024-Q3, FY24/Q3
    (re.compile(_L + r"FY\s?'?" + _YEAR24 + r"\s*[-/ ]?\s*Q(?P<q>[1-4])" + _R, re.I), _q),
    # Q3 FY24, Q3 FY2024, Q3 2024, Q3-2024, Q3'24, Q3 '24, Q3/24
    (re.compile(_L + r"Q(?P<q>[1-4])\s*(?:FY\s?)?[-/' ]\s*'?" + _YEAR24 + _R, re.I), _q),
    (re.compile(_L + r"Q(?P<q>[1-4])\s*FY\s?" + _YEAR24 + _R, re.I), _q),
    (re.compile(_L + r"Q(?P<q>[1-4])'" + _YEAR24 + _R, re.I), _q),
    # 3Q24, 3Q 2024, 3Q FY24
    (re.compile(_L + r"(?P<q>[1-4])Q\s*(?:FY\s?)?'?" + _YEAR24 + _R, re.I), _q),
    # third quarter 2024, third quarter of 2024, third quarter of fiscal 2024, 3rd quarter FY24
    (
        re.compile(
            _L
            + _ORD
            + r"\s+(?:fiscal\s+)?quarter,?\s+(?:of\s+)?(?:(?:fiscal|FY)\s*(?:year\s+)?)?'?"
            + _YEAR24
            + _R,
            re.I,
        ),
        _ordinal_q,
    ),
    # 2022 fourth-quarter, 2022 Fourth Quarter, fourth-quarter 2022 (press-release spellings)
    (re.compile(_L + _YEAR4 + r"\s+" + _ORD + r"[- ]quarter" + _R, re.I), _ordinal_q),
    (
        re.compile(
            _L
            + _ORD
            + r"-quarter,?\s+(?:of\s+)?(?:(?:fiscal|FY)\s*(?:year\s+)?)?'?"
            + _YEAR24
            + _R,
            re.I,
        ),
        _ordinal_q,
    ),
    # H1 2024, 1H24, H1 FY24, first half 2024, first half of 2024
    (re.compile(_L + r"H(?P<h>[12])\s*(?:FY\s?)?[-/' ]?\s*'?" + _YEAR24 + _R, re.I), _h),
    (re.compile(_L + r"(?P<h>[12])H\s*(?:FY\s?)?'?" + _YEAR24 + _R, re.I), _h),
    (
        re.compile(
            _L
            + r"(?P<h>first|second)\s+half\s+(?:of\s+)?(?:(?:fiscal|FY)\s*(?:year\s+)?)?"
            + _YEAR4
            + _R,
            re.I,
        ),
        lambda m: f"{m['y']}-H{1 if m['h'].lower() == 'first' else 2}",
    ),
    # quarter ended September 30, 2024 / three months ended 30 September 2024 / 3M to 2024-09-30
    (re.compile(_L + _PERIOD_ENDED + _DATE_MDY + _R, re.I), _date_in_context),
    (re.compile(_L + _PERIOD_ENDED + _DATE_DMY + _R, re.I), _date_in_context),
    (re.compile(_L + _PERIOD_ENDED + _DATE_ISO + _R, re.I), _date_in_context),
    # year ended December 31, 2024 / year ended 31 December 2024 -> the year
    (re.compile(_L + _YEAR_ENDED + _DATE_MDY + _R, re.I), _year_ended),
    (re.compile(_L + _YEAR_ENDED + _DATE_DMY + _R, re.I), _year_ended),
    # bare quarter-end dates: 2024-09-30, September 30, 2024, 30 September 2024
    (re.compile(_L + _DATE_ISO + _R), _bare_date),
    (re.compile(_L + _DATE_MDY + _R, re.I), _bare_date),
    (re.compile(_L + _DATE_DMY + _R, re.I), _bare_date),
    # full years: FY2024, FY24, FY 2024, fiscal year 2024, fiscal 2024
    (re.compile(_L + r"FY\s?'?" + _YEAR24 + _R, re.I), _fy),
    (re.compile(_L + r"fiscal\s+(?:year\s+)?" + _YEAR4 + _R, re.I), _fy),
    # Korean: 2024년 3분기, 2024년 3Q, 2024년 제3분기, 24년 3분기, 2024년 상반기, 2024 회계연도
    (re.compile(_L + _YEAR24 + r"\s*년\s*(?:제\s*)?(?P<q>[1-4])\s*(?:분기|Q" + _R + ")", re.I), _q),
    (
        re.compile(_L + _YEAR24 + r"\s*년\s*(?P<half>상반기|하반기)"),
        lambda m: f"{_year(m['y'])}-H{_KO_HALF[m['half']]}",
    ),
    (re.compile(_L + _YEAR4 + r"\s*(?:년\s*)?회계\s*연도"), _fy),
    # 2024년 9월 30일 종료 분기 (quarter ended ...) / bare Korean quarter-end date
    (
        re.compile(_L + _DATE_KO + r"\s*(?:로\s*)?(?:종료(?:되는|된)?\s*(?:3개월|분기))"),
        _date_in_context,
    ),
    (re.compile(_L + _DATE_KO), _bare_date),
    # months: 2024년 6월 (no day after it), 2024.06 / 2024. 6. (Korean and statistical tables)
    (re.compile(_L + _YEAR4 + r"\s*년\s*(?P<m>1[0-2]|0?[1-9])\s*월(?!\s*\d)"), _month),
    (re.compile(_L + _YEAR4 + r"\.\s?(?P<m>1[0-2]|0[1-9])\.?(?![\d.])"), _month),
    # 2024년 alone is the year (not when a month or quarter follows; those are handled above)
    (re.compile(_L + _YEAR4 + r"\s*년(?!\s*(?:제\s*)?\d)(?!\s*(?:상반기|하반기))"), _fy),
]


_DIGIT = re.compile(r"\d")


def find_periods(text: str) -> list[PeriodMatch]:
    """Every period mention in `text`, in order of appearance, with its span (not deduplicated).

    Overlapping candidates are resolved greedily: earliest start first, then the longest match,
    so a mention is read once, as the most specific period it spells.
    """
    if not text or not _DIGIT.search(text):
        return []  # every spelling has a year in digits: most lines are skipped here, cheaply
    candidates: list[PeriodMatch] = []
    for pattern, convert in _PATTERNS:
        for m in pattern.finditer(text):
            canonical = convert(m)
            if canonical is not None and _valid(canonical):
                candidates.append(PeriodMatch(canonical, m.start(), m.end(), m.group(0)))
    candidates.sort(key=lambda c: (c.start, -(c.end - c.start)))
    chosen: list[PeriodMatch] = []
    last_end = -1
    for cand in candidates:
        if cand.start >= last_end:
            chosen.append(cand)
            last_end = cand.end
    return chosen


def _valid(canonical: str) -> bool:
    year = int(canonical[:4])
    return 1900 <= year <= 2099


def parse_periods(text: str) -> list[str]:
    """Canonical periods mentioned in free text, in order of first appearance, deduplicated."""
    seen: dict[str, None] = {}
    for match in find_periods(text):
        seen.setdefault(match.canonical, None)
    return list(seen)


_CANONICAL = re.compile(r"^(?:19|20)\d{2}(?:-Q[1-4]|-H[12]|-(?:0[1-9]|1[0-2]))?$")
_MONTH_YEAR = re.compile(r"^" + MONTH_PATTERN + r",?\s+" + _YEAR4 + r"$", re.I)


def period_kind(canonical: str) -> str:
    """'year' | 'half' | 'quarter' | 'month' | '' for one canonical period: the period axis compares like with like."""
    if not canonical or not _CANONICAL.match(canonical):
        return ""
    if len(canonical) == 4:
        return "year"
    return {"Q": "quarter", "H": "half"}.get(canonical[5], "month")


def period_order(canonical: str) -> tuple[int, int] | None:
    """(year, last month) of a canonical period, to tell which of two periods ends later:
    2023 -> (2023, 12), 2023-Q2 -> (2023, 6), 2023-H1 -> (2023, 6), 2023-05 -> (2023, 5)."""
    if not canonical or not _CANONICAL.match(canonical):
        return None
    year = int(canonical[:4])
    if len(canonical) == 4:
        return year, 12
    kind, n = canonical[5], canonical[6]
    if kind == "Q":
        return year, 3 * int(n)
    if kind == "H":
        return year, 6 * int(n)
    return year, int(canonical[5:7])


def normalize_period(value: str) -> str | None:
    """One period value in any recognised spelling -> canonical, else None.

    The value must be a period and nothing else (surrounding punctuation and whitespace aside):
    "Q3 2024" -> "2024-Q3", but "revenue in Q3 2024" -> None. Canonical values pass through,
    including a bare year ("2024").
    """
    if value is None:
        return None
    stripped = value.strip().strip(".,;:()[]")
    if _CANONICAL.match(stripped.upper()):
        return stripped.upper()
    if re.fullmatch(r"(?:19|20)\d{2}", stripped):
        return stripped
    month_year = _MONTH_YEAR.match(stripped)  # "June 2024": a month only when it is the whole value
    if month_year:
        return f"{month_year['y']}-{MONTHS[month_year['mon'].lower().rstrip('.')]:02d}"
    matches = find_periods(stripped)
    if len(matches) != 1:
        return None
    only = matches[0]
    leftover = (stripped[: only.start] + stripped[only.end :]).strip(" .,;:()[]-")
    return only.canonical if not leftover else None


def display_period(canonical: str, language: str = "en") -> str:
    """Human spelling of a canonical period: en 'Q3 2024' / 'FY2024' / 'H1 2024' / 'June 2024';
    ko '2024년 3분기' / '2024년' / '2024년 6월'."""
    norm = normalize_period(canonical)
    if norm is None:
        raise ValueError(f"not a period: {canonical!r}")
    year = norm[:4]
    ko = language.lower().startswith("ko")
    if len(norm) == 4:
        return f"{year}년" if ko else f"FY{year}"
    kind, n = norm[5], norm[6]
    if kind.isdigit():
        month = int(norm[5:7])
        return f"{year}년 {month}월" if ko else f"{MONTH_NAMES[month - 1]} {year}"
    if kind == "Q":
        return f"{year}년 {n}분기" if ko else f"Q{n} {year}"
    return f"{year}년 {'상반기' if n == '1' else '하반기'}" if ko else f"H{n} {year}"

"""The periods a Korean table's column headers name.

Korean statements (DART filings) head their columns with the filing's period ordinal ("제 55 기",
"제 56 기 3분기") and state what each ordinal covers in the heading above the table ("제 55 기
2023.01.01 부터 2023.12.31 까지", "제 55 기 2023.12.31 현재"); a quarter's columns split into "3개월"
(the quarter) and "누적" (the year to date). Reports and public statistics head columns with
years, quarters and dates ("2023년", "2023년 3분기", "2023. 12. 31"). Notes tables name periods
relative to the filing ("당기말", "전기"): the reader marks them, and `table_questions` dates them
against the document's own period, which only it knows.

Quarters and halves are read in the calendar year ("2023년 3분기" ends September 30), as Korean
filers and agencies report them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import date

from evalset_pipeline.core.pagetext.dates import NUMERIC_DATE, numeric_date
from evalset_pipeline.core.pagetext.korean import (
    INSTANT,
    RANGE,
    YEAR,
    dated_range,
    has_hangul,
    month_end,
    relative_beside_measure,
    relative_header,
    without_relative_words,
    year_of,
)
from evalset_pipeline.core.pagetext.text import joined_letter_spacing

__all__ = [
    "KoreanPeriod",
    "korean_column",
    "korean_header_measure",
    "to_date_measure",
    "unsaid_measure",
]


@dataclass(frozen=True)
class KoreanPeriod:
    months: int | None  # 3/6/9/12; None for an instant ("현재", "말") or a bare year
    end: date | None
    year: int | None
    relative: int | None = None  # years before the filing's period ("당기" 0, "전기" 1); undated


_ORDINAL = r"제\s*(?P<n>\d{1,3})\s*(?:\(\s*[당전]\s*\)\s*)?기"
_PART = r"(?:\s*(?P<part>[1-4]\s*분기|반기))?"
# "제 55 기 2023.01.01 부터 2023.12.31 까지", "제 56 기 3분기 : 2024년 1월 1일 ~ 2024년 9월 30일"
_RANGE = re.compile(_ORDINAL + _PART + r"\s*말?\s*[:：]?\s*\(?\s*" + RANGE)
# "제 55 기 2023.12.31 현재", "제 56 기 3분기말 2024년 9월 30일 현재"
_INSTANT = re.compile(_ORDINAL + _PART + r"\s*말?\s*[:：]?\s*\(?\s*" + INSTANT)
_HEADER_RANGE = re.compile(RANGE)
_HEADER_DATE = re.compile(NUMERIC_DATE)
_HEADER_ORDINAL = re.compile(_ORDINAL + _PART + r"\s*(?P<end>말)?")
_QUARTER = re.compile(
    r"(?<!\d)(?P<y>" + YEAR + r")\s*년?\s*\.?\s*(?P<q>[1-4])\s*(?:분기|/4\s*분기|[Qq])(?![A-Za-z])"
)
_HALF = re.compile(r"(?<!\d)(?P<y>" + YEAR + r")\s*년?\s*(?P<h>상|하)\s*반기")
_YEAR = re.compile(r"(?<!\d)(?P<y>" + YEAR + r")\s*년(?P<end>\s*말)?(?!\s*\d{1,2}\s*월)")
# "2022년 12월말" (a balance at the month's end), "2022년 1월~12월" (the months it runs): the five-year
# summary of a DART annual report heads its columns so.
_MONTH_END = re.compile(r"(?<!\d)(?P<y>" + YEAR + r")\s*년\s*(?P<m>\d{1,2})\s*월\s*말")
_MONTH_SPAN = re.compile(
    r"(?<!\d)(?P<y>" + YEAR + r")\s*년\s*(?P<a>\d{1,2})\s*월\s*[~∼-]\s*(?P<b>\d{1,2})\s*월"
)
_YEAR_WORD = re.compile(r"(?<!\d)" + YEAR + r"\s*년")
THREE_MONTHS = re.compile(r"3\s*개월")  # a quarter's own column, not the year to date
_CUMULATIVE = re.compile(r"누적")


def _part_key(part: str | None) -> str:
    return re.sub(r"\s+", "", part or "")


@functools.lru_cache(maxsize=256)
def _ordinals(heading: str) -> dict[tuple[int, str], tuple[date, int | None]]:
    """(ordinal, part) -> (end, months; None for an instant) as the heading states them (every
    column of a table shares its heading: read once)."""
    out: dict[tuple[int, str], tuple[date, int | None]] = {}
    for m in _RANGE.finditer(heading):
        found = dated_range(m)
        if found is not None:
            out.setdefault((int(m["n"]), _part_key(m["part"])), (found[1], found[0]))
    for m in _INSTANT.finditer(heading):
        d = numeric_date(m["d"])
        if d:
            out.setdefault((int(m["n"]), _part_key(m["part"])), (d, None))
    return out


def _ordinal_column(m: re.Match[str], header: str, heading: str) -> KoreanPeriod | None:
    known = _ordinals(heading)
    key = (int(m["n"]), _part_key(m["part"]))
    stated = known.get(key) or known.get((key[0], ""))
    if stated is None:
        return None
    end, months = stated
    if months is None or m["end"]:
        return KoreanPeriod(None, end, None)  # a balance at the period's end
    if THREE_MONTHS.search(header):
        return KoreanPeriod(3, end, None)
    return KoreanPeriod(months, end, None)  # "누적", or the ordinal alone: the stated range


def korean_column(header: str, heading: str) -> KoreanPeriod | None:
    """The period a Korean column header names (the heading dates "제 N 기" ordinals); None when
    the header is not Korean or names no period this reader can date."""
    ranged = _HEADER_RANGE.search(header)
    if not has_hangul(header) and not ranged:
        return None
    m = _HEADER_ORDINAL.search(header)
    if m:
        stated = _ordinal_column(m, header, heading)
        if stated is not None:
            return stated
        # "제 55 기 (2023년)" under a heading that dates no ordinal: the header's own period
        header = header[: m.start()] + header[m.end() :]
    if ranged:  # "2023.01.01 ~ 2023.12.31": the period itself
        found = dated_range(ranged)
        return KoreanPeriod(found[0], found[1], None) if found else None
    month = _month_column(header)
    if month is not None:
        return month
    dated = _HEADER_DATE.search(header)
    d = numeric_date(dated.group(0)) if dated else None
    if d is not None:
        if THREE_MONTHS.search(header):
            return KoreanPeriod(3, d, None)
        return KoreanPeriod(None, d, None)  # "2023. 12. 31", "2023년 12월 31일 현재": an instant
    m = _QUARTER.search(header)
    if m:
        year, q = year_of(m["y"]), int(m["q"])
        months = 3 * q if _CUMULATIVE.search(header) else 3
        return KoreanPeriod(months, month_end(year, 3 * q), None)
    m = _HALF.search(header)
    if m:
        year = year_of(m["y"])
        return KoreanPeriod(6, month_end(year, 6 if m["h"] == "상" else 12), None)
    m = _YEAR.search(header)
    if m:
        year = year_of(m["y"])
        return (
            KoreanPeriod(None, date(year, 12, 31), None)
            if m["end"]
            else KoreanPeriod(None, None, year)
        )
    # "당기말", or "보증금액 당분기말": a sub-column's measure beside its relative period
    named = relative_header(header) or relative_beside_measure(header)
    if named is not None:
        return KoreanPeriod(named[0], None, None, named[1])
    return None


def _month_column(header: str) -> KoreanPeriod | None:
    """A month-end or a run of months ("2022년 12월말", "2022년 1월~12월"); None for other
    headers, and for a header naming two years (two columns' headers run together in the text
    layer: neither is this column's)."""
    if len(_YEAR_WORD.findall(header)) != 1:
        return None
    m = _MONTH_END.search(header)
    if m and 1 <= int(m["m"]) <= 12:
        return KoreanPeriod(None, month_end(int(m["y"]), int(m["m"])), None)
    m = _MONTH_SPAN.search(header)
    if m and 1 <= int(m["a"]) <= int(m["b"]) <= 12:
        months = int(m["b"]) - int(m["a"]) + 1
        if months in (3, 6, 9, 12):
            return KoreanPeriod(months, month_end(int(m["y"]), int(m["b"])), None)
    return None


# What a sub-column names besides its period: a measure ("장부금액", "유동") of one to three words;
# a header with digits left ("1년 이내", "수준1") names a bucket or a level, not a measure.
MAX_MEASURE_WORDS = 3
_MARK = re.compile(r"\(\s*[A-Za-z*]{1,2}(?:\s*[-+]\s*[A-Za-z])?\s*\)|\(\s*\*\s*\d?\s*\)")


def _besides_period(header: str) -> str:
    """A Korean column header's words besides its period, "" where they are no name (digits)."""
    # "2022년도분": the year's share ("for 2022"), the period, no measure ("도분")
    text = re.sub(r"(\d{2,4}\s*년)\s*도(?:\s*분)?", r"\1", header)
    for pattern in (_HEADER_RANGE, _HEADER_DATE, _HEADER_ORDINAL, _QUARTER, _HALF, _YEAR):
        text = pattern.sub(" ", text)
    # "기 초" of a header justified over its cell is the word "기초"
    text = joined_letter_spacing(without_relative_words(_MARK.sub(" ", text)).strip(" :-()"))
    if not has_hangul(text) or re.search(r"\d", text):
        return ""
    # "주주 전체 주주수": a group header spanning its sub-columns, said again by the sub-column
    words = text.split()
    kept = [w for k, w in enumerate(words) if not any(v.startswith(w) for v in words[k + 1 :])]
    return " ".join(kept)


def korean_header_measure(header: str) -> str:
    """What a Korean column header says besides its period ("유동" of "당분기말 유동", "장부금액"
    of "장부금액"); "" when nothing is left, or what is left is not a measure's name."""
    text = _besides_period(header)
    return text if len(text.split()) <= MAX_MEASURE_WORDS else ""


def unsaid_measure(header: str) -> bool:
    """Does a Korean column header name a sub-measure too long to say in a question ("2023년
    03월 31일 기간의 정함이 없는 근로자 전체": the permanent staff, one column of a headcount
    table whose other columns its text layer did not date)? Its figure is not the row's."""
    return len(_besides_period(header).split()) > MAX_MEASURE_WORDS


# "누적공사수익", "누적발생원가": what has built up to the column's date, a position at that date
# however the table is dated ("<당분기>"); "누적" alone heads a quarter's year-to-date column.
_TO_DATE = re.compile(r"^누\s*적\s*\S{2,}")


def to_date_measure(measure: str) -> bool:
    """Does a Korean column measure name a figure built up to its date ("누적공사수익")?"""
    return bool(_TO_DATE.match(measure.strip()))

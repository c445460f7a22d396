"""Figures Korean prose states for a named period, read as one-row tables (`prose_reader` does the
same for English):

    2023년 매출액은 1,234억원으로 전년 대비 5.2% 증가하였습니다.   -> 매출액, 2023: 1,234 (KRW 100 millions)
    2023년 12월 31일 현재 임직원 수는 3,210명입니다.               -> 임직원 수, as of 2023-12-31: 3,210
    당사의 2024년 3분기 영업이익은 9,183억원을 기록하였습니다.

Only the plainest shape, the one a reader cannot misread: the sentence opens with its period
(after "당사의" / "회사의" at most), then a subject of at most four words closed by its particle
(은/는/이/가), then at once the amount with its unit: won with its scale, people (명) or a
percentage. An amount split over two scales ("258조 9,355억원"), a figure further into the
sentence ("전년 대비 5.2% 증가") and a sentence without its own period are not read.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Iterator
from typing import Any

from evalset_pipeline.core.pagetext.dates import NUMERIC_DATE, numeric_date
from evalset_pipeline.core.pagetext.korean import (
    CURRENCY_WORDS,
    SCALE_WORDS,
    YEAR,
    has_hangul,
    month_end,
    year_of,
)
from evalset_pipeline.core.pagetext.text import HANGUL_SYLLABLES
from evalset_pipeline.core.reader.prose_reader import PROSE_TITLE
from evalset_pipeline.core.reader.table_reader import Column, Row, Table, parse_value

__all__ = ["read_korean_prose_tables"]

_PERIOD = (
    r"(?:(?P<instant>" + NUMERIC_DATE + r")\s*(?:현재|기준)"
    r"|(?P<qy>" + YEAR + r")년\s*(?P<q>[1-4])\s*분기"
    r"|(?P<y>" + YEAR + r")\s*(?:년도?|회계연도)(?!\s*\d{1,2}\s*월))"
)
# How a Korean sentence ends: a stop, or the nominal endings of reports ("…감소하였음", "…집계됨").
_ENDS = re.compile(r"(?:[.?!]|[다음됨함임])\s*$")
# Reports set statements as bullet points ("○ ’23년 수출액은 …", "- 2023년 …").
_BULLET = re.compile(
    r"^\s*(?:[○●◦•·□■▪▶▷※ㅇ\-–]|\(\d{1,2}\)|\d{1,2}[.)](?=\s)|[가-하][.)](?=\s))\s*"
)
_OWNER = r"(?:(?:당사|회사|우리\s*회사)의\s+)?"
_WORD = "[" + HANGUL_SYLLABLES + "A-Za-z]+"
_SUBJECT = r"(?P<subject>" + _WORD + r"(?:\s" + _WORD + r"){0,3}?)(?:은|는|이|가)"
_AMOUNT = (
    r"(?P<num>\d[\d,]*(?:\.\d+)?)\s*(?:(?P<pct>%)|(?P<scale>조|억|백만|만|천)?\s*"
    r"(?:(?P<currency>원|달러)|(?P<people>명)))(?!\s*\d)"
)
_STATEMENT = re.compile(
    r"^"
    + _OWNER
    + r"(?P<period>"
    + _PERIOD
    + r")\s+(?:연결\s*기준\s+)?"
    + _OWNER
    + _SUBJECT
    + r"\s+"
    + _AMOUNT
)


def _paragraphs(text: str) -> Iterator[str]:
    """Lines joined into paragraphs. A bullet ("○", "-", "□") opens one, a line that ends a sentence
    ("…습니다.", "…감소하였음", "…집계됨") closes it, and a short line with neither a stop nor a
    figure is a heading ("1. 회사의 개요") that stands alone, so it never opens the sentence below."""
    current: list[str] = []
    for line in (ln.strip() for ln in unicodedata.normalize("NFKC", text).splitlines()):
        body = _BULLET.sub("", line)
        heading = len(line.split()) <= 8 and not _ENDS.search(line) and not re.search(r"\d", body)
        if not line or heading or _BULLET.match(line):
            if current:
                yield " ".join(current)
            current = []
            if not line or heading:
                continue
        current.append(line)
        if _ENDS.search(line):
            yield " ".join(current)
            current = []
    if current:
        yield " ".join(current)


def _sentences(text: str) -> Iterator[str]:
    for paragraph in _paragraphs(text):
        for part in re.split(r"(?<=[.?!])\s+", paragraph):
            if has_hangul(part):
                yield part.strip()


def _unit(m: re.Match[str]) -> str:
    """ "%", "KRW 100 millions" of 억원, "10 thousands" of 만 명 (people: never money)."""
    if m["pct"]:
        return "%"
    scale = SCALE_WORDS[m["scale"] or ""]
    currency = CURRENCY_WORDS.get(m["currency"] or "", "")
    return " ".join(p for p in (currency, scale) if p)


def _column(m: re.Match[str]) -> Column | None:
    if m["instant"]:
        end = numeric_date(m["instant"])
        return Column(0, m["period"], None, end, None, 0.0, 0.0) if end else None
    if m["qy"]:
        end = month_end(year_of(m["qy"]), 3 * int(m["q"]))
        return Column(0, m["period"], 3, end, None, 0.0, 0.0)
    return Column(0, m["period"], None, None, year_of(m["y"]), 0.0, 0.0)


def read_korean_prose_tables(layer: dict[str, Any]) -> list[Table]:
    """One-row tables of the figures the page's Korean prose states for a named period."""
    text = str(layer.get("text") or "")
    if not has_hangul(text):
        return []  # most pages of an English corpus: nothing to split
    tables: list[Table] = []
    for sentence in _sentences(text):
        m = _STATEMENT.match(_BULLET.sub("", sentence))
        column = _column(m) if m else None
        if m is None or column is None:
            continue
        cell = m["num"] + ("%" if m["pct"] else "")
        value = parse_value(cell)
        if value is None:
            continue
        unit = _unit(m)
        row = Row(m["subject"].strip(), "", (cell,), (value,), 0.0, False)
        tables.append(Table((column,), (row,), unit, "", PROSE_TITLE, 0.0, 0.0))
    return tables

"""What one table cell's text is: a number (currency signs, dashes for nil, parentheses and the
Korean triangle for minus), a year, a leader, or a row label (footnote marks, numbering and
trailing note digits cleaned off).
"""

from __future__ import annotations

import functools
import re
import unicodedata

from evalset_pipeline.core.pagetext.dates import MONTHS
from evalset_pipeline.core.pagetext.text import (
    HANGUL_SYLLABLES,
    clean_text,
    joined_letter_spacing,
    parse_number,
)

_CURRENCY_SIGNS = ("US$", "$", "₩", "€", "£", "¥")


_DASHES = "—–-−‒―"


# A number cell as printed: optional sign or "(", digits with thousands commas, decimals, ")" and "%".
# Thousands groups are three digits: "31,2019" is a header's "December 31," run into "2019".
_NUMERIC = re.compile(
    r"^[+\-−]?\(?[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*\)?\s*%?\s*\)?$|^[+\-−]?\(?\.\d+\)?%?$"
)


_DASH = re.compile(r"^\(?[" + _DASHES + r"]{1,3}\)?\s*%?$")


_YEAR = re.compile(r"^(?:FY\s?|Fiscal\s+)?((?:19|20)\d{2})[A-Za-z]?$", re.I)


# Cells a table prints for a value it does not have: "N/A", "N/A*", "NA", "-*", "—".
UNPRINTED = r"(?:N/?A|n/?a|TBD|[-–—])\**"
_UNPRINTED_CELL = re.compile(UNPRINTED)


def unprinted(text: str) -> bool:
    """ "N/A", "N/A*", "TBD": a cell standing for a value the table does not have."""
    return _UNPRINTED_CELL.fullmatch(text.strip()) is not None


# A measure's code in a column of its own, left of its name ("9.01A", "1.1 B", "8.02"): numbering,
# neither a figure nor part of the name.
MEASURE_CODE = re.compile(r"^\s*\d{1,2}(?:\s?\.\s?\d{1,2})+(?:\s?[A-Z])?(?=\s|$)\s*")
_LEADER = re.compile(r"(?:\s*\.){3,}|(?:\s*[·…_]){2,}")


# Format characters (soft hyphens, zero-width spaces, direction marks) are invisible on the page.


# Korean statements print a negative with a triangle: "△1,234" is -1,234.
_KO_MINUS = str.maketrans({"△": "-", "▽": "-"})


def _strip_currency(text: str) -> str:
    t = text.strip().translate(_KO_MINUS)
    for sign in _CURRENCY_SIGNS:
        t = t.replace(sign, "")
    return t.replace(" ", "").strip()


@functools.lru_cache(maxsize=1 << 16)
def _kind(text: str) -> str:
    """'currency' (a lone "$"), 'dash', 'num' or 'text'."""
    t = text.strip()
    if t in _CURRENCY_SIGNS or t in ("US$", "₩", "KRW", "USD", "EUR"):
        return "currency"
    bare = _strip_currency(t)
    if not bare:
        return "text"
    if _DASH.match(bare):
        return "dash"
    if _NUMERIC.match(bare):
        return "num"
    return "text"


def parse_value(text: str | None) -> float | None:
    """ "(1,234)" -> -1234.0, "$1,234.5" -> 1234.5, "12%" -> 12.0, "(12)%" -> -12.0, dashes -> None."""
    if not text:
        return None
    bare = _strip_currency(unicodedata.normalize("NFKC", text))
    if not bare or _DASH.match(bare) or not _NUMERIC.match(bare):
        return None
    negative = "(" in bare and ")" in bare
    # parse_number reads a leading "(" but not one after a sign or a "%" before ")": normalise first.
    digits = bare.replace("(", "").replace(")", "").replace("%", "")
    value = parse_number(digits)
    if value is None:
        return None
    return -abs(value) if negative else value


_FOOTNOTE = re.compile(r"(?:\s*(?:\((?:\d{1,2}|[a-z]|[ivx]{1,4})\)|[*†‡§¹²³⁴⁵⁶⁷⁸⁹⁰]+))+$")


_TRAILING_DIGIT = re.compile(r"\s+\d{1,2}(?:\s*,\s*\d{1,2})*$")


_NUMBERED_WORDS = (
    "level",
    "tier",
    "note",
    "notes",
    "phase",
    "class",
    "stage",
    "item",
    "part",
    "series",
    "no.",
    "schedule",
    "step",
    "pillar",
    "group",
    "region",
    "segment",
    "plan",
)


_MONTH_NAMES = tuple(MONTHS)


# "Less: cash and cash equivalents", "차감: 현금및현금성자산": a line of arithmetic; the label
# names the account (`clean_label` drops the word), the figure is the account taken away.
_DEDUCTION_EN = re.compile(r"^(?:less|plus|add|deduct)\b\s*:?\s+(?!than\b)(?=[A-Za-z])", re.I)
_DEDUCTION_KO = re.compile(r"^(?:차감|가산|공제)\s*[:：]\s*(?=[" + HANGUL_SYLLABLES + "])")


def deduction_label(text: str) -> bool:
    """Is a raw label a line of arithmetic ("차감: 현금및현금성자산", "Less: cash")?"""
    t = clean_text(text).strip()
    return bool(_DEDUCTION_EN.match(t) or _DEDUCTION_KO.match(t))


def clean_label(text: str) -> str:
    """Drop dot leaders, footnote marks, a leading "Less:" / "Plus:", a trailing ":" and extra spaces."""
    t = _LEADER.sub(" ", clean_text(text))
    for _ in range(3):
        before = t
        t = _FOOTNOTE.sub("", t).strip()
        m = _TRAILING_DIGIT.search(t)
        if m:
            words = t[: m.start()].split()
            if words and words[-1].lower().rstrip(".,") not in _NUMBERED_WORDS + _MONTH_NAMES:
                t = t[: m.start()].strip()
        t = t.rstrip(" :;,").strip()  # "Other, net (b)," -> "Other, net (b)" -> "Other, net"
        if t == before:
            break
    # Korean statements number their items ("Ⅰ. 유동자산", "1. 매출액", "(1) 이자수익", "① 제품") and
    # mark notes after them ("매출액(주석 23)", "(주1)", "(*1)"): neither is part of the name.
    t = re.sub(
        r"^(?:\(?(?:[IVX]{1,4}|\d{1,2}|[가-하])\s*[.)]|[\u2460-\u2473])\s*(?=["
        + HANGUL_SYLLABLES
        + "])",
        "",
        t,
    )
    t = re.sub(r"\s*\((?:주석?\s*[\d,\s]+|\*\s*\d*|주\s*\d+)\)\s*$", "", t)
    # Letter-spaced labels ("매 출 액", "합 계") are the same words set wide.
    t = joined_letter_spacing(t)
    # "Less: cash and cash equivalents" is a line of arithmetic; the label is the cash's.
    t = _DEDUCTION_KO.sub("", _DEDUCTION_EN.sub("", t))
    t = t[:1].upper() + t[1:] if t[:1].islower() and text.strip()[:1].isupper() else t
    return re.sub(r"\s+", " ", t).strip()


def _strip_currency_keep_parens(text: str) -> str:
    t = text
    for sign in ("US$", "$", "₩", "€", "£", "¥"):
        t = t.replace(sign, "")
    t = re.sub(r"\s+", "", t) if _kind(text) in ("num", "dash") else t.strip()
    return t


# A roll-forward's closing line, the balance of what its table names at its column's end: "기말",
# "기말 잔액", "Ending balance", "Balance at end of period", "Balance at June 30"
_CLOSING_LINE = re.compile(
    r"^(?:기\s*말(?:\s*(?:잔\s*액|금\s*액))?|ending\s+balance|balance,?\s+(?:at\s+)?end\s+of\s+"
    r"(?:the\s+)?(?:period|year|quarter)|balance\s+(?:at|as\s+of)\s+[a-z]+\.?\s+\d{1,2},?)$",
    re.I,
)


def is_closing_line(label: str) -> bool:
    """Is a row a roll-forward's closing balance ("기말", "Balance at June 30")?"""
    return bool(_CLOSING_LINE.match(label.strip()))

"""A table's units: scale and currency from its heading ("(in millions, except per share
amounts)", "(단위: 백만원)") or, failing that, the page, and the unit of one cell (per-share
figures, share and head counts keep their own).
"""

from __future__ import annotations

import re

from evalset_pipeline.core.pagetext.korean import SCALE_WORDS
from evalset_pipeline.core.reader.table_cells import _DASH
from evalset_pipeline.core.reader.table_records import Row, Table

_SCALES = {
    "thousand": "thousands",
    "million": "millions",
    "billion": "billions",
    "trillion": "trillions",
    "000": "thousands",
    "'000": "thousands",
    "000s": "thousands",
    "mn": "millions",
    "mm": "millions",
    "m": "millions",
    "bn": "billions",
    "k": "thousands",
}


_SCALE_RE = re.compile(
    r"\b(?:in|of)\s+(?:(?:u\.?\s?s\.?|us|usd|eur|krw|gbp|jpy|\$|€|£|¥|korean|canadian|japanese|"
    r"dollars?|euros?|won)\s+)?(thousand|million|billion|trillion)s?\b|"
    r"\b(thousand|million|billion|trillion)s?\s+of\s+(?:u\.?\s?s\.?\s+)?(?:dollars|euros|won|yen|pounds|usd|eur|krw)\b|"
    r"\(\s*(?:in\s+)?(?:us\$|\$|€|£|¥|usd|eur|krw|gbp)?\s*(thousand|million|billion|000s?|'000|mn|mm|bn)s?\b|"
    # "£m", "$bn", "€'000" over the columns, as UK and European reports head them
    r"(?:us\$|\$|€|£|¥)\s?(m|mn|bn|k|000|'000)(?![a-z])",
    re.I,
)


_KO_UNIT = re.compile(
    r"단위\s*[:：]?\s*(?:KRW|USD|US\$|\$|₩)?\s*(조|십억|억|백만|천|)\s*(원|달러|USD|KRW)"
)


_PER_SHARE = re.compile(r"except[^)]{0,80}?per[\s-]+(?:common\s+|ordinary\s+)?share|주당", re.I)


_CURRENCY_WORDS = (
    (re.compile(r"\bkorean\s+won\b|\bKRW\b|₩|\bwon\b|원\)|원\s*$", re.I), "KRW"),
    (re.compile(r"\beuros?\b|\bEUR\b|€", re.I), "EUR"),
    (re.compile(r"\bpounds?\s+sterling\b|\bGBP\b|£", re.I), "GBP"),
    (re.compile(r"\byen\b|\bJPY\b|¥", re.I), "JPY"),
    (re.compile(r"\bu\.?\s?s\.?\s+dollars?\b|\bUSD\b|US\$|\bdollars?\b|\$", re.I), "USD"),
)


def _scale_of(text: str) -> str | None:
    m = _KO_UNIT.search(text)
    if m:
        return SCALE_WORDS[m.group(1)]
    m = _SCALE_RE.search(text)
    if m:
        word = next(g for g in m.groups() if g).lower()
        return _SCALES.get(word, _SCALES.get(word.rstrip("s"), ""))
    return None


def _currency_of(text: str) -> str | None:
    m = _KO_UNIT.search(text)
    if m:
        return "USD" if m.group(2) in ("달러", "USD") else "KRW"
    for pattern, code in _CURRENCY_WORDS:
        if pattern.search(text):
            return code
    return None


def _unit_phrase(text: str) -> str:
    """The parenthetical or phrase that states the scale ("(in millions, except per share data)")."""
    for paren in re.finditer(r"\(([^()]{0,120})\)", text):
        if _scale_of(paren.group(0)) is not None:
            return paren.group(0)
    m = _SCALE_RE.search(text) or _KO_UNIT.search(text)
    if m:
        return text[max(0, m.start() - 40) : m.end() + 40]
    return ""


def _units(heading: str, page: str) -> tuple[str, str]:
    """(unit, per-share unit) from the table's heading, else from the whole page."""
    phrase = _unit_phrase(heading) or _unit_phrase(page)
    scale = _scale_of(phrase) if phrase else None
    currency = _currency_of(phrase) if phrase else None
    if currency is None:
        # Not the heading's words: its prose may name any currency ("hedges of the South Korean
        # won"); the symbols the page prints say which its amounts are in.
        currency = _page_currency(page)
    unit = " ".join(p for p in (currency or "", scale or "") if p)
    per_share = (
        currency or "" if _PER_SHARE.search(phrase or "") or _PER_SHARE.search(heading) else ""
    )
    return unit, per_share


def _page_currency(page: str) -> str | None:
    """A currency only from symbols printed on the page; words in prose could name any currency.
    The symbol printed most often wins: a note that mentions a euro bond once does not make a
    dollar table euros."""
    counts = {
        code: page.count(sign)
        for sign, code in (("₩", "KRW"), ("€", "EUR"), ("£", "GBP"), ("$", "USD"))
    }
    best = max(counts, key=lambda c: counts[c])
    if counts[best]:
        return best
    if re.search(r"백만원|억원|천원|\(원\)", page):
        return "KRW"
    return None


# "(Amounts in Millions Except Treasury Stock Shares in Thousands)", "(shares in millions)"
_SHARES_IN = re.compile(
    r"\bshares?\s+(?:\w+\s+){0,2}in\s+(thousands|millions|billions)\b|"
    r"\b(thousands|millions|billions)\s+of\s+shares\b",
    re.I,
)


def _share_scale(heading: str) -> str:
    """The scale a heading gives share counts, when it gives them their own."""
    m = _SHARES_IN.search(heading)
    return next(g for g in m.groups() if g).lower() if m else ""


_PER_SHARE_ROW = re.compile(r"per\s+(?:\w+\s+){0,2}share|per[-\s]share|\beps\b|주당", re.I)


_SHARE_COUNT = re.compile(
    r"\b(?:restricted\s+)?stock\s+units\b|\bRSUs?\b|\bstock\s+options\b|\bshares\s+(?:used|outstanding)|weighted[\s-]+average\s+(?:number\s+of\s+)?(?:\w+\s+){0,2}shares|"
    r"\bnumber\s+of\s+(?:\w+\s+)?shares|\bshares\s+(?:issued|in\s+computing)|주식수|"
    r"\b(?:treasury|common|preferred|ordinary)\s+(?:stock\s+)?shares\b",
    re.I,
)


_COUNT_ROW = re.compile(
    r"\b(?:membership|members|claims(?:\s+processed)?|customers|subscribers|accounts\s+opened|"
    r"stores|locations|prescriptions|visits|connections|units\s+sold|policies\s+in\s+force)\b",
    re.I,
)


_HEADCOUNT = re.compile(
    r"^(?:total\s+|average\s+|number\s+of\s+)?(?:full[\s-]time\s+)?(?:employees|headcount|head\s+count|associates)\b|"
    r"\bheadcount\b|\bhead\s+count\b|\bnumber\s+of\b|\bemployees\s+at\b|임직원\s*수|직원\s*수|종업원\s*수|인원",
    re.I,
)


def _scale(table: Table) -> str:
    """The scale of the table's unit alone ("thousands" of "USD thousands"), "" when none."""
    last = table.unit.split()[-1] if table.unit else ""
    return last if last in _SCALES.values() else ""


def names_per_share(text: str) -> bool:
    """Does a label say its figure is per share, a price or a dividend ("Diluted earnings per
    share", "Closing stock price")?"""
    return bool(_PER_SHARE_ROW.search(text) or re.search(r"\bprices?\b|\bdividends?\b", text, re.I))


def cell_unit(table: Table, row: Row, column: int | None = None) -> str:
    """The unit of a row's values ("USD millions", "USD" per share, "%", "" for counts of people).

    Per-share rows take the per-share unit, share counts and headcounts take none (never a money
    unit), percentage cells "%", everything else the table's unit. With `column`, a percentage
    column ("% Change") or a cell printed with "%" reads as "%".
    """
    label, parent = row.label, row.parent
    if column is not None and 0 <= column < len(row.cells):
        cell = row.cells[column] or ""
        header = table.columns[column].header if column < len(table.columns) else ""
        if cell.endswith("%") or re.search(r"%|\bpercent", header, re.I):
            return "%"
        if re.search(r"\bshares\b", header, re.I) and not re.search(
            r"per\s+share|price|value|\$|amount", header, re.I
        ):
            return table.share_scale or _scale(table)  # a "Shares Granted" column counts shares
    money = bool(re.search(r"par\s+value|\$|at\s+cost|\bamount", label, re.I))
    if not money and (
        _SHARE_COUNT.search(label)
        or (not _PER_SHARE_ROW.search(label) and _SHARE_COUNT.search(parent))
    ):
        return table.share_scale or _scale(table)  # shares, in the table's (or their own) scale
    if _PER_SHARE_ROW.search(label) or (_PER_SHARE_ROW.search(parent) and not _money_words(label)):
        return table.per_share_unit
    if _HEADCOUNT.search(label) or (_HEADCOUNT.search(parent) and not _money_words(label)):
        return ""
    if (_COUNT_ROW.search(label) or _COUNT_ROW.search(parent)) and not _money_words(label):
        return _scale(table)  # members, claims, customers: the table's scale, never its currency
    printed = [c for c in row.cells if c]
    if (
        printed
        and all(c.endswith("%") or _DASH.match(c) for c in printed)
        and any(c.endswith("%") for c in printed)
    ):
        return "%"
    if re.search(
        r"^%|\(%\)|\bin\s+%|as\s+a\s+(?:%|percent(?:age)?)\s+of|\bpercent(?:age)?\b",
        label.strip(),
        re.I,
    ) or re.search(r"^(?:as\s+a\s+)?(?:%|percent(?:age)?)\s+of\b", parent.strip(), re.I):
        return "%"  # a row under "Percent of Net Sales:" is a share, whatever its label
    # a ratio or a rate is a percentage, not money ("Tier 1 capital ratio", "Effective tax rate",
    # "Return on equity"); "Interest rate swaps" and "Gross margin" are not caught: the word must end the label.
    # A row of amounts in thousands ("Differences between statutory rate and foreign rate  (215,490)") is
    # the money a rate difference makes, not a rate.
    small = all(abs(v) < 1000 for v in row.values if v is not None)
    if small and re.search(
        r"(?:\bratio|\brate|\byield)\s*(?:\([^)]*\))?$|^return\s+on\b", label.strip(), re.I
    ):
        return "%"
    return table.unit


def _money_words(label: str) -> bool:
    return bool(
        re.search(
            r"\b(?:cost|costs|expense|expenses|compensation|salaries|wages|benefits|paid|payments|"
            r"revenue|income|cash|amount)\b",
            label,
            re.I,
        )
    )

"""A table's units: scale and currency from its heading ("(in millions, except per share
amounts)", "(단위: 백만원)") or, failing that, the page, and the unit of one cell (per-share
figures, share and head counts, and the rows the heading's "except …" clause names keep their
own). A base-100 index (a stock performance graph's table) has none.
"""

from __future__ import annotations

import re

from evalset_pipeline.core.pagetext.korean import SCALE_WORDS, stated_units
from evalset_pipeline.core.reader.korean_units import (
    MONEY,
    PERCENT,
    QUANTITY,
    TOTAL_HEADER,
    korean_kind,
    spaced_out,
)
from evalset_pipeline.core.reader.row_labels import FUNCTION_WORDS, norm_words
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
    r"(?:us\$|\$|€|£|¥)\s?(m|mn|bn|k|000|'000)(?![a-z])|"
    # "$ million", "US$ millions": the symbol and the scale word with no "in" or parenthesis
    r"(?:us\$|\$|€|£|¥)\s?(thousand|million|billion|trillion)s?\b",
    re.I,
)


# "(단위 : 백만원)", and the money of "(단위 : 톤, 백만원)" after the units it lists first
_KO_UNIT = re.compile(
    r"단위\s*[:：]?\s*(?:[^\d(),:]{1,10}(?:\([^()]*\))?\s*,\s*)*"
    r"(?:KRW|USD|US\$|\$|₩)?\s*(조|십억|억|백만|천|)\s*(원|달러|USD|KRW)"
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


def _units(heading: str, page: str) -> tuple[str, str, tuple[str, ...]]:
    """(unit, per-share unit, the rows exempted from the scale) from the table's heading, else
    from the whole page. A Korean heading's own unit line that names no money ("(단위 : 사)",
    "(단위 : 톤(tCO2-eq))") leaves the table without one: the page's other lines are other tables'."""
    own = stated_units(heading)
    if own and not any(_KO_UNIT.search(f"단위: {w}") for w in own[-1]):
        return "", "", ()
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
    return unit, per_share, exceptions_of(phrase)


# "(in thousands, except per share data and revenue per membership)", "(in millions, except per
# share amounts, ratios and number of stores)": the clause names the rows the scale is not for.
_EXCEPT = re.compile(r"\bexcept(?:\s+for)?\s+([^()]*)", re.I)


# "except as noted", "except where otherwise indicated": a clause that names no rows
_VAGUE = re.compile(
    r"(?i)\b(?:as|where|when|if|unless|otherwise|noted|indicated|stated|specified|disclosed)\b"
)


def exceptions_of(phrase: str) -> tuple[str, ...]:
    """The rows a unit phrase exempts from its scale, as it names them ("per share data",
    "revenue per membership"): its "except …" clause split at commas and "and". A part that
    gives its own scale ("shares in thousands") is `_share_scale`'s, not an exception."""
    m = _EXCEPT.search(phrase)
    if m is None:
        return ()
    out = []
    for part in re.split(r",|;|&|\band\b", m.group(1)):
        part = " ".join(part.split()).strip(" .").lower()
        if part and not _VAGUE.search(part) and _scale_of(f"({part})") is None:
            out.append(part)
    return tuple(out)


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
    # A Korean page's "95백만원" in prose names no table's unit: a table without a unit line takes
    # its document's (`table_page.dated_page`), or none.
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
    r"\b(?:memberships?|members|claims(?:\s+processed)?|customers|subscribers|accounts\s+opened|"
    r"stores|locations|prescriptions|visits|connections|units\s+sold|policies\s+in\s+force)\b",
    re.I,
)


# "Paid memberships", "paid subscribers": "paid" says which are counted, not an amount paid.
_PAID_COUNT = re.compile(r"(?i)\bpaid\s+(?=(?:memberships?|members|subscribers|customers)\b)")


_HEADCOUNT = re.compile(
    r"^(?:total\s+|average\s+|number\s+of\s+)?(?:full[\s-]time\s+)?(?:employees|headcount|head\s+count|associates)\b|"
    r"\bheadcount\b|\bhead\s+count\b|\bnumber\s+of\b|\bemployees\s+at\b|임직원\s*수|직원\s*수|종업원\s*수|인원",
    re.I,
)


# A label of an amount among share rows: "Common stock, $0.01 par value", "Treasury stock, at
# cost", and one that counts its shares in words ("Treasury shares (1 and 2 million shares,
# respectively)") prints their amount.
_MONEY_LABEL = re.compile(
    r"par\s+value|\$|at\s+cost|\bamount|\d\s+(?:(?:million|thousand|billion)\s+)?shares", re.I
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
        kind = korean_cell_kind(table, row, column)
        if kind == PERCENT or (table.stated == ("%",) and kind not in (MONEY, QUANTITY)):
            return "%"
        if kind == MONEY:
            return table.unit
        if kind or (table.measures and table.unit):
            # counted or measured ("직원수", "수량"), or under "(단위 : 톤, 백만원)" with nothing
            # to say which: never the money unit
            return ""
        if re.search(r"\bshares\b", header, re.I) and not re.search(
            r"per\s+share|price|value|\$|amount", header, re.I
        ):
            return table.share_scale or _scale(table)  # a "Shares Granted" column counts shares
        if _HEADCOUNT.search(header.strip()) and not _money_words(header):
            return ""  # an "Employees" column counts people, whatever the table's money unit
    # An EPS computation's "Numerator" is the earnings (the table's unit), its "Denominator" the
    # shares, though both labels end in "per share".
    if _NUMERATOR.match(label):
        return table.unit
    if _DENOMINATOR.match(label):
        return table.share_scale or _scale(table)
    money = bool(_MONEY_LABEL.search(label))
    if not money and (
        _SHARE_COUNT.search(label)
        or (not _PER_SHARE_ROW.search(label) and _SHARE_COUNT.search(parent))
    ):
        if not table.share_scale and _exemption(table, label, parent) == "count":
            return ""  # "(in thousands, except share and per share data)": shares as printed
        return table.share_scale or _scale(table)  # shares, in the table's (or their own) scale
    if _PER_SHARE_ROW.search(label) or (_PER_SHARE_ROW.search(parent) and not _money_words(label)):
        return table.per_share_unit
    kind = _exemption(table, label, parent)
    if kind == "money":
        return _currency(table)  # "revenue per membership" of "(in thousands, except …)": dollars
    if kind == "percent":
        return "%"
    if kind == "count" and not _prints_percent(row):
        return ""  # "number of stores" of "(in millions, except … number of stores)": as printed
    if _HEADCOUNT.search(label) or (_HEADCOUNT.search(parent) and not _money_words(label)):
        return ""
    if (_COUNT_ROW.search(label) or _COUNT_ROW.search(parent)) and not _money_words(
        _PAID_COUNT.sub("", label)
    ):
        return _scale(table)  # members, claims, customers: the table's scale, never its currency
    if _prints_percent(row):
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
    if small and (
        re.search(
            r"(?:\bratio|\brate|\byield)\s*(?:\([^)]*\))?$|^return\s+on\b", label.strip(), re.I
        )
        # "Weighted-average interest rate of loans with …": the head phrase names the rate
        or _RATE_HEAD.search(_HEAD_PHRASE.split(label.strip(), maxsplit=1)[0])
    ):
        return "%"
    return table.unit


def korean_cell_kind(table: Table, row: Row, column: int) -> str:
    """What a Korean table's cell is (`korean_units.korean_kind`) by its column's header, else its
    row's label or section; a total column ("합계") counts what the column left of it counts; under
    a unit line naming money and a measure ("(단위 : 톤, 백만원)"), the table's title says which
    ("배출권 수량의 변동")."""
    header = table.columns[column].header if column < len(table.columns) else ""
    kind = korean_kind(header)
    last = spaced_out(header).split()[-1:]  # "2024년 합 계": the words after its period
    if not kind and last and TOTAL_HEADER.match(last[0]) and column > 0:
        kind = korean_kind(table.columns[column - 1].header)
        kind = kind if kind not in (PERCENT, MONEY) else ""
    if not kind:
        kind = korean_kind(row.label, header=False) or korean_kind(row.parent, header=False)
    if not kind and table.measures and table.unit:
        title = korean_kind(f"{table.title} {table.subject}", header=False)
        kind = title if title in (MONEY, QUANTITY) else ""
    return kind


def cell_counter(table: Table, row: Row, column: int) -> str:
    """The counter a Korean cell is counted in ("명" of a "직원수" column, "톤" of a "수량" column
    under "(단위 : 톤, 백만원)", the unit line's own "명"); "" for money, percentages and figures
    nothing counts."""
    kind = korean_cell_kind(table, row, column)
    if kind in (PERCENT, MONEY):
        return ""
    if kind == QUANTITY:
        return table.measures[0] if len(table.measures) == 1 else table.counter
    if kind:
        return kind
    if cell_unit(table, row, column):
        return ""
    if table.counter:
        return table.counter
    # "(단위 : 주, %)": a figure not printed as a percentage is in the one counter
    return table.measures[0] if len(table.measures) == 1 and not table.unit else ""


_NUMERATOR = re.compile(r"^\s*numerator\b", re.I)
_DENOMINATOR = re.compile(r"^\s*denominator\b", re.I)
# A label's head phrase ends before its first preposition or punctuation: "Weighted-average
# interest rate | of loans with interest rate reductions – after TDR".
_HEAD_PHRASE = re.compile(r"\s+(?:of|on|for|from|to|in|with|after|before|under)\s+|[,(:;–—]")
_RATE_HEAD = re.compile(r"\b(?:interest|discount|tax|growth|attrition|turnover)\s+rates?$", re.I)


def _money_words(label: str) -> bool:
    return bool(
        re.search(
            r"\b(?:cost|costs|expense|expenses|compensation|salaries|wages|benefits|paid|payments|"
            r"revenue|income|cash|amount)\b",
            label,
            re.I,
        )
    )


def _prints_percent(row: Row) -> bool:
    """Every printed cell of the row is a percentage (or a dash)."""
    printed = [c for c in row.cells if c]
    return (
        bool(printed)
        and all(c.endswith("%") or _DASH.match(c) for c in printed)
        and any(c.endswith("%") for c in printed)
    )


def _currency(table: Table) -> str:
    """The currency of the table's unit without its scale ("USD" of "USD thousands")."""
    return " ".join(w for w in table.unit.split() if w not in _SCALES.values())


# Words an exception names its rows with that no row label repeats ("per share data", "number
# of stores" of "Stores at end of year").
_VAGUE_NOUNS = frozenset("data amounts amount information figures numbers number items".split())


def _stems(text: str) -> set[str]:
    """The words a row label and an exception are matched by: function and vague words aside,
    a plural's "s" aside ("ratios" names "Current ratio")."""
    return {_stem(w) for w in norm_words(text).split() if w not in FUNCTION_WORDS | _VAGUE_NOUNS}


def _stem(word: str) -> str:
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


def _exception_kind(phrase: str) -> str:
    """What an exempted row holds: money without the scale ("per share", "revenue per
    membership", "dividends"), a percentage ("ratios", "margins") or a count ("number of stores",
    "employees", "share")."""
    words = _stems(phrase)
    if "per" in words or _money_words(phrase) or names_per_share(phrase):
        return "money"
    if words & {"ratio", "percent", "percentage", "margin", "rate", "yield"}:
        return "percent"
    return "count"


# A row about money or a share of something counted ("Store operating expenses", "Comparable
# store sales", "Common stock, $0.01 par value; 2,000 shares authorized") is not the count
# ("number of stores", "share data").
_NOT_A_COUNT = re.compile(
    r"\b(?:sales?|prices?|dividends?|margins?|rates?|ratios?|percent\w*|growth|changes?|stock|"
    r"capital|par\s+value|at\s+cost)\b",
    re.I,
)


def _exemption(table: Table, label: str, parent: str) -> str:
    """The kind (`_exception_kind`) of the heading's exception a row names by its label, else by
    its parent; "" when it names none. A row names one when it holds all its words; the most
    specific one wins ("per share" over "share"), and a row about something per X ("Net sales
    per store") does not name X ("number of stores")."""
    if not table.exceptions:
        return ""
    for text in (label, parent):
        words = _stems(text)
        named = [
            (len(need), phrase, need)
            for phrase in table.exceptions
            if (need := _stems(phrase)) and need <= words and ("per" in need or "per" not in words)
        ]
        if not named:
            continue
        _, phrase, need = max(named)
        kind = _exception_kind(phrase)
        rest = " ".join(w for w in norm_words(label).split() if _stem(w) not in need)
        if kind == "count" and (
            _money_words(rest) or _NOT_A_COUNT.search(rest) or _MONEY_LABEL.search(label)
        ):
            return ""
        return kind
    return ""


# What a stock performance graph's table is about: an index, a cumulative total return.
_INDEX_WORDS = re.compile(
    r"\bind(?:ex|ices)\b|\btotal\s+(?:shareholder\s+|stockholder\s+)?returns?\b|"
    r"\bperformance\s+graph\b",
    re.I,
)


def is_base_index(rows: tuple[Row, ...], heading: str) -> bool:
    """Is the table a set of indices based at 100 (a stock performance graph's cumulative total
    return of the company beside market and peer indices)? Its figures are points, in no currency
    or scale, whatever the page's money is in. Two rows or more, most of them, start at 100 (or
    end at it, the years printed newest first; or, the years down the side, the first or last
    year's row is 100 throughout), and the heading or a row speaks of an index or a total
    return."""
    series = [[v for v in r.values if v is not None] for r in rows]
    series = [s for s in series if len(s) >= 2]
    if not series:
        return False
    based = max(sum(s[0] == 100 for s in series), sum(s[-1] == 100 for s in series))
    base_year = any(all(v == 100 for v in s) for s in (series[0], series[-1]))
    if not base_year and (based < 2 or 2 * based < len(series)):
        return False
    return bool(_INDEX_WORDS.search(heading) or any(_INDEX_WORDS.search(r.label) for r in rows))

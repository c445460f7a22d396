"""Read one page's text layer into structured facts, the way a model looking at the page would.

The `textlayer` backend stands in for a vision-language model, so it obeys the same rule a model
does: it sees ONE page (here, its text layer: words with positions) and nothing else. It never
reads the corpus sidecar. Everything below is inferred from the layout of the words:

  - bands: running header (top ~8%), footer (bottom ~8%), title block (down to ~22%)
  - kind: a table (rows whose first cell is a label followed by numbers), a chart (a row of
    category labels each with a number above it), prose (long lines), a cover (few short lines,
    large type, no numbers besides dates), else other
  - series: segment -> (display value with unit, float), paired by x position for charts, read
    from rows for tables and from sentences for prose

It must never crash on a real-world page: any failure degrades to kind "other" with no series.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from evalset_pipeline.core.pagetext.periods import find_periods, parse_periods
from evalset_pipeline.core.pagetext.text import (
    HANGUL_LETTERS,
    HANGUL_SYLLABLES,
    clean_text,
    number_value,
    parse_number,
)

__all__ = [
    "SeriesValue",
    "PageFacts",
    "TextItem",
    "read_page",
    "metric_of",
    "METRIC_SYNONYMS",
    "parse_number",
    "language_of",
]

KINDS = ("chart", "table", "prose", "cover", "other")

# Canonical metric key -> surface forms (EN + KO). Longer forms first so "operating income"
# is not read as something shorter.
METRIC_SYNONYMS: dict[str, tuple[str, ...]] = {
    "operating income": (
        "operating income",
        "operating profit",
        "income from operations",
        "ebit",
        "영업이익",
        "영업 이익",
    ),
    "revenue": (
        "net revenues",
        "net revenue",
        "revenues",
        "revenue",
        "net sales",
        "sales",
        "turnover",
        "매출액",
        "매출",
    ),
    "headcount": (
        "headcount",
        "head count",
        "number of employees",
        "employee count",
        "employees",
        "임직원 수",
        "임직원수",
        "직원 수",
        "종업원 수",
        "인원",
    ),
}
_METRIC_PATTERNS: list[tuple[re.Pattern[str], str]] = sorted(
    (
        (
            re.compile(
                r"(?<![A-Za-z])" + re.escape(form).replace(r"\ ", r"\s*") + r"(?![A-Za-z])", re.I
            ),
            key,
        )
        for key, forms in METRIC_SYNONYMS.items()
        for form in forms
    ),
    key=lambda pk: -len(pk[0].pattern),
)


class SeriesValue(NamedTuple):
    """A value as the page prints it (with its unit) and as a number."""

    display: str
    value: float


@dataclass(frozen=True)
class TextItem:
    """A run of words on one line with no large gap inside (a cell, a label, a line of prose)."""

    text: str
    x0: float
    y0: float
    x1: float
    y1: float

    @property
    def size(self) -> float:
        return self.y1 - self.y0

    @property
    def cx(self) -> float:
        return (self.x0 + self.x1) / 2

    @property
    def cy(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass(frozen=True)
class PageFacts:
    """What one page states, as read from its text layer alone."""

    language: str = "en"
    kind: str = "other"
    title: str = ""
    metric: str | None = None
    entity: str = ""
    entity_candidates: tuple[str, ...] = ()
    periods: tuple[str, ...] = ()  # every period mentioned, in reading order
    reporting_periods: tuple[str, ...] = ()  # periods the page is about (header / title block)
    restated: bool = False
    unit: str = ""
    series: dict[str, SeriesValue] = field(default_factory=dict)  # segment -> current value
    prior: dict[str, SeriesValue] = field(
        default_factory=dict
    )  # segment -> prior-year value (tables)
    yoy: dict[str, SeriesValue] = field(
        default_factory=dict
    )  # segment -> YoY change in % (tables, prose)
    total: SeriesValue | None = None  # a total the page states (prose, table total rows)
    total_yoy: SeriesValue | None = None
    prior_period: str = (
        ""  # period of the comparative column `prior` holds (tables), "" when unknown
    )
    text: str = ""  # body text in reading order

    def segment_key(self, name: str) -> str | None:
        """The page's own spelling of a segment name, matched loosely (case, width, spaces)."""
        wanted = clean_text(name, casefold=True)
        for key in self.series:
            if clean_text(key, casefold=True) == wanted:
                return key
        return None


# --- text layer -------------------------------------------------------------------------------------


_HANGUL = re.compile("[" + HANGUL_LETTERS + "]")  # jamo count: a text layer prints some apart
_LATIN = re.compile(r"[A-Za-z]")


def language_of(text: str) -> str:
    """'ko' when Hangul letters outnumber Latin letters, else 'en'."""
    hangul = len(_HANGUL.findall(text))
    return "ko" if hangul and hangul >= len(_LATIN.findall(text)) else "en"


def metric_of(text: str) -> str | None:
    """Canonical metric named in a text (the earliest mention wins; longest form at a position)."""
    best: tuple[int, int, str] | None = None
    for pattern, key in _METRIC_PATTERNS:
        m = pattern.search(text)
        if m and (best is None or (m.start(), -(m.end() - m.start())) < (best[0], best[1])):
            best = (m.start(), -(m.end() - m.start()), key)
    return best[2] if best else None


_NUMBER = re.compile(r"[+\-−]?\(?\d[\d,]*(?:\.\d+)?\)?")
# --- layout -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class _Layout:
    width: float
    height: float
    header: list[TextItem]
    footer: list[TextItem]
    title_block: list[TextItem]
    body: list[TextItem]

    @property
    def content(self) -> list[TextItem]:
        return self.title_block + self.body


def _items(words: Iterable[Any]) -> list[TextItem]:
    """Group words into lines (block, line) and split a line wherever a gap is wider than ~1 em."""
    lines: dict[tuple[int, int], list[tuple[float, float, float, float, str]]] = {}
    for w in words:
        if len(w) < 7:
            continue
        x0, y0, x1, y1 = (float(v) for v in w[:4])
        lines.setdefault((int(w[5]), int(w[6])), []).append((x0, y0, x1, y1, str(w[4])))
    items: list[TextItem] = []
    for line in lines.values():
        line.sort(key=lambda t: t[0])
        run = [line[0]]
        for word in line[1:]:
            height = max(word[3] - word[1], 1.0)
            if word[0] - run[-1][2] > 0.8 * height:
                items.append(_item(run))
                run = []
            run.append(word)
        items.append(_item(run))
    items.sort(key=lambda it: (round(it.cy / 3), it.x0))
    return items


def _item(run: list[tuple[float, float, float, float, str]]) -> TextItem:
    return TextItem(
        " ".join(w[4] for w in run),
        min(w[0] for w in run),
        min(w[1] for w in run),
        max(w[2] for w in run),
        max(w[3] for w in run),
    )


def _layout(layer: dict[str, Any]) -> _Layout:
    items = _items(layer.get("words") or [])
    height = float(layer.get("height") or max((it.y1 for it in items), default=1.0))
    width = float(layer.get("width") or max((it.x1 for it in items), default=1.0))
    header = [it for it in items if it.cy < 0.08 * height]
    footer = [it for it in items if it.cy > 0.92 * height]
    rest = [it for it in items if 0.08 * height <= it.cy <= 0.92 * height]
    title_block = [it for it in rest if it.y1 < 0.22 * height]
    body = [it for it in rest if it.y1 >= 0.22 * height]
    return _Layout(width, height, header, footer, title_block, body)


def _rows(items: list[TextItem], tol: float = 3.0) -> list[list[TextItem]]:
    """Items sharing a vertical centre (within `tol`), left to right; rows top to bottom."""
    rows: list[list[TextItem]] = []
    for it in sorted(items, key=lambda i: i.cy):
        if rows and abs(rows[-1][0].cy - it.cy) <= tol:
            rows[-1].append(it)
        else:
            rows.append([it])
    return [sorted(r, key=lambda i: i.x0) for r in rows]


def _is_numeric(item: TextItem) -> bool:
    return parse_number(item.text) is not None


def _strip_periods(text: str) -> str:
    for m in reversed(find_periods(text)):
        text = text[: m.start] + text[m.end :]
    return text


# --- units --------------------------------------------------------------------------------------------


def _money_unit(m: re.Match[str]) -> str:
    scale = "m" if m.group(2).lower() in ("m", "mn", "million") else "bn"
    return f"{m.group(1).upper()} {scale}"


# (pattern, how to turn the match into the page's unit), most explicit first.
_UNIT_PATTERNS: list[tuple[re.Pattern[str], Callable[[re.Match[str]], str]]] = [
    (re.compile(r"단위\s*[:：]\s*([^\s.,;)]+)"), lambda m: m.group(1)),
    (re.compile(r"\b(USD|EUR|GBP|KRW|US\$)\s?(m|mn|million|bn|billion)\b", re.I), _money_unit),
    (re.compile(r"\b(employees|FTEs?)\b", re.I), lambda m: "employees"),
    (re.compile(r"\d(억원|백만원|조원|명)"), lambda m: m.group(1)),
]


def _unit_of(text: str) -> str:
    for pattern, convert in _UNIT_PATTERNS:
        m = pattern.search(text)
        if m:
            return convert(m)
    return ""


def _display(number_text: str, unit: str) -> str:
    if not unit:
        return number_text
    return f"{number_text}{unit}" if _HANGUL.search(unit) else f"{number_text} {unit}"


def _pct(value: float) -> SeriesValue:
    return SeriesValue(f"{value:+.1f}%", value)


# --- kinds --------------------------------------------------------------------------------------------


@dataclass
class _Series:
    series: dict[str, SeriesValue] = field(default_factory=dict)
    prior: dict[str, SeriesValue] = field(default_factory=dict)
    yoy: dict[str, SeriesValue] = field(default_factory=dict)
    total: SeriesValue | None = None
    total_yoy: SeriesValue | None = None
    prior_period: str = (
        ""  # the period heading the prior (comparative) column, when the header says
    )


_TOTAL_LABEL = re.compile(r"^(?:group\s+)?total|^합계$|^총계$|^전체$", re.I)
_YOY_HEADER = re.compile(r"yoy|y/y|change|chg|growth|%|증감|변동|성장", re.I)


def _read_table(body: list[TextItem], unit: str) -> _Series | None:
    """Rows whose first cell is a label followed by >= 2 numbers, under a header row."""
    rows = _rows(body)
    data = [
        (i, r)
        for i, r in enumerate(rows)
        if len(r) >= 3 and not _is_numeric(r[0]) and sum(_is_numeric(c) for c in r[1:]) >= 2
    ]
    if len(data) < 2:
        return None
    left = data[0][1][0].x0
    data = [(i, r) for i, r in data if abs(r[0].x0 - left) <= 8]
    if len(data) < 2:
        return None
    header = next((rows[i] for i in range(data[0][0] - 1, -1, -1) if len(rows[i]) >= 3), None)
    columns = _table_columns(header, data[0][1])
    out = _Series(prior_period=_prior_period(header))
    for _, row in data:
        label = row[0].text.strip()
        cells = _assign_cells(row[1:], columns)
        current, prior, change = cells.get("current"), cells.get("prior"), cells.get("yoy")
        if current is None:
            continue
        value = SeriesValue(
            _display(current.text, unit) if not current.text.endswith("%") else current.text,
            parse_number(current.text) or 0.0,
        )
        if _TOTAL_LABEL.match(label):
            out.total = value
            if change is not None and parse_number(change.text) is not None:
                out.total_yoy = _pct(parse_number(change.text) or 0.0)
            continue
        out.series[label] = value
        if prior is not None and parse_number(prior.text) is not None:
            out.prior[label] = SeriesValue(
                _display(prior.text, unit), parse_number(prior.text) or 0.0
            )
        if change is not None and parse_number(change.text) is not None:
            out.yoy[label] = _pct(parse_number(change.text) or 0.0)
    return out if len(out.series) >= 2 else None


def _table_columns(header: list[TextItem] | None, first_row: list[TextItem]) -> dict[str, float]:
    """Column role -> x centre: current quarter, prior-year quarter, YoY change.

    Period columns are told apart by their header (the later period is the current one); without
    a readable header the order segment | current | prior | change is assumed.
    """
    numeric = [c for c in first_row[1:] if _is_numeric(c)]
    columns: dict[str, float] = {}
    if header:
        parsed = [(parse_periods(h.text), h) for h in header[1:]]
        dated = [(p[0], h) for p, h in parsed if p]
        if dated:
            dated.sort(key=lambda ph: _period_sort_key(ph[0]), reverse=True)
            columns["current"] = dated[0][1].cx
            if len(dated) > 1:
                columns["prior"] = dated[1][1].cx
        change = next(
            (h for h in header[1:] if _YOY_HEADER.search(h.text) and not parse_periods(h.text)),
            None,
        )
        if change is not None:
            columns["yoy"] = change.cx
    if "current" not in columns and numeric:
        plain = [c for c in numeric if not c.text.endswith("%")]
        if plain:
            columns["current"] = plain[0].cx
        if len(plain) > 1:
            columns["prior"] = plain[1].cx
    if "yoy" not in columns:
        pct = [c for c in numeric if c.text.endswith("%")]
        if pct:
            columns["yoy"] = pct[0].cx
    return columns


def _prior_period(header: list[TextItem] | None) -> str:
    """The second-latest period a table's header names (its comparative column), else ""."""
    if not header:
        return ""
    dated = sorted(
        {p[0] for p in (parse_periods(h.text) for h in header[1:]) if p},
        key=_period_sort_key,
        reverse=True,
    )
    return dated[1] if len(dated) > 1 else ""


def _period_sort_key(canonical: str) -> tuple[int, int]:
    return int(canonical[:4]), int(canonical[-1]) if len(canonical) > 4 else 9


def _assign_cells(cells: list[TextItem], columns: dict[str, float]) -> dict[str, TextItem]:
    """Each column role takes the numeric cell nearest its header (right-aligned numbers drift)."""
    out: dict[str, TextItem] = {}
    numeric = [c for c in cells if _is_numeric(c)]
    for role, x in columns.items():
        if not numeric:
            break
        best = min(numeric, key=lambda c: min(abs(c.cx - x), abs(c.x1 - x), abs(c.x0 - x)))
        out[role] = best
    return out


def _read_chart(body: list[TextItem], unit: str) -> _Series | None:
    """A row of >= 2 category labels, each with a number label above it at the same x."""
    numbers = [it for it in body if _is_numeric(it)]
    best: dict[str, SeriesValue] = {}
    for row in _rows([it for it in body if not _is_numeric(it)]):
        if len(row) < 2:
            continue
        pairs: dict[str, SeriesValue] = {}
        for label in row:
            reach = max(label.x1 - label.x0, 20.0) / 2 + 12
            above = [n for n in numbers if n.cy < label.cy and abs(n.cx - label.cx) <= reach]
            if not above:
                continue
            value = max(above, key=lambda n: n.cy)  # the number nearest above the label
            number = parse_number(value.text)
            if number is not None:
                pairs[label.text.strip()] = SeriesValue(_display(value.text, unit), number)
        if len(pairs) >= 2 and len(pairs) >= 0.6 * len(row) and len(pairs) > len(best):
            best = pairs
    if not best:
        best = _read_bars(body, unit)
    return _Series(series=best) if best else None


def _read_bars(body: list[TextItem], unit: str) -> dict[str, SeriesValue]:
    """A horizontal bar chart: category labels down one left edge, each row's one number to the
    right of its label (printed beside the bar's end, so the numbers share no column)."""
    rows = [
        r
        for r in _rows(body)
        if len(r) == 2
        and not _is_numeric(r[0])
        and any(c.isalpha() for c in r[0].text)
        and _is_numeric(r[1])
        and r[1].x0 > r[0].x1
    ]
    if len(rows) < 2:
        return {}
    left = min(r[0].x0 for r in rows)
    rows = [r for r in rows if abs(r[0].x0 - left) <= 8]
    out: dict[str, SeriesValue] = {}
    for label, value in rows:
        number = parse_number(value.text)
        if number is not None:
            out[label.text.strip()] = SeriesValue(_display(value.text, unit), number)
    # most of the body's rows are bars: a page of prose with two "label 12" lines is no chart
    return out if len(out) >= 2 and len(out) >= 0.6 * len(_rows(body)) else {}


_NUM = r"[+\-]?\d[\d,]*(?:\.\d+)?"
_UNIT_TEXT = r"(?:USD|EUR|KRW|US\$)\s?(?:m|mn|million|bn|billion)\b|employees|억원|백만원|조원|명"
_EN_TOTAL = re.compile(
    r"(?P<dir>rose|increased|grew|fell|decreased|declined)\s+(?:by\s+)?(?P<pct>\d+(?:\.\d+)?)%\s+"
    r"(?:year over year|year-over-year|yoy|y/y)\s+to\s+(?P<num>"
    + _NUM
    + r")\s*(?P<unit>"
    + _UNIT_TEXT
    + ")?",
    re.I,
)
_KO_TOTAL = re.compile(
    r"전년\s*동기\s*대비\s*(?P<pct>\d+(?:\.\d+)?)%\s*(?P<dir>증가|감소|성장|하락)한\s*(?P<num>"
    + _NUM
    + r")\s*(?P<unit>"
    + _UNIT_TEXT
    + ")?"
)
_CLAUSE = re.compile(
    r"^(?P<seg>\S.*?)\s+(?:contributed\s+|was\s+|at\s+|of\s+|reached\s+)?(?P<num>"
    + _NUM
    + r")\s*(?P<unit>"
    + _UNIT_TEXT
    + r")?\s*(?:\(\s*(?P<yoy>[+\-]?\d+(?:\.\d+)?)\s*%[^)]*\))?\s*(?:입니다|이다|였습니다)?\s*[.。]?$",
    re.I,
)
_SEGMENT_LIST = re.compile(
    r"^(?:by segment|by division|by business|segment-wise)\s*,?\s*|^부문별로는\s*|^사업부별로는\s*",
    re.I,
)
_SENTENCE_SPLIT = re.compile(r"(?<=[.!?。])\s+(?=[A-Z" + HANGUL_SYLLABLES + r"])")


def _read_prose(text: str, unit: str) -> _Series:
    """Totals and per-segment figures from sentences ('By segment, Cloud contributed 720.3 USD m (+8.3% YoY), …')."""
    out = _Series()
    m = _EN_TOTAL.search(text) or _KO_TOTAL.search(text)
    if m:
        sign = (
            -1.0 if m["dir"].lower() in ("fell", "decreased", "declined", "감소", "하락") else 1.0
        )
        total_unit = m["unit"] or unit
        out.total = SeriesValue(
            _display(m["num"], _canonical_unit(total_unit)), number_value(m["num"])
        )
        out.total_yoy = _pct(sign * float(m["pct"]))
    for sentence in _SENTENCE_SPLIT.split(text):
        head = _SEGMENT_LIST.match(sentence.strip())
        if not head:
            continue
        listing = sentence.strip()[head.end() :]
        for clause in re.split(r",\s+(?:and\s+)?|\s+and\s+|,\s*및\s+|\s+및\s+", listing):
            cm = _CLAUSE.match(clause.strip())
            if not cm:
                continue
            segment = cm["seg"].strip()
            clause_unit = _canonical_unit(cm["unit"] or unit)
            out.series[segment] = SeriesValue(
                _display(cm["num"], clause_unit), number_value(cm["num"])
            )
            if cm["yoy"] is not None:
                out.yoy[segment] = _pct(float(cm["yoy"]))
    return out


def _canonical_unit(unit: str) -> str:
    if not unit:
        return ""
    m = re.match(r"(USD|EUR|KRW|US\$)\s?(m|mn|million|bn|billion)", unit, re.I)
    if m:
        return (
            f"{m.group(1).upper()} {'m' if m.group(2).lower() in ('m', 'mn', 'million') else 'bn'}"
        )
    return unit.lower() if unit.isascii() else unit


def _is_prose(body: list[TextItem]) -> bool:
    long_lines = sum(1 for it in body if len(it.text.split()) >= 8)
    chars = sum(len(it.text) for it in body)
    return long_lines >= 2 or (long_lines >= 1 and chars >= 200)


def _is_cover(layout: _Layout) -> bool:
    body = layout.body
    if not body or len(body) > 8:
        return False
    numbers_left = any(re.search(r"\d", _strip_periods(it.text)) for it in body)
    largest = max(it.size for it in layout.body + layout.title_block)
    return not numbers_left and largest >= 0.05 * layout.height


# --- entry point ------------------------------------------------------------------------------------------


def read_page(text_layer: dict[str, Any]) -> PageFacts:
    """Structured facts of one page from its text layer; never raises (degrades to kind 'other')."""
    try:
        return _read_page(text_layer)
    except Exception:  # noqa: BLE001 - a real-world page must never crash the pipeline
        text = text_layer.get("text", "") if isinstance(text_layer, dict) else ""
        return PageFacts(language=language_of(text if isinstance(text, str) else ""), kind="other")


_RESTATED = re.compile(r"\brestated\b|\brestatement\b|정정|재작성", re.I)


def says_restated(text: str) -> bool:
    """Does a page say its figures are restated? (What the `revision` axis and qualifier read.)"""
    return bool(_RESTATED.search(text))


def _read_page(layer: dict[str, Any]) -> PageFacts:
    layout = _layout(layer)
    ordered = [*layout.header, *layout.title_block, *layout.body, *layout.footer]
    full_text = "\n".join(it.text for it in ordered) or str(layer.get("text") or "")
    body_text = " ".join(it.text for it in layout.body)
    language = language_of(full_text)
    content = layout.content
    title_item = max(content, key=lambda it: (round(it.size, 1), -it.y0), default=None)
    title = title_item.text if title_item else ""
    heading_text = " ".join(it.text for it in layout.title_block)
    metric = metric_of(title) or metric_of(heading_text) or metric_of(body_text)
    unit = _unit_of(" ".join(it.text for it in content))
    entity_candidates = _entity_candidates(layout)
    periods = tuple(parse_periods(full_text))
    top = " ".join(it.text for it in layout.header + layout.title_block)
    reporting = tuple(parse_periods(top)) or periods
    restated = says_restated(full_text)

    kind, series = _classify(layout, body_text, unit)
    if kind == "cover":
        metric = None
    return PageFacts(
        language=language,
        kind=kind,
        title=title,
        metric=metric,
        entity=entity_candidates[0] if entity_candidates else "",
        entity_candidates=entity_candidates,
        periods=periods,
        reporting_periods=reporting,
        restated=restated,
        unit=unit,
        series=series.series,
        prior=series.prior,
        yoy=series.yoy,
        total=series.total,
        total_yoy=series.total_yoy,
        prior_period=series.prior_period,
        text=full_text,
    )


def _classify(layout: _Layout, body_text: str, unit: str) -> tuple[str, _Series]:
    table = _read_table(layout.body, unit)
    if table is not None:
        return "table", table
    chart = _read_chart(layout.body, unit)
    if chart is not None:
        return "chart", chart
    if _is_prose(layout.body):
        return "prose", _read_prose(body_text, unit)
    if _is_cover(layout):
        return "cover", _Series()
    return "other", _Series()


_SEPARATORS = re.compile(r"\s+[·|•–—-]\s+|\s*[|·•]\s*")


def _entity_candidates(layout: _Layout) -> tuple[str, ...]:
    """Entity names as the page prints them: running-header text that is not a period, then
    fragments of the title block (e.g. the subtitle 'Acme Group · Quarter ended …')."""
    out: list[str] = []
    measures: list[str] = []
    sources = sorted(layout.header, key=lambda it: it.x0) + [it for it in layout.title_block]
    for item in sources:
        for fragment in _SEPARATORS.split(item.text):
            cleaned = _strip_periods(fragment).strip(" ,;:-·|")
            if cleaned and not re.fullmatch(r"[\d\s.,/%-]*", cleaned) and cleaned not in out:
                # "Net revenue by segment | Contoso Ltd. | Q3 2024": the fragment naming a measure
                # is what the page reports, not who; it goes last
                (measures if metric_of(cleaned) else out).append(cleaned)
    return tuple(out + [m for m in measures if m not in out])

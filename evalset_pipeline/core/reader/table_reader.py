"""Read financial tables from a page's text layer by word positions alone.

The offline `textlayer` backend sees a page as words with boxes (see core/pagetext/layer.py).
PyMuPDF's own find_tables() is slow on filings (seconds per page) and garbles characters, so
this reader rebuilds tables the way a reader's eye does:

  1. words -> visual lines, grouped by vertical centre across blocks (EDGAR/HTML PDFs put each
     cell in its own block);
  2. a line -> cells, split at gaps wider than about an em; dot leaders split too, a lone
     currency sign joins the number right of it;
  3. numbers right-align, so the right edges of numeric cells cluster into columns;
  4. the text lines just above the first data row whose cells sit over those columns are the
     column headers (a spanning header applies to every column under it; lines join top-down);
  5. the lines above the headers are the title; scale and currency come from the heading
     ("(in millions, except per share amounts)", "(단위: 백만원)") or, failing that, the page.

It never raises on a real page: any failure gives no tables.
"""

from __future__ import annotations

import bisect
import datetime
import functools
import itertools
import re
import statistics
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from evalset_pipeline.core.pagetext.fiscal import find_dates, named_quarter, parse_date
from evalset_pipeline.core.pagetext.korean import SCALE_WORDS, has_hangul, heading_subject
from evalset_pipeline.core.pagetext.page_reader import parse_number
from evalset_pipeline.core.pagetext.periods import MONTH_WORD
from evalset_pipeline.core.reader.korean_columns import korean_column

__all__ = [
    "Column",
    "Row",
    "Table",
    "read_tables",
    "cell_unit",
    "clean_label",
    "parse_value",
    "span_months",
    "names_per_share",
]


@dataclass(frozen=True)
class Column:
    index: int
    header: str
    months: int | None
    end: datetime.date | None
    year: int | None
    x0: float
    x1: float
    # Years before the filing's own period, for a column named relative to it ("당기말" 0, "전기" 1);
    # its date is the document's to give (`table_questions`), so end and year stay None.
    relative: int | None = None
    # A quarter named without its date ("1Q21", "Q4 2020"): (fiscal year, quarter), dated by the
    # filer's fiscal calendar (`table_questions.dated_page`); end and year stay None until then.
    quarter: tuple[int, int] | None = None


@dataclass(frozen=True)
class Row:
    label: str
    parent: str
    cells: tuple[str | None, ...]
    values: tuple[float | None, ...]
    indent: float
    is_total: bool
    y: float = 0.0  # vertical centre of the row's line on the page (PDF points)


@dataclass(frozen=True)
class Table:
    columns: tuple[Column, ...]
    rows: tuple[Row, ...]
    unit: str
    per_share_unit: str
    title: str
    top: float
    bottom: float
    subject: str = (
        ""  # the heading line a table sits under ("Optical Communications"), "" when none
    )
    share_scale: str = ""  # "thousands" of "(… except treasury stock shares in thousands)"


# --- words, lines, cells ------------------------------------------------------------------------


@dataclass
class _Word:
    x0: float
    y0: float
    x1: float
    y1: float
    text: str

    @property
    def height(self) -> float:
        return max(self.y1 - self.y0, 0.1)

    @property
    def yc(self) -> float:
        return (self.y0 + self.y1) / 2


@dataclass
class _Cell:
    words: list[_Word]

    @property
    def x0(self) -> float:
        return self.words[0].x0

    @property
    def x1(self) -> float:
        return self.words[-1].x1

    # A cell's words never change once it is made: its text and kind are read once (the table
    # reader asks for them hundreds of thousands of times on a filing).
    @functools.cached_property
    def text(self) -> str:
        return " ".join(w.text for w in self.words)

    @functools.cached_property
    def kind(self) -> str:
        return _kind(self.text)


@dataclass
class _Line:
    """A visual line, fixed once `_group_lines` has made it (so its measures are read once)."""

    words: list[_Word]
    cells: list[_Cell] = field(default_factory=list)

    @functools.cached_property
    def y0(self) -> float:
        return min(w.y0 for w in self.words)

    @functools.cached_property
    def y1(self) -> float:
        return max(w.y1 for w in self.words)

    @property
    def yc(self) -> float:
        return (self.y0 + self.y1) / 2

    @functools.cached_property
    def height(self) -> float:
        return _median_height(self.words)

    @functools.cached_property
    def text(self) -> str:
        return " ".join(c.text for c in self.cells)

    @functools.cached_property
    def is_data(self) -> bool:
        return _reads_as_data(self)


def _median_height(words: Sequence[_Word]) -> float:
    return statistics.median(w.height for w in words)


def _sorted_median(values: Sequence[float]) -> float:
    """`statistics.median` of a list already sorted."""
    n = len(values)
    mid = n // 2
    return values[mid] if n % 2 else (values[mid - 1] + values[mid]) / 2


_CURRENCY_SIGNS = ("US$", "$", "₩", "€", "£", "¥")
_DASHES = "—–-−‒―"
# A number cell as printed: optional sign or "(", digits with thousands commas, decimals, ")" and "%".
# Thousands groups are three digits: "31,2019" is a header's "December 31," run into "2019".
_NUMERIC = re.compile(
    r"^[+\-−]?\(?[+\-−]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?\s*\)?\s*%?\s*\)?$|^[+\-−]?\(?\.\d+\)?%?$"
)
_DASH = re.compile(r"^\(?[" + _DASHES + r"]{1,3}\)?\s*%?$")
_YEAR = re.compile(r"^(?:FY\s?|Fiscal\s+)?((?:19|20)\d{2})[A-Za-z]?$", re.I)
_LEADER = re.compile(r"(?:\s*\.){3,}|(?:\s*[·…_]){2,}")


# Format characters (soft hyphens, zero-width spaces, direction marks) are invisible on the page.
_INVISIBLE = re.compile("[\u00ad\u200b-\u200f\u202a-\u202e\u2060-\u2064\ufeff]")


def _norm(text: str) -> str:
    return re.sub(r"\s+", " ", _INVISIBLE.sub("", unicodedata.normalize("NFKC", text))).strip()


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


def _words_of(layer: dict[str, Any]) -> list[_Word]:
    out = []
    for w in layer.get("words") or []:
        try:
            text = _norm(str(w[4]))
            if text:
                out.append(_Word(float(w[0]), float(w[1]), float(w[2]), float(w[3]), text))
        except (IndexError, TypeError, ValueError):
            continue
    return out


def _group_lines(words: list[_Word]) -> list[_Line]:
    """Words whose vertical centres lie within ~40% of a word height share a visual line."""
    lines: list[_Line] = []
    # The growing line's centres and heights, kept sorted: its medians in O(1) per word.
    centres: list[float] = []
    heights: list[float] = []
    for w in sorted(words, key=lambda w: (w.yc, w.x0)):
        if lines and abs(w.yc - _sorted_median(centres)) <= 0.4 * max(
            w.height, _sorted_median(heights)
        ):
            lines[-1].words.append(w)
            bisect.insort(centres, w.yc)
            bisect.insort(heights, w.height)
            continue
        lines.append(_Line([w]))
        centres, heights = [w.yc], [w.height]
    for line in lines:
        line.words.sort(key=lambda w: w.x0)
        line.cells = _split_cells(line)
    return [ln for ln in lines if ln.cells]


def _split_cells(line: _Line) -> list[_Cell]:
    """Split at wide gaps, dot leaders and between two numbers; a lone "$" joins the next number."""
    em = line.height * 0.8  # a word box is ~1.2x the font size; an em is the font size
    cells: list[_Cell] = []
    current: list[_Word] = []
    force_break = False
    for w in line.words:
        text = _LEADER.sub(" ", w.text).strip()
        if not text:  # a word that is only a dot leader separates label from values
            force_break = True
            continue
        if text != w.text:
            force_break = force_break or w.text.rstrip().endswith(("..", "…", "·"))
            w = _Word(w.x0, w.y0, w.x1, w.y1, text)
        if current and not force_break and not _breaks(current[-1], w, em):
            current.append(w)
        else:
            if current:
                cells.append(_Cell(current))
            current = [w]
        force_break = False
        if text.endswith("..") or w.text.endswith(("…", "·")):
            force_break = True
    if current:
        cells.append(_Cell(current))
    return _merge_signs(cells)


def _breaks(prev: _Word, w: _Word, em: float) -> bool:
    gap = w.x0 - prev.x1
    pk, wk = _kind(prev.text), _kind(w.text)
    if w.text in (")", "%", ")%", "%)") and gap < em:  # a closing mark printed as its own word
        return False
    if pk == "currency" and wk in ("num", "dash"):
        return gap > 4 * em
    if (
        pk == "text"
        and _YEAR.match(w.text)
        and re.search(r"\d{1,2},?$|,$", prev.text)
        and gap < 3 * em
    ):
        return False  # "Balance at December 31, | 2015": the year ends the label's date
    if pk in ("num", "dash") and wk in ("num", "dash", "currency"):
        return True  # two numbers side by side are two cells, however close
    if pk in ("num", "dash") and wk == "text" and gap > 0.5 * em:
        return True
    return gap > em


def _merge_signs(cells: list[_Cell]) -> list[_Cell]:
    """A lone "$"/"₩"/"€" cell belongs to the number right of it."""
    out: list[_Cell] = []
    i = 0
    while i < len(cells):
        c = cells[i]
        if c.kind == "currency" and i + 1 < len(cells) and cells[i + 1].kind in ("num", "dash"):
            out.append(_Cell(c.words + cells[i + 1].words))
            i += 2
            continue
        if c.kind == "currency" and c.text.strip() in _CURRENCY_SIGNS:
            i += 1  # a "$" with no number beside it says only the currency, which the page already does
            continue
        out.append(c)
        i += 1
    return out


# --- labels -------------------------------------------------------------------------------------

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


_MONTH_NAMES = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
    "jan",
    "feb",
    "mar",
    "apr",
    "jun",
    "jul",
    "aug",
    "sep",
    "sept",
    "oct",
    "nov",
    "dec",
)


def clean_label(text: str) -> str:
    """Drop dot leaders, footnote marks, a leading "Less:" / "Plus:", a trailing ":" and extra spaces."""
    t = _LEADER.sub(" ", _norm(text))
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
        r"^(?:\(?(?:[IVX]{1,4}|\d{1,2}|[가-하])\s*[.)]|[\u2460-\u2473])\s*(?=[\uac00-\ud7a3])",
        "",
        t,
    )
    t = re.sub(r"\s*\((?:주석?\s*[\d,\s]+|\*\s*\d*|주\s*\d+)\)\s*$", "", t)
    # Letter-spaced labels ("매 출 액", "합 계") are the same words set wide.
    if re.fullmatch(r"(?:[\uac00-\ud7a3] )+[\uac00-\ud7a3]", t):
        t = t.replace(" ", "")
    # "Less: cash and cash equivalents" is a line of arithmetic; the figure is the cash itself.
    t = re.sub(r"^(?:less|plus|add|deduct)\b\s*:?\s+(?!than\b)(?=[A-Za-z])", "", t, flags=re.I)
    t = t[:1].upper() + t[1:] if t[:1].islower() and text.strip()[:1].isupper() else t
    return re.sub(r"\s+", " ", t).strip()


def _label_words(words: list[_Word], line_height: float) -> str:
    """The label's text, without trailing superscript footnote marks (smaller, raised words)."""
    kept = list(words)
    while len(kept) > 1:
        w = kept[-1]
        small = w.height < 0.8 * line_height and len(w.text) <= 4
        if small and re.fullmatch(r"\(?[\da-z*†‡,]{1,3}\)?", w.text):
            kept.pop()
        else:
            break
    return " ".join(w.text for w in kept)


def _is_total(label: str) -> bool:
    low = label.lower()
    return (
        low.startswith("total")
        or label.startswith(("합계", "총계"))
        or label.endswith(("합계", "총계"))
    )


# --- lines -> tables ----------------------------------------------------------------------------


def _value_cells(line: _Line) -> list[_Cell]:
    """Number/dash cells that are values (the first cell is the label unless numbers fill the line)."""
    cells = line.cells
    vals = [c for c in cells if c.kind in ("num", "dash")]
    if cells and cells[0].kind in ("num", "dash") and len(cells) == 1:
        return []  # a lone number on its own line (a page number, a note number) is not a row
    words = [c for c in cells if c.kind not in ("num", "dash")]
    if vals and words and max(v.x1 for v in vals) < min(w.x0 for w in words):
        return []  # "(1) Includes other income ...": a footnote's mark before its text, not a row
    return vals


def _is_year_line(line: _Line) -> bool:
    """A header line of bare years ("2023  2022", "Fiscal 2023  Fiscal 2022")."""
    years = [c for c in line.cells if _YEAR.match(c.text.strip())]
    if not years:
        return False
    others = [c for c in line.cells if c not in years]
    if any(c.kind in ("num", "dash") for c in others):
        return False
    return len(years) >= 2 or not others


def _is_data(line: _Line) -> bool:
    return line.is_data


def _reads_as_data(line: _Line) -> bool:
    vals = _value_cells(line)
    if not vals or _is_year_line(line):
        return False
    # "At January 1, 2023 and January 2, 2022": years inside dates are a heading, not amounts.
    return not (all(_YEAR.match(c.text) for c in vals) and find_dates(line.text))


_PERIOD_WORDS = re.compile(
    r"\b(?:months?|quarters?|years?|weeks?|ended|ending|as of|at|fiscal|december|january|february|march|april|"
    r"may|june|july|august|september|october|november|jan|feb|mar|apr|jun|jul|aug|sep|sept|oct|nov|dec|"
    r"change|unaudited|audited|actual|restated|total|q[1-4]|fy\d{2,4}|h[12])\b|\d{4}|%|당기|전기|분기|반기|기말|기초|년",
    re.I,
)


def _em(lines: Sequence[_Line]) -> float:
    return statistics.median(ln.height for ln in lines) * 0.8 if lines else 8.0


def _cluster_columns(data: list[_Line], em: float) -> list[tuple[float, float]]:
    """Right edges of numbers cluster into columns; (x0, x1) extents per column, left to right."""
    edges: list[tuple[float, float]] = []
    for line in data:
        for c in _value_cells(line):
            if c.kind == "num":
                edges.append((c.x1, c.x0))
    if not edges:
        for line in data:
            edges.extend((c.x1, c.x0) for c in _value_cells(line))
    edges.sort()
    groups: list[list[tuple[float, float]]] = []
    for e in edges:
        if groups and e[0] - groups[-1][-1][0] <= 0.9 * em:
            groups[-1].append(e)
        else:
            groups.append([e])
    # A lone right edge in a long table is a stray (a note number), not a column.
    minimum = 2 if len(data) >= 4 else 1
    kept = [g for g in groups if len(g) >= minimum] or groups
    return [
        (min(x0 for _, x0 in g), statistics.median(x1 for x1, _ in g)) for g in _merge_minor(kept)
    ]


def _merge_minor(groups: list[list[tuple[float, float]]]) -> list[list[tuple[float, float]]]:
    """A few cells printed off their column ("16.2%" under amounts) join the column they overlap."""
    out = [list(g) for g in groups]
    changed = True
    while changed and len(out) > 1:
        changed = False
        for k, g in enumerate(out):
            x0, x1 = min(e[1] for e in g), max(e[0] for e in g)
            for j in (k - 1, k + 1):
                if not 0 <= j < len(out) or len(g) * 3 > len(out[j]):
                    continue
                n0, n1 = min(e[1] for e in out[j]), max(e[0] for e in out[j])
                if _overlap(x0, x1, n0, n1) > 0:
                    out[j].extend(g)
                    del out[k]
                    changed = True
                    break
            if changed:
                break
    return out


def _column_of(cell: _Cell, cols: list[tuple[float, float]], em: float) -> int | None:
    """Numbers by right edge; dashes and text by overlap, else the nearest centre."""
    if cell.kind == "num":
        best = min(range(len(cols)), key=lambda i: abs(cols[i][1] - cell.x1))
        if abs(cols[best][1] - cell.x1) <= 1.5 * em:
            return best
    overlaps = [(_overlap(cell.x0, cell.x1, *cols[i]), i) for i in range(len(cols))]
    ov, i = max(overlaps)
    if ov > 0:
        return i
    centre = (cell.x0 + cell.x1) / 2
    best = min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - centre))
    width = cols[best][1] - cols[best][0]
    if abs((cols[best][0] + cols[best][1]) / 2 - centre) <= max(width, 3 * em):
        return best
    return None


def _overlap(a0: float, a1: float, b0: float, b1: float) -> float:
    return min(a1, b1) - max(a0, b0)


@dataclass
class _Block:
    """Consecutive data lines sharing one column layout, and the lines around them."""

    start: int  # index of the first data line in the page's lines
    end: int  # index of the last data line (inclusive)
    cols: list[tuple[float, float]] = field(default_factory=list)


def _is_header_like(line: _Line, cols: list[tuple[float, float]], em: float) -> bool:
    """Text over the numeric columns that names periods: a header line, not a section label."""
    if not cols or _is_data(line):
        return False
    left = cols[0][0] - 4 * em
    over = [c for c in line.cells if c.x1 > left and c.x0 >= left - em]
    if not over:
        return False
    if any(c.x0 < left - em and c.x1 > cols[0][0] for c in line.cells):
        return False  # a cell running from the label area across the columns is prose
    return _is_year_line(line) or any(_PERIOD_WORDS.search(c.text) for c in over)


def _blocks(lines: list[_Line], em: float) -> list[_Block]:
    """Runs of data lines; a new run where a header line interrupts or the columns change."""
    blocks: list[_Block] = []
    current: _Block | None = None
    gap_limit = 6 * em * 1.25
    for i, line in enumerate(lines):
        if current is not None and not _is_data(line):
            if _is_header_like(line, current.cols, em):
                blocks.append(current)
                current = None
            continue
        if not _is_data(line):
            continue
        if current is None:
            current = _Block(i, i, _cluster_columns([line], em))
            continue
        prev = lines[current.end]
        if line.y0 - prev.y1 > gap_limit or _layout_changes(lines, current, line, em):
            blocks.append(current)
            current = _Block(i, i, _cluster_columns([line], em))
            continue
        current.end = i
        current.cols = _cluster_columns(
            [ln for ln in lines[current.start : i + 1] if _is_data(ln)], em
        )
    if current is not None:
        blocks.append(current)
    return blocks


def _layout_changes(lines: list[_Line], block: _Block, line: _Line, em: float) -> bool:
    """A line with several numbers, most of them in none of the block's columns, starts a table."""
    vals = [c for c in _value_cells(line) if c.kind == "num"]
    rows = sum(1 for ln in lines[block.start : block.end + 1] if _is_data(ln))
    if len(vals) < 2 or rows < 2:
        return False
    misses = sum(
        1
        for c in vals
        if min(abs(c.x1 - x1) for _, x1 in block.cols) > 1.5 * em
        and not any(_overlap(c.x0, c.x1, x0, x1) > 0 for x0, x1 in block.cols)
    )
    return misses * 2 > len(vals)


# --- headers ------------------------------------------------------------------------------------


def _header_lines(
    lines: list[_Line], block: _Block, floor: int, em: float
) -> tuple[list[_Line], list[_Line], int]:
    """(header lines top-down, label-only lines between headers and data, index of the topmost line used)."""
    headers: list[_Line] = []
    sections: list[_Line] = []
    top = block.start
    first_col = block.cols[0][0]
    for i in range(block.start - 1, floor - 1, -1):
        line = lines[i]
        above = lines[i + 1]
        if above.y0 - line.y1 > 4 * em * 1.25:
            break
        in_label = all(c.x1 < first_col - 0.5 * em for c in line.cells)
        if in_label and not headers and len(sections) < 4:
            sections.insert(0, line)
            top = i
            continue
        if _is_title(line):
            break  # the statement's title, centred over a wide table, is not a column header
        if _is_header_like(line, block.cols, em) or _over_columns(line, block.cols, em):
            headers.insert(0, line)
            top = i
            continue
        break
    if not headers:  # label-only lines with no header above them are still the table's sections
        return [], sections, top
    return headers, sections, top


_TITLE_WORDS = re.compile(
    r"\bconsolidated\b|\bstatements?\s+of\b|\bbalance\s+sheets?\b|\bsubsidiar(?:y|ies)\b|"
    r"\btable\s+of\s+contents\b|\b(?:inc|corp|corporation|company|plc|ltd)\b\.?$",
    re.I,
)


def _is_title(line: _Line) -> bool:
    text = line.text
    upper = (
        len(line.cells) == 1
        and len(text.split()) >= 3
        and text.upper() == text
        and re.search(r"[A-Z]{3}", text)
    )
    return bool(_TITLE_WORDS.search(text) or upper)


def _over_columns(line: _Line, cols: list[tuple[float, float]], em: float) -> bool:
    """Text only over the columns (besides a short note like "(Dollars in millions)" at the left)."""
    left = cols[0][0] - 4 * em
    over = [c for c in line.cells if c.x0 >= left - em]
    rest = [c for c in line.cells if c not in over]
    return (
        bool(over)
        and not _is_data(line)
        and all(c.x1 < cols[0][0] - em and len(c.text.split()) <= 10 for c in rest)
        and (not rest or len(over) >= 2)
    )


def _header_texts(
    headers: list[_Line], cols: list[tuple[float, float]], em: float
) -> tuple[list[str], str]:
    """Each column's header (lines joined top-down) and the text printed left of the columns."""
    parts: list[list[str]] = [[] for _ in cols]
    left: list[str] = []
    for line in headers:
        over = []
        for cell in line.cells:
            unit_note = (
                re.fullmatch(r"\s*\([^()]*\)\s*", cell.text) and _scale_of(cell.text) is not None
            )
            if (
                cell.x1 < cols[0][0] - 2 * em or unit_note
            ):  # "(dollars in millions)" is the unit, not a header
                left.append(cell.text)
            else:
                over.append(cell)
        for i, text in _assign_line(over, cols, em):
            parts[i].append(text)
    return [" ".join(p) for p in parts], " ".join(left)


_SPAN_TEXT = re.compile(
    r"\b(?:months?|quarters?|years?|weeks?|ended|ending|as\s+of|fiscal|period|"
    r"jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*\b|개월|분기|반기|(?:19|20)\d{2}",
    re.I,
)


def _assign_line(
    cells: list[_Cell], cols: list[tuple[float, float]], em: float
) -> list[tuple[int, str]]:
    """Columns each header cell of one line covers: those under it, widened to the run of columns it
    is centred over ("Years Ended" over three years, "2022" over "Amount | Percent to Sales")."""
    direct = [_assign_header(c, cols, em) for c in cells]
    taken = {i for hits in direct for i, _ in hits}
    out: list[tuple[int, str]] = []
    widened: list[tuple[_Cell, list[tuple[int, str]]]] = []
    for cell, hits in zip(cells, direct, strict=False):
        own = sorted({i for i, _ in hits})
        whole = len({t for _, t in hits}) == 1 and own == list(range(own[0], own[-1] + 1))
        if own and whole and _SPAN_TEXT.search(cell.text):
            # "Three months ended June 30," over four sub-columns touches only the middle two.
            widened.append((cell, _widen(cell, own[0], own[-1], cols, taken, em)))
        else:
            out.extend(hits)
    # Two spans widened into the same column ("Three months ended" | "Six months ended"): the
    # column belongs to the one whose centre is nearer.
    claims: dict[int, list[_Cell]] = {}
    for cell, hits in widened:
        for i, _ in hits:
            claims.setdefault(i, []).append(cell)
    for cell, hits in widened:
        for i, text in hits:
            mid = (cols[i][0] + cols[i][1]) / 2
            nearest = min(claims[i], key=lambda c: abs((c.x0 + c.x1) / 2 - mid))
            if nearest is cell:
                out.append((i, text))
    return out


def _widen(
    cell: _Cell, lo: int, hi: int, cols: list[tuple[float, float]], taken: set[int], em: float
) -> list[tuple[int, str]]:
    centre = (cell.x0 + cell.x1) / 2
    best = (lo, hi)
    for a in range(lo, -1, -1):
        if a < lo and a in taken:
            break
        for b in range(hi, len(cols)):
            if b > hi and b in taken:
                break
            u0, u1 = cols[a][0], cols[b][1]
            if (
                abs((u0 + u1) / 2 - centre) <= max(2 * em, 0.12 * (u1 - u0))
                and b - a > best[1] - best[0]
            ):
                best = (a, b)
    return [(k, cell.text) for k in range(best[0], best[1] + 1)]


def _assign_header(
    cell: _Cell, cols: list[tuple[float, float]], em: float
) -> list[tuple[int, str]]:
    """Columns a header cell sits over; a cell naming several periods is split between them."""
    hits = [
        i
        for i, (x0, x1) in enumerate(cols)
        if _overlap(cell.x0, cell.x1, x0, x1) > 0.25 * min(cell.x1 - cell.x0, x1 - x0)
    ]
    if len(hits) >= 2:
        split = _split_header(cell, cols, hits)
        if split:
            return split
        return [(i, cell.text) for i in hits]
    if hits:
        return [(hits[0], cell.text)]
    i = _nearest(cell, cols, em)
    return [(i, cell.text)] if i is not None else []


def _nearest(cell: _Cell, cols: list[tuple[float, float]], em: float) -> int | None:
    centre = (cell.x0 + cell.x1) / 2
    best = min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - centre))
    spacing = min((cols[j + 1][1] - cols[j][1] for j in range(len(cols) - 1)), default=10 * em)
    if abs((cols[best][0] + cols[best][1]) / 2 - centre) <= max(spacing * 0.6, 2 * em):
        return best
    return None


def _split_header(
    cell: _Cell, cols: list[tuple[float, float]], hits: list[int]
) -> list[tuple[int, str]]:
    """ "December 31, 2023 December 31, 2022" over two columns -> one date each, by word position."""
    text = cell.text
    periods = len(find_dates(text)) or sum(1 for w in cell.words if _YEAR.match(w.text.rstrip(",")))
    if periods != len(hits):
        return []
    groups: dict[int, list[str]] = {}
    for w in cell.words:
        centre = (w.x0 + w.x1) / 2
        i = min(hits, key=lambda j: max(cols[j][0] - centre, centre - cols[j][1], 0.0))
        groups.setdefault(i, []).append(w.text)
    if len(groups) != len(hits):
        return []
    return [(i, " ".join(groups[i])) for i in hits]


_MONTH_SPANS = (
    (
        re.compile(
            r"\b(three|3)[\s-]+months?\b|\bquarters?\b|\bq[1-4]\b|\b(?:thirteen|13|twelve|12)[\s-]+weeks\b|3\s*개월|분기",
            re.I,
        ),
        3,
    ),
    (
        re.compile(
            r"\b(six|6)[\s-]+months?\b|\bhalf[\s-]+year\b|\b(?:twenty-six|26|24)[\s-]+weeks\b|6\s*개월|반기",
            re.I,
        ),
        6,
    ),
    (
        re.compile(
            r"\b(nine|9)[\s-]+months?\b|\b(?:thirty-nine|39|36)[\s-]+weeks\b|9\s*개월", re.I
        ),
        9,
    ),
    (
        re.compile(
            r"\b(twelve|12)[\s-]+months?\b|\byears?\s+ended\b|\bfiscal\s+years?\b|\byears?\s+ending\b|"
            r"\b(?:fifty-two|fifty-three|52|53)[\s-]+weeks\b|\bfull[\s-]+year\b|12\s*개월",
            re.I,
        ),
        12,
    ),
)


def span_months(text: str) -> int | None:
    # "twelve weeks" is a quarter in a 52-week year; "twelve months" is a year: check months first.
    if re.search(r"\b(twelve|12)[\s-]+months?\b", text, re.I):
        return 12
    for pattern, months in _MONTH_SPANS:
        if pattern.search(text):
            return months
    return None


_BARE_YEAR = re.compile(r"(?:\bFY\s?'?|\bFiscal\s+(?:Year\s+)?|\b)((?:19|20)\d{2})\b", re.I)
_MONTH_DAY = re.compile(
    r"\b(?:ended|ending|as of|at)\s+((?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*\.?\s+\d{1,2})\b",
    re.I,
)


_TRAILING_MONTH_DAY = re.compile(r"(?:^|\s)(" + MONTH_WORD + r"\.?\s+\d{1,2}),?\s*$", re.I)
_MONTH_NAME = re.compile(r"\b" + MONTH_WORD + r"\s+\d{1,2}\b", re.I)


# "2021 vs. 2020", "Change from 2022": a column of differences between periods, not of one period.
_COMPARISON = re.compile(r"\bvs\b\.?|\bversus\b|\bcompared\s+(?:to|with)\b|\bchange\b", re.I)


@functools.lru_cache(maxsize=256)
def _heading_span(heading: str) -> int | None:
    """The span a table's heading gives its dated columns (every column of a table shares the
    heading: read once). A heading's short lines name it ("Six Months Ended"), and so does a
    sentence that names no date of its own ("… net periodic benefit cost for the fiscal years ended
    were:"); a sentence with its own date ("… gross charge-offs for the six months ended June 30,
    2023") says what some rows cover, not what the columns are."""
    short = " ".join(
        part
        for part in re.split(r"(?<=[.:;])\s+", heading)
        if len(part.split()) <= 12 or not find_dates(part)
    )
    return span_months(short)


def _make_column(
    index: int, header: str, cols: tuple[float, float], heading: str, above: str = ""
) -> Column:
    """A column's period from its header and the table's heading; `above` is every line over the
    table (a Korean statement dates its "제 55 기" columns in lines the title does not reach)."""
    header = _norm(header)
    ko = korean_column(header, f"{above} {heading}")  # words are normalised as they are read
    if ko is not None:
        x0, x1 = round(cols[0], 2), round(cols[1], 2)
        return Column(index, header, ko.months, ko.end, ko.year, x0, x1, ko.relative)
    if len(_MONTH_NAME.findall(header)) > len(
        re.findall(r"\b(?:19|20)\d{2}\b", header)
    ) or _COMPARISON.search(header):
        # "June 30, December 31, 2023": two dates' headers over one column, read as one; "2021 vs.":
        # a change. Neither names the period of its figures.
        return Column(index, header, None, None, None, round(cols[0], 2), round(cols[1], 2))
    quarter = named_quarter(header)
    if quarter is not None:
        return Column(
            index, header, 3, None, None, round(cols[0], 2), round(cols[1], 2), quarter=quarter
        )
    end = parse_date(header)
    months = span_months(header)
    year = None
    if end is None:
        years = _BARE_YEAR.findall(header)
        year = int(years[-1]) if years else None
        # "For the years ended December 31, 2023, 2022 and 2021" above columns "2023 | 2022 | 2021".
        # ... or "June 30," printed left of the years on their own line (the last words of the heading).
        md = (
            _MONTH_DAY.search(heading) or _TRAILING_MONTH_DAY.search(heading)
            if not find_dates(heading)
            else None
        )
        if year is not None and md:
            end = parse_date(f"{md.group(1)}, {year}")
            if end is not None:
                year = None
    if (
        months is None
        and heading
        and end is not None
        and header
        and not re.search(r"\bas of\b|\bat\b", header, re.I)
    ):
        months = _heading_span(heading)
    return Column(index, header, months, end, year, round(cols[0], 2), round(cols[1], 2))


# --- units ----------------------------------------------------------------------------------------

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


# --- rows ---------------------------------------------------------------------------------------


def _row_of(
    line: _Line, cols: list[tuple[float, float]], em: float
) -> tuple[str, float, list[str | None]] | None:
    """(raw label, indent, cells per column) of one line, or None when it is not a table row."""
    first = cols[0][0]
    # Numbers well left of the columns belong to the label ("allowances of $203 (2021, $230)").
    label_cells = [
        c
        for c in line.cells
        if c.x0 < first - 0.5 * em and (c.kind == "text" or c.x1 < first - 2 * em)
    ]
    rest = [c for c in line.cells if c not in label_cells]
    if len(label_cells) > 1 and label_cells[1].x0 - label_cells[0].x1 > 4 * em:
        # "Operating lease right-of-use assets   Other assets   $ 842": a column of words (where a
        # balance is presented) between the label and the figures is not part of the label.
        label_cells = label_cells[:1]
    cells: list[str | None] = [None] * len(cols)
    for c in rest:
        i = _column_of(c, cols, em)
        if i is None:
            continue
        text = _strip_currency_keep_parens(c.text)
        cells[i] = text if cells[i] is None else f"{cells[i]} {text}"
    words = [w for c in label_cells for w in c.words]
    label = _label_words(words, line.height) if words else ""
    indent = label_cells[0].x0 if label_cells else (rest[0].x0 if rest else line.words[0].x0)
    if not label and all(v is None for v in cells):
        return None
    return label, indent, cells


def _strip_currency_keep_parens(text: str) -> str:
    t = text
    for sign in ("US$", "$", "₩", "€", "£", "¥"):
        t = t.replace(sign, "")
    t = re.sub(r"\s+", "", t) if _kind(text) in ("num", "dash") else t.strip()
    return t


@dataclass
class _Section:
    indent: float
    label: str
    colon: bool  # printed with a trailing ":" ("Operating expenses:")
    deeper: bool = False  # a row indented under it has been seen


def _build_rows(raw: list[tuple[str, float, list[str | None], float]]) -> list[Row]:
    rows: list[Row] = []
    sections: list[_Section] = []  # open label-only rows, outermost first
    for label_raw, indent, cells, y in _merge_wrapped(raw):
        label = clean_label(label_raw)
        values = tuple(parse_value(c) for c in cells)
        _close_sections(sections, indent, label)
        parent = _parent(sections, indent)
        if all(c is None for c in cells):
            if not label:
                continue
            sections[:] = [s for s in sections if s.indent < indent - 1.0]
            sections.append(_Section(indent, label, label_raw.rstrip().endswith(":")))
        elif _is_total(label):
            # "Total operating expenses" closes "Operating expenses": the rows below are outside it.
            body = label.lower().removeprefix("total").strip()
            for k in range(len(sections) - 1, -1, -1):
                if body and _stem(body) in sections[k].label.lower():
                    del sections[k:]
                    break
        rows.append(
            Row(
                label, parent, tuple(cells), values, round(indent, 2), _is_total(label), round(y, 2)
            )
        )
    return rows


def _stem(body: str) -> str:
    """The words a total shares with its section ("cost of revenue" of "Total cost of revenue, net")."""
    return re.split(r",|\(", body)[0].strip()


def _close_sections(sections: list[_Section], indent: float, label: str) -> None:
    """A row back at a section's own indent, after rows indented under it, is outside it."""
    for k, s in enumerate(sections):
        if s.deeper and indent <= s.indent + 1.0:
            del sections[k:]
            break
    for s in sections:
        if indent > s.indent + 1.0:
            s.deeper = True


def _parent(sections: list[_Section], indent: float) -> str:
    """The nearest label-only row above with smaller indentation (or the same, when it ends with ":")."""
    for s in reversed(sections):
        if s.indent < indent - 1.0 or (s.colon and not s.deeper and abs(s.indent - indent) <= 1.0):
            return s.label
    return ""


def _merge_wrapped(
    raw: list[tuple[str, float, list[str | None], float]],
) -> list[tuple[str, float, list[str | None], float]]:
    """A label wrapped onto the next line ("Net income attributable to" / "noncontrolling interests")."""
    out: list[tuple[str, float, list[str | None], float]] = []
    i = 0
    while i < len(raw):
        label, indent, cells, y = raw[i]
        if (
            i + 1 < len(raw)
            and all(c is None for c in cells)
            and label
            and not label.rstrip().endswith(":")
        ):
            nlabel, nindent, ncells, ny = raw[i + 1]
            continues = (
                nlabel[:1].islower()
                or nlabel[:1].isdigit()
                or label.rstrip().endswith(
                    (
                        ",",
                        ";",
                        " and",
                        " of",
                        " to",
                        " for",
                        " in",
                        " from",
                        " on",
                        " the",
                        "-",
                        " before",
                        " net of",
                        " or",
                    )
                )
            )
            if nlabel and continues and nindent >= indent - 1.0:
                raw = raw[: i + 1] + [(f"{label} {nlabel}", indent, ncells, ny)] + raw[i + 2 :]
                i += 1
                continue
        if (
            i + 1 < len(raw)
            and label
            and any(c is not None for c in cells)
            and all(c is None for c in raw[i + 1][2])
            and raw[i + 1][0][:1].islower()
            and abs(raw[i + 1][1] - indent) <= 1.0
        ):
            # The figures sit on the label's first line and its last word wraps below them
            # ("Provision for (benefit from) income  $ (73,608)" / "taxes").
            out.append((f"{label} {raw[i + 1][0]}", indent, cells, y))
            i += 2
            continue
        out.append((label, indent, cells, y))
        i += 1
    return out


# --- assembling a table ---------------------------------------------------------------------------


def _title(lines: list[_Line], floor: int, top: int, em: float) -> tuple[str, str, str]:
    """(title, whole heading text) from the lines between the previous table and this one."""
    heading = [lines[i] for i in range(floor, top)]
    picked: list[str] = []
    below = lines[top] if top < len(lines) else None
    for line in reversed(heading):
        if below is not None and below.y0 - line.y1 > 4 * em * 1.25:
            break
        text = line.text
        if len(text.split()) > 18 or any(not _YEAR.match(c.text) for c in _value_cells(line)):
            break  # prose, or a row of amounts: the heading ends here
        below = line
        if re.fullmatch(r"(?i)\s*(?:table of contents|index|page \d+|\d{1,3})\s*", text):
            continue  # running header and page numbers, not the table's heading
        if re.fullmatch(r"(?:\s*\([^()]*\))+\s*", text) and _scale_of(text) is not None:
            continue  # the unit line is the unit, not the title
        picked.insert(0, text)
        if len(picked) >= 3:
            break
    subject = _subject_line(picked) or _section_heading(heading[: len(heading) - len(picked)])
    return _norm(" ".join(picked)), " ".join(ln.text for ln in heading), subject


def _section_heading(lines: list[_Line]) -> str:
    """The heading of the section a table sits in, above the prose that introduces it ("Pro Forma
    Financial Information - 2017 Acquisition Activity (unaudited)" over a paragraph and the
    table): the nearest line above that is a heading by shape, not a sentence. A section heading
    may name a year ("2017 Acquisition Activity"); what follows a dash is its sub-heading, and
    "(unaudited)" is a note on the figures, not the section."""
    for line in reversed(lines):
        text = line.text.strip()
        if len(line.cells) != 1 or len(text.split()) > 12 or find_dates(text):
            continue
        if re.search(r"(?i)\b(?:months?|weeks?|ended|ending)\b|[.;:,]$", text):
            continue
        text = re.sub(r"(?i)\s*\((?:unaudited|audited|continued)\)", "", text)
        main = re.split(r"\s+[-–—]\s+", text)[0]
        if len(main.split()) >= 2:
            text = main
        if re.search(r"\b(?:19|20)\d{2}\b", text):
            continue
        found = _subject_line([text])
        if found:
            return found
    return ""


_DOCUMENT_PART = re.compile(
    r"(?i)^\s*(?:table\s+of\s+contents|index\b|item\s+\d+[a-z]?\b|part\s+[ivx]+\b|page\s+\d+)"
)
_NOTE_NUMBER = re.compile(
    r"^\s*(?:[Nn][Oo][Tt][Ee]\s+\d+[A-Za-z]?\s*[-–—:.]|(?:\d{1,2}|[A-Z])\.(?=\s+[A-Z]))\s*"
)


def _subject_line(picked: list[str]) -> str:
    """The nearest heading above a table: a short capitalised line that ends without a stop and names
    no period ("Optical Communications", "Revenue by segment" of "Revenue by segment: current vs.
    prior year"); "" when none."""
    for text in reversed(picked):
        if has_hangul(text):
            korean = heading_subject(text)
            if korean:
                return korean
            continue
        text = re.sub(r":.*$", "", text).strip()  # "Revenue by segment: current vs. prior year"
        if _DOCUMENT_PART.match(text):
            continue  # "Table of Contents", "Item 8": where the page sits in the filing, no section
        # "NOTE 14 - INCOME TAXES", "19. Reportable Segments": the note's title is the section
        text = _NOTE_NUMBER.sub("", text)
        if text.isupper() and len(text) > 4:
            text = text.title()
        # "Unearned revenue by segment was as follows": the subject is what comes before the verb
        text = re.sub(
            r"\s+(?:was|were|is|are)\s+(?:(?:presented|summarized|shown)\s+)?(?:as\s+follows|below)$",
            "",
            text,
            flags=re.I,
        )
        # "Separate Accounts financial assets as of December 31, 2018": the columns date it
        text = re.sub(r"(?i)\s+(?:as\s+of|at)\s+" + MONTH_WORD + r"\s+\d{1,2},?\s+\d{4}$", "", text)
        words = [w for w in text.split() if any(ch.isalpha() for ch in w)]
        if (
            not 1 <= len(words) <= 8
            or re.search(r"[.:;,]\s*$", text)
            or _scale_of(text) is not None
        ):
            continue
        if re.search(r"(?i)\b(?:19|20)\d{2}\b|\bmonths?\b|\bended\b", text):
            continue
        if re.match(r"(?i)the\s+following\b", text) or re.search(
            r"(?i)\b(?:the|a|an|of|to|for|and|or|in|by|with|from)$", text
        ):
            continue  # "The following table presents goodwill attributed to the": a sentence cut short
        if re.search(r"(?i)\bconsolidated\b|\bfinancial\s+statements\b|\bnotes\s+to\b", text):
            continue  # a statement's title or the running "Notes to … Financial Statements": no section
        if words[0][0].isupper():
            # "Top 20 country exposures (excluding the U.S.)(a)": the footnote mark is no part of it
            return _FOOTNOTE.sub("", _norm(text)).strip()
    return ""


def _table_of(
    lines: list[_Line], block: _Block, floor: int, page_text: str, em: float, previous: Table | None
) -> Table | None:
    cols = block.cols
    if not cols:
        return None
    headers, sections, top = _header_lines(lines, block, floor, em)
    header_texts, left_text = _header_texts(headers, cols, em)
    title, heading, subject = _title(lines, floor, top, em)
    heading_all = f"{heading} {left_text} {' '.join(ln.text for ln in headers)}"
    columns = tuple(
        _make_column(i, header_texts[i], cols[i], f"{title} {left_text}", heading_all)
        for i in range(len(cols))
    )
    columns = _dates_from_heading(columns, f"{title} {left_text}")
    columns = _instants_if_ends_differ(columns)
    if not headers and previous is not None and _same_layout(previous.columns, cols, em):
        # A table continued under an interrupting heading keeps the columns it had above.
        columns = tuple(
            replace(c, x0=round(cols[c.index][0], 2), x1=round(cols[c.index][1], 2))
            for c in previous.columns
        )
    raw: list[tuple[str, float, list[str | None], float]] = []
    for line in sections + lines[block.start : block.end + 1]:
        if _is_header_like(line, cols, em) and not _is_data(line):
            continue
        r = _row_of(line, cols, em)
        if r is not None and (not all(c is None for c in r[2]) or _label_only_ok(line, cols, em)):
            raw.append((*r, line.yc))
    rows = tuple(_build_rows(raw))
    columns, rows = _labels_from_first_column(columns, rows)
    columns = _dates_from_title(columns, title, rows)
    valued = sum(1 for r in rows if any(v is not None for v in r.values))
    if valued == 0 or (valued == 1 and len(cols) == 1 and not headers):
        return None  # a running footer with its page number ("Annual Report on Form 10-K  54")
    unit, per_share = _units(heading_all, page_text)
    if not unit and previous is not None and not headers:
        unit, per_share = previous.unit, previous.per_share_unit
    shares = _share_scale(heading_all) or (previous.share_scale if previous is not None else "")
    top_y = lines[top].y0 if top < len(lines) else lines[block.start].y0
    return Table(
        columns,
        rows,
        unit,
        per_share,
        title,
        round(top_y, 2),
        round(lines[block.end].y1, 2),
        subject,
        shares,
    )


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


def _instants_if_ends_differ(columns: tuple[Column, ...]) -> tuple[Column, ...]:
    """Columns "Jun 30, 2023 | Dec 31, 2022" under a heading that mentions "gross charge-offs for the
    six months ended June 30, 2023": a span taken from the heading cannot end on month-days months
    apart in one table (a quarter's balance sheet beside the year-end's), so those columns are
    instants. Ends a few days apart (52/53-week years: Dec 28 and Dec 29) keep their span."""
    inherited = [
        c for c in columns if c.end is not None and c.months and span_months(c.header) is None
    ]
    days = [c.end.timetuple().tm_yday for c in inherited if c.end is not None]
    apart = any(min(abs(a - b), 365 - abs(a - b)) > 7 for a in days for b in days)
    if not apart:
        return columns
    return tuple(replace(c, months=None) if c in inherited else c for c in columns)


def _dates_from_heading(columns: tuple[Column, ...], heading: str) -> tuple[Column, ...]:
    """ "At January 1, 2023 and January 2, 2022" over "2022 | 2021": one heading date per year column, in order."""
    dated = [c for c in columns if c.year is not None and c.end is None]
    dates = [d for _, _, d in find_dates(heading)]
    if not dated or len(dates) != len(dated) or len(dated) != len(columns):
        return columns
    return tuple(replace(c, end=d, year=None) for c, d in zip(columns, dates, strict=False))


def _labels_from_first_column(
    columns: tuple[Column, ...], rows: tuple[Row, ...]
) -> tuple[tuple[Column, ...], tuple[Row, ...]]:
    """A table whose row labels all landed in its first column (labels set apart from the left
    margin, as some EDGAR renderings do) gets them back: a column of words is the labels."""
    valued = [r for r in rows if any(v is not None for v in r.values[1:])]
    if len(columns) < 2 or len(valued) < 2 or any(r.label for r in valued):
        return columns, rows  # (a labelled row without figures is a section heading: it may stay)
    if sum(bool(r.cells[0]) and r.values[0] is None for r in valued) < 0.8 * len(valued):
        return columns, rows
    moved = tuple(
        r
        if r.label
        else replace(r, label=clean_label(r.cells[0] or ""), cells=r.cells[1:], values=r.values[1:])
        for r in rows
    )
    moved = tuple(
        r
        if len(r.cells) == len(columns) - 1
        else replace(r, cells=r.cells[1:], values=r.values[1:])
        for r in moved
    )
    return tuple(replace(c, index=i) for i, c in enumerate(columns[1:])), moved


def _dates_from_title(
    columns: tuple[Column, ...], title: str, rows: Sequence[Row]
) -> tuple[Column, ...]:
    """ "As of December 31, 2019, our lease liabilities were as follows:" over "Operating | Finance |
    Total": a table whose columns name no period takes its title's one date, unless its rows carry
    dates of their own (a roll-forward's "Balance as of June 27, 2015")."""
    if any(c.end is not None or c.year is not None or c.quarter is not None for c in columns):
        return columns  # (a named quarter is dated by the filer's calendar, never by the title)
    dates = find_dates(title)
    if len(dates) != 1 or any(find_dates(r.label) for r in rows):
        return columns
    months = span_months(title)
    alone = dates[0][0] == 0 and dates[0][1] == len(title)  # "December 31, 2022" over the table
    if months is None and not alone and not re.search(r"\b(?:as of|at)\b", title, re.I):
        return columns  # a date that neither ends a span nor marks an instant ("issued on May 5, 2020")
    return tuple(replace(c, end=dates[0][2], months=months) for c in columns)


def _label_only_ok(line: _Line, cols: list[tuple[float, float]], em: float) -> bool:
    """A section label sits left of the columns and is short (prose runs across them)."""
    return all(c.x1 < cols[0][0] - 0.5 * em for c in line.cells) and len(line.text.split()) <= 14


def _same_layout(columns: Sequence[Column], cols: list[tuple[float, float]], em: float) -> bool:
    return len(columns) == len(cols) and all(
        abs(c.x1 - x1) <= 1.5 * em for c, (_, x1) in zip(columns, cols, strict=False)
    )


def read_tables(layer: dict[str, Any]) -> list[Table]:
    """Every table on the page, top to bottom (left column first on a two-column page); [] when
    there is none or the page cannot be read."""
    try:
        return [t for part in _page_columns(layer) for t in _read_tables(part)]
    except Exception:  # noqa: BLE001 - a real page must never break the caller
        return []


GUTTER_MIN_WIDTH = 12.0  # points of page width (almost) no word crosses between two text columns


def _page_columns(layer: dict[str, Any]) -> list[dict[str, Any]]:
    """A two-column page (a report's table in one column, its discussion in the other) split at its
    gutter, so that a line of one column is never read as a row of the other; else the page whole.
    A gutter is a vertical band in the middle of the page that no word crosses, with prose (mostly
    words, not figures) on both sides: the gap between a table's labels and its numbers is not one."""
    words = [w for w in layer.get("words") or [] if len(w) >= 5]
    width = float(layer.get("width") or 0.0)
    if len(words) < 40 or width <= 0:
        return [layer]
    # words covering each point of the width: +1 where a word starts, -1 past its end, summed
    starts = [0] * (int(width) + 3)
    for w in words:
        starts[min(max(0, int(w[0])), len(starts) - 1)] += 1
        starts[min(max(0, int(w[2]) + 1), len(starts) - 1)] -= 1
    covered = list(itertools.accumulate(starts))
    lo, hi = int(0.3 * width), int(0.7 * width)
    crossing = max(
        1, len(words) // 200
    )  # a running header or a page-wide title may cross the gutter
    best: tuple[int, int] | None = None
    start = None
    for x in range(lo, hi + 1):
        if covered[x] <= crossing and start is None:
            start = x
        if (covered[x] > crossing or x == hi) and start is not None:
            if x - start >= GUTTER_MIN_WIDTH and (best is None or x - start > best[1] - best[0]):
                best = (start, x)
            start = None
    if best is None:
        return [layer]
    cut = (best[0] + best[1]) / 2
    left = [w for w in words if (float(w[0]) + float(w[2])) / 2 < cut]
    right = [w for w in words if (float(w[0]) + float(w[2])) / 2 >= cut]

    def prose_lines(side: list) -> int:
        """Lines of at least six words, at most one of them a figure: running text."""
        lines: dict[tuple, list[str]] = {}
        for w in side:
            lines.setdefault((w[5], w[6]) if len(w) >= 7 else (round(float(w[3])),), []).append(
                str(w[4])
            )
        return sum(
            1
            for ws in lines.values()
            if len(ws) >= 6 and sum(not any(c.isalpha() for c in t) for t in ws) <= 1
        )

    if (
        min(len(left), len(right)) < 0.2 * len(words)
        or min(prose_lines(left), prose_lines(right)) < 3
    ):
        return [
            layer
        ]  # one side is a table's figures: the band is the gap between labels and numbers
    return [dict(layer, words=left), dict(layer, words=right)]


def _read_tables(layer: dict[str, Any]) -> list[Table]:
    lines = _group_lines(_words_of(layer))
    if not lines:
        return []
    em = _em(lines)
    page_text = str(layer.get("text") or " ".join(ln.text for ln in lines))
    tables: list[Table] = []
    floor = 0
    previous: Table | None = None
    for block in _blocks(lines, em):
        table = _table_of(lines, block, floor, page_text, em, previous)
        if table is not None:
            tables.append(table)
            previous = table
            floor = block.end + 1  # a block that made no table leaves its lines to the next heading
    return tables


# --- units of a row ---------------------------------------------------------------------------------

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

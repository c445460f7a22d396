"""Table geometry: a page's words grouped into visual lines, lines split into cells, numeric
cells clustered into right-aligned columns, blocks of lines that share one layout, and the text
columns of a two-column page. Positions only: what a cell or a heading means is
`table_reader` / `table_columns`.
"""

from __future__ import annotations

import bisect
import functools
import itertools
import re
import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from evalset_pipeline.core.pagetext.dates import MONTHS, find_dates
from evalset_pipeline.core.pagetext.text import clean_text
from evalset_pipeline.core.reader.table_cells import (
    _CURRENCY_SIGNS,
    _LEADER,
    _YEAR,
    MEASURE_CODE,
    _kind,
    unprinted,
)


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


# A tagged PDF's footnote reference glued to the figure it marks ("49%(Footnote", "N/A(Footnote"):
# the text layer spells the marker's alternate text, which is no part of the cell.
_TAGGED_NOTE = re.compile(r"(?<=\S)\((?:footnote|note)\b[^)]*\)?\.?$", re.I)


def _words_of(layer: dict[str, Any]) -> list[_Word]:
    out = []
    tagged_end: float | None = None  # right edge of the last word that carried a tagged marker
    for w in layer.get("words") or []:
        try:
            printed = clean_text(str(w[4]))
            text = _TAGGED_NOTE.sub("", printed)
            x0, x1, y0, y1 = float(w[0]), float(w[2]), float(w[1]), float(w[3])
            follows_tag = tagged_end is not None and abs(x0 - tagged_end) < 0.5
            tagged_end = x1 if text != printed else None
            if not text:
                continue
            if text != printed:
                # the box spans the marker's hidden text too, and the visible cell sits at its
                # right end: keep the share of the box the cell's own text takes there
                x0 = x1 - (x1 - x0) * len(text) / len(printed)
            elif follows_tag:
                # the word after such a marker starts its box where the marker's ended: its
                # visible text is at the box's right end, about half an em a character wide
                x0 = max(x0, x1 - 0.6 * (y1 - y0) * len(text))
            out.append(_Word(x0, y0, x1, y1, text))
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
    if wk == "num" and unprinted(prev.text) and any(ch.isalpha() for ch in prev.text):
        # "N/A  43.8%": a year without a value, then the next year's figure (a dash between
        # words and a number is a heading's "Information - 2017 Acquisitions")
        return True
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


def _value_cells(line: _Line) -> list[_Cell]:
    """Number/dash cells that are values (the first cell is the label unless numbers fill the line)."""
    cells = line.cells
    if _leads_with_code(cells):
        cells = cells[1:]  # "2.03  Percent of milestones completed  37.5%": the row's code
    vals = [c for c in cells if c.kind in ("num", "dash")]
    if cells and cells[0].kind in ("num", "dash") and len(cells) == 1:
        return []  # a lone number on its own line (a page number, a note number) is not a row
    words = [c for c in cells if c.kind not in ("num", "dash")]
    if vals and words and max(v.x1 for v in vals) < min(w.x0 for w in words):
        # "(1) Includes other income ...": a footnote's mark before its text, not a row. Several
        # figures before a few short words are a row whose last cells are words ("92% 93% ≥95%
        # Met": a performance table's results, then its target and a "Met / Not Met" column).
        if len(vals) == 1 or not all(_status_word(w.text) for w in words):
            return []
    return vals


def _leads_with_code(cells: Sequence[_Cell]) -> bool:
    """A measure's code ("2.03") first, then its name, then figures: a number left of the row's
    name numbers the row, it is no figure (a table's figures stand right of its names)."""
    return (
        len(cells) >= 3
        and cells[0].kind == "num"
        and MEASURE_CODE.fullmatch(cells[0].text) is not None
        and cells[1].kind == "text"
        and any(c.kind == "num" for c in cells[2:])
    )


# A target printed with its sign ("≥95%", "≤$128.47") or a status of a few words ("Met", "Not
# Met", "Establish Baseline"): the word cells a row of figures may end with.
_TARGET_SIGN = re.compile(r"^[≥≤<>]")


def _status_word(text: str) -> bool:
    return bool(_TARGET_SIGN.match(text)) or (
        len(text.split()) <= 2 and not any(ch.isdigit() for ch in text)
    )


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
    r"\b(?:months?|quarters?|years?|weeks?|ended|ending|as of|at|fiscal|"
    + "|".join(MONTHS)
    + r"|change|unaudited|audited|actual|restated|total|q[1-4]|fy\d{2,4}|h[12])\b"
    r"|\d{4}|%|당기|전기|분기|반기|기말|기초|년",
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


def _nearest(cell: _Cell, cols: list[tuple[float, float]], em: float) -> int | None:
    centre = (cell.x0 + cell.x1) / 2
    best = min(range(len(cols)), key=lambda i: abs((cols[i][0] + cols[i][1]) / 2 - centre))
    spacing = min((cols[j + 1][1] - cols[j][1] for j in range(len(cols) - 1)), default=10 * em)
    if abs((cols[best][0] + cols[best][1]) / 2 - centre) <= max(spacing * 0.6, 2 * em):
        return best
    return None


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

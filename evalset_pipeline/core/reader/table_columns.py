"""Column headings to periods: the heading lines above a table's first data row assigned to its
columns (a spanning heading applies to every column under it), and each column's period read from
them: its end date, its span in months, or a label for a non-period column.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import replace

from evalset_pipeline.core.pagetext.dates import MONTH_PREFIX, MONTH_WORD, find_dates, parse_date
from evalset_pipeline.core.pagetext.fiscal import named_quarter
from evalset_pipeline.core.pagetext.korean import relative_header
from evalset_pipeline.core.pagetext.text import clean_text
from evalset_pipeline.core.reader.korean_columns import korean_column
from evalset_pipeline.core.reader.table_cells import _YEAR
from evalset_pipeline.core.reader.table_geometry import (
    _Block,
    _Cell,
    _is_header_like,
    _is_title,
    _Line,
    _nearest,
    _over_columns,
    _overlap,
    _status_word,
)
from evalset_pipeline.core.reader.table_records import Column, Row
from evalset_pipeline.core.reader.table_units import _scale_of


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
        if (
            in_label
            and headers
            and len(line.text.split()) <= 3
            and i - 1 >= floor
            and _is_header_like(lines[i - 1], block.cols, em)
            and _beside_label(lines[i - 1], first_col, em)
            and _beside_label(headers[0], first_col, em)
            and max(headers[0].yc - line.yc, line.yc - lines[i - 1].yc) < 0.75 * line.height
        ):
            # the label column's own header wrapped between the column headers ("Performance" /
            # "Table" / "Measure" beside "FY 2012" / "Results": set between two header lines that
            # print a word of it in the label column too, half a line from each): the headers go
            # on above it
            headers.insert(0, line)
            top = i
            continue
        if not headers and _right_of_columns(line, block.cols):
            continue  # a target's words wrapped over the first row's name ("Establish")
        if in_label and not headers and len(sections) < 4:
            sections.insert(0, line)
            top = i
            continue
        if in_label and headers and line.y1 > above.y0 + 0.25 * em:
            # The labels' header centred down two header rows ("사업명" beside "2022년" over
            # "결산"): the header goes on above it.
            headers.insert(0, line)
            top = i
            continue
        if _is_title(line):
            break  # the statement's title, centred over a wide table, is not a column header
        if headers and _is_caption(lines[max(floor, i - 3) : i + 1], headers, block.cols, em):
            break
        if _is_header_like(line, block.cols, em) or _over_columns(line, block.cols, em):
            headers.insert(0, line)
            top = i
            continue
        break
    if not headers:  # label-only lines with no header above them are still the table's sections
        return [], sections, top
    return headers, sections, top


def _right_of_columns(line: _Line, cols: list[tuple[float, float]]) -> bool:
    """A line of a few short words right of the figures' columns (a target's or status column's
    words, which wrap beside a row's name): no header of the figures."""
    return all(c.x0 > cols[-1][1] and _status_word(c.text) for c in line.cells)


def _beside_label(line: _Line, first_col: float, em: float) -> bool:
    """A header line that also prints words in the label column, left of the figures."""
    return any(c.x1 < first_col - 0.5 * em for c in line.cells) and any(
        c.x1 >= first_col - 0.5 * em for c in line.cells
    )


def _is_caption(
    run: list[_Line], headers: list[_Line], cols: list[tuple[float, float]], em: float
) -> bool:
    """The last line of `run` is a table's caption ("TABLE 7.03A", or the measure's name under
    "PERFORMANCE MEASURE:") above headers that already date every column: a table number alone,
    or one cell of words naming no period, centred over more than half the columns, under a
    label of a few words ending in a colon or a table number (the single-cell lines just above
    it, within the headers' width, none a sentence). A spanning header that names no period
    ("Qualified and Non-qualified Pension Plans" over "U.S. | International") is introduced by
    neither and stays a header."""
    line = run[-1]
    if len(line.cells) != 1 or _is_header_like(line, cols, em):
        return False
    if _TABLE_NUMBER.match(line.text.strip()) and len(line.text.split()) <= 3:
        texts, _ = _header_texts(headers, cols, em)
        return all(_YEAR_IN.search(t) for t in texts)  # "TABLE 7.03A" alone over the headers
    cell = line.cells[0]
    under = [i for i, (x0, x1) in enumerate(cols) if _overlap(cell.x0, cell.x1, x0, x1) > 0]
    if len(cols) < 2 or len(under) * 2 <= len(cols) and not cell.text.rstrip().endswith(":"):
        return False
    centre = (cell.x0 + cell.x1) / 2
    if not cols[0][0] < centre < cols[-1][1]:
        return False  # a caption is centred over the columns
    introduced = False
    left = min(c.x0 for h in headers for c in h.cells)
    for above in reversed(run[:-1]):
        # a caption's lines sit within the table's width, and are no sentences
        if (
            len(above.cells) != 1
            or above.cells[0].x0 < left - 2 * em
            or len(above.text.split()) > 16
            or above.text.rstrip().endswith(".")
        ):
            break
        text = above.text.strip()
        # a label ("PERFORMANCE MEASURE:"), not a sentence that ends "… were as follows:"
        if (text.endswith(":") and len(text.split()) <= 4) or _TABLE_NUMBER.match(text):
            introduced = True
            break
    if not introduced:
        return False
    texts, _ = _header_texts(headers, cols, em)
    return all(_YEAR_IN.search(t) for t in texts)


_TABLE_NUMBER = re.compile(r"(?i)(?:table|exhibit)\s*\d")
_YEAR_IN = re.compile(r"\b(?:19|20)\d{2}\b")


def _header_texts(
    headers: list[_Line], cols: list[tuple[float, float]], em: float
) -> tuple[list[str], str]:
    """Each column's header (lines joined top-down) and the text printed left of the columns."""
    parts: list[list[str]] = [[] for _ in cols]
    left: list[str] = []
    for line in headers:
        over = []
        for k, cell in enumerate(line.cells):
            unit_note = (
                re.fullmatch(r"\s*\([^()]*\)\s*", cell.text) and _scale_of(cell.text) is not None
            ) or bool(_KOREAN_UNIT_NOTE.fullmatch(cell.text))
            # "구분 | 당분기 | 전분기" centred over right-aligned figures: "당분기" stands left of its
            # column's figures, yet after the labels' header it names a period: a column's header.
            period_after_labels = k > 0 and relative_header(cell.text) is not None
            if (
                cell.x1 < cols[0][0] - 2 * em and not period_after_labels
            ) or unit_note:  # "(dollars in millions)" is the unit, not a header
                left.append(cell.text)
            else:
                over.append(cell)
        for i, text in _assign_line(over, cols, em):
            parts[i].append(text)
    return [" ".join(p) for p in parts], " ".join(left)


_SPAN_TEXT = re.compile(
    r"\b(?:months?|quarters?|years?|weeks?|ended|ending|as\s+of|fiscal|period|"
    + MONTH_PREFIX
    + r")[a-z]*\b|개월|분기|반기|(?:19|20)\d{2}",
    re.I,
)


# "(단위 : 사)", "(단위 : 톤(tCO2-eq))": a unit line, whatever unit it names, heads no column
_KOREAN_UNIT_NOTE = re.compile(r"\s*\(\s*단\s*위\s*[:：].*\)\s*")


# A Korean header that names a percentage ("소유지분율(%)") centred over its sub-columns ("지배기업
# 소유 | 종속기업 소유 | 비지배 지분") heads each of them: every one holds a percentage.
_KOREAN_PERCENT = re.compile(r"[가-힣]+[율률]\s*\(%\)")


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
        if own and whole and (_SPAN_TEXT.search(cell.text) or _KOREAN_PERCENT.search(cell.text)):
            # "Three months ended June 30," over four sub-columns touches only the middle two.
            widened.append((cell, _widen(cell, own[0], own[-1], cols, taken, em)))
        else:
            out.extend(hits)
    # Two spans widened into the same column ("Three months ended" | "Six months ended"): the
    # column belongs to the one whose centre is nearer.
    # A header cell over no column (centred over right-aligned figures: "당분기" left of its column)
    # claims the columns a span widens into as well: "당분기 | 전분기" is two periods, not one span.
    unplaced = [c for c, hits in zip(cells, direct, strict=False) if not hits]
    claims: dict[int, list[_Cell]] = {}
    for cell, hits in widened:
        for i, _ in hits:
            claims.setdefault(i, []).append(cell)
    for cell, hits in widened:
        for i, text in hits:
            mid = (cols[i][0] + cols[i][1]) / 2
            nearest = min(claims[i] + unplaced, key=lambda c: abs((c.x0 + c.x1) / 2 - mid))
            if nearest is cell:
                out.append((i, text))
            elif nearest in unplaced and all(j != i for j, _ in out):
                out.append((i, nearest.text))
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
    r"\b(?:ended|ending|as of|at)\s+(" + MONTH_PREFIX + r"[a-z]*\.?\s+\d{1,2})\b",
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
    header = clean_text(header)
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
        # "… ended June 30, 2022 and 2021. Nonaccrual loan activity Six months ended June 30,": the
        # prose above ends its sentence; the heading's own last line says the columns' month-day
        # (a unit aside after it, "(in millions)", is no part of the date)
        last = re.sub(r"(?:\s*\([^()]*\))+\s*$", "", re.split(r"(?<=[.:;])\s+", heading)[-1])
        if md is None and last != heading and not find_dates(last):
            md = _TRAILING_MONTH_DAY.search(last)
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

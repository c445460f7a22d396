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

This module assembles tables (blocks, rows, sections, titles). The parts live beside it: the
records (`table_records`), positions only (`table_geometry`, steps 1-3), a cell's text
(`table_cells`), headings to periods (`table_columns`, step 4) and units (`table_units`, step 5).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evalset_pipeline.core.pagetext.dates import MONTH_DAY_YEAR, find_dates, plain
from evalset_pipeline.core.pagetext.korean import (
    heading_subject,
    stated_counter,
    stated_units,
)
from evalset_pipeline.core.pagetext.text import clean_text, has_hangul
from evalset_pipeline.core.reader.table_bands import merge_banded_labels
from evalset_pipeline.core.reader.table_captions import (
    columns_dated_by_caption_month,
    columns_dated_by_relative_caption,
    rows_named_by_caption,
)
from evalset_pipeline.core.reader.table_cells import (
    _FOOTNOTE,
    _YEAR,
    _strip_currency_keep_parens,
    clean_label,
    deduction_label,
    is_closing_line,
    parse_value,
    unprinted,
)
from evalset_pipeline.core.reader.table_columns import (
    _dates_from_heading,
    _dates_from_title,
    _header_lines,
    _header_texts,
    _instants_if_ends_differ,
    _make_column,
    span_months,
)
from evalset_pipeline.core.reader.table_geometry import (
    _Block,
    _blocks,
    _column_of,
    _em,
    _group_lines,
    _is_data,
    _is_header_like,
    _label_words,
    _Line,
    _page_columns,
    _status_word,
    _value_cells,
    _words_of,
)
from evalset_pipeline.core.reader.table_records import Column, Row, Table
from evalset_pipeline.core.reader.table_units import (
    _scale_of,
    _share_scale,
    _units,
    cell_unit,
    is_base_index,
    names_per_share,
)

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


def _is_total(label: str) -> bool:
    low = label.lower()
    return (
        low.startswith("total")
        or label.startswith(("합계", "총계"))
        or label.endswith(("합계", "총계"))
    )


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
        cells[i] = _joined(cells[i], text)
    words = [w for c in label_cells for w in c.words]
    label = _label_words(words, line.height) if words else ""
    indent = label_cells[0].x0 if label_cells else (rest[0].x0 if rest else line.words[0].x0)
    if not label and all(v is None for v in cells):
        return None
    return label, indent, cells


def _merged_category_rows(
    raw: list[tuple[str, float, list[str | None], float]],
    row_lines: list[_Line],
    cols: list[tuple[float, float]],
    em: float,
) -> list[tuple[str, float, list[str | None], float]]:
    """A category cell merged down the rows it spans ("외화단기차입금" beside three lenders) is
    printed once, centred, so the text layer sets it on its middle row's line, ahead of that
    row's own name in the next text column. Between rows whose names start at that column, such
    a row is its own name's: the category's figure is the spanned rows' total, never the middle
    row's ("외화단기차입금 2,811" is Standard Bank's 2,811)."""
    out = list(raw)
    for i in range(1, len(raw) - 1):
        label, indent, cells, y = raw[i]
        if not has_hangul(label):
            # Korean tables merge a category's cell down its rows; an English filing's table sets
            # a row's name first and a text column after it ("Alltel Corporation   5-10 Years"),
            # where the first cell is the row's own name
            continue
        before, after = raw[i - 1][1], raw[i + 1][1]
        if all(c is None for c in cells) or abs(before - after) > 2 * em:
            continue
        if min(before, after) < indent + 4 * em:
            continue
        names = [
            c
            for c in row_lines[i].cells
            if c.kind == "text" and min(before, after) - em <= c.x0 < cols[0][0] - 0.5 * em
        ]
        if names:
            words = [w for c in names for w in c.words]
            out[i] = (_label_words(words, row_lines[i].height), names[0].x0, cells, y)
    return out


def _joined(held: str | None, text: str) -> str:
    """Two cells read into one column: an unprinted cell ("N/A" of a year whose column no figure
    made) beside a figure gives way to the figure; other cells join."""
    if held is None:
        return text
    if unprinted(held) and parse_value(text) is not None:
        return text
    if unprinted(text) and parse_value(held) is not None:
        return held
    return f"{held} {text}"


@dataclass
class _Section:
    indent: float
    label: str
    colon: bool  # printed with a trailing ":" ("Operating expenses:")
    deeper: bool = False  # a row indented under it has been seen
    unbounded: bool = False  # printed at its rows' indent and still open at a closing balance


def _build_rows(raw: list[tuple[str, float, list[str | None], float]]) -> list[Row]:
    rows: list[Row] = []
    sections: list[_Section] = []  # open label-only rows, outermost first
    # "재측정요소 :" printed at its rows' own indent: where it ends only a total or a deeper row
    # can say; one still open at the roll-forward's "기말" never ended on the page, and which
    # rows it held is unknown ("급여지급액" below it is no remeasurement), so it heads none
    held: list[tuple[_Section, list[int]]] = []  # such a section and the rows it headed
    for label_raw, indent, cells, y in _merge_wrapped(raw):
        label = clean_label(label_raw)
        values = tuple(parse_value(c) for c in cells)
        _close_sections(sections, indent, label)
        parent = _parent(sections, indent)
        flat = next(
            (
                s
                for s in reversed(sections)
                if s.label == parent and s.colon and not s.deeper and abs(s.indent - indent) <= 1.0
            ),
            None,
        )
        if flat is not None and any(c is not None for c in cells):
            if not held or held[-1][0] is not flat:
                held.append((flat, []))
            held[-1][1].append(len(rows))
            if has_hangul(label) and is_closing_line(label):
                # (a Korean roll-forward's "기말": English sections close by their totals)
                flat.unbounded = True
        if all(c is None for c in cells):
            if not label:
                continue
            sections[:] = [s for s in sections if s.indent < indent - 1.0]
            sections.append(_Section(indent, label, label_raw.rstrip().endswith(":")))
        elif _is_total(label) or label.endswith("소계"):
            # "Total operating expenses" closes "Operating expenses", "재측정요소 소계" closes
            # "재측정요소": the rows below are outside it.
            body = re.sub(
                r"\s*(?:합계|총계|소계)$", "", label.lower().removeprefix("total")
            ).strip()
            for k in range(len(sections) - 1, -1, -1):
                if body and _stem(body) in sections[k].label.lower():
                    del sections[k:]
                    break
        rows.append(
            Row(
                label,
                parent,
                tuple(cells),
                values,
                round(indent, 2),
                _is_total(label),
                round(y, 2),
                deduction_label(label_raw),
            )
        )
    for section, headed in held:
        if section.unbounded:
            for k in headed:
                rows[k] = replace(rows[k], parent="")
    return _centred_heads(rows)


def _centred_heads(rows: list[Row]) -> list[Row]:
    """A name merged down its rows is printed at their middle: over two rows ("Taihan Netherlands
    B.V. | 단기대여금 826 / 대손충당금 -"), half a line below the first, which reading order puts
    under the name's predecessor. A label-only row half a line from the rows either side of it
    heads the rows around it, as many above as below, while they are indented under it (Korean
    tables merge cells so; an English one's wrapped heading sits half a line off its rows too)."""
    valued = [r for r in rows if any(c is not None for c in r.cells)]
    steps = sorted(b.y - a.y for a, b in zip(valued, valued[1:], strict=False) if b.y > a.y)
    if not steps:
        return rows
    pitch = steps[len(steps) // 2]
    out = list(rows)
    claimed: set[int] = set()
    for h, head in enumerate(rows):
        if any(c is not None for c in head.cells) or not 0 < h < len(rows) - 1:
            continue
        if not (0 < head.y - rows[h - 1].y < 0.75 * pitch):
            continue  # on a line of its own: it heads the rows below it, as read
        reach = 0
        while (
            h - reach - 1 >= 0
            and h + reach + 1 < len(rows)
            and all(
                k not in claimed
                and has_hangul(rows[k].label)  # an English filing sets a name on its first row
                and rows[k].indent > head.indent + 1.0
                and any(c is not None for c in rows[k].cells)
                for k in (h - reach - 1, h + reach + 1)
            )
        ):
            reach += 1
        if not reach or abs((rows[h - reach].y + rows[h + reach].y) / 2 - head.y) > 0.25 * pitch:
            continue
        for k in [*range(h - reach, h), *range(h + 1, h + reach + 1)]:
            out[k] = replace(rows[k], parent=head.label)
            claimed.add(k)
    return out


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


def _title(lines: list[_Line], floor: int, top: int, em: float) -> tuple[str, str, str]:
    """(title, whole heading text) from the lines between the previous table and this one."""
    heading = [lines[i] for i in range(floor, top)]
    picked: list[str] = []
    under_unit: int | None = None  # picked lines below a Korean unit line ("(단위 : 백만원)")
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
            if _KO_UNIT_LINE.search(text) and under_unit is None:
                under_unit = len(picked)  # the lines read so far are the header's upper rows
            continue  # the unit line is the unit, not the title
        picked.insert(0, text)
        if len(picked) >= 3:
            break
    above = picked[: len(picked) - under_unit] if under_unit else _above_korean_unit(picked)
    subject = _subject_line(above) or _section_heading(heading[: len(heading) - len(picked)])
    return clean_text(" ".join(picked)), " ".join(ln.text for ln in heading), subject


# A Korean table's unit line ("(단위 : 백만원)") sits right above its header: the lines below it are
# the header's upper levels ("특수관계자 명칭 | 관계 | 수 익 | 비 용"), never what the table is about.
_KO_UNIT_LINE = re.compile(r"\(\s*단\s*위\s*[:：]")


def _above_korean_unit(picked: list[str]) -> list[str]:
    """The heading lines down to the last Korean unit line (all of them when there is none)."""
    last = max((k for k, text in enumerate(picked) if _KO_UNIT_LINE.search(text)), default=None)
    return picked if last is None else picked[: last + 1]


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
        text = re.sub(r"(?i)\s+(?:as\s+of|at)\s+" + plain(MONTH_DAY_YEAR) + "$", "", text)
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
            return _FOOTNOTE.sub("", clean_text(text)).strip()
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
    row_lines: list[_Line] = []
    status_words = _ends_in_status_words(lines, block)
    for line in sections + lines[block.start : block.end + 1]:
        if _is_header_like(line, cols, em) and not _is_data(line):
            continue
        r = _row_of(line, cols, em)
        if r is not None and (
            not all(c is None for c in r[2]) or _label_only_ok(line, cols, em, status_words)
        ):
            raw.append((*r, line.yc))
            row_lines.append(line)
    raw = _merged_category_rows(raw, row_lines, cols, em)
    raw = merge_banded_labels(raw, _trailing_labels(lines, block, cols, em, status_words))
    rows = tuple(_build_rows(raw))
    columns, rows = _labels_from_first_column(columns, rows)
    rows = rows_named_by_caption(rows, title)
    columns = _dates_from_title(columns, title, rows)
    columns = columns_dated_by_caption_month(columns, title, rows)
    columns = columns_dated_by_relative_caption(columns, heading)
    valued = sum(1 for r in rows if any(v is not None for v in r.values))
    if valued == 0 or (valued == 1 and len(cols) == 1 and not headers):
        return None  # a running footer with its page number ("Annual Report on Form 10-K  54")
    unit, per_share, exceptions = _units(heading_all, page_text)
    counter = "" if unit else stated_counter(heading_all)
    own = stated_units(heading_all)
    stated = own[-1] if own else ()
    if previous is not None and not headers and not own and (not unit or previous.stated):
        # A table continued under an interrupting line keeps the units it had above; a Korean
        # one counted under its own line ("(단위 : 사)") keeps its counter, not the page's money.
        unit, per_share = previous.unit, previous.per_share_unit
        exceptions, counter, stated = previous.exceptions, previous.counter, previous.stated
    if is_base_index(rows, heading_all):
        unit, per_share, exceptions = "", "", ()  # points of an index, not the page's money
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
        exceptions,
        counter,
        stated,
    )


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


def _trailing_labels(
    lines: list[_Line],
    block: _Block,
    cols: list[tuple[float, float]],
    em: float,
    status_words: bool,
) -> list[tuple[str, float, list[str | None], float]]:
    """Label-only lines right below a table's last row of figures, set close under it (at most
    four): the rest of a name wrapped around its figures, when the table is read in bands."""
    out: list[tuple[str, float, list[str | None], float]] = []
    below = lines[block.end]
    for line in lines[block.end + 1 : block.end + 5]:
        if (
            line.y0 - below.y1 > 1.5 * em
            or _is_data(line)
            or not _label_only_ok(line, cols, em, status_words)
        ):
            break
        r = _row_of(line, cols, em)
        if r is None:
            break
        out.append((*r, line.yc))
        below = line
    return out


def _label_only_ok(
    line: _Line, cols: list[tuple[float, float]], em: float, status_words: bool = False
) -> bool:
    """A section label sits left of the columns and is short (prose runs across them). Where the
    table's rows end in status words only (`status_words`), short words standing on their own in
    the columns beside it ("Establish", "Baseline": a target wrapped over the lines of a
    measure's name) belong to another column, not to the label; a table with a column of text
    beside its figures (a property's use) has lines of that text, not labels."""
    left = cols[0][0] - 0.5 * em
    label = [c for c in line.cells if c.x1 < left]
    beside = [c for c in line.cells if c not in label]
    return (
        bool(label)
        and (not beside or status_words)
        and all(c.x0 >= left and _status_word(c.text) for c in beside)
        and len(" ".join(c.text for c in label).split()) <= 14
    )


def _ends_in_status_words(lines: list[_Line], block: _Block) -> bool:
    """Every row of figures in the block ends, if at all, in figures or short status words ("75%",
    "≥95%", "Met", "Not Met"): the words right of its figures are a target or status column."""
    last = block.cols[-1][1]
    return all(
        _status_word(c.text)
        for line in lines[block.start : block.end + 1]
        if _is_data(line)
        for c in line.cells
        if c.x0 > last and c.kind == "text"  # (a target's figure is a figure, not a word)
    )


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

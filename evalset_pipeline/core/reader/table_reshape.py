"""Tables that print their periods in rows, reshaped so that every period is a column's.

The question writer and judge (`table_questions`) ask for one cell by its row and its column's
period. Two common layouts put the period in a row instead, and are otherwise unaskable:

- **Period bands.** A label-only row naming one period dates the rows below it, up to the next
  such row; the columns are segments or components:

      Segment Information (in millions)   Display   Optical   ...   Total
      For the year ended December 31, 2020
      Segment net sales                   3,172     3,563     ...   11,452
      For the year ended December 31, 2019
      Segment net sales                   3,254     4,064     ...   11,656

  becomes one table per band, each column dated with its band's period.

- **Roll-forwards.** A statement of equity or of accumulated other comprehensive income prints a
  balance row per date ("Balance at December 31, 2020") across component columns. Its balance
  rows, turned into columns, make each component a row with a figure "as of" each balance date:
  "What was Total stockholders' equity as of December 31, 2017?". The movements between
  balances (net loss, dividends) name no period of their own and are left out.

Nothing is computed: every reshaped cell is a cell the page prints.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from evalset_pipeline.core.pagetext.dates import find_dates
from evalset_pipeline.core.reader.table_reader import Column, Row, Table, clean_label, span_months

__all__ = ["reshape_tables", "band_period", "balance_date"]

# Words that may stand beside the date in a row that is only a period.
_PERIOD_ONLY = re.compile(
    r"\b(?:for|the|three|six|nine|twelve|months?|quarters?|fiscal|years?|weeks?|ended|ending|"
    r"as|of|at|period)\b",
    re.I,
)
_BALANCE = re.compile(
    r"^(?:ending\s+|beginning\s+|closing\s+|opening\s+)?balances?\b\s*(?:,|:|at|as\s+of|as\s+at)?",
    re.I,
)
# What may follow a balance's date: punctuation, or the usual "net of tax".
_BALANCE_TAIL = re.compile(r"^[\s,:;.]*(?:net\s+of\s+(?:income\s+)?tax(?:es)?)?[\s,:;.]*$", re.I)


def _undated(table: Table) -> bool:
    return all(c.end is None and c.year is None for c in table.columns)


def band_period(label: str) -> tuple[int | None, date] | None:
    """(months, end) of a row label that is a period and nothing else ("For the year ended
    December 31, 2020" -> (12, 2020-12-31), "As of June 30, 2023" -> (None, 2023-06-30)); None for
    anything more ("Balance at December 31, 2020") or a span of unknown length."""
    dates = find_dates(label)
    if len(dates) != 1:
        return None
    start, end, when = dates[0]
    rest = _PERIOD_ONLY.sub(" ", label[:start] + " " + label[end:])
    if re.search(r"[^\W\d_]{2,}", rest):
        return None
    months = span_months(label)
    if months is None and re.search(r"\b(?:ended|ending)\b", label, re.I):
        return None
    return months, when


def balance_date(label: str) -> date | None:
    """The date of a roll-forward's balance row ("Balance at December 31, 2020", "Balances as of
    June 27, 2015, net of tax:"), None for any other row."""
    head = _BALANCE.match(label.strip())
    dates = find_dates(label)
    if head is None or len(dates) != 1:
        return None
    start, end, when = dates[0]
    between = label.strip()[head.end() : start] if start >= head.end() else "x"
    if re.search(r"[^\W\d_]", between) or not _BALANCE_TAIL.match(label[end:]):
        return None
    return when


def _split_bands(table: Table) -> list[Table]:
    """One dated table per period band, [] when the table has none (rows above the first band
    name no period and stay in the original only)."""
    bands = [
        (i, period)
        for i, r in enumerate(table.rows)
        if all(v is None for v in r.values) and (period := band_period(r.label)) is not None
    ]
    out = []
    for k, (i, (months, end)) in enumerate(bands):
        stop = bands[k + 1][0] if k + 1 < len(bands) else len(table.rows)
        band = table.rows[i].label
        rows = tuple(
            replace(r, parent="" if r.parent == band else r.parent)
            for r in table.rows[i + 1 : stop]
        )
        columns = tuple(replace(c, end=end, months=months) for c in table.columns)
        out.append(replace(table, columns=columns, rows=rows))
    return out


def _transpose_balances(table: Table) -> Table | None:
    balances = [
        (r, when)
        for r in table.rows
        if (when := balance_date(r.label)) is not None and any(v is not None for v in r.values)
    ]
    if not balances or len({when for _, when in balances}) != len(balances):
        return None  # no balance rows, or one date printed twice (two sections): not one reading
    columns = tuple(
        Column(k, r.label, None, when, None, 0.0, 0.0) for k, (r, when) in enumerate(balances)
    )
    rows = []
    for j, col in enumerate(table.columns):
        label = clean_label(col.header)
        if not label:
            continue
        cells = tuple(r.cells[j] if j < len(r.cells) else None for r, _ in balances)
        values = tuple(r.values[j] if j < len(r.values) else None for r, _ in balances)
        if all(v is None for v in values):
            continue
        rows.append(Row(label, "", cells, values, 0.0, label.lower().startswith("total")))
    return replace(table, columns=columns, rows=tuple(rows)) if rows else None


def reshape_tables(tables: Sequence[Table]) -> list[Table]:
    """The page's tables, each table that prints its periods in rows followed by its reshaped
    readings (the original stays: its cells are the same cells, and its undated columns are never
    asked)."""
    out: list[Table] = []
    for table in tables:
        out.append(table)
        if not _undated(table):
            continue
        banded = _split_bands(table)
        if banded:
            out.extend(banded)
        elif (transposed := _transpose_balances(table)) is not None:
            out.append(transposed)
    return out

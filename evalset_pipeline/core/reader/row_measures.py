"""A row that names where its figure belongs (a country, a segment, a person) asked by the measure
its table names: "revenue from South Korea" of the row "South Korea" under "Revenue by geographic
area". The writer asks such a row so (`table_questions`) and the judge reads the question back
by the same words (`table_judge`); a name row in a table that names no measure is never asked.
"""

from __future__ import annotations

import re

from evalset_pipeline.core.reader.measure_words import heading_measure, is_name
from evalset_pipeline.core.reader.row_labels import _ASIDE
from evalset_pipeline.core.reader.table_page import column_measure
from evalset_pipeline.core.reader.table_records import Row, Table


def own_words(row: Row) -> str:
    """A row's label as a question names it when nothing else is needed: asides left out."""
    return _ASIDE.sub("", row.label).strip() or row.label.strip()


def table_measure(row: Row, table: Table) -> str:
    """What a row's figures measure, as its table says it: its parent's measure, else the
    heading's (the line the table sits under, its title), else the one every column's header
    names besides its period ("Revenue" over each year); "" when none names one."""
    for text in (row.parent, table.subject, table.title):
        found = heading_measure(text)
        if found:
            return found
    measures = {column_measure(c) for c in table.columns}
    return heading_measure(measures.pop()) if len(measures) == 1 else ""


# A flow earned somewhere is "from" it ("revenue from South Korea"); anything else is "of" it.
_EARNED = re.compile(r"(?i)\b(?:revenues?|sales|income)$")


def measure_label(row: Row, table: Table) -> str:
    """A name row ("South Korea") as a question names its figure ("revenue from South Korea",
    "total compensation of Jean-Philippe Courtois"); "" when the row is not a name (it says its
    measure itself) or its table names no measure."""
    own = own_words(row)
    if not is_name(own):
        return ""
    measure = table_measure(row, table)
    if not measure:
        return ""
    return f"{measure} {'from' if _EARNED.search(measure) else 'of'} {own}"

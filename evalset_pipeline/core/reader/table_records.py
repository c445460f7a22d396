"""The records a read table is made of: a column (its heading and the period it covers), a row
(its label, section and values) and a table (title, units, columns, rows).
"""

from __future__ import annotations

import datetime
from dataclasses import dataclass

from evalset_pipeline.core.pagetext.korean import measure_units


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
    # printed as a line of arithmetic ("차감: 현금및현금성자산", "Less: cash"): its label names the
    # account, its figure is the account taken away (printed with the sign of a deduction)
    deduction: bool = False


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
    # The rows the heading exempts from its scale, as it names them: ("per share data", "revenue
    # per membership") of "(in thousands, except per share data and revenue per membership)".
    exceptions: tuple[str, ...] = ()
    # The counter a Korean table's unit line names for its counts ("명" of "(단위 : 명)", "톤" of
    # "(단위 : 톤(tCO2-eq))"): asked "몇 명", answered "1,234 명"; "" for money and mixed units.
    counter: str = ""
    # The units a Korean table's own unit line states ("톤", "백만원" of "(단위 : 톤, 백만원)"), ()
    # without one: such a table is in its document's unit (`table_page.dated_page`).
    stated: tuple[str, ...] = ()

    @property
    def measures(self) -> tuple[str, ...]:
        """The units the unit line names beside money or percentages ("톤" of "(단위 : 톤,
        백만원)"): the unit of the figures a column or the title says are quantities ("수량")."""
        return measure_units(self.stated)

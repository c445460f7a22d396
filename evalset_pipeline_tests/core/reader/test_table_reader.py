"""table_reader reads financial tables drawn at known positions, and real statement pages when present."""

from __future__ import annotations

import csv
import datetime
from collections.abc import Sequence
from pathlib import Path

import pymupdf
import pytest

from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.reader.table_reader import (
    Row,
    Table,
    cell_unit,
    clean_label,
    parse_value,
    read_tables,
)
from evalset_pipeline_tests.support.korean_text import put_text

FONT = 9.0
RIGHT_EDGES = (380.0, 450.0, 520.0, 590.0)  # numbers right-align at these x positions

# A drawn item: ("l", x, text) left-aligned at x, ("r", x, text) right-aligned at x,
# ("c", x, text) centred on x.
Item = tuple[str, float, str]


def _put(page: pymupdf.Page, kind: str, x: float, y: float, text: str) -> None:
    put_text(page, kind, x, y, text, FONT)


def draw_layer(lines: Sequence[Sequence[Item]], tmp_path: Path, name: str = "t.pdf") -> dict:
    """One page, one line of items every 13 points; its text layer."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    y = 60.0
    for items in lines:
        for kind, x, text in items:
            _put(page, kind, x, y, text)
        y += 13.0
    path = tmp_path / name
    doc.save(path)
    doc.close()
    with pymupdf.open(path) as pdf:
        return text_layer_of(pdf[0])


def row(label: str, *cells: str, indent: float = 50.0, dollar: bool = False) -> list[Item]:
    """A table row: the label at `indent`, cells right-aligned on the column edges ("" = empty)."""
    items: list[Item] = [("l", indent, label)] if label else []
    for edge, cell in zip(RIGHT_EDGES, cells, strict=False):
        if cell:
            items.append(("r", edge, cell))
            if dollar:
                items.append(("l", edge - 62, "$"))
    return items


def centred(*texts: str, span: int = 1) -> list[Item]:
    """Header cells centred over runs of `span` columns."""
    out: list[Item] = []
    for k, text in enumerate(texts):
        cols = RIGHT_EDGES[k * span : (k + 1) * span]
        out.append(("c", (cols[0] - 22 + cols[-1] - 22) / 2 + 4, text))
    return out


def by_label(table: Table, label: str) -> Row:
    found = [r for r in table.rows if r.label == label]
    assert found, (label, [r.label for r in table.rows])
    return found[0]


# --- drawn statements ----------------------------------------------------------------------------


@pytest.fixture
def income(tmp_path: Path) -> Table:
    """A 10-Q income statement: quarter and nine-month spans over two date columns each."""
    layer = draw_layer(
        [
            [("l", 200, "CONSOLIDATED STATEMENTS OF OPERATIONS")],
            [("l", 190, "(in millions, except per share amounts)")],
            [],
            centred("Three Months Ended", "Nine Months Ended", span=2),
            centred("July 1, 2023", "July 2, 2022", "July 1, 2023", "July 2, 2022"),
            row("Net sales ..................", "1,234", "1,100", "3,700", "3,300", dollar=True),
            row("Cost of revenue:"),
            row("Product (1)", "600", "550", "1,800", "1,650", indent=62),
            row("Services *", "100", "90", "300", "270", indent=62),
            row("Total cost of revenue", "700", "640", "2,100", "1,920", indent=74),
            row("Gross profit", "534", "460", "1,600", "1,380"),
            row("Restructuring charges", "-", "25", "-", "60"),
            row("Operating (loss) income", "(120)", "1,234.5", "(1,234)", "12"),
            row("Diluted earnings per share", "0.52", "(0.11)", "1.48", "1.02", dollar=True),
            row("Number of employees", "12,000", "11,500", "12,000", "11,500"),
        ],
        tmp_path,
    )
    tables = read_tables(layer)
    assert len(tables) == 1
    return tables[0]


def test_spanning_fiscal_headers_give_each_column_its_period(income: Table) -> None:
    cols = income.columns
    assert len(cols) == 4
    assert [c.header for c in cols] == [
        "Three Months Ended July 1, 2023",
        "Three Months Ended July 2, 2022",
        "Nine Months Ended July 1, 2023",
        "Nine Months Ended July 2, 2022",
    ]
    assert [c.months for c in cols] == [3, 3, 9, 9]
    assert [c.end for c in cols] == [
        datetime.date(2023, 7, 1),
        datetime.date(2022, 7, 2),
        datetime.date(2023, 7, 1),
        datetime.date(2022, 7, 2),
    ]
    assert income.title == "CONSOLIDATED STATEMENTS OF OPERATIONS"


def test_dot_leaders_and_footnote_marks_leave_the_label(income: Table) -> None:
    net = by_label(income, "Net sales")
    assert net.cells == ("1,234", "1,100", "3,700", "3,300")  # the "$" is not part of the cell
    assert net.values == (1234.0, 1100.0, 3700.0, 3300.0)
    assert by_label(income, "Product").values[0] == 600.0
    assert by_label(income, "Services").values[0] == 100.0


def test_negatives_in_parentheses_and_dashes(income: Table) -> None:
    op = by_label(income, "Operating (loss) income")
    assert op.cells == ("(120)", "1,234.5", "(1,234)", "12")
    assert op.values == (-120.0, 1234.5, -1234.0, 12.0)
    r = by_label(income, "Restructuring charges")
    assert r.cells == ("-", "25", "-", "60") and r.values == (None, 25.0, None, 60.0)


def test_parent_rows_and_a_section_total(income: Table) -> None:
    assert by_label(income, "Cost of revenue").cells == (None,) * 4
    assert by_label(income, "Product").parent == "Cost of revenue"
    total = by_label(income, "Total cost of revenue")
    assert total.is_total and total.parent == "Cost of revenue"
    assert by_label(income, "Gross profit").parent == ""  # the total closed the section


def test_units_in_millions_except_per_share(income: Table) -> None:
    assert income.unit == "USD millions" and income.per_share_unit == "USD"
    assert cell_unit(income, by_label(income, "Net sales")) == "USD millions"
    assert cell_unit(income, by_label(income, "Diluted earnings per share")) == "USD"
    assert by_label(income, "Diluted earnings per share").values == (0.52, -0.11, 1.48, 1.02)


def test_a_headcount_row_never_gets_a_money_unit(income: Table) -> None:
    assert cell_unit(income, by_label(income, "Number of employees")) == ""
    table = Table((), (), "USD millions", "USD", "", 0, 0)
    for label in ("Employees at year end", "Headcount", "Total employees", "Full-time employees"):
        assert cell_unit(table, Row(label, "", ("10",), (10.0,), 50.0, False)) == "", label
    for label in (
        "Cash paid to suppliers and employees",
        "Employee benefits",
        "Compensation and benefits",
    ):
        assert cell_unit(table, Row(label, "", ("10",), (10.0,), 50.0, False)) == "USD millions", (
            label
        )


@pytest.fixture
def balance(tmp_path: Path) -> Table:
    """A balance sheet: two-line headers ("December 31," over each year), nested totals."""
    layer = draw_layer(
        [
            [("l", 220, "CONSOLIDATED BALANCE SHEETS")],
            [("l", 230, "(Dollars in thousands)")],
            centred("December 31,", "December 31,"),
            centred("2023", "2022"),
            row("ASSETS", indent=250),
            row("Current assets:"),
            row("Cash and cash equivalents", "5,000", "4,000", indent=62, dollar=True),
            row("Accounts receivable, net", "2,500", "2,100", indent=62),
            row("Total current assets", "7,500", "6,100", indent=74),
            row("Property and equipment, net", "3,000", "2,900"),
            row("Goodwill", "1,500", "1,500"),
            row("Total assets", "12,000", "10,500", dollar=True),
            row("Operating margin", "12.5%", "11.0%"),
        ],
        tmp_path,
    )
    tables = read_tables(layer)
    assert len(tables) == 1
    return tables[0]


def test_two_line_headers_and_comparative_dates(balance: Table) -> None:
    assert [c.header for c in balance.columns] == ["December 31, 2023", "December 31, 2022"]
    assert [c.end for c in balance.columns] == [
        datetime.date(2023, 12, 31),
        datetime.date(2022, 12, 31),
    ]
    assert [c.months for c in balance.columns] == [None, None]  # an instant, not a span
    assert balance.unit == "USD thousands" and balance.per_share_unit == ""


def test_a_section_total_is_not_the_grand_total(balance: Table) -> None:
    current = by_label(balance, "Total current assets")
    grand = by_label(balance, "Total assets")
    assert current.is_total and grand.is_total
    assert current.parent == "Current assets"
    assert grand.parent == "" and grand.values == (12000.0, 10500.0)
    assert by_label(balance, "Cash and cash equivalents").parent == "Current assets"
    assert by_label(balance, "Goodwill").parent == ""


def test_percentage_cells(balance: Table) -> None:
    margin = by_label(balance, "Operating margin")
    assert margin.values == (12.5, 11.0)
    assert cell_unit(balance, margin) == "%"


def test_bare_year_headers_and_year_ended_heading(tmp_path: Path) -> None:
    layer = draw_layer(
        [
            [("l", 200, "CONSOLIDATED STATEMENTS OF INCOME")],
            [
                ("l", 50, "(In millions of U.S. dollars)"),
                *centred("Year Ended December 31,", span=3),
            ],
            centred("2023", "2022", "2021"),
            row("Revenue", "900", "800", "700"),
            row("Net income", "90", "80", "70"),
        ],
        tmp_path,
    )
    (table,) = read_tables(layer)
    assert [c.months for c in table.columns] == [12, 12, 12]
    assert [c.end for c in table.columns] == [datetime.date(y, 12, 31) for y in (2023, 2022, 2021)]
    assert table.unit == "USD millions"


def test_fiscal_year_headers_without_dates(tmp_path: Path) -> None:
    layer = draw_layer(
        [
            [("l", 50, "Segment results ($ in millions)")],
            centred("Fiscal 2023", "Fiscal 2022"),
            row("Revenue", "900", "800"),
            row("Operating income", "90", "80"),
        ],
        tmp_path,
    )
    (table,) = read_tables(layer)
    assert [(c.year, c.end) for c in table.columns] == [(2023, None), (2022, None)]
    assert table.unit == "USD millions"


def test_two_tables_on_one_page(tmp_path: Path) -> None:
    layer = draw_layer(
        [
            [("l", 50, "Revenue by segment (in millions)")],
            centred("2023", "2022"),
            row("Cloud", "500", "400"),
            row("Devices", "300", "350"),
            row("Total revenue", "800", "750"),
            [],
            [("l", 50, "Employees by region")],
            centred("2023", "2022", "2021"),
            row("Americas", "1,000", "900", "800"),
            row("Europe", "500", "450", "400"),
        ],
        tmp_path,
    )
    first, second = read_tables(layer)
    assert [c.year for c in first.columns] == [2023, 2022]
    assert [c.year for c in second.columns] == [2023, 2022, 2021]
    assert first.title.startswith("Revenue by segment") and second.title == "Employees by region"
    assert by_label(first, "Total revenue").values == (800.0, 750.0)
    assert by_label(second, "Europe").values == (500.0, 450.0, 400.0)


def test_korean_unit(tmp_path: Path) -> None:
    layer = draw_layer(
        [
            [("l", 50, "연결 손익계산서"), ("l", 480, "(단위: 백만원)")],
            centred("2023", "2022"),
            row("매출액", "1,000", "900"),
            row("영업이익", "100", "90"),
            row("매출총계", "1,100", "990"),
        ],
        tmp_path,
    )
    (table,) = read_tables(layer)
    assert table.unit == "KRW millions"
    assert by_label(table, "매출총계").is_total


def test_clean_label_and_parse_value() -> None:
    assert clean_label("Net sales . . . . . . .") == "Net sales"
    assert clean_label("Revenue (a)") == "Revenue"
    assert clean_label("Goodwill †") == "Goodwill"
    assert clean_label("Other assets 2") == "Other assets"
    assert clean_label("Level 2") == "Level 2"  # a numbered name, not a footnote
    assert clean_label("Operating expenses:") == "Operating expenses"
    assert parse_value("(1,234)") == -1234.0
    assert parse_value("$1,234") == 1234.0
    assert parse_value("$(1,234)") == -1234.0
    assert parse_value("1,234.5") == 1234.5
    assert parse_value("12%") == 12.0
    assert parse_value("(4.4)%") == -4.4
    assert parse_value("—") is None and parse_value("-") is None and parse_value(None) is None
    assert parse_value("10-K") is None


def test_never_raises_on_odd_layers() -> None:
    assert read_tables({}) == []
    assert read_tables({"words": []}) == []
    assert read_tables({"words": [[0, 0, 0, 0, "", 0, 0, 0], ["x"], None]}) == []
    prose = {"words": [[50 + 30 * i, 100, 75 + 30 * i, 110, "word", 0, 0, i] for i in range(12)]}
    assert read_tables(prose) == []


def test_deterministic(income: Table, tmp_path: Path) -> None:
    layer = draw_layer(
        [centred("2023", "2022"), row("Revenue", "900", "800"), row("Cost", "(90)", "(80)")],
        tmp_path,
    )
    assert read_tables(layer) == read_tables(layer)


# --- real statement pages (when the shared corpus is there) ---------------------------------------

REAL = Path("/work/shared/realdocs/financebench-dev")


@pytest.mark.skipif(not (REAL / "statements.csv").exists(), reason=f"no real filings at {REAL}")
def test_real_statement_pages() -> None:
    with open(REAL / "statements.csv", newline="", encoding="utf-8") as f:
        listed = {(r["document"], int(r["page"])) for r in csv.DictReader(f)}
    pages = [
        ("ADOBE_2017_10K.pdf", 58),
        ("JPMORGAN_2023Q2_10Q.pdf", 96),
        ("MICROSOFT_2023_10K.pdf", 58),
    ]
    assert set(pages) <= listed
    tables = {}
    for doc, page in pages:  # pages in statements.csv count from 1
        with pymupdf.open(REAL / "pdfs" / doc) as pdf:
            tables[doc] = read_tables(text_layer_of(pdf[page - 1]))
        assert tables[doc], doc

    adobe = tables["ADOBE_2017_10K.pdf"][0]
    assert adobe.unit == "USD thousands" and adobe.per_share_unit == "USD"
    col = next(c for c in adobe.columns if c.end == datetime.date(2017, 12, 1))
    assert col.months == 12
    total = by_label(adobe, "Total revenue")
    assert total.values[col.index] == 7301505.0 and total.is_total and total.parent == "Revenue"
    assert cell_unit(adobe, by_label(adobe, "Basic net income per share")) == "USD"
    assert (
        cell_unit(adobe, by_label(adobe, "Shares used to compute basic net income per share"))
        == "thousands"  # a share count in the statement's scale, never money
    )

    jpm = tables["JPMORGAN_2023Q2_10Q.pdf"][0]
    assert [c.months for c in jpm.columns] == [3, 3, 6, 6]
    assert jpm.columns[0].end == datetime.date(2023, 6, 30)
    assert by_label(jpm, "Total net revenue").values[0] == 41307.0
    assert by_label(jpm, "Investment securities losses").values[0] == -900.0

    msft = tables["MICROSOFT_2023_10K.pdf"][0]
    assert msft.unit == "USD millions"
    assert [c.end for c in msft.columns][0] == datetime.date(2023, 6, 30)
    diluted = [r for r in msft.rows if r.label == "Diluted"]
    assert [cell_unit(msft, r) for r in diluted] == ["USD", "millions"]  # EPS, then the shares
    assert by_label(msft, "Total revenue").values == (211915.0, 198270.0, 168088.0)


def test_a_two_column_page_is_read_one_column_at_a_time(tmp_path: Path) -> None:
    """A table and its footnote in the left column, discussion in the right: lines at the same
    height belong to different columns, so a prose line is never read as a row or a header."""
    prose = [
        "Net revenue was higher than a year ago, driven by growth in",
        "fees across every line of business, partly offset by lower",
        "deposit margins and lower balances in the consumer business",
        "which continued to reflect the low rate environment for the",
        "whole of the quarter and the rest of the year ended in June.",
        "Expenses rose on investment in technology and marketing as",
        "well as higher volume-related costs in the card business.",
        "The provision for credit losses was a net benefit, reflecting",
        "reserve releases in the card and home lending portfolios.",
        "Net charge-offs were lower on continued strong credit",
        "performance across the consumer and wholesale books.",
    ]
    left = [
        [("l", 40, "Selected income statement data")],
        [("l", 40, "($ in millions)")],
        [("r", 200, "Three months ended"), ("r", 290, "Three months ended")],
        [("r", 200, "June 30, 2023"), ("r", 290, "June 30, 2022")],
        [("l", 40, "Card income"), ("r", 200, "1,200"), ("r", 290, "1,100")],
        [("l", 40, "Total net revenue"), ("r", 200, "4,077"), ("r", 290, "3,389")],
        [("l", 40, "Net income"), ("r", 200, "1,244"), ("r", 290, "669")],
        [],
        [("l", 40, "(a) In the first quarter the wealth business was")],
        [("l", 40, "renamed and certain of its clients were moved to")],
        [("l", 40, "the consumer unit, as described in the annual report.")],
    ]
    assert len(left) == len(prose)
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for k, (items, text) in enumerate(zip(left, prose, strict=False)):
        for kind, x, cell in items:
            _put(page, kind, x, 60.0 + 13 * k, cell)
        _put(page, "l", 330, 66.5 + 13 * k, text)  # the columns' baselines do not line up
    doc.save(tmp_path / "two.pdf")
    doc.close()
    with pymupdf.open(tmp_path / "two.pdf") as pdf:
        layer = text_layer_of(pdf[0])
    [table] = read_tables(layer)
    assert [c.end for c in table.columns] == [
        datetime.date(2023, 6, 30),
        datetime.date(2022, 6, 30),
    ]
    assert [c.months for c in table.columns] == [3, 3]
    assert [r.label for r in table.rows] == ["Card income", "Total net revenue", "Net income"]
    assert by_label(table, "Total net revenue").values == (4077.0, 3389.0)
    assert table.unit == "USD millions"


def test_labels_that_landed_in_the_first_column_are_moved_back() -> None:
    from evalset_pipeline.core.reader.table_reader import Column, _labels_from_first_column

    cols = tuple(
        Column(i, h, 12, datetime.date(y, 12, 31) if y else None, None, 0.0, 0.0)
        for i, (h, y) in enumerate([("", None), ("2020", 2020), ("2019", 2019)])
    )
    rows = (
        Row("Net revenues by platform:", "", (None, None, None), (None, None, None), 0.0, False),
        Row("", "", ("Console", "1,920", "2,538"), (None, 1920.0, 2538.0), 0.0, False),
        Row("", "", ("PC (1)", "1,718", "2,180"), (None, 1718.0, 2180.0), 0.0, False),
    )
    columns, moved = _labels_from_first_column(cols, rows)
    assert [c.header for c in columns] == ["2020", "2019"] and [c.index for c in columns] == [0, 1]
    assert [(r.label, r.cells) for r in moved] == [
        ("Net revenues by platform:", (None, None)),
        ("Console", ("1,920", "2,538")),
        ("PC", ("1,718", "2,180")),
    ]
    numbers = (
        Row("", "", ("12", "1,920", "2,538"), (12.0, 1920.0, 2538.0), 0.0, False),
        Row("", "", ("14", "1,718", "2,180"), (14.0, 1718.0, 2180.0), 0.0, False),
    )
    assert _labels_from_first_column(cols, numbers) == (
        cols,
        numbers,
    )  # a column of figures stays one


def test_quarter_headers_are_dated_by_the_filers_calendar(tmp_path: Path) -> None:
    """ "1Q21 | 4Q20 | 1Q20" over a highlights table: quarters, not years ("1Q21" once counted as
    the year 2021), dated only by the document's fiscal calendar; the filing's own quarter keeps
    the filing's own date (a 52/53-week quarter ends on a Saturday)."""
    from evalset_pipeline.core.judging.base import PageContext
    from evalset_pipeline.core.reader.table_questions import TablePage, dated_page

    layer = draw_layer(
        [
            [("l", 50, "Consolidated financial highlights (in millions)")],
            centred("1Q21", "4Q20", "1Q20"),
            row("Total net revenue", "32,266", "29,335", "28,286"),
            row("Net income", "14,300", "12,136", "2,865"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [(c.months, c.end, c.year, c.quarter) for c in table.columns[-3:]] == [
        (3, None, None, (2021, 1)),
        (3, None, None, (2020, 4)),
        (3, None, None, (2020, 1)),
    ]
    page = TablePage("", (table,))
    assert dated_page(page, None) == page  # no document, no calendar: never asked
    own = PageContext("Bank", "10-Q", "2021-Q1", "2021-04-03")
    dated = dated_page(page, own).tables[0].columns[-3:]
    assert [(c.months, c.end) for c in dated] == [
        (3, datetime.date(2021, 4, 3)),
        (3, datetime.date(2020, 12, 31)),
        (3, datetime.date(2020, 3, 31)),
    ]

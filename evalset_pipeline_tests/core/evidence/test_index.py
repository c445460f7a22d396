"""The evidence index reads every printed cell with its row, period and unit, and finds the pages
that print a figure or a row for a period."""

from datetime import date

import pytest

from evalset_pipeline.core.evidence.figures import Figure, answer_figure
from evalset_pipeline.core.evidence.index import label_key, period_keys
from evalset_pipeline_tests.core.evidence.drawn import index_of, statement


@pytest.fixture
def index(tmp_path):
    return index_of(
        {
            "this": statement(
                tmp_path,
                "this",
                "Consolidated Statements of Operations",
                ("2023", "2022"),
                {"Net sales": ("1,064", "987"), "Operating income": ("312", "298")},
            ),
            "next": statement(
                tmp_path,
                "next",
                "Consolidated Statements of Operations",
                ("2024", "2023"),
                {"Net sales": ("1,190", "1,064"), "Operating income": ("355", "312")},
            ),
            "other": statement(
                tmp_path,
                "other",
                "Consolidated Statements of Operations",
                ("2023", "2022"),
                {"Net sales": ("5,412", "5,100"), "Land": ("1,064", "1,001")},
            ),
        }
    )


def test_cells_keep_row_period_and_unit(index):
    cells = {(c.label, c.year, c.display) for c in index.cells_of("this")}
    assert ("Net sales", 2023, "1,064") in cells and ("Operating income", 2022, "298") in cells
    cell = next(c for c in index.cells_of("this") if c.display == "1,064")
    assert cell.unit == "millions" and cell.scale == 1e6 and cell.periods == ("y:2023",)


def test_a_figure_is_found_on_every_page_that_prints_it_in_any_row(index):
    figure = answer_figure("1,064 (USD millions)")
    assert {c.unit_id for c in index.cells_printing(figure)} == {"this", "next", "other"}
    assert not index.cells_printing(Figure("1064", 1064.0, 1e3))  # in thousands: another amount
    assert index.pages_printing_text("1064") == {"this", "next", "other"}


def test_a_row_is_found_for_a_period_whoever_prints_it(index):
    assert index.pages_with_row("net sales", ("y:2023",)) == {"this", "next", "other"}
    assert index.pages_with_row("Net sales", ("y:2024",)) == {"next"}
    assert index.pages_with_row("Total", ("y:2023",)) == set()  # a position, not a line item


def test_labels_and_periods_compare_as_the_judge_reads_them():
    assert label_key("Sales, net") == label_key("net sales")
    assert label_key("현금 및 현금성자산") == label_key("현금및현금성자산")
    assert period_keys(12, date(2023, 12, 31), None) == ("m12:2023-12-31", "y:2023")
    assert period_keys(None, None, 2023) == ("y:2023",)
    assert period_keys(None, date(2023, 12, 31), None) == (
        "i:2023-12-31",
        "m12:2023-12-31",
        "y:2023",
    )
    assert period_keys(None, date(2023, 6, 30), None) == ("i:2023-06-30", "m12:2023-06-30")
    assert period_keys(3, None, None) == ()

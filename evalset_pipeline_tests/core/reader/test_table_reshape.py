"""Periods printed in rows become columns: period bands and roll-forward balances, on drawn pages."""

from __future__ import annotations

import datetime

import pytest

from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.table_reader import read_tables
from evalset_pipeline.core.reader.table_reshape import balance_date, band_period, reshape_tables
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row

SEGMENTS = [
    [("l", 50, "Segment information (dollars in millions)")],
    centred("Display", "Optical", "Specialty", "Total"),
    [("l", 50, "For the year ended December 31, 2020")],
    row("Segment net sales", "3,172", "3,563", "1,884", "8,619"),
    row("Capital expenditures", "311", "127", "125", "563"),
    [("l", 50, "For the year ended December 31, 2019")],
    row("Segment net sales", "3,254", "4,064", "1,594", "8,912"),
    row("Capital expenditures", "390", "210", "130", "730"),
]

ROLL_FORWARD = [
    [("l", 50, "Changes in accumulated other comprehensive income (dollars in millions)")],
    centred("Translation", "Cash flow", "Pension", ""),
    centred("adjustments", "hedges", "plans", "Total"),
    row("Balance at December 31, 2021", "(545)", "(1,472)", "1,074", "(943)"),
    row("Other comprehensive loss", "(153)", "(174)", "(317)", "(644)"),
    row("Amounts reclassified to net income", "—", "496", "(334)", "162"),
    row("Balance at December 31, 2022", "(698)", "(1,150)", "423", "(1,425)"),
]


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("For the year ended December 31, 2020", (12, datetime.date(2020, 12, 31))),
        ("Six months ended June 30, 2023", (6, datetime.date(2023, 6, 30))),
        ("As of June 30, 2023", (None, datetime.date(2023, 6, 30))),
        ("December 31, 2021", (None, datetime.date(2021, 12, 31))),
        ("Balance at December 31, 2020", None),  # a row of figures, not a period
        ("Period ended June 30, 2023", None),  # a span of unknown length
        ("Net sales for 2022 and 2021", None),
    ],
)
def test_band_period_is_a_period_and_nothing_else(label, expected):
    assert band_period(label) == expected


@pytest.mark.parametrize(
    ("label", "expected"),
    [
        ("Balance at December 31, 2020", datetime.date(2020, 12, 31)),
        ("Balances as of June 27, 2015, net of tax:", datetime.date(2015, 6, 27)),
        ("Ending balance, September 30, 2023", datetime.date(2023, 9, 30)),
        (
            "Balance at December 31, 2020, as previously reported",
            None,
        ),  # a revision, not a plain balance
        ("Net loss for the year ended December 31, 2020", None),
        ("Balance of loans at December 31, 2020", None),
    ],
)
def test_balance_date_reads_only_balance_rows(label, expected):
    assert balance_date(label) == expected


def test_period_bands_date_the_rows_below_them(tmp_path):
    tables = reshape_tables(read_tables(draw_layer(SEGMENTS, tmp_path)))
    dated = [t for t in tables if all(c.end is not None for c in t.columns)]
    assert [t.columns[0].end for t in dated] == [
        datetime.date(2020, 12, 31),
        datetime.date(2019, 12, 31),
    ]
    assert all(c.months == 12 for t in dated for c in t.columns)
    # Each band holds its own rows, with the band no longer their section.
    assert [(r.label, r.parent, r.cells[1]) for r in dated[1].rows] == [
        ("Segment net sales", "", "4,064"),
        ("Capital expenditures", "", "210"),
    ]


def test_a_banded_table_is_asked_by_its_segment_column_and_band_period(tmp_path):
    page = read_table_page(draw_layer(SEGMENTS, tmp_path))
    written = write_table_question(page)
    assert written is not None
    assert "for the year ended December 31, 2020" in written.question  # the latest band
    # A segment is named by its column (every column has the same period); their total is the
    # row's own figure, asked without "in the Total column".
    assert " column " in written.question or "Total" not in written.question
    q = parse_table_question(written.question)
    assert judge_table_question(q, page).answer == written.answer
    # The same row and segment for the prior band is a different cell, read from its own band.
    prior = parse_table_question(
        "What were Capital expenditures in the Optical column for the year ended December 31, 2019?"
    )
    assert judge_table_question(prior, page).answer == "210 (USD millions)"


def test_roll_forward_balances_become_dated_columns(tmp_path):
    page = read_table_page(draw_layer(ROLL_FORWARD, tmp_path))
    q = parse_table_question("What were Cash flow hedges as of December 31, 2022?")
    assert judge_table_question(q, page).answer == "(1,150) (USD millions)"
    opening = parse_table_question("What was Total as of December 31, 2021?")
    assert judge_table_question(opening, page).answer == "(943) (USD millions)"
    # Movements between balances name no period: never asked, never answered.
    moved = parse_table_question("What was Other comprehensive loss as of December 31, 2022?")
    assert not judge_table_question(moved, page).answers
    written = write_table_question(page)
    assert written is not None and "as of December 31, 2022" in written.question

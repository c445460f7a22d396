"""Periods printed in rows become columns: period bands and roll-forward balances, on drawn pages."""

from __future__ import annotations

import datetime

import pytest

from evalset_pipeline.core.vlm.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.vlm.table_reader import read_tables
from evalset_pipeline.core.vlm.table_reshape import balance_date, band_period, reshape_tables
from evalset_pipeline_tests.core.vlm.test_table_reader import centred, draw_layer, row

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
    assert " column " in written.question  # the segment is named: every column has the same period
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


def test_a_footnote_line_is_not_a_row_and_does_not_break_the_columns(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(amounts in millions)")],
            centred("2019", "2018"),
            row("Segment net revenues", "5,969", "6,835"),
            row("Consolidated net revenues", "6,489", "7,500"),
            [("l", 40, "(1)"), ("l", 60, "Includes other income and expenses of segments managed")],
            [("l", 40, "(2)"), ("l", 60, "Since certain of our games are hosted online, we defer")],
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [c.year for c in table.columns] == [2019, 2018]
    assert [r.label for r in table.rows] == ["Segment net revenues", "Consolidated net revenues"]


def test_invisible_format_characters_never_reach_a_label(tmp_path):
    layer = draw_layer(
        [
            centred("2023", "2022"),
            row("Life Sciences", "998", "1,015"),
            row("All Other", "465", "230"),
        ],
        tmp_path,
    )
    # As some filings' text layers carry it: a left-to-right mark inside the label.
    layer["words"] = [
        [*w[:4], "Life\u200e", *w[5:]] if w[4] == "Life" else w for w in layer["words"]
    ]
    [table] = read_tables(layer)
    assert table.rows[0].label == "Life Sciences"


# --- headers, units and sections read off real filings' layouts ---------------------------------


def test_a_change_column_names_no_period(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(dollars in millions)")],
            centred("2021", "2020", "2021 vs."),
            centred("", "", "2020"),
            row("Unrealized gain, net", "307", "(30)", "337"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [c.year for c in table.columns] == [2021, 2020, None]


def test_prose_naming_a_currency_does_not_make_a_dollar_table_that_currency(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "We hedge our exposure to the South Korean won and the Japanese yen.")],
            [("l", 50, "(in millions)")],
            centred("2022", "2021"),
            row("Net income", "769", "700", dollar=True),
            row("Capital expenditures", "311", "290"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.unit == "USD millions"


def test_rows_under_a_percent_of_section_are_percentages(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("2017", "2016"),
            row("Fulfillment", "25,249", "17,619", dollar=True),
            [("l", 50, "Percent of Net Sales:")],
            row("Fulfillment", "14.2", "13.0", indent=60),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    q = parse_table_question("What was Fulfillment under Percent of Net Sales in 2017?")
    assert judge_table_question(q, page).answer == "14.2%"


def test_rows_of_a_table_by_segment_are_asked_under_its_heading(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Unearned revenue by segment was as follows:")],
            [("l", 50, "(In millions)")],
            [("l", 50, "June 30,"), *centred("2023", "2022")],
            row("Productivity and Business Processes", "27,572", "24,558", dollar=True),
            row("Intelligent Cloud", "21,563", "19,371"),
            row("More Personal Computing", "4,678", "4,479"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    # "June 30," left of the years dates them: balances as of June 30.
    assert [(c.end, c.months) for c in table.columns] == [
        (datetime.date(2023, 6, 30), None),
        (datetime.date(2022, 6, 30), None),
    ]
    written = write_table_question(read_table_page(layer))
    assert written is not None
    assert " under Unearned revenue by segment as of June 30, 2023?" in written.question


def test_a_section_that_ends_mid_phrase_is_never_asked_under(tmp_path):
    layer = draw_layer(
        [
            centred("2018", "2017"),
            [("l", 50, "Increase in earnings per share, due to:")],
            row("Divestiture gains", "(0.15)", "0.10", indent=60),
            row("Tax reform", "0.20", "0.12", indent=60),
        ],
        tmp_path,
    )
    assert write_table_question(read_table_page(layer)) is None


def test_a_label_wrapping_below_its_figures_keeps_its_last_word(tmp_path):
    layer = draw_layer(
        [
            centred("2017", "2016"),
            row("Provision for (benefit from) income", "(73,608)", "73,829"),
            row("taxes"),
            row("Effective tax rate", "(15)%", "28%"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [r.label for r in table.rows] == [
        "Provision for (benefit from) income taxes",
        "Effective tax rate",
    ]


def test_a_column_of_words_between_label_and_figures_is_not_the_label(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Location of lease balances"), *centred("2022", "2021")],
            [("l", 50, "Operating lease assets"), ("l", 200, "Other assets"), ("r", 380, "842")]
            + [("r", 450, "741")],
            [("l", 50, "Operating lease liabilities"), ("l", 200, "Other liabilities")]
            + [("r", 380, "111"), ("r", 450, "94")],
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [r.label for r in table.rows] == [
        "Operating lease assets",
        "Operating lease liabilities",
    ]


def test_a_sentence_cut_short_is_no_heading_to_ask_under(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "The following table presents goodwill attributed to the")],
            [("l", 50, "(in millions)")],
            centred("2022", "2021"),
            row("Corporate", "650", "727", dollar=True),
            row("Commercial Banking", "2,986", "2,986"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.subject == ""


def test_balances_of_two_dates_months_apart_are_instants_whatever_the_heading_spans(tmp_path):
    layer = draw_layer(
        [
            [
                (
                    "l",
                    50,
                    "The following tables provide information on gross charge-offs for the six months",
                )
            ],
            [("l", 50, "ended June 30, 2023 (in millions).")],
            centred("Jun 30, 2023", "Dec 31, 2022"),
            row("Investment-grade loans", "127,826", "127,037", dollar=True),
            row("Noninvestment-grade loans", "1,231", "948"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [(c.end, c.months) for c in table.columns] == [
        (datetime.date(2023, 6, 30), None),
        (datetime.date(2022, 12, 31), None),
    ]


def test_a_league_table_is_never_asked(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "League table results - wallet share")],
            centred("2023", "2023", "2022", "2022"),
            centred("Share", "Rank", "Share", "Rank"),
            row("Global investment banking fees", "8.4", "1", "8.0", "1"),
            row("Long-term debt securities", "6.6", "2", "6.9", "1"),
        ],
        tmp_path,
    )
    assert write_table_question(read_table_page(layer)) is None

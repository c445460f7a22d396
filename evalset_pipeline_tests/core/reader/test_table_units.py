"""A cell's unit where the heading's scale is not the row's: the rows an "except …" clause names,
and the points of a base-100 index (each a failure read off a real filing, drawn in general form)."""

from __future__ import annotations

from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
)
from evalset_pipeline.core.reader.table_reader import cell_unit, read_tables
from evalset_pipeline_tests.core.reader.test_table_reader import by_label, centred, draw_layer, row


def test_a_heading_exempts_the_rows_it_names_from_its_scale(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "SELECTED FINANCIAL DATA")],
            [("l", 50, "(in thousands, except per share data and revenue per membership)")],
            centred("2015", "2014"),
            row("Revenues", "6,779,511", "5,504,656", dollar=True),
            row("Diluted earnings per share", "0.28", "0.63", dollar=True),
            row("Streaming members at end of period", "74,762", "57,391"),
            row("Paid memberships at end of period", "70,839", "54,477"),
            row("Average monthly revenue per paying membership", "8.15", "8.20", dollar=True),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.exceptions == ("per share data", "revenue per membership")
    assert cell_unit(table, by_label(table, "Revenues")) == "USD thousands"
    assert cell_unit(table, by_label(table, "Diluted earnings per share")) == "USD"
    # members are counted in the heading's thousands; the revenue per member is dollars
    assert cell_unit(table, by_label(table, "Streaming members at end of period")) == "thousands"
    # "paid" says which members are counted, not an amount paid
    assert cell_unit(table, by_label(table, "Paid memberships at end of period")) == "thousands"
    revenue_per = by_label(table, "Average monthly revenue per paying membership")
    assert cell_unit(table, revenue_per) == "USD"
    # and a question about it reads back in dollars
    page = read_table_page(layer)
    asked = parse_table_question("What was Average monthly revenue per paying membership in 2015?")
    assert judge_table_question(asked, page).answer == "8.15 (USD)"


def test_exempted_ratios_margins_and_counts(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "FIVE-YEAR SUMMARY")],
            [("l", 50, "(in millions, except per share amounts, margins and number of stores)")],
            centred("2020", "2019"),
            row("Net sales", "9,100", "8,700", dollar=True),
            row("Gross margin", "31.2", "30.8"),
            row("Stores open at end of year", "1,021", "998"),
            row("Net sales per store", "8.9", "8.7", dollar=True),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.exceptions == ("per share amounts", "margins", "number of stores")
    assert cell_unit(table, by_label(table, "Gross margin")) == "%"
    assert cell_unit(table, by_label(table, "Stores open at end of year")) == ""
    # a figure per store is not a count of stores: the heading's money
    assert cell_unit(table, by_label(table, "Net sales per store")) == "USD millions"
    assert cell_unit(table, by_label(table, "Net sales")) == "USD millions"


def test_share_counts_a_heading_exempts_are_printed_as_they_are(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(In thousands, except share and per share data)")],
            centred("2023", "2022"),
            row("Net income", "52,100", "48,300", dollar=True),
            row("Basic net income per share", "1.04", "0.97", dollar=True),
            row("Weighted average shares outstanding", "50,096,154", "49,793,814"),
            row("Treasury shares (1 and 2 million shares, respectively)", "(12)", "(25)"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert cell_unit(table, by_label(table, "Basic net income per share")) == "USD"
    assert cell_unit(table, by_label(table, "Weighted average shares outstanding")) == ""
    assert cell_unit(table, by_label(table, "Net income")) == "USD thousands"
    # a label that counts its shares in words prints their amount
    treasury = by_label(table, "Treasury shares (1 and 2 million shares, respectively)")
    assert cell_unit(table, treasury) == "USD thousands"


def test_as_noted_names_no_rows(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions, except as otherwise noted)")],
            centred("2023", "2022"),
            row("Net income", "52", "48", dollar=True),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.exceptions == ()


PERFORMANCE = [
    [("l", 50, "Share repurchases (amounts in billions)")],
    centred("2019", "2018"),
    row("Total repurchases", "5.7", "7.4", dollar=True),
    [],
    [],
    [],
    [("l", 50, "Comparison of five-year cumulative total return")],
    centred("2017", "2018", "2019", "2020"),
    row("Acme Stores Inc.", "100.00", "115.20", "131.10", "159.30", dollar=True),
    row("S&P 500 Index", "100.00", "95.62", "125.72", "148.85"),
    row("S&P 500 Retail Index", "100.00", "111.43", "137.10", "192.27"),
]


def test_a_base_100_index_has_no_currency_or_scale(tmp_path):
    repurchases, index = read_tables(draw_layer(PERFORMANCE, tmp_path))
    assert repurchases.unit == "USD billions"
    assert index.unit == "" and index.per_share_unit == ""
    assert {cell_unit(index, r) for r in index.rows} == {""}
    page = read_table_page(draw_layer(PERFORMANCE, tmp_path))
    asked = parse_table_question("What was S&P 500 Index in 2020?")
    assert judge_table_question(asked, page).answer == "148.85"


def test_a_table_of_hundreds_without_an_index_keeps_its_scale(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Units shipped (in thousands)")],
            centred("2019", "2020"),
            row("Model A units", "100", "120"),
            row("Model B units", "100", "90"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.unit == "thousands"


def test_rates_headcounts_and_an_eps_computation_keep_their_own_units(tmp_path):
    """A rate named by its head phrase is a percentage; an "Employees" column counts people; an
    EPS computation's numerator is earnings, its denominator shares (both say "per share")."""
    rates = draw_layer(
        [
            [("l", 50, "LOAN MODIFICATIONS")],
            [("l", 50, "(in millions)")],
            centred("2021", "2020"),
            row("Total loans modified", "1,250", "980", dollar=True),
            row("Weighted-average interest rate of loans after modification", "2.91", "3.10"),
        ],
        tmp_path,
    )
    [table] = read_tables(rates)
    assert cell_unit(table, by_label(table, "Total loans modified")) == "USD millions"
    rate = by_label(table, "Weighted-average interest rate of loans after modification")
    assert cell_unit(table, rate) == "%"

    (tmp_path / "eps").mkdir()
    (tmp_path / "people").mkdir()
    eps = draw_layer(
        [
            [("l", 50, "NET LOSS PER SHARE")],
            [("l", 50, "(in millions, except per share amounts)")],
            centred("2015", "2014"),
            row(
                "Numerator for basic and diluted net loss per share", "(660)", "(403)", dollar=True
            ),
            row("Denominator for basic and diluted net loss per share", "784", "776"),
            row("Basic and diluted net loss per share", "(0.84)", "(0.52)", dollar=True),
        ],
        tmp_path / "eps",
    )
    [table] = read_tables(eps)
    numerator = by_label(table, "Numerator for basic and diluted net loss per share")
    assert cell_unit(table, numerator) == "USD millions"
    denominator = by_label(table, "Denominator for basic and diluted net loss per share")
    assert cell_unit(table, denominator) == "millions"
    assert cell_unit(table, by_label(table, "Basic and diluted net loss per share")) == "USD"

    people = draw_layer(
        [
            [("l", 50, "EMPLOYEES AND FACILITIES")],
            [("l", 50, "(square feet in thousands)")],
            centred("Employees", "Square feet"),
            row("Latin America and Canada", "16,249", "1,200"),
            row("Asia Pacific", "18,500", "2,100"),
        ],
        tmp_path / "people",
    )
    [table] = read_tables(people)
    latam = by_label(table, "Latin America and Canada")
    assert cell_unit(table, latam, 0) == ""


def test_a_currency_symbol_before_the_scale_word_is_the_tables_unit(tmp_path):
    """ "$ million" over a segment table (no "in", no parenthesis) is USD millions; a figure in
    prose ("a $5 million charge") states no unit for a table."""
    layer = draw_layer(
        [
            [("l", 50, "Segment Information")],
            [("l", 50, "$ million")],
            centred("2023", "2022"),
            row("Flexibles", "1,539", "1,492"),
            row("Other", "(86)", "(71)"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert cell_unit(table, by_label(table, "Other")) == "USD millions"

"""A row naming where its figure belongs (a country, a person) is asked by the measure its table
names, and read back so; a name row in a table naming no measure is never asked."""

from __future__ import annotations

import re

from evalset_pipeline.core.reader.measure_words import heading_measure, is_name
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row


def test_a_name_is_told_from_a_measure() -> None:
    for name in (
        "South Korea",
        "Jean-Philippe Courtois",
        "Other countries",
        "Intelligent Cloud",
        "Western Hemisphere excluding U.S.",
        "Japan",
    ):
        assert is_name(name), name
    for measure in (
        "Total revenue",
        "Hardware and software",
        "Stock Awards",
        "Total",
        "Other",
        "Total Company",
        "Distributions and other",
        "Distributions and other (Note 14)",
        "Noncontrolling Interests",
    ):
        assert not is_name(measure), measure


def test_the_measure_a_heading_names() -> None:
    assert heading_measure("Revenue by geographic area:") == "revenue"
    assert (
        heading_measure(
            "Revenue, classified by the major geographic areas in which our customers were "
            "located, was as follows:"
        )
        == "revenue"
    )
    assert heading_measure("Total Compensation ($)") == "total compensation"
    assert heading_measure("The following table presents net revenues") == "net revenues"
    assert heading_measure("Top 20 country exposures (excluding the U.S.)") == "exposures"
    for none in (
        "SELECTED FINANCIAL DATA",
        "CONSOLIDATED BALANCE SHEETS",
        "Executive officers",
        "Consolidated Statements of Changes in Equity",
        "Supplementary Sales Data",
    ):
        assert heading_measure(none) == "", none


GEOGRAPHY = [
    [
        (
            "l",
            50,
            "Revenue, classified by the major geographic areas in which our customers were "
            "located, was as follows:",
        )
    ],
    [("l", 50, "($ in millions)")],
    centred("2022", "2021"),
    row("United States", "1,200", "1,100"),
    row("South Korea", "300", "250"),
    row("Other countries", "150", "140"),
]


def test_a_country_row_is_asked_by_the_tables_measure_and_read_back(tmp_path):
    page = read_table_page(draw_layer(GEOGRAPHY, tmp_path))
    written = write_table_question(page)
    assert written is not None
    m = re.fullmatch(
        r"What (?:was|were) the revenue from (United States|South Korea|Other countries) in 2022\?",
        written.question,
    )
    assert m, written.question
    judged = judge_table_question(parse_table_question(written.question), page)
    assert judged.answers and judged.answer == written.answer
    korea = parse_table_question("What was the revenue from South Korea in 2022?")
    assert judge_table_question(korea, page).answer == "300 (USD millions)"
    # the bare name still reads back as the row it is, and no other row answers the measure
    assert judge_table_question(parse_table_question("What was South Korea in 2022?"), page).answers
    other = parse_table_question("What were the assets of South Korea in 2022?")
    assert not judge_table_question(other, page).answers


def test_a_person_row_is_asked_by_the_compensation_its_table_names(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Total Compensation ($)")],
            centred("2016", "2015"),
            row("Jean Dupont", "12,400", "11,800"),
            row("Mary Smith", "10,250", "9,900"),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    written = write_table_question(page)
    assert written is not None
    assert re.fullmatch(
        r"What was the total compensation of (Jean Dupont|Mary Smith) in 2016\?", written.question
    ), written.question
    judged = judge_table_question(parse_table_question(written.question), page)
    assert judged.answers and judged.answer == written.answer


def test_a_name_row_of_a_table_naming_no_measure_is_never_asked(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Executive officers")],
            centred("2016", "2015"),
            row("Jean Dupont", "12", "11"),
            row("Mary Smith", "10", "9"),
        ],
        tmp_path,
    )
    assert write_table_question(read_table_page(layer)) is None

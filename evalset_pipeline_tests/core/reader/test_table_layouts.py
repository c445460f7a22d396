"""Layouts of real filings, drawn: headers, units, labels and sections the table reader and the
one-cell writer get right (each test is a failure read off a real page, in general form)."""

from __future__ import annotations

import datetime

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.reader.table_judge import prints_answer
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.table_reader import cell_unit, read_tables
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row


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


def test_a_span_over_four_sub_columns_dates_all_four_and_no_more(tmp_path):
    edges = (200, 250, 300, 350, 400, 450, 500, 550)

    def centred_over(text: str, first: int, last: int) -> tuple[str, float, str]:
        return ("c", (edges[first] - 24 + edges[last]) / 2, text)

    values = ("3,028", "3,950", "4,115", "2,876", "9,523", "7,058", "8,192", "4,788")
    layer = draw_layer(
        [
            [centred_over("Three months ended June 30,", 0, 3)]
            + [centred_over("Six months ended June 30,", 4, 7)],
            [centred_over(y, 2 * k, 2 * k + 1) for k, y in enumerate(("2022", "2021") * 2)],
            [("r", e, "Res.(d)" if k % 2 == 0 else "Com.(e)") for k, e in enumerate(edges)],
            [("l", 40, "Principal securitized")]
            + [("r", e, v) for e, v in zip(edges, values, strict=True)],
            [("l", 40, "Fees collected")] + [("r", e, "20") for e in edges],
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [(c.months, c.end) for c in table.columns] == [
        (3, datetime.date(2022, 6, 30)),
        (3, datetime.date(2022, 6, 30)),
        (3, datetime.date(2021, 6, 30)),
        (3, datetime.date(2021, 6, 30)),
        (6, datetime.date(2022, 6, 30)),
        (6, datetime.date(2022, 6, 30)),
        (6, datetime.date(2021, 6, 30)),
        (6, datetime.date(2021, 6, 30)),
    ]
    page = read_table_page(layer)
    q = parse_table_question(
        "What was Principal securitized in the Com. column for the three months ended June 30, 2022?"
    )
    assert judge_table_question(q, page).answer == "3,950"


def test_a_bare_currency_row_that_does_not_say_per_share_is_never_asked(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Diluted earnings per share bridge")],
            centred("2018", "2017"),
            row("Legal settlement", "(1.28)", "—", dollar=True),
            row("Tax reform impact", "0.07", "(1.24)", dollar=True),
        ],
        tmp_path,
    )
    assert write_table_question(read_table_page(layer)) is None
    layer = draw_layer(
        [
            centred("2018", "2017"),
            row("Diluted earnings per share", "9.17", "7.93", dollar=True),
        ],
        tmp_path,
        name="eps.pdf",
    )
    written = write_table_question(read_table_page(layer))
    assert written is not None and written.answer.startswith("9.17")


def test_a_line_of_arithmetic_is_named_by_its_figure(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("2022", "2021"),
            row("Total debt", "6,902", "6,490", dollar=True),
            row("Less cash and cash equivalents", "837", "775"),
            row("Less than one year", "120", "110"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [r.label for r in table.rows] == [
        "Total debt",
        "Cash and cash equivalents",
        "Less than one year",
    ]


def test_a_row_printing_one_figure_of_a_period_is_asked_though_the_period_has_two_columns(tmp_path):
    # "Effective tax rate" prints its percentages a little right of the amounts: two columns of
    # one year, and a row that fills only one of them names one figure.
    layer = draw_layer(
        [
            [("l", 50, "(in thousands)")],
            [("c", 330, "2017"), ("c", 480, "2016")],
            [("l", 50, "Provision for income taxes"), ("r", 340, "(73,608)"), ("r", 490, "73,829")],
            [("l", 50, "Effective tax rate"), ("r", 380, "(15)%"), ("r", 530, "28%")],
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert len(table.columns) == 4 and [c.year for c in table.columns] == [2017, 2017, 2016, 2016]
    page = read_table_page(layer)
    q = parse_table_question("What was Provision for income taxes in 2017?")
    assert judge_table_question(q, page).answer == "(73,608) (thousands)"
    assert write_table_question(page) is not None


def test_a_row_naming_the_registrant_is_never_asked(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Long-term debt by issuer (in millions)")],
            centred("2022", "2021"),
            row("Contoso Communications", "23,929", "24,100", dollar=True),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    assert (
        write_table_question(page, PageContext("Contoso Communications Inc.", "10-K", "2022", ""))
        is None
    )
    assert (
        write_table_question(page) is not None
    )  # without the document's facts it is a row like any


def test_labels_carrying_figures_or_naming_a_company_are_never_asked(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("2022", "2021"),
            row("Unrealized gains, net of tax effects of $120 and $59", "219", "180", dollar=True),
            row("Alltel Corporation", "94", "94"),
        ],
        tmp_path,
    )
    assert write_table_question(read_table_page(layer)) is None
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("2022", "2021"),
            row("Total Company", "1,219", "1,180", dollar=True),
        ],
        tmp_path,
        name="total.pdf",
    )
    written = write_table_question(read_table_page(layer))
    assert written is not None and "Total Company" in written.question


def test_a_shares_column_counts_shares_whatever_the_row_says(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in thousands)")],
            centred("2016", "2016"),
            centred("Shares", "Weighted average"),
            centred("Granted", "fair value"),
            row("Ending outstanding balance", "1,630", "$ 60.32", dollar=True),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    r = table.rows[0]
    assert cell_unit(table, r, 0) == "thousands"


def test_a_span_named_in_a_sentence_of_the_heading_does_not_date_balance_columns(tmp_path):
    layer = draw_layer(
        [
            [
                (
                    "l",
                    50,
                    "The following tables provide information on delinquency and gross charge-offs",
                )
            ],
            [("l", 50, "for the six months ended June 30, 2023 (in millions).")],
            centred("June 30, 2023", "June 30, 2023"),
            centred("Term loans", "Total"),
            row("Current", "16,287", "67,376", dollar=True),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [c.months for c in table.columns] == [None, None]
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("Six Months Ended", "Six Months Ended"),
            centred("June 30, 2023", "June 30, 2022"),
            row("Net revenue", "16,287", "15,376", dollar=True),
        ],
        tmp_path,
        name="span.pdf",
    )
    [table] = read_tables(layer)
    assert [c.months for c in table.columns] == [6, 6]


def test_a_header_line_read_as_a_row_is_never_asked(tmp_path):
    layer = draw_layer(
        [
            centred("March 31, 2021", "March 31, 2021"),
            row("December 31, 2020 (in millions)", "30", "1,525"),
        ],
        tmp_path,
    )
    assert write_table_question(read_table_page(layer)) is None


def test_a_roll_forwards_end_balance_is_asked_under_its_heading_or_not_at_all(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("2023", "2022"),
            row("Balance, beginning of period", "710", "754", dollar=True),
            row("Write-offs", "(252)", "(245)"),
            row("Balance, end of period", "716", "710", dollar=True),
        ],
        tmp_path,
    )
    written = write_table_question(read_table_page(layer))
    assert written is None or "Balance" not in written.question


def test_a_heading_sentence_without_its_own_date_still_names_the_columns_span(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Weighted-average assumptions used to determine net periodic benefit cost")],
            [("l", 50, "for the fiscal years ended were:")],
            centred("June 30, 2023", "June 30, 2022"),
            row("Rate of compensation increase", "2.3%", "1.7%"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [c.months for c in table.columns] == [12, 12]


def test_footnote_text_half_headers_and_running_titles_are_never_names(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "NOTES TO CONDENSED CONSOLIDATED FINANCIAL STATEMENTS")],
            [("l", 50, "(in millions)")],
            centred("2023", "2022"),
            row("Retacrit", "180", "170", dollar=True),
            row("(a) For purposes of calculating the SLR", "52.0", "50.0"),
            row("PERCENTAGE)", "2", "3"),
            row("Other, net (b),", "40", "9"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.subject == ""
    assert table.rows[-1].label == "Other, net"
    written = write_table_question(read_table_page(layer))
    assert written is not None and written.question.startswith(
        ("What was Retacrit in", "What was Other, net in")
    )


def test_a_dash_in_a_sibling_column_is_a_printed_figure_so_the_column_is_named(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("March 31, 2021", "March 31, 2021"),
            centred("Pledged", "Loaned"),
            row("Commercial - nonagency", "775", "—", dollar=True),
            row("Residential - nonagency", "522", "1,016"),
        ],
        tmp_path,
    )
    from evalset_pipeline.core.reader.table_questions import _cells

    phrases = [
        p for _, r, _, p in _cells(read_table_page(layer).tables) if r.label.startswith("Comm")
    ]
    assert phrases == ["in the Pledged column as of March 31, 2021"]  # never the bare date


PROSE = (
    "The following unaudited information presents our results as if the acquisitions during the "
    "year had occurred at the start of the prior year"
)


def test_a_table_under_a_pro_forma_section_is_asked_under_that_section(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Pro Forma Financial Information - 2017 Acquisition Activity (unaudited)")],
            [("l", 50, PROSE)],
            [("l", 50, "(in millions):")],
            centred("", "", "2016", "2017"),
            row("Net sales", "", "", "152,283", "187,890"),
            row("Net income", "", "", "2,148", "2,940"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    # The heading above the prose names the section; its dash-tail and "(unaudited)" do not.
    assert table.subject == "Pro Forma Financial Information"
    written = write_table_question(read_table_page(layer))
    assert (
        written is not None
        and " under Pro Forma Financial Information in 2017?" in written.question
    )


def test_a_segment_tables_sections_are_asked_with_the_segment(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Club Segment")],
            centred("", "", "2020", "2019"),
            row("Including Fuel", "", "", "", ""),
            row("Net sales", "", "", "58,792", "57,839", indent=60),
            row("Operating income", "", "", "1,642", "1,520", indent=60),
            row("Excluding Fuel", "", "", "", ""),
            row("Net sales", "", "", "52,792", "52,332", indent=60),
            row("Operating income", "", "", "1,486", "1,383", indent=60),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    written = write_table_question(page)
    assert written is not None and " under Club Segment, " in written.question
    # Asked for one section of the segment, the other section's row of that name never answers.
    q = parse_table_question("What was Net sales under Club Segment, Excluding Fuel in 2020?")
    assert q is not None and judge_table_question(q, page).answer == "52,792"
    q = parse_table_question("What was Net sales under Club Segment, Including Fuel in 2020?")
    assert q is not None and judge_table_question(q, page).answer == "58,792"
    # Without the segment, the segment's table does not answer: its figures are the segment's.
    q = parse_table_question("What was Net sales under Excluding Fuel in 2020?")
    assert q is not None and not judge_table_question(q, page).answers


def test_a_bare_total_is_asked_as_the_total_of_its_section_and_read_back(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("", "", "2023", "2022"),
            row("Revenue", "", "", "", ""),
            row("Products", "", "", "64,699", "72,732", indent=60),
            row("Total", "", "", "211,915", "198,270", indent=60),
            row("Operating Income", "", "", "", ""),
            row("Productivity", "", "", "40,540", "29,687", indent=60),
            row("Total", "", "", "88,523", "83,383", indent=60),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    q = parse_table_question("What was Total Operating Income in 2023?")
    assert q is not None and judge_table_question(q, page).answer == "88,523 (millions)"
    q = parse_table_question("What was Total Revenue in 2022?")
    assert q is not None and judge_table_question(q, page).answer == "198,270 (millions)"
    written = write_table_question(page)
    assert written is not None and "Total under" not in written.question


def test_an_adjective_row_is_never_asked_and_plural_heads_take_were(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "(in millions)")],
            centred("", "", "2023", "2022"),
            row("Federal", "", "", "", ""),
            row("Current", "", "", "1,200", "1,100", indent=60),
            row("Deferred", "", "", "(300)", "(250)", indent=60),
            row("Debt securities", "", "", "782", "700"),
        ],
        tmp_path,
    )
    written = write_table_question(read_table_page(layer))
    assert written is not None
    assert written.question == "What were Debt securities in 2023?"


def test_running_headers_are_no_sections_and_a_notes_number_is_no_part_of_its_title():
    from evalset_pipeline.core.reader.table_reader import _subject_line

    assert _subject_line(["Table of Contents"]) == ""
    assert _subject_line(["Item 8"]) == ""
    assert _subject_line(["NOTE 14 - INCOME TAXES"]) == "Income Taxes"
    assert _subject_line(["19. Reportable Segments"]) == "Reportable Segments"
    assert _subject_line(["B. Geographic Information"]) == "Geographic Information"
    assert _subject_line(["U.S. Segment"]) == "U.S. Segment"


def test_a_row_printed_in_two_tables_is_asked_under_its_tables_heading(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Auto and other")],
            [("l", 50, "(in millions, except ratios)")],
            centred("", "", "", "June 30, 2023"),
            row("Total retained loans", "", "", "", "68,185"),
            row("% of 30+ days past due to total retained loans", "", "", "", "1.11%"),
            [("l", 50, " ")],
            [("l", 50, " ")],
            [("l", 50, " ")],
            [("l", 50, " ")],
            [("l", 50, " ")],
            [("l", 50, " ")],
            centred("", "", "", "December 31, 2022"),
            row("Total retained loans", "", "", "", "63,192"),
            row("% of 30+ days past due to total retained loans", "", "", "", "1.18%"),
        ],
        tmp_path,
    )
    tables = read_tables(layer)
    assert [t.subject for t in tables] == ["Auto and other", ""]
    written = write_table_question(read_table_page(layer))
    assert written is not None and " under Auto and other as of June 30, 2023?" in written.question


def test_a_currency_and_scale_over_the_columns_as_uk_reports_head_them(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Group income statement")],
            [("l", 50, "For the 52 weeks ended 25 February 2023")],
            centred("", "", "2023", "2022"),
            centred("", "", "£m", "£m"),
            row("Revenue", "", "", "65,762", "61,344"),
            row("Operating profit", "", "", "1,460", "2,560"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert table.unit == "GBP millions"
    assert [c.year for c in table.columns] == [2023, 2022]


def test_a_headings_last_line_dates_year_columns_under_prose_with_dates(tmp_path):
    # The prose above ends its sentence with dates of its own; the heading's last line ("Six
    # months ended June 30,") names the columns' span and month-day, a unit aside after it
    layer = draw_layer(
        [
            [("l", 50, "The following table presents activity for the six months ended")],
            [("l", 50, "June 30, 2022 and 2021. Nonaccrual loan activity")],
            [("l", 50, "Six months ended June 30,")],
            [("l", 50, "(in millions)")],
            centred("2022", "2021"),
            row("Beginning balance", "5,350", "6,467", dollar=True),
            row("Total reductions", "1,827", "2,231"),
        ],
        tmp_path,
    )
    [table] = read_tables(layer)
    assert [(c.months, c.end) for c in table.columns] == [
        (6, datetime.date(2022, 6, 30)),
        (6, datetime.date(2021, 6, 30)),
    ]


def test_a_roll_forwards_closing_line_prints_the_balance_of_the_table_above(tmp_path):
    # "Total goodwill" at June 30, 2022 is the "Balance at June 30" of the goodwill roll-forward
    # printed, without a heading of its own, under the goodwill-by-segment table
    layer = draw_layer(
        [
            [("l", 50, "Goodwill")],
            [("l", 50, "(in millions)")],
            centred("June 30, 2023", "December 31, 2022"),
            row("Consumer Banking", "32,116", "32,121", dollar=True),
            row("Total goodwill", "52,380", "51,662", dollar=True),
            [],
            [("l", 50, "Three months ended June 30,")],
            [("l", 50, "(in millions)")],
            centred("2023", "2022"),
            row("Balance at beginning of period", "52,144", "50,298", dollar=True),
            row("Business combinations", "236", "470"),
            row("Balance at June 30", "52,380", "50,697", dollar=True),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    q = parse_table_question("What was Total goodwill as of June 30, 2022, for Hanbit Bank?")
    assert q is not None
    context = PageContext("Hanbit Bank", "10-Q", "2023-Q2", "2023-06-30")
    assert prints_answer(q, page, "50,697 (USD millions)", context) is not None
    assert prints_answer(q, page, "50,298 (USD millions)", context) is None  # the opening line


def test_a_table_of_a_subset_is_not_asked_by_its_rows_label_alone(tmp_path):
    # "Projected benefit obligation" of the plans whose obligation exceeds their assets is that
    # subset's (15,328 of a 15,369 obligation): asked by the row's label it reads as the whole
    layer = draw_layer(
        [
            [("l", 50, "Information for pension plans with a projected benefit obligation in")],
            [("l", 50, "excess of plan assets follows:")],
            [("l", 50, "(dollars in millions)")],
            centred("2022", "2021"),
            row("Projected benefit obligation", "15,328", "456", dollar=True),
            row("Fair value of plan assets", "13,694", "—"),
        ],
        tmp_path,
    )
    assert write_table_question(read_table_page(layer)) is None


def test_another_segments_rate_is_not_the_asked_segments(tmp_path):
    # One figure (87.4%) for two segments: the page that states the Pharmacy Services segment's
    # rate does not answer for the Retail/LTC segment's
    layer = draw_layer(
        [
            [("l", 50, "Pharmacy Services Segment")],
            centred("2022", "2021"),
            row("Pharmacy Services segment’s total generic dispensing rate", "87.4%", "87.6%"),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    context = PageContext("Hanbit Health", "10-K", "2022", "2022-12-31")
    asked = parse_table_question(
        "What was the retail/LTC segment’s generic dispensing rate in 2022, for Hanbit Health?"
    )
    assert asked is not None
    assert prints_answer(asked, page, "87.4%", context) is None
    own = parse_table_question(
        "What was the Pharmacy Services segment’s total generic dispensing rate in 2022, for Hanbit Health?"
    )
    assert own is not None
    assert prints_answer(own, page, "87.4%", context) is not None

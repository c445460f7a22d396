"""Figures stated in prose, read as one-row tables, asked and judged like table cells (drawn pages)."""

from __future__ import annotations

import datetime

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.reader.prose_reader import PROSE_TITLE, read_prose_tables
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline_tests.core.metadata.drawn import draw_pdf, layers_of
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row


def _stated(lines: list[str], tmp_path, name: str = "p.pdf") -> list[tuple[str, str, str, object]]:
    [layer] = layers_of(draw_pdf(tmp_path / name, [lines]))
    out = []
    for t in read_prose_tables(layer):
        assert t.title == PROSE_TITLE and len(t.rows) == 1 and len(t.columns) == 1
        c = t.columns[0]
        out.append((t.rows[0].label, t.rows[0].cells[0], t.unit, (c.months, c.end, c.year)))
    return out


def test_a_figure_tied_to_each_period_across_a_wrapped_line(tmp_path):
    stated = _stated(
        [
            "Commitments and Contingencies",
            "Rental expense on operating leases was $393 million in 2018, $343 million in",
            "2017 and $318 million in 2016. The leases expire at various dates.",
        ],
        tmp_path,
    )
    assert stated == [
        ("rental expense on operating leases", "393", "USD millions", (None, None, 2018)),
        ("rental expense on operating leases", "343", "USD millions", (None, None, 2017)),
        ("rental expense on operating leases", "318", "USD millions", (None, None, 2016)),
    ]


def test_respectively_pairs_the_list_with_periods_in_the_subject_or_after_it(tmp_path):
    stated = _stated(
        [
            "Advertising expenses for fiscal 2015, 2014 and 2013 were $113.6 million, $87.9 million and $88.5",
            "million, respectively. Amortization expense totaled $1.8 billion, $2.3 billion and $2.1 billion",
            "for the years ended December 31, 2022, 2021 and 2020, respectively.",
        ],
        tmp_path,
    )
    assert stated[:3] == [
        ("advertising expenses", "113.6", "USD millions", (None, None, 2015)),
        ("advertising expenses", "87.9", "USD millions", (None, None, 2014)),
        ("advertising expenses", "88.5", "USD millions", (None, None, 2013)),
    ]
    assert stated[3:] == [
        ("amortization expense", "1.8", "USD billions", (12, datetime.date(2022, 12, 31), None)),
        ("amortization expense", "2.3", "USD billions", (12, datetime.date(2021, 12, 31), None)),
        ("amortization expense", "2.1", "USD billions", (12, datetime.date(2020, 12, 31), None)),
    ]


def test_figures_without_a_period_of_their_own_or_a_named_subject_are_not_read(tmp_path):
    assert (
        _stated(
            [
                "Net revenue was $12.5 billion, a decrease of 6%, driven by lower deposit margins.",  # no period
                "In 2018, we recorded a pre-tax charge of $105 million for restructuring.",  # a figure inside a clause
                "These costs were $5 million in 2018, lower than expected.",  # "these": which costs?
                "It was $7 million in 2019 and is expected to grow.",  # a pronoun names no line item
                "The operating lease costs were $0.3 billion in fiscal years 2022, 2021 and 2020, respectively.",
            ],  # 1 vs 3
            tmp_path,
        )
        == []
    )


def test_a_prose_question_is_written_judged_and_answered_by_a_table_of_that_row_and_year(tmp_path):
    prose_page, table_page, other_year = (
        read_table_page(layer)
        for layer in layers_of(
            draw_pdf(
                tmp_path / "x.pdf",
                [
                    [
                        "Research and Development",
                        "Research and development expense was $1,253 million in 2018 and $1,352 million in 2017. We",
                        "expect to keep investing in new products across every business.",
                    ],
                    [
                        "SELECTED FINANCIAL DATA",
                        "($ in millions)",
                        ("", "2018", "2017"),
                        ("Research and development expense", "1,253", "1,352"),
                        ("Net income", "5,349", "4,858"),
                    ],
                    [
                        "SELECTED FINANCIAL DATA",
                        "($ in millions)",
                        ("", "2020", "2019"),
                        ("Research and development expense", "1,878", "1,911"),
                        ("Net income", "5,384", "4,570"),
                    ],
                ],
            )
        )
    )
    written = write_table_question(prose_page)
    assert written is not None
    assert (
        written.question == "What was the research and development expense in 2018?"
    )  # the page's latest year
    assert written.answer == "1,253 (USD millions)"
    q = parse_table_question(written.question)
    assert judge_table_question(q, prose_page).answer == written.answer
    assert (
        judge_table_question(q, table_page).answer == written.answer
    )  # the same fact in a table column
    other = judge_table_question(q, other_year)
    assert not other.answers and "not for the asked period" in other.reason  # the row, another year


def test_a_year_asked_matches_a_twelve_month_column_named_after_it(tmp_path):
    [page] = (
        read_table_page(layer)
        for layer in layers_of(
            draw_pdf(
                tmp_path / "y.pdf",
                [
                    [
                        "CONSOLIDATED STATEMENTS OF INCOME",
                        "($ in millions)",
                        ("", "Year Ended", "Year Ended"),
                        ("", "January 1, 2023", "January 2, 2022"),
                        ("Net sales", "9,000", "8,500"),
                    ]
                ],
            )
        )
    )
    # a 52/53-week year ended January 1, 2023 is fiscal 2022: "in 2022" asks for that column
    assert (
        judge_table_question(parse_table_question("What was Net sales in 2022?"), page).answer
        == "9,000 (USD millions)"
    )
    assert (
        judge_table_question(
            parse_table_question("What was Net sales in fiscal 2021?"), page
        ).answer
        == "8,500 (USD millions)"
    )


def test_a_label_repeated_under_two_headings_is_asked_under_its_heading(tmp_path):
    layer = draw_layer(
        [
            [("l", 50, "Optical Communications")],
            centred("Year Ended", "Year Ended"),
            centred("December 31,", "December 31,"),
            centred("2020", "2019"),
            row("Segment net sales", "3,563", "4,064", dollar=True),
            row("Segment net income", "366", "489"),
            [],
            [],
            [("l", 50, "Specialty Materials")],
            centred("Year Ended", "Year Ended"),
            centred("December 31,", "December 31,"),
            centred("2020", "2019"),
            row("Segment net sales", "1,884", "1,594", dollar=True),
            row("Segment net income", "423", "302"),
        ],
        tmp_path,
    )
    page = read_table_page(layer)
    assert [t.subject for t in page.tables if t.title != PROSE_TITLE] == [
        "Optical Communications",
        "Specialty Materials",
    ]
    written = write_table_question(page)
    assert (
        written is not None and " under " in written.question
    )  # "Segment net sales" alone names two cells
    q = parse_table_question(written.question)
    j = judge_table_question(q, page)
    assert j.answers and j.answer == written.answer
    heading = q.parent
    expected = {
        "Optical Communications": {"Segment net sales": "3,563", "Segment net income": "366"},
        "Specialty Materials": {"Segment net sales": "1,884", "Segment net income": "423"},
    }[heading][q.label]
    assert written.answer.startswith(expected)


def test_sub_columns_of_one_period_are_asked_by_their_sub_header_and_projections_never(tmp_path):
    sub = read_table_page(
        draw_layer(
            [
                [("l", 50, "Revenue by Geography")],
                centred("2021", span=3),
                centred("U.S.", "International", "Total"),
                row("Vaccines", "7,800", "21,200", "29,000"),
                row("Oncology", "6,100", "5,900", "12,000"),
            ],
            tmp_path,
            "s.pdf",
        )
    )
    written = write_table_question(sub)
    # The row's whole (its Total column) is asked plainly, before any sub-column
    assert written is not None and written.question.endswith(" in 2021?")
    assert " column " not in written.question
    q = parse_table_question(written.question)
    assert written.answer == {"Vaccines": "29,000", "Oncology": "12,000"}[q.label]
    regions = read_table_page(  # no Total column: "in 2021" alone names two cells
        draw_layer(
            [
                [("l", 50, "Revenue by Geography")],
                centred("2021", span=2),
                centred("U.S.", "International"),
                row("Vaccines", "7,800", "21,200"),
                row("Oncology", "6,100", "5,900"),
            ],
            tmp_path,
            "r.pdf",
        )
    )
    written = write_table_question(regions)
    assert written is not None and " column in 2021?" in written.question
    q = parse_table_question(written.question)
    printed = {
        ("Vaccines", "U.S."): "7,800",
        ("Vaccines", "International"): "21,200",
        ("Vaccines", "Total"): "29,000",
        ("Oncology", "U.S."): "6,100",
        ("Oncology", "International"): "5,900",
        ("Oncology", "Total"): "12,000",
    }
    assert written.answer == printed[(q.label, q.measure)]
    assert judge_table_question(q, regions).answer == written.answer
    for (label, measure), cell in printed.items():
        asked = parse_table_question(f"What was {label} in the {measure} column in 2021?")
        assert judge_table_question(asked, sub).answer == cell
    unnamed = parse_table_question("What was Vaccines in 2021?")
    assert judge_table_question(unnamed, sub).answers  # the judge still finds the row and year
    schedule = read_table_page(
        draw_layer(
            [
                [("l", 50, "Expected Benefit Payments")],
                centred("2024", "2025", "2026"),
                row("Pension benefits", "1,200", "1,250", "1,300"),
                row("Other benefit plans", "80", "82", "85"),
            ],
            tmp_path,
            "f.pdf",
        )
    )
    report = PageContext(entity="Contoso Ltd.", form="10-K", period="2023", period_end="2023-12-31")
    assert (
        write_table_question(schedule, report) is None
    )  # payments after the report's year are projections


def test_a_period_that_opens_the_sentence_and_a_recorded_figure(tmp_path):
    stated = _stated(
        [
            "At December 31, 2022 and 2021, the total notional amount of the swaps was $32.5 billion and $26.3",
            "billion, respectively. During 2022, 2021 and 2020 the quarterly cash dividend was $0.55, $0.50 and",
            "$0.50 per share, respectively. The Company recognized total rental expenses for operating leases of",
            "$75.2 million and $32.5 million during the years ended December 31, 2020 and 2019, respectively.",
            "The Company recorded a pre-tax gain on the divestiture of $250 million in the year ended "
            "December 31, 2022.",
        ],
        tmp_path,
    )
    assert stated == [
        (
            "total notional amount of the swaps",
            "32.5",
            "USD billions",
            (None, datetime.date(2022, 12, 31), None),
        ),
        (
            "total notional amount of the swaps",
            "26.3",
            "USD billions",
            (None, datetime.date(2021, 12, 31), None),
        ),
        (
            "quarterly cash dividend",
            "0.55",
            "USD",
            (None, None, 2022),
        ),  # per share: the currency itself
        ("quarterly cash dividend", "0.50", "USD", (None, None, 2021)),
        ("quarterly cash dividend", "0.50", "USD", (None, None, 2020)),
        (
            "total rental expenses for operating leases",
            "75.2",
            "USD millions",
            (12, datetime.date(2020, 12, 31), None),
        ),
        (
            "total rental expenses for operating leases",
            "32.5",
            "USD millions",
            (12, datetime.date(2019, 12, 31), None),
        ),
    ]  # "the divestiture" points back to a sale named earlier: not a name a question can use


def test_a_table_without_dated_columns_takes_its_titles_date_and_is_asked_by_column(tmp_path):
    [page] = (
        read_table_page(layer)
        for layer in layers_of(
            draw_pdf(
                tmp_path / "l.pdf",
                [
                    [
                        "Leases",
                        "As of December 31, 2019, our lease liabilities were as follows (in millions of dollars):",
                        ("", "Operating", "Finance", "Total"),
                        ("Gross lease liabilities", "31,963", "28,875", "60,838"),
                        ("Less: imputed interest", "(6,128)", "(1,896)", "(8,024)"),
                        ("Present value of lease liabilities", "25,835", "26,979", "52,814"),
                    ]
                ],
            )
        )
    )
    [table] = [t for t in page.tables if t.title != PROSE_TITLE]
    assert {c.end for c in table.columns} == {datetime.date(2019, 12, 31)} and {
        c.months for c in table.columns
    } == {None}
    written = write_table_question(page)
    # the Total column is the row's own figure, asked plainly; a sub-column is asked by its name
    assert written is not None and written.question.endswith(" as of December 31, 2019?")
    q = parse_table_question(written.question)
    assert judge_table_question(q, page).answer == written.answer
    assert written.answer in (
        "60,838 (USD millions)",
        "(8,024) (USD millions)",
        "52,814 (USD millions)",
    )
    asked = parse_table_question(
        "What was Gross lease liabilities in the Finance column as of December 31, 2019?"
    )
    assert judge_table_question(asked, page).answer == "28,875 (USD millions)"


def test_a_change_that_ends_at_a_level_states_the_level(tmp_path):
    assert _stated(
        [
            "Net sales increased 5% to $14.7 billion in fiscal 2023, compared with $14.0 billion in",
            "fiscal 2022. Operating income decreased by $120 million, or 9%, in 2022.",
        ],
        tmp_path,
    ) == [
        ("net sales", "14.7", "USD billions", (None, None, 2023))
    ]  # the change alone is not a level


def test_a_figure_narrowed_after_it_or_a_subject_cut_at_initials_is_not_read(tmp_path):
    assert (
        _stated(
            [
                "Net investment income was $21 million and $20 million in 2017 and 2016, respectively, relating to",
                "interest income on the experience-rated portfolio. The liability, which was accrued under the U.S.",
                "Tax Act, was approximately $313 million as of December 2, 2022 and is payable in installments.",
            ],
            tmp_path,
        )
        == []
    )


def test_rows_that_are_not_amounts_of_the_table_or_years_that_are_not_periods_are_not_asked(
    tmp_path,
):
    from evalset_pipeline.core.reader.table_reader import cell_unit

    fx = read_table_page(
        draw_layer(
            [
                [("l", 50, "Outstanding hedges (in millions)")],
                centred("2015", "2014"),
                row("British Pounds £", "192.0", "159.1"),
                row("Euro €", "589.6", "455.5"),
            ],
            tmp_path,
            "fx.pdf",
        )
    )
    assert write_table_question(fx) is None  # each row is in its own currency, not the table's
    vintage = read_table_page(
        draw_layer(
            [
                [("l", 50, "Term loans by origination year")],
                centred("2022", "2021", "2020"),
                row("Current", "22,187", "20,212", "11,401"),
                row("30-119 days past due", "263", "308", "100"),
            ],
            tmp_path,
            "v.pdf",
        )
    )
    assert write_table_question(vintage) is None  # "in 2022" would mean the loans made in 2022
    taxes = read_table_page(
        draw_layer(
            [
                [("l", 50, "Income tax reconciliation (in thousands)")],
                centred("2017", "2016"),
                row("Computed expected tax expense", "748,174", "502,298", dollar=True),
                row(
                    "Differences between statutory rate and foreign effective tax rate",
                    "(215,490)",
                    "(133,778)",
                ),
                row("Effective tax rate", "21.5", "20.1"),
                row("Restricted stock units granted", "1,200", "1,100"),
            ],
            tmp_path,
            "t.pdf",
        )
    )
    [table] = [t for t in taxes.tables if t.title != PROSE_TITLE]
    units = {r.label: cell_unit(table, r, 0) for r in table.rows}
    assert (
        units["Differences between statutory rate and foreign effective tax rate"]
        == "USD thousands"
    )
    assert units["Effective tax rate"] == "%"
    # a count of units, never money: in the table's scale, with no currency
    assert units["Restricted stock units granted"] == "thousands"


def test_a_clause_that_narrows_the_subject_keeps_the_figure_out(tmp_path):
    assert (
        _stated(
            [
                "For the primary U.S. qualified pension plan, the assumption for the expected return on plan assets",
                "was 6.00% in 2022. Excluding the pass-through of raw material costs, the increase in net sales for",
                "the six months ended December 31, 2022 was $149 million, or 2%, driven by favorable price and mix.",
            ],
            tmp_path,
        )
        == []
    )


def test_counts_in_a_money_table_take_its_scale_not_its_currency(tmp_path):
    from evalset_pipeline.core.reader.table_reader import cell_unit

    page = read_table_page(
        draw_layer(
            [
                [("l", 50, "Selected data ($ in thousands)")],
                centred("2018", "2017"),
                row("Premiums", "4,100", "3,900", dollar=True),
                row("Medical membership", "17,759", "16,900"),
            ],
            tmp_path,
            "m.pdf",
        )
    )
    [table] = [t for t in page.tables if t.title != PROSE_TITLE]
    units = {r.label: cell_unit(table, r, 0) for r in table.rows}
    assert units == {"Premiums": "USD thousands", "Medical membership": "thousands"}


def test_an_aside_between_subject_and_verb_goes_or_stays_by_what_it_says(tmp_path):
    assert _stated(
        [
            "Royalty expense, which was recorded under our cost of revenue on our statements of",
            "income, was approximately $62.3 million and $45.2 million in fiscal 2015 and 2014,",
            "respectively. As of June 30, 2023 and 2022, long-term accounts receivable, net of",
            "allowance for doubtful accounts, was $4.5 billion and $3.8 billion, respectively.",
            "In 2022, the liability, which we expect to pay in 2024, was $40 million.",
        ],
        tmp_path,
    ) == [
        # A "which" clause says where the figure is booked: the subject alone names it.
        ("royalty expense", "62.3", "USD millions", (None, None, 2015)),
        ("royalty expense", "45.2", "USD millions", (None, None, 2014)),
        # "net of ..." says which figure it is: it stays in the name.
        (
            "long-term accounts receivable, net of allowance for doubtful accounts",
            "4.5",
            "USD billions",
            (None, datetime.date(2023, 6, 30), None),
        ),
        (
            "long-term accounts receivable, net of allowance for doubtful accounts",
            "3.8",
            "USD billions",
            (None, datetime.date(2022, 6, 30), None),
        ),
        # "the liability" is named only in an earlier sentence: nothing is read.
    ]

"""One-cell questions on drawn statement pages: writer, judge (comparative columns), qualifier, units."""

from __future__ import annotations

import json
import re

from evalset_pipeline.core.judging.base import PageContext, PageView
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    qualify_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.textlayer import TextLayerBackend
from evalset_pipeline_tests.core.metadata.drawn import draw_pdf, layers_of


def pages_of(path):
    return [read_table_page(layer) for layer in layers_of(path)]


HEAD = ("", "Three Months Ended", "")


def statement(
    current: str, prior: str, rows: list[tuple[str, str, str]], unit: str = "($ in millions)"
) -> list:
    return [
        "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS",
        unit,
        HEAD,
        ("", current, prior),
        *rows,
    ]


ROWS_2023 = [
    ("Net sales", "1,200", "1,100"),
    ("Cost of sales", "(700)", "(650)"),
    ("Gross margin", "500", "450"),
    ("Total operating expenses", "(300)", "(280)"),
    ("Net income", "150", "120"),
]
ROWS_2024 = [
    ("Net sales", "1,300", "1,200"),
    ("Cost of sales", "(760)", "(700)"),
    ("Gross margin", "540", "500"),
    ("Total operating expenses", "(310)", "(300)"),
    ("Net income", "170", "150"),
]


def test_writer_asks_one_printed_cell_with_its_period_and_unit_and_the_judge_reads_it_back(
    tmp_path,
):
    [gold] = pages_of(
        draw_pdf(tmp_path / "g.pdf", [statement("July 1, 2023", "July 2, 2022", ROWS_2023)])
    )
    written = write_table_question(gold)
    assert written is not None and written.question.startswith("What ")
    assert (
        "for the three months ended July 1, 2023" in written.question
    )  # the page's own period, as printed
    assert written.answer.endswith("(USD millions)")
    q = parse_table_question(written.question)
    j = judge_table_question(q, gold)
    assert j.answers and j.answer == written.answer


def test_a_distractor_answers_only_through_its_comparative_column(tmp_path):
    gold, later, other = pages_of(
        draw_pdf(
            tmp_path / "p.pdf",
            [
                statement("July 1, 2023", "July 2, 2022", ROWS_2023),
                statement(
                    "June 29, 2024", "July 1, 2023", ROWS_2024
                ),  # the next year's filing prints 2023 as prior
                statement(
                    "June 29, 2024",
                    "July 1, 2023",
                    [("Net sales", "1,300", "1,250"), *ROWS_2024[1:]],
                ),
            ],
        )
    )  # restated
    q = parse_table_question("What was Net sales for the three months ended July 1, 2023?")
    assert judge_table_question(q, gold).answer == "1,200 (USD millions)"
    j = judge_table_question(q, later)
    assert (
        j.answers and j.answer == "1,200 (USD millions)" and "July 1, 2023" in j.reason
    )  # the prior column
    assert (
        judge_table_question(q, other).answer == "1,250 (USD millions)"
    )  # prints another figure: a restatement
    older = parse_table_question("What was Net sales for the three months ended July 2, 2022?")
    assert not judge_table_question(older, later).answers  # not printed there at all


def test_total_rows_are_matched_whole(tmp_path):
    [page] = pages_of(
        draw_pdf(
            tmp_path / "t.pdf",
            [
                [
                    "CONSOLIDATED BALANCE SHEETS",
                    "($ in millions)",
                    ("", "December 31, 2022", "December 31, 2021"),
                    ("Cash", "100", "90"),
                    ("Total current assets", "400", "380"),
                    ("Property, net", "600", "590"),
                    ("Total assets", "1,000", "970"),
                ]
            ],
        )
    )
    q = parse_table_question("What were Total assets as of December 31, 2022?")
    assert (
        judge_table_question(q, page).answer == "1,000 (USD millions)"
    )  # not "Total current assets"
    q2 = parse_table_question("What were Total current assets as of December 31, 2021?")
    assert judge_table_question(q2, page).answer == "380 (USD millions)"


def test_a_money_row_is_never_read_with_a_headcount_unit(tmp_path):
    [page] = pages_of(
        draw_pdf(
            tmp_path / "h.pdf",
            [
                [
                    "SELECTED OPERATING DATA",
                    "($ in millions, except employees)",
                    HEAD,
                    ("", "July 1, 2023", "July 2, 2022"),
                    ("Salaries paid to employees", "456", "420"),
                    ("Number of employees", "12,345", "12,000"),
                ]
            ],
        )
    )
    money = judge_table_question(
        parse_table_question(
            "What was Salaries paid to employees for the three months ended July 1, 2023?"
        ),
        page,
    )
    people = judge_table_question(
        parse_table_question(
            "What was Number of employees for the three months ended July 1, 2023?"
        ),
        page,
    )
    assert money.answer == "456 (USD millions)"
    assert (
        people.answer == "12,345"
    )  # a count of people takes no money unit, and no money row takes "employees"


def test_entity_qualifier_uses_the_document_and_is_never_doubled(tmp_path):
    [page] = pages_of(
        draw_pdf(tmp_path / "e.pdf", [statement("July 1, 2023", "July 2, 2022", ROWS_2023)])
    )
    base = "What was Net sales for the three months ended July 1, 2023?"
    qualified = qualify_table_question(base, {"entity": "Contoso Ltd."})
    assert (
        qualified == "What was Net sales for the three months ended July 1, 2023, for Contoso Ltd.?"
    )
    assert qualify_table_question(qualified, {"entity": "Contoso Ltd."}) == qualified
    q = parse_table_question(qualified)
    # the statement page does not print the company name: its document's registrant answers for it
    assert judge_table_question(q, page, PageContext(entity="Contoso Ltd.")).answers
    assert not judge_table_question(q, page, PageContext(entity="Fabrikam Inc.")).answers


def test_a_segment_table_answers_only_a_question_that_names_the_segment(tmp_path):
    segment = [
        "Aerospace Segment",
        "($ in millions)",
        HEAD,
        ("", "July 1, 2023", "July 2, 2022"),
        ("Net sales", "400", "380"),
        ("Operating income", "60", "55"),
    ]
    [page] = pages_of(draw_pdf(tmp_path / "s.pdf", [segment]))
    asked = "What was Net sales for the three months ended July 1, 2023?"
    assert not judge_table_question(parse_table_question(asked), page).answers  # not the company's
    named = qualify_table_question(asked, {"section": "Aerospace Segment"})
    assert named == (
        "What was Net sales under Aerospace Segment for the three months ended July 1, 2023?"
    )
    assert judge_table_question(parse_table_question(named), page).answer == "400 (USD millions)"
    assert qualify_table_question(named, {"section": "Aerospace Segment"}) == named  # never doubled


def test_an_asked_heading_must_be_printed_word_for_word_not_only_in_part(tmp_path):
    revenues = [
        "Revenues",
        "($ in millions)",
        HEAD,
        ("", "July 1, 2023", "July 2, 2022"),
        ("Services", "9,683", "9,100"),
    ]
    [page] = pages_of(draw_pdf(tmp_path / "h.pdf", [revenues]))
    other = "What were Services under Corporate Segment, Revenues for the three months ended July 1, 2023?"
    assert not judge_table_question(parse_table_question(other), page).answers  # another segment's
    own = "What were Services under Revenues for the three months ended July 1, 2023?"
    assert judge_table_question(parse_table_question(own), page).answer == "9,683 (USD millions)"


def test_sub_columns_of_the_asked_period_answer_only_through_their_total(tmp_path):
    regions = [
        "Net revenues by region",
        "($ in millions)",
        ("", "2023 Americas", "2023 EMEA", "2023 Total"),
        ("Net revenues", "400", "250", "650"),
    ]
    [page] = pages_of(draw_pdf(tmp_path / "r.pdf", [regions]))
    asked = parse_table_question("What were Net revenues in 2023?")
    assert judge_table_question(asked, page).answer == "650 (USD millions)"
    no_total = [
        "Net revenues by region",
        "($ in millions)",
        ("", "2023 Americas", "2023 EMEA"),
        ("Net revenues", "400", "250"),
    ]
    [page] = pages_of(draw_pdf(tmp_path / "n.pdf", [no_total]))
    judged = judge_table_question(asked, page)
    assert not judged.answers and "several figures" in judged.reason


def test_another_companys_page_with_the_asked_row_is_supporting(tmp_path):
    path = draw_pdf(tmp_path / "o.pdf", [statement("July 1, 2023", "July 2, 2022", ROWS_2023)])
    (tmp_path / "o.json").write_text(json.dumps(layers_of(path)[0]))
    asked = "What was Net sales for the three months ended July 1, 2023, for Contoso Ltd.?"

    def page(entity: str) -> PageView:
        return PageView(
            "p", tmp_path / "o.png", tmp_path / "o.json", "h", PageContext(entity=entity)
        )

    backend = TextLayerBackend()
    [own, other] = backend.label(
        [(asked, "1,200 (USD millions)", page(e)) for e in ("Contoso Ltd.", "Fabrikam Inc.")]
    )
    assert own.label == "sufficient"
    assert other.label == "supporting" and "another entity" in other.rationale
    [unrelated] = backend.label(
        [(asked.replace("Net sales", "Goodwill"), "9 (USD millions)", page("Fabrikam Inc."))]
    )
    assert unrelated.label == "irrelevant"


def test_the_labeller_takes_the_same_figure_for_the_same_row_under_another_heading(tmp_path):
    # The question names the heading its gold prints the row under; the balance sheet prints the
    # same row, date and figure under none: the same fact, so sufficient (the judge alone, never
    # told the answer, reads the heading literally).
    path = draw_pdf(
        tmp_path / "b.pdf",
        [
            [
                "BALANCE SHEET",
                "($ in millions)",
                ("", "June 30, 2023", "June 30, 2022"),
                ("Short-term debt", "80", "136"),
            ]
        ],
    )
    (tmp_path / "b.json").write_text(json.dumps(layers_of(path)[0]))
    page = PageView("b", tmp_path / "b.png", tmp_path / "b.json", "h")
    asked = "What was Short-term debt under Reconciliation of Net Debt as of June 30, 2023?"
    assert not TextLayerBackend().judge([(asked, page)])[0].answers
    [label] = TextLayerBackend().label([(asked, "80 (USD millions)", page)])
    assert label.label == "sufficient" and "Short-term debt" in label.rationale
    [other] = TextLayerBackend().label([(asked, "81 (USD millions)", page)])
    assert other.label != "sufficient"


def test_labels_compare_without_sign_words_or_a_last_expense():
    from evalset_pipeline.core.reader.table_questions import label_words, states_measure

    assert label_words("Unrealized gain (loss), net") == label_words("Unrealized gain, net")
    assert label_words("Research and development expense") == label_words(
        "Research and development"
    )
    assert label_words("Interest expense") != label_words("Interest")
    text = "Net revenue grew.\nAmortization expense for intangible assets was $4.3 billion in 2022."
    assert states_measure("Intangible amortization expense", text)
    assert not states_measure("Services", "Services 1,200")  # one word names no measure


def test_a_share_count_takes_the_scale_its_heading_gives_shares(tmp_path):
    [page] = pages_of(
        draw_pdf(
            tmp_path / "t.pdf",
            [
                [
                    "(Amounts in Millions Except Treasury Stock Shares in Thousands)",
                    ("", "2022", "2021"),
                    ("Treasury stock shares", "506,246", "490,878"),
                    ("Treasury stock amount", "41,694", "39,099"),
                ]
            ],
        )
    )
    asked = parse_table_question("What were Treasury stock shares in 2022?")
    assert judge_table_question(asked, page).answer == "506,246 (thousands)"
    money = parse_table_question("What was Treasury stock amount in 2022?")
    assert judge_table_question(money, page).answer == "41,694 (millions)"  # no currency printed


def test_one_line_item_under_two_labels_is_one_fact_only_with_the_same_figure():
    from evalset_pipeline.core.reader.table_questions import same_item

    assert same_item("Diluted earnings per ordinary share", "Diluted earnings per share")
    assert same_item("Long-term debt", "Long-term debt, excluding current portion")
    assert not same_item("Total loans–reported", "Loans")  # one word is in too many labels
    assert same_item(
        "Trade receivables (included in accounts receivable, net)", "Trade receivables"
    )
    assert not same_item("Net sales", "Cost of sales")


def test_a_year_asked_of_a_balance_is_the_fiscal_year_end(tmp_path):
    [page] = pages_of(
        draw_pdf(
            tmp_path / "bs.pdf",
            [
                [
                    "BALANCE SHEET",
                    "($ in millions)",
                    ("", "December 31, 2022", "December 31, 2021"),
                    ("Long-term debt", "140,676", "143,425"),
                ]
            ],
        )
    )
    asked = parse_table_question("What was Long-term debt in 2022?")
    assert judge_table_question(asked, page).answer == "140,676 (USD millions)"
    quarter = [
        [
            "BALANCE SHEET",
            "($ in millions)",
            ("", "June 30, 2022", "December 31, 2021"),
            ("Long-term debt", "150,000", "143,425"),
        ]
    ]
    [page] = pages_of(draw_pdf(tmp_path / "q.pdf", quarter))
    assert not judge_table_question(asked, page).answers  # a quarter-end balance is not the year's


def test_a_balance_asked_at_a_date_is_read_from_a_roll_forward_ending_on_it(tmp_path):
    """A roll-forward's "Six Months Ended June 30" column ends with the balance at June 30: a
    question asking that balance "as of June 30" is answered there (reading 12: an allowance
    printed in a six-month roll-forward was labelled "not for the asked period")."""
    [page] = pages_of(
        draw_pdf(
            tmp_path / "rf.pdf",
            [
                [
                    "ALLOWANCE FOR CREDIT LOSSES",
                    "($ in millions)",
                    ("", "Six Months Ended", ""),
                    ("", "June 30, 2023", "June 30, 2022"),
                    ("Beginning balance", "19,726", "16,386"),
                    ("Provision for loan losses", "5,364", "2,598"),
                    ("Total allowance for credit losses", "24,270", "20,019"),
                ]
            ],
        )
    )
    asked = parse_table_question(
        "What was the Total allowance for credit losses as of June 30, 2023?"
    )
    assert judge_table_question(asked, page).answer == "24,270 (USD millions)"
    earlier = parse_table_question(
        "What was the Total allowance for credit losses as of March 31, 2023?"
    )
    assert not judge_table_question(earlier, page).answers  # no column ends on that date


def test_a_section_asked_may_be_the_heading_the_page_sits_under_in_the_outline(tmp_path):
    """A segment's page prints only "Selected metrics" above its table; the PDF's outline puts it
    under the segment. Asked "under" the segment, the page answers when its context says it sits
    there, and not otherwise."""
    [page] = pages_of(
        draw_pdf(
            tmp_path / "seg.pdf",
            [
                [
                    "Selected metrics",
                    "($ in millions)",
                    ("", "Six Months Ended", ""),
                    ("", "June 30, 2023", "June 30, 2022"),
                    ("Trading assets", "63,553", "75,120"),
                    ("Loans", "180,200", "170,100"),
                ]
            ],
        )
    )
    asked = parse_table_question(
        "What were Trading assets under Investment Bank for the six months ended June 30, 2023?"
    )
    assert asked is not None and asked.parent == "Investment Bank"
    inside = PageContext(section="Investment Bank")
    assert judge_table_question(asked, page, inside).answer == "63,553 (USD millions)"
    assert not judge_table_question(asked, page, PageContext(section="Other")).answers
    assert not judge_table_question(asked, page).answers


def test_the_labeller_takes_the_same_figure_without_the_asked_sub_column(tmp_path):
    rows = [
        [
            "BALANCE SHEET",
            "($ in millions)",
            ("", "December 31, 2018", "December 31, 2017"),
            ("Long-term debt", "13,411", "12,096"),
        ]
    ]
    path = draw_pdf(tmp_path / "d.pdf", rows)
    (tmp_path / "d.json").write_text(json.dumps(layers_of(path)[0]))
    page = PageView("d", tmp_path / "d.png", tmp_path / "d.json", "h")
    asked = "What was Long-term debt, excluding current portion in the Carrying Value column as of December 31, 2018?"
    [label] = TextLayerBackend().label([(asked, "13,411 (USD millions)", page)])
    assert label.label == "sufficient", label


def test_a_sub_column_is_asked_in_words_and_read_back(tmp_path):
    """Two sub-columns of one date ("Carrying Value", "Fair Value"): the question says the
    measure as a reader does ("the carrying value of long-term debt"), not "in the Carrying
    Value column"; the judge reads it back to the same cell and the labeller takes the same
    figure printed without the sub-column."""
    rows = [
        [
            "DEBT",
            "($ in millions)",
            ("", "December 31, 2018", "December 31, 2018"),
            ("", "Carrying Value", "Fair Value"),
            ("Long-term debt", "13,411", "13,586"),
            ("Short-term borrowings", "1,211", "1,209"),
        ]
    ]
    [page] = pages_of(draw_pdf(tmp_path / "s.pdf", rows))
    written = write_table_question(page)
    assert written is not None
    assert " column " not in written.question, written.question
    assert re.match(r"What was the (?:carrying|fair) value of ", written.question), written
    asked = parse_table_question(written.question)
    assert asked is not None and judge_table_question(asked, page).answer == written.answer
    spoken = parse_table_question(
        "What was the fair value of long-term debt as of December 31, 2018?"
    )
    assert judge_table_question(spoken, page).answer == "13,586 (USD millions)"
    carrying = "What was the carrying value of long-term debt as of December 31, 2018?"
    assert judge_table_question(parse_table_question(carrying), page).answer == (
        "13,411 (USD millions)"
    )
    # the balance sheet prints the carrying value without a sub-column: the same fact
    statement = [
        [
            "BALANCE SHEET",
            "($ in millions)",
            ("", "December 31, 2018", "December 31, 2017"),
            ("Long-term debt", "13,411", "12,096"),
        ]
    ]
    path = draw_pdf(tmp_path / "b.pdf", statement)
    (tmp_path / "b.json").write_text(json.dumps(layers_of(path)[0]))
    view = PageView("b", tmp_path / "b.png", tmp_path / "b.json", "h")
    [label] = TextLayerBackend().label([(carrying, "13,411 (USD millions)", view)])
    assert label.label == "sufficient", label


def test_labels_naming_one_measure_in_other_words_are_alike_and_others_are_not():
    from evalset_pipeline.core.reader.table_questions import named_alike

    assert named_alike("Net cash provided by operating activities", "Cash Flows from Operations")
    assert named_alike("Diluted earnings per share", "Diluted EPS")
    assert named_alike("Research and development", "R&D expenses")
    assert not named_alike("Total revenue", "Other assets")
    assert not named_alike("Net cash provided by operating activities", "Cash and equivalents")


def test_the_labeller_takes_a_specific_figure_printed_under_other_words(tmp_path):
    def page(name, label, figure):
        rows = [["HIGHLIGHTS", "($ in millions)", ("", "2023", "2022"), (label, figure, "35,002")]]
        path = draw_pdf(tmp_path / f"{name}.pdf", rows)
        (tmp_path / f"{name}.json").write_text(json.dumps(layers_of(path)[0]))
        return PageView(name, tmp_path / f"{name}.png", tmp_path / f"{name}.json", "h")

    asked = "What was Net cash provided by operating activities in 2023?"
    alike = page("a", "Cash Flows from Operations", "37,141")
    unrelated = page("u", "Land and buildings", "37,141")
    short = page("s", "Cash from operations", "37")  # two digits: a number, not this figure
    labels = TextLayerBackend().label(
        [
            (asked, "37,141 (USD millions)", alike),
            (asked, "37,141 (USD millions)", unrelated),
            (asked, "37 (USD millions)", short),
        ]
    )
    assert [lab.label for lab in labels[:2]] == ["sufficient", "irrelevant"], labels
    assert labels[2].label != "sufficient", labels[2]


def test_a_label_opening_with_a_preposition_is_never_asked(tmp_path):
    """ "Within Total Operating Expenses" (the tail of a wrapped line) names no line item."""
    rows = [
        ("Within Total Operating Expenses", "1,234", "1,100"),
        ("As a percentage of revenue", "12.3", "11.0"),
    ]
    [page] = pages_of(
        draw_pdf(tmp_path / "p.pdf", [statement("July 1, 2023", "July 2, 2022", rows)])
    )
    assert write_table_question(page) is None
    rows.append(("Net income", "150", "120"))
    [page] = pages_of(
        draw_pdf(tmp_path / "q.pdf", [statement("July 1, 2023", "July 2, 2022", rows)])
    )
    written = write_table_question(page)
    assert written is not None and "Net income" in written.question


def test_a_change_is_one_line_item_whichever_way_it_went():
    """The statement's "Increase (decrease) in cash" is the summary's "Net decrease in cash";
    a roll-forward's "Increases" and "Decreases" (plural, two rows of one table) stay apart."""
    from evalset_pipeline.core.reader.table_questions import same_label

    printed = "Increase (decrease) in cash, cash equivalents and restricted cash"
    for asked in (
        "Decrease in cash, cash equivalents and restricted cash",
        "Net increase (decrease) in cash, cash equivalents and restricted cash",
        "Net change in cash, cash equivalents and restricted cash",
        "Increase/(decrease) in cash, cash equivalents and restricted cash",
    ):
        assert same_label(asked, printed), asked
    assert not same_label("Increases in tax positions", "Decreases in tax positions")
    assert not same_label("Decrease in cash", "Decrease in accounts receivable")


def test_a_qualifier_in_parentheses_is_the_qualifier_after_a_comma():
    """ "(excluding current portion)" says which figure a row is, as ", excluding current portion"
    does; "(included in accounts receivable, net)" only says where it sits."""
    from evalset_pipeline.core.reader.table_questions import same_label

    assert same_label(
        "Long-term debt, excluding current portion", "Long-term debt (excluding current portion)"
    )
    assert not same_label("Long-term debt", "Long-term debt (excluding current portion)")
    assert same_label(
        "Trade receivables", "Trade receivables (included in accounts receivable, net)"
    )


def test_a_guarantor_groups_table_is_asked_under_its_heading(tmp_path):
    """Summarised figures of an obligor or guarantor group are not the registrant's: the
    question names the group's heading, and the registrant's own balance sheet does not answer."""
    group = [
        [
            "Balance Sheets for Obligor Group",
            "($ in millions)",
            ("", "December 31, 2022", "June 30, 2022"),
            ("Current assets - external", "859", "1,254"),
            ("Total current assets", "981", "1,337"),
        ]
    ]
    [page] = pages_of(draw_pdf(tmp_path / "g.pdf", group))
    written = write_table_question(page)
    assert written is not None
    assert "under Balance Sheets for Obligor Group" in written.question, written.question
    own = [
        [
            "CONDENSED CONSOLIDATED BALANCE SHEETS",
            "($ in millions)",
            ("", "December 31, 2022", "June 30, 2022"),
            ("Current assets - external", "859", "1,254"),
        ]
    ]
    [statement] = pages_of(draw_pdf(tmp_path / "s.pdf", own))
    assert not judge_table_question(parse_table_question(written.question), statement).answers


def test_a_segments_column_is_not_said_as_a_measure():
    """A sub-column that names a segment ("Environmental Technologies") is no measure: the
    question keeps naming the column, never "the environmental technologies of segment assets";
    a measure's column ("Carrying Value") is said in words."""
    from evalset_pipeline.core.reader.table_questions import _column_question

    when = "as of December 31, 2021"
    segment = f"in the Environmental Technologies column {when}"
    assert _column_question("Segment assets", segment) is None
    assert _column_question("Long-term debt", f"in the Carrying Value column {when}") == (
        f"What was the carrying value of long-term debt {when}?"
    )

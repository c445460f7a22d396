"""The answer-evidence judge on drawn statement pages: comparative columns, look-alikes, computed answers."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.reader.answer_evidence import (
    answer_figures,
    answer_printed,
    judge_evidence,
    question_years,
)
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row

QUESTION = "What is the FY2022 capital expenditure (in USD millions) for Acme? Use the cash flow statement."


def _cash_flows(tmp_path, years: tuple[str, str], capex: tuple[str, str], name: str) -> dict:
    """A later filing's statement of cash flows: two year columns, in millions."""
    return draw_layer(
        [
            [("l", 50, "Acme Corporation")],
            [("l", 50, "Consolidated Statements of Cash Flows")],
            [("l", 50, "(in millions)")],
            centred(*years),
            row("Net income", "5,363", "4,869", dollar=True),
            row("Depreciation and amortization", "1,488", "1,544"),
            row("Purchases of property, plant and equipment", f"({capex[0]})", f"({capex[1]})"),
            row("Net cash used in investing activities", "(3,086)", "(1,403)"),
        ],
        tmp_path,
        name,
    )


def test_a_comparative_column_that_prints_the_answer_is_sufficient(tmp_path):
    later = _cash_flows(tmp_path, ("2023", "2022"), ("1,373", "1,577"), "later.pdf")
    for answer in ("$1,577", "1577.00", "(1,577)", "$1577.00", "1,577 million", "$1.577 billion"):
        v = judge_evidence(QUESTION, answer, later)
        assert v.label == "sufficient", (answer, v)
        assert v.printed is True


def test_the_same_figure_in_another_year_column_is_not_the_answer(tmp_path):
    # 1,577 is printed, but for 2023: the question asks for 2022
    page = _cash_flows(tmp_path, ("2023", "2022"), ("1,577", "1,420"), "shifted.pdf")
    v = judge_evidence(QUESTION, "$1,577", page)
    assert v.label == "supporting" and "not for the question's subject and period" in v.rationale
    assert v.printed is True  # the value is there; the judge refuses it on the period


def test_a_look_alike_that_prints_another_value_is_not_sufficient(tmp_path):
    other = _cash_flows(tmp_path, ("2022", "2021"), ("1,612", "1,373"), "other.pdf")
    v = judge_evidence(QUESTION, "$1,577", other, PageContext(entity="Other Corp", period="2022"))
    assert v.label == "supporting"  # the subject and period are there, the figure is not
    assert v.printed is False and "does not print" in v.rationale


def test_a_computed_answer_is_never_sufficient(tmp_path):
    page = _cash_flows(tmp_path, ("2022", "2021"), ("1,577", "1,373"), "ratio.pdf")
    q = "What is Acme's FY2022 capex as a % of net income? Round to one decimal place."
    v = judge_evidence(q, "29.4%", page)  # 1,577 / 5,363: printed nowhere
    assert v.label == "supporting" and v.printed is False


def test_an_unrelated_page_is_irrelevant(tmp_path):
    page = draw_layer(
        [[("l", 50, "Board of Directors")], [("l", 50, "Jane Doe, Chair since 2019")]],
        tmp_path,
        "b.pdf",
    )
    assert judge_evidence(QUESTION, "$1,577", page).label == "irrelevant"


def test_text_answers_need_their_own_words_on_the_page(tmp_path):
    page = draw_layer(
        [
            [("l", 50, "Revenue by region, fiscal 2023")],
            [("l", 50, "The largest decline was in Developed Rest of the World, down 12%.")],
        ],
        tmp_path,
        "t.pdf",
    )
    q = "Which region had the biggest revenue drop in FY2023?"
    assert judge_evidence(q, "Developed Rest of the World", page).label == "sufficient"
    assert judge_evidence(q, "Emerging Markets Asia", page).label == "supporting"
    assert answer_printed(q, "Yes.", page) is None  # nothing a page could show


@pytest.mark.parametrize(
    "answer, values",
    [
        ("$1577.00", [1577.0]),
        ("The rate changed from 20% in FY2021 to 23% in FY 2022.", [20.0, 23.0]),
        ("Corporate. Its net revenue was -$473 million.", [473.0]),
        ("AMCOR's Adj. EBITDA was $2,018mn in FY 2023", [2018.0]),
        ("For FY22, COVID-19 costs at 3M (see (1) and (2)) on August 30, 2023", []),
    ],
)
def test_answer_figures_skip_years_labels_dates_and_list_markers(answer, values):
    assert [f.value for f in answer_figures(answer)] == values


def test_scales_from_the_answer_or_the_question():
    assert answer_figures("$8.70", "What is net PPNE? Answer in USD billions.")[0].scale == 1e9
    assert answer_figures("$13.2 billion")[0].scale == 1e9
    assert answer_figures("4.2%", "in USD millions")[0].scale is None  # a share has no scale


def test_question_years():
    assert question_years("What is the FY2018 - FY2020 3 year average?") == {2018, 2020}
    assert question_years("As of Q2'2023, in Q22023, FY20 and 2022, 2021 and 2020") == {
        2023,
        2020,
        2022,
        2021,
    }


def test_a_page_printed_coarser_than_the_answer_does_not_state_it(tmp_path):
    page = draw_layer(
        [
            [("l", 50, "Fixed asset turnover, fiscal 2022")],
            centred("2022", "2021"),
            row("Fixed asset turnover", "18", "17"),
            row("Operating margin", "12.0%", "11.5%"),
        ],
        tmp_path,
        "p.pdf",
    )
    q = "What is the FY2022 fixed asset turnover?"
    assert judge_evidence(q, "17.98", page).label != "sufficient"  # "18" is not 17.98
    assert (
        judge_evidence(q, "18.00", page).label == "sufficient"
    )  # extra zeros are no extra precision
    assert (
        judge_evidence("What was the FY2022 operating margin?", "12%", page).label == "sufficient"
    )


def test_a_year_printed_next_to_the_figure_beats_the_documents_period(tmp_path):
    page = draw_layer(
        [
            [("l", 50, "Segment revenues")],
            [("l", 50, "2016:")],
            row("Total revenues", "18,412"),
        ],
        tmp_path,
        "y.pdf",
    )
    q = "What were total revenues in FY2018?"
    ctx = PageContext(entity="Acme", period="2018")
    assert judge_evidence(q, "18,412", page, ctx).label != "sufficient"
    undated = draw_layer(
        [[("l", 50, "Segment revenues")], row("Total revenues", "18,412")], tmp_path, "n.pdf"
    )
    assert (
        judge_evidence(q, "18,412", undated, ctx).label == "sufficient"
    )  # nothing nearby: the filing's year


def test_a_schedule_by_year_dates_its_rows_and_short_figures_need_their_own_row(tmp_path):
    page = draw_layer(
        [
            [
                (
                    "l",
                    50,
                    "Benefit payments to retirees are expected to be paid as follows (in millions):",
                )
            ],
            centred("Pension", "Health care"),
            row("", "2023", "1,648", "883"),
            row("", "2024", "1,097", "862"),
            row("Inventories", "2,500", "2,400"),
        ],
        tmp_path,
        "s.pdf",
    )
    q = "As of FY 2021, how much did the company expect to pay its retirees in 2024?"
    assert judge_evidence(q, "$1097 million and $862 million", page).label == "sufficient"
    assert judge_evidence(q, "$1648 million", page).label != "sufficient"  # the 2023 row
    # "2.5" billion is printed (Inventories 2,500), but a short figure needs a row about the question
    debt = "Did the company's debt on the balance sheet decrease in FY2024?"
    assert judge_evidence(debt, "It decreased by $2.5bn.", page).label != "sufficient"


def test_answer_printed_is_the_judges_printed_verdict():
    """The shortcut an import takes once per row agrees with the full judge on every kind of answer."""
    from evalset_pipeline.core.reader.answer_evidence import judge_evidence

    layer = {
        "text": "Net revenue was $12.5 billion in fiscal 2022, up from $11.0 billion.\n"
        "Operating income 3,412 3,100\nThe company is headquartered in Springfield.",
        "words": [],
    }
    cases = [
        ("What was net revenue in FY2022?", "$12.5 billion"),
        ("What was net revenue in FY2022?", "$99.9 billion"),
        ("What was operating income in 2022?", "3,412 and 3,100"),
        ("Where is the company headquartered?", "Springfield"),
        ("Where is the company headquartered?", "Shelbyville"),
        ("Is revenue up?", "Yes."),
    ]
    for question, answer in cases:
        assert (
            answer_printed(question, answer, layer)
            == judge_evidence(question, answer, layer).printed
        )

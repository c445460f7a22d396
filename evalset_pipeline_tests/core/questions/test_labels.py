"""The one label rule's structural part: the gold's own statement for another entity or period is
supporting, whatever its rows are named; its continuation page of the same filing is not. And the
evidence index's reading: a page printing the answer for the gold's row and period is sufficient,
one printing the gold's row for another period, company or basis supporting."""

from dataclasses import replace

import pytest

from evalset_pipeline.core.evidence.completeness import asked_period_cells
from evalset_pipeline.core.evidence.pools import answer_cells, evidence_sources
from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.questions.labels import (
    CandidateLabel,
    as_same_table,
    asked_cells,
    by_evidence,
)
from evalset_pipeline_tests.core.evidence.drawn import index_of, statement

GOLD = PageContext("Acme Corp", "10-K", "2023", "2023-12-31")
LABEL = CandidateLabel("q", "u", "pooled", "bm25", "irrelevant", "no row 'Net sales' on the page")


def test_another_companys_balance_sheet_is_the_same_table():
    other = PageContext("Globex Inc", "10-K", "2023", "2023-12-31")
    out = as_same_table(LABEL, "balance_sheet", "balance_sheet", other, GOLD)
    assert out.label == "supporting" and "another entity" in out.rationale
    assert out.rationale.endswith(LABEL.rationale)  # the labeller's reason is kept


def test_the_same_statement_a_year_earlier_is_the_same_table():
    older = PageContext("Acme Corp", "10-K", "2022", "2022-12-31")
    assert as_same_table(LABEL, "cash_flows", "cash_flows", older, GOLD).label == "supporting"


def test_the_same_statement_of_the_other_basis_is_the_same_table():
    """The separate balance sheet beside the consolidated one (same filing and period)."""
    gold = PageContext("Acme Corp", "10-K", "2023", "2023-12-31", basis="consolidated")
    separate = PageContext("Acme Corp", "10-K", "2023", "2023-12-31", basis="separate")
    out = as_same_table(LABEL, "balance_sheet", "balance_sheet", separate, gold)
    assert out.label == "supporting" and "another basis" in out.rationale


def test_another_statement_or_the_same_filings_continuation_is_left_alone():
    other = PageContext("Globex Inc", "10-K", "2023", "2023-12-31")
    assert as_same_table(LABEL, "cash_flows", "balance_sheet", other, GOLD) == LABEL
    assert as_same_table(LABEL, "", "", other, GOLD) == LABEL  # not a statement page
    assert as_same_table(LABEL, "balance_sheet", "balance_sheet", GOLD, GOLD) == LABEL
    sufficient = CandidateLabel("q", "u", "pooled", "answer", "sufficient", "prints it")
    assert as_same_table(sufficient, "balance_sheet", "balance_sheet", other, GOLD) == sufficient


# --- the index's reading: labels agree with what the evidence index shows -------------------------


@pytest.fixture
def index(tmp_path):
    years = ("2023", "2022")
    return index_of(
        {
            "gold": statement(
                tmp_path,
                "g",
                "Income statement",
                years,
                {"Provision for income taxes": ("1,064", "987"), "Land": ("1,064", "1,001")},
            ),
            "older": statement(
                tmp_path,
                "o",
                "Income statement",
                ("2022", "2021"),
                {"Provision for income taxes": ("987", "900")},
            ),
            "later": statement(  # the next year's filing: 2023 as its comparative
                tmp_path,
                "l",
                "Income statement",
                ("2024", "2023"),
                {"Provision for income taxes": ("1,100", "1,064"), "Land": ("1,000", "1,001")},
            ),
            "land_only": statement(  # the same number in another row only
                tmp_path,
                "x",
                "Schedule of assets",
                years,
                {"Land": ("1,064", "1,001")},
            ),
            "before_tax": statement(
                tmp_path,
                "b",
                "Income statement",
                years,
                {"Income before provision for income taxes": ("5,001", "4,000")},
            ),
            "emea_revenue": statement(
                tmp_path,
                "e1",
                "Net revenues by geographic region",
                years,
                {"EMEA": ("2,239", "2,000")},
            ),
            "emea_income": statement(
                tmp_path,
                "e2",
                "Operating income by geographic region",
                years,
                {"EMEA": ("310", "290")},
            ),
        }
    )


QUESTION = "What was Provision for income taxes in 2023, for Acme Corp?"
ANSWER = "1,064 (USD millions)"


def _label(
    index, unit, found_by=("bm25",), label="irrelevant", page=GOLD, question=QUESTION, answer=ANSWER
):
    gold_cells = asked_cells(question, answer_cells(index, "gold", answer))
    lab = CandidateLabel("q", unit, "pooled", ",".join(found_by), label, "labeller's reason")
    return by_evidence(lab, question, found_by, index.cells_of(unit), gold_cells, page, GOLD)


def test_the_asked_row_not_another_row_printing_the_same_number(index):
    cells = asked_cells(QUESTION, answer_cells(index, "gold", ANSWER))
    assert [c.label for c in cells] == ["Provision for income taxes"]  # not "Land"


def test_a_page_printing_the_answer_for_the_row_and_period_is_sufficient(index):
    out = _label(index, "later", found_by=("answer", "figure"))
    assert out.label == "sufficient" and out.rationale.endswith("labeller's reason")
    other = PageContext("Globex Inc", "10-K", "2023", "2023-12-31")
    # another company's page printing it: the same row for another entity, not the answer
    assert _label(index, "later", found_by=("answer",), page=other).label == "supporting"


def test_the_answer_source_of_another_row_of_the_gold_is_no_answer(index):
    """The gold prints 1,064 as its provision and as Land: a page printing 1,064 only as Land is
    found by the pool's `answer` source (any gold cell of the figure) but does not answer the
    asked row (Korean reading: "유동성장기부채 20,000" pages sufficient for "장기차입금의
    유동성대체")."""
    assert _label(index, "land_only", found_by=("answer", "figure")).label != "sufficient"


def test_the_answer_printed_by_the_other_basis_is_supporting_not_sufficient(index):
    """A separate statement that prints the consolidated answer's figure for the asked row and
    period is the same measure for another basis when the question names its basis (reading:
    separate notes labelled sufficient for a consolidated question, though their rationale said
    the basis differs); a question naming none is answered by either (reading: a guarantee
    both notes print alike, the separate one labelled irrelevant)."""
    named = (
        "Acme Corp의 2023년 12월 31일로 종료되는 회계연도 연결 기준 "
        "Provision for income taxes는 얼마였습니까?"
    )
    gold = replace(GOLD, basis="consolidated")
    lab = CandidateLabel("q", "later", "pooled", "answer", "irrelevant", "labeller's reason")
    cells = index.cells_of("later")
    separate = replace(gold, basis="separate")
    for question, other_basis in ((named, "supporting"), (QUESTION, "sufficient")):
        gold_cells = asked_cells(question, answer_cells(index, "gold", ANSWER))
        assert gold_cells
        out = by_evidence(lab, question, ("answer",), cells, gold_cells, separate, gold)
        assert out.label == other_basis, question
        same = by_evidence(lab, question, ("answer",), cells, gold_cells, gold, gold)
        assert same.label == "sufficient"


def test_the_asked_row_for_another_period_is_supporting_and_a_longer_label_is_not(index):
    out = _label(index, "older")
    assert out.label == "supporting" and "Provision for income taxes" in out.rationale
    assert _label(index, "before_tax").label == "irrelevant"


def test_a_name_asked_under_its_section_needs_the_section(index):
    question = "What was EMEA under Net revenues by geographic region in 2023, for Acme Corp?"
    gold_cells = asked_cells(question, answer_cells(index, "emea_revenue", "2,239 (USD millions)"))
    other = PageContext("Globex Inc", "10-K", "2023", "2023-12-31")
    for unit, expected in (("emea_revenue", "supporting"), ("emea_income", "irrelevant")):
        lab = CandidateLabel("q", unit, "pooled", "bm25", "irrelevant", "")
        out = by_evidence(lab, question, ("bm25",), index.cells_of(unit), gold_cells, other, GOLD)
        assert out.label == expected, unit


def test_labels_only_move_up(index):
    assert _label(index, "before_tax", label="supporting").label == "supporting"
    assert _label(index, "older", label="sufficient").label == "sufficient"
    gold = CandidateLabel("q", "gold", "gold", "", "irrelevant", "")
    assert by_evidence(gold, QUESTION, (), [], [], GOLD, GOLD) == gold


def _cell(unit, label, display, value, parent="", year=2021):
    from datetime import date

    from evalset_pipeline.core.evidence.figures import digit_key
    from evalset_pipeline.core.evidence.index import EvidenceCell

    end = date(year, 12, 31)
    return EvidenceCell(
        unit, 0, 0, 1, label, parent, "", "", str(year), 12, end, None, display, value,
        "USD", 1e6, False, digit_key(display),
    )  # fmt: skip


def test_a_table_turned_the_other_way_that_names_the_measure_answers():
    """The gold prints Segment net income under "Environmental Technologies"; the next filing
    prints segments as rows under a sentence naming the measure: the same fact."""
    question = (
        "What was Segment net income under Environmental Technologies for the year ended "
        "December 31, 2021, for Acme Corp?"
    )
    gold_cells = [_cell("gold", "Segment net income", "269", 269.0, "Environmental Technologies")]
    page = [_cell("next", "Environmental Technologies", "269", 269.0)]
    lab = CandidateLabel("q", "next", "pooled", "figure", "irrelevant", "coincidence")

    def judged(text, cells=page, context=GOLD):
        return by_evidence(
            lab, question, ("figure",), cells, gold_cells, context, GOLD, lambda: text
        )

    named = "The following table presents segment net income (loss) by reportable segment"
    assert judged(named).label == "sufficient"
    assert judged("Research and development by reportable segment").label == "irrelevant"
    other_year = [_cell("next", "Environmental Technologies", "269", 269.0, year=2020)]
    assert judged(named, cells=other_year).label == "irrelevant"
    globex = PageContext("Globex Inc", "10-K", "2022", "2022-12-31")
    assert judged(named, context=globex).label == "irrelevant"


def test_the_answer_with_the_opposite_sign_is_another_row():
    question = "What was Total change in deferred revenues for the year ended December 31, 2021?"
    gold_cells = [_cell("gold", "Total change in deferred revenues", "(101)", -101.0)]
    lab = CandidateLabel("q", "cf", "pooled", "answer", "irrelevant", "no row")
    opposite = [_cell("cf", "Net effect of deferral of deferred net revenues", "101", 101.0)]
    same = [_cell("cf", "Deferred revenues", "(101)", -101.0)]
    for cells, expected in ((opposite, "irrelevant"), (same, "sufficient"), ([], "sufficient")):
        out = by_evidence(lab, question, ("answer",), cells, gold_cells, GOLD, GOLD)
        assert out.label == expected, cells


def test_an_expense_printed_as_a_deduction_is_the_same_fact():
    """The tax note prints "Total income tax provision 6,802"; the income statement (and the next
    filing's comparative column) prints "Provision for income taxes (6,802)": the sign of an
    expense is presentation. A revenue row with the opposite sign stays another row."""
    question = "What was Total income tax provision for the year ended December 31, 2021?"
    gold_cells = [_cell("gold", "Total income tax provision", "6,802", 6802.0)]
    lab = CandidateLabel("q", "is", "pooled", "answer", "irrelevant", "no row")
    deducted = [_cell("is", "Provision for income taxes", "(6,802)", -6802.0)]
    out = by_evidence(lab, question, ("answer",), deducted, gold_cells, GOLD, GOLD)
    assert out.label == "sufficient"
    loss_gold = [_cell("gold", "U.S. loss before income taxes", "325", 325.0)]
    loss_note = [_cell("is", "U.S.", "(325)", -325.0)]  # a place row: the gold names the loss
    out = by_evidence(lab, question, ("answer",), loss_note, loss_gold, GOLD, GOLD)
    assert out.label == "sufficient"
    revenue_gold = [_cell("gold", "Total revenues", "6,802", 6802.0)]
    reversed_revenue = [_cell("is", "Revenues", "(6,802)", -6802.0)]
    out = by_evidence(lab, question, ("answer",), reversed_revenue, revenue_gold, GOLD, GOLD)
    assert out.label == "irrelevant"


def test_the_total_of_a_section_named_like_the_row_is_the_same_fact():
    """The gold prints "Residential real estate 328,010"; the credit-quality table prints it as
    "Total retained loans" under "Residential real estate": the same figure for the same period.
    Another section's total, or another period, is not."""
    question = "What was Residential real estate as of December 31, 2021?"
    gold_cells = [_cell("gold", "Residential real estate", "328,010", 328010.0)]
    lab = CandidateLabel("q", "cq", "pooled", "figure", "irrelevant", "coincidence")

    def judged(cells):
        return by_evidence(lab, question, ("figure",), cells, gold_cells, GOLD, GOLD).label

    total = "Total retained loans"
    assert judged([_cell("cq", total, "328,010", 328010.0, "Residential real estate")]) == (
        "sufficient"
    )
    assert judged([_cell("cq", total, "328,010", 328010.0, "Auto and other")]) == "irrelevant"
    assert judged([_cell("cq", total, "328,010", 328010.0, "Residential real estate", 2020)]) == (
        "irrelevant"
    )


def test_a_renamed_filers_statement_is_the_same_company_for_another_period():
    # one filer under its old name: the gold's company, a year earlier (not another entity)
    renamed = PageContext("Acme Holdings Inc", "10-K", "2022", "2022-12-31", ("Acme Corp",))
    out = as_same_table(LABEL, "balance_sheet", "balance_sheet", renamed, GOLD)
    assert out.label == "supporting" and "another period." in out.rationale
    assert "entity" not in out.rationale.split(".")[0]


def test_a_balance_printed_unchanged_answers_only_for_the_asked_date(tmp_path):
    # The gold prints 3,654 for both years; a page printing 3,654 for 2022 does not answer 2023
    index = index_of(
        {
            "gold": statement(
                tmp_path,
                "g",
                "Balance sheet",
                ("2023", "2022"),
                {"Treasury stock": ("3,654", "3,654")},
            ),
            "earlier": statement(
                tmp_path,
                "e",
                "Balance sheet",
                ("2022", "2021"),
                {"Treasury stock": ("3,654", "3,100")},
            ),
            "later": statement(
                tmp_path,
                "l",
                "Balance sheet",
                ("2024", "2023"),
                {"Treasury stock": ("3,900", "3,654")},
            ),
        }
    )
    question = "What was Treasury stock in 2023, for Acme Corp?"
    cells = answer_cells(index, "gold", "3,654 (USD millions)")
    asked = asked_period_cells(question, cells)
    assert len(cells) == 2 and len(asked) == 1
    answering, _ = evidence_sources(index, "gold", "3,654 (USD millions)", asked)
    assert answering == ["later"]


def test_a_korean_partys_row_is_the_asked_row(tmp_path):
    # "양우종합건설에 대한 채무보증" asks the row "양우종합건설" of a guarantee table, as the judge
    # reads it: the gold's cell is found, so pages printing it for the date are judged by it
    index = index_of(
        {
            "gold": statement(
                tmp_path,
                "g",
                "채무보증 현황",
                ("2023년", "2022년"),
                {"양우종합건설": ("12,000", "15,000"), "호반건설": ("3,400", "3,100")},
            )
        }
    )
    cells = answer_cells(index, "gold", "12,000 (KRW millions)")
    for asked in ("양우종합건설에 대한 채무보증", "양우종합건설의 채무보증"):
        found = asked_cells(f"2023년 {asked}은 얼마였습니까?", cells)
        assert [c.label for c in found] == ["양우종합건설"]


def test_a_related_partys_row_in_the_same_column_another_quarter_is_supporting():
    """The gold prints 호반자산개발's "기타채권 등" at the quarter's end; the next filing prints the
    row in its "기타채권" column at its own quarter's end: the same measure for another period.
    The party's row in another measure's column is not."""
    from dataclasses import replace as with_

    question = "한빛전자의 2022년 9월 30일 현재 호반자산개발에 대한 기타채권 등은 얼마였습니까?"
    gold = with_(_cell("gold", "호반자산개발", "1,062", 1062.0), header="당분기말 기타채권 등")
    lab = CandidateLabel("q", "next", "pooled", "figure", "irrelevant", "coincidence")
    same = [with_(_cell("next", "호반자산개발", "1,062", 1062.0, year=2023), header="기타채권")]
    other = [with_(_cell("next", "호반자산개발", "1,062", 1062.0, year=2023), header="미지급금")]
    out = by_evidence(lab, question, ("figure",), same, [gold], None, None)
    assert out.label == "supporting", out.rationale
    out = by_evidence(lab, question, ("figure",), other, [gold], None, None)
    assert out.label == "irrelevant"


def test_another_segments_figure_is_no_answer_for_the_asked_segment():
    """The Retail/LTC segment's generic dispensing rate, 87.4 %, found by the figure on a page
    stating the Pharmacy Services segment's (also 87.4 %): no gold cell to compare (the gold is
    prose), but the page names its row as the other segment's."""
    question = "What was the retail/LTC segment’s generic dispensing rate in 2021, for Acme Corp?"
    lab = CandidateLabel("q", "ps", "pooled", "answer", "irrelevant", "no row")
    other = [
        _cell("ps", "Pharmacy Services segment’s total generic dispensing rate", "87.4%", 87.4)
    ]
    own = [_cell("rl", "Retail/LTC segment’s generic dispensing rate", "87.4%", 87.4)]
    plain = [_cell("rl", "Generic dispensing rate", "87.4%", 87.4)]
    assert by_evidence(lab, question, ("answer",), other, [], GOLD, GOLD).label == "irrelevant"
    assert by_evidence(lab, question, ("answer",), own, [], GOLD, GOLD).label == "sufficient"
    assert by_evidence(lab, question, ("answer",), plain, [], GOLD, GOLD).label == "sufficient"

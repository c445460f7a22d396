"""The one label rule's structural part: the gold's own statement for another entity or period is
supporting, whatever its rows are named; its continuation page of the same filing is not."""

from evalset_pipeline.core.questions.labels import CandidateLabel, as_same_table
from evalset_pipeline.core.vlm.base import PageContext

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


def test_another_statement_or_the_same_filings_continuation_is_left_alone():
    other = PageContext("Globex Inc", "10-K", "2023", "2023-12-31")
    assert as_same_table(LABEL, "cash_flows", "balance_sheet", other, GOLD) == LABEL
    assert as_same_table(LABEL, "", "", other, GOLD) == LABEL  # not a statement page
    assert as_same_table(LABEL, "balance_sheet", "balance_sheet", GOLD, GOLD) == LABEL
    sufficient = CandidateLabel("q", "u", "pooled", "answer", "sufficient", "prints it")
    assert as_same_table(sufficient, "balance_sheet", "balance_sheet", other, GOLD) == sufficient

"""Completeness finds the pages that print an item's answer for its row and period and were never
judged, and nothing else (another row's same number is no answer)."""

import pytest

from evalset_pipeline.core.evidence.completeness import ItemRef, completeness
from evalset_pipeline_tests.core.evidence.drawn import index_of, statement


@pytest.fixture
def index(tmp_path):
    return index_of(
        {
            "gold": statement(
                tmp_path, "g", "Statements", ("2023", "2022"), {"Net sales": ("1,064", "987")}
            ),
            "next": statement(
                tmp_path, "n", "Statements", ("2024", "2023"), {"Sales, net": ("1,190", "1,064")}
            ),
            "coincidence": statement(
                tmp_path, "c", "Note 7", ("2023", "2022"), {"Land": ("1,064", "1,001")}
            ),
            "older": statement(
                tmp_path, "o", "Statements", ("2022", "2021"), {"Net sales": ("1,064", "900")}
            ),
        }
    )


ITEM = ItemRef("q1", "What were Net sales in 2023?", "1,064 (millions)", ("gold",))


def test_an_unjudged_page_that_answers_is_found_with_where_it_prints_it(index):
    report = completeness([ITEM], {("q1", "gold")}, index)
    assert [(u.item_id, u.unit_id) for u in report.unjudged] == [("q1", "next")]
    assert "Sales, net" in report.unjudged[0].where and "1,064" in report.unjudged[0].where
    # "Land" prints the number for another row; "older" prints it for 2022: neither answers
    assert report.other_answering_pages == 1 and report.items_with_other_answering_pages == 1
    assert report.checkable == 1 and report.share_answered_elsewhere == 1.0


def test_a_judged_page_is_complete(index):
    report = completeness([ITEM], {("q1", "gold"), ("q1", "next")}, index)
    assert report.unjudged == [] and report.other_answering_pages == 1


def test_answers_that_are_no_specific_figure_or_not_in_a_cell_are_counted_apart(index):
    items = [
        ItemRef("q2", "Which segment?", "Cloud", ("gold",)),
        ItemRef("q3", "What?", "25", ("gold",)),  # two significant digits: found everywhere
        ItemRef("q4", "What?", "7,777 (millions)", ("gold",)),  # not printed on its gold
    ]
    report = completeness(items, set(), index)
    assert (report.items, report.checkable, report.not_located) == (3, 0, 1)


def test_the_evidence_judge_is_asked_of_every_page_printing_the_digits(index):
    from evalset_pipeline.core.evidence.completeness import answered_by_evidence

    asked = []

    def sufficient(item, unit):
        asked.append(unit)
        return unit == "next"

    audit = answered_by_evidence([ITEM], {("q1", "gold")}, index, sufficient)
    assert sorted(asked) == [
        "coincidence",
        "next",
        "older",
    ]  # every page printing 1,064, gold aside
    assert (audit.items, audit.items_answered_elsewhere, audit.pages_answering) == (1, 1, 1)
    assert [u.unit_id for u in audit.unjudged] == ["next"]
    assert audit.to_dict()["share_answered_elsewhere"] == 1.0


def test_a_rounded_answer_is_found_where_the_statement_prints_it_whole(tmp_path):
    from evalset_pipeline.core.evidence.figures import answer_figure

    index = index_of(
        {
            "gold": statement(
                tmp_path,
                "g",
                "Statements",
                ("2023", "2022"),
                {"Research and development expense": ("12.0", "11.0")},
            ),
            "income": statement(
                tmp_path,
                "i",
                "Statements",
                ("2023", "2022"),
                {"Research and development": ("11,988", "11,042")},
            ),
        }
    )
    figure = answer_figure("12.0 (USD billions)")
    assert figure.precise and not figure.specific
    found = {c.unit_id for c in index.cells_rounding_to(figure)}
    assert "income" in found  # 11,988 millions rounds to 12.0 billions


def test_an_answer_in_thousands_is_found_where_a_summary_prints_it_in_millions(tmp_path):
    """The statement prints revenue to the thousand; the filing's summary prints it rounded to the
    million: the same fact, unjudged until it is pooled. A million off is another figure."""
    index = index_of(
        {
            "gold": statement(
                tmp_path,
                "g",
                "Statements",
                ("2023", "2022"),
                {"Net sales": ("703,910,702", "589,414,011")},
                unit_line="(In thousands)",
            ),
            "summary": statement(
                tmp_path, "s", "Highlights", ("2023", "2022"), {"Net sales": ("703,911", "589,414")}
            ),
            "off": statement(
                tmp_path, "o", "Other", ("2023", "2022"), {"Net sales": ("703,913", "589,400")}
            ),
        }
    )
    item = ItemRef("q", "What were Net sales in 2023?", "703,910,702 (USD thousands)", ("gold",))
    report = completeness([item], {("q", "gold")}, index)
    assert [u.unit_id for u in report.unjudged] == ["summary"]
    assert completeness([item], {("q", "gold"), ("q", "summary")}, index).unjudged == []


def test_a_specific_figure_under_other_words_for_the_same_measure_answers(tmp_path):
    index = index_of(
        {
            "gold": statement(
                tmp_path,
                "g",
                "Cash flows",
                ("2023", "2022"),
                {"Net cash provided by operating activities": ("37,141", "35,002")},
            ),
            "release": statement(
                tmp_path,
                "r",
                "Highlights",
                ("2023", "2022"),
                {"Cash Flows from Operations": ("37,141", "35,002")},
            ),
            "coincidence": statement(
                tmp_path, "c", "Note 7", ("2023", "2022"), {"Land": ("37,141", "1,001")}
            ),
        }
    )
    item = ItemRef(
        "q", "What was Net cash provided by operating activities in 2023?", "37,141", ("gold",)
    )
    report = completeness([item], {("q", "gold")}, index)
    assert [u.unit_id for u in report.unjudged] == ["release"]

"""A lead-in sentence kept as a table's section is asked by the heading it stands for, and the
judge reads the shorter question back against the page that prints the whole sentence."""

from __future__ import annotations

import datetime

from evalset_pipeline.core.reader.lead_ins import heading_of
from evalset_pipeline.core.reader.table_page import TablePage
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
)
from evalset_pipeline.core.reader.table_records import Column, Row, Table


def test_a_lead_in_sentence_gives_its_subject_as_the_heading():
    cases = {
        "Operating expenses include share-based compensation expense as follows": (
            "Operating expenses"
        ),
        "Consumer loans, excluding credit card loans, consist": (
            "Consumer loans, excluding credit card loans"
        ),
        "Other assets decreased reflecting lower cash collateral": "Other assets",
        "Property and equipment, net, consisted of the following": "Property and equipment, net",
        "Selected metrics (continued)": "Selected metrics",
        "Consolidated balance sheets – continued": "Consolidated balance sheets",
    }
    for sentence, heading in cases.items():
        assert heading_of(sentence) == heading, sentence
    for heading in ("Operating expenses", "Residential real estate", "Excluding Fuel", ""):
        assert heading_of(heading) == heading


def test_the_judge_reads_the_heading_back_against_the_printed_sentence():
    end = datetime.date(2016, 12, 31)
    table = Table(
        columns=(Column(0, "2016", 12, end, 2016, 300.0, 350.0),),
        rows=(
            Row(
                "Product development",
                "Operating expenses include share-based compensation expense as follows",
                ("91,404",),
                (91404.0,),
                0.0,
                False,
            ),
        ),
        unit="USD thousands",
        per_share_unit="USD",
        title="",
        top=0.0,
        bottom=100.0,
    )
    page = TablePage("Operating expenses include share-based compensation expense", (table,))
    q = parse_table_question(
        "What was Product development under Operating expenses for the year ended December 31, "
        "2016?"
    )
    assert q is not None
    judged = judge_table_question(q, page)
    assert judged.answers and judged.answer == "91,404 (USD thousands)"


def test_a_qualifying_section_is_its_lead_ins_subject():
    from evalset_pipeline.core.reader.table_questions import qualify_table_question

    asked = qualify_table_question(
        "What was Residential real estate as of June 30, 2023?",
        {"section": "Consumer loans, excluding credit card loans, consist", "entity": "Acme Corp"},
    )
    assert asked == (
        "What was Residential real estate under Consumer loans, excluding credit card loans "
        "as of June 30, 2023, for Acme Corp?"
    )

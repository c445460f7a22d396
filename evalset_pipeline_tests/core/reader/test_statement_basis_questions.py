"""A filing printing consolidated and separate statements prints one row twice, with two figures:
the question names the basis ("연결 기준"), and the other basis's page no longer answers it
(support: dart_pages.py)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from evalset_pipeline.core.judging.base import PageContext, PageView, Qualifiers
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.reader.table_questions import parse_table_question
from evalset_pipeline.core.reader.textlayer import TextLayerBackend
from evalset_pipeline_tests.support.dart_pages import CASH, dart_pages, draw_dart_filing

QUARTER = PageContext("한빛전자 주식회사", "quarterly-report", "2024-Q3", "2024-09-30")
ASKED = "2024년 9월 30일 현재 현금및현금성자산은 얼마였습니까?"


def _view(tmp_path: Path, index: int, basis: str) -> PageView:
    import pymupdf

    pdf = draw_dart_filing(tmp_path / f"p{index}.pdf", [dart_pages()[index]])
    with pymupdf.open(pdf) as doc:
        layer = text_layer_of(doc[0])
    path = tmp_path / f"p{index}.json"
    path.write_text(json.dumps(layer, ensure_ascii=False), encoding="utf-8")
    return PageView(
        f"p{index}", tmp_path / "none.png", path, f"h{index}", replace(QUARTER, basis=basis)
    )


@pytest.fixture()
def pages(tmp_path: Path) -> tuple[PageView, PageView]:
    return _view(tmp_path, 1, "consolidated"), _view(tmp_path, 4, "separate")


def test_both_balance_sheets_answer_the_bare_question_otherwise(
    pages: tuple[PageView, PageView],
) -> None:
    consolidated, separate = pages
    judged = TextLayerBackend().judge([(ASKED, consolidated), (ASKED, separate)])
    assert [j.answer and j.answer.split()[0] for j in judged] == [
        CASH["consolidated"][0],
        CASH["separate"][0],
    ]


def test_the_question_names_the_basis_and_the_other_basis_does_not_answer(
    pages: tuple[PageView, PageView],
) -> None:
    consolidated, separate = pages
    backend = TextLayerBackend()
    [asked] = backend.qualify(
        [(ASKED, Qualifiers({"entity": "한빛전자 주식회사", "basis": "consolidated"}, "ko"))]
    )
    assert asked == (
        "한빛전자 주식회사의 2024년 9월 30일 현재 연결 기준 현금및현금성자산은 얼마였습니까?"
    )
    parsed = parse_table_question(asked)
    assert parsed is not None and parsed.basis == "consolidated"
    # named once, however often it is qualified
    assert backend.qualify([(asked, Qualifiers({"basis": "consolidated"}, "ko"))]) == [asked]
    gold, other = backend.judge([(asked, consolidated), (asked, separate)])
    assert (
        gold.answers and gold.answer is not None and gold.answer.startswith(CASH["consolidated"][0])
    )
    assert not other.answers and "separate" in other.reason
    # the labeller: the separate balance sheet prints the same measure for another basis
    labels = backend.label([(asked, gold.answer, consolidated), (asked, gold.answer, separate)])
    assert [lab.label for lab in labels] == ["sufficient", "supporting"]


def test_a_page_of_unknown_basis_is_judged_on_its_table(pages: tuple[PageView, PageView]) -> None:
    consolidated, _ = pages
    unknown = replace(consolidated, context=QUARTER)
    [asked] = TextLayerBackend().qualify([(ASKED, Qualifiers({"basis": "consolidated"}, "ko"))])
    assert TextLayerBackend().judge([(asked, unknown)])[0].answers


def test_a_question_written_on_a_page_of_one_basis_names_it(
    pages: tuple[PageView, PageView],
) -> None:
    # A filing of both bases prints each row twice: the question names its page's basis even
    # when the other basis's page is never pooled beside it.
    consolidated, separate = pages
    written = TextLayerBackend().write_questions([consolidated, separate])
    questions = [w.question for w in written if w is not None]
    assert len(questions) == 2, written
    assert " 연결 기준 " in questions[0] and " 별도 기준 " in questions[1], questions
    assert [parse_table_question(q).basis for q in questions] == ["consolidated", "separate"]

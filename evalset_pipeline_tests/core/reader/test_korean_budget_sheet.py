"""A budget program sheet's summary table, drawn as such sheets set it: year spans ("2022년",
"2023년 예산", "2024년") over sub-headers ("결산 | 본예산(A) | 정부안 | 확정(B)"), the labels' header
("사업명") centred down both header rows, a "(단위: 백만원, %)" line. The year columns are the
program's fiscal years; the question names the year and the program, the unit as printed."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.reader.korean_questions import (
    parse_korean_question,
    qualify_korean_question,
)
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    qualify_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.table_reader import read_tables
from evalset_pipeline_tests.core.reader.test_table_reader import FONT
from evalset_pipeline_tests.support.korean_text import put_text

# (kind, x, y, text): a header cell may sit between two header rows
PLACED = [
    ("l", 57, 60, "3. 예산 총괄표"),
    ("r", 560, 84, "(단위: 백만원, %)"),
    ("c", 105, 105, "사업명"),  # centred down both header rows
    ("c", 200, 99, "2022년"),
    ("c", 270, 99, "2023년 예산"),
    ("c", 375, 99, "2024년"),
    ("c", 500, 99, "증감"),
    ("c", 200, 112, "결산"),
    ("c", 270, 112, "본예산(A)"),
    ("c", 340, 112, "정부안"),
    ("c", 410, 112, "확정(B)"),
    ("c", 470, 112, "(B-A)"),
    ("c", 530, 112, "(B-A)/A"),
    ("l", 50, 128, "청년일자리지원"),
    ("r", 225, 128, "321,457"),
    ("r", 295, 128, "512,300"),
    ("r", 365, 128, "580,120"),
    ("r", 435, 128, "575,860"),
    ("r", 495, 128, "63,560"),
    ("r", 555, 128, "12.4"),
]


def _sheet(tmp_path: Path) -> dict:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for kind, x, y, text in PLACED:
        put_text(page, kind, x, y, text, FONT)
    path = tmp_path / "sheet.pdf"
    doc.save(path)
    doc.close()
    with pymupdf.open(path) as pdf:
        return text_layer_of(pdf[0])


def test_year_spans_over_sub_headers_date_the_budget_columns(tmp_path):
    [table] = read_tables(_sheet(tmp_path))
    assert [(c.year, c.header) for c in table.columns[:4]] == [
        (2022, "2022년 결산"),
        (2023, "2023년 예산 본예산(A)"),
        (2024, "2024년 정부안"),
        (2024, "2024년 확정(B)"),
    ]
    assert [c.year for c in table.columns[4:]] == [None, None]  # the change columns: no year
    # the unit line and the header rows below it are no subject: the heading says what the rows are
    assert table.subject == "예산"


def test_a_budget_sheet_is_asked_by_year_and_program_with_its_printed_unit(tmp_path):
    page = read_table_page(_sheet(tmp_path))
    written = write_table_question(page, None, "ko")
    assert written is not None
    # the sheet's own year prints two figures (정부안, 확정): the one asked is named
    assert written.question == "2024년 예산 중 청년일자리지원의 확정은 얼마였습니까?"
    assert written.answer == "575,860 백만원"
    q = parse_table_question("2024년 예산 중 청년일자리지원은 얼마였습니까?")
    assert q is not None and not judge_table_question(q, page).answers  # which of the two?
    q = parse_table_question("2022년 예산 중 청년일자리지원은 얼마였습니까?")
    assert q is not None and judge_table_question(q, page).answer == "321,457 백만원"


# Every program's sheet prints the same tables: a row that is not the program's name ("사업비")
# is asked of the program the sheet's cover names (its document's subject).
SCALE = [
    ("l", 57, 60, "4. 사업규모"),
    ("r", 560, 84, "(단위: 백만원)"),
    ("c", 200, 105, "2022년"),
    ("c", 300, 105, "2023년"),
    ("c", 400, 105, "2024년"),
    ("l", 50, 125, "사업비"),
]


def _scale(tmp_path: Path, name: str, figures: tuple[str, str, str]) -> dict:
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for kind, x, y, text in SCALE:
        put_text(page, kind, x, y, text, FONT)
    for x, figure in zip((225, 325, 425), figures, strict=True):
        put_text(page, "r", x, 125, figure, FONT)
    doc.save(tmp_path / name)
    doc.close()
    with pymupdf.open(tmp_path / name) as pdf:
        return text_layer_of(pdf[0])


YOUTH = PageContext("고용노동부", subject="청년일자리지원(1043-301)", subject_kind="사업")
CARD = PageContext("고용노동부", subject="내일배움카드(일반)(1131-300)", subject_kind="사업")


def test_two_programs_sheets_printing_one_row_each_name_their_program(tmp_path):
    youth = read_table_page(_scale(tmp_path, "youth.pdf", ("100", "200", "300")))
    card = read_table_page(_scale(tmp_path, "card.pdf", ("400", "500", "600")))
    for page, context, other_page, other in (
        (youth, YOUTH, card, CARD),
        (card, CARD, youth, YOUTH),
    ):
        written = write_table_question(page, context, "ko")
        assert written is not None
        assert written.question.startswith(f"‘{context.subject}’ 사업의 2024년 ")
        q = parse_table_question(written.question)
        assert q is not None and q.subject == context.subject
        assert judge_table_question(q, page, context).answer == written.answer
        # the other program's sheet prints the row for its own program: not this question's
        judged = judge_table_question(q, other_page, other)
        assert not judged.answers and "subject" in judged.reason
        # qualified with the ministry, the owner leads and the subject stays
        named = qualify_table_question(written.question, {"entity": "고용노동부"})
        assert named.startswith(f"고용노동부 ‘{context.subject}’ 사업의 2024년 ")
        back = parse_table_question(named)
        assert back is not None and (back.entity, back.subject) == ("고용노동부", context.subject)
        assert judge_table_question(back, page, context).answer == written.answer
    assert "300" in write_table_question(youth, YOUTH, "ko").answer


def test_the_programs_own_row_in_a_sub_column_is_its_budget_of_that_kind(tmp_path):
    page = read_table_page(_sheet(tmp_path))
    context = PageContext("고용노동부", subject="청년일자리지원(1043-301)", subject_kind="사업")
    written = write_table_question(page, context, "ko")
    assert written is not None
    assert written.question == "‘청년일자리지원(1043-301)’ 사업의 2024년 확정 예산은 얼마였습니까?"
    assert written.answer == "575,860 백만원"
    q = parse_table_question(written.question)
    assert q is not None and judge_table_question(q, page, context).answer == "575,860 백만원"
    other = PageContext("고용노동부", subject="내일배움카드(1131-300)", subject_kind="사업")
    assert not judge_table_question(q, page, other).answers
    asked = "고용노동부 ‘청년일자리지원(1043-301)’ 사업의 2024년 정부안 예산은 얼마였습니까?"
    q = parse_table_question(asked)
    assert q is not None and judge_table_question(q, page, context).answer == "580,120 백만원"


def test_a_subject_round_trips_through_the_grammar_with_and_without_its_owner():
    for asked, entity, subject, kind in (
        (
            "‘재정융자사업’ 보고서의 2023년 기타특별회계는 얼마였습니까?",
            "",
            "재정융자사업",
            "보고서",
        ),
        (
            "보건복지부 ‘노인일자리 및 사회활동지원(2139-302)’ 사업의 2024년 사업규모 중 "
            "사업비는 얼마였습니까?",
            "보건복지부",
            "노인일자리 및 사회활동지원(2139-302)",
            "사업",
        ),
    ):
        q = parse_korean_question(asked)
        assert q is not None and (q.entity, q.subject, q.subject_kind) == (entity, subject, kind)
        assert qualify_korean_question(asked, entity, "") == asked  # never doubled
    named = qualify_korean_question(
        "‘재정융자사업’ 보고서의 2023년 기타특별회계는 얼마였습니까?", "한국재정정보원", ""
    )
    assert named == "한국재정정보원 ‘재정융자사업’ 보고서의 2023년 기타특별회계는 얼마였습니까?"
    q = parse_korean_question(named)
    assert q is not None and (q.entity, q.label, q.year) == ("한국재정정보원", "기타특별회계", 2023)
    # a question without a subject reads as before
    q = parse_korean_question("대한전선 주식회사의 2023년 매출액은 얼마였습니까?")
    assert q is not None and (q.entity, q.subject) == ("대한전선 주식회사", "")

"""A document's subject read off its first page: a budget sheet's program under its spaced-out
name label, a brief's topic in the cover's largest type (not the series name, date, issue number
or publisher); a filing's cover naming its form has none."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from evalset_pipeline.core.metadata.document_facts import extract_document_facts
from evalset_pipeline.core.metadata.document_subject import find_subject
from evalset_pipeline.core.metadata.page_subject import line_counts, page_lines, running_lines
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline_tests.support.korean_text import put_text

pytestmark = pytest.mark.unit

Placed = tuple[str, float, float, str, float]  # (align, x, y, text, font size)


def _layers(tmp_path: Path, pages: list[list[Placed]], name: str = "doc.pdf") -> list[dict]:
    doc = pymupdf.open()
    for placed in pages:
        page = doc.new_page(width=612, height=792)
        for kind, x, y, text, size in placed:
            put_text(page, kind, x, y, text, size)
    doc.save(tmp_path / name)
    doc.close()
    with pymupdf.open(tmp_path / name) as pdf:
        return [text_layer_of(p) for p in pdf]


def _subject(layers: list[dict]):
    lines = [page_lines(layer) for layer in layers]
    return find_subject(lines[:2], running_lines(lines, counts=line_counts(lines)))


def _sheet(program: str, row: str = "청년일자리지원") -> list[Placed]:
    return [
        ("c", 306, 60, "사   업   명", 14),  # the label's letters spread by justification
        ("c", 306, 84, program, 12),
        ("l", 50, 120, "1. 사업 코드 정보", 10),
        ("l", 50, 140, "3. 예산 총괄표", 10),
        ("l", 50, 160, "사업명", 9),  # the summary table's header: not the form's label
        ("l", 50, 175, row, 9),
    ]


def test_a_budget_sheet_names_its_program_and_code_under_the_spaced_label(tmp_path):
    subject = _subject(_layers(tmp_path, [_sheet("(9) 청년일자리지원(1043-301)")]))
    assert (subject.name, subject.code, subject.kind) == ("청년일자리지원", "1043-301", "사업")
    assert subject.text == "청년일자리지원(1043-301)"  # the numbering "(9)" is no part of it


def test_a_name_with_its_own_parenthesis_keeps_it_and_a_label_may_hold_its_value(tmp_path):
    subject = _subject(_layers(tmp_path, [_sheet("(21) 내일배움카드(일반) (1131-300)")]))
    assert (subject.name, subject.code) == ("내일배움카드(일반)", "1131-300")
    beside: list[Placed] = [("l", 50, 60, "과 제 명 : 스마트공장 보급확산", 11)]
    subject = _subject(_layers(tmp_path, [beside], "task.pdf"))
    assert (subject.name, subject.code, subject.kind) == ("스마트공장 보급확산", "", "과제")


def _brief(title: str) -> list[list[Placed]]:
    cover: list[Placed] = [
        ("l", 40, 80, "FIS", 32),
        ("l", 40, 140, "ISSUE & FOCUS", 60),  # the series name, larger than the title
        ("l", 500, 45, "22-3호", 12),
        ("l", 500, 65, "2022.11.", 9),
        ("l", 40, 160, "발행인 홍길동 발행처 서울특별시 중구", 8),
        ("l", 320, 260, title, 31),
        ("l", 320, 295, "1 들어가며", 12),
        ("l", 320, 315, "2 재정융자사업의 개념과 의의", 12),
    ]
    bodies: list[list[Placed]] = [
        [
            ("l", 57, 50, "FIS ISSUE & FOCUS", 9),  # the running header repeats the series name
            ("l", 57, 120, text, 11),
        ]
        for text in ("들어가며", "재정융자사업의 개념", "나가며")
    ]
    return [cover, *bodies]


def test_a_brief_cover_gives_its_title_not_its_series_name_date_or_issue(tmp_path):
    subject = _subject(_layers(tmp_path, _brief("재정융자사업")))
    assert (subject.name, subject.kind, subject.source) == ("재정융자사업", "보고서", "cover-title")


def test_a_filing_cover_naming_its_form_and_a_dense_page_have_no_subject(tmp_path):
    filing: list[Placed] = [
        ("c", 306, 200, "분 기 보 고 서", 28),
        ("c", 306, 260, "(제 68 기 1분기)", 12),
        ("c", 306, 300, "대한전선 주식회사", 12),
    ]
    assert _subject(_layers(tmp_path, [filing])).name == ""
    dense: list[Placed] = [("l", 50, 40 + 15 * i, f"본문 {i}번째 줄입니다", 10) for i in range(45)]
    dense.append(("l", 50, 30, "큰 제목", 30))
    assert _subject(_layers(tmp_path, [dense], "dense.pdf")).name == ""


def test_the_subject_is_a_document_fact_shown_beside_its_pages(tmp_path):
    layers = _layers(tmp_path, [_sheet("(9) 청년일자리지원(1043-301)")])
    facts = extract_document_facts(
        "sha",
        "sheet.pdf",
        [str(layer["text"]) for layer in layers],
        cover_lines=[page_lines(layer) for layer in layers],
    )
    assert (facts.subject, facts.subject_kind) == ("청년일자리지원(1043-301)", "사업")
    context = facts.page_context()
    assert (context.subject, context.subject_kind) == ("청년일자리지원(1043-301)", "사업")
    assert context.as_dict()["subject"] == "청년일자리지원(1043-301)"

"""A budget program sheet's summary table, drawn as such sheets set it: year spans ("2022년",
"2023년 예산", "2024년") over sub-headers ("결산 | 본예산(A) | 정부안 | 확정(B)"), the labels' header
("사업명") centred down both header rows, a "(단위: 백만원, %)" line. The year columns are the
program's fiscal years; the question names the year and the program, the unit as printed."""

from __future__ import annotations

from pathlib import Path

import pymupdf

from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
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

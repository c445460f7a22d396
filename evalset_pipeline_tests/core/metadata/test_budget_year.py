"""A budget program sheet's year is the year its budget's stages ("정부안 | 확정(B)") sit under,
even where its first page prints no summary table and another year ("2023예산 시 소관")."""

from __future__ import annotations

from pathlib import Path

import pymupdf
import pytest

from evalset_pipeline.core.metadata.document_facts import extract_document_facts
from evalset_pipeline.core.pagetext.korean import budget_year
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline_tests.support.korean_text import put_text

pytestmark = pytest.mark.unit

COVER = [
    ("c", 306, 60, "사   업   명"),
    ("c", 306, 84, "(17) 민간임대(융자) (1333-404)"),
    ("l", 50, 120, "□사업 코드 정보"),
    ("l", 50, 140, "사업소관 변경정보"),
    ("l", 300, 140, "2023예산 시 소관"),
    ("l", 450, 140, "국토교통부"),
]
PLAN = [
    ("l", 57, 60, "가. 지출계획 총괄표"),
    ("r", 560, 84, "(단위: 백만원, %)"),
    ("c", 80, 105, "목명"),
    ("c", 130, 99, "2022년"),
    ("c", 240, 99, "2023년 계획"),
    ("c", 380, 99, "2024년"),
    ("c", 500, 99, "증감"),
    ("c", 130, 112, "결산"),
    ("c", 200, 112, "당초(A)"),
    ("c", 270, 112, "수정"),
    ("c", 340, 112, "정부안"),
    ("c", 410, 112, "확정(B)"),
    ("c", 500, 112, "(B-A)"),
    ("l", 50, 128, "민간임대융자"),
    ("r", 155, 128, "1,651,242"),
    ("r", 225, 128, "1,708,844"),
    ("r", 295, 128, "1,708,844"),
    ("r", 365, 128, "1,477,009"),
    ("r", 435, 128, "1,477,009"),
    ("r", 525, 128, "△231,835"),
]


def test_a_sheet_is_dated_by_the_year_its_budget_stages_sit_under(tmp_path: Path):
    doc = pymupdf.open()
    for placed in (COVER, PLAN):
        page = doc.new_page(width=612, height=792)
        for kind, x, y, text in placed:
            put_text(page, kind, x, y, text, 9.0)
    doc.save(tmp_path / "sheet.pdf")
    doc.close()
    with pymupdf.open(tmp_path / "sheet.pdf") as pdf:
        texts = [str(text_layer_of(p)["text"]) for p in pdf]
    assert budget_year(texts[1]) == 2024
    facts = extract_document_facts("sha", "sheet.pdf", texts)
    assert (facts.period, facts.period_kind) == ("2024", "year")


def test_a_table_without_budget_stages_has_no_budget_year():
    assert budget_year("2022년\n2023년\n결산\n계획\n사업비\n100\n200") is None

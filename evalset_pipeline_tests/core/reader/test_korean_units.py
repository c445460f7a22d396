"""Korean answers in the unit the page means: a column that counts (직원수, 주주수, 회사수, 주식수)
or measures (수량 in 톤) keeps its own unit under a money unit line, a unit line naming no money
("(단위 : 사)", "(단위 : 톤(tCO2-eq))") takes none from the page, a percent header spanning its
sub-columns makes each a percentage, and a table printed without a unit line is in its document's
unit, or none: never a unit guessed from the page's prose."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.metadata.document_facts import extract_document_facts
from evalset_pipeline.core.pagetext.korean import agreed_money_unit, stated_counter, stated_units
from evalset_pipeline.core.reader.korean_questions import (
    parse_korean_question,
    qualify_korean_question,
)
from evalset_pipeline.core.reader.korean_units import korean_kind
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.table_units import cell_counter, cell_unit
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row

pytestmark = pytest.mark.unit


def _years(*years: str) -> list:
    return [("l", 50, "구 분")] + centred("", "", *years)


def _answer(page, question: str, context: PageContext | None = None) -> str | None:
    q = parse_table_question(question)
    assert q is not None, question
    return judge_table_question(q, page, context).answer


def test_unit_statements_are_read_with_their_notes_and_lists():
    assert stated_units("(단위 : 톤(tCO2-eq))") == [("톤",)]
    assert stated_units("(단위 : 톤, 백만원)") == [("톤", "백만원")]
    assert stated_units("단위사업 (단위 : 사)") == [("개사",)]  # spoken "몇 개사"
    assert stated_counter("(단위 : 톤(tCO2-eq))") == "톤"
    assert stated_counter("(단위 : 천톤)") == "천톤"
    assert stated_counter("(단위 : 백만원)") == stated_counter("(단위 : %)") == ""
    assert stated_counter("(단위 : 주, %)") == ""


def test_a_header_says_what_its_figures_are():
    assert korean_kind("소유지분율(%)") == korean_kind("비율") == "%"
    assert korean_kind("직 원 수") == korean_kind("2022년 소액 주주수") == "명"
    assert korean_kind("기간제 근로자 전체") == "명"  # a header names the people it counts
    assert korean_kind("근로자능력개발지원", header=False) == ""  # a program, not a count
    assert korean_kind("소유주식수") == korean_kind("발행주식총수") == "주"
    assert korean_kind("회사수") == "개사"
    assert korean_kind("평 균 근속연수") == "년"
    assert korean_kind("연간급여 총 액") == korean_kind("자본금") == "money"
    assert korean_kind("수량") == "quantity"
    assert korean_kind("환율") == "" and korean_kind("2024년") == ""
    assert korean_kind("Employees") == ""  # English headers are cell_unit's own


def test_a_count_table_under_its_own_unit_line_takes_no_money_from_the_page(tmp_path):
    # a DART appendix: subsidiaries' assets in 백만원, then affiliates counted "(단위 : 사)"
    lines = [
        [("l", 50, "1. 종속회사 현황")],
        [("l", 480, "(단위 : 백만원)")],
        _years("2023년", "2024년"),
        row("자산총액", "", "", "43,291", "60,315"),
        [],
        [],
        [],
        [("l", 50, "2. 계열회사 현황")],
        [("l", 480, "(단위 : 사)")],
        _years("2023년", "2024년"),
        row("상장", "", "", "1", "1"),
        row("비상장", "", "", "38", "40"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "affiliates.pdf"))
    money, count = page.tables
    assert money.unit == "KRW millions" and count.unit == "" and count.counter == "개사"
    assert [c.header for c in count.columns] == ["2023년", "2024년"]  # the unit line heads none
    assert _answer(page, "2024년 계열회사 중 비상장은 몇 개사였습니까?") == "40 개사"
    assert _answer(page, "2024년 자산총액은 얼마였습니까?") == "60,315 백만원"
    written = write_table_question(page, None, "ko")
    assert written is not None
    if "계열회사" in written.question:
        assert "몇 개사였습니까" in written.question and written.answer.endswith(" 개사")


def test_an_employee_table_counts_people_beside_its_pay(tmp_path):
    # "(단위 : 백만원)" over 직원수 | 합계 | 근속연수 | 급여 총액: only the pay is money
    lines = [
        [("l", 50, "직원 등 현황")],
        [("l", 480, "(단위 : 백만원)")],
        [("l", 50, "")] + centred("2024년", span=4),
        [("l", 50, "구 분")] + centred("직원수", "합 계", "평 균 근속연수", "연간급여 총 액"),
        row("관리직", "398", "406", "9.7", "25,255"),
        row("기능직", "425", "433", "14.2", "29,314"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "employees.pdf"))
    [table] = page.tables
    staff = table.rows[0]
    assert [cell_unit(table, staff, i) for i in range(4)] == ["", "", "", "KRW millions"]
    # the total column counts what the column left of it counts
    assert [cell_counter(table, staff, i) for i in range(4)] == ["명", "명", "년", ""]
    assert _answer(page, "2024년 관리직의 직원수는 몇 명이었습니까?") == "398 명"
    assert _answer(page, "2024년 기능직의 직원수는 얼마였습니까?") == "425 명"


def test_a_shareholder_table_counts_people_and_shares_under_a_shares_line(tmp_path):
    lines = [
        [("l", 50, "6. 소액주주현황")],
        [("l", 480, "(단위 : 주)")],
        [("l", 50, "")] + centred("2024년", span=3),
        [("l", 50, "구 분")] + centred("주주수", "소유주식수", "비율 (%)"),
        row("소액주주", "483,941", "701,790,573", "56.39"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "holders.pdf"))
    [table] = page.tables
    holders = table.rows[0]
    assert [cell_counter(table, holders, i) for i in range(2)] == ["명", "주"]
    assert cell_unit(table, holders, 2) == "%"
    assert _answer(page, "2024년 소액주주의 주주수는 몇 명이었습니까?") == "483,941 명"
    assert _answer(page, "2024년 소액주주의 소유주식수는 몇 주였습니까?") == "701,790,573 주"


def test_emission_allowances_are_tonnes_asked_how_many(tmp_path):
    lines = [
        [("l", 50, "배출권 수량의 변동은 다음과 같습니다.")],
        [("l", 440, "(단위 : 톤(tCO2-eq))")],
        _years("2023년도 분", "2024년도 분"),
        row("기초", "", "", "5,000", "3,362"),
        row("무상할당", "", "", "35,684", "35,684"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "allowances.pdf"))
    [table] = page.tables
    assert table.unit == "" and table.counter == "톤"
    written = write_table_question(page, None, "ko")
    assert written is not None and written.question.endswith("몇 톤이었습니까?")
    assert written.answer.endswith(" 톤")
    assert _answer(page, "2024년 무상할당은 몇 톤이었습니까?") == "35,684 톤"


def test_a_quantity_column_beside_an_amount_column_is_in_the_measure_the_line_names(tmp_path):
    lines = [
        [("l", 50, "배출권 변동 내역")],
        [("l", 480, "(단위 : 톤, 백만원)")],
        [("l", 50, "")] + centred("", "2024년", span=2),
        [("l", 50, "구 분")] + centred("", "", "수량", "금액"),
        row("무상할당", "", "", "35,684", "-"),
        row("매입", "", "", "1,200", "28"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "quantity.pdf"))
    [table] = page.tables
    assert table.unit == "KRW millions" and table.measures == ("톤",)
    assert _answer(page, "2024년 매입의 수량은 얼마였습니까?") == "1,200 톤"
    assert _answer(page, "2024년 매입의 금액은 얼마였습니까?") == "28 백만원"


def test_a_rows_table_under_a_mixed_line_is_what_its_title_says(tmp_path):
    # "(단위 : 톤, 백만원)" over a table of years: its title says it holds quantities
    lines = [
        [("l", 50, "당기 중 배출권 수량의 변동은 다음과 같으며, 배출부채는 없습니다.")],
        [("l", 480, "(단위 : 톤, 백만원)")],
        _years("2023년도 분", "2024년도 분"),
        row("기초", "", "", "5,000", "3,362"),
        row("무상할당", "", "", "34,761", "35,684"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "rows.pdf"))
    assert _answer(page, "2024년 기초는 얼마였습니까?") == "3,362 톤"
    # with nothing to say which, neither unit is guessed
    lines[0] = [("l", 50, "당기 중 배출권의 변동은 다음과 같습니다.")]
    page = read_table_page(draw_layer(lines, tmp_path, "unsaid.pdf"))
    assert _answer(page, "2024년 기초는 얼마였습니까?") == "3,362"


def test_a_percent_header_spanning_its_sub_columns_makes_each_a_percentage(tmp_path):
    # "소유지분율(%)" centred over three sub-columns, narrower than them: it touches only the
    # middle one, yet heads all three
    lines = [
        [("l", 50, "종속기업의 현황은 다음과 같습니다.")],
        [("l", 50, "")] + centred("소유지분율(%)", span=3),
        [("l", 50, "기업명")] + centred("지배기업", "종속기업", "비지배지분"),
        row("한빛테크", "100", "-", "-"),
        row("한빛전선", "60", "15", "25"),
        row("한빛물산", "49", "-", "51"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "ownership.pdf"))
    [table] = page.tables
    held = table.rows[1]  # 한빛전선: a figure in each
    assert [cell_unit(table, held, i) for i in range(3)] == ["%", "%", "%"]


BUDGET = [
    [("l", 50, "① 사업규모")],
    [("l", 50, "- 최근 5년간 투입된 사업비")],
    _years("2023", "2024"),
    row("사업비", "", "", "1,708,844", "1,477,009"),
    [],
    [],
    [("l", 50, "호당 평균 95백만원 이하")],
]
MINISTRY = PageContext("국토교통부", "budget-sheet", "2024", "2024-12-31")


def test_a_table_without_a_unit_line_is_in_its_documents_unit_or_none(tmp_path):
    page = read_table_page(draw_layer(BUDGET, tmp_path, "sheet.pdf"))
    [table] = [t for t in page.tables if t.rows[0].label == "사업비"]
    # "95백만원" in the prose is no table's unit: never "원"
    assert table.unit == ""
    assert _answer(page, "2024년 사업비는 얼마였습니까?", MINISTRY) == "1,477,009"
    agreed = PageContext("국토교통부", "budget-sheet", "2024", "2024-12-31", unit="KRW millions")
    assert _answer(page, "2024년 사업비는 얼마였습니까?", agreed) == "1,477,009 백만원"
    written = write_table_question(page, agreed, "ko")
    assert written is not None and written.answer.endswith(" 백만원")


def test_a_document_unit_is_the_money_its_unit_lines_agree_on():
    sheet = ["사업명 단위사업", "(단위: 백만원, %) 예산", "(단위 : 백만원) 지출계획", "사업비"]
    assert agreed_money_unit(sheet) == "KRW millions"
    assert agreed_money_unit(["(단위 : 원)", "(단위 : 백만원)"]) == ""  # a filing's several
    assert agreed_money_unit(["(단위 : 명)", "없음"]) == ""
    facts = extract_document_facts("sha", "sheet.pdf", sheet)
    assert facts.unit == "KRW millions" and facts.page_context().unit == "KRW millions"
    assert facts.page_context().as_dict()["unit"] == "KRW millions"


@pytest.mark.parametrize(
    "question",
    [
        "2024년 9월 30일 현재 계열회사 현황 중 상장은 몇 개사였습니까?",
        "2022년 수량 중 기초는 몇 톤이었습니까?",
        "2022년 3월 31일 현재 소액주주의 소유주식수는 몇 주였습니까?",
    ],
)
def test_a_counted_question_round_trips(question):
    q = parse_korean_question(question)
    assert q is not None
    qualified = qualify_korean_question(question, "대한전선 주식회사", "")
    assert qualified == f"대한전선 주식회사의 {question}"
    again = parse_korean_question(qualified)
    assert again is not None and again.label == q.label and again.entity == "대한전선 주식회사"

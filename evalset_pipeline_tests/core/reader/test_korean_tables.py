"""Korean tables, drawn as Korean filings and public reports set them: "제 N 기" columns dated by
the heading, quarters split into "3개월" and "누적", balances "현재", notes tables "당기말 | 전기말"
dated by the filing, year columns "2023년"; the one-cell question asked and read back in Korean."""

from __future__ import annotations

import datetime
import json
from pathlib import Path

import pytest

from evalset_pipeline.core.judging.base import PageContext, PageView, Qualifiers
from evalset_pipeline.core.pagetext.korean import date_relative, heading_subject, months_to_date
from evalset_pipeline.core.reader.korean_columns import korean_column
from evalset_pipeline.core.reader.korean_prose import read_korean_prose_tables
from evalset_pipeline.core.reader.table_questions import (
    TablePage,
    judge_table_question,
    parse_table_question,
    qualify_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.table_reader import parse_value, read_tables
from evalset_pipeline.core.reader.textlayer import TextLayerBackend, label_table_page
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row

D = datetime.date
ANNUAL = PageContext("한빛전자", "annual-report", "2023", "2023-12-31")
QUARTERLY = PageContext("한빛전자", "quarterly-report", "2024-Q3", "2024-09-30")


def income_statement(current: int, figures: dict[str, tuple[str, str]]) -> list:
    """A DART income statement: the heading dates the "제 N 기" ordinals; a note column between
    labels and figures."""
    n = current - 1968
    return [
        [("l", 220, "연결 손익계산서")],
        [("l", 150, f"제 {n} 기 {current}.01.01 부터 {current}.12.31 까지")],
        [("l", 150, f"제 {n - 1} 기 {current - 1}.01.01 부터 {current - 1}.12.31 까지")],
        [("l", 480, "(단위 : 백만원)")],
        [("l", 50, "과 목"), ("c", 300, "주석")] + centred("", "", f"제 {n} 기", f"제 {n - 1} 기"),
        *[
            [("l", 50, label), ("c", 300, "4"), ("r", 520, now), ("r", 590, before)]
            for label, (now, before) in figures.items()
        ],
    ]


FIGURES_2023 = {
    "매출액": ("258,935,494", "302,231,360"),
    "매출원가": ("180,388,580", "190,041,770"),
    "매출총이익": ("78,546,914", "112,189,590"),
    "영업이익": ("6,566,976", "43,376,630"),
    "금융비용": ("(12,645,530)", "(10,514,287)"),
}
FIGURES_2024 = {
    "매출액": ("300,870,903", "258,935,494"),
    "매출원가": ("186,562,268", "180,388,580"),
    "매출총이익": ("114,308,635", "78,546,914"),
    "영업이익": ("32,725,961", "6,566,976"),
    "금융비용": ("(11,000,000)", "(12,645,530)"),
}


def page_of(lines: list, tmp_path: Path, name: str) -> TablePage:
    return read_table_page(draw_layer(lines, tmp_path, name))


def test_ordinal_columns_are_dated_by_the_heading_and_the_note_column_is_no_period(tmp_path):
    [table] = read_tables(draw_layer(income_statement(2023, FIGURES_2023), tmp_path))
    assert [(c.header, c.months, c.end) for c in table.columns] == [
        ("주석", None, None),  # note references: a column, never a period
        ("제 55 기", 12, D(2023, 12, 31)),
        ("제 54 기", 12, D(2022, 12, 31)),
    ]
    assert [r.label for r in table.rows] == list(FIGURES_2023)
    assert table.unit == "KRW millions"


def test_korean_question_is_written_in_korean_and_read_back(tmp_path):
    gold = page_of(income_statement(2023, FIGURES_2023), tmp_path, "g.pdf")
    written = write_table_question(gold, ANNUAL, "ko")
    assert written is not None and written.language == "ko"
    assert written.question.startswith("2023년 12월 31일로 종료되는 회계연도 ")
    assert written.question.endswith("얼마였습니까?")
    assert written.answer.endswith(" 백만원")
    asked = parse_table_question(written.question)
    assert asked is not None and asked.language == "ko"
    assert judge_table_question(asked, gold, ANNUAL).answer == written.answer


def test_a_korean_distractor_answers_through_its_comparative_column(tmp_path):
    gold = page_of(income_statement(2023, FIGURES_2023), tmp_path, "g.pdf")
    later = page_of(income_statement(2024, FIGURES_2024), tmp_path, "l.pdf")
    q = parse_table_question("2023년 12월 31일로 종료되는 회계연도 매출액은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, gold).answer == "258,935,494 백만원"
    j = judge_table_question(q, later)
    assert j.answers and j.answer == "258,935,494 백만원" and "제 55 기" in j.reason
    assert label_table_page("258,935,494 백만원", j).label == "sufficient"
    older = parse_table_question("2022년 12월 31일로 종료되는 회계연도 매출액은 얼마였습니까?")
    assert older is not None
    # The later filing has the row, not that year: supporting, never sufficient.
    assert label_table_page("302,231,360 백만원", judge_table_question(older, later)).label == (
        "supporting"
    )


def test_a_quarter_splits_into_three_months_and_year_to_date(tmp_path):
    lines = [
        [("l", 200, "분기 연결 손익계산서")],
        [("l", 150, "제 56 기 3분기 2024.01.01 부터 2024.09.30 까지")],
        [("l", 150, "제 55 기 3분기 2023.01.01 부터 2023.09.30 까지")],
        [("l", 480, "(단위 : 백만원)")],
        centred("제 56 기 3분기", "제 55 기 3분기", span=2),
        centred("3개월", "누적", "3개월", "누적"),
        row("매출액", "79,098,718", "225,082,621", "67,404,652", "200,581,577"),
        row("영업이익", "9,183,386", "26,240,964", "2,433,573", "3,774,522"),
    ]
    [table] = read_tables(draw_layer(lines, tmp_path))
    assert [(c.months, c.end) for c in table.columns] == [
        (3, D(2024, 9, 30)),
        (9, D(2024, 9, 30)),
        (3, D(2023, 9, 30)),
        (9, D(2023, 9, 30)),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "q.pdf"))
    q = parse_table_question("2024년 9월 30일로 종료되는 3개월간 영업이익은 얼마였습니까?")
    assert q is not None and judge_table_question(q, page).answer == "9,183,386 백만원"


def test_a_balance_sheet_reads_instants_numbered_items_and_triangle_negatives(tmp_path):
    lines = [
        [("l", 200, "연결 재무상태표")],
        [("l", 150, "제 55 기 2023.12.31 현재")],
        [("l", 150, "제 54 기 2022.12.31 현재")],
        [("l", 480, "(단위 : 백만원)")],
        centred("", "", "제 55 기", "제 54 기"),
        row("자산", "", "", "", ""),
        row("Ⅱ. 유동자산", "", "", "195,936,557", "218,470,581"),
        row("1. 현금및현금성자산", "", "", "69,080,893", "49,680,710", indent=60),
        row("자산총계", "", "", "455,905,980", "448,424,507"),
    ]
    [table] = read_tables(draw_layer(lines, tmp_path))
    assert [(c.months, c.end) for c in table.columns] == [
        (None, D(2023, 12, 31)),
        (None, D(2022, 12, 31)),
    ]
    assert [r.label for r in table.rows][1:3] == ["유동자산", "현금및현금성자산"]
    assert parse_value("△10,514,287") == -10514287.0
    page = read_table_page(draw_layer(lines, tmp_path, "b.pdf"))
    # Filers space the same item differently: the judge reads the label spacing aside.
    q = parse_table_question("2023년 12월 31일 현재 현금 및 현금성자산은 얼마였습니까?")
    assert q is not None and judge_table_question(q, page).answer == "69,080,893 백만원"


NOTES = [
    [("l", 50, "(2) 재고자산의 내역은 다음과 같습니다.")],
    [("l", 480, "(단위: 백만원)")],
    [("l", 50, "구 분")] + centred("", "", "당기말", "전기말"),
    row("제품 및 상품", "", "", "19,626,134", "20,385,034"),
    row("원재료 및 저장품", "", "", "9,811,452", "12,217,006"),
    row("합 계", "", "", "29,437,586", "32,602,040"),
]


def test_a_notes_table_is_dated_by_its_filing_and_never_without_it(tmp_path):
    page = page_of(NOTES, tmp_path, "n.pdf")
    assert write_table_question(page, None, "ko") is None  # "당기말" of which filing?
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    assert written.question.startswith("2023년 12월 31일 현재 재고자산 중 ")
    assert "합계" not in written.question  # "재고자산 중 합계" is no way to ask for a total
    q = parse_table_question("2022년 12월 31일 현재 재고자산 중 제품 및 상품은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, ANNUAL).answer == "20,385,034 백만원"
    # The same table in a third-quarter report: "전기말" is the year end before, 2023-12-31.
    q = parse_table_question("2023년 12월 31일 현재 재고자산 중 제품 및 상품은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, QUARTERLY).answer == "20,385,034 백만원"


def test_year_columns_of_a_public_report_and_a_change_column_undated(tmp_path):
    lines = [
        [("l", 50, "<표 3> 연도별 예산 현황")],
        [("l", 480, "(단위: 억원, %)")],
        [("l", 50, "구분")] + centred("2021년", "2022년", "2023년", "증감률"),
        row("일반회계", "1,234", "1,456", "1,678", "15.2"),
        row("기금", "2,345", "2,401", "2,456", "2.3"),
    ]
    [table] = read_tables(draw_layer(lines, tmp_path))
    assert [c.year for c in table.columns] == [2021, 2022, 2023, None]
    page = read_table_page(draw_layer(lines, tmp_path, "y.pdf"))
    written = write_table_question(page, None, "ko")
    # The heading says what the rows are: asked "2023년 예산 중 …", not "2023년 기금은 …".
    assert written is not None and written.question.startswith("2023년 예산 중 ")
    assert written.answer.endswith(" 억원")


def test_korean_qualifier_names_the_entity_first_and_the_revision_after_the_label():
    q = "2023년 12월 31일로 종료되는 회계연도 영업이익은 얼마였습니까?"
    named = qualify_table_question(q, {"entity": "한빛전자"})
    assert named == "한빛전자의 2023년 12월 31일로 종료되는 회계연도 영업이익은 얼마였습니까?"
    assert qualify_table_question(named, {"entity": "한빛전자"}) == named  # never doubled
    restated = qualify_table_question(named, {"revision": "restated"})
    assert restated.endswith("영업이익(재작성 기준)은 얼마였습니까?")
    parsed = parse_table_question(restated)
    assert parsed is not None and (parsed.entity, parsed.revision) == ("한빛전자", "restated")


@pytest.mark.parametrize(
    ("header", "expected"),
    [
        ("2023년 3분기", (3, D(2023, 9, 30), None)),
        ("2023년 3분기 누적", (9, D(2023, 9, 30), None)),
        ("2024년 상반기", (6, D(2024, 6, 30), None)),
        ("2023년말", (None, D(2023, 12, 31), None)),
        ("2023년 12월 31일 현재", (None, D(2023, 12, 31), None)),
        ("2023.01.01 ~ 2023.12.31", (12, D(2023, 12, 31), None)),
        ("2023년 1/4분기", (3, D(2023, 3, 31), None)),
        ("2023년", (None, None, 2023)),
        ("제 55 기 (2023년)", (None, None, 2023)),  # no heading dates the ordinal: its own year
        ("제 55 기", None),
        # a DART five-year summary's headers: a month's end, the months a year runs
        ("2022년 12월말", (None, D(2022, 12, 31), None)),
        ("제68기 2022년 12월말", (None, D(2022, 12, 31), None)),
        ("2022년 1월 ~12월", (12, D(2022, 12, 31), None)),
        ("2023년 4월~6월", (3, D(2023, 6, 30), None)),
        # two columns' headers run together: neither period is this column's (nor "1월 20일")
        ("2022년 1월 2021년 1월~12월2020년 1월~12월 ~12월", None),
        ("전년 동기 대비", None),
        ("증감률", None),
    ],
)
def test_korean_headers(header, expected):
    found = korean_column(header, "")
    if expected is None:
        assert found is None
    else:
        assert found is not None and (found.months, found.end, found.year) == expected


def test_a_sub_columns_measure_beside_its_relative_period():
    """ "보증금액 당분기말": the guarantee at the quarter's end, dated like "당분기말" (reading: the
    separate note's guarantee table left undated, its answer never found)."""
    for header in ("보증금액 당분기말", "당기말 장부금액"):
        found = korean_column(header, "")
        assert found is not None and found.months is None and found.relative == 0, header
    assert korean_column("보증금액 전기말", "").relative == 1
    assert korean_column("당기말 전기말", "") is None  # two periods: neither is this column's


def test_relative_columns_take_the_filing_period():
    assert date_relative(None, 1, "2023", "2023-12-31") == (None, D(2022, 12, 31))
    assert date_relative(None, 1, "2024-Q3", "2024-09-30") == (None, D(2023, 12, 31))
    assert date_relative(3, 1, "2024-Q3", "2024-09-30") == (3, D(2023, 9, 30))
    assert date_relative(0, 0, "2024-Q3", "2024-09-30") == (9, D(2024, 9, 30))  # 누적
    assert date_relative(3, 0, "2023", "2023-12-31") is None  # "당분기" of an annual report
    # "전기" of a quarterly report: the fiscal year before; "당기" is no span of a quarter's filing
    assert date_relative(12, 1, "2024-Q3", "2024-09-30") == (12, D(2023, 12, 31))
    assert date_relative(12, 2, "2024-H1", "2024-06-30") == (12, D(2022, 12, 31))
    assert date_relative(12, 0, "2024-Q3", "2024-09-30") is None
    assert [months_to_date(p) for p in ("2024-Q3", "2024-H1", "2024", "2024-11")] == [
        9,
        6,
        12,
        None,
    ]


def _view(lines: list, tmp_path: Path, name: str, context: PageContext) -> PageView:
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(draw_layer(lines, tmp_path, f"{name}.pdf"), ensure_ascii=False))
    return PageView(name, tmp_path / f"{name}.png", path, f"h-{name}", context)


def test_the_offline_backend_writes_judges_labels_and_qualifies_a_korean_filing(tmp_path):
    backend = TextLayerBackend()
    later_filing = PageContext("한빛전자", "annual-report", "2024", "2024-12-31")
    gold = _view(income_statement(2023, FIGURES_2023), tmp_path, "gold", ANNUAL)
    later = _view(income_statement(2024, FIGURES_2024), tmp_path, "later", later_filing)
    [written] = backend.write_questions([gold])
    assert written is not None and written.language == "ko"
    assert written.question.startswith("2023년 12월 31일로 종료되는 회계연도 ")
    # The next year's filing prints the asked year in its comparative column: it answers.
    judged = backend.judge([(written.question, gold), (written.question, later)])
    assert [j.answer for j in judged] == [written.answer, written.answer]
    [label] = backend.label([(written.question, written.answer, later)])
    assert label.label == "sufficient"
    [qualified] = backend.qualify([(written.question, Qualifiers({"entity": "한빛전자"}, "ko"))])
    assert qualified.startswith("한빛전자의 2023년 12월 31일로 종료되는 회계연도 ")
    other = _view(
        income_statement(2023, FIGURES_2023),
        tmp_path,
        "other",
        PageContext("다온화학", "annual-report", "2023", "2023-12-31"),
    )
    assert not backend.judge([(qualified, other)])[0].answers  # another filer's statement


@pytest.mark.parametrize(
    ("heading", "subject"),
    [
        ("<표 3> 연도별 예산 현황", "예산"),
        ("보고기간종료일 현재 재고자산의 내역은 다음과 같습니다.", "재고자산"),
        ("7. 재고자산", "재고자산"),
        ("(2) 유형자산의 변동내역은 다음과 같습니다.", "유형자산"),
        # a noun phrase of two words, without the time or possessive word before it
        ("34.2 당기 중 배출권 수량의 변동은 다음과 같습니다.", "배출권 수량"),
        ("당사의 유형자산의 변동내역은 다음과 같습니다.", "유형자산"),
        ("1) 생산설비의 현황 <당분기말> (단위:백만원)", "생산설비"),
        ("연결 손익계산서", ""),  # a statement, not a section of one
        ("한빛전자 주식회사와 그 종속기업", ""),
        ("제 55 기 2023.01.01 부터 2023.12.31 까지", ""),
        ("회사는 다음과 같이 보고하고 있습니다.", ""),
        # layout debris is no subject: a bullet's "label : value", a year alone, the unit line
        ("- 사업기간 : ’05~계속", ""),
        ("☞ 본문 위치로 이동", ""),  # a link back to the body, not a heading
        ("(시범사업명) ’24년(시범사업)", ""),
        ("(단위 : 톤(tCO2-eq))", ""),
        ("<당분기말>", ""),
        # numbering: "2.3", and a boxed list number read against its heading; a count stays
        ("2.3 보험수리적가정", "보험수리적가정"),
        ("2.3 요약재무정보", ""),  # the statements' own figures, summed up
        ("III. 재무에 관한 사항", ""),  # a part of the filing
        ("1사업규모", "사업규모"),
        ("3차 계획기간", "3차 계획기간"),
        ("3. 예산 총괄표", "예산"),
        # a table of changes is asked as one ("영업활동 자산·부채의 증감 중 매출채권")
        ("29.3 영업활동 자산·부채의 증감 내용은 다음과 같습니다.", "영업활동 자산·부채의 증감"),
        # "X는 다음과 같습니다": the topic with the words that restrict it, less time words
        (
            "19.6 기타포괄손익으로 인식하는 재측정요소는 다음과 같습니다.",
            "기타포괄손익으로 인식하는 재측정요소",
        ),
        ("보고기간말 현재 사용이 제한된 금융자산은 다음과 같습니다.", "사용이 제한된 금융자산"),
        ("주요 경영진에 대한 보상은 다음과 같습니다.", "주요 경영진에 대한 보상"),
        ("22.2 진행중인 공사계약 관련 내용은 다음과 같습니다.", "진행중인 공사계약"),
        ("담보는 없으며 제공한 지급보증 내용은 다음과 같습니다.", "제공한 지급보증"),
        ("그 내용은 다음과 같습니다.", ""),  # says nothing of the rows
        ("당사는 건물을 임대하고 있으며, 그 변동내역은 다음과 같습니다.", ""),
        ("19.5 관련하여 인식한 비용은 다음과 같습니다.", "관련하여 인식한 비용"),
        ("비용은 다음과 같습니다.", ""),  # a bare category
        ("투자부동산과 관련하여 당기손익으로 인식한 내역은 다음과 같습니다.", ""),
        ("분기순이익(손실)에 대한 조정 내역은 다음과 같습니다.", "분기순이익에 대한 조정"),
    ],
)
def test_a_korean_heading_names_what_its_rows_are(heading, subject):
    assert heading_subject(heading) == subject


def test_korean_prose_states_figures_for_a_named_period():
    text = (
        "1. 회사의 개요\n"
        "2023년 매출액은 1,234억원으로 전년 대비 5.2% 증가하였습니다. "
        "2023년 12월 31일 현재 임직원 수는 3,210명입니다.\n"
        "당사의 2024년 3분기 영업이익은 9,183억원을 기록하였습니다.\n"
        "2023년 매출액은 258조 9,355억원입니다. 매출은 전년 대비 5% 늘었습니다."
    )
    tables = read_korean_prose_tables({"text": text})
    read = [(t.rows[0].label, t.rows[0].cells[0], t.unit, t.columns[0]) for t in tables]
    assert [(label, cell, unit) for label, cell, unit, _ in read] == [
        ("매출액", "1,234", "KRW 100 millions"),  # the heading line opens no sentence
        ("임직원 수", "3,210", ""),  # people: never a money unit
        ("영업이익", "9,183", "KRW 100 millions"),
    ]  # an amount over two scales and a figure without its period are not read
    columns = [c for *_, c in read]
    assert (columns[0].year, columns[1].end, columns[2].months, columns[2].end) == (
        2023,
        D(2023, 12, 31),
        3,
        D(2024, 9, 30),
    )
    page = TablePage(text, tuple(tables))
    q = parse_table_question("2023년 12월 31일 현재 임직원 수는 얼마였습니까?")
    assert q is not None and judge_table_question(q, page).answer == "3,210 명"  # people, counted


def test_korean_report_bullets_and_two_digit_years():
    """Public reports state figures as bullet points that end in nominal endings ("…감소하였음")."""
    text = (
        "□ 수출입 동향\n"
        "○ ’23년 수출액은 6,326억 달러로 전년 대비 7.4% 감소하였음\n"
        "- 2023년 12월 31일 기준 등록 외국인 수는 189만 명으로 집계됨\n"
        "○ 2024년 1분기 실업률은 3.4%로 나타났다.\n"
    )
    read = [
        (t.rows[0].label, t.rows[0].cells[0], t.unit, t.columns[0].year or t.columns[0].end)
        for t in read_korean_prose_tables({"text": text})
    ]
    assert read == [
        ("수출액", "6,326", "USD 100 millions", 2023),
        ("등록 외국인 수", "189", "10 thousands", D(2023, 12, 31)),
        ("실업률", "3.4%", "%", D(2024, 3, 31)),
    ]
    assert korean_column("’23년", "") == korean_column("2023년", "")


def test_a_category_merged_down_its_rows_is_no_rows_name(tmp_path):
    """ "외화단기차입금" is printed once, centred beside its three lenders: the text layer sets it
    on the middle lender's line. That line is Standard Bank's 2,811, not the category's (whose
    figure is the total, 211,412): no question asks the category for the middle row's figure."""
    lines = [
        [("l", 50, "14.1 단기차입금의 내용은 다음과 같습니다.")],
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "구분"), ("l", 150, "차입처")] + centred("", "", "당기말", "전기말"),
        [("l", 150, "Vietcombank 외")] + row("", "", "", "15,377", "10,865"),
        [("l", 50, "외화단기차입금"), ("l", 150, "Standard Bank")]
        + row("", "", "", "2,811", "2,460"),
        [("l", 150, "하나은행 외")] + row("", "", "", "193,224", "68,751"),
        [("l", 150, "합계")] + row("", "", "", "211,412", "82,076"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "borrowings.pdf"))
    assert [r.label for r in page.tables[0].rows] == [
        "Vietcombank 외",
        "Standard Bank",
        "하나은행 외",
        "합계",
    ]
    written = write_table_question(page, ANNUAL, "ko")
    assert written is None or "외화단기차입금" not in written.question


def test_an_english_rows_name_before_a_text_column_stays_its_name(tmp_path):
    """An English debt table names a row first and its maturity in a text column after it
    ("Alltel Corporation   5-10 Years"), between continuation rows that print only a maturity:
    the name is the row's own, not a category merged down its rows (financebench-dev: Verizon's
    "Alltel Corporation" had been read as "5-10 Years")."""
    lines = [
        [("l", 480, "(dollars in millions)")],
        [("l", 50, "Issuer"), ("l", 230, "Maturity")] + centred("", "", "2021", "2020"),
        [("l", 230, "< 5 Years")] + row("", "", "", "1,200", "1,150"),
        [("l", 50, "Alltel Corporation"), ("l", 230, "5-10 Years")] + row("", "", "", "38", "40"),
        [("l", 230, "> 10 Years")] + row("", "", "", "220", "225"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "debt.pdf"))
    assert "Alltel Corporation" in [r.label for r in page.tables[0].rows]

"""Korean note tables dated by their caption or by headers set left of their figures, drawn as DART
notes set them: one table per period under "<당분기말>" / "<전기말>" with measure columns (취득원가,
장부금액) and a "(단위 : 백만원)" line; "구분 | 당분기 | 전분기" headers centred over right-aligned
figures. The question names the period and the measure ("토지의 장부금액") and is read back."""

from __future__ import annotations

import datetime

import pytest

from evalset_pipeline.core.judging.base import PageContext
from evalset_pipeline.core.pagetext.korean import heading_subject, printed_unit, relative_caption
from evalset_pipeline.core.reader.korean_columns import korean_header_measure
from evalset_pipeline.core.reader.table_page import dated_page
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row

D = datetime.date
QUARTERLY = PageContext("한빛전자", "quarterly-report", "2024-Q3", "2024-09-30")


def _asset_table(caption: str, figures: dict[str, tuple[str, str, str]]) -> list:
    return [
        [("l", 50, caption)],
        [("l", 480, "(단위 : 백만원)")],
        [("l", 50, "구 분")] + centred("", "취득원가", "감가상각누계액", "장부금액"),
        *[row(label, "", *cells) for label, cells in figures.items()],
    ]


NOTE = [
    [("l", 50, "8. 유형자산")],
    [("l", 50, "유형자산의 내용은 다음과 같습니다.")],
    *_asset_table(
        "<당분기말>",
        {
            "토지": ("120,500", "-", "120,500"),
            "건물": ("210,300", "(64,100)", "146,200"),
            "기계장치": ("270,900", "(180,400)", "90,500"),
        },
    ),
    [],  # the space DART leaves between a note's tables
    [],
    [],
    *_asset_table(
        "<전기말>",
        {
            "토지": ("118,200", "-", "118,200"),
            "건물": ("208,800", "(60,900)", "147,900"),
            "기계장치": ("265,100", "(171,300)", "93,800"),
        },
    ),
]


def test_a_note_table_under_a_relative_caption_is_dated_by_the_filing(tmp_path):
    page = read_table_page(draw_layer(NOTE, tmp_path, "note.pdf"))
    current, prior = page.tables
    # "<당분기말>" is the period of the columns, not what the rows are: never the table's subject
    assert current.subject == "유형자산" and prior.subject == ""
    assert [(c.months, c.relative) for c in current.columns] == [(None, 0)] * 3
    assert [(c.months, c.relative) for c in prior.columns] == [(None, 1)] * 3
    dated = dated_page(page, QUARTERLY)
    assert {c.end for c in dated.tables[0].columns} == {D(2024, 9, 30)}
    assert {c.end for c in dated.tables[1].columns} == {D(2023, 12, 31)}  # 전기말: year end
    # Without the filing's period "<당분기말>" dates nothing: never asked.
    assert write_table_question(page, None, "ko") is None


def test_a_sub_column_of_a_caption_dated_table_is_asked_by_its_measure(tmp_path):
    page = read_table_page(draw_layer(NOTE, tmp_path, "note.pdf"))
    written = write_table_question(page, QUARTERLY, "ko")
    assert written is not None
    assert written.question.startswith("2024년 9월 30일 현재 ")
    assert "의 " in written.question and written.question.endswith("얼마였습니까?")
    assert written.answer.endswith(" 백만원")
    # read back: the row in the named sub-column, at the named date (the prior table for 전기말)
    q = parse_table_question("2024년 9월 30일 현재 토지의 장부금액은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, QUARTERLY).answer == "120,500 백만원"
    q = parse_table_question("2023년 12월 31일 현재 건물의 감가상각누계액은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, QUARTERLY).answer == "(60,900) 백만원"
    # a row asked without its sub-column prints three figures for the date: not answered
    q = parse_table_question("2024년 9월 30일 현재 건물은 얼마였습니까?")
    assert q is not None and not judge_table_question(q, page, QUARTERLY).answers


def test_period_headers_centred_left_of_right_aligned_figures_head_their_columns(tmp_path):
    # "구분" over the labels, then "당분기" and "전분기" centred left of their figures
    lines = [
        [("l", 50, "21.2 매출원가의 내용은 다음과 같습니다.")],
        [("l", 480, "(단위:백만원)")],
        [("c", 130, "구분"), ("c", 380, "당분기"), ("c", 520, "전분기")],
        row("상품매출원가", "", "38,273", "", "21,402"),
        row("제품매출원가", "", "492,140", "", "329,981"),
        row("공사원가", "", "22,130", "", "56,856"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "q.pdf"))
    [table] = page.tables
    assert [(c.header, c.months, c.relative) for c in table.columns] == [
        ("당분기", 3, 0),
        ("전분기", 3, 1),
    ]
    first = PageContext("한빛전자", "quarterly-report", "2024-Q1", "2024-03-31")
    q = parse_table_question("2023년 3월 31일로 종료되는 3개월간 공사원가는 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, first).answer == "56,856 백만원"
    # in a third quarter's report a bare "전분기" may be three months or nine: never read as three
    q = parse_table_question("2023년 9월 30일로 종료되는 3개월간 공사원가는 얼마였습니까?")
    assert q is not None and not judge_table_question(q, page, QUARTERLY).answers


def test_a_roll_forwards_quarter_column_runs_from_the_years_opening_balance(tmp_path):
    # A third quarter's lease liability roll-forward: "당분기" opens on the year-end balance the
    # "전기" column closes on (4,181), so it is the nine months to date, not three.
    lines = [
        [("l", 50, "10.3 리스부채의 변동내역은 다음과 같습니다.")],
        [("l", 480, "(단위:백만원)")],
        [("c", 130, "구분"), ("c", 380, "당분기"), ("c", 520, "전기")],
        row("기 초", "", "4,181", "", "1,700"),
        row("증가", "", "2,734", "", "6,288"),
        row("지급", "", "(3,741)", "", "(3,964)"),
        row("기 말", "", "3,305", "", "4,181"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "roll.pdf"))
    dated = dated_page(page, QUARTERLY)
    [table] = dated.tables
    assert [(c.months, c.end) for c in table.columns] == [
        (9, D(2024, 9, 30)),
        (12, D(2023, 12, 31)),
    ]
    q = parse_table_question("2024년 9월 30일로 종료되는 9개월간 지급은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, QUARTERLY).answer == "(3,741) 백만원"
    q = parse_table_question("2024년 9월 30일로 종료되는 3개월간 지급은 얼마였습니까?")
    assert q is not None and not judge_table_question(q, page, QUARTERLY).answers


def test_a_transposed_roll_forward_under_a_quarter_caption_is_the_year_to_date(tmp_path):
    # "<당분기>" over "기 초 | 증 감 | 기 말" columns: the quarter's caption runs from the year's
    # opening balance too
    lines = [
        [("l", 50, "30.4 특수관계자와의 자금 거래내용은 다음과 같습니다.")],
        [("l", 50, "<당분기>")],
        [("l", 480, "(단위:백만원)")],
        [("l", 50, "구 분")] + centred("", "기 초", "증 감", "기 말"),
        row("단기차입금", "", "160,000", "(160,000)", "-"),
        row("단기대여금", "", "30", "20", "50"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "transposed.pdf"))
    [table] = dated_page(page, QUARTERLY).tables
    dated = {c.header.replace(" ", ""): (c.months, c.end) for c in table.columns}
    assert dated["기초"] == dated["기말"] == (9, D(2024, 9, 30))


@pytest.mark.parametrize(
    "text, expected",
    [
        ("<당분기말>", (None, 0)),
        ("<전기말> (단위:백만원)", (None, 1)),
        ("[당기]", (12, 0)),
        ("유형자산의 내용 <당분기말> ... <전기말>", (None, 1)),  # the nearest the table
        ("<표 3> 연도별 예산", None),
        ("당기말 현재 재고자산의 내역", None),  # prose, not a caption
    ],
)
def test_relative_caption(text, expected):
    assert relative_caption(text) == expected


def test_a_relative_caption_is_no_subject():
    assert heading_subject("<당분기말>") == ""
    assert heading_subject("<전기말> (단위:백만원)") == ""


@pytest.mark.parametrize(
    "header, measure",
    [
        ("장부금액", "장부금액"),
        ("당분기말 유동", "유동"),
        ("확정(B)", "확정"),
        ("1년 이내", ""),  # a maturity bucket, not a measure
        ("수준2", ""),  # a fair value level
        ("제 56 기 3분기", ""),  # the period alone
    ],
)
def test_korean_header_measure(header, measure):
    assert korean_header_measure(header) == measure


@pytest.mark.parametrize(
    "unit, printed",
    [
        ("KRW millions", "백만원"),
        ("KRW thousands", "천원"),
        ("KRW 100 millions", "억원"),
        ("KRW", "원"),
        ("USD thousands", "천달러"),
        ("%", ""),  # printed as "%" in every language
        ("", ""),  # a count
    ],
)
def test_a_korean_answer_unit_is_the_one_the_page_prints(unit, printed):
    assert printed_unit(unit) == printed


def test_a_first_quarter_prints_one_figure_twice_and_is_asked_once(tmp_path):
    # A first quarter's "3개월" and "누적" columns print the same figures: one answer, asked plainly.
    lines = [
        [("l", 220, "포괄손익계산서")],
        [("l", 150, "제 57 기 1분기 2025.01.01 부터 2025.03.31 까지")],
        [("l", 150, "제 56 기 1분기 2024.01.01 부터 2024.03.31 까지")],
        [("l", 480, "(단위 : 천원)")],
        [("l", 50, "과 목")] + centred("제 57 기 1분기", "제 56 기 1분기", span=2),
        centred("3개월", "누적", "3개월", "누적"),
        row("매출액", "655,291,744", "655,291,744", "513,761,082", "513,761,082"),
        row("매출원가", "615,747,393", "615,747,393", "491,547,951", "491,547,951"),
        row("영업이익", "16,567,895", "16,567,895", "5,155,760", "5,155,760"),
    ]
    first = PageContext("한빛전자", "quarterly-report", "2025-Q1", "2025-03-31")
    page = read_table_page(draw_layer(lines, tmp_path, "q1.pdf"))
    written = write_table_question(page, first, "ko")
    assert written is not None
    assert written.question.startswith("2025년 3월 31일로 종료되는 3개월간 ")
    assert written.answer.endswith(" 천원")  # the unit as the page prints it
    q = parse_table_question("2025년 3월 31일로 종료되는 3개월간 영업이익은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, first).answer == "16,567,895 천원"


def test_header_rows_below_the_unit_line_are_no_subject(tmp_path):
    # The upper header rows ("수 익 | 비 용", "거래상대방 | 관계") sit below "(단위:백만원)": they name
    # the columns, not what the table is about; a row is asked by its own name.
    lines = [
        [("l", 50, "29.2 당분기 중 거래내용은 다음과 같습니다.")],
        [("l", 50, "<당분기>")],
        [("l", 480, "(단위:백만원)")],
        centred("수 익", "비 용", span=2),
        [("l", 50, "거래상대방"), ("l", 150, "관계")],
        centred("제품매출", "용역매출", "판관비", "기타비용"),
        row("가람상사", "-", "562", "124", "-"),
        row("나래개발", "215", "-", "-", "302"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "rel.pdf"))
    assert all("관계" not in t.subject and "상대방" not in t.subject for t in page.tables)
    first = PageContext("한빛전자", "quarterly-report", "2025-Q1", "2025-03-31")
    written = write_table_question(page, first, "ko")
    assert written is not None
    assert written.question.startswith("2025년 3월 31일로 종료되는 3개월간 ")
    assert "관계" not in written.question and "상대방" not in written.question
    # A third quarter's bare "<당분기>" is three months in one note and nine in another: not asked
    assert write_table_question(page, QUARTERLY, "ko") is None


def test_a_korean_row_is_never_asked_in_english(tmp_path):
    # A page read as English (many Latin names) whose rows are Korean: an English question quoting
    # them would test translation, not retrieval.
    page = read_table_page(draw_layer(NOTE, tmp_path, "note.pdf"))
    assert write_table_question(page, QUARTERLY, "en") is None
    assert write_table_question(page, QUARTERLY, "ko") is not None


def test_a_count_is_asked_how_many_with_its_counter(tmp_path):
    # "(단위 : 명)": every figure counts people: asked "몇 명", answered with the counter as printed
    lines = [
        [("l", 50, "<표 2> 연도별 참여자 현황")],
        [("l", 480, "(단위 : 명)")],
        [("l", 50, "구분")] + centred("", "2022년", "2023년", "2024년"),
        row("청년 참여자", "", "12,340", "15,210", "16,450"),
        row("중장년 참여자", "", "8,120", "9,030", "9,870"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "count.pdf"))
    [table] = page.tables
    assert table.unit == "" and table.counter == "명"
    written = write_table_question(page, None, "ko")
    assert written is not None
    # the heading's "참여자" is in the row's own name: asked by the row alone
    assert written.question.startswith("2024년 ")
    assert written.question.endswith("참여자는 몇 명이었습니까?")
    assert written.answer in ("16,450 명", "9,870 명")
    q = parse_table_question("2023년 청년 참여자는 몇 명이었습니까?")
    assert q is not None and judge_table_question(q, page).answer == "15,210 명"


def test_a_mixed_unit_line_names_no_counter(tmp_path):
    # "(단위 : 명, 백만원)": no counter for the whole table; the row that names people ("참여 인원")
    # is counted in 명, the amount row is in 백만원
    lines = [
        [("l", 50, "<표 2> 연도별 참여 현황")],
        [("l", 480, "(단위 : 명, 백만원)")],
        [("l", 50, "구분")] + centred("", "2022년", "2023년", "2024년"),
        row("참여 인원", "", "12,340", "15,210", "16,450"),
        row("지원 금액", "", "8,120", "9,030", "9,870"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "mixed.pdf"))
    [table] = page.tables
    assert table.counter == "" and table.measures == ("명",)
    written = write_table_question(page, None, "ko")
    assert written is not None
    assert written.question == "2024년 참여 인원은 몇 명이었습니까?"
    assert written.answer == "16,450 명"
    q = parse_table_question("2023년 지원 금액은 얼마였습니까?")
    assert q is not None and judge_table_question(q, page).answer == "9,030 백만원"

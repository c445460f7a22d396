"""Korean note tables' rows asked as a reader of the filing asks them: a justified label as one
word, a roll-forward's movement with what moves ("리스부채의 기초"), a company's row with the
measure its table names, and section debris ("구분", "<…>", a line of figures) never asked."""

from __future__ import annotations

import datetime
import re

import pymupdf
import pytest

from evalset_pipeline.core.pagetext.korean import heading_subject
from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.pagetext.text import joined_letter_spacing
from evalset_pipeline.core.reader.korean_columns import (
    korean_header_measure,
    to_date_measure,
    unsaid_measure,
)
from evalset_pipeline.core.reader.korean_labels import (
    is_movement,
    is_party,
    korean_section,
    merged_columns,
    movement_label,
    names_account,
    party_name,
    related_party_table,
    spoken_label,
    wrapped_half,
)
from evalset_pipeline.core.reader.table_cells import clean_label
from evalset_pipeline.core.reader.table_judge import prints_answer
from evalset_pipeline.core.reader.table_page import TablePage
from evalset_pipeline.core.reader.table_questions import (
    judge_table_question,
    parse_table_question,
    qualify_table_question,
    read_table_page,
    write_table_question,
)
from evalset_pipeline.core.reader.table_reader import Column, Row, Table
from evalset_pipeline.core.reader.textlayer import label_table_page
from evalset_pipeline_tests.core.reader.test_korean_tables import ANNUAL
from evalset_pipeline_tests.core.reader.test_table_reader import (
    FONT,
    Item,
    centred,
    draw_layer,
    row,
)
from evalset_pipeline_tests.support.korean_text import put_text

pytestmark = pytest.mark.unit


def _roll_forward(heading: str) -> list[list[Item]]:
    return [
        [("l", 50, heading)],
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "구 분")] + centred("", "", "당기", "전기"),
        row("기 초", "", "", "8,674", "2,962"),
        row("증 가", "", "", "1,262", "10,442"),
        row("지 급", "", "", "(3,741)", "(4,730)"),
        row("기 말", "", "", "6,195", "8,674"),
    ]


def test_a_roll_forward_is_asked_by_what_moves(tmp_path):
    heading = "10.3 리스부채는 기타금융부채로 분류되어 있으며, 그 변동내역은 다음과 같습니다."
    assert heading_subject(heading) == "리스부채"  # the sentence's topic is what moves
    page = read_table_page(draw_layer(_roll_forward(heading), tmp_path, "r.pdf"))
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    assert written.question.startswith("2023년 12월 31일로 종료되는 회계연도 리스부채의 ")
    assert " 중 " not in written.question  # "리스부채 중 기초" is no way to say it
    # a balance at either end is said as one ("기초 잔액"), never as a bare line of the roll-forward
    assert not re.search(r"의 (기초|기말)[은는]", written.question), written.question
    for asked in ("리스부채의 기초 잔액", "리스부채의 기초"):
        q = parse_table_question(f"2023년 12월 31일로 종료되는 회계연도 {asked}는 얼마였습니까?")
        assert q is not None and q.label == asked
        assert judge_table_question(q, page, ANNUAL).answer == "8,674 백만원"
    assert movement_label("리스부채", "기말") == "리스부채의 기말 잔액"
    assert movement_label("리스부채", "증가") == "리스부채의 증가"
    assert movement_label("배출권 수량", "기초") == "배출권 수량의 기초"  # a quantity is no 잔액
    # qualified, the entity and basis read back
    asked = qualify_table_question(q_text := written.question, {"entity": "한빛전자"})
    assert asked.startswith("한빛전자의 ") and parse_table_question(asked) is not None
    assert q_text in asked


def test_a_roll_forward_under_no_named_subject_is_not_asked(tmp_path):
    # the filer is the sentence's topic: nothing says what the balances are of
    heading = "당사는 임차한 건물 중 일부를 임대하고 있으며, 그 변동내역은 다음과 같습니다."
    assert heading_subject(heading) == ""
    page = read_table_page(draw_layer(_roll_forward(heading), tmp_path, "n.pdf"))
    assert write_table_question(page, ANNUAL, "ko") is None  # never "…회계연도 기말은 …"


def test_a_justified_header_is_one_word():
    assert joined_letter_spacing("기 초") == "기초"
    assert joined_letter_spacing("사 업 명") == "사업명"
    assert joined_letter_spacing("제품 및 상품") == "제품 및 상품"  # words, not letters apart
    assert korean_header_measure("기 초") == "기초"
    assert korean_header_measure("당기말 기 말") == "기말"


def test_companies_are_asked_with_their_tables_measure(tmp_path):
    lines: list[list[Item]] = [
        [("l", 50, "(3) 채무보증 현황")],
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "회사명")] + centred("", "", "당기말", "전기말"),
        row("양우종합건설", "", "", "12,000", "15,000"),
        row("Taihan Netherlands B.V.", "", "", "3,400", "3,100"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "g.pdf"))
    assert page.tables[0].subject == "채무보증"
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    # never "양우종합건설은 …" (no measure) nor "양우종합건설의 채무보증" (the company's own guarantee)
    assert written.question.endswith("에 대한 채무보증은 얼마였습니까?"), written.question
    for asked in ("양우종합건설에 대한 채무보증", "양우종합건설의 채무보증"):
        q = parse_table_question(f"2023년 12월 31일 현재 {asked}은 얼마였습니까?")
        assert q is not None
        assert judge_table_question(q, page, ANNUAL).answer == "12,000 백만원"


def test_place_rows_under_the_label_header_are_not_asked(tmp_path):
    lines: list[list[Item]] = [
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "구분")] + centred("", "", "당기말", "전기말"),
        row("북미", "", "", "1,200", "1,100"),
        row("남미", "", "", "300", "250"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "p.pdf"))
    assert write_table_question(page, ANNUAL, "ko") is None  # "구분 중 북미" names no figure


@pytest.mark.parametrize(
    ("section", "expected"),
    [
        ("<기타특수관계자>", "기타특수관계자"),
        ("【세계 전력선시장 규모】", "세계 전력선시장 규모"),
        ("구분", ""),
        ("구 분", ""),
        ("당분기말", ""),
        ("<전기말>", ""),
        ("Sgd 24,308,920 -", ""),
        ("법", ""),
        ("WLL", ""),
        ("리스부채", "리스부채"),
        ("지분상품 및", ""),  # half of "지분상품 및 채무상품", wrapped
        ("및 채무상품", ""),
    ],
)
def test_section_debris(section, expected):
    assert korean_section(section) == expected


def test_half_of_a_wrapped_name_is_no_label():
    assert wrapped_half("지분상품 및") and wrapped_half("및 채무상품")
    assert not wrapped_half("제품 및 상품") and not wrapped_half("원부재료 및 저장품")


def test_label_debris_and_kinds():
    assert spoken_label("할인율(%)") == "할인율"
    assert clean_label("차감: 현금및현금성자산") == "현금및현금성자산"
    assert merged_columns("Malesela T.E.C, Ltd. (*) 전선제조 및 판매업 남아프리카공화국")
    assert merged_columns("TEC&R 기타불입자본 자기주식")
    assert not merged_columns("Taihan Netherlands B.V.")
    assert not merged_columns("현금및현금성자산에 대한 환율변동")
    assert is_movement("기 초") and is_movement("기말 잔액") and not is_movement("이자비용")
    assert is_party("양우종합건설") and is_party("Taihan Netherlands B.V.") and is_party("(주)한빛")
    assert not is_party("매출채권")
    assert (
        names_account("대손충당금전입") and names_account("지분율") and names_account("이자의 수취")
    )
    assert not names_account("북미") and not names_account("기초")


def test_a_bracketed_section_row_is_asked_without_its_brackets(tmp_path):
    assert spoken_label("[유동자산]") == "유동자산"
    assert spoken_label("<비유동부채>") == "비유동부채"
    lines = [
        [("l", 50, "2. 요약재무정보")],
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "구 분")] + centred("", "", "2023년 12월말", "2022년 12월말"),
        row("[유동자산]", "", "", "1,030,300", "837,386"),
        row("현금및현금성자산", "", "", "204,229", "129,054"),
        row("[비유동자산]", "", "", "522,292", "530,238"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "summary.pdf"))
    q = parse_table_question("2023년 12월 31일 현재 유동자산은 얼마였습니까?")
    assert q is not None
    assert judge_table_question(q, page, ANNUAL).answer == "1,030,300 백만원"
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None and "[" not in written.question


def _allowance(heading: list[list[Item]]) -> list[list[Item]]:
    return [
        *heading,
        [("l", 50, "<당기>")],
        [("l", 480, "(단위:백만원)")],
        [("l", 50, "구분")] + centred("기초", "손상차손", "제각 등", "기말"),
        row("매출채권", "34,665", "1,225", "(4)", "35,886"),
        row("단기대여금", "299,211", "(55)", "-", "299,156"),
    ]


def test_an_accounts_movement_columns_are_asked_under_what_moves(tmp_path):
    # "기초 | … | 기말" of accounts: the table is their allowance, which only its heading says
    heading = [[("l", 50, "2.3. 대손충당금의 변동내용은 다음과 같습니다.")]]
    page = read_table_page(draw_layer(_allowance(heading), tmp_path, "allowance.pdf"))
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    assert "대손충당금 중 " in written.question, written.question
    assert not re.search(r"의 (기초|기말)[은는]", written.question)  # said "기말 잔액"
    for said in ("매출채권의 기말 잔액", "매출채권의 기말"):
        q = parse_table_question(
            f"2023년 12월 31일로 종료되는 회계연도 대손충당금 중 {said}은 얼마였습니까?"
        )
        assert q is not None
        assert judge_table_question(q, page, ANNUAL).answer == "35,886 백만원"


def test_an_accounts_movement_columns_without_a_heading_are_not_asked(tmp_path):
    # continued from the page before: "매출채권의 기말" would be the receivable's own balance
    page = read_table_page(draw_layer(_allowance([]), tmp_path, "continued.pdf"))
    assert write_table_question(page, ANNUAL, "ko") is None


def test_a_rate_is_asked_under_the_heading_that_says_which(tmp_path):
    # A filing prints many discount rates: the actuarial assumption's is asked under its heading
    lines = [
        [("l", 50, "19.7 보험수리적가정의 주요 내용은 다음과 같습니다.")],
        [("l", 480, "(단위: %)")],
        [("l", 50, "구 분")] + centred("", "", "당기", "전기"),
        row("할인율(%)", "", "", "5.35", "2.95"),
        row("기대임금상승률(%)", "", "", "4.98", "4.50"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "assumptions.pdf"))
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    assert "보험수리적가정 중 " in written.question, written.question
    q = parse_table_question(written.question)
    assert q is not None
    assert judge_table_question(q, page, ANNUAL).answers


def _one_column_page(title: str, component: str = "자본금") -> TablePage:
    # A real page's header cells run the statement's title (and its ordinal's range) into each
    # component ("연결 자본변동표 제 68 기 3분기 2022.01.01 부터 2022.09.30 까지 자본금"); the
    # column is dated as the heading dates it
    header = f"{title} {component}".strip()
    column = Column(0, header, 12, datetime.date(2023, 12, 31), None, 300.0, 380.0)
    rows = (
        Row("유상증자", "", ("1,000",), (1000.0,), 50.0, False),
        Row("당기순이익", "", ("2,000",), (2000.0,), 50.0, False),
    )
    table = Table((column,), rows, "KRW millions", "", "", 0.0, 100.0)
    return TablePage("유상증자 1,000 당기순이익 2,000", (table,))


def test_a_statement_of_changes_in_equity_is_not_asked():
    # dated by the heading, its rows may be the prior year's block (this year's on the next page)
    assert write_table_question(_one_column_page("연결 자본변동표"), ANNUAL, "ko") is None
    # the same table under another statement's title is asked: the title is the reason (a
    # year's column naming no account: an account's column over a span is its movement, unasked)
    assert write_table_question(_one_column_page("연결 자본변동표", ""), ANNUAL, "ko") is None
    assert write_table_question(_one_column_page("연결 손익계산서", ""), ANNUAL, "ko") is not None


def test_a_sub_measure_too_long_to_say_is_not_asked_as_the_rows_figure(tmp_path):
    # A headcount table whose text layer dates only its first sub-column ("2023년 03월 31일
    # 기간의 정함이 없는 근로자 전체"): 431 is the permanent staff, not the row's 445
    assert unsaid_measure("2023년 03월 31일 기간의 정함이 없는 근로자 전체")
    assert not unsaid_measure("당분기말 유동") and not unsaid_measure("2023년 12월 31일")
    column = Column(
        0,
        "2023년 03월 31일 기간의 정함이 없는 근로자 전체",
        None,
        datetime.date(2023, 3, 31),
        None,
        300.0,
        380.0,
    )
    rows = (
        Row("관리직 남", "", ("437",), (437.0,), 50.0, False),
        Row("기능직 남", "", ("431",), (431.0,), 50.0, False),
    )
    table = Table((column,), rows, "", "", "직원 등 현황", 0.0, 100.0)
    page = TablePage("관리직 남 437 기능직 남 431", (table,))
    assert write_table_question(page, ANNUAL, "ko") is None


def _related_party_page(tmp_path) -> TablePage:
    lines: list[list[Item]] = [
        [("l", 50, "30.2 당기 특수관계자와의 중요한 영업상의 거래내용은 다음과 같습니다.")],
        [("l", 50, "<당기>"), ("l", 480, "(단위: 백만원)")],
        [("l", 50, "특수관계자 명칭")] + centred("", "", "제품매출", "기타비용"),
        row("(주)호반", "", "", "-", "302"),
        row("(주)호반산업", "", "", "345", "1,206"),
        row("(주)호반호텔앤리조트 기타", "", "", "130", "-"),
    ]
    return read_table_page(draw_layer(lines, tmp_path, "rp.pdf"))


def test_a_related_partys_row_is_the_filers_figure_with_it(tmp_path):
    page = _related_party_page(tmp_path)
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    # never "호반의 기타비용" (the party's own expense), nor the relationship read into its name
    assert re.search(
        r"(호반|호반산업|호반호텔앤리조트)에 대한 (제품매출|기타비용)은", written.question
    ), written.question
    q = parse_table_question(
        "2023년 12월 31일로 종료되는 회계연도 호반에 대한 기타비용은 얼마였습니까?"
    )
    assert q is not None
    assert judge_table_question(q, page, ANNUAL).answer == "302 백만원"
    assert party_name("호반호텔앤리조트 기타") == "호반호텔앤리조트"
    assert party_name("Bulace Investments Ltd. 공동기업") == "Bulace Investments Ltd."
    assert party_name("기타") == "기타"
    assert related_party_table("<당기> (단위:백만원) 특수관계자 명칭 관계")
    assert not related_party_table("종속기업의 요약 재무정보")


def test_figures_built_up_to_a_date_are_asked_at_that_date(tmp_path):
    # "<당기>" dates the table, but cumulative contract figures are positions at the year's end
    lines: list[list[Item]] = [
        [("l", 50, "22.2 진행중인 공사계약 관련 내용은 다음과 같습니다.")],
        [("l", 50, "<당기>"), ("l", 480, "(단위: 백만원)")],
        [("l", 50, "구 분")] + centred("", "누적공사수익", "누적발생원가", "유보금"),
        row("전기공사 등", "", "430,802", "395,631", "17,283"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "c.pdf"))
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    assert written.question.startswith(
        "2023년 12월 31일 현재 진행중인 공사계약 중 전기공사 등의 "
    ), written.question
    assert "회계연도" not in written.question
    assert to_date_measure("누적공사수익") and to_date_measure("누적 발생원가")
    assert not to_date_measure("누적")  # a quarter's year-to-date column
    assert not to_date_measure("공사수익인식")


def test_a_columns_own_measure_beside_its_period_is_said(tmp_path):
    """ "설정금액 당기말" is the row's pledged amount at the year's end: asked "자기주식의 설정금액"
    style, never as the row's plain figure. "평가충당금 당기" over the year is the allowance's
    movement, which the header does not say: "상품의 평가충당금" would read as the balance (a
    reading found 178 asked, the balance 185), so it is not asked. "2022년도분" names a year's
    share, no measure ("도분")."""

    def page(header: str, name: str):
        lines: list[list[Item]] = [
            [("l", 50, "재고자산의 저가법 평가내용은 다음과 같습니다.")],
            [("l", 480, "(단위: 백만원)")],
            [("l", 50, "구 분")] + centred("", "", "", header),
            row("상품", "", "", "", "178"),
            row("제품", "", "", "", "(1,124)"),
        ]
        return read_table_page(draw_layer(lines, tmp_path, name))

    written = write_table_question(page("평가전금액 당기말", "balance.pdf"), ANNUAL, "ko")
    assert written is not None
    assert re.search(r"(상품|제품)의 평가전금액은", written.question), written.question
    assert write_table_question(page("평가충당금 당기", "movement.pdf"), ANNUAL, "ko") is None
    assert korean_header_measure("2022년도분") == ""
    assert korean_header_measure("2023년도 예산") == "예산"


def test_a_deduction_a_market_and_a_merged_parent_are_not_asked(tmp_path):
    """ "차감: 현금및현금성자산 (267,105)" is the cash taken away in a ratio, not the cash; a
    filing's "세계 전력선시장 규모" is the market's, not the company's; a parent read with its
    relationship ("Bulace Investments Ltd. 공동기업") is two cells."""
    ratio: list[list[Item]] = [
        [("l", 50, "33.3 자본관리위험")],
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "구분")] + centred("", "", "당기말", "전기말"),
        row("차감: 현금및현금성자산", "", "", "(267,105)", "(217,217)"),
    ]
    page = read_table_page(draw_layer(ratio, tmp_path, "ratio.pdf"))
    assert page.tables[0].rows[0].deduction and page.tables[0].rows[0].label == "현금및현금성자산"
    assert write_table_question(page, ANNUAL, "ko") is None
    market: list[list[Item]] = [
        [("l", 50, "세계 전력선시장 규모")],
        [("l", 480, "(단위: 천톤)")],
        [("l", 50, "구분")] + centred("", "", "2023년", "2022년"),
        row("기타아시아", "", "", "3,028", "2,950"),
        row("북미", "", "", "4,100", "4,000"),
    ]
    page = read_table_page(draw_layer(market, tmp_path, "market.pdf"))
    assert write_table_question(page, ANNUAL, "ko") is None
    lines: list[list[Item]] = [
        [("l", 50, "30.4 특수관계자와의 자금대여 거래내용은 다음과 같습니다.")],
        [("l", 50, "<당기>"), ("l", 480, "(단위: 백만원)")],
        [("l", 50, "구분")] + centred("", "", "기초", "기말"),
        [("l", 50, "Bulace Investments Ltd. 공동기업")],
        row("대손충당금", "", "", "(50)", "(55)", indent=70),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "loan.pdf"))
    assert page.tables[0].rows[-1].parent == "Bulace Investments Ltd. 공동기업"
    written = write_table_question(page, ANNUAL, "ko")
    assert written is None or "공동기업" not in written.question


def test_a_pledged_assets_row_is_not_asked(tmp_path):
    """ "자기주식 26,600" of a table of pledged assets is the amount pledged over the stock, not the
    stock (its category sits in a cell merged down its rows)."""
    pledged: list[list[Item]] = [
        [("l", 50, "31.3 담보제공 자산내용은 다음과 같습니다.")],
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "계정과목")] + centred("", "", "당기말", "전기말"),
        row("자기주식", "", "", "26,600", "26,600"),
        row("정기예금", "", "", "3,059", "3,059"),
    ]
    page = read_table_page(draw_layer(pledged, tmp_path, "pledged.pdf"))
    assert write_table_question(page, ANNUAL, "ko") is None


def _draw_at(lines: list[tuple[float, list[Item]]], tmp_path, name: str) -> dict:
    """One page whose lines sit at the given heights (a cell merged down two rows is printed half
    a line below the first, which `draw_layer`'s even lines cannot draw)."""
    doc = pymupdf.open()
    page = doc.new_page(width=612, height=792)
    for y, items in lines:
        for kind, x, text in items:
            put_text(page, kind, x, y, text, FONT)
    path = tmp_path / name
    doc.save(path)
    doc.close()
    with pymupdf.open(path) as pdf:
        return text_layer_of(pdf[0])


def test_a_party_merged_down_its_two_rows_heads_both(tmp_path):
    # "Taihan Netherlands B.V." is printed at the middle of its two rows, half a line below its
    # loan: read in order it sat under the loan, and the loan went to the party above it.
    header = [("l", 50, "특수관계자 명칭"), ("l", 200, "계정과목")] + centred(
        "기 초", "증 감", "기 말"
    )
    lines = [
        (60.0, [("l", 50, "30.4 특수관계자와의 자금 거래내용은 다음과 같습니다.")]),
        (73.0, [("l", 50, "<당기>"), ("l", 480, "(단위: 백만원)")]),
        (86.0, header),
        (99.0, row("한빛산업 단기차입금", "160,000", "(160,000)", "-")),
        (118.0, row("단기대여금", "826", "(826)", "-", indent=200)),
        (127.5, [("l", 50, "Hanbit Europe B.V.")]),
        (137.0, row("대손충당금", "-", "-", "-", indent=200)),
        (156.0, row("단기대여금", "30", "20", "50", indent=200)),
        (165.5, [("l", 50, "Nara Investments Ltd.")]),
        (175.0, row("대손충당금", "(30)", "(20)", "(50)", indent=200)),
    ]
    page = read_table_page(_draw_at(lines, tmp_path, "fund.pdf"))
    loans = [(r.parent, r.cells[0]) for t in page.tables for r in t.rows if r.label == "단기대여금"]
    assert loans == [("Hanbit Europe B.V.", "826"), ("Nara Investments Ltd.", "30")]
    # a party's account is never asked under the party's name as a section ("… 중 단기대여금")
    written = write_table_question(page, ANNUAL, "ko")
    assert written is None or "단기대여금" not in written.question, written


def test_a_section_printed_at_its_rows_indent_and_open_at_the_closing_balance_heads_none(
    tmp_path,
):
    # "재측정요소 :" has no total and no indented rows: which rows it holds the page never says
    # ("급여지급액" below it is no remeasurement), so the roll-forward's rows have no section
    lines: list[list[Item]] = [
        [("l", 50, "19.2 확정급여채무의 변동내용은 다음과 같습니다.")],
        [("l", 480, "(단위:백만원)")],
        [("l", 50, "구분")] + centred("", "", "당기", "전기"),
        row("기초", "", "", "44,216", "41,890"),
        row("근무원가", "", "", "5,081", "5,135"),
        [("l", 50, "재측정요소 :")],
        row("재무적가정의 변동에서 발생하는 보험수리적손익", "", "", "(6,802)", "(3,602)"),
        row("급여지급액", "", "", "(3,418)", "(1,551)"),
        row("기타(관계사전입/전출등)", "", "", "91", "-"),
        row("기말", "", "", "40,577", "44,216"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "dbo.pdf"))
    assert {r.parent for t in page.tables for r in t.rows if r.cells[-1]} == {""}


def test_a_section_with_a_total_still_heads_its_rows(tmp_path):
    lines: list[list[Item]] = [
        [("l", 50, "(단위:백만원)")],
        [("l", 50, "구분")] + centred("", "", "당기", "전기"),
        [("l", 50, "재측정요소 :")],
        row("보험수리적손익", "", "", "(6,802)", "(3,602)"),
        row("재측정요소 소계", "", "", "(6,802)", "(3,602)"),
        row("기말", "", "", "40,577", "44,216"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "dbo2.pdf"))
    parents = {r.label: r.parent for t in page.tables for r in t.rows}
    assert parents["보험수리적손익"] == "재측정요소"


def test_a_party_and_its_relationship_read_into_a_label_are_no_row():
    assert merged_columns("호반산업 지배기업 단기 차입금")
    assert merged_columns("(주)한빛건설 기타특수관계자 매출채권")
    assert not merged_columns("관계기업 및 공동기업 투자")  # an account
    assert not merged_columns("기타 관계기업 지분")


def test_a_column_of_the_whole_is_not_the_rows_figure(tmp_path):
    # "소액주주 | 소액 주주수 | 전체 주주수": the group header "주주" spans both sub-columns; the
    # whole's count is no minority shareholders' figure, and "소액" is said once
    lines: list[list[Item]] = [
        [("l", 50, "6. 소액주주현황")],
        [("l", 480, "(단위 : 주)")],
        centred("2023.12.31", "2023.12.31"),
        centred("", "주주"),
        [("l", 50, "구 분")] + centred("소액 주주수", "전체 주주수"),
        row("소액주주", "483,938", "483,941"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "minority.pdf"))
    written = write_table_question(page, ANNUAL, "ko")
    assert written is not None
    assert "소액주주의 주주수" in written.question, written.question
    assert written.answer.startswith("483,938"), written
    assert korean_header_measure("주주 전체 주주수") == "전체 주주수"


@pytest.mark.parametrize(
    "heading, subject",
    [
        # the phrase runs back past "의" and "및": "비용" alone is every expense
        (
            "15.4 연구와 개발에 관련된 지출의 비용의 내역은 다음과 같습니다.",
            "연구와 개발에 관련된 지출의 비용",
        ),
        (
            "32.4 일시적차이 및 이연법인세의 증감내용은 다음과 같습니다.",
            "일시적차이 및 이연법인세의 증감",
        ),
        ("당사의 유형자산의 변동내역은 다음과 같습니다.", "유형자산"),  # stops at the filer
        ("2. 계열회사 현황(상세)", "계열회사"),
    ],
)
def test_a_heading_phrase_runs_back_past_its_possessives(heading, subject):
    assert heading_subject(heading) == subject


def test_the_same_table_for_another_period_is_supporting_not_unrelated(tmp_path):
    # "토지의 취득원가" is no row: read as row "토지" in the "취득원가" column the page prints it,
    # for another period; "no row" made the same note of another filing an unrelated page
    lines: list[list[Item]] = [
        [("l", 50, "12.1 투자부동산의 내역은 다음과 같습니다.")],
        [("l", 50, "<전기말>"), ("l", 480, "(단위: 백만원)")],
        [("l", 50, "구 분")] + centred("", "취득원가", "감가상각누계액", "장부금액"),
        row("토지", "", "433", "-", "433"),
        row("건물", "", "2,120", "(845)", "1,275"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "ip.pdf"))
    q = parse_table_question("2023년 12월 31일 현재 투자부동산 중 토지의 취득원가는 얼마였습니까?")
    assert q is not None
    judged = judge_table_question(q, page, ANNUAL)
    assert not judged.answers
    assert label_table_page("433 백만원", judged).label == "supporting", judged.reason


def test_a_roll_forwards_closing_line_prints_the_balance_asked(tmp_path):
    # "기타장기종업원급여부채" at the year's end is the roll-forward's "기말" of that year, and the
    # opening balance of the next quarter ("리스부채의 기초 잔액") is the year's "기말": the same fact
    lines: list[list[Item]] = [
        [("l", 50, "19.9 기타장기종업원급여부채의 변동내용은 다음과 같습니다.")],
        [("l", 480, "(단위: 백만원)")],
        [("l", 50, "구 분")] + centred("", "", "당기", "전기"),
        row("기초", "", "", "3,502", "3,410"),
        row("근무원가", "", "", "305", "290"),
        row("급여지급액", "", "", "(209)", "(198)"),
        row("기말", "", "", "3,598", "3,502"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "ltb.pdf"))
    balance = parse_table_question("2023년 12월 31일 현재 기타장기종업원급여부채는 얼마였습니까?")
    assert balance is not None
    assert prints_answer(balance, page, "3,598 백만원", ANNUAL) is not None
    assert prints_answer(balance, page, "3,502 백만원", ANNUAL) is None  # the year before's
    opening = parse_table_question(
        "2024년 3월 31일로 종료되는 3개월간 기타장기종업원급여부채의 기초 잔액은 얼마였습니까?"
    )
    assert opening is not None
    assert prints_answer(opening, page, "3,598 백만원", ANNUAL) is not None


def test_a_table_of_changes_prints_no_balance(tmp_path):
    # "매입채무" under "<당기>" in a table of changes is its change over the year: a question asking
    # the balance at the year's end is not answered by it (it made the question look ambiguous)
    lines: list[list[Item]] = [
        [("l", 50, "34.3 영업활동 자산·부채의 증감 내용은 다음과 같습니다.")],
        [("l", 50, "<당기>"), ("l", 480, "(단위: 백만원)")],
        [("l", 50, "구 분")] + centred("", "", "당기", "전기"),
        row("매출채권", "", "", "(24,056)", "3,120"),
        row("매입채무", "", "", "(14,018)", "8,877"),
    ]
    page = read_table_page(draw_layer(lines, tmp_path, "chg.pdf"))
    balance = parse_table_question("2023년 12월 31일 현재 매입채무는 얼마였습니까?")
    assert balance is not None
    assert not judge_table_question(balance, page, ANNUAL).answers
    change = parse_table_question(
        "2023년 12월 31일로 종료되는 회계연도 영업활동 자산·부채의 증감 중 매입채무는 얼마였습니까?"
    )
    assert change is not None
    assert judge_table_question(change, page, ANNUAL).answer == "(14,018) 백만원"

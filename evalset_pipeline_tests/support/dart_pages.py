"""A DART-like filing drawn as such filings lay their financial part out: a table of contents,
a "연결재무제표" section with the consolidated balance sheet (its title centred, its last rows on a
continuation page, the income statement's title in the middle of that page), its notes section
(a note titled after a statement), then the separate statements (bare titles) and their notes.

The consolidated and separate balance sheets share the row "현금및현금성자산" with different
figures: the question about it is ambiguous until it names the basis. Made-up company, made-up
figures; only the structure is a DART filing's.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

from evalset_pipeline_tests.support.korean_text import put_text

WIDTH, HEIGHT, FONT = 595.0, 842.0, 9.0
EDGES = (420.0, 530.0)  # figures right-aligned at these x positions
CASH = {"consolidated": ("186,061", "147,921"), "separate": ("52,310", "48,077")}
# A drawn line: ("l", x, text) left-aligned, ("r", x, text) right-aligned, ("c", x, text) centred.
Item = tuple[str, float, str]

SECTION_CONSOLIDATED = "2. 연결재무제표"
SECTION_CONSOLIDATED_NOTES = "3. 연결재무제표 주석"
SECTION_SEPARATE = "4. 재무제표"
SECTION_SEPARATE_NOTES = "5. 재무제표 주석"


def _title(text: str) -> list[Item]:
    return [("c", WIDTH / 2, text)]


def _row(label: str, *figures: str) -> list[Item]:
    return [("l", 52.0, label), *(("r", x, f) for x, f in zip(EDGES, figures, strict=False))]


def _head(title: str) -> list[list[Item]]:
    return [
        _title(title),
        _title("제 9 기 3분기말 2024.09.30 현재"),
        _title("제 8 기말 2023.12.31 현재"),
        [("r", EDGES[1], "(단위 : 백만원)")],
        [("c", EDGES[0] - 25, "제 9 기 3분기말"), ("c", EDGES[1] - 25, "제 8 기말")],
    ]


def _assets(basis: str) -> list[list[Item]]:
    cash = CASH[basis]
    scale = 1 if basis == "consolidated" else 3
    return [
        [("l", 52.0, "자산")],
        _row("Ⅰ.유동자산", f"{1_297_694 // scale:,}", f"{939_158 // scale:,}"),
        _row("(1)현금및현금성자산 (주3)", *cash),
        _row("(2)매출채권 (주5)", f"{402_118 // scale:,}", f"{377_540 // scale:,}"),
        _row("(3)기타금융자산 (주6)", f"{51_230 // scale:,}", f"{47_811 // scale:,}"),
        _row("(4)재고자산 (주7)", f"{560_974 // scale:,}", f"{301_220 // scale:,}"),
        _row("Ⅱ.비유동자산", f"{841_003 // scale:,}", f"{812_442 // scale:,}"),
        _row("(1)유형자산 (주9)", f"{611_540 // scale:,}", f"{598_301 // scale:,}"),
        _row("(2)무형자산 (주10)", f"{92_117 // scale:,}", f"{90_004 // scale:,}"),
        _row("자산총계", f"{2_138_697 // scale:,}", f"{1_751_600 // scale:,}"),
    ]


def _liabilities(basis: str) -> list[list[Item]]:
    scale = 1 if basis == "consolidated" else 3
    return [
        _row("(5)당기법인세부채 (주27)", f"{454_975 // scale:,}", f"{451_884 // scale:,}"),
        _row("(6)유동성충당부채 (주16)", f"{7_140 // scale:,}", f"{9_754 // scale:,}"),
        _row("Ⅱ.비유동부채", f"{269_822 // scale:,}", f"{275_359 // scale:,}"),
        _row("(1)장기차입금 (주14)", f"{225_000 // scale:,}", f"{230_000 // scale:,}"),
        _row("부채총계", f"{1_001_937 // scale:,}", f"{967_000 // scale:,}"),
        _row("자본총계", f"{1_136_760 // scale:,}", f"{784_600 // scale:,}"),
    ]


def _income(title: str) -> list[list[Item]]:
    return [
        _title(title),
        _title("제 9 기 3분기 2024.01.01 부터 2024.09.30 까지"),
        [("r", EDGES[1], "(단위 : 백만원)")],
        _row("Ⅰ.매출액 (주21)", "1,589,414", "1,444,254"),
        _row("Ⅱ.매출원가 (주21)", "1,402,117", "1,290,008"),
        _row("Ⅲ.매출총이익", "187,297", "154,246"),
    ]


def _notes(section: str) -> list[list[Item]]:
    return [
        [("l", 50.0, section)],
        [("l", 50.0, "29. 현금흐름표")],
        [("l", 50.0, "29.1 영업활동에서 창출된 현금흐름의 조정 내용은 다음과 같습니다.")],
        [("r", EDGES[1], "(단위:백만원)")],
        [("c", EDGES[0] - 25, "당분기"), ("c", EDGES[1] - 25, "전분기")],
        _row("감가상각비", "61,220", "58,011"),
        _row("무형자산상각비", "4,117", "3,980"),
        _row("이자비용", "12,540", "11,002"),
        _row("법인세비용", "22,318", "19,777"),
        _row("재고자산평가손실", "3,201", "2,954"),
    ]


def _contents() -> list[list[Item]]:
    entries = [
        "III. 재무에 관한 사항",
        SECTION_CONSOLIDATED,
        SECTION_CONSOLIDATED_NOTES,
        SECTION_SEPARATE,
        SECTION_SEPARATE_NOTES,
        "연결 재무상태표",
        "연결 포괄손익계산서",
        "재무상태표",
    ]
    return [
        _title("목 차"),
        *([("l", 60.0, e), ("r", 530.0, str(2 + i))] for i, e in enumerate(entries)),
    ]


# Page order of the drawn filing, and what each page is.
PAGES: tuple[tuple[str, str, str], ...] = (
    # (what, statement, basis)
    ("contents", "", ""),
    ("consolidated balance sheet", "balance_sheet", "consolidated"),
    (
        "its continuation, then the income statement's title mid-page",
        "income_statement",
        "consolidated",
    ),
    ("consolidated notes", "", "consolidated"),
    ("separate balance sheet", "balance_sheet", "separate"),
    ("its continuation", "balance_sheet", "separate"),
    ("separate notes", "", "separate"),
)


def dart_pages() -> list[list[list[Item]]]:
    """The drawn filing's pages (see PAGES), each a list of lines of items."""
    return [
        _contents(),
        [[("l", 50.0, SECTION_CONSOLIDATED)], *_head("연결 재무상태표"), *_assets("consolidated")],
        # the balance sheet's last rows, then (below the page's top part) the next statement
        [*_liabilities("consolidated"), *([] for _ in range(9)), *_income("연결 손익계산서")],
        _notes(SECTION_CONSOLIDATED_NOTES),
        [[("l", 50.0, SECTION_SEPARATE)], *_head("재 무 상 태 표"), *_assets("separate")],
        _liabilities("separate"),
        _notes(SECTION_SEPARATE_NOTES),
    ]


def draw_dart_filing(path: Path, pages: Sequence[Sequence[Sequence[Item]]] | None = None) -> Path:
    """Draw the filing (or the given pages): one line every 19 points from the top."""
    doc = pymupdf.open()
    for lines in pages if pages is not None else dart_pages():
        page = doc.new_page(width=WIDTH, height=HEIGHT)
        y = 60.0
        for items in lines:
            for kind, x, text in items:
                put_text(page, kind, x, y, text, FONT)
            y += 19.0
        put_text(page, "l", 50.0, 820.0, "전자공시시스템 dart.fss.or.kr", 8.0)
    doc.save(path)
    doc.close()
    return path

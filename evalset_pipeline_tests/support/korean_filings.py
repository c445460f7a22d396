"""A small corpus of Korean annual reports (사업보고서), drawn as DART filings lay them out.

Each filing has a cover (report, period ordinal, fiscal year, company), a table of contents, an
income statement and a balance sheet with "제 N 기" columns dated in their headings, an inventory
note with "당기말 | 전기말" columns, and a page of prose that states the year-end headcount.
Figures are consistent across years: a filing's prior-year column prints the previous filing's
current figures, as real comparatives do. Nothing here is the pipeline's own sample format.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from evalset_pipeline_tests.support.drawn_page import DrawnPage, thousands

FIRST_ORDINAL_YEAR = 1968  # the filer's first fiscal year: fiscal 2023 is its 55th


@dataclass(frozen=True)
class Filer:
    name: str  # as the cover prints it ("한빛전자 주식회사")
    slug: str  # ASCII, for file names
    scale: int  # sets the size of its figures

    def income(self, year: int) -> dict[str, int]:
        g = self.scale * (100 + 7 * (year - 2020) + (year % 3))
        return {
            "매출액": g * 1000 + 311,
            "매출원가": g * 640 + 127,
            "매출총이익": g * 360 + 184,
            "판매비와관리비": g * 210 + 93,
            "영업이익": g * 150 + 91,
            "법인세비용차감전순이익": g * 139 + 57,
        }

    def balance(self, year: int) -> dict[str, int]:
        g = self.scale * (300 + 11 * (year - 2020) + (year % 4))
        return {
            "유동자산": g * 500 + 71,
            "현금및현금성자산": g * 180 + 13,
            "재고자산": g * 120 + 44,
            "비유동자산": g * 700 + 29,
            "자산총계": g * 1200 + 100,
        }

    def employees(self, year: int) -> int:
        return self.scale * 410 + 37 * (year - 2020)

    def inventory(self, year: int) -> dict[str, int]:
        g = self.scale * (40 + 3 * (year - 2020) + (year % 5))
        return {"제품 및 상품": g * 310 + 7, "원재료 및 저장품": g * 170 + 3, "미착품": g * 20 + 1}


FILERS = (Filer("한빛전자 주식회사", "hanbit", 7), Filer("다온화학 주식회사", "daon", 3))


def _cover(doc: pymupdf.Document, filer: Filer, year: int) -> None:
    p = DrawnPage(doc)
    p.y = 200.0
    p.line(("c", 306, "사업보고서"), gap=30)
    p.line(("c", 306, f"(제 {year - FIRST_ORDINAL_YEAR} 기)"), gap=24)
    p.line(("c", 306, f"사업연도 {year}년 01월 01일 부터 {year}년 12월 31일 까지"), gap=60)
    p.line(("l", 200, f"회사명 : {filer.name}"))
    p.line(("l", 200, "대표이사 : 홍 길 동"))
    p.line(("l", 200, "본점소재지 : 서울특별시 중구 세종대로 1"))


def _contents(doc: pymupdf.Document) -> None:
    p = DrawnPage(doc)
    p.line(("c", 306, "목 차"), gap=24)
    for n, title in enumerate(
        ("회사의 개요", "사업의 내용", "재무에 관한 사항", "이사의 경영진단"), 1
    ):
        p.line(("l", 80, f"{'Ⅰ Ⅱ Ⅲ Ⅳ'.split()[n - 1]}. {title}"), ("r", 540, str(n * 7)))


def _statement(
    doc: pymupdf.Document,
    filer: Filer,
    year: int,
    title: str,
    rows: tuple[dict[str, int], dict[str, int]],
    instant: bool,
) -> None:
    n = year - FIRST_ORDINAL_YEAR
    p = DrawnPage(doc)
    p.line(("c", 306, title), gap=18)
    for k, y in ((n, year), (n - 1, year - 1)):
        stated = f"{y}.12.31 현재" if instant else f"{y}.01.01 부터 {y}.12.31 까지"
        p.line(("c", 306, f"제 {k} 기 {stated}"))
    p.line(("l", 50, f"{filer.name}와 그 종속기업"), ("r", 560, "(단위 : 백만원)"), gap=18)
    p.line(
        ("l", 50, "과 목"),
        ("c", 330, "주석"),
        ("c", 440, f"제 {n} 기"),
        ("c", 530, f"제 {n - 1} 기"),
    )
    now, before = rows
    for i, label in enumerate(now):
        p.line(
            ("l", 50, label),
            ("c", 330, str(4 + i)),
            ("r", 470, thousands(now[label])),
            ("r", 560, thousands(before[label])),
        )


def _note(doc: pymupdf.Document, filer: Filer, year: int) -> None:
    p = DrawnPage(doc)
    p.line(("l", 50, "7. 재고자산"), gap=18)
    p.line(("l", 50, "보고기간종료일 현재 재고자산의 내역은 다음과 같습니다."), gap=18)
    p.line(("r", 560, "(단위 : 백만원)"))
    p.line(("l", 50, "구 분"), ("c", 440, "당기말"), ("c", 530, "전기말"))
    now, before = filer.inventory(year), filer.inventory(year - 1)
    for label in now:
        p.line(
            ("l", 50, label),
            ("r", 470, thousands(now[label])),
            ("r", 560, thousands(before[label])),
        )
    p.line(
        ("l", 50, "합 계"),
        ("r", 470, thousands(sum(now.values()))),
        ("r", 560, thousands(sum(before.values()))),
    )


def _prose(doc: pymupdf.Document, filer: Filer, year: int) -> None:
    p = DrawnPage(doc)
    p.line(("l", 50, "1. 회사의 개요"), gap=18)
    for text in (
        f"{filer.name}(이하 '회사')는 전자부품과 소재를 제조하여 판매하는 기업입니다.",
        "회사는 국내외 여러 종속기업을 두고 있으며, 본점은 서울특별시에 있습니다.",
        f"{year}년 12월 31일 현재 임직원 수는 {thousands(filer.employees(year))}명입니다.",
        "회사의 주요 제품과 시장에 관한 사항은 사업의 내용에 기재되어 있습니다.",
    ):
        p.line(("l", 50, text))


def write_korean_filings(root: Path, years: tuple[int, ...] = (2022, 2023, 2024)) -> list[Path]:
    """One annual report per filer and year under `root`; their paths."""
    root.mkdir(parents=True, exist_ok=True)
    out = []
    for filer in FILERS:
        for year in years:
            doc = pymupdf.open()
            _cover(doc, filer, year)
            _contents(doc)
            _statement(
                doc,
                filer,
                year,
                "연결 손익계산서",
                (filer.income(year), filer.income(year - 1)),
                False,
            )
            _statement(
                doc,
                filer,
                year,
                "연결 재무상태표",
                (filer.balance(year), filer.balance(year - 1)),
                True,
            )
            _note(doc, filer, year)
            _prose(doc, filer, year)
            path = root / f"{filer.slug}_{year}_annual_report.pdf"
            doc.save(path)
            doc.close()
            out.append(path)
    return out

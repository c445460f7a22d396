"""Quarterly reports of two filers over four quarters, drawn as 10-Qs lay them out: the corpus of
the table-identity test (negatives/table_twins.py).

Each report has a cover (form, quarter, registrant), a contents page, an income statement and an
MD&A table (each with the quarter and the same quarter a year before), and a certification.
From 2024 on the MD&A table renames one row, as filers do. Contents pages and certifications look
alike across every report: boilerplate that must never be a distractor.

Truth, from how the reports are drawn: `page_of(unit)` names each page's filer, quarter and kind,
`printed_quarters` the quarters its tables print.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from evalset_pipeline_tests.support.drawn_page import DrawnPage, sec_cover, thousands


@dataclass(frozen=True)
class Filer:
    name: str
    slug: str
    scale: int


FILERS = (
    Filer("Northwind Traders Inc.", "northwind", 3),
    Filer("Contoso Foods Corp.", "contoso", 7),
)
QUARTERS = ((2023, 1), (2023, 2), (2024, 1), (2024, 2))
COVER, CONTENTS, INCOME, MDA, CERTIFICATION = 1, 2, 3, 4, 5
TABLE_PAGES = (INCOME, MDA)
BOILERPLATE_PAGES = (CONTENTS, CERTIFICATION)
_QUARTER_END = {1: "March 31", 2: "June 30"}
RENAMED = (
    "Service revenue",
    "Subscription and service revenue",
)  # the row's name before 2024, and from 2024


def report_name(filer: Filer, year: int, quarter: int) -> str:
    return f"{filer.slug}_{year}_q{quarter}_10q.pdf"


def _income(filer: Filer, year: int, quarter: int) -> dict[str, int]:
    g = filer.scale * (500 + 23 * (year - 2020) + 5 * quarter) + quarter
    return {
        "Net sales": g * 10 + 3,
        "Cost of sales": g * 6 + 1,
        "Gross profit": g * 4 + 2,
        "Operating expenses": g * 2 + 7,
        "Operating income": g * 2 - 5,
        "Net income": g + 11,
    }


def _mda(filer: Filer, year: int, quarter: int) -> dict[str, int]:
    g = filer.scale * (300 + 17 * (year - 2020) + 3 * quarter) + 2 * quarter
    service = RENAMED[1] if year >= 2024 else RENAMED[0]
    return {
        "Product revenue": g * 5 + 1,
        service: g * 3 + 4,
        "Total revenue": g * 8 + 5,
        "Backlog": g * 2 + 9,
    }


def _cover(doc: pymupdf.Document, filer: Filer, year: int, quarter: int) -> None:
    period = f"For the quarterly period ended {_QUARTER_END[quarter]}, {year}"
    sec_cover(doc, "10-Q", "QUARTERLY REPORT", period, filer.name)


def _contents(doc: pymupdf.Document) -> None:
    p = DrawnPage(doc)
    p.line(("c", 306, "TABLE OF CONTENTS"), gap=20)
    entries = (
        "Item 1. Financial Statements",
        "Condensed Consolidated Balance Sheets",
        "Condensed Consolidated Statements of Operations",
        "Condensed Consolidated Statements of Cash Flows",
        "Notes to Condensed Consolidated Financial Statements",
        "Item 2. Management's Discussion and Analysis",
        "Item 3. Quantitative and Qualitative Disclosures About Market Risk",
        "Item 4. Controls and Procedures",
        "Item 1. Legal Proceedings",
        "Item 1A. Risk Factors",
        "Item 2. Unregistered Sales of Equity Securities",
        "Item 6. Exhibits",
        "Signatures",
    )
    for page, entry in enumerate(entries, start=3):
        p.line(("l", 50, entry), ("r", 560, str(page)))


def _table(
    doc: pymupdf.Document,
    title: str,
    lead: str,
    year: int,
    quarter: int,
    rows: dict[str, tuple[int, int]],
) -> None:
    p = DrawnPage(doc)
    p.line(("c", 306, title), gap=18)
    if lead:
        p.line(("l", 50, lead), gap=18)
    p.line(("r", 560, "(In millions)"), gap=16)
    p.line(("c", 460, f"Three Months Ended {_QUARTER_END[quarter]},"))
    p.line(("r", 480, str(year)), ("r", 560, str(year - 1)), gap=16)
    for label, (now, before) in rows.items():
        p.line(("l", 50, label), ("r", 480, thousands(now)), ("r", 560, thousands(before)))


def _certification(doc: pymupdf.Document, filer: Filer) -> None:
    p = DrawnPage(doc)
    p.line(("c", 306, "CERTIFICATION OF PRINCIPAL EXECUTIVE OFFICER"), gap=20)
    for text in (
        "I, the Chief Executive Officer, certify that:",
        f"1. I have reviewed this quarterly report on Form 10-Q of {filer.name};",
        "2. Based on my knowledge, this report does not contain any untrue statement of a material fact;",
        "3. Based on my knowledge, the financial statements fairly present in all material respects",
        "the financial condition, results of operations and cash flows of the registrant;",
        "4. The registrant's other certifying officers and I are responsible for establishing and",
        "maintaining disclosure controls and procedures for the registrant.",
    ):
        p.line(("l", 50, text))


def _report(filer: Filer, year: int, quarter: int) -> pymupdf.Document:
    doc = pymupdf.open()
    _cover(doc, filer, year, quarter)
    _contents(doc)
    now, before = _income(filer, year, quarter), _income(filer, year - 1, quarter)
    _table(
        doc,
        "CONDENSED CONSOLIDATED STATEMENTS OF OPERATIONS",
        "",
        year,
        quarter,
        {label: (now[label], before[label]) for label in now},
    )
    now, before = _mda(filer, year, quarter), _mda(filer, year - 1, quarter)
    # the prior-year column is printed under this year's row names, as a filer restates its layout
    _table(
        doc,
        "MANAGEMENT'S DISCUSSION AND ANALYSIS",
        "Results of Operations",
        year,
        quarter,
        {
            label: (value, prior)
            for (label, value), prior in zip(now.items(), before.values(), strict=True)
        },
    )
    _certification(doc, filer)
    return doc


def write_quarterly_filings(root: Path) -> list[Path]:
    root.mkdir(parents=True, exist_ok=True)
    out = []
    for filer in FILERS:
        for year, quarter in QUARTERS:
            doc = _report(filer, year, quarter)
            path = root / report_name(filer, year, quarter)
            doc.save(path)
            doc.close()
            out.append(path)
    return out


@dataclass(frozen=True)
class DrawnPageTruth:
    filer: str  # slug
    year: int
    quarter: int
    page: int  # COVER, CONTENTS, ...

    @property
    def printed_quarters(self) -> set[tuple[int, int]]:
        """The quarters a table page prints (its own and the same quarter a year before)."""
        if self.page not in TABLE_PAGES:
            return set()
        return {(self.year, self.quarter), (self.year - 1, self.quarter)}


def page_truth(file_name: str, page_number: int) -> DrawnPageTruth:
    """What the page (file name, 1-based page number) is, from how it was drawn."""
    slug, year, quarter, _ = Path(file_name).stem.split("_")
    return DrawnPageTruth(slug, int(year), int(quarter[1:]), page_number)

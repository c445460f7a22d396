"""Annual reports of two filers over three years, drawn as 10-Ks lay them out, where one figure is
printed on many pages: the pooling test corpus.

Each report has a cover (form, fiscal year, registrant), an income statement with three years of
columns, an MD&A table repeating two of its rows for two years, a five-year summary repeating
rows of both statements, a balance sheet with two year-ends, a note whose unrelated row prints
the same number as that year's operating income (a coincidence), and two pages of prose. The
next year's report prints this year's figures as its comparatives, as real filings do; the other
filer prints the same rows for the same dates with its own figures.

`answering_pages(filer, label, year)` is the truth: every (file, page) that prints a row's figure
for a year, read from how the reports are drawn, not from the pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

from evalset_pipeline_tests.support.drawn_page import DrawnPage, sec_cover, thousands


@dataclass(frozen=True)
class Filer:
    name: str  # as the cover prints it
    slug: str  # for file names
    scale: int

    def income(self, year: int) -> dict[str, int]:
        g = self.scale * (1000 + 37 * (year - 2015)) + year % 7
        return {
            "Net sales": g * 10 + 3,
            "Cost of sales": g * 6 + 1,
            "Gross profit": g * 4 + 2,
            "Selling, general and administrative": g * 2 + 7,
            "Operating income": g * 2 - 5,
            "Net income": g + 11,
        }

    def balance(self, year: int) -> dict[str, int]:
        g = self.scale * (3000 + 91 * (year - 2015)) + year % 5
        return {
            "Cash and cash equivalents": g + 17,
            "Total current assets": g * 3 + 5,
            "Total assets": g * 8 + 9,
            "Total liabilities": g * 5 + 3,
        }

    def note(self, year: int) -> dict[str, int]:
        """Property and equipment; its land happens to equal the year's operating income: the
        same number for an unrelated row (a coincidence)."""
        return {
            "Land and buildings": self.income(year)["Operating income"],
            "Machinery and equipment": self.balance(year)["Total liabilities"] + 13,
        }


FILERS = (
    Filer("Northwind Traders Inc.", "northwind", 3),
    Filer("Contoso Foods Corp.", "contoso", 7),
)
YEARS = (2021, 2022, 2023)
MDA_ROWS = ("Net sales", "Operating income")
SUMMARY_INCOME = ("Net sales", "Net income")
SUMMARY_BALANCE = ("Total assets",)
# page numbers (1-based) of each kind in every report
COVER, INCOME, MDA, SUMMARY, BALANCE, NOTE, PROSE = 1, 2, 3, 4, 5, 6, 7


def report_name(filer: Filer, year: int) -> str:
    return f"{filer.slug}_{year}_10k.pdf"


def _cover(doc: pymupdf.Document, filer: Filer, year: int) -> None:
    sec_cover(
        doc, "10-K", "ANNUAL REPORT", f"For the fiscal year ended December 31, {year}", filer.name
    )


def _table(
    doc: pymupdf.Document,
    title: str,
    lead: str,
    header: str,
    years: list[int],
    rows: dict[str, list[int]],
) -> None:
    p = DrawnPage(doc)
    p.line(("c", 306, title), gap=18)
    if lead:
        p.line(("l", 50, lead), gap=18)
    p.line(("r", 560, "(In millions)"), gap=16)
    right = [560 - 80 * i for i in range(len(years))][::-1]
    p.line(("c", (right[0] + right[-1]) / 2 - 20, header))
    p.line(*[("r", x, str(y)) for x, y in zip(right, years, strict=True)], gap=16)
    for label, values in rows.items():
        p.line(
            ("l", 50, label), *[("r", x, thousands(v)) for x, v in zip(right, values, strict=True)]
        )


def _prose(doc: pymupdf.Document, filer: Filer, heading: str, sentences: list[str]) -> None:
    p = DrawnPage(doc)
    p.line(("l", 50, heading), gap=18)
    for text in sentences:
        p.line(("l", 50, text))


def _report(filer: Filer, year: int) -> pymupdf.Document:
    doc = pymupdf.open()
    _cover(doc, filer, year)
    three = [year, year - 1, year - 2]
    income = {y: filer.income(y) for y in range(year - 4, year + 1)}
    balance = {y: filer.balance(y) for y in range(year - 4, year + 1)}
    _table(
        doc,
        "CONSOLIDATED STATEMENTS OF OPERATIONS",
        "",
        "Year Ended December 31,",
        three,
        {label: [income[y][label] for y in three] for label in income[year]},
    )
    _table(
        doc,
        "MANAGEMENT'S DISCUSSION AND ANALYSIS",
        "Results of Operations",
        "Year Ended December 31,",
        [year, year - 1],
        {label: [income[y][label] for y in (year, year - 1)] for label in MDA_ROWS},
    )
    five = list(range(year, year - 5, -1))
    _table(
        doc,
        "SELECTED FINANCIAL DATA",
        "Five-Year Summary",
        "Year Ended December 31,",
        five,
        {
            **{label: [income[y][label] for y in five] for label in SUMMARY_INCOME},
            **{label: [balance[y][label] for y in five] for label in SUMMARY_BALANCE},
        },
    )
    _table(
        doc,
        "CONSOLIDATED BALANCE SHEETS",
        "",
        "December 31,",
        [year, year - 1],
        {label: [balance[y][label] for y in (year, year - 1)] for label in balance[year]},
    )
    note = {y: filer.note(y) for y in (year, year - 1)}
    _table(
        doc,
        "NOTES TO CONSOLIDATED FINANCIAL STATEMENTS",
        "Note 7. Property and Equipment",
        "December 31,",
        [year, year - 1],
        {label: [note[y][label] for y in (year, year - 1)] for label in note[year]},
    )
    _prose(
        doc,
        filer,
        "Item 1. Business",
        [
            f"{filer.name} makes and sells packaged goods through retail and online channels.",
            "The company operates in one reportable segment and sells in North America.",
            "Our strategy is to grow our brands and improve the productivity of our plants.",
        ],
    )
    _prose(
        doc,
        filer,
        "Item 1A. Risk Factors",
        [
            "Our results may be affected by changes in consumer demand and commodity costs.",
            "We depend on a small number of suppliers for some of our raw materials.",
            "Disruptions at our plants could reduce our ability to meet customer orders.",
        ],
    )
    return doc


def write_annual_reports(root: Path, years: tuple[int, ...] = YEARS) -> list[Path]:
    root.mkdir(parents=True, exist_ok=True)
    out = []
    for filer in FILERS:
        for year in years:
            doc = _report(filer, year)
            path = root / report_name(filer, year)
            doc.save(path)
            doc.close()
            out.append(path)
    return out


def answering_pages(
    filer: Filer, label: str, year: int, years: tuple[int, ...] = YEARS
) -> set[tuple[str, int]]:
    """Every (report file, page) that prints `filer`'s figure of `label` for `year`."""
    out: set[tuple[str, int]] = set()
    for report in years:
        name = report_name(filer, report)
        if label in filer.income(year):
            if report - 2 <= year <= report:
                out.add((name, INCOME))
            if label in MDA_ROWS and report - 1 <= year <= report:
                out.add((name, MDA))
            if label in SUMMARY_INCOME and report - 4 <= year <= report:
                out.add((name, SUMMARY))
        if label in filer.balance(year):
            if report - 1 <= year <= report:
                out.add((name, BALANCE))
            if label in SUMMARY_BALANCE and report - 4 <= year <= report:
                out.add((name, SUMMARY))
        if label in filer.note(year) and report - 1 <= year <= report:
            out.add((name, NOTE))
    return out


def figure_of(filer: Filer, label: str, year: int) -> int:
    return {**filer.income(year), **filer.balance(year), **filer.note(year)}[label]

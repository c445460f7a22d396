"""A DART-like filing's statement pages and their basis (연결 / 별도), read from titles, column
layout and the sections the pages sit in (support: dart_pages.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalset_pipeline.core.index.template_discovery import PageShape, statement_template
from evalset_pipeline.core.metadata.page_subject import PageSubject, read_subjects
from evalset_pipeline.core.metadata.statement_basis import (
    CONSOLIDATED,
    SEPARATE,
    UNMARKED,
    bare_summary,
    basis_marker,
    document_bases,
    section_heading,
)
from evalset_pipeline_tests.core.metadata.drawn import draw_pdf, layers_of
from evalset_pipeline_tests.support.dart_pages import (
    PAGES,
    SECTION_CONSOLIDATED,
    SECTION_CONSOLIDATED_NOTES,
    SECTION_SEPARATE,
    SECTION_SEPARATE_NOTES,
    dart_pages,
    draw_dart_filing,
)


@pytest.fixture(scope="module")
def subjects(tmp_path_factory: pytest.TempPathFactory) -> list[PageSubject]:
    path = draw_dart_filing(tmp_path_factory.mktemp("dart") / "filing.pdf")
    return read_subjects(layers_of(path), "한빛전자 주식회사")


def test_each_page_has_its_statement_and_basis(subjects: list[PageSubject]) -> None:
    got = [(s.statement, s.basis) for s in subjects]
    assert got == [(statement, basis) for _, statement, basis in PAGES]


def test_titles_with_a_basis_word_or_letter_spaced_are_statement_titles(
    subjects: list[PageSubject],
) -> None:
    # "연결 재무상태표" (basis word before the name) and "재 무 상 태 표" (letter-spaced)
    assert subjects[1].statement_source == subjects[4].statement_source == "heading"


def test_a_title_below_the_page_top_starts_the_next_statement(
    subjects: list[PageSubject],
) -> None:
    """The balance sheet's last rows at the top, the income statement's centred title in the
    middle: the page is the income statement's first (its title is on it)."""
    assert subjects[2].statement == "income_statement"
    assert subjects[2].statement_source == "heading"


def test_a_page_of_rows_in_the_same_columns_continues_the_statement(
    subjects: list[PageSubject],
) -> None:
    """The separate balance sheet's second page starts with table rows ("(5)당기법인세부채"
    beside its figures), no title: the statement before it, continued, with its basis."""
    assert (subjects[5].statement, subjects[5].statement_source) == ("balance_sheet", "continued")
    assert subjects[5].basis == SEPARATE


def test_contents_and_notes_naming_a_statement_are_no_statement(
    subjects: list[PageSubject],
) -> None:
    """The contents list the statements; a note is titled "29. 현금흐름표": neither is one, and a
    note takes the basis of the section it sits in."""
    assert subjects[0].statement == "" and subjects[0].basis == ""
    assert subjects[3].statement == "" and subjects[3].basis == CONSOLIDATED
    assert subjects[6].statement == "" and subjects[6].basis == SEPARATE


def test_section_headings_and_title_markers() -> None:
    assert section_heading("3. 연결재무제표 주석") == section_heading("연 결 재 무 제 표 주 석")
    notes = section_heading("3. 연결재무제표 주석")
    assert notes is not None and notes.notes and notes.basis == CONSOLIDATED
    bare = section_heading("4. 재무제표")
    assert bare is not None and not bare.notes and bare.basis == UNMARKED
    assert section_heading("연결재무제표에 대한 감사보고서입니다") is None
    assert basis_marker("별도 포괄손익계산서") == SEPARATE
    assert basis_marker("재무상태표") == UNMARKED  # decided per document
    assert basis_marker("Consolidated Balance Sheets") == CONSOLIDATED
    assert basis_marker("Balance Sheets") == ""


def test_a_document_with_one_basis_keeps_none() -> None:
    """A bare Korean title is the separate one only beside consolidated ones; a document printing
    one basis has nothing to tell apart."""
    assert document_bases([CONSOLIDATED, UNMARKED, ""]) == [CONSOLIDATED, SEPARATE, ""]
    assert document_bases([UNMARKED, UNMARKED]) == ["", ""]
    assert document_bases([CONSOLIDATED, CONSOLIDATED]) == ["", ""]


def test_an_english_filing_of_consolidated_statements_keeps_no_basis(tmp_path: Path) -> None:
    rows = [(f"Line item {i}", f"{100 + i:,}", f"{90 + i:,}") for i in range(12)]
    layers = layers_of(draw_pdf(tmp_path / "e.pdf", [["CONSOLIDATED BALANCE SHEETS", *rows]]))
    [subject] = read_subjects(layers)
    assert subject.statement == "balance_sheet" and subject.basis == ""


def test_the_basis_is_part_of_a_statement_template() -> None:
    """A consolidated balance sheet and a separate one are two statements: two templates."""
    consolidated = PageShape(statement="balance_sheet", basis=CONSOLIDATED)
    separate = PageShape(statement="balance_sheet", basis=SEPARATE)
    assert statement_template(consolidated) == "statement:balance_sheet:consolidated"
    assert statement_template(consolidated) != statement_template(separate)
    assert statement_template(PageShape(statement="balance_sheet")) == "statement:balance_sheet"
    assert statement_template(PageShape()) == ""


def test_the_outline_ends_the_notes_section_printed_headings_cannot(tmp_path: Path) -> None:
    """A dividends table after the separate notes: by printed headings alone it inherits
    "separate" (DART's "6. 배당에 관한 사항" looks like a numbered note); the PDF's outline says the
    notes' section has ended there, so it keeps no basis."""
    pages = [*dart_pages(), _dividends()]
    path = draw_dart_filing(tmp_path / "filing.pdf", pages)
    layers = layers_of(path)
    assert read_subjects(layers, "한빛전자 주식회사")[-1].basis == SEPARATE
    paths = [
        (),
        ("III. 재무에 관한 사항", SECTION_CONSOLIDATED),
        ("III. 재무에 관한 사항", SECTION_CONSOLIDATED),
        ("III. 재무에 관한 사항", SECTION_CONSOLIDATED_NOTES),
        ("III. 재무에 관한 사항", SECTION_SEPARATE),
        ("III. 재무에 관한 사항", SECTION_SEPARATE),
        ("III. 재무에 관한 사항", SECTION_SEPARATE_NOTES),
        ("III. 재무에 관한 사항", "6. 배당에 관한 사항"),
    ]
    outlined = read_subjects(layers, "한빛전자 주식회사", outline_paths=paths)
    assert [s.basis for s in outlined] == [basis for *_, basis in PAGES] + [""]


def _dividends() -> list:
    rows = [("주당액면가액(원)", "100", "100"), ("현금배당금총액(백만원)", "9,410", "9,410")]
    return [
        [("l", 50.0, "6. 배당에 관한 사항")],
        *([("l", 50.0, a), ("r", 400.0, b), ("r", 500.0, c)] for a, b, c in rows),
    ]


def _summary(headings: list[str], cash: str) -> list:
    rows = [("[유동자산]", "1,258,945", "939,159"), ("현금및현금성자산", cash, "147,921")]
    return [
        *([("l", 50.0, h)] for h in headings),
        [("r", 500.0, "(단위 : 백만원)")],
        [("c", 380.0, "제9기 3분기"), ("c", 480.0, "제8기")],
        *([("l", 52.0, a), ("r", 400.0, b), ("r", 500.0, c)] for a, b, c in rows),
    ]


def test_the_summary_of_financial_information_says_its_basis(tmp_path: Path) -> None:
    """DART's "1. 요약재무정보" holds "1. 요약연결재무정보" and then the separate "2. 요약재무정보"
    (bare, like the part's own title): the consolidated summary's pages are consolidated, the
    bare title after it separate, the part's title alone neither (reading: a separate summary
    labelled sufficient for a consolidated question; "회계연도 매출액" asked with no basis).
    The outline names only the part, so the printed headings decide."""
    pages = [
        _summary(["III. 재무에 관한 사항", "1. 요약재무정보", "1. 요약연결재무정보"], "231,230"),
        _summary(["2. 요약재무정보"], "52,310"),
        *dart_pages()[1:],
    ]
    layers = layers_of(draw_dart_filing(tmp_path / "filing.pdf", pages))
    summary = ("III. 재무에 관한 사항", "1. 요약재무정보")
    paths = [summary, summary] + [("III. 재무에 관한 사항", "2. 연결재무제표")] * (len(pages) - 2)
    for outline in (None, paths):
        subjects = read_subjects(layers, "한빛전자 주식회사", outline_paths=outline)
        assert [s.basis for s in subjects[:2]] == [CONSOLIDATED, SEPARATE], outline
    assert bare_summary(section_heading("1. 요약재무정보"))
    assert section_heading("가. 요약연결재무정보").basis == CONSOLIDATED

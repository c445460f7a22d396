"""A PDF's bookmarks as the sections its pages sit in (core/corpus/outline.py)."""

from __future__ import annotations

import pymupdf

from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.core.corpus.outline import OutlineEntry, page_paths, page_sections


def _pdf(path, pages: int, toc: list[list]) -> None:
    doc = pymupdf.open()
    for i in range(pages):
        doc.new_page().insert_text((72, 72), f"page {i + 1}")
    doc.set_toc(toc)
    doc.save(path)


def _pointing(path, pages: int, toc: list[tuple[int, str, int, float]]) -> None:
    """A PDF whose bookmarks point at a height on their page (in points from the top)."""
    doc = pymupdf.open()
    for i in range(pages):
        doc.new_page(width=612, height=792).insert_text((72, 72), f"page {i + 1}")
    doc.set_toc(
        [
            [level, title, page, {"kind": pymupdf.LINK_GOTO, "to": pymupdf.Point(0, y)}]
            for level, title, page, y in toc
        ]
    )
    doc.save(path)


def test_a_page_sits_in_the_bookmark_that_starts_last_before_it(tmp_path):
    _pdf(
        tmp_path / "q.pdf",
        8,
        [
            [1, "Cover", 1],
            [1, "Business segment results", 3],
            [2, "Retail  Banking", 3],  # a parent and its first child on one page
            [2, "Investment Bank", 5],
            [1, "Notes", 8],
        ],
    )
    [doc] = scan_corpus(tmp_path).documents
    retail = doc.outline[2]
    assert (retail.level, retail.title, retail.page) == (2, "Retail Banking", 3)  # spaced as read
    assert retail.top <= 0.2  # a bookmark with no place named points at the page's top
    assert page_sections(doc.outline, doc.page_count) == [
        "Cover",
        "Cover",
        "Retail Banking",  # the most specific heading the page is under
        "Retail Banking",
        "Investment Bank",
        "Investment Bank",
        "Investment Bank",
        "Notes",
    ]


def test_a_document_without_bookmarks_has_no_sections(tmp_path):
    _pdf(tmp_path / "plain.pdf", 2, [])
    [doc] = scan_corpus(tmp_path).documents
    assert doc.outline == () and page_sections(doc.outline, 2) == ["", ""]


def test_pages_before_the_first_bookmark_have_no_section():
    outline = (OutlineEntry(1, "Financial statements", 3),)
    assert page_sections(outline, 4) == ["", "", "Financial statements", "Financial statements"]


def test_a_page_keeps_every_heading_it_is_under_and_a_sibling_closes_a_section():
    outline = (
        OutlineEntry(1, "III. Financial information", 2),
        OutlineEntry(2, "2. Consolidated statements", 2),
        OutlineEntry(2, "3. Notes", 3),
        OutlineEntry(3, "3-1. Segments", 4),
        OutlineEntry(2, "6. Dividends", 5),
        OutlineEntry(1, "IV. Management", 6),
    )
    assert page_paths(outline, 6) == [
        (),
        ("III. Financial information", "2. Consolidated statements"),
        ("III. Financial information", "3. Notes"),
        ("III. Financial information", "3. Notes", "3-1. Segments"),
        ("III. Financial information", "6. Dividends"),  # the notes' section has ended
        ("IV. Management",),
    ]


def test_a_section_starting_low_on_a_page_heads_the_pages_after_it(tmp_path):
    """Note 11 starts halfway down page 3: page 3's top is still Note 10's, so the page is
    split (no one section names its figures) and Note 11 heads the pages after it."""
    _pointing(
        tmp_path / "notes.pdf",
        5,
        [(1, "Note 10 - Investments", 2, 40.0), (1, "Note 11 - Leases", 3, 400.0)],
    )
    [doc] = scan_corpus(tmp_path).documents
    assert [round(e.top, 2) for e in doc.outline] == [0.05, 0.51]
    assert page_paths(doc.outline, 5)[2] == ("Note 10 - Investments",)
    assert page_sections(doc.outline, 5) == [
        "",
        "Note 10 - Investments",
        "",  # split: Note 10's end above, Note 11's start below
        "Note 11 - Leases",
        "Note 11 - Leases",
    ]

"""A PDF's outline (its bookmarks): the section each page sits in, as the filer titled it.

Many filings and reports carry an outline that the text layer cannot give back: a bank's 10-Q
bookmarks each line of business ("Corporate & Investment Bank", pages 30-36) while the pages
themselves print only "Selected metrics" above their tables; a DART filing bookmarks "2.
연결재무제표" and "4. 재무제표" (consolidated and separate statements). A page's section is the
entry that starts last at or before it: the most specific heading the reader is under.

Outlines are the filer's own structure, read with PyMuPDF (`Document.get_toc`); a document
without one has no sections, and nothing else changes for it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import pymupdf

from evalset_pipeline.core.pagetext.text import clean_text

__all__ = ["OutlineEntry", "page_paths", "page_sections", "read_outline"]

# An outline of thousands of entries is an index of every paragraph, not a section structure.
MAX_ENTRIES = 2000
MAX_TITLE = 160


@dataclass(frozen=True)
class OutlineEntry:
    level: int  # 1 for a top-level bookmark
    title: str
    page: int  # 1-based page the bookmark points to


def read_outline(doc: pymupdf.Document) -> tuple[OutlineEntry, ...]:
    """The document's bookmarks that point at one of its pages, in document order; () when it
    has none, or when they cannot be read (an outline is a help, never a reason to reject)."""
    try:
        toc = doc.get_toc(simple=True)
    except Exception:  # a damaged outline tree: the pages are still readable
        return ()
    if len(toc) > MAX_ENTRIES:
        return ()
    out = []
    for level, title, page in toc:
        text = clean_text(str(title))[:MAX_TITLE]
        if text and 1 <= int(page) <= doc.page_count:
            out.append(OutlineEntry(int(level), text, int(page)))
    return tuple(out)


def page_paths(outline: Sequence[OutlineEntry], page_count: int) -> list[tuple[str, ...]]:
    """Each page's headings, outermost first (index 0 is page 1): the entries in force when the
    page starts, one per level ("III. 재무에 관한 사항", "3. 연결재무제표 주석"). Entries are taken
    in page order, stably (some outlines list a sub-heading before its parent's page); () before
    the first entry."""
    entries = sorted(outline, key=lambda e: e.page)
    out: list[tuple[str, ...]] = []
    stack: list[OutlineEntry] = []
    i = 0
    for page in range(1, page_count + 1):
        while i < len(entries) and entries[i].page <= page:
            entry = entries[i]
            while stack and stack[-1].level >= entry.level:
                stack.pop()  # a sibling or a shallower heading closes the ones it follows
            stack.append(entry)
            i += 1
        out.append(tuple(e.title for e in stack))
    return out


def page_sections(outline: Sequence[OutlineEntry], page_count: int) -> list[str]:
    """The section title of each page: its innermost heading (the entry starting last at or
    before it); "" before the first entry."""
    return [path[-1] if path else "" for path in page_paths(outline, page_count)]

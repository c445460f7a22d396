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
    # where on that page it points, as a share of the page's height from the top (0.0 when the
    # bookmark says no place): a heading lower down starts its section mid-page
    top: float = 0.0


def read_outline(doc: pymupdf.Document) -> tuple[OutlineEntry, ...]:
    """The document's bookmarks that point at one of its pages, in document order; () when it
    has none, or when they cannot be read (an outline is a help, never a reason to reject)."""
    try:
        toc = doc.get_toc(simple=False)
    except Exception:  # a damaged outline tree: the pages are still readable
        return ()
    if len(toc) > MAX_ENTRIES:
        return ()
    out = []
    for level, title, page, *dest in toc:
        text = clean_text(str(title))[:MAX_TITLE]
        if text and 1 <= int(page) <= doc.page_count:
            out.append(OutlineEntry(int(level), text, int(page), _top(doc, int(page), dest)))
    return tuple(out)


def _top(doc: pymupdf.Document, page: int, dest: list) -> float:
    """Where a bookmark points on its page, as a share of the height from the top; 0.0 when it
    names no place."""
    point = dest[0].get("to") if dest and isinstance(dest[0], dict) else None
    if point is None:
        return 0.0
    try:
        y, height = float(point.y), float(doc[page - 1].rect.height)
    except (AttributeError, TypeError, ValueError, IndexError):
        return 0.0
    if not (y == y) or height <= 0:  # NaN: no place named
        return 0.0
    return round(min(max(y / height, 0.0), 1.0), 3)


# A bookmark pointing into the top part of a page heads the whole page; one lower down starts its
# section mid-page (the page's top still belongs to the section before).
TOP_SHARE = 0.2


def _starts(entry: OutlineEntry) -> int:
    """The first page the entry heads from its top."""
    return entry.page if entry.top <= TOP_SHARE else entry.page + 1


def page_paths(outline: Sequence[OutlineEntry], page_count: int) -> list[tuple[str, ...]]:
    """Each page's headings, outermost first (index 0 is page 1): the entries in force at the
    page's top, one per level ("III. 재무에 관한 사항", "3. 연결재무제표 주석"). Entries are taken
    in page order, stably (some outlines list a sub-heading before its parent's page); () before
    the first entry. A heading that starts lower on a page is in force from the next page."""
    entries = sorted(outline, key=_starts)
    out: list[tuple[str, ...]] = []
    stack: list[OutlineEntry] = []
    i = 0
    for page in range(1, page_count + 1):
        while i < len(entries) and _starts(entries[i]) <= page:
            entry = entries[i]
            while stack and stack[-1].level >= entry.level:
                stack.pop()  # a sibling or a shallower heading closes the ones it follows
            stack.append(entry)
            i += 1
        out.append(tuple(e.title for e in stack))
    return out


def page_sections(outline: Sequence[OutlineEntry], page_count: int) -> list[str]:
    """The section title of each page: its innermost heading (the entry in force at its top);
    "" before the first entry, and "" for a page on which another section starts lower down
    (its figures may sit under either heading)."""
    split = {e.page for e in outline if e.top > TOP_SHARE}
    return [
        path[-1] if path and page not in split else ""
        for page, path in enumerate(page_paths(outline, page_count), start=1)
    ]

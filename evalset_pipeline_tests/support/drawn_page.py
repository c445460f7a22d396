"""A drawn page of the test corpora's generators: lines of left-, right- or centre-aligned text
at known positions, set as real filings set them (support/korean_text.py: Hangul in the CJK font,
everything else in Helvetica)."""

from __future__ import annotations

import pymupdf

from evalset_pipeline_tests.support.korean_text import put_text

SIZE = 9.0


def thousands(value: int) -> str:
    return f"{value:,}"


class DrawnPage:
    def __init__(self, doc: pymupdf.Document, size: float = SIZE) -> None:
        self.page = doc.new_page(width=612, height=792)
        self.y = 60.0
        self.size = size

    def line(self, *items: tuple[str, float, str], gap: float = 13.0) -> None:
        """One line of (kind, x, text) items, kind "l" / "r" / "c"; then down by `gap` points."""
        for kind, x, text in items:
            put_text(self.page, kind, x, self.y, text, self.size)
        self.y += gap

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


def sec_cover(doc: pymupdf.Document, form: str, report: str, period_line: str, name: str) -> None:
    """An SEC form's cover as filers print it: the Commission, the form, the report kind, the
    period, and the registrant's name above its caption ("FORM 10-K", "ANNUAL REPORT …")."""
    p = DrawnPage(doc)
    p.y = 120.0
    p.line(("c", 306, "UNITED STATES SECURITIES AND EXCHANGE COMMISSION"), gap=18)
    p.line(("c", 306, "Washington, D.C. 20549"), gap=24)
    p.line(("c", 306, f"FORM {form}"), gap=24)
    p.line(
        (
            "c",
            306,
            f"{report} PURSUANT TO SECTION 13 OR 15(d) OF THE SECURITIES EXCHANGE ACT OF 1934",
        )
    )
    p.line(("c", 306, period_line), gap=30)
    p.line(("c", 306, name.upper()))
    p.line(("c", 306, "(Exact name of registrant as specified in its charter)"), gap=24)
    p.line(("c", 306, "Delaware"))

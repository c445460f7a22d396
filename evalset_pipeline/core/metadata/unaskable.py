"""Pages that offer nothing to ask, and why: covers, tables of contents, signatures,
certifications, exhibit lists, pages with no figure at all (for running text: no amount or
percentage, since clause numbers and dates are not figures).

Read from the page's structure (its heading, the shape of its lines) and the vocabulary such
pages share across filers and languages, never from one document's wording. The gold sample
leaves these pages out and reports how many of each it left out; they stay in the corpus as
pages a retriever can (wrongly) return.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from evalset_pipeline.core.metadata.page_subject import PageLine, PageSubject
from evalset_pipeline.core.pagetext.text import HANGUL_SYLLABLES

__all__ = ["skip_reason", "SKIP_REASONS"]

SKIP_REASONS = (
    "cover page",
    "table of contents",
    "signatures",
    "certification",
    "exhibit list",
    "no figures",
)

_CONTENTS = re.compile(r"\b(?:table\s+of\s+contents|contents|index)\b|목\s*차|차\s*례", re.I)
# A contents line: words, then a page number, and no other figure ("Risk Factors ...... 12").
_CONTENTS_LINE = re.compile(
    r"^(?!.*\d[\d,.]{3,})(?=.*[A-Za-z"
    + HANGUL_SYLLABLES
    + r"]{3}).{4,}?(?:\.{2,}|\s)\s*\d{1,3}\s*$"
)
_TRAILING = re.compile(r"(\d{1,3})\s*$")
_PAGE_NUMBER = re.compile(r"^\s*\d{1,3}\s*$")
_SIGNATURES = re.compile(r"^\s*signatures?\s*$|서\s*명", re.I)
_SIGNED = re.compile(r"(?:^|\s)/s/\s*\S")
_CERTIFICATION = re.compile(r"\bcertifications?\b|확\s*인\s*서", re.I)
_EXHIBITS = re.compile(r"\bexhibits?\b(?:\s+index)?|첨부\s*서류", re.I)
_EXHIBIT_ROW = re.compile(r"^\s*\d{1,3}(?:\.\d{1,3})+\*?\s+\S")
_AMOUNT = re.compile(r"[$€£₩]\s?\d|\d\s?(?:%|percent\b)|\d\s?(?:억|조|백만|천)?\s?원", re.I)
_FIGURE = re.compile(
    r"(?<![\w.])[$€£₩]?\(?\d{1,3}(?:,\d{3})+(?:\.\d+)?\)?|\d+(?:\.\d+)?\s?%|\d+\.\d+"
)


def skip_reason(lines: Sequence[PageLine], subject: PageSubject, page_number: int) -> str:
    """Why a page offers nothing to ask ("" when it may)."""
    head = " ".join(ln.text for ln in lines[:4])
    heading = subject.heading_text
    texts = [ln.text for ln in lines]
    if subject.statement:
        return ""
    # page numbers on their own lines count too (a contents table whose numbers sit in a column);
    # a contents page's numbers rise down the page, a table's small figures do not
    numbers = [
        int(m.group(1))
        for t in texts
        if (m := _TRAILING.search(t)) and (_CONTENTS_LINE.match(t) or _PAGE_NUMBER.match(t))
    ]
    rising = sum(b >= a for a, b in zip(numbers, numbers[1:], strict=False)) >= 0.8 * max(
        len(numbers) - 1, 1
    )
    figures = sum(bool(_FIGURE.search(t)) for t in texts)
    if len(numbers) >= 8 and len(numbers) >= 0.3 * len(texts) and figures <= 3 and rising:
        return "table of contents"
    if (
        any(_SIGNATURES.match(t) for t in texts[:6])
        or sum(bool(_SIGNED.search(t)) for t in texts) >= 2
    ):
        return "signatures"
    if _CERTIFICATION.search(head) and subject.layout in ("prose", "mixed", "sparse"):
        return "certification"
    if _EXHIBITS.search(heading) and sum(bool(_EXHIBIT_ROW.match(t)) for t in texts) >= 5:
        return "exhibit list"
    if page_number == 1 and subject.layout == "sparse":
        return "cover page"
    if not any(_FIGURE.search(t) for t in texts):
        return "no figures"
    # Running text states a figure as an amount or a share ("$1.8 billion", "12%"); a clause number
    # ("Section 10.2") or a count of shares in a legal text is not one.
    if subject.layout == "prose" and not any(_AMOUNT.search(t) for t in texts):
        return "no figures"
    return ""

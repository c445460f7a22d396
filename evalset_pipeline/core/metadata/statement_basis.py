"""Basis of a financial-statement page: consolidated (연결) or separate (별도).

A filing that prints both the group's statements and the parent's own prints the same rows twice
with different figures, so a question on one of them is ambiguous until it names the basis. The
basis is read from structure, never from a company's wording:

  heading   a statement's own title says it ("연결 재무상태표", "Consolidated Balance Sheets",
            "별도 포괄손익계산서"); a Korean title without a marker ("재무상태표") in a filing whose
            other titles say 연결 is the separate one (K-IFRS filings title the parent's statements
            bare);
  section   other pages (notes, continuations) sit in a section of the filing: a Korean filing's
            "2. 연결재무제표", "3. 연결재무제표 주석", "4. 재무제표", "5. 재무제표 주석" — a page
            inherits the last such section heading before it in its document.

A document holding only one basis has nothing to tell apart: its pages keep no basis (an English
10-K's statements are all consolidated; naming it would add nothing and split nothing).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from evalset_pipeline.core.pagetext.text import has_hangul

__all__ = [
    "CONSOLIDATED",
    "SEPARATE",
    "UNMARKED",
    "BASES",
    "basis_marker",
    "Section",
    "bare_summary",
    "section_heading",
    "document_bases",
]

CONSOLIDATED, SEPARATE = "consolidated", "separate"
UNMARKED = "unmarked"  # a Korean statement or section title without 연결/별도: decided per document
BASES = (CONSOLIDATED, SEPARATE)

_CONSOLIDATED = re.compile(r"연\s*결|\bconsolidated\b|\bcombined\b", re.I)
_SEPARATE = re.compile(r"별\s*도|개\s*별|\bseparate\b|\bparent[- ]company(?:[- ]only)?\b", re.I)
# A Korean filing's financial-statements section heading, whole: optional numbering, the basis,
# 재무제표, optionally 주석 (notes). Letter-spaced forms ("연 결 재 무 제 표") are read despaced.
_SECTION = re.compile(
    r"^(?:(?:\d{1,2}|[ivx]{1,4})[.)]?)?(?:\(?(?:요약|분기|반기)\)?)*(?P<basis>연결|별도|개별)?"
    r"(?:\(?(?:요약|분기|반기)\)?)*재무제표(?P<notes>(?:에대한)?주석)?$",
    re.I,
)


def basis_marker(title: str) -> str:
    """The basis a statement title names: consolidated, separate, UNMARKED for a Korean title
    naming neither (decided per document), "" for an English one naming neither."""
    if _SEPARATE.search(title):
        return SEPARATE
    if _CONSOLIDATED.search(title):
        return CONSOLIDATED
    return UNMARKED if has_hangul(title) else ""


# A Korean filing's summary of its financial information ("1. 요약재무정보" over "1.
# 요약연결재무정보" and "2. 요약재무정보"): the bare title is both the part's and the separate
# summary's, so it says the separate basis only after the consolidated summary (`read_subjects`).
_SUMMARY = re.compile(
    r"^(?:(?:\d{1,2}|[ivx]{1,4}|[가-하])[.)]?)?요약(?P<basis>연결|별도|개별)?재무정보$", re.I
)


@dataclass(frozen=True)
class Section:
    """A financial-statements section heading: its basis marker and whether it opens the notes;
    `summary` for the summary of financial information."""

    basis: str  # consolidated | separate | UNMARKED
    notes: bool
    summary: bool = False


def section_heading(text: str) -> Section | None:
    """The section a line heads ("3. 연결재무제표 주석", "1. 요약연결재무정보"), or None when it
    heads none."""
    t = re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))
    m = _SECTION.match(t) or _SUMMARY.match(t)
    if m is None:
        return None
    marker = m["basis"] or ""
    basis = CONSOLIDATED if marker == "연결" else SEPARATE if marker else UNMARKED
    return Section(basis, bool(m.groupdict().get("notes")), summary=m.re is _SUMMARY)


def bare_summary(section: Section | None) -> bool:
    """ "요약재무정보" without 연결/별도: the part's title, or the separate summary's after the
    consolidated one's."""
    return section is not None and section.summary and section.basis == UNMARKED


def document_bases(markers: Sequence[str]) -> list[str]:
    """One document's page bases from its pages' markers: UNMARKED is the separate basis where
    the document's other titles say consolidated; a document that does not hold both bases keeps
    none (there is nothing to tell apart)."""
    has_consolidated = CONSOLIDATED in markers
    out = [
        SEPARATE if m == UNMARKED and has_consolidated else "" if m == UNMARKED else m
        for m in markers
    ]
    if not (CONSOLIDATED in out and SEPARATE in out):
        return [""] * len(out)
    return out

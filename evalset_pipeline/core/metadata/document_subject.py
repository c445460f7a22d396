"""A document's subject: what its cover says the whole document is about.

Many documents of one kind share one layout: every Korean budget program sheet ("세부사업
설명자료") prints the same tables for another program, every issue of a brief series the same
cover for another topic. A question that does not name the program or topic is then asked of
every sheet alike. The subject is read off the first page by structure, never from PDF metadata:

- a form's name label ("사 업 명", spaced out by justification; "과제명", "사업명칭" …) with its
  value beside or below it: "(9) 청년일자리창출지원(1043-301)" is the program
  "청년일자리창출지원", code "1043-301" (the leading "(9)" is the sheet's numbering);
- else a sparse cover's title line: the largest type on the page, not the series name (a line
  the running header repeats), a date, an issue number, the publisher or the document's form.
"""

from __future__ import annotations

import re
import statistics
import unicodedata
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from evalset_pipeline.core.metadata.page_subject import PageLine, line_key
from evalset_pipeline.core.metadata.reporting_period import find_form
from evalset_pipeline.core.pagetext.subjects import split_code

__all__ = ["DocumentSubject", "FORM_LABELS", "REPORT_KIND", "find_subject"]

# A form's name labels (justification spaces removed) -> the noun a question names the value by.
FORM_LABELS = {
    "세부사업명": "사업",
    "내역사업명": "사업",
    "사업명칭": "사업",
    "사업명": "사업",
    "연구과제명": "과제",
    "과제명칭": "과제",
    "과제명": "과제",
}
REPORT_KIND = "보고서"  # what a cover title names: the report on that topic

# Leading list numbering of a value: "(9)", "9.", "9)", "①", "가."
_NUMBERING = re.compile(r"^\s*(?:\(\d{1,3}\)|\d{1,3}[.)]|[\u2460-\u2473]|[가-하][.)])\s*")
_SEPARATOR = re.compile(r"^\s*[:：]?\s*")
# Cover lines that are never the title: a date, an issue number, the publisher, the contents.
_NOT_TITLE = re.compile(
    r"^[\d\s.\-/년월일호()]*$|\d+\s*-\s*\d+\s*호|제\s*\d+\s*호|\b(?:vol|no)\.?\s*\d"
    r"|발\s*행|작\s*성|펴\s*낸|목\s*차|contents|publisher",
    re.I,
)
_TITLE_SCALE = 1.6  # a title's type is this much larger than the cover's median line
_SPARSE_COVER = 40  # lines: a cover with more is a page of content, not a title page
_MAX_TITLE = 60  # characters


@dataclass(frozen=True)
class DocumentSubject:
    name: str = ""  # "청년일자리창출지원"
    code: str = ""  # "1043-301", "" when none is printed
    kind: str = ""  # 사업 | 과제 | 보고서: the noun a question names it by
    source: str = ""  # "label:사업명" | "cover-title" | ""

    @property
    def text(self) -> str:
        """As a question names it: "청년일자리창출지원(1043-301)"."""
        return f"{self.name}({self.code})" if self.code and self.name else self.name


def _compact(text: str) -> str:
    return re.sub(r"\s+", "", unicodedata.normalize("NFKC", text))


def _value(text: str, kind: str, label: str) -> DocumentSubject | None:
    """The name (and code) a label's value states; None for no name (a header, a figure)."""
    text = _NUMBERING.sub("", unicodedata.normalize("NFKC", text)).strip()
    name, code = split_code(text)
    name = re.sub(r"\s+", " ", name).strip(" :·-")
    if not re.search(r"[가-힣A-Za-z]", name) or _compact(name) in FORM_LABELS:
        return None
    if re.fullmatch(r"[\d\s.,%년()\-]+", name) or len(name) > _MAX_TITLE:
        return None
    return DocumentSubject(name, code, kind, f"label:{label}")


def _label_at(text: str) -> tuple[str, str] | None:
    """(label, what follows it on the line) when a line starts with a form's name label."""
    compact_line = _compact(text)
    for label in FORM_LABELS:  # longest first within each family: "사업명칭" before "사업명"
        if not compact_line.startswith(label):
            continue
        pattern = r"\s*".join(map(re.escape, label))
        text = unicodedata.normalize("NFKC", text)
        # the label ends at a space or a colon: "사업명세서" is no label
        m = re.match(r"\s*" + pattern + r"(?=$|\s|[:：])", text)
        if m:
            return label, _SEPARATOR.sub("", text[m.end() :])
    return None


def _beside_or_below(label: PageLine, lines: Sequence[PageLine]) -> list[PageLine]:
    """Lines right of the label on its band, then the lines below it, nearest first."""
    height = max(label.y1 - label.y0, 1.0)
    middle = (label.y0 + label.y1) / 2
    beside = [
        ln
        for ln in lines
        if ln is not label and abs((ln.y0 + ln.y1) / 2 - middle) < height / 2 and ln.x0 >= label.x1
    ]
    below = [ln for ln in lines if ln.y0 >= label.y1 - height / 4 and ln not in beside]
    beside.sort(key=lambda ln: ln.x0)
    below.sort(key=lambda ln: (ln.y0, ln.x0))
    return beside + below[:1]


def _labelled(lines: Sequence[PageLine]) -> DocumentSubject | None:
    for line in lines:
        found = _label_at(line.text)
        if found is None:
            continue
        label, rest = found
        if rest.strip():
            subject = _value(rest, FORM_LABELS[label], label)
            if subject:
                return subject
            continue
        for other in _beside_or_below(line, lines):
            subject = _value(other.text, FORM_LABELS[label], label)
            if subject:
                return subject
        # the first label whose value is no name (a table's header) is not the form's
    return None


def _cover_title(lines: Sequence[PageLine], running: Collection[str]) -> DocumentSubject | None:
    if not lines or len(lines) > _SPARSE_COVER:
        return None
    heights = [ln.y1 - ln.y0 for ln in lines]
    floor = _TITLE_SCALE * statistics.median(heights)

    def candidate(ln: PageLine) -> bool:
        text = ln.text.strip()
        key = line_key(text)
        return (
            bool(re.search(r"[가-힣A-Za-z]{2}", text))
            and len(text) <= _MAX_TITLE
            and not _NOT_TITLE.search(text)
            and not any(key in r for r in running)  # the series name the running header repeats
            and not find_form(text)  # a filing's cover reads "분기보고서": its form, no topic
            and (ln.y1 - ln.y0) >= floor
        )

    titles = [ln for ln in lines if candidate(ln)]
    if not titles:
        return None
    best = max(titles, key=lambda ln: ln.y1 - ln.y0)
    height = best.y1 - best.y0
    # a title wrapped over two lines of one type size: the line right under it continues it
    parts = [best]
    for ln in sorted(titles, key=lambda ln: ln.y0):
        if (
            ln is not best
            and abs((ln.y1 - ln.y0) - height) <= 0.1 * height
            and 0 <= ln.y0 - parts[-1].y1 <= 0.6 * height
        ):
            parts.append(ln)
    name = re.sub(r"\s+", " ", " ".join(p.text for p in parts)).strip()
    return DocumentSubject(name, "", REPORT_KIND, "cover-title")


def find_subject(
    cover_pages: Sequence[Sequence[PageLine]],
    running: Collection[str] = (),
) -> DocumentSubject:
    """The subject read off the first pages (`cover_pages`: their lines, top to bottom):
    a form's name label on either, else the first page's title. `running`: line keys of the
    document's running header and footer."""
    for lines in cover_pages:
        labelled = _labelled(lines)
        if labelled:
            return labelled
    if cover_pages:
        titled = _cover_title(cover_pages[0], running)
        if titled:
            return titled
    return DocumentSubject()

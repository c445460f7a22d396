"""What a page reports (its subject) and what kind of page it is, read from its structure.

  statement  for a primary financial statement: which one (income_statement, comprehensive_income,
             balance_sheet, cash_flows, equity), from a short heading line in the title block of
             a page that is mostly figures, or from a centred title standing alone on its row
             further down (a filing that runs its statements on starts the next one mid-page); a
             figure page right after a statement with no title of its own continues it (its first
             lines are no titles, or are table rows in the page before's figure columns). Pages
             that list several statements (an index) are not one, nor is a note in a notes section.
  basis      consolidated | separate, from the statement's title or the section the page sits in
             (`statement_basis`), where the document prints both
  heading    the page's first heading line: the top lines after the document's running header and
             footer lines (repeated on many of its pages) are dropped, normalised so that equal
             subjects compare equal across filings and companies (case, numbering, dates, periods,
             the document's own entity name, "consolidated", "condensed", "(unaudited)", "(continued)")
  subject    the `metric` axis value: the statement, else a measure the heading names (revenue,
             operating income, headcount), else the normalised heading
  layout     tabular | prose | mixed | sparse: how figures and sentences fill the page

Statement names are the accounting vocabulary every filer uses (GAAP and IFRS, English and
Korean), never a company's own wording.
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from evalset_pipeline.core.metadata.statement_basis import (
    CONSOLIDATED,
    SEPARATE,
    UNMARKED,
    Section,
    bare_summary,
    basis_marker,
    document_bases,
    section_heading,
)
from evalset_pipeline.core.pagetext.page_reader import metric_of
from evalset_pipeline.core.pagetext.periods import find_periods

__all__ = [
    "PageLine",
    "PageSubject",
    "page_lines",
    "line_counts",
    "running_lines",
    "read_subjects",
    "STATEMENTS",
    "line_key",
]

_OF = r"statements?\s+of\s+(?:consolidated\s+|condensed\s+|combined\s+)*"
# A Korean title's basis and form words before the statement's name ("연결 재무상태표",
# "요약분기연결재무상태표", "별도 포괄손익계산서"): part of the title, not another line's words.
_KO = r"(?:(?:요약|분기|반기|연결|별도|개별)\s*)*"
STATEMENTS: dict[str, re.Pattern[str]] = {
    "comprehensive_income": re.compile(
        r"(?:" + _OF + r")?comprehensive\s+(?:income|loss|earnings)(?:\s+loss)?(?:\s+statements?)?"
        r"|" + _KO + r"포괄\s*손익(?:계산서)?",
        re.I,
    ),
    "income_statement": re.compile(
        _OF + r"(?:income|operations|earnings|(?:net\s+)?loss|profit\s+or\s+loss)"
        r"(?:\s+loss)?|income\s+statements?|" + _KO + r"손익\s*계산서",
        re.I,
    ),
    "balance_sheet": re.compile(
        r"balance\s+sheets?|" + _OF + r"financial\s+(?:position|condition)"
        r"|" + _KO + r"(?:재무\s*상태표|대차\s*대조표)",
        re.I,
    ),
    "cash_flows": re.compile(
        _OF + r"cash\s+flows?|cash\s+flows?\s+statements?|" + _KO + r"현금\s*흐름표", re.I
    ),
    "equity": re.compile(
        _OF
        + r"(?:changes\s+in\s+)?(?:(?:stockholders|shareholders|shareowners|owners|members)['’`]?\s*)?"
        r"(?:equity|deficit)(?:\s+deficit)?|(?:stockholders|shareholders|shareowners)['’`]?\s*equity\s+statements?"
        r"|" + _KO + r"자본\s*변동표",
        re.I,
    ),
}
# Some PDFs split words in their text layer ("Statement of Incom e"): the same names, spaces optional.
_DESPACED = {
    name: re.compile(p.pattern.replace(r"\s+", r"\s*"), re.I) for name, p in STATEMENTS.items()
}
_TOP_SHARE = 0.38  # headings sit in the top part of the page
_NUMBER = re.compile(r"^\(?[$€£₩]?\(?-?\d[\d,]*(?:\.\d+)?\)?%?$")
# A figure, not a page number or a year: grouped thousands, decimals, a percentage, a currency,
# an integer of three digits or more.
_FIGURE_TOKEN = re.compile(r"\d,\d{3}|\d\.\d|%|[$€£₩]|^\(?(?!(?:19|20)\d{2}\b)\d{3,}\)?$")
_CONTINUED = re.compile(r"\(?\bcontinued\b\)?|\(계속\)", re.I)
_NOISE = re.compile(
    r"\((?:unaudited|continued|audited)\)|\bunaudited\b|\bcontinued\b|\bconsolidated\b|\bcondensed\b|\bcombined\b|"
    r"\band\s+subsidiaries\b|\band\s+its\s+subsidiaries\b|\(?in\s+(?:millions|thousands|billions)[^)]*\)?|"
    r"^\s*(?:item|part|note|section|chapter)\s+[\divxlc]+[a-z]?\s*[.:—–-]?|^\s*[\divxlc]{1,4}[.)]\s+|"
    r"table\s+of\s+contents|\bpage\b|^\s*(?:u\.?\s?s\.?\s+)?gaap\b|^\s*ifrs\b",
    re.I,
)


@dataclass(frozen=True)
class PageLine:
    text: str
    y0: float
    y1: float
    x0: float
    x1: float = 0.0


@dataclass(frozen=True)
class PageSubject:
    statement: str = ""
    statement_source: str = ""  # heading | continued | ""
    heading: str = ""  # normalised first heading
    heading_text: str = ""  # as printed
    subject: str = ""  # the metric axis value
    layout: str = "sparse"  # tabular | prose | mixed | sparse
    numeric_share: float = 0.0
    lines: int = 0
    # consolidated | separate | "" (`statement_basis`: only where a document holds both)
    basis: str = ""


def page_lines(layer: dict[str, Any]) -> list[PageLine]:
    """Text lines of a page (PyMuPDF's block/line grouping of its words), top to bottom."""
    groups: dict[tuple[int, int], list] = {}
    for w in layer.get("words") or []:
        if len(w) >= 7:
            groups.setdefault((int(w[5]), int(w[6])), []).append(w)
    out = []
    for words in groups.values():
        words.sort(key=lambda w: float(w[0]))
        out.append(
            PageLine(
                " ".join(str(w[4]) for w in words),
                min(float(w[1]) for w in words),
                max(float(w[3]) for w in words),
                min(float(w[0]) for w in words),
                max(float(w[2]) for w in words),
            )
        )
    out.sort(key=lambda ln: (round(ln.y0, 0), ln.x0))
    return out


_DIGITS = re.compile(r"\d+")
_SPACES = re.compile(r"\s+")


@functools.lru_cache(maxsize=1 << 16)
def line_key(text: str) -> str:
    """A line with its numbers blanked: page numbers and dates do not stop a header from repeating.
    (Cached: every line is keyed several times, and running headers repeat on every page.)"""
    return _DIGITS.sub(
        "#", _SPACES.sub(" ", unicodedata.normalize("NFKC", text)).strip().casefold()
    )


def line_counts(pages: Sequence[Sequence[PageLine]]) -> Counter[str]:
    """On how many of a document's pages each line key appears."""
    counts: Counter[str] = Counter()
    for lines in pages:
        counts.update({line_key(ln.text) for ln in lines})
    return counts


def running_lines(
    pages: Sequence[Sequence[PageLine]], min_share: float = 0.3, counts: Counter[str] | None = None
) -> set[str]:
    """Keys of lines repeated on at least `min_share` of a document's pages (and on 3 or more);
    `counts`: the pages' `line_counts`, when the caller has them already."""
    counts = line_counts(pages) if counts is None else counts
    floor = max(3, min_share * len(pages))
    return {k for k, c in counts.items() if c >= floor}


def _statement_of(core: str) -> str:
    """The statement a normalised heading line names, whole, or ""."""
    for patterns, text in ((STATEMENTS, core), (_DESPACED, core.replace(" ", ""))):
        best: tuple[int, int, str] | None = None
        for name, pattern in patterns.items():
            m = pattern.search(text)
            if m and (best is None or m.start() < best[0]):
                best = (m.start(), m.end() - m.start(), name)
        # The whole heading line is the statement's name ("... Data", "... Reconciliation", "Other
        # comprehensive income" are sections about a statement, not the statement).
        if best and best[0] == 0 and best[1] >= len(text) - 1:
            return best[2]
    return ""


def normalise_heading(text: str, entity: str = "") -> str:
    t = unicodedata.normalize("NFKC", text)
    for m in reversed(find_periods(t)):
        t = t[: m.start] + " " + t[m.end :]
    if entity:
        t = re.sub(re.escape(entity), " ", t, flags=re.I)
        for word in re.findall(r"[A-Za-z][\w&.'’-]{2,}", entity):
            if word.lower() not in {"inc", "inc.", "the", "and", "company", "corporation"}:
                t = re.sub(r"(?<!\w)" + re.escape(word) + r"(?!\w)", " ", t, flags=re.I)
    previous = None
    while previous != t:
        previous, t = t, _NOISE.sub(" ", t)
    t = re.sub(
        r"(?:years?|months?|quarters?|weeks?|periods?)\s+end(?:ed|ing)\b.*$", " ", t, flags=re.I
    )
    t = re.sub(r"[\d$€£₩%#]+", " ", t)
    t = re.sub(r"[^\w&\s]+", " ", t)
    t = re.sub(r"\s+", " ", t).strip()
    previous = None
    while previous != t:
        previous, t = (
            t,
            re.sub(r"(?:^|\s)(?:and|of|the|for|to|in|a|an|as|at)\s*$", "", t, flags=re.I).strip(),
        )
    t = t.casefold()
    return t if len(re.sub(r"[^\w]", "", t)) >= 3 else ""


def _layout(lines: Sequence[PageLine]) -> tuple[str, float]:
    """A page is "sparse" (too little to ask about) only when it states no figure: a chart of five
    labelled bars under a title has fewer than 25 words and is what a visual retriever is for."""
    tokens = [tok for ln in lines for tok in ln.text.split()]
    figures = sum(1 for tok in tokens if _NUMBER.match(tok) and _FIGURE_TOKEN.search(tok))
    if not tokens or (len(tokens) < 25 and figures < 2):
        return "sparse", 0.0
    numeric = sum(1 for tok in tokens if _NUMBER.match(tok)) / len(tokens)
    long_lines = sum(1 for ln in lines if len(ln.text.split()) >= 10) / max(len(lines), 1)
    if numeric >= 0.18:
        return ("mixed" if long_lines >= 0.25 else "tabular"), numeric
    return ("prose" if long_lines >= 0.25 else "mixed"), numeric


_SPAN_LINE = re.compile(
    r"\b(?:three|six|nine|twelve|fifty-two|fifty-three|\d{1,2})[- ](?:months?|weeks?)\b|"
    r"\b(?:years?|quarters?|periods?)\s+end(?:ed|ing)\b",
    re.I,
)


def _heading_like(text: str) -> bool:
    """A title, not a line of prose or a column header: short, starts like a title, does not run on,
    and carries no "N months ended" span (those head columns, not pages)."""
    words = text.split()
    if not 0 < len(words) <= 12 or _NUMBER.match(words[0]) or _SPAN_LINE.search(text):
        return False
    first = words[0].lstrip("(\"'“‘•-–—")
    if first[:1].islower() and not _CONTINUED.fullmatch(text.strip()):
        return False  # a sentence carried over from the page before
    if text.rstrip().endswith((",", ";")) or (text.rstrip().endswith(".") and len(words) > 6):
        return False
    return True


def _heading_lines(lines: Sequence[PageLine], running: set[str], height: float) -> list[PageLine]:
    top = [ln for ln in lines if ln.y1 <= _TOP_SHARE * height and line_key(ln.text) not in running]
    return [ln for ln in top if _heading_like(ln.text)]


def _alone(line: PageLine, lines: Sequence[PageLine]) -> bool:
    """A line standing alone on its row: a title or a section heading, not a table row's label
    (whose figures share its row)."""
    height = max(line.y1 - line.y0, 1.0)
    return not any(
        other is not line and min(line.y1, other.y1) - max(line.y0, other.y0) > 0.5 * height
        for other in lines
    )


def _centred(line: PageLine, width: float) -> bool:
    """A title is set across the page's middle (a row label starts at the left margin)."""
    return width > 0 and abs((line.x0 + line.x1) / 2 - width / 2) <= 0.12 * width


def _titled_below(
    lines: Sequence[PageLine], running: set[str], width: float, entity: str
) -> tuple[PageLine, str] | None:
    """A statement that begins below the page's top (a filing runs its statements on: the balance
    sheet's last rows, then the income statement's title in the middle of the page): its title is
    a short line alone on its row and centred, whole a statement's name. None when there is none,
    or when the page lists more than two (an index of statements)."""
    found = [
        (ln, st)
        for ln in lines
        if line_key(ln.text) not in running
        and _heading_like(ln.text)
        and _alone(ln, lines)
        and _centred(ln, width)
        and (st := _statement_of(normalise_heading(ln.text, entity)))
    ]
    if not found or len({st for _, st in found}) > 2:
        return None
    return found[0]


def _figure_columns(lines: Sequence[PageLine]) -> list[float]:
    """Right edges of a page's figure columns (figures are right-aligned), 10-pt buckets seen on
    two rows or more (a statement's last page may hold two rows)."""
    edges = Counter(
        round(ln.x1 / 10) * 10 for ln in lines if ln.x1 and _NUMBER.match(ln.text.strip())
    )
    return sorted(float(x) for x, n in edges.items() if n >= 2)


def _same_columns(page: Sequence[PageLine], before: Sequence[PageLine]) -> bool:
    """The page's figure columns are the page before's: one table continued."""
    now, then = _figure_columns(page), _figure_columns(before)
    return bool(now) and all(any(abs(a - b) <= 10 for b in then) for a in now)


def _sections(
    lines: Sequence[PageLine], running: set[str], height: float, section: Section | None = None
) -> tuple[Section | None, Section | None]:
    """The financial-statements section headings a page prints (`statement_basis`): the one
    heading the page from its top part, and the last one (in force for the pages after). A page
    listing three or more is a table of contents: none. `section`: the one in force before the
    page: a bare "요약재무정보" is the separate summary only after the consolidated one."""
    found = []
    for ln in lines:
        if line_key(ln.text) in running:
            continue
        # the heading first: `_alone` compares the line with every other (quadratic per page)
        sec = section_heading(ln.text)
        if sec is None or not _alone(ln, lines):
            continue
        if bare_summary(sec):
            if not (section and section.summary and section.basis == CONSOLIDATED):
                continue  # the part's title, over both summaries
            sec = Section(SEPARATE, False, summary=True)
        found.append((ln, sec))
        section = sec
    if not found or len(found) >= 3:
        return None, None
    top = next((sec for ln, sec in found if ln.y1 <= _TOP_SHARE * height), None)
    return top, found[-1][1]


def _outlined(path: Sequence[str], section: Section | None) -> Section | None:
    """The innermost financial-statements section among a page's outline headings; under the
    summary part's bare title, the summary already in force (the page's own headings say which)."""
    found = next((s for s in map(section_heading, reversed(path)) if s is not None), None)
    if bare_summary(found):
        return section if section is not None and section.summary else None
    return found


def read_subjects(
    layers: Sequence[dict[str, Any]],
    entity: str = "",
    lines_of_pages: Sequence[Sequence[PageLine]] | None = None,
    counts: Counter[str] | None = None,
    outline_paths: Sequence[tuple[str, ...]] | None = None,
) -> list[PageSubject]:
    """Subjects of one document's pages, in page order (continuation pages need their predecessor).
    `lines_of_pages` / `counts`: the pages' `page_lines` / `line_counts`, when the caller has them;
    `outline_paths`: each page's headings in the PDF's outline (`corpus.outline.page_paths`),
    when the document has one."""
    all_lines = (
        list(lines_of_pages)
        if lines_of_pages is not None
        else [page_lines(layer) for layer in layers]
    )
    running = running_lines(all_lines, counts=counts)
    out: list[PageSubject] = []
    markers: list[str] = []  # each page's basis marker, decided for the document at the end
    section: Section | None = None  # the financial-statements section in force
    before: Sequence[PageLine] = ()
    for i, (layer, lines) in enumerate(zip(layers, all_lines, strict=False)):
        if outline_paths and i < len(outline_paths) and outline_paths[i]:
            # The outline says which section the page opens in: the innermost financial-
            # statements heading over it, or none once the filing has moved on ("6. 배당에 관한
            # 사항" after "5. 재무제표 주석") -- which printed headings alone cannot tell.
            section = _outlined(outline_paths[i], section)
        height = float(layer.get("height") or max((ln.y1 for ln in lines), default=1.0))
        width = float(layer.get("width") or max((ln.x1 for ln in lines), default=0.0))
        layout, numeric = _layout(lines)
        heads = _heading_lines(lines, running, height)
        normalised = [
            normalise_heading(ln.text, entity) for ln in heads
        ]  # once per line: find_periods is costly
        named = [(ln, core) for ln, core in zip(heads, normalised, strict=False) if core]
        top_section, last_section = _sections(lines, running, height, section)
        in_force = top_section or section
        section = last_section or section
        statement, source, marker = "", "", ""
        # A statement is mostly figures; a page in a notes section is a note, whatever its title
        # ("29. 현금흐름표" is the note on the cash flow statement).
        if layout in ("tabular", "mixed") and numeric >= 0.12 and not (in_force and in_force.notes):
            # The statement's name is among the page's first headings (entity and section lines may precede it).
            first = [core for core in normalised[:6] if core]
            found = [st for st in map(_statement_of, first) if st]
            below = None if found else _titled_below(lines, running, width, entity)
            if found and len(set(found)) <= 2 and any(map(_statement_of, first[:3])):
                statement, source = found[0], "heading"
                title = next(ln for ln, core in named if _statement_of(core) == statement)
                marker = basis_marker(title.text)
            elif below is not None:
                statement, source, marker = below[1], "heading", basis_marker(below[0].text)
            elif (
                not found
                and out
                and out[-1].statement
                and _continues(heads, normalised, lines, before)
            ):
                statement, source, marker = out[-1].statement, "continued", markers[-1]
        if statement and marker in ("", UNMARKED) and in_force and in_force.basis != UNMARKED:
            marker = in_force.basis  # a bare title in the consolidated section is consolidated
        if not statement:
            marker = in_force.basis if in_force else ""
        heading_line, heading = named[0] if named else (None, "")
        measure = metric_of(heading_line.text) if heading_line else None
        subject = statement or measure or heading
        out.append(
            PageSubject(
                statement,
                source,
                heading,
                heading_line.text if heading_line else "",
                subject,
                layout,
                round(numeric, 3),
                len(lines),
            )
        )
        markers.append(marker)
        before = lines
    return [replace(s, basis=b) for s, b in zip(out, document_bases(markers), strict=True)]


def _continues(
    heads: Sequence[PageLine],
    normalised: Sequence[str],
    lines: Sequence[PageLine],
    before: Sequence[PageLine],
) -> bool:
    """A figure page without a title of its own continues the statement before it: it says
    "(continued)", or its first heading lines are no titles (one word, or blank once normalised),
    or its top lines are all table rows (labels beside figures) in the page before's columns."""
    if any(_CONTINUED.search(ln.text) for ln in heads[:4]):
        return True
    if not any(
        core
        for ln, core in zip(heads[:2], normalised[:2], strict=False)
        if len(ln.text.split()) >= 2
    ):
        return True
    titles = [
        core for ln, core in zip(heads[:2], normalised[:2], strict=False) if _alone(ln, lines)
    ]
    return not any(titles) and _same_columns(lines, before)

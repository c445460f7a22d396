"""Three-way labels for every page of a kept question's pool, by one rule:

  sufficient  the page alone answers the question as asked (under its qualifiers)
  supporting  the same measure or the same table for another period, entity or basis, or a
              figure the answer is computed from
  irrelevant  neither; a page that prints the answer's figure for an unrelated row is irrelevant,
              and its rationale says it is a coincidence

A distractor can still be `sufficient` for an under-specified question (that is what makes it
acceptable) and is usually `supporting` for a well-posed one: topically right, evidentially empty.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from evalset_pipeline.core.evidence.completeness import asked_period_cells, same_row
from evalset_pipeline.core.evidence.index import EvidenceCell, specific_label
from evalset_pipeline.core.evidence.pools import ANSWER
from evalset_pipeline.core.judging.base import PageContext, PageView, VLMBackend
from evalset_pipeline.core.pagetext.text import has_hangul
from evalset_pipeline.core.reader.korean_columns import korean_header_measure
from evalset_pipeline.core.reader.table_judge import possessive_readings, segment_owner
from evalset_pipeline.core.reader.table_questions import (
    FUNCTION_WORDS,
    content_words,
    named_alike,
    parse_table_question,
    same_item,
    same_label,
    section_measure,
)

REVISION = "revision"  # axis of a later filing that restates the gold's figure (a distractor)
COINCIDENCE = "coincidence: "  # rationale prefix of a page that prints the figure for another row


@dataclass(frozen=True)
class CandidateUnit:
    item_id: str
    page: PageView
    role: str  # gold | distractor | pooled
    axis: str  # "" for the gold


@dataclass(frozen=True)
class CandidateLabel:
    item_id: str
    unit_id: str
    role: str
    axis: str
    label: str
    rationale: str


def label_candidates(
    questions: dict[str, tuple[str, str]],  # item_id -> (question, answer)
    candidates: Sequence[CandidateUnit],
    backend: VLMBackend,
) -> list[CandidateLabel]:
    results = backend.label([(*questions[c.item_id], c.page) for c in candidates])
    return [
        CandidateLabel(c.item_id, c.page.unit_id, c.role, c.axis, r.label, r.rationale)
        for c, r in zip(candidates, results, strict=False)
    ]


def as_same_table(
    label: CandidateLabel,
    statement: str,
    gold_statement: str,
    page: PageContext | None,
    gold: PageContext | None,
) -> CandidateLabel:
    """A page labelled irrelevant that is the gold's own primary statement (`page_subject`'s
    balance_sheet, cash_flows, ...) for another entity or period is the same table for another
    entity or period: supporting, whatever its rows are named (a reader sees one statement; a
    row-by-row labeller sees "Revenue" and "Net sales"). The same statement of the same filing
    and period (its continuation page) is not another entity or period: left as labelled."""
    if label.label != "irrelevant" or not statement or statement != gold_statement:
        return label
    if page is None or gold is None:
        return label
    other = [
        axis
        for axis, differs in (
            ("entity", page.entity and gold.entity and not page.same_filer(gold)),
            ("period", page.period and gold.period and page.period != gold.period),
            ("basis", page.basis and gold.basis and page.basis != gold.basis),
        )
        if differs
    ]
    if not other:
        return label
    return replace(
        label,
        label="supporting",
        rationale=f"the gold's statement ({statement}) for another {' and '.join(other)}. "
        + label.rationale,
    )


def asked_cells(question: str, gold_cells: Sequence[EvidenceCell]) -> list[EvidenceCell]:
    """The gold's cells printing the answer in the row the question asks (a table question's
    row label, `same_item`; else a label whose every content word the question says): not
    another row of the gold that prints the same number."""
    table_q = parse_table_question(question)
    if table_q is not None:
        # a Korean "A에 대한 B" / "A의 B" is row A (or B) as the judge reads it
        # (`possessive_readings`): "양우종합건설에 대한 채무보증" is the row "양우종합건설"
        rows = {table_q.label}
        if table_q.language == "ko":
            rows |= {reading.label for reading in possessive_readings(table_q)}
        return [
            g
            for g in asked_period_cells(question, gold_cells)
            if any(same_item(row, g.label) for row in rows)
        ]
    asked = content_words(question)
    return [g for g in gold_cells if content_words(g.label) and content_words(g.label) <= asked]


def _named(label: str) -> bool:
    """A label written as a name, every word capitalised ("Developed Rest of World"), rather than
    as a measure ("Segment net income")."""
    words = [w for w in re.findall(r"[^\W\d_]{3,}", label) if w.casefold() not in FUNCTION_WORDS]
    return bool(words) and all(w[0].isupper() for w in words)


def prints_gold_row(
    cells: Sequence[EvidenceCell], gold_cells: Sequence[EvidenceCell], by_section: bool
) -> EvidenceCell | None:
    """The first cell of a page printing the row the gold answers from, for any period, company
    or basis (what the rule calls the same measure elsewhere: supporting): a label of the same
    words ("Revenues, net" for "Net revenues"; not "Income before provision for income taxes"
    for "Provision for income taxes"). A row of one word ("Services"), or a name asked under its
    section ("Europe, Middle East and Africa under Net revenues by geographic region"), says
    where a figure belongs, not what it is: it must also sit under a section of the same measure
    (EMEA's operating income is not EMEA's revenue). A measure asked under its section ("Segment
    net income under Life Sciences") is the same measure under any section."""
    for g in gold_cells:
        if not specific_label(g.label):
            continue
        located = (by_section and _named(g.label)) or len(content_words(g.label)) < 2
        for c in cells:
            if not same_label(g.label, c.label):
                continue
            if located and not (
                (
                    g.section
                    and c.section
                    and named_alike(section_measure(g.section), section_measure(c.section))
                )
                or _same_column_measure(g, c)
            ):
                continue
            return c
    return None


def _same_column_measure(g: EvidenceCell, c: EvidenceCell) -> bool:
    """Both cells sit in sub-columns of one measure: a related party's row asked in its
    "기타채권 등" column is located by that measure ("기타채권" next quarter), as a section
    locates a name row. Korean headers only: an English sub-column is asked "in the … column"
    of rows that name their own measure."""
    measures = [korean_header_measure(x.header) if has_hangul(x.header) else "" for x in (g, c)]
    return all(measures) and named_alike(*measures)


def _signs_agree(cells: Sequence[EvidenceCell], gold_cells: Sequence[EvidenceCell]) -> bool:
    """Where the page prints the gold's digits for the gold's period, at least once with the
    gold's sign: "Net effect from recognition (deferral) of deferred net revenues 101" states
    another row than "Total change in deferred revenues (101)". A page whose cells never print
    the digits (found in its text) is not contradicted."""
    same = [
        (c, g)
        for c in cells
        for g in gold_cells
        if c.key == g.key and set(c.periods) & set(g.periods)
    ]
    return not same or any(
        (c.value < 0) == (g.value < 0) or _sign_free(c) or _sign_free(g) for c, g in same
    )


# An expense, cost, provision or loss is printed positive in its note and as a deduction in the
# statement ("Total income tax provision 6,802" and "Provision for income taxes (6,802)"; "U.S.
# loss before income taxes 325" and "U.S. $(325)"): for such rows the sign is presentation, not
# a different fact. Either side naming one is enough: the index placed the cell in the gold's row
# and period already (a "U.S." row of a loss table).
_SIGN_FREE = re.compile(
    r"\b(?:provisions?|expenses?|costs?|taxes|tax|depreciation|amortization|impairments?|"
    r"charges?|loss|losses)\b",
    re.I,
)


def _sign_free(cell: EvidenceCell) -> bool:
    """The row, or the section it sits in ("U.S." under "Loss before income taxes"), names an
    expense, cost, provision or loss."""
    return bool(_SIGN_FREE.search(f"{cell.label} {cell.section}"))


def prints_transposed(
    cells: Sequence[EvidenceCell], gold_cells: Sequence[EvidenceCell], page_text: Callable[[], str]
) -> EvidenceCell | None:
    """A cell printing the gold's figure for the gold's period in a table turned the other way:
    the gold's section as its row ("Environmental Technologies") on a page that names the gold's
    row as its measure ("segment net income (loss) by reportable segment") — segments as rows
    where the gold prints them as sections, or the reverse. The same fact."""
    for g in gold_cells:
        if not g.section:
            continue
        for c in cells:
            if not _same_figure(c, g) or not same_label(g.section, c.label):
                continue
            if _names_measure(g.label, page_text()):
                return c
    return None


def _same_figure(c: EvidenceCell, g: EvidenceCell) -> bool:
    """The cell prints the gold cell's digits, with its sign, for one of its periods."""
    return (
        c.key == g.key and (c.value < 0) == (g.value < 0) and bool(set(c.periods) & set(g.periods))
    )


_TOTAL_ROW = re.compile(r"^\s*total\b", re.I)


def prints_section_total(
    cells: Sequence[EvidenceCell], gold_cells: Sequence[EvidenceCell]
) -> EvidenceCell | None:
    """A cell printing the gold's figure for the gold's period as the total of a section (its
    parent row or its table's heading) named like the gold's row: "Total retained loans" under
    "Residential real estate" is the residential real estate loans the gold prints as one row
    ("Residential real estate 328,010"). The same fact, summed where the gold states it."""
    for g in gold_cells:
        if not specific_label(g.label):
            continue
        for c in cells:
            if _same_figure(c, g) and _TOTAL_ROW.match(c.label) and c.section:
                if same_label(g.label, c.section):
                    return c
    return None


def _names_measure(label: str, text: str) -> bool:
    """A line of the page holds every content word of the label (two at least): the page says
    what its figures are, in a heading or the sentence above its table."""
    wanted = content_words(label)
    return len(wanted) >= 2 and any(wanted <= content_words(line) for line in text.splitlines())


def _prints_asked_row(cells: Sequence[EvidenceCell], gold_cells: Sequence[EvidenceCell]) -> bool:
    """The page prints the asked row (`asked_cells`) for one of its periods: the pool's `answer`
    source finds pages by any gold cell printing the figure, and a gold page printing the same
    number in another row ("유동성장기부채 20,000" beside "장기차입금의 유동성대체 (20,000)")
    would make every page of that other row look like an answer. No asked cell located: as
    before, the source's word; so for a page whose index holds no cell (the figure found in its
    text)."""
    return (
        not gold_cells or not cells or any(same_row(c, g, True) for c in cells for g in gold_cells)
    )


def _states_other_segment(asked: str, cells: Sequence[EvidenceCell]) -> bool:
    """Does the page name its rows as another segment's than the one the question names, and
    never as that one's ("Pharmacy Services segment’s total generic dispensing rate" for "the
    retail/LTC segment’s …")?"""
    owner = segment_owner(asked)
    if owner is None:
        return False
    printed = {segment_owner(c.label) for c in cells} - {None}
    return bool(printed) and owner not in printed


def _other_basis(page: PageContext | None, gold: PageContext | None) -> bool:
    """The page is of the other statements' basis than the gold's (consolidated vs separate)."""
    return bool(page and gold and page.basis and gold.basis and page.basis != gold.basis)


def by_evidence(
    label: CandidateLabel,
    question: str,
    found_by: Sequence[str],
    cells: Sequence[EvidenceCell],
    gold_cells: Sequence[EvidenceCell],
    page: PageContext | None,
    gold: PageContext | None,
    page_text: Callable[[], str] = str,
) -> CandidateLabel:
    """The index's reading of a page, where the labeller's own reading missed it (a row split
    over two lines, a column header it dated otherwise, a label it scored below its match):

    - a page that prints the answer's figure for the gold's row and period (pool source
      `answer`, the completeness rule) with the gold's sign, or for the gold's section and
      period in a table turned the other way (`prints_transposed`), states the same fact:
      sufficient when it is the gold's company (another filing of it included), else the same
      row for another company: supporting;
    - a page labelled irrelevant that prints the gold's row for any period, company or basis is
      the same measure elsewhere: supporting.

    Labels only move up (irrelevant -> supporting -> sufficient), so a labeller that read more
    (a vision model) keeps its reading. `page_text` gives the page's text when a rule needs it."""
    if label.label == "sufficient" or label.role == "gold":
        return label
    same_company = page is None or gold is None or not gold.entity or page.same_filer(gold)
    # The other statements' basis prints the same row apart (a consolidated figure is not the
    # separate one, even where the two agree): for a question naming its basis, the same measure
    # for another basis, supporting. One naming none is answered alike by either.
    asked = parse_table_question(question)
    same_company = same_company and not (_other_basis(page, gold) and asked and asked.basis)
    if asked is not None and _states_other_segment(asked.label, cells):
        return label  # "Pharmacy Services segment’s … rate" 87.4 % for Retail/LTC's 87.4 %
    if (
        same_company
        and ANSWER in found_by
        and _signs_agree(cells, gold_cells)
        and _prints_asked_row(cells, gold_cells)
    ):
        return replace(
            label,
            label="sufficient",
            rationale="prints the answer for the gold's row and period (evidence index). "
            + label.rationale,
        )
    if same_company:
        # In this order, each only if the one before found nothing (the first may read the page).
        for how, find in (
            (
                "in a table turned the other way",
                lambda: prints_transposed(cells, gold_cells, page_text),
            ),
            ("as the total of its section", lambda: prints_section_total(cells, gold_cells)),
        ):
            found = find()
            if found is not None:
                return replace(
                    label,
                    label="sufficient",
                    rationale=f"prints the answer {how} ({found.where()}). " + label.rationale,
                )
    if label.label != "irrelevant":
        return label
    row = prints_gold_row(cells, gold_cells, by_section=asked is not None and bool(asked.parent))
    if row is None:
        return label
    return replace(
        label,
        label="supporting",
        rationale=f"prints the asked row for another period, company or basis ({row.where()}). "
        + label.rationale,
    )

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

from collections.abc import Sequence
from dataclasses import dataclass, replace

from evalset_pipeline.core.vlm.base import PageContext, PageView, VLMBackend

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
        for axis, a, b in (
            ("entity", page.entity, gold.entity),
            ("period", page.period, gold.period),
        )
        if a and b and a != b
    ]
    if not other:
        return label
    return replace(
        label,
        label="supporting",
        rationale=f"the gold's statement ({statement}) for another {' and '.join(other)}. "
        + label.rationale,
    )

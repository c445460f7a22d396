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
from dataclasses import dataclass

from evalset_pipeline.core.vlm.base import PageView, VLMBackend

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

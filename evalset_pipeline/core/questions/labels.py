"""Three-way labels for every candidate of a kept question: sufficient / supporting / irrelevant.

A distractor can still be `sufficient` for an under-specified question (that is what makes it
acceptable) and is usually `supporting` for a well-posed one: topically right, evidentially empty.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

from evalset_pipeline.core.vlm.base import PageView, VLMBackend


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
        for c, r in zip(candidates, results)
    ]

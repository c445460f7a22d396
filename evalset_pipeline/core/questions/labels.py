"""Three-way labels for every candidate of a kept question: sufficient / supporting / irrelevant.

A distractor can still be `sufficient` for an under-specified question (that is what makes it
acceptable) and is usually `supporting` for a well-posed one: topically right, evidentially empty.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace

from evalset_pipeline.core.vlm.answers import answers_agree
from evalset_pipeline.core.vlm.base import PageView, VLMBackend

COMPARATIVE = (
    "comparative"  # axis of a pooled page that prints the gold's period (negatives/comparatives.py)
)
REVISION = "revision"


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


def settle_comparatives(
    labels: Sequence[CandidateLabel],
    questions: dict[str, tuple[str, str]],
    pages: dict[str, PageView],
    backend: VLMBackend,
) -> list[CandidateLabel]:
    """Decide what each comparative page (one that prints the gold's period) is for its question.

    sufficient           it answers with the gold's answer: pooled evidence (axis `comparative`)
    answers otherwise    it states another figure for the same subject and period: a restatement,
                         so a `revision` distractor (role `distractor`), never sufficient
    else                 pooled, with the judge's label (it prints the period but not this fact)
    """
    open_ones = [
        i for i, lab in enumerate(labels) if lab.axis == COMPARATIVE and lab.label != "sufficient"
    ]
    if not open_ones:
        return list(labels)
    judged = backend.judge(
        [(questions[labels[i].item_id][0], pages[labels[i].unit_id]) for i in open_ones]
    )
    out = list(labels)
    for i, judgment in zip(open_ones, judged, strict=False):
        reference = questions[labels[i].item_id][1]
        if judgment.answers and not answers_agree(judgment.answer, reference):
            out[i] = replace(
                labels[i],
                role="distractor",
                axis=REVISION,
                rationale=f"restatement: prints {judgment.answer} for the gold's period, gold says "
                f"{reference}. {labels[i].rationale}",
            )
    return out

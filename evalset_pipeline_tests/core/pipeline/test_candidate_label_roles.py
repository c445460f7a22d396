"""A metric distractor (another table of the gold's filing and period) that states the answer is
evidence; a period or entity distractor that answers stays a distractor, for the gate to catch."""

from __future__ import annotations

from evalset_pipeline.core.pipeline.candidate_labels import _as_evidence
from evalset_pipeline.core.questions.labels import CandidateLabel


def _label(axis: str, label: str) -> CandidateLabel:
    return CandidateLabel("q-1", "u-2", "distractor", axis, label, "page prints the answer")


def test_an_answering_metric_distractor_is_pooled_evidence():
    pooled = _as_evidence(_label("metric", "sufficient"))
    assert (pooled.role, pooled.axis, pooled.label) == ("pooled", "mined:metric", "sufficient")


def test_other_distractors_keep_their_role():
    for lab in (
        _label("metric", "supporting"),
        _label("period", "sufficient"),
        _label("entity", "sufficient"),
    ):
        assert _as_evidence(lab) == lab

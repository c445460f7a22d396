"""Ground truth from the sample-corpus generator, read independently of the textlayer judge."""

from __future__ import annotations

from evalset_pipeline.core.pagetext.periods import parse_periods
from evalset_pipeline.samplekit.sample_corpus import CorpusPlan, PageRecord

METRIC_WORDS = {
    "revenue": ("revenue", "매출"),
    "operating income": ("operating income", "영업이익"),
    "headcount": ("headcount", "employees", "임직원"),
}


def truth_by_unit(plan: CorpusPlan, units: list[dict]) -> dict[str, PageRecord]:
    return {u["unit_id"]: plan.page(u["document_path"], u["page_number"]) for u in units}


def differing_axes(
    a: PageRecord, b: PageRecord, axes=("period", "metric", "entity", "revision")
) -> list[str]:
    return [x for x in axes if getattr(a, x) != getattr(b, x)]


def question_pins_gold(question: str, gold: PageRecord, other: PageRecord) -> bool:
    """Does the question name something true of the gold and false of the other page?"""
    q = question.casefold()
    for axis in differing_axes(gold, other):
        if axis == "period" and gold.period in parse_periods(question):
            return True
        if axis == "entity":
            if gold.entity.casefold() in q:
                return True
            asked = {f.segment for f in gold.figures if f.segment.casefold() in q}
            if asked and not asked & {f.segment for f in other.figures}:
                return True  # the asked segment does not exist on the other page
        if axis == "metric":
            words = METRIC_WORDS.get(gold.metric, ())
            other_words = METRIC_WORDS.get(other.metric, ())
            if any(w in q for w in words) and not any(w in q for w in other_words):
                return True
        if axis == "revision" and ("restated" in q) != ("originally" in q):
            return True
    return False

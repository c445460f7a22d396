"""What the golden_set stage takes from the people in the loop.

For every judgment of the draft, in this order of precedence:

1. an **adjudicated** label for (item, page, this question's wording)  → label_source `adjudicated`
2. the **human** label, when every annotator who labelled the pair agrees → label_source `human`
3. the gold page of a **regression** item: the person who investigated the failure named it
   as the page that answers the question                               → `sufficient`, `human`
4. otherwise the **model** label                                         → label_source `model`

Pairs whose annotators disagree keep the model label until adjudicated (and are counted).
Human labels given for another wording of the question are not applied (counted as stale).

It also measures the current judge against the held-out human labels and states the result,
so every version says that a model pre-labelled it and how well that model agrees with people.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.review.regression import SLICE as REGRESSION
from evalset_pipeline.core.review.report import (
    inter_annotator,
    judge_from_identity,
    model_human_agreement,
    provenance_summary,
)
from evalset_pipeline.core.review.store import PairKey, ReviewStore, question_sha

SOURCES = ("model", "human", "adjudicated")


@dataclass
class ReviewOutcome:
    judgments: list[dict[str, Any]]
    labels_by_source: dict[str, int]
    agreement: dict[str, Any]  # provenance `model_human_agreement`
    review: dict[str, Any] = field(default_factory=dict)  # what was applied, what was not and why


def apply_reviews(
    paths: DataPaths,
    items: Sequence[Mapping[str, Any]],
    judgments: Sequence[Mapping[str, Any]],
    backend_identity: Mapping[str, Any],
    regression_notes: Mapping[str, str] | None = None,
) -> ReviewOutcome:
    reviews = ReviewStore(paths).reviews()
    qsha = {i["item_id"]: question_sha(i["question"]) for i in items}
    slice_of = {i["item_id"]: i["slice"] for i in items}
    notes = regression_notes or {}
    model_labels: dict[PairKey, str] = {}
    out: list[dict[str, Any]] = []
    in_conflict = applied = regression_golds = 0
    for j in judgments:
        key = PairKey(j["item_id"], j["unit_id"], qsha[j["item_id"]])
        model_labels[key] = j["label"]  # the current judge's label, before any override
        review = reviews.get(key)
        row = dict(j)
        if review is not None and review.label is not None:
            row.update(label=review.label, label_source=review.source, rationale=review.rationale())
            applied += 1
        elif slice_of.get(j["item_id"]) == REGRESSION and j["role"] == "gold":
            note = notes.get(j["item_id"], "")
            row.update(
                label="sufficient",
                label_source="human",
                rationale="regression record: the page that should have been retrieved"
                + (f" ({note})" if note else "")
                + f"; model said {j['label']}",
            )
            regression_golds += 1
        else:
            if review is not None:
                in_conflict += 1
            row["label_source"] = "model"
        out.append(row)
    counts = Counter(r["label_source"] for r in out)
    current_pairs = {(k.item_id, k.unit_id) for k in model_labels}
    stale = sum(
        1 for k in reviews if (k.item_id, k.unit_id) in current_pairs and k not in model_labels
    )
    outside = sum(1 for k in reviews if (k.item_id, k.unit_id) not in current_pairs)
    judge = judge_from_identity(backend_identity)
    report = model_human_agreement(reviews.values(), model_labels, judge)
    inter = inter_annotator(reviews.values())
    agreement = provenance_summary(report, inter, total_labels=len(out))
    review_info = {
        "applied": applied,
        "regression_golds": regression_golds,
        "in_conflict": in_conflict,
        "stale_question": stale,
        "not_in_version": outside,
    }
    agreement["reviews"] = review_info
    return ReviewOutcome(out, {s: counts.get(s, 0) for s in SOURCES}, agreement, review_info)

"""Agreement per judge from the model-call ledger, with the recorded labels as fallback."""

from __future__ import annotations

from datetime import UTC, datetime

from evalset_pipeline.core.hashing import canonical_json
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.review.report import Judge, agreement_report, inter_annotator
from evalset_pipeline.core.review.split import HELDOUT, split_of
from evalset_pipeline.core.review.store import resolve
from evalset_pipeline.core.vlm.cache import CallCache

T0 = datetime(2025, 1, 1, tzinfo=UTC)
HUMAN = ["sufficient", "supporting", "irrelevant", "supporting"]


def _labels(n_items: int = 40) -> list[dict]:
    rows = []
    for k in range(n_items):
        for u, label in enumerate(HUMAN):
            rows.append(
                {
                    "item_id": f"q-{k}",
                    "unit_id": f"u{u}",
                    "question_sha": f"s{k}",
                    "question": f"question {k}",
                    "render_hash": f"img{u}",
                    "label": label,
                    "note": "",
                    "annotator": "alice",
                    "imported_at": T0,
                    "model_label": "sufficient",
                    "judge_backend": "textlayer",
                    "judge_model": "old",
                    "label_prompt": "p0",
                }
            )
    return rows


def _ledger(paths: DataPaths, reviews, judge: Judge, wrong_every: int) -> None:
    cache = CallCache(paths.cache_db)
    rows = []
    for n, r in enumerate(reviews.values()):
        label = (
            r.label
            if n % wrong_every
            else ("irrelevant" if r.label != "irrelevant" else "sufficient")
        )
        rows.append(
            {
                "key": f"{judge.key}:{n}",
                "backend": judge.backend,
                "model": judge.model,
                "task": "label",
                "prompt_hash": judge.label_prompt,
                "image_hash": r.render_hash,
                "question": r.question,
                "response_json": canonical_json({"label": label, "rationale": "r"}),
                "prompt_tokens": 0,
                "completion_tokens": 0,
                "latency_s": 0.0,
                "cost_usd": 0.0,
                "created_at": T0,
            }
        )
    cache.put_many(rows)
    cache.close()


def test_each_judge_is_validated_on_the_same_heldout_labels(tmp_path):
    paths = DataPaths(tmp_path)
    reviews = resolve(_labels(), [])
    a, b = Judge("openai", "m1", "prompt-a"), Judge("openai", "m1", "prompt-b")
    _ledger(paths, reviews, a, wrong_every=2)  # half wrong
    _ledger(paths, reviews, b, wrong_every=10)  # one in ten wrong
    report = agreement_report(paths, reviews, current=b)
    assert report["model_labels_from"] == "ledger"
    keys = [(s["judge"]["label_prompt"], s["current"]) for s in report["judges"]]
    assert keys[0] == ("prompt-b", True) and ("prompt-a", False) in keys and ("p0", False) in keys
    by = {s["judge"]["label_prompt"]: s for s in report["judges"]}
    heldout = sum(1 for r in reviews.values() if split_of(r.key.item_id) == HELDOUT)
    for s in by.values():
        assert s["heldout"]["labels"] == heldout and s["dev"]["labels"] == len(reviews) - heldout
    acc_a = by["prompt-a"]["heldout"]["three_class"]["accuracy"]["value"]
    acc_b = by["prompt-b"]["heldout"]["three_class"]["accuracy"]["value"]
    assert acc_b > acc_a and 0.85 < acc_b < 0.95 and 0.4 < acc_a < 0.6
    # The model label recorded at export (an older judge that said "sufficient" everywhere).
    old = by["p0"]["heldout"]["three_class"]
    assert old["per_class"]["sufficient"]["recall"]["value"] == 1.0
    assert old["accuracy"]["value"] == 0.25


def test_fallback_when_the_ledger_is_unreadable(tmp_path):
    paths = DataPaths(tmp_path)
    reviews = resolve(_labels(10), [])
    report = agreement_report(paths, reviews, current=Judge("textlayer", "new", "p9"))
    assert report["model_labels_from"] == "recorded" and "not readable" in report["note"]
    first = report["judges"][0]
    assert (
        first["current"]
        and first["judge"]["label_prompt"] == "p9"
        and "three_class" not in first["heldout"]
    )
    assert report["judges"][1]["judge"]["label_prompt"] == "p0"


def test_inter_annotator_pairs():
    rows = _labels(5)
    bob = [
        dict(r, annotator="bob", label="supporting" if r["unit_id"] == "u0" else r["label"])
        for r in rows
    ]
    inter = inter_annotator(resolve(rows + bob, []).values())
    assert inter["double_annotated_pairs"] == 20 and inter["items"] == 5
    (pair,) = inter["annotator_pairs"]
    assert pair["annotators"] == ["alice", "bob"] and pair["n"] == 20
    assert pair["agreement"]["value"] == 15 / 20
    assert pair["matrix"][0] == [0, 5, 0]  # alice sufficient -> bob supporting, 5 times

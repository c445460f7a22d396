"""The check logic on constructed tables: each check passes on a good set and fails on the bad input it exists for."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import dagster as dg

from evalset_pipeline.core.checks import golden_gates as g


def item(i: str, slice_: str = "main") -> dict:
    return {"item_id": i, "gold_unit_id": f"u-{i}", "slice": slice_, "question": f"q {i}?"}


def label(i: str, role: str, label_: str, axis: str = "", unit: str | None = None) -> dict:
    return {
        "item_id": i,
        "unit_id": unit or f"{role}-{i}-{axis}",
        "role": role,
        "axis": axis,
        "label": label_,
    }


GOOD_ITEMS = [item("a"), item("b"), item("c", "underspecified")]
GOOD_LABELS = [
    label("a", "gold", "sufficient"),
    label("a", "distractor", "supporting", "period"),
    label("a", "distractor", "irrelevant", "metric"),
    label("b", "gold", "sufficient"),
    label("b", "distractor", "supporting", "entity"),
    label("c", "gold", "sufficient"),
    label("c", "distractor", "sufficient", "period"),  # allowed: underspecified
    label("a", "pooled", "sufficient", unit="same-fact-elsewhere"),  # pooled pages may answer
]


def test_a_good_set_passes_every_gate():
    for outcome in (
        g.gold_is_sufficient(GOOD_ITEMS, GOOD_LABELS),
        g.no_sufficient_distractor_in_main(GOOD_ITEMS, GOOD_LABELS),
        g.distractors_on_some_axis(GOOD_ITEMS, GOOD_LABELS, ["period", "metric", "entity"]),
        g.min_kept_items(GOOD_ITEMS, 2),
    ):
        assert outcome.passed, outcome


def test_gold_not_sufficient_or_unlabelled_fails_with_error():
    labels = [x for x in GOOD_LABELS if not (x["item_id"] == "b" and x["role"] == "gold")]
    labels = [
        dict(x, label="supporting") if x["item_id"] == "a" and x["role"] == "gold" else x
        for x in labels
    ]
    out = g.gold_is_sufficient(GOOD_ITEMS, labels)
    assert not out.passed and out.severity == g.ERROR
    assert out.metadata["failing"] == 2 and out.metadata["gold_sufficient_share"] == round(1 / 3, 4)
    assert {e["item_id"]: e["gold_label"] for e in out.metadata["failing_examples"]} == {
        "a": "supporting",
        "b": "unlabelled",
    }


def test_a_main_item_answerable_from_a_distractor_fails_with_error():
    labels = GOOD_LABELS + [label("b", "distractor", "sufficient", "period", unit="u-x")]
    out = g.no_sufficient_distractor_in_main(GOOD_ITEMS, labels)
    assert not out.passed and out.severity == g.ERROR
    assert out.metadata["examples"] == [{"item_id": "b", "distractor": "u-x", "axis": "period"}]
    assert out.metadata["by_axis"] == {"period": 1}


def test_an_item_without_distractors_fails_and_coverage_is_reported_per_axis():
    labels = [x for x in GOOD_LABELS if not (x["item_id"] == "b" and x["role"] == "distractor")]
    out = g.distractors_on_some_axis(GOOD_ITEMS, labels, ["period", "metric", "entity"])
    assert not out.passed and out.severity == g.ERROR and out.metadata["examples"] == ["b"]
    cov = out.metadata["per_axis"]
    assert (
        cov["period"]["items"] == 2 and cov["metric"]["items"] == 1 and cov["entity"]["items"] == 0
    )
    assert cov["period"]["labels"] == {"sufficient": 1, "supporting": 1}


def test_min_kept_items_warns_when_few_and_errors_when_none():
    few = g.min_kept_items(GOOD_ITEMS, 10)
    assert not few.passed and few.severity == g.WARN and few.metadata["main_items"] == 2
    none = g.min_kept_items([item("c", "underspecified")], 10)
    assert not none.passed and none.severity == g.ERROR
    assert not g.min_kept_items([], 0).passed


def test_rejected_share_counts_files_not_pages():
    rejected = [
        {"path": "a.pdf", "sha256": "", "reason": "empty file (0 bytes)", "stage": "open"},
        {
            "path": "b.pdf",
            "sha256": "x",
            "reason": "not a readable PDF (FileDataError: x)",
            "stage": "open",
        },
        {"path": "c.pdf", "sha256": "y", "reason": "page 3: too big", "stage": "render"},
    ]
    out = g.rejected_share(8, rejected, 0.1)
    assert not out.passed and out.severity == g.WARN
    assert out.metadata["rejected_share"] == 0.2 and out.metadata["pages_failed_to_render"] == 1
    assert out.metadata["reasons"] == {"empty file": 1, "not a readable PDF": 1}
    assert g.rejected_share(8, rejected, 0.25).passed
    assert g.rejected_share(0, [], 0.0).passed


def test_freshness_compares_the_golden_set_with_the_corpus_now():
    now = datetime(2026, 1, 2, tzinfo=UTC)
    info = {
        "version_id": "gs-0123456789abcdef",
        "corpus_fingerprint": "f1",
        "created_at": (now - timedelta(hours=5)).isoformat(),
    }
    fresh = g.golden_set_freshness(info, "f1", now)
    assert fresh.passed and fresh.metadata["age_hours"] == 5.0
    stale = g.golden_set_freshness(info, "f2", now)
    assert (
        not stale.passed
        and stale.severity == g.WARN
        and "another corpus state" in stale.description
    )
    assert not g.golden_set_freshness(None, "f1").passed


def test_check_results_carry_the_severity():
    from evalset_pipeline.defs.checks import _to_result

    key = dg.AssetCheckKey(dg.AssetKey("candidate_labels"), "candidate_labels_min_kept_items")
    warn = _to_result(key, g.min_kept_items(GOOD_ITEMS, 10))
    assert not warn.passed and warn.severity == dg.AssetCheckSeverity.WARN
    error = _to_result(key, g.min_kept_items([], 10))
    assert error.severity == dg.AssetCheckSeverity.ERROR and error.metadata["main_items"].value == 0


def test_regression_items_are_exempt_from_the_gold_sufficiency_gate():
    """A user's own phrasing may defeat the model judge; the record says the page is the answer."""
    items = GOOD_ITEMS + [{"item_id": "r-1", "slice": "regression"}]
    labels = GOOD_LABELS + [label("r-1", "gold", "irrelevant", "")]
    assert g.gold_is_sufficient(items, labels).passed
    broken = [
        dict(x, label="irrelevant") if x["item_id"] == "a" and x["role"] == "gold" else x
        for x in labels
    ]
    assert not g.gold_is_sufficient(items, broken).passed

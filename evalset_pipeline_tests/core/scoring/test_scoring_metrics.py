"""Hand-computed metric values for each metric and each declared convention.

Discounts used below: 1/log2(rank+1) = 1, 0.630930, 0.5, 0.430677, 0.386853 for ranks 1..5.
"""

from __future__ import annotations

import math

import numpy as np
import pytest

from evalset_pipeline.core.scoring.conventions import metric_keys
from evalset_pipeline.core.scoring.metrics import score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.report import summarize
from evalset_pipeline.core.scoring.runs import run_from_columns
from evalset_pipeline_tests.core.scoring.golden_builder import make_golden


def rows(*triples: tuple[str, str, float]):
    return run_from_columns(
        [t[0] for t in triples], [t[1] for t in triples], [t[2] for t in triples]
    )


@pytest.fixture
def golden():
    return make_golden(
        items=[
            ("q1", "main", "u1"),
            ("q2", "main", "u5"),
            ("q3", "main", "u8"),  # absent from the run: counts as zero
            ("q4", "main", "u10"),  # nothing sufficient: excluded (zero-relevant policy)
        ],
        judgments=[
            ("q1", "u1", "sufficient"),
            ("q1", "u2", "supporting"),
            ("q1", "u3", "irrelevant"),
            ("q1", "u4", "sufficient"),
            ("q2", "u5", "sufficient"),
            ("q2", "u6", "supporting"),
            ("q3", "u8", "sufficient"),
            ("q4", "u10", "supporting"),
        ],
    )


@pytest.fixture
def run():
    # q1 ranking: 1 u9 (unjudged), 2 u2 (supporting), 3 u1 (sufficient, gold), 4 u3 (irrelevant),
    #             5 u4 (sufficient). Rows deliberately not in rank order.
    # q2 ranking: 1 u6 (supporting), 2 u7 (unjudged).
    return rows(
        ("q1", "u1", 0.7),
        ("q1", "u9", 0.9),
        ("q1", "u4", 0.5),
        ("q1", "u2", 0.8),
        ("q1", "u3", 0.6),
        ("q2", "u6", 1.0),
        ("q2", "u7", 0.5),
        ("q4", "u10", 1.0),
    )


def per_query(scores, item: str) -> dict[str, float]:
    i = list(scores.item_ids).index(item)
    return {k: float(v[i]) for k, v in scores.values.items()}


def test_query_with_every_label(golden, run):
    q1 = per_query(score_run(qrels_from_golden(golden), run, gain="graded"), "q1")
    # Recall: 2 sufficient units (u1, u4). Top 1 none, top 3 has u1, top 5 has both.
    assert (q1["recall@1"], q1["recall@3"], q1["recall@5"], q1["recall@10"]) == (0.0, 0.5, 1.0, 1.0)
    # MRR: first sufficient at rank 3 -> 0 within k=1, 1/3 from k=3 on.
    assert q1["mrr@1"] == 0.0
    assert q1["mrr@3"] == q1["mrr@5"] == q1["mrr@10"] == pytest.approx(0.333333, abs=1e-6)
    # nDCG: gains 0,1,2,0,2. IDCG from all judged grades sorted (2,2,1,0):
    #   IDCG@1 = 2;  IDCG@3 = 2 + 2*0.630930 + 1*0.5 = 3.761860 (= IDCG@5, the 4th gain is 0)
    #   DCG@1 = 0;   DCG@3 = 1*0.630930 + 2*0.5 = 1.630930;  DCG@5 = 1.630930 + 2*0.386853 = 2.404635
    assert q1["ndcg@1"] == 0.0
    assert q1["ndcg@3"] == pytest.approx(1.630930 / 3.761860, abs=1e-6)  # 0.433544
    assert q1["ndcg@5"] == pytest.approx(2.404635 / 3.761860, abs=1e-6)  # 0.639215
    assert q1["ndcg@10"] == q1["ndcg@5"]
    # sufficient@k: a sufficient unit in the top k.  supporting_only@k: supporting but no sufficient.
    assert (q1["sufficient@1"], q1["sufficient@3"], q1["sufficient@5"]) == (0.0, 1.0, 1.0)
    assert (q1["supporting_only@1"], q1["supporting_only@3"]) == (
        0.0,
        0.0,
    )  # rank 1 is unjudged; @3 has u1
    # Judged@k = judged in top k / k:  0/1, 2/3, 4/5, 4/10.
    assert (q1["judged@1"], q1["judged@3"], q1["judged@5"], q1["judged@10"]) == pytest.approx(
        (0, 2 / 3, 0.8, 0.4)
    )
    # Gold view (u1 at rank 3): hit from k=3, gain 1/log2(4) = 0.5.
    assert (q1["gold_recall@1"], q1["gold_recall@3"]) == (0.0, 1.0)
    assert (q1["gold_ndcg@1"], q1["gold_ndcg@3"], q1["gold_ndcg@10"]) == (0.0, 0.5, 0.5)


def test_judged_only_twins_drop_unjudged_units(golden, run):
    q1 = per_query(score_run(qrels_from_golden(golden), run, gain="graded"), "q1")
    # Condensed ranking: 1 u2 (1), 2 u1 (2), 3 u3 (0), 4 u4 (2).
    assert (q1["recall@1_judged"], q1["recall@3_judged"], q1["recall@5_judged"]) == (0.0, 0.5, 1.0)
    assert (q1["mrr@1_judged"], q1["mrr@3_judged"]) == (0.0, 0.5)
    #   DCG@1 = 1 -> 1/2;  DCG@3 = 1 + 2*0.630930 = 2.261860;  DCG@5 = 2.261860 + 2*0.430677 = 3.123213
    assert q1["ndcg@1_judged"] == 0.5
    assert q1["ndcg@3_judged"] == pytest.approx(2.261860 / 3.761860, abs=1e-6)  # 0.601261
    assert q1["ndcg@5_judged"] == pytest.approx(3.123213 / 3.761860, abs=1e-6)  # 0.830231
    assert (q1["sufficient@1_judged"], q1["supporting_only@1_judged"]) == (0.0, 1.0)
    assert q1["gold_ndcg@3_judged"] == pytest.approx(0.630930, abs=1e-6)  # gold now at rank 2
    assert "judged@1_judged" not in q1  # trivially 1 in a condensed list


def test_supporting_only_and_short_ranking(golden, run):
    q2 = per_query(score_run(qrels_from_golden(golden), run, gain="graded"), "q2")
    # Ranking u6 (supporting), u7 (unjudged): something on-subject, nothing sufficient.
    assert q2["supporting_only@1"] == q2["supporting_only@10"] == 1.0
    assert q2["sufficient@10"] == q2["recall@10"] == q2["mrr@10"] == 0.0
    # IDCG@1 = 2 -> nDCG@1 = 1/2;  IDCG@3 = 2 + 1*0.630930 = 2.630930 -> nDCG@3 = 1/2.630930
    assert q2["ndcg@1"] == 0.5
    assert q2["ndcg@3"] == pytest.approx(1 / 2.630930, abs=1e-6)  # 0.380094
    # Two results only: Judged@10 = 1/10 (empty slots count as unjudged).
    assert q2["judged@10"] == pytest.approx(0.1)


def test_missing_query_counts_as_zero_and_zero_relevant_is_excluded(golden, run):
    scores = score_run(qrels_from_golden(golden), run, gain="graded")
    q3 = per_query(scores, "q3")
    assert all(v == 0.0 for v in q3.values())  # every metric, never dropped
    q4 = per_query(scores, "q4")
    assert all(math.isnan(v) for v in q4.values())  # only "supporting" judged: excluded
    main = summarize(scores)["main"]
    assert (main.n_items, main.n_scored, main.n_excluded, main.n_without_results) == (4, 3, 1, 1)
    # Query-averaged over q1, q2, q3: recall@5 = (1 + 0 + 0)/3; mrr@3 = (1/3 + 0 + 0)/3;
    # supporting_only@1 = (0 + 1 + 0)/3; ndcg@1 = (0 + 0.5 + 0)/3.
    assert main.metrics["recall@5"] == pytest.approx(1 / 3)
    assert main.metrics["mrr@3"] == pytest.approx(1 / 9)
    assert main.metrics["supporting_only@1"] == pytest.approx(1 / 3)
    assert main.metrics["ndcg@1"] == pytest.approx(0.5 / 3)


def test_tie_break_is_unit_id_ascending():
    golden = make_golden([("q", "main", "a")], [("q", "a", "sufficient"), ("q", "b", "irrelevant")])
    # a and b tie at 1.0: declared order puts "a" first (trec_eval would put "b" first).
    scores = score_run(qrels_from_golden(golden), rows(("q", "b", 1.0), ("q", "a", 1.0)))
    assert per_query(scores, "q")["mrr@1"] == 1.0
    assert per_query(scores, "q")["gold_ndcg@1"] == 1.0


def test_duplicate_unit_keeps_its_best_score_and_unknown_queries_are_ignored():
    golden = make_golden([("q", "main", "g")], [("q", "g", "sufficient"), ("q", "s", "supporting")])
    run = rows(("q", "x", 0.9), ("q", "x", 0.95), ("q", "g", 0.8), ("zz", "g", 1.0))
    scores = score_run(qrels_from_golden(golden), run)
    # x listed twice keeps one slot (its 0.95), so g is rank 2, not 3: MRR@3 = 1/2.
    assert per_query(scores, "q")["mrr@3"] == 0.5
    assert scores.n_duplicates == 1
    assert (scores.n_unknown_rows, scores.unknown_query_ids) == (1, ("zz",))


def test_relevance_threshold_supporting():
    golden = make_golden(
        [("q", "main", "u1")],
        [("q", "u1", "sufficient"), ("q", "u2", "supporting"), ("q", "u3", "irrelevant")],
    )
    run = rows(("q", "u3", 3.0), ("q", "u2", 2.0), ("q", "u1", 1.0))
    strict = per_query(score_run(qrels_from_golden(golden), run), "q")
    loose = per_query(score_run(qrels_from_golden(golden), run, relevance="supporting"), "q")
    # sufficient only: 1 relevant (u1 at rank 3) -> recall@1 = 0, MRR@3 = 1/3.
    assert (strict["recall@1"], strict["recall@3"], strict["mrr@3"]) == pytest.approx((0, 1, 1 / 3))
    # sufficient or supporting: 2 relevant; rank 2 holds u2 -> recall@3 = 2/2, MRR@3 = 1/2.
    assert (loose["recall@1"], loose["recall@3"], loose["mrr@3"]) == pytest.approx((0, 1, 1 / 2))
    # Graded nDCG and sufficient@k do not depend on the threshold; binary nDCG (the default)
    # gains 1 for u2 once supporting counts as relevant.
    assert loose["sufficient@1"] == strict["sufficient@1"] and loose["ndcg@3"] > strict["ndcg@3"]
    graded = [
        per_query(score_run(qrels_from_golden(golden), run, relevance=r, gain="graded"), "q")
        for r in ("sufficient", "supporting")
    ]
    assert graded[0]["ndcg@3"] == graded[1]["ndcg@3"]


def test_slices_are_scored_separately_and_underspecified_has_no_recall():
    golden = make_golden(
        [("m", "main", "a"), ("u", "underspecified", "b"), ("r", "regression", "c")],
        [
            ("m", "a", "sufficient"),
            ("u", "b", "sufficient"),
            ("u", "b2", "sufficient"),  # several acceptable units
            ("r", "c", "sufficient"),
        ],
    )
    run = rows(("m", "a", 1.0), ("u", "b2", 1.0), ("r", "x", 1.0), ("r", "c", 0.5))
    summary = summarize(score_run(qrels_from_golden(golden), run))
    assert summary["main"].metrics["sufficient@1"] == 1.0
    # Any acceptable unit counts: b2 (not the gold) at rank 1 is a success...
    assert summary["underspecified"].metrics["sufficient@1"] == 1.0
    assert summary["underspecified"].metrics["mrr@1"] == 1.0
    assert summary["underspecified"].metrics["gold_recall@1"] == 0.0  # ...but not the gold view
    assert "recall@1" not in summary["underspecified"].metrics
    assert "ndcg@10" not in summary["underspecified"].metrics
    assert summary["regression"].metrics["mrr@10"] == 0.5
    assert list(summary["underspecified"].metrics) == metric_keys("underspecified")


def test_gold_without_judgment_and_item_without_gold():
    golden = make_golden(
        [("q", "main", "g"), ("p", "main", None)],
        [("q", "s", "sufficient"), ("p", "s", "sufficient")],
    )
    qrels = qrels_from_golden(golden)
    assert any("gold unit without a judgment" in w for w in qrels.warnings)
    scores = score_run(qrels, rows(("q", "g", 2.0), ("q", "s", 1.0), ("p", "s", 1.0)))
    q = per_query(scores, "q")
    assert (q["gold_recall@1"], q["mrr@1"], q["mrr@3"]) == (1.0, 0.0, 0.5)
    assert q["gold_recall@1_judged"] == 0.0  # an unlabelled gold is unjudged, so condensed away
    assert math.isnan(per_query(scores, "p")["gold_recall@1"])  # no gold: nothing to look for
    assert summarize(scores)["main"].metrics["gold_recall@1"] == 1.0  # mean over items with a gold


def test_infinite_and_nan_scores_are_rejected_with_their_rows():
    # inf (or 1e400, read as inf) would tie at the top whatever the retriever meant (issue 30).
    with pytest.raises(ValueError, match=r"not a finite number: row 1 \(query q, unit x\): inf"):
        rows(("q", "x", math.inf), ("q", "g", 1.0))
    with pytest.raises(ValueError, match="not a finite number"):
        rows(("q", "g", float("nan")))


def test_row_order_does_not_matter():
    rng = np.random.default_rng(3)
    items = [(f"q{i}", "main", f"u{i}") for i in range(30)]
    judg = [
        (f"q{i}", f"u{(i + j) % 40}", ["sufficient", "supporting", "irrelevant"][j % 3])
        for i in range(30)
        for j in range(6)
    ]
    golden = make_golden(items, judg)
    triples = [
        (f"q{i}", f"u{u}", float(rng.integers(0, 4)))
        for i in range(30)
        for u in rng.choice(40, 15, replace=False)
    ]
    a = score_run(qrels_from_golden(golden), rows(*triples))
    perm = rng.permutation(len(triples))
    b = score_run(qrels_from_golden(golden), rows(*[triples[i] for i in perm]))
    for key in a.values:
        np.testing.assert_array_equal(a.values[key], b.values[key])


def test_many_repeats_widen_the_deduplicated_window():
    golden = make_golden([("q", "main", "g")], [("q", "g", "sufficient")])
    # 25 copies of x (more repeats than the 2*depth window can absorb), then g: distinct ranking
    # is x, g, so MRR@3 = 1/2 and 24 rows are repeats.
    run = rows(*[("q", "x", 10.0 - i * 0.1) for i in range(25)], ("q", "g", 1.0))
    scores = score_run(qrels_from_golden(golden), run)
    assert per_query(scores, "q")["mrr@3"] == 0.5
    assert scores.n_duplicates == 24

"""Paired comparison: BCa intervals (as scipy computes them), exact McNemar and verdicts."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import stats

from evalset_pipeline.core.scoring.compare import (
    Interval,
    bootstrap_mean_intervals,
    build_compare_report,
    compare_scores,
    mcnemar_exact,
    verdict,
)
from evalset_pipeline.core.scoring.metrics import score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.runs import run_from_columns
from evalset_pipeline_tests.core.scoring.golden_builder import make_golden


def test_bootstrap_matches_scipy_bca():
    rng = np.random.default_rng(11)
    n = 80
    diffs = np.stack(
        [
            rng.integers(-1, 2, n).astype(float),  # a 0/1 metric's differences
            rng.random(n) - 0.3,  # an nDCG-like difference
            (rng.random(n) < 0.15).astype(float),  # mostly zero
        ]
    )
    ours = bootstrap_mean_intervals(diffs, seed=123, batch=700)  # chunking must not matter
    for row, iv in zip(diffs, ours, strict=False):
        ref = stats.bootstrap(
            (row,),
            np.mean,
            n_resamples=10_000,
            method="BCa",
            rng=np.random.default_rng(123),
            vectorized=True,
        ).confidence_interval
        assert iv.method == "BCa"
        assert (iv.low, iv.high) == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_all_equal_differences_give_a_zero_width_interval():
    ivs = bootstrap_mean_intervals(np.array([[0.0] * 30, [0.25] * 30]))
    assert ivs == [Interval(0.0, 0.0, "degenerate"), Interval(0.25, 0.25, "degenerate")]
    assert verdict("ndcg", ivs[0]) == "indistinguishable"
    assert verdict("ndcg", ivs[1]) == "better"


def test_mcnemar_exact_on_discordant_pairs():
    a = np.array([1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0], bool)
    b = np.array([1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 0], bool)
    mc = mcnemar_exact(a, b)
    # Discordant: A-only 1 (index 1), B-only 8 (indices 2-9). Two-sided exact binomial on 9 trials
    # at p=1/2: P(X<=1) + P(X>=8) = 2 * (1 + 9) / 2**9 = 20/512 = 0.0390625.
    assert (mc.a_only, mc.b_only) == (1, 8)
    assert mc.p_value == pytest.approx(0.0390625, abs=1e-12)
    assert mcnemar_exact(a, a).p_value == 1.0  # no discordant pairs: no evidence either way


def test_verdict_directions():
    up, down, cross = (
        Interval(0.01, 0.2, "BCa"),
        Interval(-0.2, -0.01, "BCa"),
        Interval(-0.1, 0.1, "BCa"),
    )
    assert (verdict("recall", up), verdict("recall", down), verdict("recall", cross)) == (
        "better",
        "worse",
        "indistinguishable",
    )
    assert verdict("supporting_only", up) == "worse"  # more topically-right-but-insufficient tops
    assert verdict("judged", up) == "higher"  # coverage diagnostic, not quality


N = 60


@pytest.fixture(scope="module")
def golden():
    items = [(f"q{i:02d}", "main", f"g{i:02d}") for i in range(N)]
    judgments = [(f"q{i:02d}", f"g{i:02d}", "sufficient") for i in range(N)]
    judgments += [(f"q{i:02d}", f"s{i:02d}", "supporting") for i in range(N)]
    return make_golden(items, judgments)


def run_with_gold_at(ranks: list[int]):
    """Each query returns 10 units with its gold unit at the given rank (0 = not retrieved)."""
    q, u, s = [], [], []
    for i, r in enumerate(ranks):
        for pos in range(1, 11):
            q.append(f"q{i:02d}")
            u.append(f"g{i:02d}" if pos == r else f"x{i:02d}-{pos}")
            s.append(float(11 - pos))
    return run_from_columns(q, u, s)


def test_clearly_better_and_indistinguishable_runs(golden):
    rng = np.random.default_rng(5)
    qrels = qrels_from_golden(golden)
    base_ranks = rng.integers(1, 11, N).tolist()
    better_ranks = [1 if rng.random() < 0.9 else r for r in base_ranks]  # gold moves to the top
    reshuffled = base_ranks[:]  # same ranks, a few queries swapped: same distribution
    for i in range(0, 20, 2):
        reshuffled[i], reshuffled[i + 1] = reshuffled[i + 1], reshuffled[i]
    a = score_run(qrels, run_with_gold_at(base_ranks))
    b = score_run(qrels, run_with_gold_at(better_ranks))
    c = score_run(qrels, run_with_gold_at(reshuffled))

    better = compare_scores(a, b)["main"]
    for key in ("mrr@10", "ndcg@10", "sufficient@1", "recall@1", "gold_recall@1", "gold_ndcg@10"):
        assert better[key]["verdict"] == "better", key
        assert better[key]["ci_low"] > 0
    assert better["recall@10"]["verdict"] == "indistinguishable"  # gold is in the top 10 either way
    assert better["recall@10"]["ci_method"] == "degenerate"
    assert better["sufficient@1"]["mcnemar_p"] < 0.001 and better["sufficient@1"]["a_only"] == 0

    same = compare_scores(a, c)["main"]
    assert same["mrr@10"]["verdict"] == "indistinguishable"
    assert same["mrr@10"]["ci_low"] < 0 < same["mrr@10"]["ci_high"]
    assert same["mrr@10"]["delta"] == pytest.approx(0.0, abs=1e-12)

    identical = compare_scores(a, a)["main"]
    assert all(
        m["verdict"] == "indistinguishable" and m["ci_low"] == m["ci_high"] == 0
        for m in identical.values()
    )


def test_compare_report_refuses_unpaired_scores(golden):
    qrels = qrels_from_golden(golden)
    a = score_run(qrels, run_with_gold_at([1] * N))
    other = make_golden(
        [("q00", "main", "g00")], [("q00", "g00", "sufficient")], version_id="gs-00000000000000bb"
    )
    b = score_run(qrels_from_golden(other), run_with_gold_at([1]))
    with pytest.raises(ValueError, match="same golden version"):
        compare_scores(a, b)
    report = build_compare_report(
        version_id=golden.version_id,
        a=a,
        b=a,
        run_a={"name": "A"},
        run_b={"name": "B"},
        warnings=["top"],
    )
    assert report["warnings"][0] == "top" and report["delta"] == "B - A"
    assert report["n_resamples"] >= 10_000
    assert set(report["slices"]) == {"main", "underspecified", "regression"}

"""Agreement figures against hand-computed confusion matrices, including the seed's worked examples."""

from __future__ import annotations

from fractions import Fraction

import pytest
from scipy.stats import binomtest

from evalset_pipeline.core.review.agreement import (
    Confusion,
    bootstrap_by_cluster,
    classification_report,
    label_views,
    wilson_interval,
)

BINARY = ("attributable", "non_attributable")


def test_seed_configuration_1_171_9_14_6():
    # 003_…: 180 attributable (171 called attributable, 9 not); 20 non-attributable (14 called
    # attributable, 6 not). Rows = reference, columns = prediction.
    r = classification_report(Confusion.from_matrix([[171, 9], [14, 6]], BINARY))
    assert round(r["macro_f1"], 6) == 0.639922
    assert r["accuracy"]["value"] == pytest.approx(0.885)
    assert r["per_class"]["attributable"]["recall"]["value"] == pytest.approx(0.95)
    assert r["per_class"]["non_attributable"]["recall"]["value"] == pytest.approx(0.30)
    assert (
        r["per_class"]["attributable"]["predicted"] == 185
        and r["per_class"]["non_attributable"]["predicted"] == 15
    )
    lo, hi = r["per_class"]["non_attributable"]["recall"]["ci95"]
    assert (round(lo, 6), round(hi, 6)) == (
        0.145477,
        0.518973,
    )  # the seed's Wilson interval for 6/20
    assert r["per_class"]["non_attributable"]["prevalence"]["value"] == pytest.approx(0.10)


def test_seed_configuration_2_165_15_5_15():
    r = classification_report(Confusion.from_matrix([[165, 15], [5, 15]], BINARY))
    assert round(r["macro_f1"], 6) == 0.771429
    assert r["accuracy"]["value"] == pytest.approx(0.90)
    assert r["per_class"]["attributable"]["recall"]["value"] == pytest.approx(11 / 12)
    lo, hi = r["per_class"]["non_attributable"]["recall"]["ci95"]
    assert (round(lo, 6), round(hi, 6)) == (0.531299, 0.888138)
    one = classification_report(Confusion.from_matrix([[171, 9], [14, 6]], BINARY))
    assert r["macro_f1"] - one["macro_f1"] == pytest.approx(
        0.131506849, abs=1e-9
    )  # computed before rounding


def test_seed_majority_only_judge():
    # Always "attributable" on 180:20: accuracy 0.90, minority F1 0 (never predicted), macro-F1 9/19.
    r = classification_report(Confusion.from_matrix([[180, 0], [20, 0]], BINARY))
    assert r["accuracy"]["value"] == pytest.approx(0.90)
    assert (
        r["per_class"]["non_attributable"]["precision"]["value"] is None
    )  # nothing predicted: undefined
    assert r["per_class"]["non_attributable"]["f1"] == 0.0
    assert r["macro_f1"] == pytest.approx(9 / 19)
    assert r["cohens_kappa"] == pytest.approx(0.0)


def test_the_seed_matrix_through_labelled_pairs():
    # The same configuration 1, as 200 (human, model) pairs through the sufficient-vs-rest view.
    ref = ["sufficient"] * 180 + ["irrelevant"] * 20
    pred = ["sufficient"] * 171 + ["supporting"] * 9 + ["sufficient"] * 14 + ["irrelevant"] * 6
    v = label_views(ref, pred, bootstrap=False)["sufficient_vs_rest"]
    assert v["matrix"] == [[171, 9], [14, 6]]
    assert round(v["macro_f1"], 6) == 0.639922


def test_three_class_hand_computed():
    m = [
        [8, 2, 0],
        [1, 5, 2],
        [0, 1, 6],
    ]  # rows human, columns model: sufficient, supporting, irrelevant
    classes = ("sufficient", "supporting", "irrelevant")
    r = classification_report(Confusion.from_matrix(m, classes))
    assert r["n"] == 25 and r["accuracy"]["value"] == pytest.approx(19 / 25)
    pc = r["per_class"]
    assert pc["sufficient"]["precision"]["value"] == pytest.approx(8 / 9)
    assert pc["sufficient"]["recall"]["value"] == pytest.approx(8 / 10)
    assert pc["sufficient"]["f1"] == pytest.approx(16 / 19)
    assert pc["supporting"]["f1"] == pytest.approx(5 / 8)
    assert pc["irrelevant"]["precision"]["value"] == pytest.approx(6 / 8)
    assert pc["irrelevant"]["recall"]["value"] == pytest.approx(6 / 7)
    assert r["macro_f1"] == pytest.approx((16 / 19 + 5 / 8 + 12 / 15) / 3)
    assert r["cohens_kappa"] == pytest.approx(float(Fraction(265, 415)))
    assert pc["supporting"]["prevalence"]["value"] == pytest.approx(8 / 25)


def test_views_of_the_boundary():
    m = [[8, 2, 0], [1, 5, 2], [0, 1, 6]]
    classes = ("sufficient", "supporting", "irrelevant")
    ref, pred = [], []
    for i, row in enumerate(m):
        for j, n in enumerate(row):
            ref += [classes[i]] * n
            pred += [classes[j]] * n
    views = label_views(ref, pred, clusters=[k // 3 for k in range(len(ref))])
    assert views["three_class"]["matrix"] == m
    b = views["sufficient_vs_supporting"]
    assert b["matrix"] == [[8, 2], [1, 5]] and b["accuracy"]["value"] == pytest.approx(13 / 16)
    assert views["sufficient_vs_rest"]["matrix"] == [[8, 2], [1, 14]]
    boot = views["three_class"]["bootstrap"]
    assert boot["clusters"] == 9
    lo, hi = boot["macro_f1_ci95"]
    assert lo <= views["three_class"]["macro_f1"] <= hi


@pytest.mark.parametrize("k,n", [(0, 1), (0, 20), (6, 20), (15, 20), (20, 20), (171, 180), (1, 3)])
def test_wilson_matches_scipy(k, n):
    ours = wilson_interval(k, n)
    ref = binomtest(k, n).proportion_ci(method="wilson")
    assert ours == pytest.approx((ref.low, ref.high), abs=1e-12)


def test_degenerate_cases():
    assert wilson_interval(0, 0) is None
    r = classification_report(Confusion.from_matrix([[5, 0], [0, 0]], BINARY))
    assert r["cohens_kappa"] is None  # both sides used one class only: chance agreement is 1
    assert r["macro_f1_classes"] == ["attributable"] and r["macro_f1"] == 1.0
    empty = classification_report(Confusion.from_pairs([], [], BINARY))
    assert empty["n"] == 0 and empty["accuracy"]["value"] is None and empty["macro_f1"] is None
    with pytest.raises(ValueError):
        Confusion.from_pairs(["sufficient"], ["maybe"], ("sufficient", "supporting"))
    assert bootstrap_by_cluster(["a"], ["x"], ["x"], ("x", "y")) is None  # one cluster: no interval


def test_bootstrap_is_seeded():
    ref = ["x", "y", "x", "y", "x", "x"] * 5
    pred = ["x", "y", "y", "y", "x", "y"] * 5
    clusters = [k // 2 for k in range(len(ref))]
    a = bootstrap_by_cluster(clusters, ref, pred, ("x", "y"))
    assert a == bootstrap_by_cluster(clusters, ref, pred, ("x", "y"))

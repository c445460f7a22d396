"""Agreement figures: confusion matrices, per-class precision/recall, macro-F1, kappa, intervals.

Conventions (declared once, used everywhere):

* A confusion matrix has the **reference** (human) on the rows and the **prediction** (model, or
  the second annotator) on the columns: ``matrix[i][j]`` counts pairs the reference put in
  class ``i`` and the prediction in class ``j``. The seed's worked example (003_…) is written the
  same way: 180 attributable pairs of which 171 were called attributable and 9 not, 20
  non-attributable of which 14 were called attributable and 6 not → ``[[171, 9], [14, 6]]``.
* Precision of a class is undefined (None) when nothing was predicted in it; recall is undefined
  when the reference has no case of it. F1 is ``2·TP / (support + predicted)``, which is the
  harmonic mean when both are defined and 0 when exactly one is (a class the model never
  predicts, or only ever invents, scores 0, not "undefined").
* Macro-F1 averages F1 over the classes that occur at all (support + predicted > 0), each with
  equal weight; which classes those were is reported beside it. Accuracy pools all pairs.
* Intervals are nominal 95% Wilson score intervals for a binomial proportion (closed form, the
  same as ``scipy.stats.binomtest(k, n).proportion_ci(method="wilson")``). They treat labelled
  pairs as independent draws; pairs of one question are not, so an item-clustered bootstrap
  interval is given for macro-F1 and kappa as well (``bootstrap_by_cluster``).
* Cohen's kappa is ``(p_o - p_e) / (1 - p_e)``; undefined (None) when ``p_e == 1``.

Everything is computed from exact counts; rounding is left to whoever prints.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from evalset_pipeline.core.labels import LABELS

Z95 = 1.959963984540054  # two-sided 95% normal quantile


def wilson_interval(k: int, n: int, z: float = Z95) -> tuple[float, float] | None:
    """Wilson score interval for k successes out of n (None when n == 0)."""
    if n <= 0:
        return None
    p = k / n
    z2 = z * z
    denom = 1.0 + z2 / n
    center = (p + z2 / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / denom
    return max(0.0, center - half), min(1.0, center + half)


def proportion(k: int, n: int) -> dict[str, Any]:
    """{"value", "k", "n", "ci95"}; value and ci None when n == 0."""
    ci = wilson_interval(k, n)
    return {
        "value": k / n if n else None,
        "k": int(k),
        "n": int(n),
        "ci95": list(ci) if ci else None,
    }


@dataclass(frozen=True)
class Confusion:
    classes: tuple[str, ...]
    matrix: tuple[tuple[int, ...], ...]  # rows = reference, columns = prediction

    @classmethod
    def from_pairs(
        cls, reference: Sequence[str], predicted: Sequence[str], classes: Sequence[str]
    ) -> Confusion:
        if len(reference) != len(predicted):
            raise ValueError(f"{len(reference)} reference labels but {len(predicted)} predictions")
        index = {c: i for i, c in enumerate(classes)}
        m = np.zeros((len(classes), len(classes)), dtype=np.int64)
        for r, p in zip(reference, predicted, strict=False):
            if r not in index or p not in index:
                raise ValueError(f"label pair ({r!r}, {p!r}) outside the classes {list(classes)}")
            m[index[r], index[p]] += 1
        return cls(tuple(classes), tuple(tuple(int(x) for x in row) for row in m))

    @classmethod
    def from_matrix(cls, matrix: Sequence[Sequence[int]], classes: Sequence[str]) -> Confusion:
        m = tuple(tuple(int(x) for x in row) for row in matrix)
        if len(m) != len(classes) or any(len(row) != len(classes) for row in m):
            raise ValueError(
                f"a {len(classes)}x{len(classes)} matrix is needed for classes {list(classes)}"
            )
        return cls(tuple(classes), m)

    @property
    def array(self) -> np.ndarray:
        return np.asarray(self.matrix, dtype=np.int64).reshape(len(self.classes), len(self.classes))

    @property
    def n(self) -> int:
        return int(self.array.sum())


def _f1(tp: float, support: float, predicted: float) -> float | None:
    return None if support + predicted == 0 else 2.0 * tp / (support + predicted)


def macro_f1(m: np.ndarray) -> float | None:
    """Macro-F1 of one matrix (classes that occur at all, equal weight)."""
    tp, support, predicted = np.diag(m), m.sum(axis=1), m.sum(axis=0)
    present = (support + predicted) > 0
    if not present.any():
        return None
    return float(np.mean(2.0 * tp[present] / (support[present] + predicted[present])))


def cohens_kappa(m: np.ndarray) -> float | None:
    n = m.sum()
    if n == 0:
        return None
    po = np.trace(m) / n
    pe = float((m.sum(axis=1) * m.sum(axis=0)).sum()) / (n * n)
    return None if pe >= 1.0 else float((po - pe) / (1.0 - pe))


def classification_report(c: Confusion) -> dict[str, Any]:
    """Everything the seed asks for: counts, per-class P/R/F1 with intervals, prevalence, macro-F1, kappa."""
    m = c.array
    n = int(m.sum())
    tp, support, predicted = np.diag(m), m.sum(axis=1), m.sum(axis=0)
    per_class: dict[str, Any] = {}
    for i, name in enumerate(c.classes):
        per_class[name] = {
            "support": int(support[i]),  # reference count
            "predicted": int(predicted[i]),
            "precision": proportion(int(tp[i]), int(predicted[i])),
            "recall": proportion(int(tp[i]), int(support[i])),
            "f1": _f1(float(tp[i]), float(support[i]), float(predicted[i])),
            "prevalence": proportion(int(support[i]), n),  # share of the reference in this class
            "predicted_share": int(predicted[i]) / n if n else None,
        }
    present = [name for i, name in enumerate(c.classes) if support[i] + predicted[i] > 0]
    return {
        "classes": list(c.classes),
        "matrix": [list(row) for row in c.matrix],
        "matrix_layout": "rows = reference (human), columns = prediction",
        "n": n,
        "accuracy": proportion(int(tp.sum()), n),
        "macro_f1": macro_f1(m),
        "macro_f1_classes": present,
        "cohens_kappa": cohens_kappa(m),
        "per_class": per_class,
    }


def bootstrap_by_cluster(
    clusters: Sequence[Hashable],
    reference: Sequence[str],
    predicted: Sequence[str],
    classes: Sequence[str],
    resamples: int = 2000,
    seed: int = 20240601,
) -> dict[str, Any] | None:
    """Percentile intervals for accuracy, macro-F1 and kappa, resampling whole clusters (items).

    Labels of one question share its wording and its gold page, so they are not independent
    draws; resampling questions rather than pairs keeps that dependence in the interval.
    """
    if not clusters:
        return None
    order = {c: i for i, c in enumerate(dict.fromkeys(clusters))}
    k = len(classes)
    index = {c: i for i, c in enumerate(classes)}
    per = np.zeros((len(order), k * k), dtype=np.float64)
    for cl, r, p in zip(clusters, reference, predicted, strict=False):
        per[order[cl], index[r] * k + index[p]] += 1
    if len(order) < 2:
        return None
    rng = np.random.default_rng(seed)
    chunk = max(1, min(resamples, 4_000_000 // len(order)))  # bounded memory for many clusters
    mats = np.concatenate(
        [
            rng.multinomial(
                len(order),
                np.full(len(order), 1.0 / len(order)),
                size=min(chunk, resamples - start),
            )
            @ per
            for start in range(0, resamples, chunk)
        ]
    ).reshape(resamples, k, k)
    n = mats.sum(axis=(1, 2))
    tp = np.diagonal(mats, axis1=1, axis2=2)
    support, pred = mats.sum(axis=2), mats.sum(axis=1)
    acc = tp.sum(axis=1) / n
    denom = support + pred
    present = denom > 0
    f1 = np.where(present, 2.0 * tp / np.where(present, denom, 1.0), 0.0)
    macro = f1.sum(axis=1) / np.maximum(present.sum(axis=1), 1)
    po = acc
    pe = (support * pred).sum(axis=1) / (n * n)
    with np.errstate(divide="ignore", invalid="ignore"):
        kappa = np.where(pe < 1.0, (po - pe) / (1.0 - pe), np.nan)

    def pct(values: np.ndarray) -> list[float] | None:
        values = values[~np.isnan(values)]
        return (
            [float(np.percentile(values, 2.5)), float(np.percentile(values, 97.5))]
            if len(values)
            else None
        )

    return {
        "clusters": len(order),
        "resamples": resamples,
        "seed": seed,
        "accuracy_ci95": pct(acc),
        "macro_f1_ci95": pct(macro),
        "cohens_kappa_ci95": pct(kappa),
    }


# --- the three views of a three-way label -------------------------------------------------------

BOUNDARY = ("sufficient", "supporting")
SUFFICIENT_VS_REST = ("sufficient", "not_sufficient")


def label_views(
    reference: Sequence[str],
    predicted: Sequence[str],
    clusters: Sequence[Hashable] | None = None,
    bootstrap: bool = True,
) -> dict[str, Any]:
    """The three-class report plus the two binary views of the boundary that matters.

    * ``three_class``: sufficient / supporting / irrelevant, all pairs.
    * ``sufficient_vs_supporting``: only pairs both sides put in {sufficient, supporting}: the
      boundary the seed's 0.84 model-human agreement figure is about.
    * ``sufficient_vs_rest``: sufficient against everything else, all pairs: the decision
      sufficient@k actually depends on.
    """
    clusters = list(clusters) if clusters is not None else list(range(len(reference)))
    out: dict[str, Any] = {}
    views = {
        "three_class": (
            LABELS,
            [(c, r, p) for c, r, p in zip(clusters, reference, predicted, strict=False)],
        ),
        "sufficient_vs_supporting": (
            BOUNDARY,
            [
                (c, r, p)
                for c, r, p in zip(clusters, reference, predicted, strict=False)
                if r in BOUNDARY and p in BOUNDARY
            ],
        ),
        "sufficient_vs_rest": (
            SUFFICIENT_VS_REST,
            [
                (
                    c,
                    r if r == "sufficient" else "not_sufficient",
                    p if p == "sufficient" else "not_sufficient",
                )
                for c, r, p in zip(clusters, reference, predicted, strict=False)
            ],
        ),
    }
    for name, (classes, rows) in views.items():
        cl = [r[0] for r in rows]
        ref = [r[1] for r in rows]
        pred = [r[2] for r in rows]
        report = classification_report(Confusion.from_pairs(ref, pred, classes))
        report["items"] = len(set(cl))
        if bootstrap:
            report["bootstrap"] = bootstrap_by_cluster(cl, ref, pred, classes)
        out[name] = report
    return out


def headline(report: dict[str, Any]) -> dict[str, Any]:
    """The few numbers worth a provenance field: n, accuracy + interval, kappa, macro-F1."""
    acc = report["accuracy"]
    boot = report.get("bootstrap") or {}
    return {
        "n": report["n"],
        "items": report.get("items"),
        "accuracy": acc["value"],
        "accuracy_ci95": acc["ci95"],
        "cohens_kappa": report["cohens_kappa"],
        "cohens_kappa_ci95": boot.get("cohens_kappa_ci95"),
        "macro_f1": report["macro_f1"],
        "macro_f1_ci95": boot.get("macro_f1_ci95"),
        "classes": report["classes"],
        "matrix": report["matrix"],
    }

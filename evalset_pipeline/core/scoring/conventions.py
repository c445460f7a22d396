"""The scoring conventions, declared once and printed with every report.

A retrieval number means nothing without its conventions (tie-breaking, unjudged units, queries
with nothing to find, averaging), and two numbers computed under different conventions cannot be
compared. Everything that fixes one of them lives here, so the code, the printed report and
`docs/scoring.md` cannot drift apart silently: `conventions()` is what reports embed.
"""

from __future__ import annotations

from typing import Final, Literal

# Grades and slices are the golden set's vocabulary (core/labels.py); re-exported for reports.
from evalset_pipeline.core.labels import GRADES as GRADES
from evalset_pipeline.core.labels import SLICES as SLICES
from evalset_pipeline.core.labels import SUFFICIENT, SUPPORTING

# Cutoffs reported for every metric. The deepest one is also how much of each ranking is read.
KS: Final[tuple[int, ...]] = (1, 3, 5, 10)

Relevance = Literal["sufficient", "supporting"]
# Binary relevance for Recall@k / MRR@k and for deciding which queries can be scored at all.
RELEVANCE_THRESHOLDS: Final[dict[str, int]] = {"sufficient": SUFFICIENT, "supporting": SUPPORTING}
DEFAULT_RELEVANCE: Final[Relevance] = "sufficient"

# One relevance policy for scoring and exports: by default a unit is relevant when it is labelled
# sufficient and nDCG's gain is `binary` (1 for a relevant unit, 0 otherwise), which is exactly
# what every external tool computes from the default export's binary qrels, so `evalset score`
# and BEIR/pytrec_eval/MTEB on the export give the same numbers. `graded` (sufficient 2,
# supporting 1) is the option, named the same in both: `evalset score --gain graded` and
# `evalset golden export --gain graded`. Binary is the headline because a supporting page (the
# right table for the wrong period) must not earn a retriever credit.
Gain = Literal["binary", "graded"]
GAINS: Final[tuple[str, ...]] = ("binary", "graded")
DEFAULT_GAIN: Final[Gain] = "binary"

# Guards: the bench refuses to measure (exit 2) past these, unless explicitly overridden.
DEFAULT_MAX_AGE_DAYS: Final[float] = 30.0
MAX_EMPTY_SHARE: Final[float] = 0.05  # share of golden queries with no results at all
# Share of a run's distinct unit ids that must be pages of the golden set's corpus (when the whole
# corpus is known; otherwise at least one must be a judged page): below it, every query scores ~0.
MIN_KNOWN_UNIT_SHARE: Final[float] = 0.5
CORPUS_DRIFT_SHARE: Final[float] = 0.05  # relative change in corpus pages that earns a warning
REFUSED_EXIT_CODE: Final[int] = 2

# Paired comparison.
BOOTSTRAP_RESAMPLES: Final[int] = 10_000
BOOTSTRAP_SEED: Final[int] = 20_240_917
CONFIDENCE_LEVEL: Final[float] = 0.95

# Metric families. `_judged` twins exist for every family but judged@k (trivially 1 there).
RANK_FAMILIES: Final[tuple[str, ...]] = (
    "recall",
    "ndcg",
    "mrr",
    "sufficient",
    "supporting_only",
    "judged",
    "gold_recall",
    "gold_ndcg",
)
# Families whose per-query value is 0/1: compared with exact McNemar as well as the bootstrap.
BINARY_FAMILIES: Final[frozenset[str]] = frozenset({"sufficient", "supporting_only", "gold_recall"})
# Families where a higher value is worse (verdicts flip) or neither (a coverage diagnostic).
LOWER_IS_BETTER: Final[frozenset[str]] = frozenset({"supporting_only"})
DIAGNOSTIC_FAMILIES: Final[frozenset[str]] = frozenset({"judged"})
# On the underspecified slice several units are acceptable and retrieving any one of them is
# success, so metrics whose denominator is "all acceptable units" (recall, graded nDCG) would
# punish a system for not returning every acceptable page: they are not reported there.
UNDERSPECIFIED_SKIPPED: Final[frozenset[str]] = frozenset({"recall", "ndcg"})
JUDGED_SUFFIX: Final[str] = "_judged"


def metric_key(family: str, k: int, judged_only: bool = False) -> str:
    return f"{family}@{k}{JUDGED_SUFFIX if judged_only else ''}"


def split_key(key: str) -> tuple[str, int, bool]:
    """`"ndcg@10_judged"` -> `("ndcg", 10, True)`."""
    family, _, rest = key.partition("@")
    judged_only = rest.endswith(JUDGED_SUFFIX)
    k = int(rest[: -len(JUDGED_SUFFIX)] if judged_only else rest)
    return family, k, judged_only


def families_for_slice(slice_name: str) -> tuple[str, ...]:
    if slice_name == "underspecified":
        return tuple(f for f in RANK_FAMILIES if f not in UNDERSPECIFIED_SKIPPED)
    return RANK_FAMILIES


def metric_keys(slice_name: str, ks: tuple[int, ...] = KS) -> list[str]:
    """Every key reported for a slice, in display order (default metrics, then judged-only twins)."""
    fams = families_for_slice(slice_name)
    keys = [metric_key(f, k) for f in fams for k in ks]
    keys += [metric_key(f, k, True) for f in fams if f != "judged" for k in ks]
    return keys


def conventions(
    relevance: Relevance = DEFAULT_RELEVANCE, gain: Gain = DEFAULT_GAIN
) -> dict[str, str]:
    """The declared conventions, as embedded in every report (JSON and human-readable)."""
    thr = (
        "labelled sufficient" if relevance == "sufficient" else "labelled sufficient or supporting"
    )
    if gain == "binary":
        gain_text = (
            f"nDCG@k (--gain binary, the default): gain 1 for a relevant unit ({thr}), 0 otherwise "
            "(as any tool computes from the default, binary qrels export); discount 1/log2(rank+1); "
            "ideal DCG per query from all its relevant judged units, not from the run"
        )
    else:
        gain_text = (
            "nDCG@k (--gain graded): linear graded gain sufficient=2, supporting=1, irrelevant/unjudged=0 "
            "(as any tool computes from a `--gain graded` export); discount 1/log2(rank+1); ideal DCG "
            "per query from all judged units of that query, not from the run"
        )
    return {
        "relevance": (
            f"relevant = {thr} (--relevance {relevance}); Recall@k = relevant units in top k / all "
            "relevant judged units of the query; MRR@k = 1/rank of the first relevant unit within k, else 0"
        ),
        "gain": gain_text,
        "tie_break": (
            "results ordered by score descending, then unit_id ascending (byte order); the run's own "
            "rank column is ignored. trec_eval breaks ties by docid descending, so tied runs can differ "
            "from trec_eval by design (docs/scoring.md)"
        ),
        "depth": f"only the top {max(KS)} results per query are read; deeper results never change a metric",
        "duplicates": (
            "a unit listed twice for one query keeps its highest score; repeats are counted where they "
            "can change a metric (the scored top of each ranking, and every judged unit)"
        ),
        "missing_queries": (
            "golden queries absent from the run, or with no results, score 0 on every metric and stay "
            "in the denominator; they are never dropped"
        ),
        "unknown_queries": "run queries that are not items of the golden version are ignored and counted",
        "unjudged": (
            "default metrics treat unjudged units as irrelevant (they keep their rank and earn nothing); "
            "metrics suffixed _judged remove unjudged units from the ranking first (condensed list), "
            "an optimistic bound; judged@k shows how far apart the two can be"
        ),
        "zero_relevant": (
            "a query with no relevant judged unit is excluded from every metric of its slice (one "
            "denominator per slice) and counted as n_excluded: nothing it could retrieve would count, "
            "so scoring it 0 would only dilute every system's mean equally, and in a validated golden "
            "set it signals a defect (the gold unit should be sufficient) to fix, not to average"
        ),
        "averaging": "per slice, the unweighted mean over its scored queries (each query weighs the same)",
        "sufficient_at_k": "sufficient@k = 1 if at least one unit labelled sufficient is in the top k",
        "supporting_only_at_k": (
            "supporting_only@k = 1 if the top k holds a supporting unit and no sufficient one "
            "(topically right, evidentially empty); lower is better"
        ),
        "judged_at_k": "judged@k = judged units in the top k / k (short rankings count empty slots as unjudged)",
        "gold_view": (
            "gold_recall@k (hit@k) and gold_ndcg@k score the item's gold unit alone, as in the KoPub "
            "single-gold recipe: 1 and 1/log2(rank+1) if the gold unit is in the top k"
        ),
        "underspecified": (
            "several units are acceptable (those labelled sufficient); sufficient@k = any acceptable "
            "unit retrieved is its headline. recall@k and ndcg@k are not reported there"
        ),
        "slices": "main, underspecified and regression are scored and reported separately, never pooled",
    }

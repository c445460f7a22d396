"""Per-query retrieval metrics, vectorised over a rank matrix.

The run is ordered once (declared tie-break), cut to the deepest cutoff, and laid out as an
(n_items, depth) matrix of grades; every metric at every k is then a cumulative sum or an argmax
over that matrix. No Python loop runs per query or per result, which is what lets scoring keep
pace with trec_eval's C code (benchmarks/score.py).

Grades in the matrix: 2 sufficient, 1 supporting, 0 irrelevant, UNJUDGED (-1) for a unit with no
judgment for that item, EMPTY (-2) for a rank the run did not fill.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalset_pipeline.core.scoring.conventions import (
    DEFAULT_GAIN,
    DEFAULT_RELEVANCE,
    GAINS,
    KS,
    RELEVANCE_THRESHOLDS,
    SUFFICIENT,
    SUPPORTING,
    Gain,
    Relevance,
    metric_key,
)
from evalset_pipeline.core.scoring.qrels import Qrels, index_strings
from evalset_pipeline.core.scoring.runs import Run

UNJUDGED = -1
EMPTY = -2


@dataclass(frozen=True)
class RankedRun:
    """The top `depth` results of every golden query, as matrices aligned with qrels items."""

    grades: np.ndarray  # (n_items, depth) int8, see module docstring
    gold: np.ndarray  # (n_items, depth) bool: the item's gold unit sits at this rank
    grades_judged: np.ndarray  # same, after removing unjudged units (condensed list)
    gold_judged: np.ndarray
    n_results: np.ndarray  # (n_items,) result rows returned per item (0: nothing came back)
    n_duplicates: int = 0  # rows dropped because the unit was already listed for that query
    n_unknown_rows: int = 0  # rows whose query id is not a golden item
    unknown_query_ids: tuple[str, ...] = field(default=())  # distinct unknown ids (all of them)


def _group_ranks(q: np.ndarray) -> np.ndarray:
    """0-based position of each row within its query, for rows grouped (contiguous) by query."""
    n = len(q)
    if n == 0:
        return np.zeros(0, np.int64)
    change = np.ones(n, bool)
    change[1:] = q[1:] != q[:-1]
    starts = np.flatnonzero(change)
    return np.arange(n) - np.repeat(starts, np.diff(np.append(starts, n)))


def _fill(
    n_items: int, depth: int, q: np.ndarray, rank: np.ndarray, values: np.ndarray, empty: int | bool
) -> np.ndarray:
    dtype = np.bool_ if isinstance(empty, bool) else np.int8
    out: np.ndarray = np.full((n_items, depth), empty, dtype=dtype)
    top = rank < depth
    out[q[top], rank[top]] = values[top]
    return out


def _declared_permutation(q: np.ndarray, scores: np.ndarray, units: pa.Array) -> np.ndarray | None:
    """Row order for the declared tie-break, or None when the rows are in that order already.

    Retrievers write runs grouped by query and best first, but break score ties their own way.
    For such a run only the tied rows need reordering (by unit id), which is far cheaper than a
    full sort; anything else (shuffled rows, ungrouped queries) gets the full sort.
    """
    n = len(q)
    if n < 2:
        return None
    same_q = q[1:] == q[:-1]
    block_starts = q[np.concatenate([[True], ~same_q])]
    grouped = len(np.unique(block_starts)) == len(block_starts)  # each query id starts one block
    if not grouped or (same_q & (scores[1:] > scores[:-1])).any():
        table = pa.table({"q": q, "s": scores, "u": units})
        keys = [("q", "ascending"), ("s", "descending"), ("u", "ascending")]
        return pc.sort_indices(table, sort_keys=keys).to_numpy()
    tie = same_q & (scores[1:] == scores[:-1])
    if not tie.any():
        return None
    pairs = np.flatnonzero(tie)
    if pc.all(pc.less(units.take(pa.array(pairs)), units.take(pa.array(pairs + 1)))).as_py():
        return None  # ties already by unit id ascending (equal ids, i.e. repeats, fail `less`)
    # Tie blocks are maximal runs of rows with the same query and score; sort inside them only.
    block = np.cumsum(np.concatenate([[True], ~tie]))
    in_tie = np.zeros(n, bool)
    in_tie[pairs] = True
    in_tie[pairs + 1] = True
    rows = np.flatnonzero(in_tie)
    sub = pa.table({"b": block[rows], "u": units.take(pa.array(rows))})
    inner = pc.sort_indices(sub, sort_keys=[("b", "ascending"), ("u", "ascending")]).to_numpy()
    perm = np.arange(n)
    perm[rows] = rows[inner]
    return perm


def _judgment_lookup(qrels: Qrels, q: np.ndarray, v: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Grade (UNJUDGED if none) and gold flag per row, from item index and vocabulary code.

    Only rows whose unit is judged or gold for some item (v >= 0) are looked up, as int64 keys
    with searchsorted; a unit judged for another item is still unjudged here.
    """
    row_grade = np.full(len(q), UNJUDGED, np.int8)
    row_gold = np.zeros(len(q), bool)
    keys = qrels.lookup_keys
    rows = np.flatnonzero(v >= 0)
    if len(keys) == 0 or len(rows) == 0:
        return row_grade, row_gold
    row_key = q[rows] * max(len(qrels.vocab), 1) + v[rows]
    pos = np.minimum(np.searchsorted(keys, row_key), len(keys) - 1)
    hit = keys[pos] == row_key
    row_grade[rows[hit]] = qrels.lookup_grade[pos[hit]]
    row_gold[rows[hit]] = qrels.lookup_gold[pos[hit]]
    return row_grade, row_gold


def _repeats(q: np.ndarray, code: np.ndarray, n_codes: int) -> np.ndarray:
    """True for rows whose (query, unit) pair already occurred earlier in the given order."""
    dup = np.zeros(len(q), bool)
    if len(q) < 2:
        return dup
    pair = q * max(n_codes, 1) + code
    by_pair = np.argsort(pair, kind="stable")  # stable: the earliest (best-scored) row comes first
    ps = pair[by_pair]
    dup[by_pair[1:][ps[1:] == ps[:-1]]] = True
    return dup


def rank_run(qrels: Qrels, run: Run, depth: int = max(KS)) -> RankedRun:
    """Order, de-duplicate and cut a run to `depth` per golden query.

    Only two prefixes of each ranking can change a metric: its first `depth` distinct units
    (default metrics) and its first `depth` distinct judged units (the `_judged` twins). Both are
    computed exactly; de-duplicating the rest of a long run would cost string hashing for
    nothing, so a repeated unjudged unit deeper than either prefix is neither dropped nor counted.
    """
    n_items = qrels.n_items
    q = index_strings(run.query_ids, qrels.item_ids)
    known = q >= 0
    n_unknown = int((~known).sum())
    unknown_ids: tuple[str, ...] = ()
    units, scores = run.unit_ids, run.scores
    if n_unknown:
        unknown_ids = tuple(sorted(pc.unique(run.query_ids.filter(pa.array(~known))).to_pylist()))
        q, units, scores = q[known], units.filter(pa.array(known)), scores[known]

    # Vocabulary codes (judged or gold units; -1 otherwise) are taken before any reordering so
    # that the sort below moves integers, not strings.
    v = index_strings(units, qrels.vocab, grouped=False)
    order = _declared_permutation(q, scores, units)
    if order is not None:
        q, v = q[order], v[order]
    n_results_raw = np.bincount(q, minlength=n_items)
    raw_rank = _group_ranks(q)
    grade, is_gold = _judgment_lookup(qrels, q, v)
    dup = np.zeros(len(q), bool)

    # Default list: de-duplicate the first 2*depth rows of every query exactly (string codes
    # for this window only). If a query still has fewer than `depth` distinct units there while
    # having more rows, widen to the whole run; that takes more than `depth` repeats in 2*depth.
    window = 2 * depth
    while True:
        win = np.flatnonzero(raw_rank < window) if window else np.arange(len(q))
        win_units = units.take(pa.array(order[win] if order is not None else win))
        enc = pc.dictionary_encode(win_units)
        win_dup = _repeats(
            q[win], enc.indices.to_numpy(zero_copy_only=False).astype(np.int64), len(enc.dictionary)
        )
        distinct = np.bincount(q[win][~win_dup], minlength=n_items)
        short = (distinct < depth) & (n_results_raw > window)
        if not window or not short.any():
            break
        window = 0
    dup[win[win_dup]] = True
    top = win[~win_dup]

    # Judged list: judged rows carry exact integer codes, so de-duplicate all of them.
    judged_rows = np.flatnonzero(grade >= 0)
    dup[judged_rows[_repeats(q[judged_rows], v[judged_rows], len(qrels.vocab))]] = True
    judged_rows = judged_rows[~dup[judged_rows]]

    q_top, q_j = q[top], q[judged_rows]
    rank, rank_j = _group_ranks(q_top), _group_ranks(q_j)
    return RankedRun(
        grades=_fill(n_items, depth, q_top, rank, grade[top], EMPTY),
        gold=_fill(n_items, depth, q_top, rank, is_gold[top], False),
        grades_judged=_fill(n_items, depth, q_j, rank_j, grade[judged_rows], EMPTY),
        gold_judged=_fill(n_items, depth, q_j, rank_j, is_gold[judged_rows], False),
        n_results=n_results_raw,
        n_duplicates=int(dup.sum()),
        n_unknown_rows=n_unknown,
        unknown_query_ids=unknown_ids,
    )


@dataclass(frozen=True)
class QueryScores:
    """Per-query metric values for every golden item (NaN where the item is not scored)."""

    version_id: str
    item_ids: np.ndarray  # object (n_items,)
    slices: np.ndarray  # object (n_items,)
    eligible: np.ndarray  # bool: at least one relevant judged unit (conventions: zero_relevant)
    n_results: np.ndarray  # int: result rows the run returned for the item (0 = missing)
    values: dict[str, np.ndarray]  # metric key -> (n_items,) float64
    ks: tuple[int, ...]
    relevance: Relevance
    n_duplicates: int = 0
    n_unknown_rows: int = 0
    unknown_query_ids: tuple[str, ...] = field(default=())
    gain: Gain = DEFAULT_GAIN


def _discounts(depth: int) -> np.ndarray:
    return 1.0 / np.log2(np.arange(2, depth + 2, dtype=np.float64))


def _rank_metrics(
    grades: np.ndarray,
    gold: np.ndarray,
    ks: tuple[int, ...],
    threshold: int,
    n_relevant: np.ndarray,
    idcg_cum: np.ndarray,
    suffix_judged: bool,
    gain: Gain = DEFAULT_GAIN,
) -> dict[str, np.ndarray]:
    """All metric families at all cutoffs from one (n_items, depth) grade matrix."""
    disc = _discounts(grades.shape[1])
    rel = grades >= threshold
    if gain == "binary":
        gains = rel.astype(np.float64)
    else:
        gains = np.clip(grades, 0, None).astype(np.float64)  # unjudged and empty slots earn nothing
    cum_rel = np.cumsum(rel, axis=1)
    cum_suff = np.cumsum(grades == SUFFICIENT, axis=1)
    cum_supp = np.cumsum(grades == SUPPORTING, axis=1)
    cum_judged = np.cumsum(grades >= 0, axis=1)
    cum_gold = np.cumsum(gold, axis=1)
    dcg = np.cumsum(gains * disc, axis=1)
    first_rel = np.where(rel.any(axis=1), rel.argmax(axis=1), grades.shape[1])  # 0-based rank
    gold_pos = np.where(gold.any(axis=1), gold.argmax(axis=1), grades.shape[1])
    with np.errstate(divide="ignore", invalid="ignore"):
        inv_first = 1.0 / (first_rel + 1.0)
        gold_gain = 1.0 / np.log2(gold_pos + 2.0)
        out: dict[str, np.ndarray] = {}
        for k in ks:
            c = k - 1
            suff = cum_suff[:, c] > 0
            out[metric_key("recall", k, suffix_judged)] = cum_rel[:, c] / n_relevant
            out[metric_key("ndcg", k, suffix_judged)] = dcg[:, c] / idcg_cum[:, c]
            out[metric_key("mrr", k, suffix_judged)] = np.where(first_rel < k, inv_first, 0.0)
            out[metric_key("sufficient", k, suffix_judged)] = suff.astype(np.float64)
            out[metric_key("supporting_only", k, suffix_judged)] = (
                (cum_supp[:, c] > 0) & ~suff
            ).astype(np.float64)
            if not suffix_judged:  # in the condensed list every listed unit is judged
                out[metric_key("judged", k)] = cum_judged[:, c] / float(k)
            out[metric_key("gold_recall", k, suffix_judged)] = (cum_gold[:, c] > 0).astype(
                np.float64
            )
            out[metric_key("gold_ndcg", k, suffix_judged)] = np.where(gold_pos < k, gold_gain, 0.0)
    return out


def score_ranked(
    qrels: Qrels,
    ranked: RankedRun,
    ks: tuple[int, ...] = KS,
    relevance: Relevance = DEFAULT_RELEVANCE,
    gain: Gain = DEFAULT_GAIN,
) -> QueryScores:
    depth = ranked.grades.shape[1]
    if max(ks) > depth:
        raise ValueError(f"cutoff {max(ks)} is deeper than the ranked depth {depth}")
    threshold = RELEVANCE_THRESHOLDS[relevance]
    n_relevant = qrels.n_at_or_above(threshold).astype(np.float64)
    eligible = n_relevant > 0
    ideal = qrels.ideal_gains(depth, binary_threshold=threshold if gain == "binary" else None)
    idcg_cum = np.cumsum(ideal * _discounts(depth), axis=1)
    values = _rank_metrics(
        ranked.grades, ranked.gold, ks, threshold, n_relevant, idcg_cum, False, gain
    )
    values.update(
        _rank_metrics(
            ranked.grades_judged,
            ranked.gold_judged,
            ks,
            threshold,
            n_relevant,
            idcg_cum,
            True,
            gain,
        )
    )
    has_gold = pc.is_valid(qrels.gold_unit_ids).to_numpy(zero_copy_only=False)
    for key, arr in values.items():
        arr[~eligible] = np.nan  # zero-relevant policy: excluded, and counted by the report
        if key.startswith("gold_"):
            arr[~has_gold] = np.nan  # nothing to look for; the slice mean skips these items
    return QueryScores(
        version_id=qrels.version_id,
        item_ids=np.asarray(qrels.item_ids.to_pylist(), dtype=object),
        slices=qrels.slices,
        eligible=eligible,
        n_results=ranked.n_results,
        values=values,
        ks=tuple(ks),
        relevance=relevance,
        n_duplicates=ranked.n_duplicates,
        n_unknown_rows=ranked.n_unknown_rows,
        unknown_query_ids=ranked.unknown_query_ids,
        gain=gain,
    )


def score_run(
    qrels: Qrels,
    run: Run,
    ks: tuple[int, ...] = KS,
    relevance: Relevance = DEFAULT_RELEVANCE,
    gain: Gain = DEFAULT_GAIN,
) -> QueryScores:
    """Every metric at every cutoff for every golden item (see conventions.py for the rules)."""
    if relevance not in RELEVANCE_THRESHOLDS:
        raise ValueError(
            f"relevance must be one of {sorted(RELEVANCE_THRESHOLDS)}, not {relevance!r}"
        )
    if gain not in GAINS:
        raise ValueError(f"gain must be one of {list(GAINS)}, not {gain!r}")
    ks = tuple(sorted(set(int(k) for k in ks)))
    if not ks or ks[0] < 1:
        raise ValueError("cutoffs must be positive integers")
    return score_ranked(
        qrels, rank_run(qrels, run, depth=max(ks)), ks=ks, relevance=relevance, gain=gain
    )

"""Comparative columns are evidence, not distractors.

A filing for Q3 2024 also prints Q3 2023. For a Q3 2023 question that page is not a period
negative: it may well answer it. So a period-axis candidate that prints the gold's period among
its own printed periods (`page_profiles.printed_periods`) is taken out of the negatives and kept
as a *comparative* of the gold: a source of the item's pool (core/evidence/pools.py), judged
with the rest of it: sufficient when it states the gold's answer (role `pooled`), a restatement
when it states another figure for that period (role `distractor` on the `revision` axis).

Vectorised: (page, period) pairs are encoded as integers once, and membership is one `np.isin`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace

import numpy as np
import pyarrow as pa

from evalset_pipeline.core.negatives.mining import MiningResult

__all__ = ["Comparative", "split_comparatives", "SCHEMA", "PERIOD_AXIS"]

PERIOD_AXIS = "period"
SCHEMA = pa.schema(
    [
        ("unit_id", pa.string()),
        ("comparative_unit_id", pa.string()),
        ("period", pa.string()),
        ("similarity", pa.float64()),
    ]
)


@dataclass(frozen=True)
class Comparative:
    unit_id: str  # the gold
    comparative_unit_id: str  # a page that prints the gold's period
    period: str
    similarity: float


def split_comparatives(
    result: MiningResult, periods: Sequence[str], printed: Mapping[str, Sequence[str]], k: int
) -> tuple[MiningResult, list[Comparative]]:
    """Period negatives of `result` whose page prints the gold's period become comparatives; the
    others keep their order, and each (gold, axis) keeps its best `k` (mine with a few spare)."""
    if PERIOD_AXIS not in result.axis_names or not len(result):
        return _keep_top(result, np.ones(len(result), bool), k), []
    ids = result.unit_ids
    row_of = {u: i for i, u in enumerate(ids)}
    vocab: dict[str, int] = {}
    gold_period = np.array(
        [vocab.setdefault(p, len(vocab)) if p else -1 for p in periods], dtype=np.int64
    )
    pairs = np.array(
        [
            row_of[u] * (1 << 20) + vocab.setdefault(p, len(vocab))
            for u, ps in printed.items()
            if u in row_of
            for p in ps
        ],
        dtype=np.int64,
    )
    period_axis = result.axis_names.index(PERIOD_AXIS)
    on_axis = result.axis == period_axis
    wanted = gold_period[result.gold]
    keys = result.negative * (1 << 20) + wanted
    comparative = on_axis & (wanted >= 0) & np.isin(keys, pairs)
    found = [
        Comparative(ids[g], ids[c], periods[g], float(s))
        for g, c, s in zip(
            result.gold[comparative].tolist(),
            result.negative[comparative].tolist(),
            result.similarity[comparative].tolist(),
            strict=False,
        )
    ]
    return _keep_top(result, ~comparative, k), found


def _keep_top(result: MiningResult, keep: np.ndarray, k: int) -> MiningResult:
    """Rows in `keep`, re-ranked 1.. within each (gold, axis), at most k each (rows are sorted by gold, axis, rank)."""
    gold, axis = result.gold[keep], result.axis[keep]
    if gold.size:
        new_group = np.r_[True, (gold[1:] != gold[:-1]) | (axis[1:] != axis[:-1])]
        starts = np.flatnonzero(new_group)
        rank = np.arange(gold.size) - np.repeat(starts, np.diff(np.r_[starts, gold.size])) + 1
    else:
        rank = np.zeros(0, np.int64)
    top = rank <= k
    idx = np.flatnonzero(keep)[top]
    return replace(
        result,
        gold=result.gold[idx],
        negative=result.negative[idx],
        axis=result.axis[idx],
        rank=rank[top].astype(np.int32),
        similarity=result.similarity[idx],
    )

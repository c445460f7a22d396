"""Negatives by axis for table pages: the same table one axis away, not the nearest look.

A page that prints a table (`table_signature`) gets its negatives from its table's identity,
with the same pooled miner (`mining.mine_hard_negatives`) fed other columns:

  template  the table's kind: statements beside statements, other tables beside other tables
  metric    the table's family (pages of one family print the same table) and the measure
            the page metadata reads off its heading
  period    and entity as the page metadata reads them (the period's kind held fixed)

so the miner's pools read, for a table gold:

  period    the same table of the same filer for another period (a page that prints the gold's
            period is evidence, not a negative: `comparatives.split_comparatives` takes it out)
  entity    the same table or statement of another filer for the same period
  metric    another table of the same kind of the same filer and period (another statement, or
            another row block of one)

A table page with every pool empty takes its nearest pages of the same kind, recorded as
`appearance` (never a one-axis negative). Every other page is mined as before, by visual
template. Boilerplate pages (covers, contents, signatures, certifications, exhibit lists,
pages with no figure: `metadata/unaskable.py`) are never anyone's negative.

Each page is a gold in exactly one of the two miner calls (`MiningInput.queries`), so mining
costs what it cost before, plus the grouping of tables into families.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

import numpy as np

from evalset_pipeline.core.negatives.mining import (
    MiningInput,
    MiningResult,
    mine_hard_negatives,
    reading_order,
)
from evalset_pipeline.core.negatives.table_signature import (
    TableSignature,
    table_families,
    table_kind,
)

__all__ = ["METRIC_AXIS", "merge_results", "mine_by_table"]

METRIC_AXIS = "metric"


def mine_by_table(
    data: MiningInput,
    axes: Sequence[str],
    k: int,
    signatures: Mapping[str, TableSignature],
    boilerplate: Sequence[bool] | np.ndarray,
) -> MiningResult:
    """Negatives of every page: table pages by table identity, the others by visual template."""
    ids = list(data.unit_ids)
    skip = np.asarray(boilerplate, bool).tolist()
    families = table_families(
        [signatures[u] for u, b in zip(ids, skip, strict=True) if u in signatures and not b]
    )
    kinds = [table_kind(signatures[u]) if u in families else "" for u in ids]
    is_table = np.array([k != "" for k in kinds], dtype=bool)
    templates = ["" if b else t for t, b in zip(data.templates, skip, strict=True)]
    visual = replace(data, templates=templates, queries=~is_table)
    axis_values = dict(data.axis_values)
    if METRIC_AXIS in axes:
        # A table is its rows *and* the measure its heading names: segments by revenue and the
        # same segments by headcount are two tables (one is the other's metric distractor).
        measure = data.axis_values[METRIC_AXIS]
        axis_values[METRIC_AXIS] = [
            f"{families[u]}|{measure[i]}" if u in families else "" for i, u in enumerate(ids)
        ]
    by_table = replace(data, templates=kinds, axis_values=axis_values, queries=is_table)
    return merge_results(
        mine_hard_negatives(visual, axes, k), mine_hard_negatives(by_table, axes, k)
    )


def merge_results(a: MiningResult, b: MiningResult) -> MiningResult:
    """Two results over the same pages and axes as one, sorted as the miner sorts (gold's unit id,
    axis, rank)."""
    if list(a.unit_ids) != list(b.unit_ids) or a.axis_names != b.axis_names:
        raise ValueError("only results over the same pages and axes can be merged")
    gold = np.concatenate([a.gold, b.gold])
    axis = np.concatenate([a.axis, b.axis])
    rank = np.concatenate([a.rank, b.rank])
    order = reading_order(a.unit_ids, gold, axis, rank)
    return MiningResult(
        unit_ids=a.unit_ids,
        axis_names=a.axis_names,
        gold=gold[order],
        negative=np.concatenate([a.negative, b.negative])[order],
        axis=axis[order],
        rank=rank[order],
        similarity=np.concatenate([a.similarity, b.similarity])[order],
        pool_sizes={
            x: np.concatenate([a.pool_sizes.get(x, []), b.pool_sizes.get(x, [])]).astype(np.int64)
            for x in a.pool_sizes.keys() | b.pool_sizes.keys()
        },
        empty_pools={
            x: a.empty_pools.get(x, 0) + b.empty_pools.get(x, 0)
            for x in a.empty_pools.keys() | b.empty_pools.keys()
        },
        fallback_pages=a.fallback_pages + b.fallback_pages,
        lonely_pages=sorted({*a.lonely_pages, *b.lonely_pages}),
        pages_without_negatives=sorted({*a.pages_without_negatives, *b.pages_without_negatives}),
    )

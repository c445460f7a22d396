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
  metric    another table of the same kind of the same filer and period (another statement of
            the filing; another MD&A or note table). A statement's pages are one family, so
            another row block of the same statement is not yet a metric distractor

A table page with every pool empty takes its nearest pages of its visual template, recorded as
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
    Column,
    MiningInput,
    MiningResult,
    encode,
    mine_hard_negatives,
    reading_order,
)
from evalset_pipeline.core.negatives.table_signature import (
    TableSignature,
    family_numbers,
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
    """Negatives of every page: table pages by table identity, the others by visual template.
    Columns are encoded once for both miner calls, and sorted once when merged."""
    ids = data.unit_ids
    n = len(ids)
    skip = np.asarray(boilerplate, bool)
    row_of = {u: i for i, u in enumerate(ids)}
    found = [(row_of[u], s) for u, s in signatures.items() if u in row_of and not skip[row_of[u]]]
    rows = np.fromiter((r for r, _ in found), np.int64, len(found))
    tables = [s for _, s in found]
    is_table = np.zeros(n, bool)
    is_table[rows] = True
    kinds = np.full(n, -1, np.int64)
    kinds[rows] = encode([table_kind(s) for s in tables])
    templates = encode(data.templates)
    templates[skip] = -1
    codes = {a: encode(v) for a, v in data.axis_values.items()}
    values: dict[str, Column] = dict(codes)
    base = replace(
        data,
        templates=templates,
        axis_values=values,
        render_hashes=encode(data.render_hashes),
        text_hashes=encode(data.text_hashes),
        fixed={name: encode(v) for name, v in data.fixed.items()},
    )
    by_table: dict[str, Column] = dict(codes)
    if METRIC_AXIS in axes:
        # A table is its rows *and* the measure its heading names: segments by revenue and the
        # same segments by headcount are two tables (one is the other's metric distractor).
        measure = codes[METRIC_AXIS]
        family = np.full(n, -1, np.int64)
        family[rows] = family_numbers(tables)[0]
        by_table[METRIC_AXIS] = np.where(
            is_table, family * (int(measure.max(initial=0)) + 2) + measure + 1, -1
        )
    visual = replace(base, queries=~is_table)
    twins = replace(
        base,
        templates=kinds,
        axis_values=by_table,
        queries=is_table,
        fallback_templates=templates,
    )
    return merge_results(
        mine_hard_negatives(visual, axes, k, ordered=False),
        mine_hard_negatives(twins, axes, k, ordered=False),
    )


def merge_results(a: MiningResult, b: MiningResult) -> MiningResult:
    """Two results over the same pages and axes as one, sorted as the miner sorts (gold's unit id,
    axis, rank)."""
    if a.unit_ids is not b.unit_ids and list(a.unit_ids) != list(b.unit_ids):
        raise ValueError("only results over the same pages and axes can be merged")
    if a.axis_names != b.axis_names:
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

"""Relevance judgments in the shape the scorer needs, built from a golden set's tables.

Items and judgments become integer-indexed numpy arrays once, so scoring a run is array work
rather than dictionary lookups per result.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.scoring.conventions import GRADES, SLICES


@dataclass(frozen=True)
class Qrels:
    """Judgments of one golden version.

    Items are indexed 0..n_items-1 in golden order. Judgments are parallel arrays, one row per
    distinct (item, unit) pair, grouped by item.
    """

    version_id: str
    item_ids: pa.Array  # string, unique
    slices: np.ndarray  # object (n_items,): main | underspecified | regression
    gold_unit_ids: pa.Array  # string (n_items,), null when an item has no gold unit
    j_item: np.ndarray  # int64 (n_judgments,): index into item_ids
    j_unit: pa.Array  # string (n_judgments,)
    j_grade: np.ndarray  # int8 (n_judgments,): 2 sufficient, 1 supporting, 0 irrelevant
    # Lookup for scoring, independent of any run: every unit that is judged or gold somewhere
    # gets a code in `vocab`; (item, unit) pairs become sorted int64 keys item * len(vocab) + code.
    vocab: pa.Array  # string, unique
    lookup_keys: np.ndarray  # int64, sorted, unique
    lookup_grade: np.ndarray  # int8: grade, or -1 for a gold unit without a judgment
    lookup_gold: np.ndarray  # bool: the pair is the item's gold unit
    warnings: tuple[str, ...] = field(default=())

    @property
    def n_items(self) -> int:
        return len(self.item_ids)

    def n_at_or_above(self, grade: int) -> np.ndarray:
        """Per item, how many judged units have at least `grade` (the Recall@k denominator)."""
        return np.bincount(self.j_item[self.j_grade >= grade], minlength=self.n_items)

    def ideal_gains(self, depth: int, binary_threshold: int | None = None) -> np.ndarray:
        """(n_items, depth) best possible gains per rank: all judged grades sorted descending.

        The nDCG ideal comes from the judgments, never from the run, so a run cannot raise its own
        score by leaving good units out. Built from per-item counts of each grade (no sort).
        With `binary_threshold`, every unit graded at least that has gain 1 and the rest 0.
        """
        out = np.zeros((self.n_items, depth), dtype=np.float64)
        pos = np.arange(depth)[None, :]
        if binary_threshold is not None:
            out[pos < self.n_at_or_above(binary_threshold)[:, None]] = 1.0
            return out
        filled = np.zeros((self.n_items, 1), dtype=np.int64)
        for grade in sorted({g for g in GRADES.values() if g > 0}, reverse=True):
            count = np.bincount(self.j_item[self.j_grade == grade], minlength=self.n_items)[:, None]
            out[(pos >= filled) & (pos < filled + count)] = grade
            filled = filled + count
        return out

    def to_trec(self) -> dict[str, dict[str, int]]:
        """Graded qrels as trec_eval / pytrec_eval take them: {item_id: {unit_id: grade}}."""
        items = self.item_ids.to_pylist()
        out: dict[str, dict[str, int]] = {}
        for i, unit, grade in zip(
            self.j_item.tolist(), self.j_unit.to_pylist(), self.j_grade.tolist(), strict=False
        ):
            out.setdefault(items[i], {})[unit] = int(grade)
        return out


def _string_column(table: pa.Table, name: str) -> pa.Array:
    col = table.column(name).combine_chunks()
    return col if pa.types.is_string(col.type) else pc.cast(col, pa.string())


def index_strings(values: pa.Array, value_set: pa.Array, *, grouped: bool = True) -> np.ndarray:
    """Position of each value in `value_set` (-1 when absent), as int64.

    Runs and judgments list one query's rows together, so with `grouped` hashing one value per
    run of equal values instead of one per row makes this several times faster; the result is
    the same for any input order. Pass grouped=False for columns that rarely repeat in a row.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, np.int64)
    if not grouped:
        return (
            pc.index_in(values, value_set=value_set)
            .fill_null(-1)
            .to_numpy(zero_copy_only=False)
            .astype(np.int64)
        )
    change = np.ones(n, bool)
    if n > 1:
        change[1:] = (
            pc.not_equal(values[1:], values[:-1]).fill_null(True).to_numpy(zero_copy_only=False)
        )
    starts = np.flatnonzero(change)
    if len(starts) * 4 > n:  # hardly any runs: hash every row
        return (
            pc.index_in(values, value_set=value_set)
            .fill_null(-1)
            .to_numpy(zero_copy_only=False)
            .astype(np.int64)
        )
    found = pc.index_in(values.take(pa.array(starts)), value_set=value_set).fill_null(-1)
    return np.repeat(
        found.to_numpy(zero_copy_only=False).astype(np.int64), np.diff(np.append(starts, n))
    )


def _member(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """np.isin for int64 keys against an already sorted array (isin would sort both again)."""
    if len(sorted_set) == 0:
        return np.zeros(len(values), bool)
    pos = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[pos] == values


def qrels_from_tables(items: pa.Table, judgments: pa.Table, version_id: str = "") -> Qrels:
    """Build qrels from `golden_items` and `golden_judgments` tables (schema.py columns).

    Only `item_id`, `slice` and `gold_unit_id` of items and `item_id`, `unit_id`, `label` of
    judgments are read, so tests can pass minimal tables.
    """
    warnings: list[str] = []
    item_ids = _string_column(items, "item_id")
    if item_ids.null_count:
        raise ValueError("golden items with a null item_id")
    if pc.count_distinct(item_ids).as_py() != len(item_ids):
        raise ValueError("golden item_ids are not unique; queries could not be told apart")
    slices = np.asarray(_string_column(items, "slice").to_pylist(), dtype=object)
    unknown_slices = sorted({str(s) for s in slices.tolist() if s not in SLICES})
    if unknown_slices:
        raise ValueError(f"unknown slice(s) {unknown_slices}; expected one of {list(SLICES)}")
    if "gold_unit_id" in items.column_names:
        gold = _string_column(items, "gold_unit_id")
        gold = pc.if_else(pc.equal(gold, ""), pa.scalar(None, pa.string()), gold)  # "" means none
    else:
        gold = pa.nulls(len(item_ids), pa.string())

    j_item = index_strings(_string_column(judgments, "item_id"), item_ids)
    j_unit = _string_column(judgments, "unit_id")
    labels = _string_column(judgments, "label")
    label_idx = index_strings(labels, pa.array(list(GRADES.keys())), grouped=False)
    label_valid = pc.is_valid(labels).to_numpy(zero_copy_only=False)
    bad = label_valid & (label_idx < 0)
    if bad.any():
        found = sorted(set(labels.filter(pa.array(bad)).to_pylist()))
        raise ValueError(f"unknown judgment label(s) {found[:5]}; expected one of {list(GRADES)}")
    orphans = int((label_valid & (j_item < 0)).sum())
    if orphans:
        warnings.append(
            f"{orphans} judgment(s) refer to items not in the golden set and were ignored"
        )
    # A null label means "not judged": such a row is not a judgment at all.
    usable = (j_item >= 0) & (label_idx >= 0) & pc.is_valid(j_unit).to_numpy(zero_copy_only=False)
    if not usable.all():
        j_item, label_idx = j_item[usable], label_idx[usable]
        j_unit = j_unit.filter(pa.array(usable))
    j_grade = np.asarray(list(GRADES.values()), np.int8)[label_idx]

    # Units get integer codes; gold units join the vocabulary too, so the gold view finds a gold
    # unit even if nobody labelled it.
    enc = pc.dictionary_encode(j_unit)
    u_code = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    vocab = enc.dictionary
    gold_valid = pc.is_valid(gold).to_numpy(zero_copy_only=False)
    gold_items = np.flatnonzero(gold_valid)
    gold_units = gold.filter(pa.array(gold_valid))
    g_code = index_strings(gold_units, vocab, grouped=False)
    missing = g_code < 0
    if missing.any():
        extra = pc.unique(gold_units.filter(pa.array(missing)))
        g_code[missing] = len(vocab) + index_strings(
            gold_units.filter(pa.array(missing)), extra, grouped=False
        )
        vocab = pa.concat_arrays([vocab, extra])
    n_vocab = max(len(vocab), 1)

    # One (item, unit) pair, one label: a unit judged twice for an item keeps its highest label.
    # Sorting by the pair key (item-major) with the best grade first does the de-duplication and
    # yields the sorted lookup keys in the same pass.
    pair = j_item * n_vocab + u_code
    order = np.lexsort((-j_grade.astype(np.int16), pair))
    pair = pair[order]
    first = np.ones(len(pair), bool)
    first[1:] = pair[1:] != pair[:-1]
    if not first.all():
        warnings.append(
            f"{int((~first).sum())} duplicate (item, unit) judgment(s); the highest label was kept"
        )
    keep = order[first]
    j_item, j_grade, keys = j_item[keep], j_grade[keep], pair[first]
    j_unit = j_unit.take(pa.array(keep))

    # The gold unit should carry a judgment (it is labelled like every other candidate); if it
    # does not, relevance-based metrics cannot see it, so say so.
    g_keys = gold_items * n_vocab + g_code
    judged_gold = _member(g_keys, keys)
    is_gold = _member(keys, np.sort(g_keys))
    grade = j_grade
    if not judged_gold.all():
        warnings.append(f"{int((~judged_gold).sum())} item(s) have a gold unit without a judgment")
        unjudged = g_keys[~judged_gold]
        keys = np.concatenate([keys, unjudged])
        grade = np.concatenate([grade, np.full(len(unjudged), -1, np.int8)])
        is_gold = np.concatenate([is_gold, np.ones(len(unjudged), bool)])
        order = np.argsort(keys, kind="stable")
        keys, grade, is_gold = keys[order], grade[order], is_gold[order]

    return Qrels(
        version_id=version_id,
        item_ids=item_ids,
        slices=slices,
        gold_unit_ids=gold,
        j_item=j_item,
        j_unit=j_unit,
        j_grade=j_grade.astype(np.int8),
        vocab=vocab,
        lookup_keys=keys,
        lookup_grade=grade.astype(np.int8),
        lookup_gold=is_gold,
        warnings=tuple(warnings),
    )


def qrels_from_golden(golden: GoldenSet) -> Qrels:
    return qrels_from_tables(golden.items, golden.judgments, version_id=golden.version_id)

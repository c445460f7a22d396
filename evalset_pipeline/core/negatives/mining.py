"""Hard negatives: pages that look like the gold page and differ on exactly one axis.

For axis A, a page's pool is every page of its template whose other configured axes equal the
page's own and whose A differs (the seed's `hard_negatives`, generalised to any set of axes).
Inside a pool, candidates are ordered by appearance similarity and the nearest k are kept. A page
whose pools are all empty falls back to its nearest template siblings (axis `appearance`).
Duplicates of the gold (same render, or same text and near-identical render) are never negatives:
they would answer the question and be scored as wrong.

How it scales (400,000 pages in well under a minute on two cores, see benchmarks/mining.py):
pools are never materialised per page. For axis A the rows are sorted once by (template, other
axes, A), so every pool group is a contiguous run. Groups are then batched by padded size: all
groups of (padded) size P are stacked into a (B, P, d) array, one batched matmul gives their
(B, P, P) similarities, masks remove same-A pairs and duplicates, and one argpartition takes the
top k of every row at once. There is no Python loop over pages or over small groups; only
groups larger than `_BATCH_MAX` pages are searched one at a time, in row blocks bounded to about
`_BLOCK_ELEMENTS` similarities, so a 100,000-page template never needs a 100k x 100k matrix.
The result is columnar (row indices, axis codes, ranks, similarities); `negatives` builds the
per-negative objects on demand and `to_table()` the Arrow table the pipeline stores.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

FALLBACK_AXIS = "appearance"
NEAR_DUPLICATE_SIMILARITY = 0.995
_BATCH_MAX = 512  # groups up to this (padded) size are searched in stacked batches
_BLOCK_ELEMENTS = 1 << 22  # similarities per batch/block (16 MB of float32), bounds peak memory

SCHEMA = pa.schema(
    [
        ("unit_id", pa.string()),
        ("negative_unit_id", pa.string()),
        ("axis", pa.string()),
        ("rank", pa.int64()),
        ("similarity", pa.float64()),
    ]
)


# A column of per-page values: strings ("" = unknown), or int codes from `encode` (-1 = unknown).
Column = Sequence[str] | np.ndarray


@dataclass(frozen=True)
class Negative:
    unit_id: str
    negative_unit_id: str
    axis: str
    rank: int  # 1 = most similar within this axis' pool
    similarity: float


@dataclass
class MiningInput:
    unit_ids: Sequence[str]
    templates: Column  # "" = no template known: such pages are neither golds nor negatives
    axis_values: dict[str, Column]  # axis -> value per page ("" = unknown)
    embeddings: np.ndarray  # (n, d), L2-normalised
    render_hashes: Column
    text_hashes: Column
    # Columns held equal in every pool without being an axis: the period's kind (quarter, year,
    # month), so the period axis compares like with like (a quarter's distractor is another quarter).
    fixed: dict[str, Column] = field(default_factory=dict)
    # Pages that want negatives (None = every page with a template). The others stay candidates:
    # the pipeline mines table pages and other pages in two calls, each page a gold in one of them.
    queries: np.ndarray | None = None
    # The groups the appearance fallback searches (None = `templates`): table pages are pooled by
    # table kind, far too wide a group to search by look; their fallback is their visual template.
    fallback_templates: Column | None = None


@dataclass
class MiningResult:
    """Columnar: negative i is (unit_ids[gold[i]], unit_ids[negative[i]], axis_names[axis[i]], rank[i])."""

    unit_ids: Sequence[str]
    axis_names: list[str]  # configured axes, then FALLBACK_AXIS
    gold: np.ndarray  # row of the gold page, int64
    negative: np.ndarray  # row of the negative page, int64
    axis: np.ndarray  # index into axis_names, int8
    rank: np.ndarray  # 1 = most similar in that pool, int32
    similarity: np.ndarray  # float32
    pool_sizes: dict[
        str, np.ndarray
    ]  # axis -> pool size of every page with a template and a value on that axis
    empty_pools: dict[str, int]  # axis -> pages with an empty pool
    fallback_pages: int  # pages that got appearance-fallback negatives
    lonely_pages: list[str]  # pages whose template has a single page: no distractors possible
    pages_without_negatives: list[str] = field(
        default_factory=list
    )  # with a template, yet no negative at all

    def __len__(self) -> int:
        return int(self.gold.size)

    @cached_property
    def negatives(self) -> list[Negative]:
        ids, names = self.unit_ids, self.axis_names
        return [
            Negative(ids[g], ids[c], names[a], r, s)
            for g, c, a, r, s in zip(
                self.gold.tolist(),
                self.negative.tolist(),
                self.axis.tolist(),
                self.rank.tolist(),
                self.similarity.astype(np.float64).tolist(),
                strict=False,
            )
        ]

    def to_table(self) -> pa.Table:
        ids = pa.array(list(self.unit_ids), pa.string())
        return pa.table(
            {
                "unit_id": ids.take(pa.array(self.gold)),
                "negative_unit_id": ids.take(pa.array(self.negative)),
                "axis": pa.array(self.axis_names, pa.string()).take(
                    pa.array(self.axis.astype(np.int64))
                ),
                "rank": pa.array(self.rank.astype(np.int64)),
                "similarity": pa.array(self.similarity.astype(np.float64)),
            },
            schema=SCHEMA,
        )

    def counts_by_axis(self) -> dict[str, int]:
        counts = np.bincount(self.axis.astype(np.int64), minlength=len(self.axis_names))
        return {a: int(c) for a, c in zip(self.axis_names, counts, strict=False) if c}


def _encode(values: Column) -> tuple[np.ndarray, np.ndarray]:
    """(int code per value, mask of non-empty values); None counts as empty. An integer array
    is taken as codes already (-1 = empty): `encode` gives them, so a caller mining one corpus
    twice encodes its strings once."""
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        inverse = np.unique(values, return_inverse=True)[1]
        return inverse.astype(np.int64).reshape(-1), values >= 0
    arr = (
        values
        if isinstance(values, pa.Array)
        else pa.array(
            list(values) if not isinstance(values, np.ndarray) else values,
            type=pa.string(),
            from_pandas=True,
        )
    )
    arr = pc.fill_null(arr, "")
    encoded = arr.dictionary_encode()
    codes = encoded.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    dictionary = encoded.dictionary.to_pylist()
    present = codes != dictionary.index("") if "" in dictionary else np.ones(codes.size, dtype=bool)
    return codes, present


def encode(values: Column) -> np.ndarray:
    """Int codes of string values, -1 for empty ones: a column `MiningInput` takes as it is."""
    codes, present = _encode(values)
    return np.where(present, codes, -1)


def _combine(columns: list[np.ndarray]) -> np.ndarray:
    """One dense int code per distinct tuple of the columns."""
    key = columns[0]
    if key.size == 0:
        return key.astype(np.int64)
    for c in columns[1:]:
        key = key * (int(c.max()) + 1) + c
        key = np.unique(key, return_inverse=True)[1].astype(np.int64).reshape(-1)
    return key


def _runs(*sorted_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(start, length) of each run of equal value tuples in arrays sorted by those tuples."""
    size = sorted_keys[0].size
    if size == 0:
        return np.zeros(0, np.int64), np.zeros(0, np.int64)
    change = np.zeros(size, dtype=bool)
    change[0] = True
    for key in sorted_keys:
        change[1:] |= key[1:] != key[:-1]
    starts = np.flatnonzero(change)
    return starts, np.diff(np.r_[starts, size])


def _any_in_runs(flags: np.ndarray, starts: np.ndarray) -> np.ndarray:
    """Per run (given by its start in `flags`' order): whether any of its flags is set."""
    if not starts.size:
        return np.zeros(0, bool)
    return np.add.reduceat(flags.astype(np.int64), starts) > 0


def _top(sims: np.ndarray, k: int) -> tuple[np.ndarray, np.ndarray]:
    """Column positions and values of the k largest entries of each row, best first."""
    m = sims.shape[-1]
    if k < m:
        pos = np.argpartition(sims, m - k, axis=-1)[..., m - k :]
    else:
        pos = np.broadcast_to(np.arange(m), sims.shape).copy()
    vals = np.take_along_axis(sims, pos, axis=-1)
    order = np.argsort(-vals, axis=-1, kind="stable")
    return np.take_along_axis(pos, order, axis=-1), np.take_along_axis(vals, order, axis=-1)


class _Collector:
    """Negatives found so far, as column chunks (gold row, negative row, rank, similarity)."""

    def __init__(self) -> None:
        self.parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []

    def add(self, gold: np.ndarray, neg: np.ndarray, vals: np.ndarray) -> None:
        """gold (r,), neg/vals (r, k) best first; -inf marks no candidate."""
        keep = vals > -np.inf
        if not keep.any():
            return
        rank = np.broadcast_to(np.arange(1, vals.shape[1] + 1, dtype=np.int32), vals.shape)
        self.parts.append(
            (np.broadcast_to(gold[:, None], vals.shape)[keep], neg[keep], rank[keep], vals[keep])
        )

    def arrays(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        if not self.parts:
            return (
                np.zeros(0, np.int64),
                np.zeros(0, np.int64),
                np.zeros(0, np.int32),
                np.zeros(0, np.float32),
            )
        return tuple(np.concatenate([p[i] for p in self.parts]) for i in range(4))  # type: ignore[return-value]


class _Searcher:
    """Nearest allowed siblings inside contiguous groups of `order` (row ids)."""

    def __init__(self, emb: np.ndarray, render: np.ndarray, text: np.ndarray, k: int):
        self.emb, self.render, self.text, self.k = emb, render, text, k

    def run(
        self,
        order: np.ndarray,
        starts: np.ndarray,
        sizes: np.ndarray,
        query: np.ndarray,
        code: np.ndarray | None,
    ) -> _Collector:
        """Every row r of a group with query[r] gets its k nearest group members that differ from it
        on `code` (or any member but itself when `code` is None) and do not duplicate it."""
        out = _Collector()
        padded = np.where(
            sizes <= 16, sizes, 1 << np.ceil(np.log2(np.maximum(sizes, 1))).astype(np.int64)
        )
        for p in np.unique(padded[padded <= _BATCH_MAX]):
            sel = np.flatnonzero(padded == p)
            step = max(
                1, min(_BLOCK_ELEMENTS // (p * p), _BLOCK_ELEMENTS // (p * self.emb.shape[1]))
            )
            for a in range(0, sel.size, step):
                g = sel[a : a + step]
                self._batch(order, starts[g], sizes[g], int(p), query, code, out)
        for big in np.flatnonzero(padded > _BATCH_MAX):
            self._large(order[starts[big] : starts[big] + sizes[big]], query, code, out)
        return out

    def _allowed(
        self, sims: np.ndarray, rows: np.ndarray, cols: np.ndarray, code: np.ndarray | None
    ) -> np.ndarray:
        r, c = rows[..., :, None], cols[..., None, :]
        dup = (self.render[r] == self.render[c]) | (
            (self.text[r] == self.text[c]) & (sims >= NEAR_DUPLICATE_SIMILARITY)
        )
        if code is None:
            return ~dup  # a row is its own duplicate, so self is excluded too
        return ~dup & (code[r] != code[c])

    def _batch(
        self,
        order: np.ndarray,
        starts: np.ndarray,
        sizes: np.ndarray,
        p: int,
        query: np.ndarray,
        code: np.ndarray | None,
        out: _Collector,
    ) -> None:
        span = np.arange(p)
        real = span[None, :] < sizes[:, None]  # (B, p)
        rows = order[
            np.where(real, starts[:, None] + span[None, :], starts[:, None])
        ]  # padding repeats the first row
        vecs = self.emb[rows]  # (B, p, d)
        sims = np.matmul(vecs, vecs.transpose(0, 2, 1))
        ok = self._allowed(sims, rows, rows, code) & real[:, None, :]
        sims[~ok] = -np.inf
        top, vals = _top(sims, min(self.k, p))
        is_gold = real & query[rows]
        b, i = np.nonzero(is_gold)
        out.add(rows[b, i], rows[b[:, None], top[b, i]], vals[b, i])

    def _large(
        self, members: np.ndarray, query: np.ndarray, code: np.ndarray | None, out: _Collector
    ) -> None:
        golds = members[query[members]]
        block = max(1, _BLOCK_ELEMENTS // members.size)
        member_vecs = self.emb[members]
        for a in range(0, golds.size, block):
            q = golds[a : a + block]
            sims = self.emb[q] @ member_vecs.T
            sims[~self._allowed(sims, q, members, code)] = -np.inf
            top, vals = _top(sims, min(self.k, members.size))
            out.add(q, members[top], vals)


def reading_order(
    unit_ids: Sequence[str], gold: np.ndarray, axis: np.ndarray, rank: np.ndarray
) -> np.ndarray:
    """The order a reader expects negatives in: by gold's unit id, axis in configured order, rank."""
    n = len(unit_ids)
    id_rank = np.empty(n, dtype=np.int64)
    id_rank[pc.sort_indices(pa.array(list(unit_ids), pa.string())).to_numpy()] = np.arange(n)
    return np.lexsort((rank, axis, id_rank[gold]))


def mine_hard_negatives(
    data: MiningInput, axes: Sequence[str], k: int = 2, *, ordered: bool = True
) -> MiningResult:
    """Negatives of every asked page (see the module's docstring); `ordered=False` leaves them
    unsorted, for a caller that merges results and sorts once."""
    axes = list(axes)
    n = len(data.unit_ids)
    template_codes, has_template = _encode(data.templates)
    render, _ = _encode(data.render_hashes)
    text, _ = _encode(data.text_hashes)
    emb = np.ascontiguousarray(data.embeddings, dtype=np.float32)
    coded = {a: _encode(data.axis_values[a]) for a in axes}
    fixed = [_encode(v)[0] for v in data.fixed.values()]
    searcher = _Searcher(emb, render, text, k)
    asked = np.ones(n, dtype=bool) if data.queries is None else np.asarray(data.queries, bool)

    parts: list[tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, int]] = []
    has_negative = np.zeros(n, dtype=bool)
    pool_sizes: dict[str, np.ndarray] = {}
    empty_pools: dict[str, int] = {}
    for axis_id, axis in enumerate(axes):
        axis_codes, has_value = coded[axis]
        valid = has_template & has_value
        idx = np.flatnonzero(valid)
        group_key = _combine(
            [
                template_codes[idx],
                *(coded[a][0][idx] for a in axes if a != axis),
                *(f[idx] for f in fixed),
            ]
        )
        order_local = np.lexsort((axis_codes[idx], group_key))
        order = idx[order_local]
        g_sorted = group_key[order_local]
        starts, sizes = _runs(g_sorted)
        # Pool size = group size - pages sharing this page's value of the axis.
        sub_starts, sub_sizes = _runs(g_sorted, axis_codes[order])
        sizes_sorted = np.repeat(sizes, sizes) - np.repeat(sub_sizes, sub_sizes)
        sizes_all = np.zeros(n, dtype=np.int64)
        sizes_all[order] = sizes_sorted
        pool_sizes[axis] = sizes_all[valid & asked]
        empty_pools[axis] = int((sizes_all[valid & asked] == 0).sum())
        # Groups whose members all share the axis value have no pools: skip them.
        distinct = np.searchsorted(sub_starts, starts + sizes) - np.searchsorted(sub_starts, starts)
        busy = (distinct >= 2) & _any_in_runs(asked[order], starts)
        found = searcher.run(order, starts[busy], sizes[busy], valid & asked, axis_codes)
        g, c, r, s = found.arrays()
        has_negative[g] = True
        parts.append((g, c, r, s, axis_id))

    # Fallback: nearest template siblings for pages no axis pool could serve (siblings in
    # `fallback_templates` when given).
    if data.fallback_templates is not None:
        template_codes, has_fallback = _encode(data.fallback_templates)
    else:
        has_fallback = has_template
    order = np.flatnonzero(has_fallback)
    order = order[np.argsort(template_codes[order], kind="stable")]
    starts, sizes = _runs(template_codes[order])
    need = has_template & has_fallback & asked & ~has_negative
    needy_groups = (sizes >= 2) & _any_in_runs(need[order], starts)
    found = searcher.run(order, starts[needy_groups], sizes[needy_groups], need, None)
    g, c, r, s = found.arrays()
    parts.append((g, c, r, s, len(axes)))
    fallback_golds = np.unique(g)
    has_negative[g] = True
    lonely_rows = order[np.repeat(sizes == 1, sizes)] if starts.size else np.zeros(0, np.int64)
    lonely_rows = lonely_rows[
        asked[lonely_rows] & has_template[lonely_rows] & ~has_negative[lonely_rows]
    ]

    gold = np.concatenate([p[0] for p in parts]).astype(np.int64)
    neg = np.concatenate([p[1] for p in parts]).astype(np.int64)
    rank = np.concatenate([p[2] for p in parts]).astype(np.int32)
    sim = np.concatenate([p[3] for p in parts]).astype(np.float32)
    axis_col = np.concatenate([np.full(p[0].size, p[4], dtype=np.int8) for p in parts])
    final = reading_order(data.unit_ids, gold, axis_col, rank) if ordered else np.arange(gold.size)
    ids = data.unit_ids
    lonely_set = set(lonely_rows.tolist())
    without = [
        ids[int(i)]
        for i in np.flatnonzero(has_template & asked & ~has_negative)
        if i not in lonely_set
    ]
    return MiningResult(
        unit_ids=ids,
        axis_names=[*axes, FALLBACK_AXIS],
        gold=gold[final],
        negative=neg[final],
        axis=axis_col[final],
        rank=rank[final],
        similarity=sim[final],
        pool_sizes=pool_sizes,
        empty_pools=empty_pools,
        fallback_pages=int(fallback_golds.size),
        lonely_pages=[ids[i] for i in sorted(lonely_rows.tolist())],
        pages_without_negatives=without,
    )

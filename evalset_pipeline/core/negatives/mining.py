"""Hard negatives: pages that look like the gold page and differ on exactly one axis.

For axis A, a page's pool is every page of its template whose other configured axes equal the
page's own and whose A differs (the seed's `hard_negatives`, generalised to any set of axes).
Inside a pool, candidates are ordered by appearance similarity and the nearest k are kept. A page
whose pools are all empty falls back to its nearest template siblings (axis `appearance`).
Duplicates of the gold (same render, or same text and near-identical render) are never negatives:
they would answer the question and be scored as wrong.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np

FALLBACK_AXIS = "appearance"
NEAR_DUPLICATE_SIMILARITY = 0.995
_BLOCK = 1024  # rows per similarity block, so a 10,000-page group never needs a 10k x 10k matrix


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
    templates: Sequence[str]  # "" = no template known: such pages are neither golds nor negatives
    axis_values: dict[str, Sequence[str]]  # axis -> value per page ("" = unknown)
    embeddings: np.ndarray  # (n, d), L2-normalised
    render_hashes: Sequence[str]
    text_hashes: Sequence[str]


@dataclass
class MiningResult:
    negatives: list[Negative]
    pool_sizes: dict[str, list[int]]  # axis -> pool size for every page with a template and a value on that axis
    empty_pools: dict[str, int]  # axis -> pages with an empty pool
    fallback_pages: int  # pages that got appearance-fallback negatives
    lonely_pages: list[str]  # pages whose template has a single page: no distractors possible


def _codes(values: Sequence[str]) -> np.ndarray:
    _, inverse = np.unique(np.asarray(values, dtype=object).astype(str), return_inverse=True)
    return inverse.astype(np.int64)


def _groups(columns: list[np.ndarray], valid: np.ndarray) -> list[np.ndarray]:
    """Indices of rows (among `valid`) sharing every column's value, groups of size >= 2."""
    idx = np.flatnonzero(valid)
    if idx.size < 2:
        return []
    keys = np.stack([c[idx] for c in columns], axis=1)
    order = np.lexsort(keys.T[::-1])
    sorted_keys = keys[order]
    breaks = np.flatnonzero(np.any(sorted_keys[1:] != sorted_keys[:-1], axis=1)) + 1
    return [g for g in np.split(idx[order], breaks) if g.size >= 2]


def _duplicate_mask(g: np.ndarray, sims: np.ndarray, render: np.ndarray, text: np.ndarray, rows: slice) -> np.ndarray:
    r = render[g]
    t = text[g]
    same_render = r[rows, None] == r[None, :]
    same_text = (t[rows, None] == t[None, :]) & (sims >= NEAR_DUPLICATE_SIMILARITY)
    return same_render | same_text


def _top_k(
    g: np.ndarray, emb: np.ndarray, k: int, allowed, render: np.ndarray, text: np.ndarray
) -> list[tuple[int, int, int, float]]:
    """(gold row, negative row, rank, similarity) for each member of group g."""
    out = []
    vecs = emb[g]
    for start in range(0, g.size, _BLOCK):
        rows = slice(start, min(start + _BLOCK, g.size))
        sims = vecs[rows] @ vecs.T
        ok = allowed(rows) & ~_duplicate_mask(g, sims, render, text, rows)
        ok[np.arange(sims.shape[0]), np.arange(rows.start, rows.stop)] = False
        masked = np.where(ok, sims, -np.inf)
        take = min(k, g.size - 1)
        top = np.argpartition(-masked, take - 1, axis=1)[:, :take] if take < g.size else np.argsort(-masked, axis=1)
        for r_local, cand in enumerate(top):
            cand = cand[np.argsort(-masked[r_local, cand], kind="stable")]
            rank = 0
            for c in cand:
                s = masked[r_local, c]
                if s == -np.inf:
                    break
                rank += 1
                out.append((g[rows.start + r_local], g[c], rank, float(s)))
    return out


def mine_hard_negatives(data: MiningInput, axes: Sequence[str], k: int = 2) -> MiningResult:
    n = len(data.unit_ids)
    templates = np.asarray(data.templates, dtype=object).astype(str)
    has_template = templates != ""
    template_codes = _codes(templates)
    render = _codes(data.render_hashes)
    text = _codes(data.text_hashes)
    emb = np.asarray(data.embeddings, dtype=np.float32)
    values = {a: np.asarray(data.axis_values[a], dtype=object).astype(str) for a in axes}
    codes = {a: _codes(values[a]) for a in axes}

    found: list[tuple[int, int, str, int, float]] = []
    has_negative = np.zeros(n, dtype=bool)
    pool_sizes: dict[str, list[int]] = {}
    empty_pools: dict[str, int] = {}
    for axis in axes:
        valid = has_template & (values[axis] != "")
        others = [codes[a] for a in axes if a != axis]
        sizes = np.zeros(n, dtype=np.int64)
        axis_codes = codes[axis]
        for g in _groups([template_codes, *others], valid):
            a = axis_codes[g]
            differs = a[:, None] != a[None, :]
            sizes[g] = differs.sum(axis=1)
            if not differs.any():
                continue
            for gold, neg, rank, sim in _top_k(g, emb, k, lambda rows: differs[rows], render, text):
                found.append((gold, neg, axis, rank, sim))
                has_negative[gold] = True
        pool_sizes[axis] = sizes[valid].tolist()
        empty_pools[axis] = int((sizes[valid] == 0).sum())

    # Fallback: nearest template siblings for pages no axis pool could serve.
    template_sizes = np.bincount(template_codes[has_template], minlength=template_codes.max() + 1 if n else 0)
    lonely = [data.unit_ids[i] for i in np.flatnonzero(has_template) if template_sizes[template_codes[i]] == 1]
    need = has_template & ~has_negative
    fallback_golds: set[int] = set()
    for g in _groups([template_codes], has_template):
        if not need[g].any():
            continue
        golds = need[g]
        for gold, neg, rank, sim in _top_k(g, emb, k, lambda rows: np.broadcast_to(golds[rows, None], (rows.stop - rows.start, g.size)), render, text):
            found.append((gold, neg, FALLBACK_AXIS, rank, sim))
            fallback_golds.add(gold)

    ids = data.unit_ids
    negatives = [Negative(ids[g], ids[c], axis, rank, sim) for g, c, axis, rank, sim in found]
    negatives.sort(key=lambda x: (x.unit_id, axes.index(x.axis) if x.axis in axes else len(axes), x.rank))
    return MiningResult(negatives, pool_sizes, empty_pools, len(fallback_golds), lonely)

"""Template discovery: cluster page appearance vectors when the user did not name the templates.

The number of templates is unknown, and it is not what we are after anyway: we want "pages that
look alike", which is a distance statement. So the method is a cosine-similarity threshold
applied as single linkage (connected components of the graph "similarity >= threshold"), with
faiss k-means providing the scale:

- Why single linkage. A template's pages are elongated, not round: a bar chart whose bars change
  height, a table whose numbers change, drift smoothly away from each other (on the sample
  corpus the two least similar bar-chart pages are at cosine 0.44) while every page has a very
  close sibling (nearest-neighbour similarity >= 0.97) and different templates stay apart
  (highest cross-template similarity 0.64). k-means with k = number of templates, and average or
  complete linkage, cut such a template in pieces (average linkage: ARI 0.88 on the sample
  corpus; single linkage: 0.95, with no cluster mixing two templates).
- Up to `exact_limit` pages (4,000): exact single linkage on all pairs (one n x n product and
  scipy's O(n^2) single-linkage pass; well under a second).
- Above that (400,000 pages): the graph is approximate. faiss k-means is trained on a sample
  (<= `max_points_per_centroid` pages per centroid, k = n / `pages_per_unit` <= `max_units`
  centroids) and used as the cells of an inverted file holding every page (that is "k-means on
  a sample, assign all"; a cell over max(512, 2 x the mean size), as look-alike prose makes, is
  bisected: see `_knn_edges`); each page's `neighbours` nearest pages are searched in its
  `nprobe` nearest cells, and the edges at or above the threshold give the components. Nothing
  is quadratic in the page count; a missed edge can only split a template, never merge two.
- Threshold. Given, or chosen: each threshold of a small grid (0.50 to 0.95 in steps of 0.05)
  is scored by the silhouette (cosine distance) of the partition it yields, on a sample of at
  most `silhouette_sample` pages; the best wins and ties go to the higher threshold, i.e. the
  finer partition, because over-splitting only shrinks a template's pools while over-merging
  hands out distractors from another template, which a retriever rejects on sight.

Measured: sample corpus (202 pages, appearance vectors) ARI 0.948 with every cluster pure;
synthetic 400,000 pages x 512-d over 2,000 templates, ARI 0.96 with every cluster pure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike

THRESHOLD_GRID = tuple(round(0.50 + 0.05 * i, 2) for i in range(10))


@dataclass
class Clustering:
    labels: np.ndarray  # cluster per page, 0 = largest cluster
    threshold: float
    method: str  # exact (all pairs) | knn (k-means/IVF neighbour graph)
    units: int  # pages (exact) or k-means cells of the IVF index (knn)
    silhouette: float | None  # of the chosen partition on the sample; None when not scored
    scores: dict[float, float] = field(default_factory=dict)  # threshold -> silhouette (auto only)

    @property
    def count(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size else 0

    def sizes(self) -> list[int]:
        return np.bincount(self.labels).tolist() if self.labels.size else []


def _unit_rows(x: np.ndarray) -> np.ndarray:
    x = np.ascontiguousarray(x, dtype=np.float32)
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def _top_cells(x: np.ndarray, centroids: np.ndarray, p: int) -> tuple[np.ndarray, np.ndarray]:
    """(similarity, cell) of each row's `p` nearest centroids, nearest first (exact, by BLAS blocks)."""
    import faiss

    index = faiss.IndexFlatIP(centroids.shape[1])
    index.add(np.ascontiguousarray(centroids, dtype=np.float32))
    sims = np.empty((len(x), p), dtype=np.float32)
    cells = np.empty((len(x), p), dtype=np.int64)
    step = 32_768
    for a in range(0, len(x), step):
        sims[a : a + step], cells[a : a + step] = index.search(x[a : a + step], p)
    return sims, cells


def _bisect(
    x: np.ndarray, members: np.ndarray, cap: int, rng: np.random.Generator
) -> list[np.ndarray]:
    """Split one over-full cell into parts of at most `cap` pages: halves at the median of the
    members' projection on their first principal direction (a few power iterations), recursively."""
    parts, stack = [], [members]
    while stack:
        m = stack.pop()
        if m.size <= cap:
            parts.append(m)
            continue
        v = x[m]
        mu = v.mean(axis=0)
        d = rng.standard_normal(v.shape[1]).astype(np.float32)
        for _ in range(6):  # d <- C d with C the members' covariance, without forming C
            d = v.T @ (v @ d - mu @ d)
            d /= max(float(np.linalg.norm(d)), 1e-12)
        order = np.argsort(v @ d, kind="stable")
        half = m.size // 2
        stack += [m[np.sort(order[half:])], m[np.sort(order[:half])]]
    return parts


def _knn_edges(
    x: np.ndarray,
    cells: int,
    neighbours: int,
    nprobe: int,
    max_points_per_cell: int,
    niter: int,
    seed: int,
    balance: float = 2.0,
    min_cap: int = 512,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(row, col, similarity) of every page's approximate nearest neighbours: an inverted file whose
    cells are spherical k-means centroids trained on a sample, searched cell by cell with BLAS.

    Scale (issue 13, benchmarks/templates.py): pages that all look alike (a filing's prose, one
    appearance centre plus noise) have no structure for k-means to follow; its centroids' ranks
    are then set by how many pages each averaged, so a few "rich" cells take most of the blob
    (26,749 of 400,000 pages in one cell, 77,000 pages scanned per prose query: the search grew
    quadratically, about 3.3 hours). Two changes keep it linear:
    - a cell holding more than max(`min_cap`, `balance` x the mean cell size) pages is bisected
      at the median of its first principal direction until every part fits (parts get their
      members' mean as centroid), so a query scans at most nprobe x cap pages; cells that fit are
      left as k-means made them (a balanced corpus has the very cells faiss's IVF had);
    - the probed cells are scanned with one matrix product per cell (BLAS, about 12x faiss
      IVFFlat's per-query scan on this machine) instead of `IndexIVFFlat.search`, and the
      centroid lookup is exact (a flat product) instead of an HNSW graph.
    A page's candidates are still exactly the pages of its `nprobe` nearest cells, so on cells
    that fit the graph is the one the IVF search gave; a page probing a part also keeps its best
    match there (see below). Every edge is a real pair at its real similarity, so a missed edge
    can still only split a template, never merge two."""
    import faiss

    n, d = x.shape
    index = faiss.IndexIVFFlat(faiss.IndexFlatIP(d), d, cells, faiss.METRIC_INNER_PRODUCT)
    index.clustering_index = faiss.IndexFlatIP(d)  # exact k-means while training, as before
    index.cp.spherical = True
    index.cp.niter = niter
    index.cp.seed = seed
    index.cp.max_points_per_centroid = max_points_per_cell
    index.cp.min_points_per_centroid = 1
    index.cp.verbose = False
    rng = np.random.default_rng(seed)
    budget = cells * max_points_per_cell
    index.train(x if n <= budget else x[np.sort(rng.choice(n, budget, replace=False))])
    centroids = index.quantizer.reconstruct_n(0, cells)
    p = min(nprobe, cells)
    probe_sims, probes = _top_cells(x, centroids, p)

    # Cells as k-means made them (each page in its nearest), over-full ones bisected.
    own = probes[:, 0]
    order = np.argsort(own, kind="stable")
    starts = np.searchsorted(own[order], np.arange(cells + 1))
    cap = max(min_cap, int(np.ceil(balance * n / cells)))
    members = [order[starts[c] : starts[c + 1]] for c in range(cells)]
    first_part = len(members)  # cells from here on are parts of a bisected cell
    if any(cell.size > cap for cell in members):
        kept, parts = [], []
        for c, cell in enumerate(members):
            if cell.size > cap:
                parts += _bisect(x, cell, cap, rng)
            elif cell.size:
                kept.append(c)
        centroids = np.concatenate(
            [centroids[kept], _unit_rows(np.stack([x[part].mean(axis=0) for part in parts]))]
        )
        members = [members[c] for c in kept] + parts
        first_part = len(kept)
        p = min(nprobe, len(members))
        probe_sims, probes = _top_cells(x, centroids, p)
    del probe_sims

    # Scan: every cell against the pages that probe it, one product per block; keep the best m.
    m = min(neighbours + 1, int(n))
    best_s = np.full((n, m), -np.inf, dtype=np.float32)
    best_c = np.full((n, m), -1, dtype=np.int64)
    flat = probes.reshape(-1)
    by_cell = np.argsort(flat, kind="stable")
    qstarts = np.searchsorted(flat[by_cell], np.arange(len(members) + 1))
    part_of = np.full(n, -1, dtype=np.int64)
    for c in range(first_part, len(members)):
        part_of[members[c]] = c
    extra: list[tuple[np.ndarray, np.ndarray, np.ndarray]] = []
    step = 8_192
    for c, cols in enumerate(members):
        queries = by_cell[qstarts[c] : qstarts[c + 1]] // p
        if not cols.size or not queries.size:
            continue
        block = x[cols].T
        k = min(m, int(cols.size))
        for a in range(0, queries.size, step):
            q = queries[a : a + step]
            s = x[q] @ block
            top = (
                np.argpartition(-s, k - 1, axis=1)[:, :k]
                if k < cols.size
                else np.broadcast_to(np.arange(k), s.shape)
            )
            cand_s = np.concatenate([best_s[q], np.take_along_axis(s, top, axis=1)], axis=1)
            cand_c = np.concatenate([best_c[q], cols[top]], axis=1)
            keep = np.argpartition(-cand_s, m - 1, axis=1)[:, :m]
            best_s[q] = np.take_along_axis(cand_s, keep, axis=1)
            best_c[q] = np.take_along_axis(cand_c, keep, axis=1)
            if c >= first_part:
                # In a look-alike blob a page's nearest pages sit in its own part (they share the
                # projections that split them) or its own document, so top-m edges alone left
                # parts on their own (9 prose clusters instead of 1 at 20,000 benchmark pages):
                # every probing page outside the part also keeps its best match in it.
                out = part_of[q] != c
                so = s[out]
                j = so.argmax(axis=1)
                extra.append((q[out], cols[j], so[np.arange(j.size), j]))
    rows = np.repeat(np.arange(n), m)
    cols, sims = best_c.reshape(-1), best_s.reshape(-1)
    if extra:
        rows = np.concatenate([rows] + [e[0] for e in extra])
        cols = np.concatenate([cols] + [e[1] for e in extra])
        sims = np.concatenate([sims] + [e[2] for e in extra])
    keep = (cols >= 0) & (cols != rows)
    return rows[keep], cols[keep], sims[keep]


def _components(
    n: int, rows: np.ndarray, cols: np.ndarray, sims: np.ndarray, threshold: float
) -> np.ndarray:
    from scipy.sparse import coo_matrix
    from scipy.sparse.csgraph import connected_components

    keep = sims >= threshold - 1e-6
    graph = coo_matrix(
        (np.ones(int(keep.sum()), dtype=np.int8), (rows[keep], cols[keep])), shape=(n, n)
    ).tocsr()
    return connected_components(graph, directed=False)[1].astype(np.int64)


def _single_linkage(units: np.ndarray) -> np.ndarray | None:
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    if len(units) < 2:
        return None
    dist = 1.0 - units @ units.T
    np.fill_diagonal(dist, 0.0)
    np.clip(dist, 0.0, 2.0, out=dist)
    dist = (dist + dist.T) / 2  # exact symmetry for squareform
    return linkage(squareform(dist.astype(np.float64), checks=False), method="single")


def _cut(tree: np.ndarray | None, n_units: int, threshold: float) -> np.ndarray:
    from scipy.cluster.hierarchy import fcluster

    if tree is None:
        return np.zeros(n_units, dtype=np.int64)
    # fcluster keeps merges with distance <= t: similarity >= threshold (tiny slack for float error).
    return fcluster(tree, 1.0 - threshold + 1e-6, criterion="distance").astype(np.int64) - 1


def silhouette(dist: np.ndarray, labels: np.ndarray) -> float | None:
    """Mean silhouette from a precomputed distance matrix; None when it is undefined (1 or n clusters)."""
    n = len(labels)
    _, lab = np.unique(labels, return_inverse=True)
    c = int(lab.max()) + 1 if n else 0
    if c < 2 or c >= n:
        return None
    from scipy.sparse import csr_matrix

    onehot = csr_matrix((np.ones(n), (np.arange(n), lab)), shape=(n, c))
    sums = np.asarray((onehot.T @ dist.T).T)  # (n, c): distance from each page to each cluster
    counts = np.bincount(lab, minlength=c).astype(np.float64)
    own = counts[lab]
    a = sums[np.arange(n), lab] / np.maximum(own - 1, 1)
    mean_other = sums / counts
    mean_other[np.arange(n), lab] = np.inf
    b = mean_other.min(axis=1)
    s = np.where(own > 1, (b - a) / np.maximum(np.maximum(a, b), 1e-12), 0.0)
    return float(s.mean())


def relabel_by_size(labels: np.ndarray) -> np.ndarray:
    """0 = largest cluster; ties by first page, so the same input always gives the same ids."""
    if labels.size == 0:
        return labels
    _, lab, counts = np.unique(labels, return_inverse=True, return_counts=True)
    first = np.full(counts.size, labels.size, dtype=np.int64)
    np.minimum.at(first, lab, np.arange(labels.size))
    order = np.lexsort((first, -counts))
    rank = np.empty_like(order)
    rank[order] = np.arange(order.size)
    return rank[lab].astype(np.int64)


def cluster_embeddings(
    vectors: np.ndarray,
    threshold: float | None = None,
    *,
    exact_limit: int = 4_000,
    max_units: int = 4_096,
    pages_per_unit: int = 200,
    neighbours: int = 10,
    nprobe: int = 8,
    max_points_per_centroid: int = 16,
    niter: int = 10,
    silhouette_sample: int = 2_000,
    grid: tuple[float, ...] = THRESHOLD_GRID,
    seed: int = 0,
) -> Clustering:
    """Cluster page vectors into visual templates (see the module docstring for the method)."""
    if len(vectors) == 0:
        return Clustering(np.zeros(0, np.int64), threshold or 0.0, "exact", 0, None)
    x = _unit_rows(np.asarray(vectors).reshape(len(vectors), -1))
    n = len(x)
    if n <= exact_limit:
        method, units = "exact", n
        tree = _single_linkage(x)
        cut = lambda t: _cut(tree, n, t)  # noqa: E731
    else:
        method = "knn"
        units = int(min(max_units, max(2, n // pages_per_unit)))
        rows, cols, sims = _knn_edges(
            x, units, neighbours, nprobe, max_points_per_centroid, niter, seed
        )
        cut = lambda t: _components(n, rows, cols, sims, t)  # noqa: E731

    rng = np.random.default_rng(seed)
    sample = (
        np.arange(n)
        if n <= silhouette_sample
        else np.sort(rng.choice(n, silhouette_sample, replace=False))
    )
    dist = np.clip(1.0 - x[sample] @ x[sample].T, 0.0, 2.0).astype(np.float64)
    np.fill_diagonal(dist, 0.0)

    scores: dict[float, float] = {}
    cuts: dict[float, np.ndarray] = {}
    if threshold is None:
        best: tuple[float, float] | None = None
        for t in sorted(grid):
            cuts[t] = cut(t)
            s = silhouette(dist, cuts[t][sample])
            if s is None:
                continue
            scores[t] = round(s, 4)
            if best is None or s >= best[1] - 1e-9:  # ties: the higher threshold (finer partition)
                best = (t, s)
        threshold = best[0] if best else max(grid)
    labels = relabel_by_size(cuts[threshold] if threshold in cuts else cut(threshold))
    return Clustering(
        labels, float(threshold), method, units, silhouette(dist, labels[sample]), scores
    )


def adjusted_rand_index(a: ArrayLike, b: ArrayLike) -> float:
    """Adjusted Rand index of two labelings (1 = identical partitions, ~0 = chance)."""
    _, ai = np.unique(np.asarray(a), return_inverse=True)
    _, bi = np.unique(np.asarray(b), return_inverse=True)
    n = ai.size
    if n < 2:
        return 1.0
    table = np.zeros((ai.max() + 1, bi.max() + 1), dtype=np.int64)
    np.add.at(table, (ai, bi), 1)

    def pairs(v):
        v = np.asarray(v, dtype=np.float64)
        return float((v * (v - 1) / 2).sum())

    index, rows, cols = pairs(table), pairs(table.sum(1)), pairs(table.sum(0))
    expected = rows * cols / (n * (n - 1) / 2)
    maximum = (rows + cols) / 2
    return 1.0 if maximum == expected else (index - expected) / (maximum - expected)

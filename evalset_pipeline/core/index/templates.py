"""Visual templates: from metadata where the user gave one, else from clustering appearance.

Pages with a `template_id` in the sidecar keep it (source `metadata`). When some pages lack one,
every page's appearance vector is clustered (`clustering.cluster_embeddings`; labelled pages take
part, so their structure helps) and each unlabelled page gets a template from its cluster
(source `cluster`):

- if the cluster's labelled pages agree on one template (at least `adopt_share` of them), the
  unlabelled page joins that template, so a document without a sidecar row still finds its
  distractors among documents that have one;
- otherwise it gets the cluster's own id, `cluster-NNN` (NNN = rank of the cluster by size).

Structural templates (source `structure`) are given by the page's structure before any
clustering: a primary financial statement's template is the statement it is
(`statement:balance_sheet`), whichever filing or company prints it. They take part in the
clustering like metadata templates, so a look-alike table can join them.

Given the pages' headings, two refinements make a cluster "one kind of page" (measured in
benchmarks/realdocs.py): a cluster whose pages carry many different headings (more than
`max_diversity` distinct per page, or `MANY_HEADINGS` in all: a report's narrative, which looks alike
page after page) is
split by heading similarity, and a page then left alone joins the cluster whose centroid is
nearest in structure (heading, layout, appearance) when at least `join_similarity` close (a
one-page template can never give a distractor).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from evalset_pipeline.core.index.clustering import Clustering, cluster_embeddings, relabel_by_size

METADATA = "metadata"
STRUCTURE = "structure"
CLUSTER = "cluster"
MAX_LISTED = 50  # sizes listed one by one in asset metadata; the rest only in the distribution


def _distribution(sizes: list[int]) -> dict:
    if not sizes:
        return {"count": 0}
    a = np.asarray(sizes)
    return {
        "count": int(a.size),
        "min": int(a.min()),
        "median": float(np.median(a)),
        "max": int(a.max()),
        "single_page": int((a == 1).sum()),
    }


@dataclass(frozen=True)
class TemplateAssignment:
    unit_id: str
    template_id: str
    source: str  # metadata | cluster | "" (unknown)


@dataclass
class TemplateGroups:
    assignments: list[TemplateAssignment]
    clustering: Clustering | None = None  # None when every page had a template in its metadata
    adopted: dict[str, str] = field(
        default_factory=dict
    )  # cluster id -> metadata template its pages joined

    def summary(self) -> dict:
        """Template count and sizes, sources, and how the clustering went (for asset metadata)."""
        sizes = Counter(a.template_id for a in self.assignments if a.template_id)
        clustered = Counter(a.template_id for a in self.assignments if a.source == CLUSTER)
        largest = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))
        out: dict = {
            "templates": len(sizes),
            "template_sizes": dict(largest[:MAX_LISTED]),
            "template_size_distribution": _distribution(list(sizes.values())),
            "sources": dict(
                sorted(Counter(a.source or "unassigned" for a in self.assignments).items())
            ),
            "single_page_templates": sum(1 for s in sizes.values() if s == 1),
        }
        if self.clustering is not None:
            c = self.clustering
            cluster_sizes = sorted(clustered.values(), reverse=True)
            out["clustering"] = {
                "method": c.method,
                "units": c.units,
                "threshold": c.threshold,
                "threshold_chosen_by": "silhouette" if c.scores else "given",
                "silhouette": None if c.silhouette is None else round(c.silhouette, 4),
                "silhouette_by_threshold": {str(t): s for t, s in c.scores.items()},
                "clusters": c.count,
                "cluster_sizes": c.sizes()[:MAX_LISTED],
                "cluster_size_distribution": _distribution(c.sizes()),
                "templates_from_clusters": len(clustered),
                "pages_by_cluster_template": cluster_sizes[:MAX_LISTED],
                "adopted_metadata_templates": dict(sorted(self.adopted.items())),
            }
        return out


def _cluster_name(label: int, width: int) -> str:
    return f"cluster-{label + 1:0{width}d}"


def _unit(x: np.ndarray) -> np.ndarray:
    x = np.asarray(x, dtype=np.float32).reshape(len(x), -1)
    n = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(n > 0, n, 1.0)


MANY_HEADINGS = 24  # distinct headings that make a cluster a lump whatever its size


def _split_by_heading(
    labels: np.ndarray,
    headings: Sequence[str],
    heading_vectors: np.ndarray,
    min_pages: int,
    max_diversity: float,
    heading_similarity: float,
) -> np.ndarray:
    """Split every cluster whose pages carry many different headings into groups of similar headings.

    A visual cluster whose pages are about one kind of thing (a bar chart of one measure or
    another) has few distinct headings; one whose pages are a report's whole narrative has
    almost as many headings as pages. Only the second is split: its distinct headings are
    clustered (single linkage on their hashed-word vectors at `heading_similarity`), and each
    page follows its heading.
    """
    labels = labels.copy()
    next_label = int(labels.max()) + 1 if labels.size else 0
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    for members in np.split(order, bounds) if labels.size else []:
        lab = int(labels[members[0]])
        names = [headings[i] for i in members.tolist()]
        first: dict[str, int] = {}
        for row, h in zip(members.tolist(), names, strict=False):
            first.setdefault(h, row)
        distinct = sorted(first)
        # Many different headings, relative to the cluster (a report's narrative) or in absolute number
        # (a corpus-wide narrative lump: headings repeat across documents, so the share falls with size).
        diverse = len(distinct) > max_diversity * members.size or len(distinct) >= MANY_HEADINGS
        if members.size < min_pages or not diverse:
            continue
        vecs = heading_vectors[[first[h] for h in distinct]]
        empty = np.linalg.norm(vecs, axis=1) == 0
        sub = (
            cluster_embeddings(vecs, heading_similarity).labels
            if len(distinct) > 1
            else np.zeros(1, np.int64)
        )
        sub = np.where(
            empty, int(sub.max()) + 1 if sub.size else 0, sub
        )  # pages with no heading: one group
        group_of = dict(zip(distinct, sub.tolist(), strict=False))
        new = np.array([group_of[h] for h in names], dtype=np.int64)
        labels[members] = np.where(new == 0, lab, new + next_label)
        next_label += int(new.max()) + 1
    return labels


def _join_singletons(labels: np.ndarray, x: np.ndarray, join_similarity: float) -> np.ndarray:
    """A page alone in its cluster joins the cluster (of 2+ pages) whose centroid is nearest."""
    sizes = np.bincount(labels)
    alone = np.flatnonzero(sizes[labels] == 1)
    groups = np.flatnonzero(sizes >= 2)
    if not alone.size or not groups.size:
        return labels
    slot = np.full(sizes.size, -1, dtype=np.int64)
    slot[groups] = np.arange(groups.size)
    grouped = np.flatnonzero(slot[labels] >= 0)
    # Scale (issue 13): the centroid sums as a sparse one-hot product, not np.add.at over
    # x[grouped] (a copy of nearly every row: 1.8 GB at 400,000 pages, and 9 s). The same float32
    # sums: each group's rows are still added one by one in page order, starting from zero.
    from scipy.sparse import csr_matrix

    onehot = csr_matrix(
        (np.ones(grouped.size, dtype=np.float32), (slot[labels[grouped]], grouped)),
        shape=(groups.size, len(labels)),
    )
    sums = np.asarray(onehot @ x, dtype=np.float32)
    centroids = _unit(sums)
    labels = labels.copy()
    for start in range(0, alone.size, 4096):
        rows = alone[start : start + 4096]
        sims = x[rows] @ centroids.T
        best = sims.argmax(axis=1)
        ok = sims[np.arange(rows.size), best] >= join_similarity
        labels[rows[ok]] = groups[best[ok]]
    return labels


def assign_templates(
    unit_ids: Sequence[str],
    metadata_templates: Sequence[str],
    embeddings: np.ndarray,
    *,
    threshold: float | None = None,
    adopt_share: float = 0.8,
    structural_templates: Sequence[str] | None = None,
    headings: Sequence[str] | None = None,
    heading_vectors: np.ndarray | None = None,
    structure_vectors: np.ndarray | None = None,
    min_pages: int = 8,
    max_diversity: float = 0.25,
    heading_similarity: float = 0.7,
    join_similarity: float = 0.5,
    **cluster_options: Any,
) -> TemplateGroups:
    """Metadata wins, then structure; other pages get a template from clustering their vectors."""
    templates = [t or "" for t in metadata_templates]
    structural = [s or "" for s in (structural_templates or [""] * len(templates))]
    source = [
        METADATA if t else (STRUCTURE if s else "")
        for t, s in zip(templates, structural, strict=False)
    ]
    templates = [t or s for t, s in zip(templates, structural, strict=False)]
    if all(templates) or not len(unit_ids):
        return TemplateGroups(
            [
                TemplateAssignment(u, t, src)
                for u, t, src in zip(unit_ids, templates, source, strict=False)
            ]
        )
    clustering = cluster_embeddings(embeddings, threshold, **cluster_options)
    if headings is not None and heading_vectors is not None:
        refined = _split_by_heading(
            clustering.labels,
            headings,
            heading_vectors,
            min_pages,
            max_diversity,
            heading_similarity,
        )
        x = _unit(structure_vectors if structure_vectors is not None else embeddings)
        refined = _join_singletons(refined, x, join_similarity)
        clustering.labels = relabel_by_size(refined)
    labels = clustering.labels.tolist()
    width = max(3, len(str(clustering.count)))
    votes: dict[int, Counter] = {}
    for lab, t in zip(labels, templates, strict=False):
        if t:
            votes.setdefault(lab, Counter())[t] += 1
    adopted: dict[int, str] = {}
    for lab, counter in votes.items():
        name, count = counter.most_common(1)[0]
        if count >= adopt_share * sum(counter.values()):
            adopted[lab] = name
    out = []
    for u, t, lab, src in zip(unit_ids, templates, labels, source, strict=False):
        if t:
            out.append(TemplateAssignment(u, t, src))
        else:
            out.append(
                TemplateAssignment(u, adopted.get(lab) or _cluster_name(lab, width), CLUSTER)
            )
    used = {lab for lab, t in zip(labels, templates, strict=False) if not t}
    return TemplateGroups(
        out, clustering, {_cluster_name(lab, width): adopted[lab] for lab in used if lab in adopted}
    )

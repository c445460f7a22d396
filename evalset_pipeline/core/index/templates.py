"""Visual templates: from metadata where the user gave one, else from clustering appearance.

Pages with a `template_id` in the sidecar keep it (source `metadata`). When some pages lack one,
every page's appearance vector is clustered (`clustering.cluster_embeddings`; labelled pages take
part, so their structure helps) and each unlabelled page gets a template from its cluster
(source `cluster`):

- if the cluster's labelled pages agree on one template (at least `adopt_share` of them), the
  unlabelled page joins that template, so a document without a sidecar row still finds its
  distractors among documents that have one;
- otherwise it gets the cluster's own id, `cluster-NNN` (NNN = rank of the cluster by size).
"""
from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Sequence

import numpy as np

from evalset_pipeline.core.index.clustering import Clustering, cluster_embeddings

METADATA = "metadata"
CLUSTER = "cluster"
MAX_LISTED = 50  # sizes listed one by one in asset metadata; the rest only in the distribution


def _distribution(sizes: list[int]) -> dict:
    if not sizes:
        return {"count": 0}
    a = np.asarray(sizes)
    return {"count": int(a.size), "min": int(a.min()), "median": float(np.median(a)), "max": int(a.max()),
            "single_page": int((a == 1).sum())}


@dataclass(frozen=True)
class TemplateAssignment:
    unit_id: str
    template_id: str
    source: str  # metadata | cluster | "" (unknown)


@dataclass
class TemplateGroups:
    assignments: list[TemplateAssignment]
    clustering: Clustering | None = None  # None when every page had a template in its metadata
    adopted: dict[str, str] = field(default_factory=dict)  # cluster id -> metadata template its pages joined

    def summary(self) -> dict:
        """Template count and sizes, sources, and how the clustering went (for asset metadata)."""
        sizes = Counter(a.template_id for a in self.assignments if a.template_id)
        clustered = Counter(a.template_id for a in self.assignments if a.source == CLUSTER)
        largest = sorted(sizes.items(), key=lambda kv: (-kv[1], kv[0]))
        out: dict = {
            "templates": len(sizes),
            "template_sizes": dict(largest[:MAX_LISTED]),
            "template_size_distribution": _distribution(list(sizes.values())),
            "sources": dict(sorted(Counter(a.source or "unassigned" for a in self.assignments).items())),
            "single_page_templates": sum(1 for s in sizes.values() if s == 1),
        }
        if self.clustering is not None:
            c = self.clustering
            cluster_sizes = sorted(clustered.values(), reverse=True)
            out["clustering"] = {
                "method": c.method, "units": c.units, "threshold": c.threshold,
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


def assign_templates(
    unit_ids: Sequence[str],
    metadata_templates: Sequence[str],
    embeddings: np.ndarray,
    *,
    threshold: float | None = None,
    adopt_share: float = 0.8,
    **cluster_options,
) -> TemplateGroups:
    """Metadata wins; pages without one get a template from clustering the appearance vectors."""
    templates = [t or "" for t in metadata_templates]
    if all(templates) or not len(unit_ids):
        return TemplateGroups([TemplateAssignment(u, t, METADATA) for u, t in zip(unit_ids, templates)])
    clustering = cluster_embeddings(embeddings, threshold, **cluster_options)
    labels = clustering.labels.tolist()
    width = max(3, len(str(clustering.count)))
    votes: dict[int, Counter] = {}
    for lab, t in zip(labels, templates):
        if t:
            votes.setdefault(lab, Counter())[t] += 1
    adopted: dict[int, str] = {}
    for lab, counter in votes.items():
        name, count = counter.most_common(1)[0]
        if count >= adopt_share * sum(counter.values()):
            adopted[lab] = name
    out = []
    for u, t, lab in zip(unit_ids, templates, labels):
        if t:
            out.append(TemplateAssignment(u, t, METADATA))
        else:
            out.append(TemplateAssignment(u, adopted.get(lab) or _cluster_name(lab, width), CLUSTER))
    used = {lab for lab, t in zip(labels, templates) if not t}
    return TemplateGroups(out, clustering, {_cluster_name(lab, width): adopted[lab] for lab in used if lab in adopted})

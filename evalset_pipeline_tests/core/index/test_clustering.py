"""Template discovery without metadata: clustering recovers the sample corpus's templates."""

from __future__ import annotations

import numpy as np
import pytest

from evalset_pipeline.core.index.clustering import (
    adjusted_rand_index,
    cluster_embeddings,
    silhouette,
)
from evalset_pipeline.core.index.templates import CLUSTER, METADATA, assign_templates
from evalset_pipeline_tests.core.index.rendered_corpus import rendered


@pytest.fixture(scope="module")
def pages(small_corpus, tmp_path_factory):
    return rendered(small_corpus, tmp_path_factory.mktemp("rendered"))


def _truth(pages) -> np.ndarray:
    return np.array([pages.truth(p).template_id for p in pages.pages])


def _pure(labels: np.ndarray, truth: np.ndarray) -> bool:
    """No cluster mixes two true templates (a mixed cluster would hand out easy, off-template distractors)."""
    return all(len(set(truth[labels == c])) == 1 for c in np.unique(labels))


def test_clustering_recovers_the_templates_of_the_sample_corpus(pages):
    truth = _truth(pages)
    c = cluster_embeddings(pages.vectors)
    ari = adjusted_rand_index(truth, c.labels)
    print(
        f"\nsample corpus ({len(truth)} pages, {len(set(truth))} templates): {c.count} clusters {c.sizes()}, "
        f"method {c.method}, threshold {c.threshold} (silhouette {c.silhouette:.3f}), ARI {ari:.3f}"
    )
    assert c.method == "exact"
    assert ari >= 0.9
    assert _pure(c.labels, truth)
    assert c.scores and c.threshold in c.scores  # chosen by silhouette over the grid


def test_the_scalable_path_agrees_on_the_sample_corpus(pages):
    """Forced onto the k-means/IVF neighbour-graph path (what 400,000 pages take): same templates, never mixed."""
    truth = _truth(pages)
    c = cluster_embeddings(pages.vectors, exact_limit=0, pages_per_unit=5)
    ari = adjusted_rand_index(truth, c.labels)
    print(f"\nknn path: {c.count} clusters {c.sizes()}, threshold {c.threshold}, ARI {ari:.3f}")
    assert c.method == "knn"
    assert ari >= 0.8
    assert _pure(c.labels, truth)


def test_elongated_synthetic_templates_at_a_few_thousand_pages():
    """Templates that drift (bars changing height) are chains, not balls: single linkage keeps each whole."""
    rng = np.random.default_rng(3)
    d, per, templates = 64, 300, 12
    centres = rng.normal(size=(templates, d))
    directions = rng.normal(size=(templates, d))
    t = np.repeat(np.arange(templates), per)
    walk = rng.uniform(-1, 1, size=t.size)[:, None]
    x = centres[t] * 4 + walk * directions[t] * 2.5 + rng.normal(scale=0.15, size=(t.size, d))
    for kw in ({}, {"exact_limit": 0, "pages_per_unit": 40}):
        c = cluster_embeddings(x.astype(np.float32), **kw)
        assert adjusted_rand_index(t, c.labels) >= 0.95, (kw, c.count, c.threshold)


def test_a_given_threshold_is_used_and_labels_are_ordered_by_size():
    x = np.array([[1, 0], [0.99, 0.14], [0.98, 0.2], [0, 1]], dtype=np.float32)
    c = cluster_embeddings(x, threshold=0.9)
    assert c.threshold == 0.9 and not c.scores
    assert c.labels.tolist() == [0, 0, 0, 1]
    assert c.sizes() == [3, 1]
    assert cluster_embeddings(x, threshold=0.999).count == 4


def test_degenerate_inputs():
    assert cluster_embeddings(np.zeros((0, 4), np.float32)).count == 0
    assert cluster_embeddings(np.ones((1, 4), np.float32)).labels.tolist() == [0]


def test_adjusted_rand_index_and_silhouette_basics():
    assert adjusted_rand_index([0, 0, 1, 1], [5, 5, 7, 7]) == pytest.approx(1.0)
    assert adjusted_rand_index([0, 0, 1, 1], [0, 1, 0, 1]) < 0
    dist = np.array([[0, 0.1, 1, 1], [0.1, 0, 1, 1], [1, 1, 0, 0.1], [1, 1, 0.1, 0]], dtype=float)
    assert silhouette(dist, np.array([0, 0, 1, 1])) == pytest.approx(0.9)
    assert silhouette(dist, np.zeros(4)) is None


def test_metadata_templates_win_and_unlabelled_pages_join_the_template_their_cluster_agrees_on(
    pages,
):
    truth = _truth(pages)
    ids = pages.ids
    # Half the documents have a sidecar template, the other half none.
    docs = sorted({p.document_path for p in pages.pages})
    labelled = {d for i, d in enumerate(docs) if i % 2 == 0}
    named = [
        t if p.document_path in labelled else "" for p, t in zip(pages.pages, truth, strict=False)
    ]
    groups = assign_templates(ids, named, pages.vectors)
    by_id = {a.unit_id: a for a in groups.assignments}
    for p, t, n in zip(pages.pages, truth, named, strict=False):
        a = by_id[p.unit_id]
        if n:
            assert (a.template_id, a.source) == (n, METADATA)
        else:
            assert a.source == CLUSTER
            assert a.template_id in (t,) or a.template_id.startswith("cluster-")
    adopted = sum(
        1
        for a, n in zip(groups.assignments, named, strict=False)
        if not n and not a.template_id.startswith("cluster-")
    )
    assert adopted >= 0.9 * sum(1 for n in named if not n)
    summary = groups.summary()
    assert summary["sources"] == {
        CLUSTER: sum(1 for n in named if not n),
        METADATA: sum(1 for n in named if n),
    }
    assert summary["clustering"]["clusters"] == groups.clustering.count


def test_every_page_with_metadata_means_no_clustering():
    groups = assign_templates(["a", "b"], ["t1", "t2"], np.eye(2, dtype=np.float32))
    assert groups.clustering is None
    assert [(a.template_id, a.source) for a in groups.assignments] == [
        ("t1", METADATA),
        ("t2", METADATA),
    ]


def test_without_any_metadata_every_page_gets_a_cluster_template(pages):
    groups = assign_templates(pages.ids, [""] * len(pages.ids), pages.vectors)
    assert {a.source for a in groups.assignments} == {CLUSTER}
    assert all(a.template_id.startswith("cluster-") for a in groups.assignments)
    s = groups.summary()
    assert s["templates"] == groups.clustering.count == s["clustering"]["clusters"]
    assert sum(s["clustering"]["cluster_sizes"]) == len(pages.ids)


def test_knn_path_bisects_a_look_alike_blob_and_keeps_it_whole():
    """Pages that all look alike (a report's prose: one centre, a little house style per document)
    pile into a few k-means cells; over-full cells are bisected (a query then scans at most
    nprobe x cap pages) and the parts must stay joined: without each probing page's best match in
    every part it probes, this blob falls into 4 components."""
    from evalset_pipeline.core.index.clustering import _components, _knn_edges, _unit_rows

    rng = np.random.default_rng(5)
    d, docs, per_doc, templates, per = 848, 40, 100, 10, 60
    blob = docs * per_doc
    centres = rng.normal(size=(templates + 1, d))
    t = np.r_[np.zeros(blob, int), np.repeat(np.arange(1, templates + 1), per)]
    style = np.r_[
        np.repeat(rng.normal(size=(docs, d)), per_doc, axis=0), np.zeros((templates * per, d))
    ]
    x = _unit_rows((centres[t] * 3 + 0.4 * style + rng.normal(size=(t.size, d))).astype(np.float32))
    rows, cols, sims = _knn_edges(x, 30, 10, 8, 16, 10, 0, min_cap=128)
    labels = _components(len(x), rows, cols, sims, 0.85)
    assert len(set(labels[:blob])) == 1
    assert adjusted_rand_index(t, labels) == pytest.approx(1.0)

"""The vectorised miner against a plain reference, and on real pages without any metadata sidecar."""

from __future__ import annotations

from collections import defaultdict

import numpy as np
import pytest

from evalset_pipeline.core.index.templates import assign_templates
from evalset_pipeline.core.metadata.extraction import TextLayerExtractor
from evalset_pipeline.core.negatives import mining
from evalset_pipeline.core.negatives.mining import FALLBACK_AXIS, MiningInput, mine_hard_negatives
from evalset_pipeline_tests.core.index.rendered_corpus import rendered

AXES = ["period", "metric", "entity"]


def _random_input(seed: int, n: int = 400) -> MiningInput:
    rng = np.random.default_rng(seed)
    templates = rng.choice(
        ["t1", "t2", "t3", "t4", ""], size=n, p=[0.4, 0.3, 0.2, 0.05, 0.05]
    ).tolist()
    templates[0] = "solo"  # a single-page template
    values = {
        a: rng.choice(["", "a", "b", "c"], size=n, p=[0.05, 0.45, 0.3, 0.2]).tolist() for a in AXES
    }
    emb = rng.normal(size=(n, 16)).astype(np.float32)
    render = [f"r{i}" for i in range(n)]
    text = [f"x{i}" for i in range(n)]
    for i in range(5, n, 37):  # exact copies of the previous page (same render)
        render[i], emb[i] = render[i - 1], emb[i - 1]
    for i in range(11, n, 41):  # same text, near-identical look
        text[i] = text[i - 1]
        emb[i] = emb[i - 1] + 1e-3 * rng.normal(size=16)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    return MiningInput([f"u{i:04d}" for i in range(n)], templates, values, emb, render, text)


def _reference(data: MiningInput, axes: list[str], k: int) -> dict[tuple[str, str], list[float]]:
    """(gold, axis) -> similarities of its negatives, best first, by the definition, one page at a time."""
    n, emb = len(data.unit_ids), data.embeddings
    asked = [True] * n if data.queries is None else list(data.queries)
    near = data.templates if data.fallback_templates is None else data.fallback_templates
    sims = emb @ emb.T
    v = data.axis_values

    def dup(i: int, j: int) -> bool:
        return bool(
            data.render_hashes[i] == data.render_hashes[j]
            or (
                data.text_hashes[i] == data.text_hashes[j]
                and sims[i, j] >= mining.NEAR_DUPLICATE_SIMILARITY
            )
        )

    out: dict[tuple[str, str], list[float]] = {}
    served = set()
    for i in range(n):
        if not data.templates[i] or not asked[i]:
            continue
        for a in axes:
            if not v[a][i]:
                continue
            pool = [
                j
                for j in range(n)
                if j != i
                and data.templates[j] == data.templates[i]
                and v[a][j]
                and v[a][j] != v[a][i]
                and all(v[b][j] == v[b][i] for b in axes if b != a)
                and not dup(i, j)
            ]
            if pool:
                out[(data.unit_ids[i], a)] = sorted(
                    (float(sims[i, j]) for j in pool), reverse=True
                )[:k]
                served.add(i)
    for i in range(n):
        if data.templates[i] and asked[i] and near[i] and i not in served:
            pool = [j for j in range(n) if j != i and near[j] == near[i] and not dup(i, j)]
            if pool:
                out[(data.unit_ids[i], FALLBACK_AXIS)] = sorted(
                    (float(sims[i, j]) for j in pool), reverse=True
                )[:k]
    return out


def _mined(result) -> dict[tuple[str, str], list[float]]:
    out: dict[tuple[str, str], list[float]] = defaultdict(list)
    for neg in result.negatives:
        out[(neg.unit_id, neg.axis)].append(neg.similarity)
    return dict(out)


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("k", [1, 2, 5])
@pytest.mark.parametrize("small_batches", [False, True])
def test_vectorised_miner_matches_the_definition(seed, k, small_batches, monkeypatch):
    if small_batches:  # force the one-group-at-a-time path and tiny row blocks
        monkeypatch.setattr(mining, "_BATCH_MAX", 4)
        monkeypatch.setattr(mining, "_BLOCK_ELEMENTS", 64)
    data = _random_input(seed)
    result = mine_hard_negatives(data, AXES, k)
    expected = _reference(data, AXES, k)
    got = _mined(result)
    assert got.keys() == expected.keys()
    for key in expected:
        assert got[key] == pytest.approx(expected[key], abs=1e-5), key
    # Ranks are 1..m per (gold, axis) and the rows come sorted by (gold, configured axis order, rank).
    rows = [(n.unit_id, ([*AXES, FALLBACK_AXIS]).index(n.axis), n.rank) for n in result.negatives]
    assert rows == sorted(rows)
    assert result.lonely_pages == ["u0000"]
    table = result.to_table()
    assert table.num_rows == len(result) == len(result.negatives)
    assert table.column("negative_unit_id").to_pylist() == [
        n.negative_unit_id for n in result.negatives
    ]


def test_near_identical_render_with_identical_text_is_never_a_negative():
    ids = ["gold", "copy", "sibling"]
    emb = np.array([[1.0, 0.0], [0.9999, 0.0141], [0.8, 0.6]], dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    values = {"period": ["q1", "q2", "q3"], "metric": ["rev"] * 3, "entity": ["A"] * 3}
    data = MiningInput(ids, ["t"] * 3, values, emb, ["r1", "r2", "r3"], ["same", "same", "other"])
    result = mine_hard_negatives(data, AXES, k=2)
    pairs = {(n.unit_id, n.negative_unit_id) for n in result.negatives}
    assert ("gold", "copy") not in pairs and ("copy", "gold") not in pairs
    assert ("gold", "sibling") in pairs
    # Same text but clearly different look (e.g. a blank page template reused) stays a candidate.
    data.embeddings = np.array([[1.0, 0.0], [0.0, 1.0], [0.8, 0.6]], dtype=np.float32)
    assert ("gold", "copy") in {
        (n.unit_id, n.negative_unit_id) for n in mine_hard_negatives(data, AXES, k=2).negatives
    }


@pytest.fixture(scope="module")
def no_sidecar(small_corpus, tmp_path_factory):
    """The sample corpus as a user without a sidecar has it: clustered templates, extracted axes."""
    pages = rendered(small_corpus, tmp_path_factory.mktemp("rendered"))
    groups = assign_templates(pages.ids, [""] * len(pages.ids), pages.vectors)
    extract = TextLayerExtractor(
        pages.data_dir, {d.document_sha256: (d.title, d.author) for d in pages.documents}
    )
    values = [extract(p) for p in pages.pages]
    return pages, [a.template_id for a in groups.assignments], values


def _input(pages, templates, values, axes) -> MiningInput:
    return MiningInput(
        pages.ids,
        templates,
        {a: [v.get(a, "") for v in values] for a in axes},
        pages.vectors,
        [p.render_hash for p in pages.pages],
        [p.text_hash for p in pages.pages],
    )


def test_revision_axis_finds_the_restated_page_without_a_sidecar(no_sidecar):
    pages, templates, values = no_sidecar
    axes = [*AXES, "revision"]
    result = mine_hard_negatives(_input(pages, templates, values, axes), axes, k=2)
    by_id = {p.unit_id: p for p in pages.pages}
    restated = [n for n in result.negatives if n.axis == "revision"]
    assert restated
    for n in restated:
        gold, other = pages.truth(by_id[n.unit_id]), pages.truth(by_id[n.negative_unit_id])
        assert {gold.revision, other.revision} == {"original", "restated"}
        assert (gold.template_id, gold.entity, gold.metric, gold.period) == (
            other.template_id,
            other.entity,
            other.metric,
            other.period,
        )
    # Every restated page has its original as a revision distractor, and the other way round.
    restated_pages = [p.unit_id for p in pages.pages if pages.truth(p).revision == "restated"]
    assert {n.unit_id for n in restated} >= set(restated_pages)
    # With the three default axes a page and its restatement agree on every axis: never paired.
    three = mine_hard_negatives(_input(pages, templates, values, AXES), AXES, k=2)
    key = lambda r: (r.template_id, r.entity, r.metric, r.period)  # noqa: E731
    assert not any(
        key(pages.truth(by_id[n.unit_id])) == key(pages.truth(by_id[n.negative_unit_id]))
        for n in three.negatives
        if n.axis != FALLBACK_AXIS
    )


def test_with_clusters_and_extracted_axes_every_axis_negative_is_on_template_and_one_axis_off(
    no_sidecar,
):
    pages, templates, values = no_sidecar
    result = mine_hard_negatives(_input(pages, templates, values, AXES), AXES, k=2)
    by_id = {p.unit_id: p for p in pages.pages}
    assert len({n.unit_id for n in result.negatives}) == len(
        pages.pages
    )  # every page has distractors
    for n in result.negatives:
        gold, other = pages.truth(by_id[n.unit_id]), pages.truth(by_id[n.negative_unit_id])
        assert gold.template_id == other.template_id
        if n.axis != FALLBACK_AXIS:
            differing = [
                a
                for a in ("period", "metric", "entity", "revision")
                if getattr(gold, a) != getattr(other, a)
            ]
            assert differing in ([n.axis], [n.axis, "revision"]), (n, differing)


def test_fallback_negatives_appear_when_metadata_is_missing(no_sidecar):
    pages, templates, _ = no_sidecar
    empty = [{} for _ in pages.pages]
    result = mine_hard_negatives(_input(pages, templates, empty, AXES), AXES, k=2)
    assert {n.axis for n in result.negatives} == {FALLBACK_AXIS}
    assert result.empty_pools == {a: 0 for a in AXES}  # no page has a value, so no page has a pool
    lonely = set(result.lonely_pages)
    assert result.fallback_pages == len(pages.pages) - len(lonely)
    by_id = {p.unit_id: p for p in pages.pages}
    for n in result.negatives:
        assert (
            templates[pages.ids.index(n.unit_id)] == templates[pages.ids.index(n.negative_unit_id)]
        )
        assert (
            pages.truth(by_id[n.unit_id]).template_id
            == pages.truth(by_id[n.negative_unit_id]).template_id
        )
        assert by_id[n.unit_id].render_hash != by_id[n.negative_unit_id].render_hash


@pytest.mark.parametrize("seed", [0, 1])
def test_only_asked_pages_get_negatives_and_the_fallback_searches_its_own_groups(seed):
    """Pages outside `queries` stay candidates but get no negatives; a page with every pool empty
    takes its nearest siblings in `fallback_templates` (the pipeline's visual template for table
    pages pooled by table kind)."""
    data = _random_input(seed)
    rng = np.random.default_rng(seed + 7)
    n = len(data.unit_ids)
    data.queries = rng.random(n) < 0.6
    data.fallback_templates = rng.choice(["v1", "v2", "v3", ""], size=n).tolist()
    result = mine_hard_negatives(data, AXES, 2)
    got, expected = _mined(result), _reference(data, AXES, 2)
    assert got.keys() == expected.keys()
    for key in expected:
        assert got[key] == pytest.approx(expected[key], abs=1e-5), key
    asked = {u for u, q in zip(data.unit_ids, data.queries, strict=True) if q}
    assert {neg.unit_id for neg in result.negatives} <= asked
    assert any(neg.negative_unit_id not in asked for neg in result.negatives)


def test_a_distractor_keeps_the_golds_statement_basis():
    """A filing printing consolidated and separate notes: with the basis held fixed (as the
    hard-negative stage holds it), a consolidated note's metric distractor is another
    consolidated note, never the separate note of another measure (two axes away)."""
    ids = ["gold", "sep_other", "con_other"]
    emb = np.array([[1.0, 0.0], [0.99, 0.14], [0.8, 0.6]], dtype=np.float32)
    emb /= np.linalg.norm(emb, axis=1, keepdims=True)
    values = {
        "period": ["q1"] * 3,
        "metric": ["leases", "pensions", "pensions"],
        "entity": ["A"] * 3,
    }
    data = MiningInput(
        ids,
        ["t"] * 3,
        values,
        emb,
        ["r1", "r2", "r3"],
        ["x1", "x2", "x3"],
        fixed={"basis": ["consolidated", "separate", "consolidated"]},
    )
    got = {
        n.negative_unit_id
        for n in mine_hard_negatives(data, AXES, k=2).negatives
        if n.unit_id == "gold"
    }
    assert got == {"con_other"}  # the nearer separate page is the other basis: not one axis

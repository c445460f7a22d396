"""The headline report: definitions, denominators, and the gap the seed describes.

The gap is a property of the retriever as much as of the negatives, so it is asserted for the
kind of system the seed argues about — one that ranks on appearance and has learned only what
kind of page a question is about ("a revenue chart"): a test double whose query vector is the
appearance centroid of the source page's template. The text baseline's numbers are checked for
their definitions and for the negatives step of the bridge.
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc
import pyarrow.parquet as pq
import pytest

from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.negatives.lookalikes import golden_lookalikes
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.scoring.baselines import Retriever, load_corpus_index, make_retriever
from evalset_pipeline.core.scoring.headline import (
    compute_headline,
    pool_sizes,
    random_negative_count,
)


@pytest.fixture(scope="module")
def setup(small_corpus, golden_build):
    built = golden_build.scored(small_corpus)
    paths = DataPaths.at(built.data_dir)
    return paths, load_golden_set(built.golden_version, built.data_dir), load_corpus_index(paths)


@pytest.fixture(scope="module")
def text_report(setup):
    paths, golden, index = setup
    return compute_headline(paths, golden, make_retriever("text", paths, index), index, seed=13)


def _kind_of_page(paths: DataPaths, index) -> Retriever:
    """Knows which kind of page a question is about (its source page's template) and nothing more:
    the query is that template's appearance centroid, pages rank by how much they look like it."""
    vectors = np.load(paths.tables / "page_embeddings.npy")
    ids = pq.read_table(paths.table("page_embeddings")).column("unit_id").to_pylist()
    where = {u: i for i, u in enumerate(ids)}
    aligned = vectors[[where[u] for u in index.unit_ids]]
    templates = {
        r["unit_id"]: r["template_id"]
        for r in pq.read_table(paths.table("template_groups")).to_pylist()
    }
    members: dict[str, list[int]] = {}
    for i, u in enumerate(index.unit_ids):
        members.setdefault(templates[u], []).append(i)
    centroid = {t: aligned[rows].mean(axis=0) for t, rows in members.items()}

    def encode(query_ids, texts):
        q = np.stack(
            [centroid[templates[item[len("q-") :]]] for item in query_ids]
        )  # item ids: q-<source unit>
        return q / np.linalg.norm(q, axis=1, keepdims=True)

    return Retriever(
        "kind-of-page (test double)",
        "appearance centroid of the source page's template",
        aligned,
        encode,
    )


def test_denominators_and_candidate_counts_are_as_defined(setup, text_report):
    paths, golden, index = setup
    report = text_report
    written = pq.read_table(paths.table("candidate_questions"))
    n_written = int(pc.sum(written.column("written")).as_py())
    main = golden.items.filter(pc.equal(golden.items.column("slice"), "main"))
    cols = report.columns
    # Random negatives: every written question, before validation.
    assert cols["random"].n == cols["random_index"].n == n_written == report.funnel["written"]
    assert cols["random"].n_items == written.num_rows == report.funnel["sampled"]
    # Hard negatives: the main slice (kept), less items with nothing sufficient.
    assert cols["hard"].n_items == main.num_rows == report.funnel["kept"]
    assert cols["hard"].n == cols["hard_index"].n <= main.num_rows
    assert 0 < cols["hard"].n <= n_written
    # R = median pool - 1, so both columns rank the same number of candidates.
    r, median = random_negative_count(pool_sizes(golden))
    assert report.random_negatives == r and report.median_pool == median
    assert cols["random"].candidates_per_query == r + 1 and abs((r + 1) - median) <= 0.5
    assert (
        cols["random_index"].candidates_per_query
        == cols["hard_index"].candidates_per_query
        == len(index)
    )
    # Every number is a share; mutually exclusive rows stay so.
    for col in cols.values():
        for value in col.metrics.values():
            assert value is None or 0.0 <= value <= 1.0
    hard = cols["hard"].metrics
    assert hard["sufficient@5"] + hard["supporting_only@5"] <= 1.0 + 1e-9
    assert cols["random"].metrics["top@1"] <= cols["random"].metrics["top@5"]
    # The bridge keeps one denominator and ends where the hard column is.
    assert report.bridge_n == cols["hard"].n
    assert report.bridge[-1]["value"] == pytest.approx(hard["sufficient@1"])
    assert report.bridge[2]["value"] == pytest.approx(hard["top@1"])
    text = report.markdown()
    assert f"**{n_written}** written" in text and f"**{cols['hard'].n}** kept" in text


def test_text_baseline_loses_the_source_page_to_look_alikes(text_report):
    """Same validated questions, random negatives replaced by the hard pool: top-1 of the source
    page falls (the negatives step of the bridge)."""
    steps = {s["key"]: s["value"] for s in text_report.bridge}
    # The pool holds only look-alikes (no evidence siblings), so the drop is the negatives' alone;
    # a text retriever reads the period/entity qualifiers, so it is smaller than for appearance.
    assert steps["validated_random_top1"] > steps["validated_hard_top1"], steps


def test_a_retriever_ranking_on_appearance_shows_the_gap(setup):
    paths, golden, index = setup
    report = compute_headline(paths, golden, _kind_of_page(paths, index), index, seed=13)
    naive, hard = report.columns["random"].metrics, report.columns["hard"].metrics
    print(report.markdown())
    # Random negatives are rejected on appearance; look-alike siblings are not.
    assert naive["top@1"] >= 0.8, naive
    assert hard["sufficient@1"] <= naive["top@1"] - 0.3, (naive, hard)


def test_random_draws_are_seeded_per_item(setup):
    paths, golden, index = setup
    floor = make_retriever("random", paths, index)
    a = compute_headline(paths, golden, floor, index, seed=13)
    b = compute_headline(paths, golden, floor, index, seed=13)
    c = compute_headline(paths, golden, floor, index, seed=14)
    assert a.to_dict() == b.to_dict()
    assert c.columns["random"].n == a.columns["random"].n  # another draw, same denominators
    assert c.random_negatives == a.random_negatives


def test_an_empty_main_slice_gives_a_report_that_says_so(setup):
    import dataclasses

    paths, golden, index = setup
    no_main = dataclasses.replace(
        golden, items=golden.items.filter(pc.equal(golden.items.column("slice"), "nothing"))
    )
    report = compute_headline(
        paths, no_main, make_retriever("random", paths, index), index, seed=13
    )
    assert report.columns["hard"].n == 0 and report.columns["random"].metrics["top@1"] is None
    assert "no main-slice items" in report.warnings[0]
    assert "—" in report.markdown()


def test_hard_negatives_are_scored_by_distractor_kind(setup, text_report):
    """One row per kind of distractor the main items have; its items are those with such a
    distractor (the same count the dataset card gives), `appearance` never one-axis."""
    _, golden, _ = setup
    shares = golden_lookalikes(golden.items, golden.judgments)
    by_kind = text_report.by_kind
    assert by_kind and set(by_kind) == set(shares["by_kind"])
    for kind, row in by_kind.items():
        assert row["items"] == shares["by_kind"][kind]["items"]
        assert row["n"] <= row["items"] <= text_report.columns["hard"].n_items
        assert row["one_axis"] is (kind != "appearance")
        assert row["sufficient@1"] is None or 0.0 <= row["sufficient@1"] <= 1.0
    assert "Hard negatives by kind" in text_report.markdown()
    assert all(f"hard_{k}_sufficient_at_1" in text_report.numbers() for k in by_kind)

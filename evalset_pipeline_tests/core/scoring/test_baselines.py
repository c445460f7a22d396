"""Built-in baselines on a small generated corpus built through Dagster (with `baseline_scores`).

The build is shared by every scoring module of the session through `golden_build.scored` (one
corpus, one materialization); tests that write to the data directory work on a copy (`copy_built`).
"""

from __future__ import annotations

import numpy as np
import pyarrow.compute as pc
import pytest

from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.scoring.baselines import (
    BaselineUnavailable,
    baseline_run,
    load_corpus_index,
    make_retriever,
    write_run,
)
from evalset_pipeline.core.scoring.metrics import score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.report import summarize
from evalset_pipeline.core.scoring.runs import read_run
from evalset_pipeline_tests.support.builds import ScoredBuild


@pytest.fixture(scope="module")
def built(small_corpus, golden_build) -> ScoredBuild:
    return golden_build.scored(small_corpus)


def _main_means(golden, run) -> dict[str, float | None]:
    return summarize(score_run(qrels_from_golden(golden), run))["main"].metrics


def test_text_baseline_is_a_valid_run_that_beats_random(built):
    paths = DataPaths.at(built.data_dir)
    golden = load_golden_set("latest", built.data_dir)
    index = load_corpus_index(paths)
    run = baseline_run(paths, golden.items, "text", depth=20, index=index)
    n_items = golden.items.num_rows
    assert len(run) == n_items * min(20, len(index))
    assert set(run.query_ids.to_pylist()) == set(golden.items.column("item_id").to_pylist())
    assert set(run.unit_ids.to_pylist()) <= set(index.unit_ids)  # retrieval over the rendered pages
    assert run.meta.corpus_fingerprint == golden.info["corpus_fingerprint"]
    assert run.meta.corpus_pages == golden.info["corpus_pages"]
    assert run.meta.run_name == "baseline-text"
    # Exact cosine: scores lie in [-1, 1] and come best first per query.
    assert np.all(np.abs(run.scores) <= 1.0 + 1e-5)
    first = run.scores.reshape(n_items, -1)
    assert np.all(np.diff(first, axis=1) <= 1e-6)

    random_run = baseline_run(paths, golden.items, "random", depth=20, index=index)
    text, chance = _main_means(golden, run), _main_means(golden, random_run)
    assert text["sufficient@5"] > chance["sufficient@5"] + 0.2, (
        text["sufficient@5"],
        chance["sufficient@5"],
    )
    # Same seed, same random run; the floor is query-specific, not one order for all.
    again = baseline_run(paths, golden.items, "random", depth=20, index=index)
    assert again.unit_ids.equals(random_run.unit_ids)
    assert (
        len(
            {
                tuple(r)
                for r in np.asarray(random_run.unit_ids.to_pylist())
                .reshape(n_items, -1)[:, :5]
                .tolist()
            }
        )
        > 1
    )


@pytest.mark.parametrize("suffix", [".trec", ".jsonl", ".parquet"])
def test_written_runs_read_back_with_their_corpus_metadata(built, tmp_path, suffix):
    paths = DataPaths.at(built.data_dir)
    golden = load_golden_set("latest", built.data_dir)
    run = baseline_run(paths, golden.items, "random", depth=7)
    out = tmp_path / f"run{suffix}"
    write_run(run, out)
    back = read_run(out)
    assert back.meta == run.meta
    assert len(back) == len(run)
    mine = score_run(qrels_from_golden(golden), run)
    theirs = score_run(qrels_from_golden(golden), back)
    for key in ("sufficient@5", "ndcg@10", "gold_recall@1"):
        np.testing.assert_allclose(mine.values[key], theirs.values[key], equal_nan=True)


def test_appearance_refuses_over_the_offline_appearance_vectors(built):
    paths = DataPaths.at(built.data_dir)
    with pytest.raises(BaselineUnavailable, match="no\\s+text side"):
        make_retriever("appearance", paths, load_corpus_index(paths))


def test_baseline_scores_asset_reports_the_headline_for_the_built_version(built):
    meta = built.baseline_scores
    assert meta["version_id"] == built.golden_version
    assert (
        meta["retrievers"] == "bm25"
    )  # the default; the offline appearance vectors have no text side
    assert "random negatives" in meta["bm25_headline"] and "hard negatives" in meta["bm25_headline"]
    golden = load_golden_set(built.golden_version, built.data_dir)
    main = int(pc.sum(pc.equal(golden.items.column("slice"), "main")).as_py())
    assert meta["bm25_hard_n"] <= main and meta["bm25_hard_n"] > 0
    assert meta["bm25_random_n"] == golden.info["funnel"]["generated"]
    assert 0.0 <= meta["bm25_random_top_at_1"] <= 1.0

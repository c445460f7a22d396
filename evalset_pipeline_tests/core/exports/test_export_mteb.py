"""MTEB v2 loads every slice of the `mteb` export, and its own retrieval metrics equal `evalset score`'s.

The loader is the real one (`AbsTaskRetrieval.load_data` -> `RetrievalDatasetLoader`) reading the
export folder as a Hugging Face dataset; metrics are `mteb._evaluators.retrieval_metrics.
calculate_retrieval_scores`, what `mteb.evaluate` calls, on the loaded qrels. MTEB rounds its
nDCG/Recall means to 5 decimals (compared within 5e-6) and keeps MRR unrounded (1e-9); the
per-query values it averages (`all_scores`) are compared at 1e-9.
"""

from __future__ import annotations

import pyarrow.parquet as pq
import pytest
from mteb.abstasks.retrieval import AbsTaskRetrieval
from mteb.abstasks.task_metadata import TaskMetadata

from evalset_pipeline.core.exports import export_golden_set
from evalset_pipeline.core.scoring.conventions import KS
from evalset_pipeline.core.scoring.metrics import score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.report import summarize
from evalset_pipeline_tests.core.exports.export_fixtures import (
    N_BUILD_PAGES,
    as_results,
    permutation_run,
    publish_export_case,
)

SPLITS = {"test": "main", "underspecified": "underspecified", "regression": "regression"}


def _task(path: str) -> AbsTaskRetrieval:
    class EvalsetGolden(AbsTaskRetrieval):
        metadata = TaskMetadata(
            name="EvalsetGolden",
            description="evalset_pipeline golden set export",
            reference=None,
            dataset={"path": path, "revision": "main"},
            type="Retrieval",
            category="t2i",
            eval_splits=list(SPLITS),
            eval_langs=["eng-Latn"],
            main_score="ndcg_at_10",
            date=None,
            domains=None,
            task_subtypes=None,
            license=None,
            annotations_creators=None,
            dialect=None,
            modalities=["text", "image"],
            sample_creation=None,
            bibtex_citation="",
        )

    return EvalsetGolden()


@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    import datasets

    tmp = tmp_path_factory.mktemp("mteb")
    (tmp / "data").mkdir()
    golden = publish_export_case(tmp / "data")
    out = tmp / "mteb"
    export_golden_set(golden, "mteb", out)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(datasets.config, "HF_DATASETS_CACHE", tmp / "hf-cache")  # never the user's cache
        task = _task(str(out))
        task.load_data()
    return golden, out, task.dataset["default"]


def test_mteb_v2_loader_loads_every_slice(loaded):
    golden, out, dataset = loaded
    assert set(dataset) == set(SPLITS)
    unit_ids = set(golden.units.column("unit_id").to_pylist())
    items = {i["item_id"]: i for i in golden.items.to_pylist()}
    for split, slice_name in SPLITS.items():
        data = dataset[split]
        corpus, queries, relevant = data["corpus"], data["queries"], data["relevant_docs"]
        assert {"id", "text", "image"} <= set(corpus.column_names) and len(corpus) == N_BUILD_PAGES
        assert set(corpus["id"]) >= unit_ids  # the stored unit ids, the whole corpus
        assert corpus[0]["image"].size == (4, 4)  # decoded as an image
        assert set(queries.column_names) >= {"id", "text"} and queries["id"]
        for qid, text in zip(queries["id"], queries["text"], strict=False):
            assert items[qid]["slice"] == slice_name and items[qid]["question"] == text
        expected = pq.read_table(out / "qrels" / f"{split}-00000-of-00001.parquet").to_pylist()
        assert relevant == _nested(expected) and set(relevant) == set(queries["id"])
        assert {s for d in relevant.values() for s in d.values()} == {1}  # binary: sufficient only


def _nested(rows: list[dict]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for r in rows:
        out.setdefault(r["query-id"], {})[r["corpus-id"]] = r["score"]
    return out


def test_mteb_retrieval_metrics_on_the_loaded_export_equal_evalset_score(loaded):
    from mteb._evaluators.retrieval_metrics import calculate_retrieval_scores

    golden, _, dataset = loaded
    corpus_ids = list(dataset["test"]["corpus"]["id"])
    query_ids = [q for split in SPLITS for q in dataset[split]["queries"]["id"]]
    run = permutation_run(query_ids, corpus_ids, seed=7)
    scores = score_run(qrels_from_golden(golden), run, gain="binary")
    means = summarize(scores)
    index = {q: i for i, q in enumerate(scores.item_ids.tolist())}
    for split, slice_name in SPLITS.items():
        relevant = dataset[split]["relevant_docs"]
        result = calculate_retrieval_scores(as_results(run, set(relevant)), relevant, list(KS))
        ours = means[slice_name].metrics
        assert means[slice_name].n_scored == len(relevant)
        for k in KS:
            assert abs(result.mrr[f"MRR@{k}"] - ours[f"mrr@{k}"]) <= 1e-9, (split, k)
            for qid, values in result.all_scores.items():
                assert abs(values[f"ndcg_cut_{k}"] - scores.values[f"ndcg@{k}"][index[qid]]) <= 1e-9
                assert abs(values[f"recall_{k}"] - scores.values[f"recall@{k}"][index[qid]]) <= 1e-9
            if slice_name != "underspecified":  # evalset reports no recall/nDCG there
                assert abs(result.ndcg[f"NDCG@{k}"] - ours[f"ndcg@{k}"]) <= 5e-6 + 1e-12, (split, k)
                assert abs(result.recall[f"Recall@{k}"] - ours[f"recall@{k}"]) <= 5e-6 + 1e-12, (
                    split,
                    k,
                )

"""Every tool scores an export the way `evalset score` does: BEIR and pytrec_eval, on the same run.

BEIR's `EvaluateRetrieval` rounds its means to 5 decimals, so its numbers are compared within
that rounding (5e-6); the per-query values it averages come from pytrec_eval, and those are
compared to 1e-9. MRR@k per query is pytrec_eval's `recip_rank` when the first relevant unit is
within k, else 0 (what BEIR's `mrr` computes).
"""

from __future__ import annotations

import json

import numpy as np
import pytest
import pytrec_eval
from beir.datasets.data_loader import GenericDataLoader
from beir.retrieval.evaluation import EvaluateRetrieval

from evalset_pipeline.core.exports import export_golden_set
from evalset_pipeline.core.scoring.baselines import write_run
from evalset_pipeline.core.scoring.conventions import KS, metric_keys
from evalset_pipeline.core.scoring.metrics import QueryScores, score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.report import summarize
from evalset_pipeline_tests.core.exports.export_fixtures import (
    as_results,
    permutation_run,
    publish_export_case,
)

BEIR_ROUNDING = 5e-6 + 1e-12
SLICE_OF_SPLIT = {"test": "main", "underspecified": "underspecified", "regression": "regression"}
MEASURES = {"recall." + ",".join(map(str, KS)), "ndcg_cut." + ",".join(map(str, KS)), "recip_rank"}


@pytest.fixture(scope="module")
def case(tmp_path_factory):
    data_dir = tmp_path_factory.mktemp("parity") / "data"
    data_dir.mkdir()
    golden = publish_export_case(data_dir)
    out = tmp_path_factory.mktemp("exports")
    export_golden_set(golden, "beir", out / "binary")
    export_golden_set(golden, "beir", out / "graded", graded=True)
    corpus_ids = [
        json.loads(line)["_id"]
        for line in (out / "binary" / "corpus.jsonl").read_text().splitlines()
    ]
    query_ids = [
        json.loads(line)["_id"]
        for line in (out / "binary" / "queries.jsonl").read_text().splitlines()
    ]
    # The run is made from the export's ids only, over the export's whole corpus.
    runs = [permutation_run(query_ids, corpus_ids, seed) for seed in (1, 2, 3)]
    return golden, out, runs


def _reported(scores: QueryScores, slice_name: str, family: str) -> list[str]:
    return [
        k
        for k in metric_keys(slice_name, scores.ks)
        if k.split("@")[0] == family and "_judged" not in k
    ]


def _per_query(
    tool: dict[str, dict[str, float]],
    scores: QueryScores,
    slice_name: str,
    families: tuple[str, ...],
) -> int:
    """Compare per-query values of pytrec_eval and evalset for the slice; returns how many were compared."""
    index = {q: i for i, q in enumerate(scores.item_ids.tolist())}
    compared = 0
    for qid, values in tool.items():
        i = index[qid]
        assert scores.slices[i] == slice_name and scores.eligible[i], qid
        for k in KS:
            ours = {"recall": f"recall@{k}", "ndcg": f"ndcg@{k}", "mrr": f"mrr@{k}"}
            theirs = {
                "recall": values[f"recall_{k}"],
                "ndcg": values[f"ndcg_cut_{k}"],
                # recip_rank is uncut: 1/rank of the first relevant unit; MRR@k keeps it when rank <= k.
                "mrr": values["recip_rank"] if values["recip_rank"] >= 1.0 / k - 1e-12 else 0.0,
            }
            for fam in families:
                assert abs(scores.values[ours[fam]][i] - theirs[fam]) <= 1e-9, (qid, fam, k)
                compared += 1
    return compared


@pytest.mark.parametrize("run_no", [0, 1, 2])
def test_beir_on_the_default_export_equals_evalset_score(case, run_no):
    """Default flags on both sides: BEIR on the default export, `evalset score` with no option."""
    golden, out, runs = case
    run = runs[run_no]
    evalset = score_run(qrels_from_golden(golden), run)
    means = summarize(evalset)
    for split, slice_name in SLICE_OF_SPLIT.items():
        corpus, queries, qrels = GenericDataLoader(str(out / "binary")).load(split=split)
        assert len(corpus) == 20 and set(queries) == set(qrels)
        results = as_results(run, set(qrels))
        ndcg, _map, recall, _p = EvaluateRetrieval.evaluate(qrels, results, list(KS))
        mrr = EvaluateRetrieval.evaluate_custom(qrels, results, list(KS), metric="mrr")
        beir = {
            **{f"ndcg@{k}": ndcg[f"NDCG@{k}"] for k in KS},
            **{f"recall@{k}": recall[f"Recall@{k}"] for k in KS},
            **{f"mrr@{k}": mrr[f"MRR@{k}"] for k in KS},
        }
        assert means[slice_name].n_scored == len(
            qrels
        )  # the same queries, none dropped, none added
        families = ("recall", "ndcg", "mrr") if slice_name != "underspecified" else ("mrr",)
        for fam in families:
            for key in _reported(evalset, slice_name, fam):
                assert abs(beir[key] - means[slice_name].metrics[key]) <= BEIR_ROUNDING, (
                    split,
                    key,
                )
        # Strictly, per query: the pytrec_eval values BEIR averages.
        per_query = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(results)
        assert _per_query(per_query, evalset, slice_name, families) >= len(qrels) * len(KS)


def test_the_old_export_failure_is_gone(case):
    """Before: supporting distractors had grade 1, so BEIR counted them as hits (MRR 0.442 vs 0.222)."""
    golden, out, runs = case
    _, _, graded = GenericDataLoader(str(out / "graded")).load(split="test")
    _, _, binary = GenericDataLoader(str(out / "binary")).load(split="test")
    results = as_results(runs[0], set(graded))
    loose = EvaluateRetrieval.evaluate_custom(graded, results, [10], metric="mrr")["MRR@10"]
    strict = EvaluateRetrieval.evaluate_custom(
        binary, as_results(runs[0], set(binary)), [10], metric="mrr"
    )["MRR@10"]
    ours = summarize(score_run(qrels_from_golden(golden), runs[0]))["main"].metrics["mrr@10"]
    assert abs(strict - ours) <= BEIR_ROUNDING and loose > ours + 0.05


@pytest.mark.parametrize("run_no", [0, 1, 2])
def test_pytrec_eval_on_the_graded_export_at_level_2_equals_plain_evalset_score(case, run_no):
    golden, out, runs = case
    run = runs[run_no]
    plain = score_run(qrels_from_golden(golden), run, gain="graded")  # relevant = sufficient
    supporting = score_run(qrels_from_golden(golden), run, relevance="supporting", gain="graded")
    for split, slice_name in SLICE_OF_SPLIT.items():
        _, _, qrels = GenericDataLoader(str(out / "graded")).load(split=split)
        results = as_results(run, set(qrels))
        families = ("recall", "ndcg", "mrr") if slice_name != "underspecified" else ("mrr",)
        level2 = pytrec_eval.RelevanceEvaluator(qrels, MEASURES, relevance_level=2).evaluate(
            results
        )
        # it-0011 (supporting only) is in the graded qrels; at level 2 it has nothing relevant and
        # pytrec_eval skips it, as evalset's zero-relevant policy does.
        assert set(level2) == {q for q in qrels if max(qrels[q].values()) >= 2}
        assert ("it-0011" in qrels) == (slice_name == "main") and "it-0011" not in level2
        assert _per_query(level2, plain, slice_name, families) > 0
        # Without the level (BEIR's default) supporting counts: that is `--relevance supporting`.
        level1 = pytrec_eval.RelevanceEvaluator(qrels, MEASURES).evaluate(results)
        assert _per_query(level1, supporting, slice_name, families) > 0


def test_a_run_of_exported_ids_scores_directly(case, tmp_path, capsys, monkeypatch):
    from evalset_pipeline.cli.main import main

    golden, out, runs = case
    path = tmp_path / "run.trec"
    write_run(runs[0], path)
    data_dir = golden.snapshot_dir.parents[2]
    assert (
        main(["score", str(path), "--data-dir", str(data_dir), "--json"]) == 0  # default flags
    )
    report = json.loads(capsys.readouterr().out)
    assert not [w for w in report["warnings"] if "not items of golden version" in w]
    _, _, qrels = GenericDataLoader(str(out / "binary")).load(split="test")
    assert report["counts"]["main"]["n_scored"] == len(qrels)
    results = as_results(runs[0], set(qrels))
    ndcg, _, recall, _ = EvaluateRetrieval.evaluate(qrels, results, [10])
    assert abs(report["slices"]["main"]["ndcg@10"] - ndcg["NDCG@10"]) <= BEIR_ROUNDING
    assert abs(report["slices"]["main"]["recall@10"] - recall["Recall@10"]) <= BEIR_ROUNDING
    assert report["gain"] == "binary" and "binary" in report["conventions"]["gain"]
    assert np.isfinite(report["slices"]["main"]["mrr@10"])


def test_real_build_exports_every_page_and_beir_equals_evalset_on_the_text_baseline(
    small_corpus, golden_build, tmp_path
):
    """On a real build: the corpus is every rendered page (not just the judged ones), and BEIR on the
    default export gives `evalset score`'s numbers for the text baseline run over that corpus."""
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.scoring.baselines import baseline_run, load_corpus_index
    from evalset_pipeline.core.scoring.runs import declared_order, run_from_columns

    built = golden_build.scored(small_corpus)
    golden = load_golden_set("latest", built.data_dir)
    paths = DataPaths.at(built.data_dir)
    index = load_corpus_index(paths)
    summary = export_golden_set(golden, "beir", tmp_path / "beir")
    assert summary["corpus"] == len(index) > golden.units.num_rows == summary["corpus_referenced"]
    raw = baseline_run(paths, golden.items, "text", depth=len(index), index=index)
    # Same ranking as evalset's tie-break, with distinct scores, so trec_eval's tie-break cannot differ.
    order = declared_order(raw.query_ids, raw.unit_ids, raw.scores)
    run = run_from_columns(
        raw.query_ids.take(order), raw.unit_ids.take(order), -np.arange(len(order), dtype=float)
    )
    means = summarize(score_run(qrels_from_golden(golden), run))  # default flags, as BEIR's
    compared = 0
    for split, slice_name in SLICE_OF_SPLIT.items():
        if not (tmp_path / "beir" / "qrels" / f"{split}.tsv").exists():
            continue
        _, _, qrels = GenericDataLoader(str(tmp_path / "beir")).load(split=split)
        if not qrels:
            continue
        results = as_results(run, set(qrels))
        ndcg, _, recall, _ = EvaluateRetrieval.evaluate(qrels, results, list(KS))
        mrr = EvaluateRetrieval.evaluate_custom(qrels, results, list(KS), metric="mrr")
        ours = means[slice_name].metrics
        assert means[slice_name].n_scored == len(qrels)
        for k in KS:
            assert abs(mrr[f"MRR@{k}"] - ours[f"mrr@{k}"]) <= BEIR_ROUNDING, (split, k)
            if slice_name != "underspecified":
                assert abs(ndcg[f"NDCG@{k}"] - ours[f"ndcg@{k}"]) <= BEIR_ROUNDING, (split, k)
                assert abs(recall[f"Recall@{k}"] - ours[f"recall@{k}"]) <= BEIR_ROUNDING, (split, k)
            compared += 1
    assert compared >= len(KS)

"""Recall@k, nDCG@k and MRR@k equal trec_eval's (pytrec-eval-terrier) to 1e-9.

trec_eval orders tied scores by docid *descending*; we declare unit id *ascending*. So runs with
ties are handed to trec_eval pre-ranked: each result's score is replaced by minus its position in
our declared order, which makes both tools see the same ranking. Runs without ties are compared
on their raw scores. MRR@k is trec_eval's recip_rank on the run cut to our top k.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest
import pytrec_eval

from evalset_pipeline.core.scoring.conventions import KS
from evalset_pipeline.core.scoring.metrics import score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.runs import Run, declared_order, run_from_columns
from evalset_pipeline_tests.core.scoring.golden_builder import make_golden

LABELS = np.array(["sufficient", "supporting", "irrelevant"])


def random_case(
    seed: int,
    n_queries: int = 150,
    n_units: int = 60,
    tie_scores: bool = True,
    row_order: str = "generated",
):
    """Random graded qrels and a run; `row_order` exercises the scorer's three ordering paths:
    "generated" (grouped, unsorted), "retriever" (grouped, best first, ties in arbitrary order),
    "shuffled" (rows in random order)."""
    rng = np.random.default_rng(seed)
    items, judgments, triples = [], [], []
    for i in range(n_queries):
        judged = rng.choice(n_units, int(rng.integers(1, 12)), replace=False)
        labels = rng.choice(LABELS, len(judged), p=[0.3, 0.3, 0.4])
        items.append((f"q{i:03d}", "main", f"u{judged[0]:02d}"))
        judgments += [
            (f"q{i:03d}", f"u{u:02d}", lab) for u, lab in zip(judged, labels, strict=False)
        ]
        if i % 17 == 5:
            continue  # missing from the run
        retrieved = rng.choice(
            n_units, int(rng.integers(1, 25)), replace=False
        )  # judged and unjudged
        # Few distinct score values -> many ties (about a third of adjacent pairs).
        scores = (
            rng.integers(0, 6, len(retrieved)).astype(float)
            if tie_scores
            else rng.permutation(len(retrieved)) + rng.random()
        )
        triples += [
            (f"q{i:03d}", f"u{u:02d}", float(s)) for u, s in zip(retrieved, scores, strict=False)
        ]
    if row_order == "retriever":
        tiebreak = rng.random(len(triples))
        triples = [
            triples[i]
            for i in sorted(
                range(len(triples)), key=lambda i: (triples[i][0], -triples[i][2], tiebreak[i])
            )
        ]
    elif row_order == "shuffled":
        triples = [triples[i] for i in rng.permutation(len(triples))]
    golden = make_golden(items, judgments)
    run = run_from_columns(
        [t[0] for t in triples], [t[1] for t in triples], [t[2] for t in triples]
    )
    return golden, run


def pre_ranked(run: Run, k: int | None = None, keep=None) -> dict[str, dict[str, float]]:
    """{qid: {docid: -position}} in our declared order, optionally cut to the top k."""
    order = declared_order(run.query_ids, run.unit_ids, run.scores)
    out: dict[str, dict[str, float]] = {}
    for q, u in zip(
        run.query_ids.take(pa.array(order)).to_pylist(),
        run.unit_ids.take(pa.array(order)).to_pylist(),
        strict=False,
    ):
        if keep is not None and not keep(q, u):
            continue
        ranking = out.setdefault(q, {})
        if k is None or len(ranking) < k:
            ranking[u] = -float(len(ranking))
    return out


def trec_eval(qrels, run, relevance_level: int, measures=None):
    cut = ",".join(str(k) for k in KS)
    measures = measures or {f"recall.{cut}", f"ndcg_cut.{cut}"}
    return pytrec_eval.RelevanceEvaluator(
        qrels, measures, relevance_level=relevance_level
    ).evaluate(run)


def assert_parity(
    scores, qrels_trec, run_ranked_full, run_cut_at, relevance_level: int, suffix: str = ""
) -> int:
    ours = {q: i for i, q in enumerate(scores.item_ids)}
    compared = 0
    full = trec_eval(qrels_trec, run_ranked_full, relevance_level)
    for k in KS:
        rr = trec_eval(qrels_trec, run_cut_at(k), relevance_level, {"recip_rank"})
        for q, theirs in full.items():
            i = ours[q]
            if not scores.eligible[i]:
                continue  # zero-relevant policy: excluded on our side (trec_eval reports 0)
            assert scores.values[f"recall@{k}{suffix}"][i] == pytest.approx(
                theirs[f"recall_{k}"], abs=1e-9
            ), (q, k)
            assert scores.values[f"ndcg@{k}{suffix}"][i] == pytest.approx(
                theirs[f"ndcg_cut_{k}"], abs=1e-9
            ), (q, k)
            assert scores.values[f"mrr@{k}{suffix}"][i] == pytest.approx(
                rr[q]["recip_rank"], abs=1e-9
            ), (q, k)
            compared += 1
    return compared


@pytest.mark.parametrize("relevance,level", [("sufficient", 2), ("supporting", 1)])
@pytest.mark.parametrize("seed,row_order", [(0, "generated"), (1, "retriever"), (4, "shuffled")])
def test_parity_with_ties_pre_ranked(seed: int, row_order: str, relevance: str, level: int):
    golden, run = random_case(seed, row_order=row_order)
    qrels = qrels_from_golden(golden)
    scores = score_run(qrels, run, gain="graded", relevance=relevance)  # type: ignore[arg-type]
    compared = assert_parity(
        scores, qrels.to_trec(), pre_ranked(run), lambda k: pre_ranked(run, k), level
    )
    assert compared > 300  # most queries were actually compared


def test_parity_judged_only_equals_trec_eval_on_the_condensed_run():
    golden, run = random_case(2)
    qrels = qrels_from_golden(golden)
    trec_qrels = qrels.to_trec()

    def judged(q: str, u: str) -> bool:
        return u in trec_qrels.get(q, {})

    scores = score_run(qrels, run, gain="graded")
    compared = assert_parity(
        scores,
        trec_qrels,
        pre_ranked(run, keep=judged),
        lambda k: pre_ranked(run, k, keep=judged),
        2,
        "_judged",
    )
    assert compared > 300


def test_parity_on_raw_scores_without_ties():
    golden, run = random_case(3, tie_scores=False)
    qrels = qrels_from_golden(golden)
    scores = score_run(qrels, run, gain="graded")
    raw: dict[str, dict[str, float]] = {}
    for q, u, s in zip(
        run.query_ids.to_pylist(), run.unit_ids.to_pylist(), run.scores.tolist(), strict=False
    ):
        raw.setdefault(q, {})[u] = s
    assert_parity(scores, qrels.to_trec(), raw, lambda k: pre_ranked(run, k), 2)


def test_trec_eval_breaks_ties_the_other_way():
    """Documents the one deliberate difference: on raw tied scores trec_eval ranks docid descending."""
    golden = make_golden([("q", "main", "a")], [("q", "a", "sufficient"), ("q", "b", "irrelevant")])
    qrels = qrels_from_golden(golden)
    run = run_from_columns(["q", "q"], ["a", "b"], [1.0, 1.0])
    assert score_run(qrels, run).values["mrr@10"][0] == 1.0  # a before b
    theirs = trec_eval(qrels.to_trec(), {"q": {"a": 1.0, "b": 1.0}}, 2, {"recip_rank"})
    assert theirs["q"]["recip_rank"] == 0.5  # b before a


def test_graded_gain_and_ideal_match_trec_eval_conventions():
    """Linear gain (grade = gain) and an ideal over all judged units, including unretrieved ones."""
    golden = make_golden(
        [("q", "main", "a")],
        [("q", "a", "sufficient"), ("q", "b", "supporting"), ("q", "z", "sufficient")],
    )
    qrels = qrels_from_golden(golden)
    run = run_from_columns(["q", "q"], ["b", "a"], [2.0, 1.0])
    ours = score_run(qrels, run, gain="graded").values["ndcg@3"][0]
    theirs = trec_eval(qrels.to_trec(), {"q": {"b": 2.0, "a": 1.0}}, 2)["q"]["ndcg_cut_3"]
    # DCG = 1 + 2*0.630930 = 2.261860; IDCG (z unretrieved still counts) = 2 + 2*0.630930 + 1*0.5 = 3.761860
    assert ours == pytest.approx(theirs, abs=1e-12) == pytest.approx(2.261860 / 3.761860, abs=1e-6)

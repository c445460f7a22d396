"""BM25 scores equal a reference computation written out from the formula (Lucene variant), and
the retriever searches and caches by content."""

from __future__ import annotations

import math
from collections import Counter

import numpy as np
import pytest

from evalset_pipeline.core.scoring import bm25

DOCS = [
    "Revenue grew in the third quarter of 2024 for Acme Group",
    "Operating income fell; revenue was flat",
    "Segment revenue and operating income by segment: revenue revenue revenue",
    "Cash flows from operating activities",
    "",
]
QUERIES = [
    "What was revenue in the third quarter?",
    "operating income segment",
    "dividends declared",
]


def reference_scores(
    docs: list[str], query: str, k1: float = bm25.K1, b: float = bm25.B
) -> list[float]:
    """Lucene's BM25 (which drops the constant (k1 + 1) of Robertson's numerator):
    score(D, Q) = sum over query tokens t of idf(t) * tf(t, D) / (tf(t, D) + k1 (1 - b + b |D| / avgdl)),
    idf(t) = ln(1 + (N - df(t) + 0.5) / (df(t) + 0.5)); tokens as bm25s splits them."""
    tokenized = bm25.tokenize(docs)
    n = len(docs)
    avgdl = sum(len(d) for d in tokenized) / n
    df = Counter(t for d in tokenized for t in set(d))
    out = []
    for d in tokenized:
        tf = Counter(d)
        s = 0.0
        for t in bm25.tokenize([query])[0]:
            if tf[t]:
                idf = math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5))
                s += idf * tf[t] / (tf[t] + k1 * (1 - b + b * len(d) / avgdl))
        out.append(s)
    return out


def test_scores_equal_the_formula():
    matrix, vocab = bm25.build_matrix(DOCS)
    queries = bm25.query_matrix(QUERIES, vocab, matrix.shape[1])
    got = np.asarray((matrix @ queries.T).todense())
    for j, q in enumerate(QUERIES):
        assert got[:, j] == pytest.approx(reference_scores(DOCS, q), rel=1e-5, abs=1e-6), q
    assert got[:, 2].max() == 0  # no query word in any page


def test_the_index_is_cached_by_content(tmp_path):
    calls = []

    def texts():
        calls.append(1)
        return DOCS

    a, vocab_a, built_a = bm25.cached_matrix(["h1", "h2", "h3", "h4", "h5"], texts, tmp_path)
    b, vocab_b, built_b = bm25.cached_matrix(["h1", "h2", "h3", "h4", "h5"], texts, tmp_path)
    assert (built_a, built_b) == (True, False) and calls == [1]  # second time: no text read
    assert vocab_a == vocab_b and (a != b).nnz == 0
    bm25.cached_matrix(["h1", "h2", "h3", "h4", "changed"], texts, tmp_path)
    assert calls == [1, 1]


def test_search_ranks_by_bm25_over_the_whole_index():
    from evalset_pipeline.core.scoring.baselines import search

    matrix, vocab = bm25.build_matrix(DOCS)
    queries = bm25.query_matrix(QUERIES, vocab, matrix.shape[1])
    scores, rows = search(matrix, queries, depth=3)
    for j, q in enumerate(QUERIES[:2]):
        ref = np.asarray(reference_scores(DOCS, q))
        assert rows[j, 0] == int(np.argmax(ref))
        assert scores[j] == pytest.approx(np.sort(ref)[::-1][:3], rel=1e-5, abs=1e-6)

"""BM25 over each page's text layer (bm25s), as a `Retriever` whose page vectors are sparse.

bm25s precomputes, for every (page, term), the term's BM25 contribution to a query containing
it once; a query's score for a page is the sum of those contributions over the query's tokens
(repeats counted), so the score is the inner product of the page's row with the query's token
count vector. That lets BM25 share everything the dense retrievers use (whole-index search,
pool scoring, the headline), with `page_vectors` a CSR matrix (pages x vocabulary).

The index is cached by content: the key is the pages' text hashes in order plus the BM25
parameters and bm25s version, so a rebuild whose text layers did not change reads no text layer.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np
import scipy.sparse as sp

from evalset_pipeline.core.atomic import write_bytes_atomic

K1 = 1.5
B = 0.75
METHOD = "lucene"  # bm25s's default variant: idf = ln(1 + (N - df + 0.5) / (df + 0.5))
STOPWORDS = "en"
MODEL_ID = f"bm25s:{METHOD}:k1={K1}:b={B}:stopwords={STOPWORDS}"


def tokenize(texts: Sequence[str]) -> list[list[str]]:
    """bm25s's tokenizer (lower-case words of two or more characters, English stopwords out)."""
    import bm25s

    return bm25s.tokenize(list(texts), stopwords=STOPWORDS, return_ids=False, show_progress=False)


def build_matrix(texts: Sequence[str]) -> tuple[sp.csr_matrix, dict[str, int]]:
    """(pages x vocabulary) BM25 weights from bm25s's eager index, and the vocabulary."""
    import bm25s

    tokens = tokenize(texts)
    retriever = bm25s.BM25(k1=K1, b=B, method=METHOD)
    retriever.index(tokens, show_progress=False)
    s = retriever.scores
    vocab = dict(retriever.vocab_dict)
    # bm25s stores it column-major by token: indptr over tokens, indices = page rows.
    matrix = sp.csc_matrix(
        (s["data"], s["indices"], s["indptr"]), shape=(s["num_docs"], len(s["indptr"]) - 1)
    )
    return matrix.tocsr().astype(np.float32), vocab


def query_matrix(texts: Sequence[str], vocab: dict[str, int], width: int) -> sp.csr_matrix:
    """One row per query: how often each vocabulary token occurs in it (unknown tokens score nothing)."""
    rows, cols, vals = [], [], []
    for r, tokens in enumerate(tokenize(texts) if len(texts) else []):
        counts: dict[int, int] = {}
        for t in tokens:
            if t in vocab and vocab[t] < width:
                counts[vocab[t]] = counts.get(vocab[t], 0) + 1
        rows += [r] * len(counts)
        cols += list(counts)
        vals += list(counts.values())
    return sp.csr_matrix((np.asarray(vals, np.float32), (rows, cols)), shape=(len(texts), width))


def cache_key(text_hashes: Sequence[str]) -> str:
    import bm25s

    h = hashlib.sha256(f"{MODEL_ID}:{bm25s.__version__}".encode())
    for t in text_hashes:
        h.update(t.encode() + b"\0")
    return h.hexdigest()[:32]


def cached_matrix(
    text_hashes: Sequence[str], load_texts: Callable[[], Sequence[str]], store: Path
) -> tuple[sp.csr_matrix, dict[str, int], bool]:
    """The index for these pages from `store` when their texts are unchanged, else built and stored.
    `load_texts()` returns the texts in order; it is called only on a miss. Returns (matrix, vocab, built)."""
    path = Path(store) / f"{cache_key(text_hashes)}.npz"
    if path.exists():
        with np.load(path, allow_pickle=False) as z:
            matrix = sp.csr_matrix((z["data"], z["indices"], z["indptr"]), shape=tuple(z["shape"]))
            vocab = {t: i for i, t in enumerate(json.loads(str(z["vocab"])))}
        return matrix, vocab, False
    matrix, vocab = build_matrix(load_texts())
    ordered = [t for t, _ in sorted(vocab.items(), key=lambda kv: kv[1])]
    buf = io.BytesIO()
    np.savez(
        buf,
        data=matrix.data,
        indices=matrix.indices,
        indptr=matrix.indptr,
        shape=np.asarray(matrix.shape),
        vocab=np.asarray(json.dumps(ordered)),
    )
    write_bytes_atomic(path, buf.getvalue())
    return matrix, vocab, True

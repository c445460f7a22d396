"""Built-in baseline retrievers: runs over every rendered page of the corpus, ready for `evalset score`.

Four retrievers, chosen so that each number they produce is honest about what it measured:

  bm25        BM25 (bm25s, Lucene variant, k1 1.5, b 0.75, English stopwords) over each page's
              text layer; query = the question. The default: no model, a second for 5,000 pages,
              and its index is cached by the pages' text hashes (core/scoring/bm25.py).
  text        the bundled all-MiniLM-L6-v2 over each page's text layer (dense); query = the
              question. Page vectors are cached by render hash (core/index/embeddings.embed_pages).
  appearance  the question embedded by the model that made `page_embeddings`, matched against
              those page vectors, when that model has a text side (a
              sentence-transformers text model, or CLIP/SigLIP, whose text tower shares the
              image space). The offline `appearance` vectors are computed from pixels and word
              boxes only: a question has no pixels, so there is nothing honest to match it
              with. Using the gold page's own appearance as the query would need the answer,
              so the retriever refuses (BaselineUnavailable) instead of cheating.
  random      seeded Gaussian vectors for queries and pages: an order unrelated to content,
              the chance floor every other number should clear.

Retrieval is exact: inner products over all pages in `page_renders` (cosine of L2-normalised
vectors through faiss IndexFlatIP for the dense ones; a sparse product for BM25), top `depth`
per query. The run carries the corpus fingerprint and page count from the corpus manifest, so
`evalset score`'s guards can check it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import scipy.sparse as sp

from evalset_pipeline.core.index.embeddings import (
    DEFAULT_TEXT_MODEL,
    EmbedderSpec,
    EmbedInput,
    embed_pages,
    encode_texts_cached,
    load_sentence_transformer,
)
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.scoring.runs import Run, RunMeta, run_from_columns

RETRIEVERS = ("bm25", "text", "appearance", "random")
DEFAULT_RETRIEVER = "bm25"
DEFAULT_DEPTH = 100
DEFAULT_SEED = 13
TEXT_SPEC = EmbedderSpec(model=DEFAULT_TEXT_MODEL, modality="text")
RANDOM_DIM = 64
# core/pipeline/documents.MANIFEST, spelled out: importing that module loads the PDF library.
MANIFEST = "corpus_manifest.json"
_QUERY_BATCH = 256  # queries searched per faiss call (bounds the score matrix in memory)


class BaselineUnavailable(Exception):
    """The retriever cannot produce an honest run on this index; the message says why."""

    exit_code = 2


@dataclass(frozen=True)
class IndexPage:
    """One rendered page, as `page_renders` lists it (the fields retrieval and judging read)."""

    unit_id: str
    document_sha256: str
    document_path: str
    page_number: int
    render_path: str  # relative to the data directory
    text_path: str
    thumb_path: str
    render_hash: str
    text_hash: str = ""

    @classmethod
    def from_row(cls, row: dict) -> IndexPage:
        return cls(**{f: row[f] for f in cls.__dataclass_fields__ if f in row})


@dataclass(frozen=True)
class CorpusIndex:
    """Every rendered page of the corpus (the retrieval index) and the manifest it came from."""

    pages: tuple[IndexPage, ...]
    corpus_fingerprint: str | None
    corpus_pages: int | None
    corpus_documents: int | None
    root: Path

    @property
    def unit_ids(self) -> list[str]:
        return [p.unit_id for p in self.pages]

    def __len__(self) -> int:
        return len(self.pages)

    def run_meta(self, run_name: str) -> RunMeta:
        return RunMeta(
            corpus_fingerprint=self.corpus_fingerprint,
            corpus_pages=self.corpus_pages,
            corpus_documents=self.corpus_documents,
            run_name=run_name,
        )


def load_corpus_index(paths: DataPaths) -> CorpusIndex:
    """The pages the pipeline rendered (`page_renders`) plus the corpus manifest (`documents`)."""
    import json

    from evalset_pipeline.core.tables import read_rows

    pages = tuple(
        IndexPage.from_row(r)
        for r in read_rows(paths.table("page_renders"), producer="page_renders")
    )
    manifest_path = paths.table_file(MANIFEST)
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    return CorpusIndex(
        pages=pages,
        corpus_fingerprint=manifest.get("fingerprint"),
        corpus_pages=manifest.get("pages"),
        corpus_documents=manifest.get("documents"),
        root=paths.root,
    )


@dataclass(frozen=True)
class Retriever:
    """Page vectors aligned with the index, and a function that embeds queries into their space.

    `encode(query_ids, texts)` returns one row per query (L2-normalised for the dense retrievers);
    scores are inner products. BM25's page and query vectors are scipy CSR matrices.
    """

    name: str
    description: str
    page_vectors: (
        Any  # (n_pages, dim): float32 ndarray, or CSR, rows aligned with CorpusIndex.pages
    )
    encode: Callable[[Sequence[str], Sequence[str]], Any]

    _scores: dict = field(
        default_factory=dict, compare=False, repr=False
    )  # sparse: all scores per query block

    def pair_scores(
        self, query_vectors: Any, rows: Sequence[int] | np.ndarray, q: int
    ) -> np.ndarray:
        """Scores of query `q` against the pages at index rows `rows`."""
        rows = np.asarray(rows, dtype=np.int64)
        if sp.issparse(self.page_vectors):
            # One sparse product for every query against every page, then lookups: slicing a CSR
            # matrix per item costs more than the whole product.
            held = self._scores.get(id(query_vectors))
            if held is None or held[0] is not query_vectors:
                held = (
                    query_vectors,
                    np.asarray((query_vectors @ self.page_vectors.T).todense(), dtype=np.float32),
                )
                self._scores.clear()
                self._scores[id(query_vectors)] = held
            return held[1][q, rows]
        return self.page_vectors[rows] @ query_vectors[q]


def _normalise(v: np.ndarray) -> np.ndarray:
    v = np.asarray(v, dtype=np.float32)
    norms = np.linalg.norm(v, axis=1, keepdims=True)
    return v / np.where(norms > 0, norms, 1.0)


@functools.lru_cache(maxsize=4)
def _model(name: str) -> Any:
    """One loaded sentence-transformers model per process (loading costs seconds)."""
    return load_sentence_transformer(name)


def _encoder(
    model_name: str, cache_root: Path | None = None
) -> Callable[[Sequence[str], Sequence[str]], np.ndarray]:
    def encode(query_ids: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        if not len(texts):
            return np.zeros((0, 1), np.float32)
        if (
            cache_root is not None
        ):  # [perf, benchmarks/rebuild.py] a no-change rebuild loads no model
            return _normalise(
                encode_texts_cached(model_name, list(texts), cache_root, load=_model, batch_size=64)
            )
        vectors = _model(model_name).encode(
            list(texts), batch_size=64, normalize_embeddings=True, convert_to_numpy=True
        )
        return _normalise(vectors)

    return encode


def bm25_retriever(paths: DataPaths, index: CorpusIndex) -> Retriever:
    from evalset_pipeline.core.pagetext.layer import load_text_layer
    from evalset_pipeline.core.scoring import bm25

    def texts() -> list[str]:
        return [
            str(load_text_layer(index.root / p.text_path).get("text") or "") for p in index.pages
        ]

    hashes = [p.text_hash or p.render_hash for p in index.pages]
    matrix, vocab, _ = bm25.cached_matrix(hashes, texts, paths.embeddings / "bm25")
    width = matrix.shape[1]
    return Retriever(
        name="bm25",
        description=f"BM25 (bm25s, {bm25.METHOD}, k1 {bm25.K1}, b {bm25.B}) over each page's text layer; "
        "query = the question",
        page_vectors=matrix,
        encode=lambda ids, qs: bm25.query_matrix(list(qs), vocab, width),
    )


def text_retriever(paths: DataPaths, index: CorpusIndex) -> Retriever:
    inputs = [
        EmbedInput(
            p.render_hash,
            index.root / p.render_path,
            index.root / p.text_path,
            index.root / p.thumb_path,
        )
        for p in index.pages
    ]
    vectors, _ = embed_pages(TEXT_SPEC, inputs, paths.embeddings)
    return Retriever(
        name="text",
        description=f"{DEFAULT_TEXT_MODEL} over each page's text layer; query = the question",
        page_vectors=_normalise(vectors),
        encode=_encoder(DEFAULT_TEXT_MODEL, paths.embeddings),
    )


def _page_embedding_model(paths: DataPaths) -> tuple[list[str], np.ndarray, str]:
    from evalset_pipeline.core.index.embeddings import VECTORS
    from evalset_pipeline.core.tables import read_table

    table = read_table(paths.table("page_embeddings"), producer="page_embeddings")
    ids = table.column("unit_id").to_pylist()
    model_ids = sorted(set(table.column("model_id").to_pylist()))
    return (
        ids,
        np.load(paths.table_file(VECTORS)),
        model_ids[0] if len(model_ids) == 1 else ",".join(model_ids),
    )


def appearance_retriever(paths: DataPaths, index: CorpusIndex) -> Retriever:
    """Queries in the space of the configured page embeddings, or a refusal that says why not."""
    ids, vectors, model_id = _page_embedding_model(paths)
    if not model_id.startswith("st:"):
        raise BaselineUnavailable(
            f"the page embeddings are {model_id!r} (the offline appearance vectors: pixels and word boxes, no "
            "text side), so a question cannot be placed in their space. Matching the gold page's own appearance "
            "would need the answer, which is not a retriever. Rebuild with a sentence-transformers embedder that "
            "can embed text in the page space (`evalset build --embedder <clip/siglip or text model>`), or use "
            "`--retriever text`."
        )
    name, _, modality = model_id[len("st:") :].rpartition(":")  # st:<name or path>:<modality>
    where = {u: i for i, u in enumerate(ids)}
    missing = [p.unit_id for p in index.pages if p.unit_id not in where]
    if missing or len(vectors) != len(ids):
        raise BaselineUnavailable(
            f"page_embeddings does not cover the rendered pages ({len(missing)} missing); re-materialize "
            "`page_embeddings` before retrieving from it"
        )
    aligned = vectors[[where[p.unit_id] for p in index.pages]]
    return Retriever(
        name="appearance",
        description=f"question embedded by {name} against the page embeddings it produced ({modality})",
        page_vectors=_normalise(aligned),
        encode=_encoder(name, paths.embeddings),
    )


def _seeded_gaussian(seed: int, key: str, dim: int = RANDOM_DIM) -> np.ndarray:
    digest = hashlib.sha256(f"{seed}:{key}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big")).standard_normal(dim)


def random_retriever(index: CorpusIndex, seed: int = DEFAULT_SEED) -> Retriever:
    pages = (
        np.stack([_seeded_gaussian(seed, "page:" + u) for u in index.unit_ids])
        if len(index)
        else np.zeros((0, RANDOM_DIM))
    )

    def encode(query_ids: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        if not len(query_ids):
            return np.zeros((0, RANDOM_DIM), np.float32)
        return _normalise(np.stack([_seeded_gaussian(seed, "query:" + q) for q in query_ids]))

    return Retriever(
        name="random",
        description=f"seeded Gaussian vectors (seed {seed}): the chance floor",
        page_vectors=_normalise(pages),
        encode=encode,
    )


def make_retriever(
    kind: str, paths: DataPaths, index: CorpusIndex, *, seed: int = DEFAULT_SEED
) -> Retriever:
    if kind == "bm25":
        return bm25_retriever(paths, index)
    if kind == "text":
        return text_retriever(paths, index)
    if kind == "appearance":
        return appearance_retriever(paths, index)
    if kind == "random":
        return random_retriever(index, seed)
    raise ValueError(f"unknown retriever {kind!r}; choose one of {', '.join(RETRIEVERS)}")


def appearance_available(paths: DataPaths) -> bool:
    """Whether `appearance_retriever` would run (the page embeddings have a text side)."""
    try:
        return _page_embedding_model(paths)[2].startswith("st:")
    except FileNotFoundError:
        return False


def _sparse_search(
    pages: sp.csr_matrix, queries: sp.csr_matrix, k: int
) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-k of sparse inner products, best first, ties by lower row (as faiss orders them)."""
    scores, rows = [], []
    for start in range(0, queries.shape[0], _QUERY_BATCH):
        dense = np.asarray(
            (queries[start : start + _QUERY_BATCH] @ pages.T).todense(), dtype=np.float32
        )
        top = np.argsort(-dense, axis=1, kind="stable")[:, :k]
        rows.append(top.astype(np.int64))
        scores.append(np.take_along_axis(dense, top, axis=1))
    return np.vstack(scores), np.vstack(rows)


def search(page_vectors: Any, query_vectors: Any, depth: int) -> tuple[np.ndarray, np.ndarray]:
    """Exact top-`depth` inner products: (scores, rows), each (n_queries, min(depth, n_pages))."""
    import faiss

    n_pages = page_vectors.shape[0]
    n_queries = query_vectors.shape[0]
    k = min(depth, n_pages)
    if k == 0 or n_queries == 0:
        return np.zeros((n_queries, 0), np.float32), np.zeros((n_queries, 0), np.int64)
    if sp.issparse(page_vectors):
        return _sparse_search(page_vectors.tocsr(), sp.csr_matrix(query_vectors), k)
    flat = faiss.IndexFlatIP(page_vectors.shape[1])
    flat.add(np.ascontiguousarray(page_vectors, dtype=np.float32))
    scores, rows = [], []
    for start in range(0, len(query_vectors), _QUERY_BATCH):
        s, r = flat.search(
            np.ascontiguousarray(query_vectors[start : start + _QUERY_BATCH], dtype=np.float32), k
        )
        scores.append(s)
        rows.append(r)
    return np.vstack(scores), np.vstack(rows)


def retrieve(
    retriever: Retriever,
    index: CorpusIndex,
    query_ids: Sequence[str],
    texts: Sequence[str],
    depth: int = DEFAULT_DEPTH,
    *,
    query_vectors: np.ndarray | None = None,
) -> Run:
    """A run: the top `depth` pages of the whole index for every query."""
    if depth < 1:
        raise ValueError("depth must be at least 1")
    qv = retriever.encode(query_ids, texts) if query_vectors is None else query_vectors
    scores, rows = search(retriever.page_vectors, qv, depth)
    units = np.asarray(index.unit_ids, dtype=object)
    k = rows.shape[1]
    return run_from_columns(
        pa.array(np.repeat(np.asarray(list(query_ids), dtype=object), k).tolist(), pa.string()),
        pa.array(units[rows.reshape(-1)].tolist() if k else [], pa.string()),
        scores.reshape(-1).astype(np.float64),
        meta=index.run_meta(f"baseline-{retriever.name}"),
    )


def golden_queries(items: pa.Table) -> tuple[list[str], list[str]]:
    """(item ids, questions) of every golden item, in golden order: the queries of a baseline run."""
    return items.column("item_id").to_pylist(), items.column("question").to_pylist()


def baseline_run(
    paths: DataPaths,
    items: pa.Table,
    kind: str,
    *,
    depth: int = DEFAULT_DEPTH,
    seed: int = DEFAULT_SEED,
    index: CorpusIndex | None = None,
) -> Run:
    """The run of a built-in retriever for every golden item (all slices), over all rendered pages."""
    index = index or load_corpus_index(paths)
    retriever = make_retriever(kind, paths, index, seed=seed)
    ids, texts = golden_queries(items)
    return retrieve(retriever, index, ids, texts, depth)


# --- writing -----------------------------------------------------------------------------------


def write_run(run: Run, path: str | Path, tag: str | None = None) -> str:
    """Write by suffix: .parquet/.pq (schema metadata), .jsonl/.ndjson/.json (a `_meta` first
    line), anything else TREC (comment lines). Every form carries the corpus metadata. Returns
    the format written."""
    import json

    import pyarrow.parquet as pq

    from evalset_pipeline.core.scoring.runs import PARQUET_META_KEY, declared_order, write_trec_run

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tag = tag or run.meta.run_name or "run"
    meta = {k: v for k, v in run.meta.to_dict().items() if v is not None}
    suffix = path.suffix.lower()
    if suffix not in (".parquet", ".pq", ".jsonl", ".ndjson", ".json"):
        write_trec_run(run, path, tag=tag)
        return "trec"
    order = pa.array(declared_order(run.query_ids, run.unit_ids, run.scores))
    table = pa.table(
        {
            "qid": run.query_ids.take(order),
            "docid": run.unit_ids.take(order),
            "score": pa.array(run.scores[order.to_numpy()], pa.float64()),
        }
    )
    if suffix in (".parquet", ".pq"):
        table = table.replace_schema_metadata({PARQUET_META_KEY: json.dumps(meta)})
        pq.write_table(table, path)
        return "parquet"
    with path.open("w", encoding="utf-8") as fh:
        fh.write(json.dumps({"_meta": meta}) + "\n")
        for q, u, s in zip(
            table.column("qid").to_pylist(),
            table.column("docid").to_pylist(),
            table.column("score").to_pylist(),
            strict=False,
        ):
            fh.write(json.dumps({"qid": q, "docid": u, "score": s}) + "\n")
    return "jsonl"


__all__ = [
    "RETRIEVERS",
    "BaselineUnavailable",
    "CorpusIndex",
    "IndexPage",
    "Retriever",
    "appearance_available",
    "DEFAULT_RETRIEVER",
    "baseline_run",
    "bm25_retriever",
    "load_corpus_index",
    "make_retriever",
    "retrieve",
    "search",
    "write_run",
]

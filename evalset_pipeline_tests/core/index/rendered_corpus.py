"""A sample corpus rendered and embedded once per test session, with its generator plan as oracle.

Core functions only (no Dagster): scan -> render -> appearance vectors. Test modules that need
real pages call `rendered(corpus_dir, tmp_root)`; the result is cached per corpus folder.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from evalset_pipeline.core.corpus.documents import DocumentRecord, scan_corpus
from evalset_pipeline.core.index.embeddings import EmbedderSpec, EmbedInput, embed_pages
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.render.pages import PageRender, render_corpus
from evalset_pipeline.samplekit.sample_corpus import CorpusPlan, PageRecord, plan_sample_corpus

# The session's `small_corpus` fixture (evalset_pipeline_tests/conftest.py) is generated with these.
SMALL = {"entities": 5, "periods": 2}


@dataclass
class Rendered:
    data_dir: Path
    documents: list[DocumentRecord]
    pages: list[PageRender]
    vectors: np.ndarray  # appearance vectors, row i = pages[i]
    plan: CorpusPlan

    @property
    def ids(self) -> list[str]:
        return [p.unit_id for p in self.pages]

    def truth(self, page: PageRender) -> PageRecord:
        return self.plan.page(page.document_path, page.page_number)

    def embed_inputs(self, pages: list[PageRender] | None = None) -> list[EmbedInput]:
        root = self.data_dir
        return [
            EmbedInput(p.render_hash, root / p.render_path, root / p.text_path, root / p.thumb_path)
            for p in (self.pages if pages is None else pages)
        ]


@lru_cache(maxsize=4)
def rendered(
    corpus_dir: Path,
    data_dir: Path,
    entities: int = SMALL["entities"],
    periods: int = SMALL["periods"],
) -> Rendered:
    paths = DataPaths.at(data_dir)
    scan = scan_corpus(corpus_dir)
    out = render_corpus(scan.documents, corpus_dir, paths.root, paths.renders, workers=1)
    pages = sorted(out.pages, key=lambda p: (p.document_path, p.page_number))
    r = Rendered(
        paths.root,
        scan.documents,
        pages,
        np.zeros((0, 0), np.float32),
        plan_sample_corpus(entities=entities, periods=periods),
    )
    r.vectors, _ = embed_pages(EmbedderSpec(), r.embed_inputs(), paths.embeddings, workers=1)
    return r

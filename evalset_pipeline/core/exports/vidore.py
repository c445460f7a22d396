"""ViDoRe BEIR layout, with the column names vidore-benchmark's `ViDoReEvaluatorBEIR` reads.

    corpus   corpus-id, image (image retrievers), text_description (text retrievers: the page's
             text layer), image_filename, and the page's metadata   (one file, every split)
    queries  query-id, query, answer, slice, language                one split per slice
    qrels    query-id, corpus-id, score                              one split per slice

vidore-benchmark picks `image` when the retriever has `use_visual_embedding=True` and
`text_description` otherwise; both are filled for every page, so an image and a text retriever
are scored on the same pages and queries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.exports import hf
from evalset_pipeline.core.exports._common import UnitPayload
from evalset_pipeline.core.exports.data import ExportData

CORPUS = pa.schema(
    [
        ("corpus-id", pa.string()),
        ("image", hf.IMAGE),
        ("text_description", pa.string()),
        ("image_filename", pa.string()),
        ("document_path", pa.string()),
        ("page_number", pa.int64()),
        ("template_id", pa.string()),
        ("entity", pa.string()),
        ("metric", pa.string()),
        ("period", pa.string()),
        ("language", pa.string()),
    ]
)
QUERIES = pa.schema(
    [
        ("query-id", pa.string()),
        ("query", pa.string()),
        ("answer", pa.string()),
        ("slice", pa.string()),
        ("language", pa.string()),
    ]
)


def _corpus_row(unit: UnitPayload, image: bytes) -> dict[str, Any]:
    name = Path(unit.image_name(image)).name
    row = {
        "corpus-id": unit.unit_id,
        "image": {"bytes": image, "path": name},
        "text_description": unit.text,
        "image_filename": name,
    }
    return {**row, **{k: unit.row.get(k) for k in CORPUS.names if k not in row}}


def _query_row(item: dict[str, Any]) -> dict[str, Any]:
    return {
        "query-id": item["item_id"],
        "query": item["question"],
        "answer": item.get("answer"),
        "slice": item["slice"],
        "language": item.get("language"),
    }


def export(data: ExportData, out_dir: Path) -> dict[str, Any]:
    return hf.write_retrieval_dataset(data, out_dir, (CORPUS, _corpus_row), (QUERIES, _query_row))

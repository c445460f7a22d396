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

from evalset_pipeline.core.golden.exports import hf
from evalset_pipeline.core.golden.exports._common import UnitPayload
from evalset_pipeline.core.golden.exports.data import ExportData

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
QRELS = pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int64())])


def _corpus_row(unit: UnitPayload, image: bytes) -> dict[str, Any]:
    name = Path(unit.image_name(image)).name
    row = {"corpus-id": unit.unit_id, "image": {"bytes": image, "path": name}, "text_description": unit.text,
           "image_filename": name}
    return {**row, **{k: unit.row.get(k) for k in CORPUS.names if k not in row}}


def export(data: ExportData, out_dir: Path) -> dict[str, Any]:
    hf.write_parquet(out_dir / hf.CORPUS_FILE, hf.rows_with_images(data.units, _corpus_row), CORPUS)
    splits = []
    for slice_name in data.slices:
        split = data.split(slice_name)
        splits.append(split)
        queries = (
            {"query-id": q["item_id"], "query": q["question"], "answer": q.get("answer"), "slice": q["slice"],
             "language": q.get("language")}
            for q in data.queries(slice_name)
        )
        hf.write_parquet(out_dir / hf.split_file("queries", split), queries, QUERIES)
        qrels = ({"query-id": q, "corpus-id": u, "score": s} for q, u, s in data.qrels[slice_name])
        hf.write_parquet(out_dir / hf.split_file("qrels", split), qrels, QRELS)
    return {"card_header": hf.yaml_header(splits), "splits": splits}

"""MTEB v2 retrieval layout, as `mteb.abstasks.retrieval_dataset_loaders.RetrievalDatasetLoader` reads it.

    corpus   id, text, image           (one file, declared for every split)
    queries  id, text                  one split per slice
    qrels    query-id, corpus-id, score one split per slice, scores per the policy
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.golden.exports import hf
from evalset_pipeline.core.golden.exports._common import UnitPayload
from evalset_pipeline.core.golden.exports.data import ExportData

CORPUS = pa.schema([("id", pa.string()), ("text", pa.string()), ("image", hf.IMAGE)])
QUERIES = pa.schema([("id", pa.string()), ("text", pa.string())])
QRELS = pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int64())])


def _corpus_row(unit: UnitPayload, image: bytes) -> dict[str, Any]:
    return {"id": unit.unit_id, "text": unit.text, "image": {"bytes": image, "path": Path(unit.image_name(image)).name}}


def export(data: ExportData, out_dir: Path) -> dict[str, Any]:
    hf.write_parquet(out_dir / hf.CORPUS_FILE, hf.rows_with_images(data.units, _corpus_row), CORPUS)
    splits = []
    for slice_name in data.slices:
        split = data.split(slice_name)
        splits.append(split)
        queries = ({"id": q["item_id"], "text": q["question"]} for q in data.queries(slice_name))
        hf.write_parquet(out_dir / hf.split_file("queries", split), queries, QUERIES)
        qrels = ({"query-id": q, "corpus-id": u, "score": s} for q, u, s in data.qrels[slice_name])
        hf.write_parquet(out_dir / hf.split_file("qrels", split), qrels, QRELS)
    return {"card_header": hf.yaml_header(splits), "splits": splits}

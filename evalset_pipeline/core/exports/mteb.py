"""MTEB v2 retrieval layout, as `mteb.abstasks.retrieval_dataset_loaders.RetrievalDatasetLoader` reads it.

corpus   id, text, image           (one file, declared for every split)
queries  id, text                  one split per slice
qrels    query-id, corpus-id, score one split per slice, scores per the policy
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.exports import hf
from evalset_pipeline.core.exports._common import UnitPayload
from evalset_pipeline.core.exports.data import ExportData

CORPUS = pa.schema([("id", pa.string()), ("text", pa.string()), ("image", hf.IMAGE)])
QUERIES = pa.schema([("id", pa.string()), ("text", pa.string())])


def _corpus_row(unit: UnitPayload, image: bytes) -> dict[str, Any]:
    return {
        "id": unit.unit_id,
        "text": unit.text,
        "image": {"bytes": image, "path": Path(unit.image_name(image)).name},
    }


def _query_row(item: dict[str, Any]) -> dict[str, Any]:
    return {"id": item["item_id"], "text": item["question"]}


def export(data: ExportData, out_dir: Path) -> dict[str, Any]:
    return hf.write_retrieval_dataset(data, out_dir, (CORPUS, _corpus_row), (QUERIES, _query_row))

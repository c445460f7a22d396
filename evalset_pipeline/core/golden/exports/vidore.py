"""ViDoRe / MTEB visual-retrieval layout: three Parquet configs, Hugging Face `datasets` style.

    corpus/test-00000-of-00001.parquet     corpus-id, image {bytes, path}, text, title, metadata columns
    queries/<split>-00000-of-00001.parquet query-id, query, answer, slice, language
    qrels/<split>-00000-of-00001.parquet   query-id, corpus-id, score (2 sufficient, 1 supporting)
    README.md                              dataset card declaring the configs and splits

Split `test` is the main slice. Ids are strings prefixed "c-" (corpus) and "q-" (queries), so a
query id can never equal a corpus id even when units and items share a naming scheme.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.golden.exports._common import SCORES, UnitPayload, split_name
from evalset_pipeline.core.golden.model import GoldenSet

IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])  # the `datasets` Image encoding
CORPUS = pa.schema(
    [
        ("corpus-id", pa.string()),
        ("image", IMAGE),
        ("text", pa.string()),
        ("title", pa.string()),
        ("unit_id", pa.string()),
        ("document_path", pa.string()),
        ("page_number", pa.int64()),
        ("template_id", pa.string()),
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
        ("item_id", pa.string()),
    ]
)
QRELS = pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int64())])


def corpus_id(unit_id: str) -> str:
    return f"c-{unit_id}"


def query_id(item_id: str) -> str:
    return f"q-{item_id}"


def _hf_features(schema: pa.Schema) -> bytes:
    """Schema metadata that makes `datasets` decode `image` as an Image feature."""
    dtypes = {pa.string(): "string", pa.int64(): "int64", pa.binary(): "binary"}
    features = {
        f.name: ({"_type": "Image"} if f.type == IMAGE else {"dtype": dtypes[f.type], "_type": "Value"}) for f in schema
    }
    return json.dumps({"info": {"features": features}}).encode("utf-8")


def _write(out_dir: Path, config: str, split: str, rows: list[dict[str, Any]], schema: pa.Schema) -> None:
    schema = schema.with_metadata({b"huggingface": _hf_features(schema)})
    (out_dir / config).mkdir(parents=True, exist_ok=True)
    # Small row groups keep memory flat for readers streaming a corpus of large images.
    pq.write_table(
        pa.Table.from_pylist(rows, schema=schema),
        out_dir / config / f"{split}-00000-of-00001.parquet",
        row_group_size=64,
    )


def _readme(splits: list[str]) -> str:
    lines = ["---", "configs:"]
    for config, config_splits in (("corpus", ["test"]), ("queries", splits), ("qrels", splits)):
        lines += [f"- config_name: {config}", "  data_files:"]
        lines += [f"  - split: {s}\n    path: {config}/{s}-*" for s in config_splits]
    lines += ["---", "", "Golden set exported by evalset_pipeline (see golden_set.json for the version).", ""]
    return "\n".join(lines)


def export(golden: GoldenSet, out_dir: Path, units: dict[str, UnitPayload]) -> dict[str, Any]:
    corpus = [
        {
            "corpus-id": corpus_id(u.unit_id),
            "image": {"bytes": u.image, "path": Path(u.image_name).name},
            "text": u.text,
            "title": u.title,
            "unit_id": u.unit_id,
            "document_path": u.row["document_path"],
            "page_number": u.row["page_number"],
            "template_id": u.row["template_id"],
            "language": u.row["language"],
        }
        for u in units.values()
    ]
    _write(out_dir, "corpus", "test", corpus, CORPUS)
    items = golden.items.to_pylist()
    split_of = {i["item_id"]: split_name(i["slice"]) for i in items}
    splits = sorted(set(split_of.values()), key=lambda s: (s != "test", s)) or ["test"]
    for split in splits:
        queries = [
            {
                "query-id": query_id(i["item_id"]),
                "query": i["question"],
                "answer": i["answer"],
                "slice": i["slice"],
                "language": i["language"],
                "item_id": i["item_id"],
            }
            for i in items
            if split_of[i["item_id"]] == split
        ]
        qrels = [
            {"query-id": query_id(j["item_id"]), "corpus-id": corpus_id(j["unit_id"]), "score": SCORES[j["label"]]}
            for j in golden.judgments.to_pylist()
            if split_of[j["item_id"]] == split and SCORES[j["label"]] > 0
        ]
        _write(out_dir, "queries", split, queries, QUERIES)
        _write(out_dir, "qrels", split, qrels, QRELS)
    (out_dir / "README.md").write_text(_readme(splits), encoding="utf-8")
    return {"corpus": len(corpus), "queries": len(items), "splits": splits}

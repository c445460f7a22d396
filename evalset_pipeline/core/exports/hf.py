"""Hugging Face `datasets` Parquet layout shared by the `mteb` and `vidore` exports.

Three configs — `corpus`, `queries`, `qrels` — each with one split per slice (`test` = main).
The corpus is one file that every split points at: every slice is ranked over the same pages,
and loaders (MTEB's ViDoRe tasks, vidore-benchmark's CLI) ask for the corpus of a split.
The dataset card's YAML header declares the configs, so `load_dataset(DIR, "corpus", split=…)`
works on the folder without a loading script.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.exports._common import UnitPayload
from evalset_pipeline.core.exports.data import ExportData

IMAGE = pa.struct([("bytes", pa.binary()), ("path", pa.string())])  # the `datasets` Image encoding
CORPUS_FILE = "corpus/corpus-00000-of-00001.parquet"
# BEIR-style qrels, as both MTEB and ViDoRe read them.
QRELS = pa.schema([("query-id", pa.string()), ("corpus-id", pa.string()), ("score", pa.int64())])
_BATCH = 64  # rows per row group: memory stays flat for readers streaming large images


def _hf_features(schema: pa.Schema) -> bytes:
    """Schema metadata that makes `datasets` decode `image` as an Image feature."""
    dtypes = {pa.string(): "string", pa.int64(): "int64", pa.binary(): "binary"}
    features = {
        f.name: (
            {"_type": "Image"} if f.type == IMAGE else {"dtype": dtypes[f.type], "_type": "Value"}
        )
        for f in schema
    }
    return json.dumps({"info": {"features": features}}).encode("utf-8")


def write_parquet(path: Path, rows: Iterable[dict[str, Any]], schema: pa.Schema) -> int:
    """Write rows in row groups of _BATCH, never holding more than one group; returns the row count."""
    schema = schema.with_metadata({b"huggingface": _hf_features(schema)})
    path.parent.mkdir(parents=True, exist_ok=True)
    n = 0
    with pq.ParquetWriter(path, schema) as writer:
        batch: list[dict[str, Any]] = []
        for row in rows:
            batch.append(row)
            if len(batch) == _BATCH:
                writer.write_table(pa.Table.from_pylist(batch, schema=schema))
                n, batch = n + len(batch), []
        if batch or n == 0:
            writer.write_table(pa.Table.from_pylist(batch, schema=schema))
            n += len(batch)
    return n


def rows_with_images(
    units: list[UnitPayload], row: Callable[[UnitPayload, bytes], dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """One corpus row per unit, reading each render only when its row is written."""
    for unit in units:
        yield row(unit, unit.read_image())


def split_file(config: str, split: str) -> str:
    return f"{config}/{split}-00000-of-00001.parquet"


def yaml_header(splits: list[str]) -> str:
    """The dataset card's front matter: configs and their splits (the corpus file shared by all)."""
    lines = ["---", "configs:"]
    for config in ("corpus", "queries", "qrels"):
        lines += [f"- config_name: {config}", "  data_files:"]
        for split in splits:
            path = CORPUS_FILE if config == "corpus" else split_file(config, split)
            lines += [f"  - split: {split}", f"    path: {path}"]
    lines += ["---", ""]
    return "\n".join(lines)


def write_retrieval_dataset(
    data: ExportData,
    out_dir: Path,
    corpus: tuple[pa.Schema, Callable[[UnitPayload, bytes], dict[str, Any]]],
    queries: tuple[pa.Schema, Callable[[dict[str, Any]], dict[str, Any]]],
) -> dict[str, Any]:
    """The corpus, then queries and qrels per split, each config in its own parquet files; the
    formats differ only in their corpus and query rows."""
    write_parquet(out_dir / CORPUS_FILE, rows_with_images(data.units, corpus[1]), corpus[0])
    splits = []
    for slice_name in data.slices:
        split = data.split(slice_name)
        splits.append(split)
        write_parquet(
            out_dir / split_file("queries", split),
            map(queries[1], data.queries(slice_name)),
            queries[0],
        )
        qrels = ({"query-id": q, "corpus-id": u, "score": s} for q, u, s in data.qrels[slice_name])
        write_parquet(out_dir / split_file("qrels", split), qrels, QRELS)
    return {"card_header": yaml_header(splits), "splits": splits}

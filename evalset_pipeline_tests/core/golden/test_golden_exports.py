"""Export round trips: BEIR through GenericDataLoader, ViDoRe Parquet schema, self-contained JSONL."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from evalset_pipeline import load_golden_set
from evalset_pipeline.core.golden.exports import ExportError, export_golden_set
from evalset_pipeline.core.golden.publish import publish_golden_set


@pytest.fixture
def golden(paths, draft):
    # 8 items over 8 units: it-0005 is in the underspecified slice, the rest main.
    publish_golden_set(paths, draft(n_items=8))
    return load_golden_set(data_dir=paths.root)


def test_beir_round_trip(golden, tmp_path: Path):
    from beir.datasets.data_loader import GenericDataLoader

    out = tmp_path / "beir"
    export_golden_set(golden, "beir", out)
    corpus, queries, qrels = GenericDataLoader(str(out)).load(split="test")
    assert set(corpus) == set(golden.units.column("unit_id").to_pylist())
    assert corpus["doc0:p1"] == {
        "title": "Acme Corp report 0",
        "text": "\nAcme Corp report 0\nRevenue FY24 Q1: 100 MUSD",
    }
    main = [i for i in golden.items.to_pylist() if i["slice"] == "main"]
    assert set(queries) == {i["item_id"] for i in main} and queries["it-0001"] == "What was Acme revenue in FY24 Q2?"
    # Graded: gold sufficient = 2, supporting distractor = 1, irrelevant omitted.
    assert qrels["it-0001"] == {"doc0:p2": 2, "doc0:p4": 1}
    _, under_queries, under_qrels = GenericDataLoader(str(out)).load(split="underspecified")
    assert set(under_qrels) == {"it-0005"}
    # Both modalities for every unit: the image file is there next to the text.
    for line in (out / "corpus.jsonl").read_text().splitlines():
        record = json.loads(line)
        assert (out / record["image"]).read_bytes().startswith(b"\x89PNG") and record["text"]
    assert json.loads((out / "golden_set.json").read_text())["version_id"] == golden.version_id


def test_vidore_parquet_layout(golden, tmp_path: Path):
    out = tmp_path / "vidore"
    export_golden_set(golden, "vidore", out)
    corpus = pq.read_table(out / "corpus" / "test-00000-of-00001.parquet")
    queries = pq.read_table(out / "queries" / "test-00000-of-00001.parquet")
    qrels = pq.read_table(out / "qrels" / "test-00000-of-00001.parquet")
    assert corpus.schema.names[:3] == ["corpus-id", "image", "text"]
    assert corpus.schema.field("image").type.names == ["bytes", "path"]
    assert queries.schema.names[:2] == ["query-id", "query"]
    assert qrels.schema.names == ["query-id", "corpus-id", "score"] and str(qrels.schema.field("score").type) == "int64"
    corpus_ids, query_ids = set(corpus["corpus-id"].to_pylist()), set(queries["query-id"].to_pylist())
    assert not corpus_ids & query_ids
    assert set(qrels["corpus-id"].to_pylist()) <= corpus_ids and set(qrels["query-id"].to_pylist()) <= query_ids
    assert set(qrels["score"].to_pylist()) == {1, 2}
    row = corpus.to_pylist()[0]
    assert row["image"]["bytes"].startswith(b"\x89PNG") and row["text"]
    assert b"huggingface" in corpus.schema.metadata
    assert (out / "qrels" / "underspecified-00000-of-00001.parquet").exists()


def test_vidore_loads_with_hf_datasets(golden, tmp_path: Path):
    datasets = pytest.importorskip("datasets")
    out = tmp_path / "vidore"
    export_golden_set(golden, "vidore", out)
    corpus = datasets.load_dataset("parquet", data_files=str(out / "corpus" / "test-*.parquet"), split="train")
    assert isinstance(corpus.features["image"], datasets.Image)
    assert corpus[0]["image"].size == (4, 4)  # decoded as a PIL image


def test_jsonl_records_are_self_contained(golden, tmp_path: Path):
    out = tmp_path / "jsonl"
    export_golden_set(golden, "jsonl", out)
    records = [json.loads(line) for line in (out / "golden.jsonl").read_text().splitlines()]
    assert len(records) == golden.items.num_rows
    first = records[0]
    assert first["version_id"] == golden.version_id and first["question"] and first["answer"]
    assert [c["role"] for c in first["candidates"]] == ["gold", "distractor", "distractor"]
    assert {c["label"] for c in first["candidates"]} == {"sufficient", "irrelevant", "supporting"}
    for c in first["candidates"]:
        assert c["text"] and (out / c["image"]).exists() and c["score"] in (0, 1, 2)


def test_export_refuses_missing_files_and_non_empty_dirs(golden, paths, tmp_path: Path):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "x").write_text("x")
    with pytest.raises(ExportError, match="not empty"):
        export_golden_set(golden, "jsonl", out)
    (paths.root / golden.units.column("render_path")[0].as_py()).unlink()
    with pytest.raises(ExportError, match="doc0:p1"):
        export_golden_set(golden, "beir", tmp_path / "fresh")

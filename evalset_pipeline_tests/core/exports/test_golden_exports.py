"""Export layouts: relevance policy, whole corpus, ids as stored, one split per slice, the card.

The tool parity tests (BEIR, pytrec_eval, MTEB, vidore-benchmark) are in test_export_*.py.
"""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from evalset_pipeline.core.exports import ExportError, export_golden_set
from evalset_pipeline_tests.core.exports.export_fixtures import (
    N_BUILD_PAGES,
    N_REFERENCED,
    publish_export_case,
    write_page_tables,
)


@pytest.fixture
def golden(data_dir):
    return publish_export_case(data_dir)


def _tsv(path: Path) -> list[tuple[str, str, int]]:
    with open(path, encoding="utf-8", newline="") as f:
        rows = list(csv.reader(f, delimiter="\t"))
    assert rows[0] == ["query-id", "corpus-id", "score"]
    return [(q, u, int(s)) for q, u, s in rows[1:]]


def _labels(golden) -> dict[tuple[str, str], str]:
    return {(j["item_id"], j["unit_id"]): j["label"] for j in golden.judgments.to_pylist()}


def test_default_qrels_are_binary_sufficient_only(golden, tmp_path):
    out = tmp_path / "beir"
    summary = export_golden_set(golden, "beir", out)
    labels = _labels(golden)
    rows = _tsv(out / "qrels" / "test.tsv")
    assert rows and {s for _, _, s in rows} == {1}
    # Exactly the sufficient pairs of the main slice: no supporting distractor counts as a hit.
    main = {i["item_id"] for i in golden.items.to_pylist() if i["slice"] == "main"}
    assert {(q, u) for q, u, _ in rows} == {
        k for k, lab in labels.items() if lab == "sufficient" and k[0] in main
    }
    assert summary["relevance"] == "binary"


def test_graded_writes_sufficient_2_supporting_1_and_warns(golden, tmp_path):
    out = tmp_path / "beir"
    export_golden_set(golden, "beir", out, graded=True)
    labels = _labels(golden)
    rows = _tsv(out / "qrels" / "test.tsv")
    assert {s for _, _, s in rows} == {1, 2}
    for q, u, s in rows:
        assert s == {"sufficient": 2, "supporting": 1}[labels[(q, u)]]
    card = (out / "README.md").read_text()
    assert (
        "relevance_level=2" in card
        and "trec_eval -l 2" in card
        and "count *supporting* pages" in card
    )


def test_whole_corpus_by_default_referenced_only_on_request(golden, tmp_path):
    whole = export_golden_set(golden, "beir", tmp_path / "whole")
    ids = [
        json.loads(line)["_id"]
        for line in (tmp_path / "whole" / "corpus.jsonl").read_text().splitlines()
    ]
    assert (
        len(ids) == whole["corpus"] == N_BUILD_PAGES and whole["corpus_referenced"] == N_REFERENCED
    )
    # Unjudged pages carry their metadata from page_metadata, like the judged ones.
    rec = json.loads((tmp_path / "whole" / "corpus.jsonl").read_text().splitlines()[-1])
    assert rec["metadata"]["period"] and rec["text"]
    ref = export_golden_set(golden, "beir", tmp_path / "ref", referenced_only=True)
    assert ref["corpus"] == N_REFERENCED and ref["corpus_scope"] == "referenced"
    assert set(ids) == set(golden.units.column("unit_id").to_pylist()) | set(ids)


def test_whole_corpus_refuses_page_tables_of_another_corpus(golden, data_dir, tmp_path):
    write_page_tables(data_dir, fingerprint="another-corpus")
    with pytest.raises(ExportError, match="another-corpus.*--referenced-only"):
        export_golden_set(golden, "beir", tmp_path / "x")
    (data_dir / "artifacts" / "tables" / "page_renders.parquet").unlink()
    with pytest.raises(ExportError, match="page_renders"):
        export_golden_set(golden, "mteb", tmp_path / "y")
    assert (
        export_golden_set(golden, "beir", tmp_path / "z", referenced_only=True)["corpus"]
        == N_REFERENCED
    )


def test_ids_are_stored_ids_and_zero_relevant_items_are_left_out(golden, tmp_path):
    export_golden_set(golden, "vidore", tmp_path / "vidore")
    export_golden_set(golden, "mteb", tmp_path / "mteb")
    items = {i["item_id"]: i for i in golden.items.to_pylist()}
    v_corpus = pq.read_table(tmp_path / "vidore" / "corpus" / "corpus-00000-of-00001.parquet")
    m_corpus = pq.read_table(tmp_path / "mteb" / "corpus" / "corpus-00000-of-00001.parquet")
    unit_ids = set(v_corpus.column("corpus-id").to_pylist())
    assert unit_ids == set(m_corpus.column("id").to_pylist()) and len(unit_ids) == N_BUILD_PAGES
    assert unit_ids >= set(golden.units.column("unit_id").to_pylist())
    v_queries = pq.read_table(
        tmp_path / "vidore" / "queries" / "test-00000-of-00001.parquet"
    ).to_pylist()
    m_queries = pq.read_table(
        tmp_path / "mteb" / "queries" / "test-00000-of-00001.parquet"
    ).to_pylist()
    assert [q["query-id"] for q in v_queries] == [q["id"] for q in m_queries]
    for q in v_queries:
        assert items[q["query-id"]]["question"] == q["query"]  # the stored id, no prefix
    # it-0011 has no sufficient unit: evalset score excludes it, so no tool may average it in.
    assert "it-0011" not in {q["query-id"] for q in v_queries}
    assert "| main | `test` | 9 | 8 | 1 |" in (tmp_path / "vidore" / "README.md").read_text()


def test_one_split_per_slice_in_every_layout(golden, tmp_path):
    for fmt in ("beir", "mteb", "vidore"):
        export_golden_set(golden, fmt, tmp_path / fmt)
    assert sorted(p.name for p in (tmp_path / "beir" / "qrels").iterdir()) == [
        "regression.tsv",
        "test.tsv",
        "underspecified.tsv",
    ]
    expected = sorted(
        (q, u, 1)
        for (q, u), lab in _labels(golden).items()
        if q == "r-0008" and lab == "sufficient"
    )
    assert _tsv(tmp_path / "beir" / "qrels" / "regression.tsv") == expected and len(expected) == 2
    for fmt in ("mteb", "vidore"):
        card = (tmp_path / fmt / "README.md").read_text()
        header = card.split("---")[1]
        for config in ("corpus", "queries", "qrels"):
            assert f"config_name: {config}" in header
        for split in ("test", "underspecified", "regression"):
            assert header.count(f"split: {split}") == 3  # corpus, queries and qrels each have it
            assert (tmp_path / fmt / "qrels" / f"{split}-00000-of-00001.parquet").exists()


def test_vidore_columns_serve_image_and_text_retrievers(golden, tmp_path):
    export_golden_set(golden, "vidore", tmp_path / "v")
    corpus = pq.read_table(tmp_path / "v" / "corpus" / "corpus-00000-of-00001.parquet")
    assert corpus.schema.names[:3] == ["corpus-id", "image", "text_description"]
    assert corpus.schema.field("image").type.names == ["bytes", "path"]
    assert b"huggingface" in corpus.schema.metadata
    row = corpus.to_pylist()[0]
    assert row["image"]["bytes"].startswith(b"\x89PNG") and "Acme" in row["text_description"]
    queries = pq.read_table(tmp_path / "v" / "queries" / "test-00000-of-00001.parquet")
    assert queries.schema.names[:2] == ["query-id", "query"]
    qrels = pq.read_table(tmp_path / "v" / "qrels" / "test-00000-of-00001.parquet")
    assert qrels.schema.names == ["query-id", "corpus-id", "score"] and set(
        qrels.column("score").to_pylist()
    ) == {1}


def test_every_export_has_a_card(golden, tmp_path):
    info = golden.info
    for fmt in ("beir", "mteb", "vidore", "jsonl"):
        export_golden_set(golden, fmt, tmp_path / fmt)
        card = (tmp_path / fmt / "README.md").read_text()
        for fact in (
            golden.version_id,
            info["corpus_fingerprint"],
            "## Funnel",
            '"unanswerable": 2',
            "## Relevance policy",
            "**binary**",
            "## Conventions",
            "query id = `item_id`",
            f"{N_BUILD_PAGES} pages",
            "evalset score RUN --golden",
            "--gain graded",  # the option, named as `evalset score` names it
        ):
            assert fact in card, (fmt, fact)
        assert (
            json.loads((tmp_path / fmt / "golden_set.json").read_text())["version_id"]
            == golden.version_id
        )
    assert "GenericDataLoader" in (tmp_path / "beir" / "README.md").read_text()
    assert "RetrievalDatasetLoader" in (tmp_path / "mteb" / "README.md").read_text()
    assert "ViDoReEvaluatorBEIR" in (tmp_path / "vidore" / "README.md").read_text()


def test_jsonl_records_are_self_contained(golden, tmp_path):
    out = tmp_path / "jsonl"
    export_golden_set(golden, "jsonl", out)
    records = [json.loads(line) for line in (out / "golden.jsonl").read_text().splitlines()]
    assert len(records) == golden.items.num_rows
    first = records[0]
    assert first["version_id"] == golden.version_id and first["question"] and first["answer"]
    assert [c["role"] for c in first["candidates"]] == [
        "gold",
        "distractor",
        "distractor",
        "distractor",
        "pooled",
    ]
    for c in first["candidates"]:
        assert c["text"] and (out / c["image"]).exists()
        assert c["grade"] == {"sufficient": 2, "supporting": 1, "irrelevant": 0}[c["label"]]
        assert c["score"] == (1 if c["label"] == "sufficient" else 0)  # the binary policy
    assert len((out / "corpus.jsonl").read_text().splitlines()) == N_BUILD_PAGES


def test_export_refuses_missing_files_and_non_empty_dirs(golden, data_dir, tmp_path):
    out = tmp_path / "taken"
    out.mkdir()
    (out / "x").write_text("x")
    with pytest.raises(ExportError, match="not empty"):
        export_golden_set(golden, "jsonl", out)
    (data_dir / golden.units.column("render_path")[0].as_py()).unlink()
    with pytest.raises(ExportError, match="doc0:p1"):
        export_golden_set(golden, "beir", tmp_path / "fresh")
    assert not (tmp_path / "fresh").exists()  # checked before anything is written


def test_the_card_gives_the_share_of_items_with_a_one_axis_distractor(golden, tmp_path):
    from evalset_pipeline.core.negatives.lookalikes import golden_lookalikes

    shares = golden_lookalikes(golden.items, golden.judgments)
    export_golden_set(golden, "beir", tmp_path / "beir")
    card = (tmp_path / "beir" / "README.md").read_text()
    assert "## Distractors" in card
    n = shares["items"]
    assert f"| any one-axis | {shares['one_axis_items']} of {n} |" in card
    for kind, c in shares["by_kind"].items():
        assert f"| {kind} | {c['items']} of {n} |" in card

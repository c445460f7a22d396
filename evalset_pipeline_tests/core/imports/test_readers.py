"""Each import format, from small files written here, with broken rows: errors name file and line, valid rows import."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalset_pipeline.core.imports.readers import read_source
from evalset_pipeline.core.imports.records import ImportFormatError
from evalset_pipeline.core.imports.resolve import resolve
from evalset_pipeline_tests.core.imports.conftest import SHA_A, SHA_B


def unit(sha: str, page: int) -> str:
    return f"{sha[:12]}-p{page:05d}"


def _lines(path: Path, rows: list) -> Path:
    path.write_text(
        "\n".join(r if isinstance(r, str) else json.dumps(r) for r in rows) + "\n", encoding="utf-8"
    )
    return path


def test_jsonl_rows_import_and_every_bad_row_is_named(tmp_path, index):
    path = _lines(
        tmp_path / "questions.jsonl",
        [
            {
                "id": "q1",
                "question": "What was revenue?",
                "answer": "$10",
                "document": "a.pdf",
                "evidence_pages": [2],
                "question_reasoning": "Information extraction",
                "evidence_text": "x" * 5000,
            },
            {
                "id": "q2",
                "question": "And costs?",
                "answer": "4",
                "document": "reports/a.pdf",
                "evidence_pages": [1, 3, 1],
            },
            "{not json",
            {"id": "q3", "question": "", "document": "a.pdf", "evidence_pages": [1]},
            {"id": "q4", "question": "Pages?", "document": "a.pdf", "evidence_pages": ["two"]},
            {"id": "q5", "question": "Zero?", "document": "a.pdf", "evidence_pages": [0]},
            {"id": "q6", "question": "Where?", "document": "missing.pdf", "evidence_pages": [1]},
            {
                "id": "q7",
                "question": "Past the end?",
                "document": "b.pdf",
                "evidence_pages": [1, 9],
            },
            {"id": "q1", "question": "Again?", "document": "b.pdf", "evidence_pages": [1]},
            {"question": "No id?", "document": "b.pdf", "page": 2},
        ],
    )
    source = read_source("jsonl", path)
    assert source.source == tmp_path.name and source.rows == 10
    res = resolve(source, *index)
    got = {r.item.original_id: r.gold_units for r in res.items}
    assert got == {
        "q1": (unit(SHA_A, 2),),
        "q2": (unit(SHA_A, 1), unit(SHA_A, 3)),
        "line-10": (unit(SHA_B, 2),),
    }
    q1 = next(r.item for r in res.items if r.item.original_id == "q1")
    assert q1.extra == {
        "question_reasoning": "Information extraction"
    }  # long fields stay in the source
    issues = {i.line: i.reason for i in res.issues}
    assert set(issues) == {3, 4, 5, 6, 7, 8, 9}
    assert "not JSON" in issues[3] and "`question` is empty" in issues[4]
    assert "'two'" in issues[5] and "1-based" in issues[6]
    assert "'missing.pdf' is not in the corpus" in issues[7]
    assert (
        "has 2 pages, not 9" in issues[8]
    )  # q7 names one good page and one bad one: the row imports nothing
    assert "already on line 1" in issues[9]
    assert all(i.file == "questions.jsonl" for i in res.issues)


def _beir(folder: Path, qrels: list[str], corpus: list | None = None) -> Path:
    folder.mkdir()
    _lines(
        folder / "corpus.jsonl",
        corpus
        or [
            {
                "_id": "c1",
                "text": "...",
                "metadata": {"document_path": "reports/a.pdf", "page_number": 2},
            },
            {"_id": "c2", "text": "...", "document": "b.pdf", "page": 1},
            {"_id": "c3", "text": "no page fields"},
            {"_id": unit(SHA_B, 2), "text": "a unit id of this corpus"},
            {"_id": "c9", "metadata": {"document_path": "b.pdf", "page_number": 7}},
        ],
    )
    _lines(
        folder / "queries.jsonl",
        [
            {"_id": "q1", "text": "What was revenue?", "metadata": {"answer": "10"}},
            {"_id": "q2", "text": "Costs?"},
            "oops",
            {"_id": "q3", "text": "Never judged"},
        ],
    )
    (folder / "qrels").mkdir()
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "\n".join(qrels) + "\n"
    )
    return folder


def test_beir_maps_corpus_ids_and_reports_bad_qrels_rows(tmp_path, index):
    folder = _beir(
        tmp_path / "bench",
        [
            "q1\tc1\t1",
            "q1\tc2\t0",
            "q2\tc2\t2",
            "q2\tc3\t1",
            "qX\tc1\t1",
            "q2\tcZ\t1",
            "q2\tc1\tlots",
            "q2\t" + unit(SHA_B, 2) + "\t1",
            "q1\tc9\t1",
        ],
    )
    source = read_source("beir", folder)
    assert source.source == "bench"
    res = resolve(source, *index)
    got = {r.item.original_id: r.gold_units for r in res.items}
    assert got == {
        "q1": (unit(SHA_A, 2),),
        "q2": (unit(SHA_B, 1), unit(SHA_B, 2)),
    }  # score 0 is not gold
    assert next(r.item for r in res.items if r.item.original_id == "q1").answer == "10"
    issues = {(i.file, i.line): i.reason for i in res.issues}
    assert "not JSON" in issues[("queries.jsonl", 3)]
    assert (
        "names no document page" in issues[("qrels/test.tsv", 5)]
        and "--mapping" in issues[("qrels/test.tsv", 5)]
    )
    assert "'qX' is not in queries.jsonl" in issues[("qrels/test.tsv", 6)]
    assert "'cZ' is not in corpus.jsonl" in issues[("qrels/test.tsv", 7)]
    assert "'lots' is not a number" in issues[("qrels/test.tsv", 8)]
    assert "has 2 pages, not 7" in issues[("qrels/test.tsv", 10)]


def test_beir_mapping_file_names_the_pages(tmp_path, index):
    folder = _beir(tmp_path / "bench", ["q1\tc3\t1"])
    mapping = tmp_path / "map.csv"
    mapping.write_text("corpus_id,document,page\nc3,b.pdf,2\nc4,b.pdf,x\n")
    res = resolve(read_source("beir", folder, mapping=mapping), *index)
    assert {r.item.original_id: r.gold_units for r in res.items} == {"q1": (unit(SHA_B, 2),)}
    assert [(i.file, i.line) for i in res.issues if i.file == "map.csv"] == [("map.csv", 3)]


def test_not_a_beir_folder_is_one_clear_error(tmp_path):
    (tmp_path / "x").mkdir()
    with pytest.raises(ImportFormatError, match="queries.jsonl is missing"):
        read_source("beir", tmp_path / "x")
    with pytest.raises(ImportFormatError, match="does not exist"):
        read_source("jsonl", tmp_path / "nope.jsonl")


@pytest.mark.parametrize(
    "fmt, cols",
    [
        (
            "vidore",
            {
                "corpus": ("corpus-id", "doc-id", "page_number_in_doc"),
                "queries": ("query-id", "query"),
            },
        ),
        ("mteb", {"corpus": ("id", None, None), "queries": ("id", "text")}),
    ],
)
def test_parquet_sets_import_with_bad_rows_named(tmp_path, index, fmt, cols):
    folder = tmp_path / fmt
    cid, doc, page = cols["corpus"]
    corpus = {cid: ["c1", "c2", unit(SHA_A, 3)]}
    if doc:
        corpus[doc], corpus[page] = ["reports/a.pdf", "b.pdf", None], [1, 5, None]
    corpus["image"] = [b"png", b"png", b"png"]  # never read
    qid, text = cols["queries"]
    tables = {
        "corpus/corpus-00000-of-00001.parquet": corpus,
        "queries/test-00000-of-00001.parquet": {qid: ["q1", "q2"], text: ["Revenue?", "Costs?"]},
        "qrels/test-00000-of-00001.parquet": {
            "query-id": ["q1", "q2", "q2", "q9"],
            "corpus-id": ["c1", "c2", unit(SHA_A, 3), "c1"],
            "score": [1, 1, 1, 1],
        },
    }
    for name, data in tables.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(data), folder / name)
    res = resolve(read_source(fmt, folder), *index)
    issues = {(i.file, i.line): i.reason for i in res.issues}
    assert "'q9' is not in the queries" in issues[("qrels/test-00000-of-00001.parquet", 4)]
    got = {r.item.original_id: r.gold_units for r in res.items}
    if fmt == "vidore":
        assert got == {"q1": (unit(SHA_A, 1),), "q2": (unit(SHA_A, 3),)}
        assert "has 2 pages, not 5" in issues[("qrels/test-00000-of-00001.parquet", 2)]
    else:  # MTEB rows name no page: only corpus ids that are this corpus's unit ids resolve
        assert got == {"q2": (unit(SHA_A, 3),)}
        assert "names no document page" in issues[("qrels/test-00000-of-00001.parquet", 1)]

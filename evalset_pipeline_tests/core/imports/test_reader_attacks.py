"""Issue 30's attacks on the import readers, each from real files: duplicate ids are issues naming
both lines (the first wins, in every reader), odd encodings and hostile lines are one issue or one
clear error naming the file, float pages that are whole numbers are pages."""

from __future__ import annotations

import codecs
import json
import os
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


def row(i: str, page: int = 2, **extra) -> dict:
    return {
        "id": i,
        "question": f"What was revenue {i}?",
        "answer": "$10",
        "document": "a.pdf",
        "evidence_pages": [page],
        **extra,
    }


def _write(path: Path, lines: list, encoding: str = "utf-8") -> Path:
    text = "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n"
    path.write_bytes(text.encode(encoding))
    return path


def _issues(res) -> dict[tuple[str, int], str]:
    return {(i.file, i.line): i.reason for i in res.issues}


def _beir(folder: Path, queries: list, corpus: list, qrels: list[str]) -> Path:
    (folder / "qrels").mkdir(parents=True)
    _write(folder / "queries.jsonl", queries)
    _write(folder / "corpus.jsonl", corpus)
    (folder / "qrels" / "test.tsv").write_text(
        "query-id\tcorpus-id\tscore\n" + "\n".join(qrels) + "\n"
    )
    return folder


def test_jsonl_duplicate_id_is_an_issue_naming_both_lines_and_the_first_wins(tmp_path, index):
    path = _write(tmp_path / "q.jsonl", [row("q1", 2), row("q2"), row("q1", 3)])
    res = resolve(read_source("jsonl", path), *index)
    assert {r.item.original_id: r.gold_units for r in res.items} == {
        "q1": (unit(SHA_A, 2),),  # line 1, not line 3's page 3
        "q2": (unit(SHA_A, 2),),
    }
    reason = _issues(res)[("q.jsonl", 3)]
    assert "duplicate id 'q1': already on line 1, with different content" in reason
    assert "first wins" in reason


def test_beir_duplicate_query_and_corpus_ids_are_issues_first_wins(tmp_path, index):
    folder = _beir(
        tmp_path / "bench",
        [
            {"_id": "q1", "text": "Revenue in 2023?", "metadata": {"answer": "10"}},
            {"_id": "q1", "text": "Costs in 2022?", "metadata": {"answer": "7"}},
        ],
        [
            {"_id": "c1", "document": "b.pdf", "page": 1},
            {"_id": "c1", "document": "b.pdf", "page": 2},
        ],
        ["q1\tc1\t1"],
    )
    res = resolve(read_source("beir", folder), *index)
    [item] = res.items
    assert item.item.question == "Revenue in 2023?" and item.gold_units == (unit(SHA_B, 1),)
    issues = _issues(res)
    assert (
        "duplicate query id 'q1': already on line 1, with different content"
        in issues[("queries.jsonl", 2)]
    )
    assert "duplicate corpus id 'c1': already on line 1" in issues[("corpus.jsonl", 2)]


def test_duplicate_mapping_rows_are_issues_and_utf16_mappings_are_read(tmp_path, index):
    folder = _beir(
        tmp_path / "bench",
        [{"_id": "q1", "text": "Revenue?", "answer": "10"}],
        [{"_id": "c3"}],
        ["q1\tc3\t1"],
    )
    mapping = tmp_path / "map.csv"
    text = "corpus_id,document,page\nc3,b.pdf,2\nc3,b.pdf,1\n"
    mapping.write_bytes(codecs.BOM_UTF16_LE + text.encode("utf-16-le"))
    res = resolve(read_source("beir", folder, mapping=mapping), *index)
    assert [r.gold_units for r in res.items] == [(unit(SHA_B, 2),)]
    assert "duplicate corpus_id 'c3': already on line 2" in _issues(res)[("map.csv", 3)]


def test_parquet_duplicate_query_ids_and_float_pages(tmp_path, index):
    folder = tmp_path / "vidore"
    tables = {
        # pandas writes a page column as float when one cell is empty: 2.0 is page 2.
        "corpus/c.parquet": {
            "corpus-id": ["c1", "c2", "c1", "c4"],
            "doc-id": ["reports/a.pdf", "b.pdf", "b.pdf", "b.pdf"],
            "page_number_in_doc": pa.array([2.0, None, 1.0, 1.5], pa.float64()),
        },
        "queries/test-0.parquet": {
            "query-id": ["q1", "q1", "q2"],
            "query": ["Revenue?", "Costs?", "Margin?"],
            "answer": ["10", "7", "3%"],
        },
        "qrels/test-0.parquet": {
            "query-id": ["q1", "q2"],
            "corpus-id": ["c1", "c4"],
            "score": [1, 1],
        },
    }
    for name, data in tables.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(data), folder / name)
    source = read_source("vidore", folder)
    assert not source.warnings  # answers are there
    res = resolve(source, *index)
    got = {r.item.original_id: (r.item.question, r.gold_units) for r in res.items}
    assert got == {"q1": ("Revenue?", (unit(SHA_A, 2),))}
    issues = _issues(res)
    assert (
        "duplicate query id 'q1': already on row 1, with different content"
        in issues[("queries/test-0.parquet", 2)]
    )
    assert "duplicate corpus id 'c1': already on row 1" in issues[("corpus/c.parquet", 3)]
    assert "its page 1.5 is not a 1-based page number" in issues[("qrels/test-0.parquet", 2)]


def test_mteb_without_answers_warns(tmp_path):
    folder = tmp_path / "mteb"
    tables = {
        "corpus/c.parquet": {"id": ["c1"]},
        "queries/test-0.parquet": {"id": ["q1"], "text": ["Revenue?"]},
        "qrels/test-0.parquet": {"query-id": ["q1"], "corpus-id": ["c1"], "score": [1]},
    }
    for name, data in tables.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(data), folder / name)
    [warning] = read_source("mteb", folder).warnings
    assert "has an answer" in warning and "gold_not_sufficient" in warning


def test_a_broken_parquet_file_is_one_clear_error(tmp_path):
    folder = tmp_path / "vidore"
    for config in ("corpus", "queries", "qrels"):
        (folder / config).mkdir(parents=True)
        (folder / config / "test-0.parquet").write_bytes(b"PAR1 this is not parquet PAR1")
    with pytest.raises(ImportFormatError, match=r"c?test-0.parquet is not a readable parquet file"):
        read_source("vidore", folder)


def test_bad_encodings_and_hostile_lines_are_one_issue_each(tmp_path, index):
    lines = [
        json.dumps(row("ok")).encode(),
        json.dumps(row("latin", question="Résultat?"), ensure_ascii=False).encode("latin-1"),
        b"[" * 100_000 + b"]" * 100_000,  # RecursionError in json.loads
        b'{"id": "big", "question": "x?", "document": "a.pdf", "evidence_pages": ['
        + b"9" * 5000
        + b"]}",  # past Python's 4,300-digit int limit
        json.dumps(row("float", 2.0)).encode(),  # a whole-number float page is a page
    ]
    path = tmp_path / "q.jsonl"
    path.write_bytes(b"\n".join(lines) + b"\n")
    source = read_source("jsonl", path)
    res = resolve(source, *index)
    assert sorted(r.item.original_id for r in res.items) == ["float", "ok"]
    issues = _issues(res)
    assert "not UTF-8 (byte 0xe9" in issues[("q.jsonl", 2)]
    assert "nested deeper than 64 levels" in issues[("q.jsonl", 3)]
    assert "not usable JSON" in issues[("q.jsonl", 4)] and "4300" in issues[("q.jsonl", 4)]
    assert source.rows == 5


def test_utf16_jsonl_is_read_and_broken_utf16_is_one_error_naming_the_file(tmp_path, index):
    path = _write(tmp_path / "q.jsonl", [row("q1"), row("q2")], encoding="utf-16")
    res = resolve(read_source("jsonl", path), *index)
    assert sorted(r.item.original_id for r in res.items) == ["q1", "q2"]
    broken = tmp_path / "broken.jsonl"
    broken.write_bytes(
        codecs.BOM_UTF16_LE + json.dumps(row("q1")).encode("utf-16-le") + b"\x00\xd8"
    )
    with pytest.raises(ImportFormatError, match=r"broken.jsonl:1: not UTF-16"):
        read_source("jsonl", broken)


def test_input_paths_of_the_wrong_kind_are_refused_before_open(tmp_path):
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(ImportFormatError, match=r"is a FIFO \(named pipe\), not a regular file"):
        read_source("jsonl", fifo)  # returns at once: the FIFO is never opened
    (tmp_path / "dir.jsonl").mkdir()
    with pytest.raises(ImportFormatError, match="is a directory: give the file inside it"):
        read_source("jsonl", tmp_path / "dir.jsonl")
    loop = tmp_path / "loop.jsonl"
    loop.symlink_to(loop)
    with pytest.raises(ImportFormatError, match="is a symlink loop"):
        read_source("jsonl", loop)
    dangling = tmp_path / "gone.jsonl"
    dangling.symlink_to(tmp_path / "nowhere")
    with pytest.raises(ImportFormatError, match="is a broken symlink"):
        read_source("jsonl", dangling)
    with pytest.raises(ImportFormatError, match="is a device"):
        read_source("jsonl", Path(os.devnull))
    empty = tmp_path / "empty.jsonl"
    empty.write_bytes(b"\n\n")
    with pytest.raises(ImportFormatError, match="holds no rows"):
        read_source("jsonl", empty)
    with pytest.raises(ImportFormatError, match="is a file, not a folder"):
        read_source("beir", empty)


def test_a_beir_qrels_symlink_loop_is_one_error(tmp_path):
    folder = _beir(
        tmp_path / "bench",
        [{"_id": "q1", "text": "Revenue?"}],
        [{"_id": "c1"}],
        ["q1\tc1\t1"],
    )
    (folder / "qrels" / "test.tsv").unlink()
    (folder / "qrels" / "test.tsv").symlink_to(folder / "qrels" / "test.tsv")
    with pytest.raises(ImportFormatError, match="test.tsv is a symlink loop"):
        read_source("beir", folder)


def test_a_golden_export_jsonl_record_is_read(tmp_path, index):
    record = {
        "version_id": "gs-0123456789abcdef",
        "item_id": "it-1",
        "slice": "main",
        "question": "What was revenue?",
        "answer": "$10",
        "candidates": [
            {
                "unit_id": unit(SHA_A, 2),
                "role": "gold",
                "score": 1,
                "metadata": {"document_path": "reports/a.pdf", "page_number": 2},
            },
            {
                "unit_id": unit(SHA_B, 1),
                "role": "distractor",
                "score": 0,
                "metadata": {"document_path": "b.pdf", "page_number": 1},
            },
        ],
    }
    path = _write(tmp_path / "golden.jsonl", [record])
    res = resolve(read_source("jsonl", path), *index)
    assert [(r.item.original_id, r.gold_units) for r in res.items] == [("it-1", (unit(SHA_A, 2),))]
    assert not res.issues


def test_the_row_budget_refuses_before_reading_everything(tmp_path):
    path = _write(tmp_path / "q.jsonl", [row(f"q{i}") for i in range(5)])
    assert read_source("jsonl", path, max_rows=5).rows == 5
    with pytest.raises(ImportFormatError, match=r"q.jsonl has more than 4 rows, the row budget"):
        read_source("jsonl", path, max_rows=4)
    folder = _beir(
        tmp_path / "bench",
        [{"_id": f"q{i}", "text": "Revenue?"} for i in range(3)],
        [{"_id": "c1"}],
        ["q1\tc1\t1"],
    )
    with pytest.raises(ImportFormatError, match="more than 2 rows"):
        read_source("beir", folder, max_rows=2)
    mteb = tmp_path / "mteb"
    tables = {
        "corpus/c.parquet": {"id": ["c1"]},
        "queries/test-0.parquet": {"id": ["q1", "q2"], "text": ["a?", "b?"]},
        "qrels/test-0.parquet": {"query-id": ["q1"], "corpus-id": ["c1"], "score": [1]},
    }
    for name, data in tables.items():
        (mteb / name).parent.mkdir(parents=True, exist_ok=True)
        pq.write_table(pa.table(data), mteb / name)
    with pytest.raises(ImportFormatError, match="more than 1 rows"):
        read_source("mteb", mteb, max_rows=1)

"""Reading runs (TREC, JSONL, Parquet), their column aliases and the corpus metadata they carry."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from evalset_pipeline.core.scoring.runs import (
    RunFormatError,
    RunMeta,
    read_run,
    run_from_columns,
    write_trec_run,
)


def columns(run) -> list[tuple[str, str, float]]:
    return list(
        zip(run.query_ids.to_pylist(), run.unit_ids.to_pylist(), run.scores.tolist(), strict=False)
    )


def test_trec_with_metadata_comments(tmp_path: Path):
    path = tmp_path / "bm25.trec"
    path.write_text(
        "# corpus_fingerprint: fp-123\n"
        "# corpus_pages: 4200\n"
        "# any other comment\n"
        "q1 Q0 doc1:p1 1 12.5 bm25\n"
        "q1\tQ0\tdoc2:p3  2  11 bm25\n"
        "\n"
        "q2 Q0 doc1:p1 1 -3e-2 bm25\n",
        encoding="utf-8",
    )
    run = read_run(path)
    assert columns(run) == [
        ("q1", "doc1:p1", 12.5),
        ("q1", "doc2:p3", 11.0),
        ("q2", "doc1:p1", -0.03),
    ]
    assert run.meta == RunMeta(corpus_fingerprint="fp-123", corpus_pages=4200, run_name="bm25")
    assert run.name == "bm25"


def test_trec_sidecar_metadata_fills_gaps_only(tmp_path: Path):
    path = tmp_path / "run.txt"
    path.write_text("# corpus_pages: 10\nq Q0 u 1 1.0 tag\n", encoding="utf-8")
    (tmp_path / "run.txt.meta.json").write_text(
        json.dumps({"corpus_fingerprint": "side", "corpus_pages": 99})
    )
    meta = read_run(path).meta
    assert (meta.corpus_fingerprint, meta.corpus_pages) == ("side", 10)  # the file's own value wins


def test_trec_bad_line_names_the_line(tmp_path: Path):
    path = tmp_path / "bad.trec"
    path.write_text("q Q0 u 1 1.0 tag\nq Q0 u2 2 tag\n", encoding="utf-8")
    with pytest.raises(RunFormatError, match=r"bad.trec:2"):
        read_run(path)
    path.write_text("q Q0 u 1 high tag\n", encoding="utf-8")
    with pytest.raises(RunFormatError, match="non-numeric"):
        read_run(path)


def test_jsonl_aliases_and_meta_line(tmp_path: Path):
    path = tmp_path / "dense.jsonl"
    lines = [
        {"_meta": {"corpus_fingerprint": "fp-j", "corpus_pages": 7, "run_name": "dense"}},
        {"query_id": "q1", "corpus_id": "u1", "score": 0.5},
        {"query_id": "q1", "corpus_id": "u2", "score": 1},
        {"query_id": 7, "corpus_id": "u3", "score": 0.25},  # integer ids are read as text
    ]
    path.write_text("\n".join(json.dumps(x) for x in lines) + "\n", encoding="utf-8")
    run = read_run(path)
    assert columns(run) == [("q1", "u1", 0.5), ("q1", "u2", 1.0), ("7", "u3", 0.25)]
    assert run.meta == RunMeta(corpus_fingerprint="fp-j", corpus_pages=7, run_name="dense")


def test_jsonl_constant_metadata_columns(tmp_path: Path):
    path = tmp_path / "r.jsonl"
    rows = [
        {"qid": "q", "unit_id": f"u{i}", "score": i, "corpus_fingerprint": "fp-c"} for i in range(3)
    ]
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    assert read_run(path).meta.corpus_fingerprint == "fp-c"
    rows[1]["corpus_fingerprint"] = "other"
    path.write_text("\n".join(json.dumps(r) for r in rows), encoding="utf-8")
    with pytest.raises(RunFormatError, match="one run, one corpus"):
        read_run(path)


def test_parquet_schema_metadata_and_rank_only(tmp_path: Path):
    path = tmp_path / "r.parquet"
    table = pa.table({"qid": ["q", "q"], "docid": ["a", "b"], "rank": [2, 1]})
    table = table.replace_schema_metadata(
        {"evalset_run_meta": json.dumps({"corpus_fingerprint": "fp-p", "corpus_pages": 5})}
    )
    pq.write_table(table, path)
    run = read_run(path)
    # No score column: score = -rank, so rank 1 ranks first.
    assert columns(run) == [("q", "a", -2.0), ("q", "b", -1.0)]
    assert (run.meta.corpus_fingerprint, run.meta.corpus_pages) == ("fp-p", 5)


def test_format_detected_from_content(tmp_path: Path):
    path = tmp_path / "run_without_suffix"
    pq.write_table(pa.table({"query_id": ["q"], "unit_id": ["u"], "score": [1.0]}), path)
    assert columns(read_run(path)) == [("q", "u", 1.0)]


def test_missing_or_ambiguous_columns(tmp_path: Path):
    path = tmp_path / "r.jsonl"
    path.write_text(
        json.dumps({"qid": "q", "docid": "u", "unit_id": "u", "score": 1}), encoding="utf-8"
    )
    with pytest.raises(RunFormatError, match="ambiguous unit id"):
        read_run(path)
    path.write_text(json.dumps({"qid": "q", "docid": "u"}), encoding="utf-8")
    with pytest.raises(RunFormatError, match="no score column"):
        read_run(path)
    with pytest.raises(RunFormatError, match="does not exist"):
        read_run(tmp_path / "absent.trec")


def test_write_trec_round_trip(tmp_path: Path):
    run = run_from_columns(
        ["q", "q", "p"],
        ["b", "a", "c"],
        np.array([1.0, 1.0, 0.5]),
        meta=RunMeta(corpus_fingerprint="fp"),
    )
    path = tmp_path / "out.trec"
    write_trec_run(run, path, tag="t")
    text = path.read_text(encoding="utf-8").splitlines()
    assert text[0] == "# corpus_fingerprint: fp"
    assert text[1:] == [
        "p Q0 c 1 0.5 t",
        "q Q0 a 1 1.0 t",
        "q Q0 b 2 1.0 t",
    ]  # ties: unit id ascending
    back = read_run(path)
    assert sorted(columns(back)) == sorted(columns(run)) and back.meta.corpus_fingerprint == "fp"


def test_trec_compensating_field_count_errors_are_caught(tmp_path: Path):
    path = tmp_path / "bad.trec"
    # 5 + 7 fields = 12 tokens: a multiple of six, still two broken lines.
    path.write_text("# c\nq Q0 u 1 1.0\nq Q0 v 2 0.5 tag extra\n", encoding="utf-8")
    with pytest.raises(RunFormatError, match=r"bad.trec:2"):
        read_run(path)


@pytest.mark.parametrize(
    "text",
    [
        "q1 Q0 a 1 2.5 t\nq1 Q0 b 2 1e-1 t\nq2 Q0 a 1 -3.5 t\n",  # single spaces: the Arrow CSV path
        "q1\tQ0\ta\t1\t2.5\tt\nq1 Q0 b  2 1e-1 t \r\n  q2 Q0 a 1 -3.5 t\n",  # any whitespace: the general path
        "q1 Q0 a 1 2.5 t\r\nq1 Q0 b 2 1e-1 t\r\n\r\nq2 Q0 a 1 -3.5 t\r\n",  # CRLF and a blank line
    ],
)
def test_trec_whitespace_variants_read_alike(tmp_path: Path, text: str):
    path = tmp_path / "r.trec"
    path.write_bytes(text.encode())
    run = read_run(path)
    assert columns(run) == [("q1", "a", 2.5), ("q1", "b", 0.1), ("q2", "a", -3.5)]
    assert run.name == "t"

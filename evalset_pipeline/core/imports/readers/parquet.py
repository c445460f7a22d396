"""A ViDoRe (BEIR parquet) or MTEB retrieval folder: `corpus/`, `queries/`, `qrels/` parquet files.

Column spellings accepted (this project's exports, vidore-benchmark, MTEB v2):
  corpus   corpus-id | id | corpus_id; the page from document_path | doc-id | doc_id | document with
           page_number | page | page_number_in_doc (1-based), else `--mapping`, else a unit id
  queries  query-id | id | query_id; query | text; answer (optional)
  qrels    query-id, corpus-id, score   (one file per split: `<split>-*.parquet`)
Only those columns are read (corpus images stay on disk). A bad qrels row is reported as
`qrels/<file>:<row>` (1-based row); the other rows still import. A repeated query or corpus id
is an issue naming both rows (the first wins, as in every reader). A file that is not readable
parquet is one error naming it. Queries without any answer (an MTEB export) import with a
warning: the judge has no reference answer, so no gold page can be found sufficient.
"""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.imports.readers._common import (
    DOCUMENT_KEYS,
    PAGE_KEYS,
    duplicate_issue,
    files_sha256,
    read_mapping,
    ref_from_fields,
)
from evalset_pipeline.core.imports.records import (
    DEFAULT_MAX_ROWS,
    GoldRef,
    ImportFormatError,
    ImportIssue,
    SourceItem,
    SourceSet,
    too_many_rows,
)
from evalset_pipeline.core.inputfile import InputFileError, check_file

CORPUS_ID = ("corpus-id", "id", "corpus_id")
QUERY_ID = ("query-id", "id", "query_id")
QUERY_TEXT = ("query", "text")


def _files(folder: Path, config: str) -> list[Path]:
    files = sorted((folder / config).glob("*.parquet")) or sorted(folder.glob(f"{config}*.parquet"))
    if not files:
        raise ImportFormatError(f"{folder} has no {config} parquet files ({config}/*.parquet)")
    return files


def _split(path: Path) -> str:
    return path.name.split("-", 1)[0] if "-" in path.name else path.stem


def _rows(path: Path, wanted: tuple[str, ...] | None) -> list[dict[str, Any]]:
    """The wanted columns of one parquet file (None: only its row count, as that many empty
    rows); a file that is not parquet is one clear error."""
    try:
        check_file(path, "parquet file")
        if wanted is None:
            return [{}] * pq.ParquetFile(path).metadata.num_rows
        names = pq.read_schema(path).names
        return pq.read_table(path, columns=[c for c in names if c in wanted]).to_pylist()
    except InputFileError as exc:
        raise ImportFormatError(str(exc)) from None
    except (pa.ArrowException, OSError) as exc:
        why = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        raise ImportFormatError(f"{path} is not a readable parquet file ({why})") from None


def _pick(row: dict[str, Any], keys: tuple[str, ...]) -> Any:
    return next((row[k] for k in keys if row.get(k) not in (None, "")), None)


def read_parquet_set(
    folder: Path,
    source: str,
    fmt: str,
    *,
    mapping: str | Path | None = None,
    splits: tuple[str, ...] = (),
    max_rows: int = DEFAULT_MAX_ROWS,
) -> SourceSet:
    corpus_files, query_files, qrels_files = (
        _files(folder, "corpus"),
        _files(folder, "queries"),
        _files(folder, "qrels"),
    )
    if splits:
        query_files = [p for p in query_files if _split(p) in splits]
        qrels_files = [p for p in qrels_files if _split(p) in splits]
        if not qrels_files:
            raise ImportFormatError(
                f"{folder / 'qrels'} has no file for split(s) {', '.join(splits)}"
            )
    if sum(len(_rows(p, None)) for p in query_files) > max_rows:  # counted from the footers
        raise too_many_rows(folder / "queries", max_rows)
    issues: list[ImportIssue] = []
    mapped, map_issues = read_mapping(mapping)
    issues += map_issues
    corpus: dict[str, GoldRef] = {}
    for path in corpus_files:
        for n, row in enumerate(_rows(path, CORPUS_ID + DOCUMENT_KEYS + PAGE_KEYS), start=1):
            cid = _pick(row, CORPUS_ID)
            if cid is None:
                issues.append(ImportIssue(f"corpus/{path.name}", n, "corpus row without an id"))
                continue
            where = f"corpus/{path.name}"
            ref = ref_from_fields(str(cid), row, where, n)
            if str(cid) in corpus:
                first = corpus[str(cid)]
                same = (first.document, first.page) == (ref.document, ref.page)
                issues.append(
                    duplicate_issue(where, n, "corpus id", str(cid), first.line, same, "row")
                )
                continue
            corpus[str(cid)] = ref if ref.document else mapped.get(str(cid), ref)
    queries: dict[str, tuple[str, int, dict[str, Any]]] = {}
    rows = 0
    for path in query_files:
        for n, row in enumerate(_rows(path, QUERY_ID + QUERY_TEXT + ("answer",)), start=1):
            rows += 1
            qid, text = _pick(row, QUERY_ID), _pick(row, QUERY_TEXT)
            if qid is None or not str(text or "").strip():
                issues.append(
                    ImportIssue(f"queries/{path.name}", n, "query row needs an id and a text")
                )
                continue
            if str(qid) in queries:
                file, first_n, first_row = queries[str(qid)]
                same = _pick(first_row, QUERY_TEXT) == text and first_row.get("answer") == row.get(
                    "answer"
                )
                issues.append(
                    duplicate_issue(
                        f"queries/{path.name}", n, "query id", str(qid), first_n, same, "row"
                    )
                    if file == f"queries/{path.name}"
                    else duplicate_issue(
                        f"queries/{path.name}",
                        n,
                        f"query id (first in {file})",
                        str(qid),
                        first_n,
                        same,
                        "row",
                    )
                )
                continue
            queries[str(qid)] = (f"queries/{path.name}", n, row)
    gold: dict[str, list[GoldRef]] = defaultdict(list)
    split_of: dict[str, str] = {}
    for path in qrels_files:
        where = f"qrels/{path.name}"
        for n, row in enumerate(
            _rows(path, ("query-id", "corpus-id", "score", "query_id", "corpus_id")), start=1
        ):
            qid, cid, score = (
                _pick(row, ("query-id", "query_id")),
                _pick(row, ("corpus-id", "corpus_id")),
                row.get("score"),
            )
            try:
                relevant = float(score) > 0  # type: ignore[arg-type]  # None and text fail here, as they should
            except (TypeError, ValueError):
                issues.append(ImportIssue(where, n, f"score {score!r} is not a number"))
                continue
            if str(qid) not in queries:
                issues.append(ImportIssue(where, n, f"query id {qid!r} is not in the queries"))
                continue
            if str(cid) not in corpus and str(cid) not in mapped:
                issues.append(ImportIssue(where, n, f"corpus id {cid!r} is not in the corpus"))
                continue
            if relevant:
                ref = corpus.get(str(cid)) or mapped[str(cid)]
                gold[str(qid)].append(replace(ref, corpus_id=str(cid), file=where, line=n))
                split_of.setdefault(str(qid), _split(path))
    items = []
    for qid, (file, n, row) in queries.items():
        if qid in gold:
            items.append(
                SourceItem(
                    qid,
                    str(_pick(row, QUERY_TEXT)).strip(),
                    str(row.get("answer") or "").strip(),
                    tuple(dict.fromkeys(gold[qid])),
                    file,
                    n,
                    {"split": split_of[qid]},
                )
            )
    warnings = []
    if items and not any(i.answer for i in items):
        warnings.append(
            f"no query in {folder / 'queries'} has an answer (an MTEB export carries none): the judge "
            "compares pages with the reference answer, so every gold page will be "
            "gold_not_sufficient and no sibling can be found to answer. Import the vidore or jsonl "
            "export of the same set, which carry the answers."
        )
    return SourceSet(
        source,
        fmt,
        str(folder),
        tuple(items),
        tuple(issues),
        rows,
        files_sha256(
            [*corpus_files, *query_files, *qrels_files] + ([Path(mapping)] if mapping else [])
        ),
        tuple(warnings),
    )

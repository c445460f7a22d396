"""A BEIR folder: `queries.jsonl`, `corpus.jsonl`, `qrels/<split>.tsv` (query-id, corpus-id, score; a header line).

Which document page a corpus id is comes from the corpus row (`metadata.document_path` and
`metadata.page_number`, as this project exports it, or top-level `document`/`page` fields), else
from `--mapping` (a CSV `corpus_id,document,page`), else the id must be a unit id of this corpus.
A qrels row with score > 0 names a gold page; rows naming an unknown query or corpus id, or a
score that is not a number, are reported with their file and line; the other rows still import.
Every split is imported unless `splits` names some; the split is kept in the item's provenance.
"""

from __future__ import annotations

import csv
import os
from collections import defaultdict
from dataclasses import replace
from pathlib import Path
from typing import Any

from evalset_pipeline.core.imports.readers._common import (
    duplicate_issue,
    files_sha256,
    json_rows,
    read_mapping,
    ref_from_fields,
    text_rows,
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
from evalset_pipeline.core.inputfile import InputFileError, check_dir, check_file


def _jsonl(
    path: Path, issues: list[ImportIssue], what: str, max_rows: int | None = None
) -> dict[str, tuple[int, dict[str, Any]]]:
    """id -> (line, row); a repeated `_id` is an issue naming both lines (the first wins)."""
    out: dict[str, tuple[int, dict[str, Any]]] = {}
    for line, obj in json_rows(path, path.name, issues):
        if not isinstance(obj, dict) or obj.get("_id") in (None, ""):
            issues.append(ImportIssue(path.name, line, "a row is a JSON object with an `_id`"))
            continue
        key = str(obj["_id"])
        if key in out:
            first_line, first = out[key]
            same = first == obj
            issues.append(duplicate_issue(path.name, line, what, key, first_line, same))
            continue
        if max_rows is not None and len(out) >= max_rows:  # stop reading: one row too many
            raise too_many_rows(path, max_rows)
        out[key] = (line, obj)
    return out


def _present(path: Path, folder: Path) -> None:
    """A BEIR part that is missing, a loop or the wrong kind is one error naming it."""
    if os.path.lexists(path):
        try:
            (check_dir if path.name == "qrels" else check_file)(path, "BEIR part")
        except InputFileError as exc:
            raise ImportFormatError(str(exc)) from None
        return
    raise ImportFormatError(f"{folder} is not a BEIR folder: {path.name} is missing")


def read_beir(
    folder: Path,
    source: str,
    *,
    mapping: str | Path | None = None,
    splits: tuple[str, ...] = (),
    max_rows: int = DEFAULT_MAX_ROWS,
) -> SourceSet:
    queries_path, corpus_path, qrels_dir = (
        folder / "queries.jsonl",
        folder / "corpus.jsonl",
        folder / "qrels",
    )
    for p in (queries_path, corpus_path, qrels_dir):
        _present(p, folder)
    tsvs = sorted(qrels_dir.glob("*.tsv"))
    if not tsvs:
        raise ImportFormatError(f"{qrels_dir} holds no <split>.tsv file")
    if splits:
        tsvs = [p for p in tsvs if p.stem in splits]
        if not tsvs:
            raise ImportFormatError(
                f"{qrels_dir} has no qrels file for split(s) {', '.join(splits)}"
            )
    issues: list[ImportIssue] = []
    mapped, map_issues = read_mapping(mapping)
    issues += map_issues
    corpus: dict[str, GoldRef] = {}
    for cid, (line, obj) in _jsonl(corpus_path, issues, "corpus id").items():
        fields = (
            {**obj, **(obj.get("metadata") or {})} if isinstance(obj.get("metadata"), dict) else obj
        )
        ref = ref_from_fields(cid, fields, corpus_path.name, line)
        corpus[cid] = mapped.get(cid, ref) if not ref.document else ref
    queries = _jsonl(queries_path, issues, "query id", max_rows)
    if not queries:
        raise ImportFormatError(f"{queries_path} holds no query (it is empty or no row is usable)")
    gold: dict[str, list[GoldRef]] = defaultdict(list)
    split_of: dict[str, str] = {}
    rows = len(queries)
    for tsv in tsvs:
        for line, text in text_rows(tsv, f"qrels/{tsv.name}", issues):
            rec = next(csv.reader([text.rstrip("\r\n")], delimiter="\t"), [])
            if not rec or (line == 1 and rec[0].strip().lower() in ("query-id", "query_id", "qid")):
                continue
            where = f"qrels/{tsv.name}"
            if len(rec) < 3:
                issues.append(ImportIssue(where, line, "a qrels row is query-id, corpus-id, score"))
                continue
            qid, cid, score = rec[0], rec[1], rec[2]
            try:
                relevant = float(score) > 0
            except ValueError:
                issues.append(ImportIssue(where, line, f"score {score!r} is not a number"))
                continue
            if qid not in queries:
                issues.append(ImportIssue(where, line, f"query id {qid!r} is not in queries.jsonl"))
                continue
            if cid not in corpus and cid not in mapped:
                issues.append(ImportIssue(where, line, f"corpus id {cid!r} is not in corpus.jsonl"))
                continue
            if relevant:
                ref = corpus.get(cid) or mapped[cid]
                gold[qid].append(replace(ref, corpus_id=cid, file=where, line=line))
                split_of.setdefault(qid, tsv.stem)
    items = []
    for qid, (line, obj) in queries.items():
        if qid not in gold:
            continue  # a query no split of this import judges relevant: nothing to look for
        given = obj.get("metadata")
        meta: dict[str, Any] = given if isinstance(given, dict) else {}
        text = str(obj.get("text") or "").strip()
        if not text:
            issues.append(ImportIssue(queries_path.name, line, f"query {qid!r} has no text"))
            continue
        answer = str(obj.get("answer") or meta.get("answer") or "").strip()
        extra = {
            "split": split_of[qid],
            **{k: v for k, v in meta.items() if k != "answer" and isinstance(v, (str, int, float))},
        }
        items.append(
            SourceItem(
                qid, text, answer, tuple(dict.fromkeys(gold[qid])), queries_path.name, line, extra
            )
        )
    files = [queries_path, corpus_path, *tsvs] + ([Path(mapping)] if mapping else [])
    return SourceSet(
        source, "beir", str(folder), tuple(items), tuple(issues), rows, files_sha256(files)
    )

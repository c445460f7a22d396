"""Simple JSONL, one question a line, as FinanceBench's:

    {"id": "...", "question": "...", "answer": "...", "document": "3M_2018_10K.pdf", "evidence_pages": [60]}

`document` is a path under the corpus root, a file name, or a document sha256 (prefix); pages are
1-based (`evidence_pages`, `pages` or `page`). Other short fields (question_type,
question_reasoning, ...) are kept as the item's provenance. A line with a bad field, an unknown
document or a page the document does not have is reported with its line; it imports nothing.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from evalset_pipeline.core.imports.readers._common import files_sha256, page_number
from evalset_pipeline.core.imports.records import GoldRef, ImportIssue, SourceItem, SourceSet

ID_KEYS = ("id", "_id", "qid", "query_id", "question_id", "financebench_id")
PAGE_KEYS = ("evidence_pages", "pages", "page")
CONSUMED = {"question", "answer", "document", *ID_KEYS, *PAGE_KEYS}
EXTRA_MAX_CHARS = 200  # longer fields (evidence text) stay in the source file


class _RowError(ValueError):
    pass


def _pages(obj: dict[str, Any]) -> list[int]:
    key = next((k for k in PAGE_KEYS if k in obj), None)
    if key is None:
        raise _RowError("no `evidence_pages` (1-based page numbers)")
    raw = obj[key] if isinstance(obj[key], list) else [obj[key]]
    if not raw:
        raise _RowError(f"`{key}` is empty")
    pages = [page_number(p) for p in raw]
    bad = [r for r, p in zip(raw, pages, strict=False) if p is None]
    if bad:
        raise _RowError(f"`{key}` holds {bad[0]!r}, not a 1-based page number")
    return list(dict.fromkeys(p for p in pages if p is not None))


def parse_row(obj: Any, file: str, line: int) -> SourceItem:
    if not isinstance(obj, dict):
        raise _RowError("a row is a JSON object")
    question = str(obj.get("question") or "").strip()
    document = str(obj.get("document") or "").strip()
    if not question:
        raise _RowError("`question` is empty")
    if not document:
        raise _RowError("`document` is empty")
    original = next((str(obj[k]) for k in ID_KEYS if obj.get(k) not in (None, "")), f"line-{line}")
    extra = {
        k: v
        for k, v in obj.items()
        if k not in CONSUMED
        and isinstance(v, (str, int, float, bool))
        and len(str(v)) <= EXTRA_MAX_CHARS
    }
    gold = tuple(GoldRef(document, p, "", file, line) for p in _pages(obj))
    return SourceItem(
        original, question, str(obj.get("answer") or "").strip(), gold, file, line, extra
    )


def read_jsonl(path: Path, source: str) -> SourceSet:
    items: list[SourceItem] = []
    issues: list[ImportIssue] = []
    rows = 0
    seen: dict[str, int] = {}
    with open(path, encoding="utf-8-sig") as f:
        for line, text in enumerate(f, start=1):
            if not text.strip():
                continue
            rows += 1
            try:
                item = parse_row(json.loads(text), path.name, line)
            except json.JSONDecodeError as exc:
                issues.append(ImportIssue(path.name, line, f"not JSON ({exc.msg})"))
                continue
            except _RowError as exc:
                issues.append(ImportIssue(path.name, line, str(exc)))
                continue
            if item.original_id in seen:
                issues.append(
                    ImportIssue(
                        path.name,
                        line,
                        f"id {item.original_id!r} already on line {seen[item.original_id]}",
                    )
                )
                continue
            seen[item.original_id] = line
            items.append(item)
    return SourceSet(
        source, "jsonl", str(path), tuple(items), tuple(issues), rows, files_sha256([path])
    )

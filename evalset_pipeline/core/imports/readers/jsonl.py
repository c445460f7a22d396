"""Simple JSONL, one question a line, as FinanceBench's:

    {"id": "...", "question": "...", "answer": "...", "document": "3M_2018_10K.pdf", "evidence_pages": [60]}

`document` is a path under the corpus root, a file name, or a document sha256 (prefix); pages are
1-based (`evidence_pages`, `pages` or `page`). Other short fields (question_type,
question_reasoning, ...) are kept as the item's provenance. A line with a bad field, an unknown
document or a page the document does not have is reported with its line; it imports nothing.

This project's own `golden export --format jsonl` (`golden.jsonl`: `item_id`, and `candidates`
whose `metadata` name their `document_path` and `page_number`) is read too: the gold pages are the
candidates with a qrels `score` > 0 (sufficient, under the export's policy), as a BEIR import reads
qrels rows. A repeated id is an issue on its line (the first row wins).
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from pathlib import Path
from typing import Any

from evalset_pipeline.core.imports.readers._common import (
    duplicate_issue,
    files_sha256,
    json_rows,
    page_number,
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
from evalset_pipeline.core.inputfile import iter_lines, parse_json_line

ID_KEYS = ("id", "_id", "qid", "query_id", "question_id", "financebench_id", "item_id")
PAGE_KEYS = ("evidence_pages", "pages", "page")
CONSUMED = {"question", "answer", "document", "candidates", *ID_KEYS, *PAGE_KEYS}
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


def _exported_gold(obj: dict[str, Any], file: str, line: int) -> tuple[GoldRef, ...]:
    """Gold pages of a `golden export --format jsonl` record: candidates scored relevant."""
    refs = []
    for c in obj["candidates"]:
        if not isinstance(c, dict):
            raise _RowError("`candidates` holds a value that is not an object")
        try:
            relevant = float(c.get("score") or 0) > 0
        except (TypeError, ValueError):
            raise _RowError(f"candidate score {c.get('score')!r} is not a number") from None
        if not relevant:
            continue
        given = c.get("metadata")
        meta: dict[str, Any] = given if isinstance(given, dict) else {}
        document = str(meta.get("document_path") or "").strip()
        page = page_number(meta.get("page_number"))
        if document and page is not None:
            refs.append(GoldRef(document, page, str(c.get("unit_id") or ""), file, line))
        elif c.get("unit_id"):
            refs.append(GoldRef("", 0, str(c["unit_id"]), file, line))  # must be a unit id here
        else:
            raise _RowError("a relevant candidate names no document page nor unit id")
    if not refs:
        raise _RowError("no candidate has a score > 0 (no gold page)")
    return tuple(dict.fromkeys(refs))


def parse_row(obj: Any, file: str, line: int) -> SourceItem:
    if not isinstance(obj, dict):
        raise _RowError("a row is a JSON object")
    question = str(obj.get("question") or "").strip()
    document = str(obj.get("document") or "").strip()
    exported = not document and isinstance(obj.get("candidates"), list)
    if not question:
        raise _RowError("`question` is empty")
    if not document and not exported:
        raise _RowError("`document` is empty")
    original = next((str(obj[k]) for k in ID_KEYS if obj.get(k) not in (None, "")), f"line-{line}")
    extra = {
        k: v
        for k, v in obj.items()
        if k not in CONSUMED
        and isinstance(v, (str, int, float, bool))
        and len(str(v)) <= EXTRA_MAX_CHARS
    }
    gold = (
        _exported_gold(obj, file, line)
        if exported
        else tuple(GoldRef(document, p, "", file, line) for p in _pages(obj))
    )
    return SourceItem(
        original, question, str(obj.get("answer") or "").strip(), gold, file, line, extra
    )


def _content(item: SourceItem) -> int:
    """What a repeated id is compared by (wording, answer, gold pages), as one hash: the first
    row of each id is remembered without holding the row."""
    gold = tuple((g.document, g.page, g.corpus_id, g.bad_page) for g in item.gold)
    return hash((item.question, item.answer, gold))


class _FileSignature:
    """Size, inode and mtime: the rows are read again on each pass, so a file changed between
    passes is refused rather than half-imported."""

    def __init__(self, path: Path):
        st = path.stat()
        self.value = (st.st_size, st.st_ino, st.st_mtime_ns)

    def check(self, path: Path) -> None:
        if _FileSignature(path).value != self.value:
            raise ImportFormatError(
                f"{path} changed while it was being imported; nothing was published, import again"
            )


class JsonlItems(Collection[SourceItem]):
    """The rows of a JSONL file that parsed (each id's first row), read again from the file on
    each pass: a million rows are parsed in batches and never held at once."""

    def __init__(self, path: Path, accepted: bytearray, count: int, signature: _FileSignature):
        self.path, self.accepted, self.count, self.signature = path, accepted, count, signature

    def __len__(self) -> int:
        return self.count

    def __contains__(self, item: object) -> bool:
        return any(item == own for own in self)

    def __iter__(self) -> Iterator[SourceItem]:
        self.signature.check(self.path)
        accepted = self.accepted
        for line in iter_lines(self.path):
            if line.number >= len(accepted) or not accepted[line.number]:
                continue
            value, why = parse_json_line(line.text)
            try:
                if why:
                    raise _RowError(why)
                yield parse_row(value, self.path.name, line.number)
            except _RowError:
                raise ImportFormatError(
                    f"{self.path} changed while it was being imported (line {line.number}); "
                    "nothing was published, import again"
                ) from None
        self.signature.check(self.path)


def read_jsonl(path: Path, source: str, *, max_rows: int = DEFAULT_MAX_ROWS) -> SourceSet:
    """Every row checked (issues, duplicates, the row budget) in one pass that keeps only which
    lines parsed; `items` reads those lines again when iterated."""
    signature = _FileSignature(path)
    issues: list[ImportIssue] = []
    rows = 0
    seen: dict[str, tuple[int, int]] = {}  # id -> (its first line, that row's content hash)
    accepted = bytearray()  # accepted[line] = 1: the line is an item
    unreadable: list[ImportIssue] = []  # lines that are not JSON: rows too, counted apart
    for line, obj in json_rows(path, path.name, unreadable):
        rows += 1
        if rows + len(unreadable) > max_rows:  # stop reading: the file is never held whole
            raise too_many_rows(path, max_rows)
        try:
            item = parse_row(obj, path.name, line)
        except _RowError as exc:
            issues.append(ImportIssue(path.name, line, str(exc)))
            continue
        content = _content(item)
        if item.original_id in seen:
            first_line, first = seen[item.original_id]
            issues.append(
                duplicate_issue(
                    path.name, line, "id", item.original_id, first_line, first == content
                )
            )
            continue
        seen[item.original_id] = (line, content)
        if len(accepted) <= line:
            accepted.extend(bytes(line + 1 - len(accepted) + len(accepted) // 2))
        accepted[line] = 1
    issues = sorted(unreadable + issues, key=lambda i: i.line)
    return SourceSet(
        source,
        "jsonl",
        str(path),
        JsonlItems(path, accepted, len(seen), signature),
        tuple(issues),
        rows + len(unreadable),
        files_sha256([path]),
    )

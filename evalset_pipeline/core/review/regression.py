"""The regression slice: production failures, kept in the user's own words and scored separately.

Records live in ``data/regressions/*.jsonl``, one JSON object a line::

    {"question": "what did acme make in q3",          # exactly as the user asked it
     "document": "acme_group/acme_group_2024-Q3.pdf",  # path under the corpus root (or file name, or sha256)
     "page": 2,                                        # 1-based page that should have been retrieved
     "note": "ticket 4411: got the Q2 deck", "date": "2024-11-02",
     "answer": "1,234"}                                 # optional: the expected answer, if known

Each record becomes an item of slice ``regression`` in the `validated_questions` stage:

* its id is ``"r-" + fingerprint(question, document, page)``, so the same record is the same
  item in every version, and a duplicate record is the same item once;
* the question is **never** rewritten, qualified or validated away: a user's phrasing that a
  distractor can also answer is exactly the case the slice exists to track;
* its hard distractors are the gold page's mined negatives (every page has them), and
  `candidate_labels` labels them like any other item's;
* its gold page is labelled ``sufficient`` with ``label_source = human`` in the golden set: the
  person who investigated the failure already decided which page answers it (`apply.py`).

A record whose document or page is not in the corpus is kept out of the set and counted
(``unresolved``) in the funnel, never silently dropped.
"""

from __future__ import annotations

import fcntl
import json
import os
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import asdict, dataclass
from datetime import date as date_cls
from pathlib import Path
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.hashing import fingerprint
from evalset_pipeline.core.judging.base import PageContext, PageView
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.questions.validation import Validated
from evalset_pipeline.core.tables import read_rows, write_rows

SLICE = "regression"
DEFAULT_FILE = "regressions.jsonl"
TABLE = "regression_items"
SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("file", pa.string()),
        ("line", pa.int64()),
        ("question", pa.string()),
        ("document", pa.string()),
        ("page", pa.int64()),
        ("unit_id", pa.string()),
        ("status", pa.string()),
        ("reason", pa.string()),
        ("note", pa.string()),
        ("date", pa.string()),
    ]
)


class RegressionError(ValueError):
    pass


@dataclass(frozen=True)
class RegressionRecord:
    question: str
    document: str
    page: int
    answer: str = ""
    note: str = ""
    date: str = ""
    language: str = ""
    file: str = ""
    line: int = 0

    @property
    def item_id(self) -> str:
        return "r-" + fingerprint(
            {"question": self.question, "document": self.document, "page": self.page}
        )

    def to_json(self) -> dict[str, Any]:
        d = {"question": self.question, "document": self.document, "page": self.page}
        for k in ("answer", "note", "date", "language"):
            if getattr(self, k):
                d[k] = getattr(self, k)
        return d


def parse_record(obj: Any, file: str = "", line: int = 0) -> RegressionRecord:
    if not isinstance(obj, dict):
        raise RegressionError("a record is a JSON object")
    question = str(obj.get("question") or "").strip()
    document = str(obj.get("document") or "").strip()
    if not question:
        raise RegressionError("`question` is empty")
    if not document:
        raise RegressionError("`document` is empty")
    try:
        page = int(obj["page"])
    except (KeyError, TypeError, ValueError):
        raise RegressionError(f"`page` must be a page number, not {obj.get('page')!r}") from None
    if page < 1:
        raise RegressionError("`page` is 1-based")
    return RegressionRecord(
        question,
        document,
        page,
        str(obj.get("answer") or "").strip(),
        str(obj.get("note") or "").strip(),
        str(obj.get("date") or "").strip(),
        str(obj.get("language") or "").strip(),
        file,
        line,
    )


def read_records(directory: str | Path) -> tuple[list[RegressionRecord], list[dict[str, Any]]]:
    """(records, problems) from every *.jsonl under `directory`, in file then line order."""
    directory = Path(directory)
    records: list[RegressionRecord] = []
    problems: list[dict[str, Any]] = []
    if not directory.is_dir():
        return records, problems
    for path in sorted(directory.glob("*.jsonl")):
        for n, text in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not text.strip():
                continue
            try:
                records.append(parse_record(json.loads(text), path.name, n))
            except (ValueError, RegressionError) as exc:
                problems.append({"file": path.name, "line": n, "reason": str(exc)})
    return records, problems


def detect_language(text: str) -> str:
    """ISO 639-1 guess from the script (the sample corpus is English and Korean)."""
    if text.isascii():  # no script to look up (most questions; an import asks this per row)
        return "en"
    for ch in text:
        name = unicodedata.name(ch, "")
        if name.startswith("HANGUL"):
            return "ko"
        if name.startswith(("HIRAGANA", "KATAKANA")):
            return "ja"
    if any("CJK UNIFIED" in unicodedata.name(ch, "") for ch in text):
        return "zh"
    return "en"


class CorpusIndex:
    """Find a page by what a person would write: corpus path, file name, or document sha256."""

    def __init__(self, documents: Iterable[Mapping[str, Any]], pages: Iterable[Mapping[str, Any]]):
        self.by_path: dict[str, str] = {}
        self.by_name: dict[str, set[str]] = {}
        self.page_count: dict[str, int] = {}
        self.primary: dict[str, str] = {}
        for d in documents:
            sha = d["document_sha256"]
            self.page_count[sha] = int(d.get("page_count") or 0)
            self.primary[sha] = d["path"]
            for p in [d["path"], *(d.get("paths") or [])]:
                self.by_path[p] = sha
                self.by_name.setdefault(Path(p).name, set()).add(sha)
        self.units: dict[tuple[str, int], str] = {}
        for p in pages:
            sha = p["document_sha256"]
            self.units[(sha, int(p["page_number"]))] = p["unit_id"]
            if sha not in self.primary:
                self.primary[sha] = p["document_path"]
                self.by_path.setdefault(p["document_path"], sha)
                self.by_name.setdefault(Path(p["document_path"]).name, set()).add(sha)

    def document(self, text: str) -> tuple[str | None, str]:
        """(document sha256, "") or (None, why not)."""
        t = text.strip().replace("\\", "/")
        while t.startswith("./"):
            t = t[2:]
        if t in self.by_path:
            return self.by_path[t], ""
        names = self.by_name.get(Path(t).name, set())
        if len(names) == 1:
            return next(iter(names)), ""
        if len(names) > 1:
            return (
                None,
                f"{Path(t).name} names {len(names)} documents; give the path under the corpus root",
            )
        low = t.lower()
        if len(low) >= 8 and all(c in "0123456789abcdef" for c in low):
            hits = [s for s in self.primary if s.startswith(low)]
            if len(hits) == 1:
                return hits[0], ""
        return None, f"document {text!r} is not in the corpus"

    def resolve(self, document: str, page: int) -> tuple[str | None, str]:
        """(unit id, "") or (None, why not)."""
        sha, why = self.document(document)
        if sha is None:
            return None, why
        unit = self.units.get((sha, page))
        if unit is None:
            count = self.page_count.get(sha)
            if count and page > count:
                return None, f"{self.primary.get(sha, document)} has {count} pages, not {page}"
            return None, f"page {page} of {self.primary.get(sha, document)} has no render"
        return unit, ""


def regression_items(
    directory: str | Path, index: CorpusIndex, taken: Iterable[str] = ()
) -> tuple[list[Validated], list[dict[str, Any]], dict[str, Any]]:
    """Validated items (slice `regression`), a row per record for the table, and funnel counts."""
    records, problems = read_records(directory)
    seen = set(taken)
    items: list[Validated] = []
    rows: list[dict[str, Any]] = [
        {
            "item_id": "",
            "file": p["file"],
            "line": p["line"],
            "question": "",
            "document": "",
            "page": 0,
            "unit_id": "",
            "status": "invalid",
            "reason": p["reason"],
            "note": "",
            "date": "",
        }
        for p in problems
    ]
    for r in records:
        unit, why = index.resolve(r.document, r.page)
        status = "added"
        if unit is None:
            status = "unresolved"
        elif r.item_id in seen:
            status, why = "duplicate", "same question, document and page as an earlier record"
        rows.append(
            {
                "item_id": r.item_id,
                "file": r.file,
                "line": r.line,
                "question": r.question,
                "document": r.document,
                "page": r.page,
                "unit_id": unit or "",
                "status": status,
                "reason": why,
                "note": r.note,
                "date": r.date,
            }
        )
        if status != "added" or unit is None:
            continue
        seen.add(r.item_id)
        items.append(
            Validated(
                r.item_id,
                unit,
                SLICE,
                r.question,
                r.question,
                r.answer,
                r.language or detect_language(r.question),
                [],
                [unit],
            )
        )
    summary = {
        "records": len(records) + len(problems),
        "added": sum(1 for x in rows if x["status"] == "added"),
        "unresolved": sum(1 for x in rows if x["status"] == "unresolved"),
        "duplicates": sum(1 for x in rows if x["status"] == "duplicate"),
        "invalid": len(problems),
        "problems": [
            f"{x['file']}:{x['line']}: {x['reason']}"
            for x in rows
            if x["status"] in ("unresolved", "invalid")
        ][:20],
    }
    return items, rows, summary


def corpus_index(paths: DataPaths, pages: Iterable[Mapping[str, Any]] | None = None) -> CorpusIndex:
    """The corpus as the last build scanned it (`documents` and `page_renders` working tables)."""
    docs = paths.table("documents")
    if pages is None:
        renders = paths.table("page_renders")
        pages = read_rows(renders) if renders.exists() else []
    return CorpusIndex(read_rows(docs) if docs.exists() else [], pages)


def add_regression_items(
    paths: DataPaths,
    pages: Sequence[Mapping[str, Any]],
    kept: Iterable[Validated],
    judge: Callable[[list[tuple[str, PageView]]], list[Any]] | None = None,
    contexts: Mapping[str, PageContext] | None = None,
) -> tuple[list[Validated], dict[str, Any]]:
    """The `validated_questions` hook: regression items to append, and their counts (table written).

    A record without an expected answer gets the one the judge reads off its gold page, so
    `candidate_labels` can tell a distractor that gives the same answer (sufficient: the user's
    question really is ambiguous there) from one that does not. The question itself is never
    changed, and an item whose gold page the judge cannot answer from is kept all the same
    (the record is a person's finding; the disagreement is noted in the table). The gold page
    is judged with its document's facts (`contexts`, by document sha256), as every page is: a
    question naming the company, or a column dated by the filing ("1Q21"), needs them.
    """
    items, rows, summary = regression_items(
        paths.regressions, corpus_index(paths, pages), (v.item_id for v in kept)
    )
    need = [v for v in items if not v.answer]
    if need and judge is not None:
        by_unit = {p["unit_id"]: p for p in pages}
        views = [
            PageView(
                v.gold_unit_id,
                paths.root / by_unit[v.gold_unit_id]["render_path"],
                paths.root / by_unit[v.gold_unit_id]["text_path"],
                by_unit[v.gold_unit_id]["render_hash"],
                (contexts or {}).get(by_unit[v.gold_unit_id]["document_sha256"]),
            )
            for v in need
        ]
        verdicts = judge([(v.question, view) for v, view in zip(need, views, strict=False)])
        reasons = {}
        for v, j in zip(need, verdicts, strict=False):
            if j.answers and j.answer:
                v.answer = str(j.answer)
                reasons[v.item_id] = "expected answer read off the gold page by the judge"
            else:
                reasons[v.item_id] = (
                    f"kept, but the judge finds no answer on the gold page ({j.reason})"
                )
        for row in rows:
            if row["status"] == "added" and row["item_id"] in reasons:
                row["reason"] = reasons[row["item_id"]]
        summary["gold_not_answering"] = sum(
            1 for r in reasons.values() if r.startswith("kept, but")
        )
    write_rows(paths.table(TABLE), rows, SCHEMA)
    return items, summary


def load_regression_rows(paths: DataPaths) -> list[dict[str, Any]]:
    path = paths.table(TABLE)
    return read_rows(path) if path.exists() else []


def funnel_summary(rows: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The regression block of a golden set's funnel (counted apart from the sampled questions)."""
    count = lambda s: sum(1 for r in rows if r["status"] == s)  # noqa: E731
    return {
        "records": len(rows),
        "added": count("added"),
        "unresolved": count("unresolved"),
        "duplicates": count("duplicate"),
        "invalid": count("invalid"),
    }


def append_record(
    directory: str | Path, record: RegressionRecord, file: str = DEFAULT_FILE
) -> Path:
    """Append one record as one line (under an exclusive lock; a line is written in one call)."""
    if "/" in file or "\\" in file or not file.endswith(".jsonl") or file.startswith("."):
        raise RegressionError("the regression file is a plain name ending in .jsonl")
    directory = Path(directory)
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / file
    line = (json.dumps(record.to_json(), ensure_ascii=False) + "\n").encode("utf-8")
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        size = os.fstat(fd).st_size
        if size:  # a file edited by hand may lack its final newline
            with open(path, "rb") as f:
                f.seek(size - 1)
                if f.read(1) != b"\n":
                    line = b"\n" + line
        os.write(fd, line)
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


def new_record(
    question: str,
    document: str,
    page: int,
    note: str = "",
    date: str = "",
    answer: str = "",
    language: str = "",
) -> RegressionRecord:
    return parse_record(
        {
            "question": question,
            "document": document,
            "page": page,
            "note": note,
            "date": date or date_cls.today().isoformat(),
            "answer": answer,
            "language": language,
        }
    )


def as_dict(record: RegressionRecord) -> dict[str, Any]:
    return {**asdict(record), "item_id": record.item_id}

"""Records an import hands between its readers, the resolver and the hardening step."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from evalset_pipeline.core.hashing import fingerprint

FORMATS = ("beir", "vidore", "mteb", "jsonl")
# Rows (questions) one import reads at most unless `--max-rows` says otherwise. Rows stream (read,
# judged and staged on disk in batches: memory does not grow with them), but judging is ~6 pages a
# row, so a file far past this is refused before any work rather than by surprise after an hour.
DEFAULT_MAX_ROWS = 1_000_000


class ImportFormatError(ValueError):
    """The input as a whole cannot be read (missing file, wrong layout); the message names the file."""


def too_many_rows(path: object, max_rows: int) -> ImportFormatError:
    return ImportFormatError(
        f"{path} has more than {max_rows:,} rows, the row budget (--max-rows): an import judges "
        "each gold page and its one-axis siblings (offline a few thousand rows a second on 2 "
        "cores, see docs/performance.md). Split the file, or raise --max-rows."
    )


@dataclass(frozen=True)
class GoldRef:
    """A page the source names as the evidence: a document and its 1-based page, or a corpus id to map."""

    document: str = ""
    page: int = 0
    corpus_id: str = ""  # the source's id of the page (BEIR / parquet corpora)
    file: str = ""  # where the source names it (file and line), for the error that names it
    line: int = 0
    bad_page: str = ""  # the corpus row's page value when it is not a 1-based page (2.5, "x")


@dataclass(frozen=True)
class ImportIssue:
    file: str
    line: (
        int  # 1-based line (JSONL, TSV) or row (parquet); 0 when the issue is about the whole file
    )
    reason: str

    def __str__(self) -> str:
        return (
            f"{self.file}:{self.line}: {self.reason}"
            if self.line
            else f"{self.file}: {self.reason}"
        )


@dataclass(frozen=True)
class SourceItem:
    """One question as the source states it: its own id, wording, answer and gold pages."""

    original_id: str
    question: str
    answer: str
    gold: tuple[GoldRef, ...]
    file: str = ""
    line: int = 0
    extra: dict[str, Any] = field(
        default_factory=dict
    )  # what else the source says (question_type, reasoning, ...)


@dataclass(frozen=True)
class SourceSet:
    """Everything one reader read: items whose rows parsed, and every row that did not."""

    source: str  # the benchmark's name, e.g. "financebench-dev"
    format: str
    path: str
    # the rows that parsed: a tuple, or (JSONL) a view that reads the file again on each pass, so
    # a million rows are never held at once
    items: Collection[SourceItem]
    issues: tuple[ImportIssue, ...]
    rows: int  # rows read in all (valid or not)
    file_sha256: (
        str  # of the input (files in sorted order for a folder), part of the version's identity
    )
    warnings: tuple[str, ...] = ()  # about the whole input (e.g. no answers: nothing to judge with)


@dataclass(frozen=True)
class ResolvedItem:
    """A source item whose gold pages are units of this corpus."""

    item: SourceItem
    gold_units: tuple[str, ...]  # unit ids, the source's order, without repeats

    @cached_property  # asked for each of the item's ~6 candidate pages: a hash each time was 15%
    def item_id(self) -> str:
        return imported_item_id(self.item.original_id)


def imported_item_id(original_id: str) -> str:
    """Stable per source id, never equal to a unit id ("x-" + fingerprint), so BEIR tools keep every hit."""
    return "x-" + fingerprint({"id": original_id})

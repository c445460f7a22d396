"""Map a source's gold pages onto this corpus's units (document path + 1-based page).

Documents are found the way regression records are (`review.regression.CorpusIndex`): a path
under the corpus root, a file name that names one document, or a document sha256 prefix. A
corpus id with no document and page must be a unit id of this corpus. Each reference that
resolves to nothing is an issue at the file and line that named it. A JSONL row is one item: if
any of its pages fails, the row imports nothing. A qrels row is one page: the item keeps the
pages that resolve.
"""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator
from dataclasses import dataclass

from evalset_pipeline.core.imports.records import ImportIssue, ResolvedItem, SourceItem, SourceSet
from evalset_pipeline.core.review.regression import CorpusIndex


@dataclass(frozen=True)
class Resolution:
    items: tuple[ResolvedItem, ...]  # empty when resolved with keep_items=False (a large import)
    issues: tuple[ImportIssue, ...]  # the reader's and the resolver's, in file then line order
    refs: int  # gold references read
    refs_resolved: int
    count: int = 0  # items that resolve (kept or not)


def _resolve_item(
    item: SourceItem, index: CorpusIndex, units: Container[str], whole_row: bool
) -> tuple[ResolvedItem | None, list[ImportIssue], int]:
    """(the item on this corpus or None, its issues, gold references resolved)."""
    found: list[str] = []
    issues: list[ImportIssue] = []
    for ref in item.gold:
        if ref.document:
            unit, why = index.resolve(ref.document, ref.page)
        elif ref.corpus_id in units:
            unit, why = ref.corpus_id, ""
        elif ref.bad_page:
            unit, why = (
                None,
                f"corpus id {ref.corpus_id!r}: its page {ref.bad_page} is not a 1-based page number",
            )
        else:
            unit, why = (
                None,
                (
                    f"corpus id {ref.corpus_id!r} names no document page: its corpus row has no "
                    "document and page fields, give --mapping corpus_id,document,page"
                ),
            )
        if unit is None:
            issues.append(
                ImportIssue(
                    ref.file or item.file, ref.line or item.line, f"{item.original_id}: {why}"
                )
            )
            continue
        found.append(unit)
    ok = found and not (issues and whole_row)
    return (ResolvedItem(item, tuple(dict.fromkeys(found))) if ok else None), issues, len(found)


def resolve(
    source: SourceSet, index: CorpusIndex, unit_ids: Iterable[str], *, keep_items: bool = True
) -> Resolution:
    """Every item resolved once: the issues and counts, and the items unless `keep_items` is
    False (an import of a million rows streams them again with `iter_resolved`)."""
    units = set(unit_ids)
    whole_row = source.format == "jsonl"
    issues = list(source.issues)
    out: list[ResolvedItem] = []
    refs = resolved = count = 0
    for item in source.items:
        got, why, n = _resolve_item(item, index, units, whole_row)
        refs += len(item.gold)
        resolved += n
        issues += why
        if got is not None:
            count += 1
            if keep_items:
                out.append(got)
    issues.sort(key=lambda i: (i.file, i.line))
    return Resolution(tuple(out), tuple(issues), refs, resolved, count)


def iter_resolved(
    source: SourceSet, index: CorpusIndex, unit_ids: Iterable[str]
) -> Iterator[ResolvedItem]:
    """The items that resolve, one at a time, in the source's order (issues: see `resolve`)."""
    units = set(unit_ids)
    whole_row = source.format == "jsonl"
    for item in source.items:
        got, _, _ = _resolve_item(item, index, units, whole_row)
        if got is not None:
            yield got

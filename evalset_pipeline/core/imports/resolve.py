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
from dataclasses import dataclass, field

from evalset_pipeline.core.imports.records import ImportIssue, ResolvedItem, SourceItem, SourceSet
from evalset_pipeline.core.review.regression import CorpusIndex


@dataclass(frozen=True)
class Resolution:
    items: tuple[ResolvedItem, ...]  # empty when streamed (`iter_resolved`, a large import)
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


@dataclass
class Tally:
    """What resolving saw so far: issues and counts (items streamed by `iter_resolved`)."""

    issues: list[ImportIssue] = field(default_factory=list)
    refs: int = 0
    refs_resolved: int = 0
    count: int = 0  # items that resolve
    seen: int = 0  # items looked at

    def resolution(self, source: SourceSet, items: tuple[ResolvedItem, ...] = ()) -> Resolution:
        issues = sorted([*source.issues, *self.issues], key=lambda i: (i.file, i.line))
        return Resolution(items, tuple(issues), self.refs, self.refs_resolved, self.count)


def iter_resolved(
    source: SourceSet, index: CorpusIndex, unit_ids: Iterable[str], tally: Tally | None = None
) -> Iterator[ResolvedItem]:
    """The items that resolve, one at a time in the source's order; issues and counts go to
    `tally` (an import of a million rows resolves and judges in one pass, holding no item list)."""
    units = set(unit_ids)
    whole_row = source.format == "jsonl"
    tally = tally if tally is not None else Tally()
    for item in source.items:
        got, why, n = _resolve_item(item, index, units, whole_row)
        tally.seen += 1
        tally.refs += len(item.gold)
        tally.refs_resolved += n
        tally.issues += why
        if got is not None:
            tally.count += 1
            yield got


def resolve(source: SourceSet, index: CorpusIndex, unit_ids: Iterable[str]) -> Resolution:
    """Every item resolved: the items, the issues (the reader's and these) and the counts."""
    tally = Tally()
    items = tuple(iter_resolved(source, index, unit_ids, tally))
    return tally.resolution(source, items)

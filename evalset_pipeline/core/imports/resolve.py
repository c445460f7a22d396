"""Map a source's gold pages onto this corpus's units (document path + 1-based page).

Documents are found the way regression records are (`review.regression.CorpusIndex`): a path
under the corpus root, a file name that names one document, or a document sha256 prefix. A
corpus id with no document and page must be a unit id of this corpus. Each reference that
resolves to nothing is an issue at the file and line that named it. A JSONL row is one item: if
any of its pages fails, the row imports nothing. A qrels row is one page: the item keeps the
pages that resolve.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from evalset_pipeline.core.imports.records import ImportIssue, ResolvedItem, SourceSet
from evalset_pipeline.core.review.regression import CorpusIndex


@dataclass(frozen=True)
class Resolution:
    items: tuple[ResolvedItem, ...]
    issues: tuple[ImportIssue, ...]  # the reader's and the resolver's, in file then line order
    refs: int  # gold references read
    refs_resolved: int


def resolve(source: SourceSet, index: CorpusIndex, unit_ids: Iterable[str]) -> Resolution:
    units = set(unit_ids)
    whole_row = source.format == "jsonl"
    issues = list(source.issues)
    out: list[ResolvedItem] = []
    refs = resolved = 0
    for item in source.items:
        found: list[str] = []
        failed = False
        for ref in item.gold:
            refs += 1
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
                failed = True
                continue
            resolved += 1
            found.append(unit)
        if found and not (failed and whole_row):
            out.append(ResolvedItem(item, tuple(dict.fromkeys(found))))
    issues.sort(key=lambda i: (i.file, i.line))
    return Resolution(tuple(out), tuple(issues), refs, resolved)

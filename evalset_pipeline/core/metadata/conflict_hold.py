"""Pages held out of the gold sample while their document's facts conflict.

A page inherits its document's period; when the filer's documents disagree on it
(`filer_facts.py`), a question written on the page could name the wrong period, and its period
distractors would be wrong too. So the page is not sampled until a sidecar row gives its period
(the person who knows settles it); it stays in the corpus as a page a retriever can return.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace

from evalset_pipeline.core.metadata.facts_record import DocumentFacts
from evalset_pipeline.core.metadata.page_metadata import PageMetadata
from evalset_pipeline.core.metadata.page_profile import PageProfile

__all__ = ["HELD_REASON", "hold_conflicting"]

HELD_REASON = "document facts conflict"


def hold_conflicting(
    profiles: Sequence[PageProfile],
    meta: Mapping[str, PageMetadata],
    facts: Sequence[DocumentFacts],
) -> list[PageProfile]:
    """Profiles with `HELD_REASON` as skip reason on pages of a conflicting document whose period
    the sidecar does not give; every other profile unchanged."""
    conflicting = {f.document_sha256 for f in facts if f.conflicts}
    out = []
    for p in profiles:
        page = meta.get(p.unit_id)
        settled = page is not None and page.sources.get("period") == "sidecar"
        if p.document_sha256 in conflicting and not p.skip_reason and not settled:
            p = replace(p, skip_reason=HELD_REASON)
        out.append(p)
    return out

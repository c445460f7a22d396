"""Document facts: registrant, form and reporting period, read once per document and passed to its pages.

Most pages of a filing print neither the company nor the period; the cover and the PDF's own
metadata do. So each document is read once (`extract_document_facts`), then the corpus is read
as a whole (`reconcile`):

- one spelling per entity: names equal up to case and punctuation are one entity, spelt the way
  most documents spell it; a short name a release uses ("Amcor Group", "Contoso") that is the
  leading part of exactly one registrant named on a cover joins that registrant (of one filer's
  several names, the one its cover dated nearest prints);
- one filer under several names: covers that print one filer identifier (a Commission File
  Number, `filer_identity.py`) are one filer, and each document lists the filer's other names;
- one fiscal calendar per filer, by vote over its documents, and the facts that disagree
  flagged (`filer_facts.py`).

Every value records its source and a confidence, shown in `evalset documents --facts` with the
document's conflicts and low-confidence facts.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from collections.abc import Collection, Iterable, Sequence
from dataclasses import replace
from datetime import date

from evalset_pipeline.core.metadata.document_subject import find_subject
from evalset_pipeline.core.metadata.facts_record import SCHEMA, DocumentFacts
from evalset_pipeline.core.metadata.filer_facts import reconcile_filers
from evalset_pipeline.core.metadata.filer_identity import (
    filer_groups,
    read_filer_ids,
    with_aliases,
)
from evalset_pipeline.core.metadata.page_subject import PageLine
from evalset_pipeline.core.metadata.registrant import entity_key, find_registrant
from evalset_pipeline.core.metadata.reporting_period import (
    ReportingPeriod,
    find_form,
    find_reporting_period,
)
from evalset_pipeline.core.pagetext.korean import agreed_money_unit

__all__ = ["DocumentFacts", "extract_document_facts", "reconcile", "SCHEMA"]

_STRONG_ENTITY = {"cover-label", "pdf-author"}
_LEGAL_TAIL = re.compile(
    r"[\s,]+(?:inc\.?|incorporated|corporation|corp\.?|company|co\.|plc|p\.l\.c\.|ltd\.?|limited|"
    r"llc|l\.p\.|n\.v\.|s\.a\.|se|ag|group|holdings|and subsidiaries)$",
    re.I,
)


def _base(name: str) -> str:
    previous = None
    while previous != name:
        previous, name = name, _LEGAL_TAIL.sub("", name.strip())
    return entity_key(name)


def extract_document_facts(
    document_sha256: str,
    path: str,
    page_texts: Sequence[str],
    *,
    title: str = "",
    author: str = "",
    running_header: str = "",
    cover_lines: Sequence[Sequence[PageLine]] = (),
    running: Collection[str] = (),
) -> DocumentFacts:
    """Facts of one document from its pages' text (in page order) and its PDF title/author;
    `cover_lines`: its first pages' lines, `running`: its running lines' keys (the subject)."""
    cover = "\n".join(page_texts[:2])
    form = find_form(cover, title)
    name, source, confidence = find_registrant(page_texts, author, running_header)
    period: ReportingPeriod = find_reporting_period(page_texts, form, title)
    subject = find_subject(cover_lines, running)
    return DocumentFacts(
        document_sha256,
        path,
        entity=name,
        entity_source=source,
        entity_confidence=confidence,
        entity_as_printed=name,
        filer_ids=read_filer_ids(page_texts),
        form=form,
        period=period.period,
        period_kind=period.kind,
        period_end=period.end.isoformat() if period.end else "",
        period_source=period.source,
        period_confidence=period.confidence,
        fiscal_year_end_month=period.calendar.year_end_month,
        calendar_source=period.calendar_source,
        calendar_confidence=period.calendar_confidence,
        subject=subject.text,
        subject_kind=subject.kind,
        subject_source=subject.source,
        unit=agreed_money_unit(list(page_texts)),
    )


def _canonical_names(facts: Sequence[DocumentFacts]) -> dict[str, str]:
    """entity key -> the spelling most documents use (mixed case preferred over ALL CAPS)."""
    spellings: dict[str, Counter[str]] = defaultdict(Counter)
    for f in facts:
        if f.entity:
            spellings[entity_key(f.entity)][f.entity] += 1
    return {k: max(c, key=lambda s: (c[s], not s.isupper(), s)) for k, c in spellings.items()}


def _name_in_use(f: DocumentFacts, names: set[str], facts: Sequence[DocumentFacts]) -> str:
    """Of several cover names a short name could be, when they are all one filer's (a renamed
    registrant: `filer_identity`), the one its cover dated nearest to `f` prints (the latest when
    either is undated); "" when they are several filers'."""
    covers = [g for g in facts if g.entity in names and g.entity_source in _STRONG_ENTITY]
    if len(filer_groups(covers)) != 1:
        return ""

    def day(end: str) -> int | None:
        return date.fromisoformat(end).toordinal() if end else None

    own = day(f.period_end)

    def nearest(g: DocumentFacts) -> tuple[float, int]:
        end = day(g.period_end)
        gap = abs(end - own) if end is not None and own is not None else float("inf")
        return gap, -(end or 0)

    return min(covers, key=nearest).entity


def reconcile(facts: Iterable[DocumentFacts]) -> list[DocumentFacts]:
    """One spelling per entity, the filer's other names, then one fiscal calendar per filer (see
    the module docstring)."""
    facts = list(facts)
    strong = {
        _base(f.entity): f.entity for f in facts if f.entity and f.entity_source in _STRONG_ENTITY
    }
    out = []
    for f in facts:
        if f.entity and f.entity_source not in _STRONG_ENTITY:
            base = _base(f.entity)
            matches = {s for b, s in strong.items() if b == base or (base and b.startswith(base))}
            if len(matches) > 1:
                matches = {_name_in_use(f, matches, facts)} - {""}
            if len(matches) == 1:
                f = replace(f, entity=matches.pop(), entity_source=f"{f.entity_source}+corpus")
        out.append(f)
    names = _canonical_names(out)
    out = [
        replace(f, entity=names.get(entity_key(f.entity), f.entity)) if f.entity else f for f in out
    ]
    return reconcile_filers(with_aliases(out))

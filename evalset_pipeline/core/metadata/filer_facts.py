"""Facts that agree across a filer's documents: one fiscal year end, distinct periods, conflicts shown.

A filer (documents that print one filer identifier, else one entity after spellings are joined:
`filer_identity.py`) has one fiscal year end. Each
document says what it knows of it (`fiscal_year_end.py`: its annual period, a statement of its
year, a year-to-date column, a guess) and the documents vote, the strongest kind of evidence
first: statements and annual periods outvote columns, and columns outvote guesses. A month in
which one of the filer's quarterly reports ends is never its year end (a quarterly report never
covers the fourth quarter). Every document is then labelled in the filer's calendar.

What the vote cannot settle is a conflict, recorded on the document (`conflicts`) and shown by
`evalset documents --facts`; its pages are not sampled until a sidecar row settles them:

- an annual report whose own year ends in another month than the filer's (a changed fiscal year);
- two documents of one form given the same period for different period ends;
- a quarterly report that would still be the fourth quarter.

Facts read with little confidence are `flags`: an entity from a running header, a period from a
label alone, a fiscal year end nobody stated.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from evalset_pipeline.core.metadata.facts_record import DocumentFacts
from evalset_pipeline.core.metadata.filer_identity import filer_groups
from evalset_pipeline.core.metadata.fiscal_year_end import CONFIDENCE
from evalset_pipeline.core.metadata.reporting_period import FORM_KINDS, ReportingPeriod
from evalset_pipeline.core.pagetext.dates import MONTH_NAMES
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar

__all__ = ["reconcile_filers"]

_MONTHS = [name[:3] for name in MONTH_NAMES]
# Evidence tiers: the strongest tier any document of the filer has decides.
_TIERS = (("cover", "stated"), ("spans",), ("guess",))
_LOW_ENTITY = 0.6
_LOW_PERIOD = 0.7


def _month_of(end: str) -> int:
    return FiscalCalendar.from_year_end(date.fromisoformat(end)).year_end_month


def _quarterly(f: DocumentFacts) -> bool:
    return FORM_KINDS.get(f.form) == "quarter"


def _vote(docs: Sequence[DocumentFacts]) -> tuple[int, str, float, int] | None:
    """(month, source, confidence, documents voting for it) of the filer's year end, or None."""
    forbidden = {_month_of(f.period_end) for f in docs if _quarterly(f) and f.period_end}
    for tier in _TIERS:
        votes: dict[int, float] = defaultdict(float)
        voters: Counter[int] = Counter()
        for f in docs:
            month = f.fiscal_year_end_month
            if f.calendar_source in tier and month not in forbidden:
                votes[month] += f.calendar_confidence
                voters[month] += 1
        if votes:
            month = max(votes, key=lambda m: (votes[m], m == 12, -m))
            best = max(
                CONFIDENCE.get(f.calendar_source, 0.0)
                for f in docs
                if f.calendar_source in tier and f.fiscal_year_end_month == month
            )
            return month, tier[0], best, voters[month]
    return None


def _relabel(f: DocumentFacts, month: int, confidence: float) -> DocumentFacts:
    period = ReportingPeriod(
        f.period,
        f.period_kind,
        date.fromisoformat(f.period_end),
        f.period_source,
        f.period_confidence,
    ).relabel(FiscalCalendar(month), "filer", confidence)
    return replace(
        f,
        period=period.period,
        fiscal_year_end_month=month,
        calendar_source="filer",
        calendar_confidence=confidence,
    )


def _filer_calendar(docs: list[DocumentFacts]) -> list[DocumentFacts]:
    voted = _vote(docs)
    if voted is None:
        return docs
    month, tier, confidence, voters = voted
    out = []
    for f in docs:
        if f.fiscal_year_end_month == month or not f.period_end or f.period_source == "label":
            out.append(f)
            continue
        own = f"{_MONTHS[f.fiscal_year_end_month - 1]} ({f.calendar_source})"
        filer = f"{_MONTHS[month - 1]} ({tier}, {voters} document{'s' * (voters != 1)})"
        if f.period_kind == "year" and f.calendar_source == "cover":
            # An annual report's own year is its period: a filer that changed its fiscal year.
            out.append(
                replace(
                    f,
                    conflicts=(
                        *f.conflicts,
                        f"fiscal year ends in {own} here, in {filer} for the filer",
                    ),
                )
            )
            continue
        relabelled = _relabel(f, month, confidence)
        note = f"fiscal year end {filer}, not {own}: {f.period} -> {relabelled.period}"
        if f.calendar_source in ("cover", "stated"):
            relabelled = replace(relabelled, flags=(*relabelled.flags, "reconciled: " + note))
        else:
            relabelled = replace(relabelled, flags=(*relabelled.flags, "from the filer: " + note))
        out.append(relabelled)
    return out


def _distinct_periods(docs: list[DocumentFacts]) -> list[DocumentFacts]:
    """Two documents of one form and one filer with one period but different ends: a conflict."""
    by_period: dict[tuple[str, str], list[DocumentFacts]] = defaultdict(list)
    for f in docs:
        if f.period and f.period_end and FORM_KINDS.get(f.form):
            by_period[(f.form, f.period)].append(f)
    clashes: dict[str, list[str]] = defaultdict(list)
    for (_, period), group in by_period.items():
        if len({f.period_end for f in group}) < 2:
            continue  # one period end: the same report twice (an amendment, a copy)
        for f in group:
            others = ", ".join(
                f"{g.path} (ends {g.period_end})" for g in group if g.period_end != f.period_end
            )
            clashes[f.document_sha256].append(f"period {period} also given to {others}")
    return [
        replace(f, conflicts=(*f.conflicts, *clashes[f.document_sha256]))
        if clashes.get(f.document_sha256)
        else f
        for f in docs
    ]


def _fourth_quarter(f: DocumentFacts) -> DocumentFacts:
    if _quarterly(f) and f.period.endswith("-Q4"):
        note = f"a quarterly report labelled {f.period}: its fiscal year end is not known"
        return replace(f, conflicts=(*f.conflicts, note))
    return f


def _low_confidence(f: DocumentFacts) -> DocumentFacts:
    flags = list(f.flags)
    if not f.entity:
        flags.append("no entity")
    elif f.entity_confidence < _LOW_ENTITY:
        flags.append(f"entity from {f.entity_source or 'nothing'} ({f.entity_confidence:.2f})")
    event = FORM_KINDS.get(f.form, "-") == "" and f.form != "earnings-release"
    if not f.period and not event:
        flags.append("no reporting period")
    elif f.period and f.period_confidence < _LOW_PERIOD:
        flags.append(f"period from {f.period_source or 'nothing'} ({f.period_confidence:.2f})")
    if f.period_end and f.period_kind != "year" and f.calendar_source == "default":
        flags.append("fiscal year end stated nowhere: December assumed")
    return replace(f, flags=tuple(flags)) if flags != list(f.flags) else f


def reconcile_filers(facts: Sequence[DocumentFacts]) -> list[DocumentFacts]:
    """Each filer's documents in one fiscal calendar, with conflicts and low-confidence facts
    recorded; documents keep their order."""
    out = list(facts)
    for indices in filer_groups(facts):
        if not any(facts[i].entity or facts[i].filer_ids for i in indices):
            continue  # a document nobody names is no filer's
        docs = _distinct_periods(_filer_calendar([out[i] for i in indices]))
        for i, f in zip(indices, docs, strict=True):
            out[i] = f
    return [_low_confidence(_fourth_quarter(f)) for f in out]

"""Is a question well posed against the whole corpus? The gold must answer it, and every other
page that answers it must agree, or be told apart by a qualifier.

The seed's `is_well_posed`, judged against the item's pool (core/evidence/pools.py: the mined
one-axis negatives, comparatives, every page that prints the answer's figure or the same row for
the same period, near-identical copies, the baselines' top pages), not only the mined few:

1. Where the corpus holds several companies, the question names the gold's first: a real user's
   question says whose figure it wants. (Not counted against `max_rewrites`.)
2. The gold must answer, agreeing with the writer (checked first: a question its own page
   cannot answer would be rejected by every other page too, for the wrong reason).
3. Every pool page is judged. A page that answers with the gold's answer is evidence (another
   sufficient page: the next filing's comparative column, the statement behind an analysis
   table, a re-saved copy), and so is one that prints the gold's figure for the gold's row and
   period under another heading (`Candidate.evidence`). A page that answers otherwise makes the
   question ambiguous, except a later filing of the gold's company, which restates the figure
   (a `revision` distractor).
4. An ambiguous question, or one answered by pages that differ from the gold on an axis it does
   not name yet, gets the gold's values on those axes (entity first, then period and the other
   configured axes) and is judged again; when no axis tells the conflicting pages apart, the
   heading the gold's figure is printed under (its segment, basis or section) is the last
   qualifier. Up to `max_rewrites` rewrites; a rewrite that changes nothing (the question
   already named the value) ends the search.
5. What is still ambiguous leaves the main slice: the `underspecified` slice with every page
   that answers acceptable, or dropped, as configured. An item whose every mined negative turns
   out to answer it has no hard negative left and is dropped.

All calls of a round go to the backend as one batch, so a remote model sees many requests in
flight instead of one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from evalset_pipeline.core.judging.base import Judgment, PageView, Qualifiers, VLMBackend
from evalset_pipeline.core.labels import Underspecified
from evalset_pipeline.core.pagetext.periods import period_order
from evalset_pipeline.core.questions.funnel import (
    DISTRACTOR_CHECK,
    FINAL,
    GOLD_CHECK,
    QUALIFY,
    FunnelRow,
)
from evalset_pipeline.core.reader.answers import answers_agree

DISTRACTOR, POOLED = "distractor", "pooled"
_PRINTS_IT = "prints the gold's figure for the gold's row and period"
ENTITY = "entity"
SECTION = "section"  # the qualifier of last resort: the heading the gold's figure is printed under
QUALIFY_FIRST = ("entity", "period")  # order of qualifiers; other configured axes follow
# The statements' basis (consolidated | separate), a page fact where a filing prints both: named
# after entity and period when a page of the other basis answers otherwise.
BASIS = "basis"


@dataclass(frozen=True)
class PoolPage:
    """One member of an item's pool, as validation sees it."""

    page: PageView
    role: str  # DISTRACTOR (a mined one-axis negative) | POOLED (found by another source)
    axis: str  # the mined axis; "" for a pooled page
    values: dict[str, str]  # the page's axis values, to know where it differs from the gold
    sources: tuple[str, ...] = ()


@dataclass
class Candidate:
    item_id: str
    gold: PageView
    gold_values: dict[str, str]
    question: str
    answer: str
    language: str
    pool: list[PoolPage]
    name_entity: bool = False  # the corpus holds several companies: the question names the gold's
    section: str = ""  # the heading the gold's answer is printed under, "" when none
    # Pages that print the gold's figure for the gold's row and period (core/evidence): the same
    # fact, whatever heading they print it under, so evidence even where the judge reads the
    # question's heading literally.
    evidence: frozenset[str] = frozenset()


@dataclass
class Validated:
    item_id: str
    gold_unit_id: str
    slice: str  # main | underspecified
    question: str
    original_question: str
    answer: str
    language: str
    qualified_axes: list[str] = field(default_factory=list)
    acceptable: list[str] = field(default_factory=list)  # unit ids that answer (gold first)
    revisions: list[str] = field(default_factory=list)  # later filings restating the figure


@dataclass
class _State:
    cand: Candidate
    question: str
    axes: list[str] = field(default_factory=list)  # named: asked for, or already in the question
    added: list[str] = field(default_factory=list)  # named by a rewrite that changed the question
    first_answering: list[PoolPage] = field(default_factory=list)
    rewrites: int = 0
    section: str = ""  # the heading SECTION names (`_distinguishing_section`), once chosen


@dataclass(frozen=True)
class _Reading:
    """What one round's judgments say about an item's pool."""

    agreeing: list[PoolPage]  # answer as the gold does: evidence
    conflicting: list[PoolPage]  # answer otherwise: the question is ambiguous
    revisions: list[PoolPage]  # a later filing of the gold's company, another figure: restated


def validate(
    candidates: Sequence[Candidate],
    backend: VLMBackend,
    axes: Sequence[str],
    max_rewrites: int = 2,
    underspecified: Underspecified = "slice",
) -> tuple[list[Validated], list[FunnelRow]]:
    funnel: list[FunnelRow] = []
    kept: list[Validated] = []
    order = [*QUALIFY_FIRST, BASIS, *(a for a in axes if a not in (*QUALIFY_FIRST, BASIS))]

    def row(st: _State, stage: str, decision: str, reason: str, question: str = "") -> None:
        funnel.append(
            FunnelRow(
                st.cand.item_id,
                st.cand.gold.unit_id,
                stage,
                decision,
                reason,
                question or st.question,
            )
        )

    def final(st: _State, decision: str, reason: str) -> None:
        row(st, FINAL, decision, reason)

    active = [_State(c, c.question) for c in candidates]
    _name_entities(active, backend, row)
    while active:
        passing = _gold_check(active, backend, row, final)
        pairs = [(st.question, p.page) for st in passing for p in st.cand.pool]
        judgments = iter(backend.judge(pairs))
        pending: list[tuple[_State, list[tuple[PoolPage, Judgment]]]] = []
        for st in passing:
            answering = []
            for p in st.cand.pool:
                j = next(judgments)
                if j.answers:
                    answering.append((p, j))
                elif p.page.unit_id in st.cand.evidence:
                    answering.append((p, Judgment(True, st.cand.answer, _PRINTS_IT)))
            if st.rewrites == 0 and not st.first_answering:
                st.first_answering = [p for p, _ in answering]
            reading = _read(st, answering)
            if reading.conflicting:
                row(st, DISTRACTOR_CHECK, "fail", _ambiguity(reading.conflicting))
            else:
                row(st, DISTRACTOR_CHECK, "pass", _evidence_note(reading))
            pending.append((st, answering))
        active = []
        while pending:
            to_qualify: list[
                tuple[_State, list[tuple[PoolPage, Judgment]], list[str], Qualifiers]
            ] = []
            for st, answering in pending:
                reading = _read(st, answering)
                new = _qualifiers_needed(st, reading, order)
                if new and st.rewrites < max_rewrites:
                    to_qualify.append((st, answering, new, _qualifiers(st, [*st.axes, *new])))
                else:
                    _settle(st, reading, underspecified, kept, final)
            # A rewrite that changes nothing means the question already named those values (a
            # table question names its period): the round's judgments stand, and the item is
            # decided again with them named.
            rewritten = backend.qualify([(st.question, q) for st, _, _, q in to_qualify])
            pending = []
            for (st, answering, new, quals), text in zip(to_qualify, rewritten, strict=True):
                st.axes = [*st.axes, *new]
                if str(text).strip() == st.question.strip():
                    pending.append((st, answering))
                    continue
                row(st, QUALIFY, "rewrite", _qualifier_text(quals), str(text))
                st.question = str(text)
                st.added += [a for a in new if a not in st.added]
                st.rewrites += 1
                active.append(st)
    return kept, funnel


def _name_entities(active: Sequence[_State], backend: VLMBackend, row: Callable[..., None]) -> None:
    """Where the corpus holds several companies, every question names the gold's."""
    naming = [st for st in active if st.cand.name_entity and st.cand.gold_values.get(ENTITY)]
    quals = [_qualifiers(st, [ENTITY]) for st in naming]
    rewritten = backend.qualify([(st.question, q) for st, q in zip(naming, quals, strict=True)])
    for st, q, text in zip(naming, quals, rewritten, strict=True):
        st.axes = [ENTITY]
        if str(text).strip() != st.question.strip():
            st.added = [ENTITY]
            row(
                st,
                QUALIFY,
                "rewrite",
                _qualifier_text(q) + " (the corpus holds several companies)",
                str(text),
            )
            st.question = str(text)


def _gold_check(
    active: Sequence[_State],
    backend: VLMBackend,
    row: Callable[..., None],
    final: Callable[[_State, str, str], None],
) -> list[_State]:
    """The gold must answer, and agree with the writer's answer."""
    passing = []
    for st, j in zip(
        active, backend.judge([(st.question, st.cand.gold) for st in active]), strict=True
    ):
        if not j.answers:
            row(st, GOLD_CHECK, "fail", j.reason)
            final(
                st,
                "dropped",
                "gold does not answer its own question"
                + (" after qualification" if st.rewrites else ""),
            )
        elif not answers_agree(j.answer or "", st.cand.answer):
            row(
                st, GOLD_CHECK, "fail", f"gold answers {j.answer!r}, writer said {st.cand.answer!r}"
            )
            final(st, "dropped", "gold answer disagrees with the writer's answer")
        else:
            row(st, GOLD_CHECK, "pass", "")
            passing.append(st)
    return passing


def _read(st: _State, answering: Sequence[tuple[PoolPage, Judgment]]) -> _Reading:
    """Sort the answering pages: alike, otherwise, or (once the question names its period) a
    later filing of the gold's company restating the figure for that period."""
    cand = st.cand
    agreeing, conflicting, revisions = [], [], []
    for page, j in answering:
        if answers_agree(j.answer or "", cand.answer):
            agreeing.append(page)
        elif "period" in st.axes and _later_filing(page, cand):
            revisions.append(page)
        else:
            conflicting.append(page)
    return _Reading(agreeing, conflicting, revisions)


def _differs(page: PoolPage, cand: Candidate, axis: str) -> bool:
    """The page's value on an axis is not the gold's; on the entity axis, a page of the gold's
    filer under another of its names (a renamed registrant) does not differ."""
    if page.values.get(axis, "") == cand.gold_values.get(axis, ""):
        return False
    own, gold = page.page.context, cand.gold.context
    return not (axis == ENTITY and own is not None and gold is not None and own.same_filer(gold))


def _later_filing(page: PoolPage, cand: Candidate) -> bool:
    """A page of the gold's company from a filing for a later period."""
    entity, period = cand.gold_values.get(ENTITY), cand.gold_values.get("period")
    if not entity or not period or _differs(page, cand, ENTITY):
        return False
    later, own = period_order(page.values.get("period", "")), period_order(period)
    return later is not None and own is not None and later > own


def _qualifiers_needed(st: _State, reading: _Reading, order: Sequence[str]) -> list[str]:
    """Axes the question does not name yet on which an answering page differs from the gold (the
    gold having a value there); the gold's section when conflicting pages differ on none."""
    others = [*reading.conflicting, *reading.agreeing]
    gold = st.cand.gold_values
    new = [
        a
        for a in order
        if a not in st.axes and gold.get(a) and any(_differs(p, st.cand, a) for p in others)
    ]
    if new:
        return new
    if reading.conflicting and SECTION not in st.axes:
        st.section = _distinguishing_section(st.cand, reading.conflicting)
        if st.section:
            return [SECTION]
    return []


def _distinguishing_section(cand: Candidate, conflicting: Sequence[PoolPage]) -> str:
    """The heading that tells the gold's figure from the conflicting pages': the section the
    gold's page sits under in its PDF's outline ("Corporate & Investment Bank") when none of
    them sits there -- a segment's table is titled "Selected metrics" like every segment's --
    else the heading the figure is printed under."""
    outlined = cand.gold.context.section if cand.gold.context is not None else ""
    if outlined and all(
        (p.page.context.section if p.page.context is not None else "") != outlined
        for p in conflicting
    ):
        return outlined
    return cand.section


def _qualifiers(st: _State, axes: Sequence[str]) -> Qualifiers:
    """The gold's values on these axes (its section under SECTION), in the question's language."""
    values = {**st.cand.gold_values, SECTION: st.section or st.cand.section}
    return Qualifiers({a: values[a] for a in axes}, st.cand.language)


def _settle(
    st: _State,
    reading: _Reading,
    policy: str,
    kept: list[Validated],
    final: Callable[[_State, str, str], None],
) -> None:
    """No qualifier left to add: keep the item, or let it leave the main slice."""
    c = st.cand
    if reading.conflicting:
        reason = _ambiguity(reading.conflicting)
        if not _differing(c, reading.conflicting):
            reason += "; no axis value tells them apart"
        _leave_main(st, policy, reason, kept, final)
        return
    evidence = {p.page.unit_id for p in reading.agreeing}
    negatives = [p for p in c.pool if p.role == DISTRACTOR and p.page.unit_id not in evidence]
    if not negatives:
        final(st, "dropped", "no hard negative left: every mined negative answers the question")
        return
    final(st, "qualified" if st.added else "kept", "ok")
    kept.append(
        Validated(
            c.item_id,
            c.gold.unit_id,
            "main",
            st.question,
            c.question,
            c.answer,
            c.language,
            list(st.added),
            [c.gold.unit_id, *(p.page.unit_id for p in reading.agreeing)],
            [p.page.unit_id for p in reading.revisions],
        )
    )


def _differing(cand: Candidate, pages: Sequence[PoolPage]) -> list[str]:
    gold = cand.gold_values
    return sorted({a for p in pages for a, v in gold.items() if v and _differs(p, cand, a)})


def _ambiguity(pages: Sequence[PoolPage]) -> str:
    mined = sorted({p.axis for p in pages if p.role == DISTRACTOR})
    found = sorted({s for p in pages if p.role != DISTRACTOR for s in p.sources})
    parts = [f"distractor on axis={','.join(mined)}"] if mined else []
    parts += [f"pool pages found by {','.join(found)}"] if found else []
    return "answerable from " + " and ".join(parts or ["pool pages"])


def _evidence_note(reading: _Reading) -> str:
    parts = []
    if reading.agreeing:
        parts.append(f"{len(reading.agreeing)} other pages answer alike")
    if reading.revisions:
        parts.append(f"{len(reading.revisions)} later filings restate it")
    return "; ".join(parts)


def _qualifier_text(quals: Qualifiers) -> str:
    return "qualifiers: " + ", ".join(f"{a}={v}" for a, v in quals.values.items())


def _leave_main(
    st: _State,
    policy: str,
    reason: str,
    kept: list[Validated],
    final: Callable[[_State, str, str], None],
) -> None:
    if policy == "drop":
        final(st, "dropped", reason)
        return
    # The under-specified slice keeps the question as the writer (a user) phrased it, with every
    # unit that answers it acceptable: scored on whether any acceptable unit was retrieved.
    c = st.cand
    st.question = c.question
    final(st, "underspecified", reason)
    kept.append(
        Validated(
            c.item_id,
            c.gold.unit_id,
            "underspecified",
            c.question,
            c.question,
            c.answer,
            c.language,
            [],
            [c.gold.unit_id] + [p.page.unit_id for p in st.first_answering],
        )
    )

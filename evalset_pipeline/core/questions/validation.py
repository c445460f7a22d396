"""Is a question well posed? The gold must answer it, and no hard distractor may.

This is the seed's `is_well_posed`, strengthened: the gold is checked first (a question its own
page cannot answer would be rejected by every distractor too, for the wrong reason) and its
answer must agree with the writer's. A question a distractor can answer gets the gold's values
on the axes where the answering distractors differ ("… in Q3 2024 for Acme Group?") and is
checked again, up to `max_rewrites` times. What is still ambiguous leaves the main slice: it goes
to the `underspecified` slice with its acceptable set (or is dropped, if so configured).

All calls for a round go to the backend as one batch, so a remote model sees many requests in
flight instead of one at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from evalset_pipeline.core.labels import Underspecified
from evalset_pipeline.core.questions.funnel import (
    DISTRACTOR_CHECK,
    FINAL,
    GOLD_CHECK,
    QUALIFY,
    FunnelRow,
)
from evalset_pipeline.core.vlm.answers import answers_agree
from evalset_pipeline.core.vlm.base import PageView, Qualifiers, VLMBackend


@dataclass(frozen=True)
class Distractor:
    page: PageView
    axis: str
    values: dict[str, str]  # this distractor's axis values, to know where it differs from the gold


@dataclass
class Candidate:
    item_id: str
    gold: PageView
    gold_values: dict[str, str]
    question: str
    answer: str
    language: str
    distractors: list[Distractor]


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


@dataclass
class _State:
    cand: Candidate
    question: str
    axes: list[str] = field(default_factory=list)
    first_answering: list[Distractor] = field(default_factory=list)
    rewrites: int = 0
    done: bool = False


def validate(
    candidates: Sequence[Candidate],
    backend: VLMBackend,
    axes: Sequence[str],
    max_rewrites: int = 2,
    underspecified: Underspecified = "slice",
) -> tuple[list[Validated], list[FunnelRow]]:
    funnel: list[FunnelRow] = []
    kept: list[Validated] = []
    active = [_State(c, c.question) for c in candidates]

    def final(st: _State, decision: str, reason: str) -> None:
        st.done = True
        funnel.append(
            FunnelRow(st.cand.item_id, st.cand.gold.unit_id, FINAL, decision, reason, st.question)
        )

    while active:
        # 1. The gold must answer, and agree with the writer's answer.
        gold_j = backend.judge([(st.question, st.cand.gold) for st in active])
        passing = []
        for st, j in zip(active, gold_j, strict=False):
            if not j.answers:
                funnel.append(
                    FunnelRow(
                        st.cand.item_id,
                        st.cand.gold.unit_id,
                        GOLD_CHECK,
                        "fail",
                        j.reason,
                        st.question,
                    )
                )
                final(
                    st,
                    "dropped",
                    "gold does not answer its own question"
                    + ("" if not st.rewrites else " after qualification"),
                )
            elif not answers_agree(j.answer or "", st.cand.answer):
                reason = f"gold answers {j.answer!r}, writer said {st.cand.answer!r}"
                funnel.append(
                    FunnelRow(
                        st.cand.item_id,
                        st.cand.gold.unit_id,
                        GOLD_CHECK,
                        "fail",
                        reason,
                        st.question,
                    )
                )
                final(st, "dropped", "gold answer disagrees with the writer's answer")
            else:
                funnel.append(
                    FunnelRow(
                        st.cand.item_id, st.cand.gold.unit_id, GOLD_CHECK, "pass", "", st.question
                    )
                )
                passing.append(st)

        # 2. No distractor may answer.
        pairs = [(st.question, d.page) for st in passing for d in st.cand.distractors]
        judgments = iter(backend.judge(pairs))
        to_qualify: list[tuple[_State, Qualifiers]] = []
        for st in passing:
            answering = [d for d in st.cand.distractors if next(judgments).answers]
            if st.rewrites == 0:
                st.first_answering = answering
            if not answering:
                funnel.append(
                    FunnelRow(
                        st.cand.item_id,
                        st.cand.gold.unit_id,
                        DISTRACTOR_CHECK,
                        "pass",
                        "",
                        st.question,
                    )
                )
                final(st, "qualified" if st.axes else "kept", "ok")
                kept.append(
                    Validated(
                        st.cand.item_id,
                        st.cand.gold.unit_id,
                        "main",
                        st.question,
                        st.cand.question,
                        st.cand.answer,
                        st.cand.language,
                        list(st.axes),
                        [st.cand.gold.unit_id],
                    )
                )
                continue
            answering_axes = sorted({d.axis for d in answering})
            reason = f"answerable from distractor on axis={','.join(answering_axes)}"
            funnel.append(
                FunnelRow(
                    st.cand.item_id,
                    st.cand.gold.unit_id,
                    DISTRACTOR_CHECK,
                    "fail",
                    reason,
                    st.question,
                )
            )
            new_axes = _differing_axes(st.cand.gold_values, answering, axes)
            if st.rewrites >= max_rewrites or not (set(new_axes) - set(st.axes)):
                why = reason if new_axes else f"{reason}; no axis value tells them apart"
                _leave_main(st, underspecified, why, kept, final)
                continue
            st.axes = sorted(set(st.axes) | set(new_axes), key=list(axes).index)
            quals = Qualifiers({a: st.cand.gold_values[a] for a in st.axes}, st.cand.language)
            to_qualify.append((st, quals))

        # 3. Rewrite with qualifiers and go round again.
        rewritten = backend.qualify([(st.cand.question, q) for st, q in to_qualify])
        for (st, quals), text in zip(to_qualify, rewritten, strict=False):
            funnel.append(
                FunnelRow(
                    st.cand.item_id,
                    st.cand.gold.unit_id,
                    QUALIFY,
                    "rewrite",
                    "qualifiers: " + ", ".join(f"{a}={v}" for a, v in quals.values.items()),
                    text,
                )
            )
            st.question = text
            st.rewrites += 1
        active = [st for st, _ in to_qualify]
    return kept, funnel


def _differing_axes(
    gold: dict[str, str], answering: Sequence[Distractor], axes: Sequence[str]
) -> list[str]:
    """Configured axes on which some answering distractor differs from the gold and the gold has a value."""
    out = []
    for a in axes:
        if gold.get(a) and any(d.values.get(a, "") != gold[a] for d in answering):
            out.append(a)
    return out


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
            [c.gold.unit_id] + [d.page.unit_id for d in st.first_answering],
        )
    )

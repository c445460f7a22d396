"""`candidate_labels`: sufficient / supporting / irrelevant for the gold and every page of each
kept question's pool (core/evidence/pools.py), by the one rule of core/questions/labels.py.

Roles: `gold`; `distractor` for a mined one-axis negative that validation did not find answering
(and for a later filing that restates the figure, axis `revision`); `pooled` for every other pool
page, its axis naming the sources that found it ("comparative", "figure,same_row", "bm25").
"""

from __future__ import annotations

import functools
from collections import Counter
from dataclasses import asdict, replace

import pyarrow as pa

from evalset_pipeline.core.backends.factory import backend_identity
from evalset_pipeline.core.evidence.figures import answer_figure
from evalset_pipeline.core.evidence.index import EvidenceIndex
from evalset_pipeline.core.evidence.pools import ANSWER, MINED, PoolMember, answer_cells
from evalset_pipeline.core.golden.schema import GOLDEN_JUDGMENTS
from evalset_pipeline.core.judging.base import PageView
from evalset_pipeline.core.pagetext.layer import text_layer_or_empty
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.evidence_index import load_evidence_index
from evalset_pipeline.core.pipeline.hard_negatives import load_hard_negatives
from evalset_pipeline.core.pipeline.item_pools import load_item_pools
from evalset_pipeline.core.pipeline.lineage import record_producer
from evalset_pipeline.core.pipeline.model_calls import stage_backend
from evalset_pipeline.core.pipeline.page_metadata import (
    load_document_contexts,
    load_page_facts,
    load_page_profiles,
)
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.pages import page_view
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.pipeline.validated_questions import load_validated_questions
from evalset_pipeline.core.questions.labels import (
    COINCIDENCE,
    REVISION,
    CandidateLabel,
    CandidateUnit,
    as_same_table,
    asked_cells,
    by_evidence,
    label_candidates,
)
from evalset_pipeline.core.questions.validation import Validated
from evalset_pipeline.core.tables import read_rows, write_rows

# golden_judgments before publishing: no version yet, every label the model's.
SCHEMA = pa.schema([f for f in GOLDEN_JUDGMENTS if f.name not in ("version_id", "label_source")])


def pooled_axis(member: PoolMember) -> str:
    """A pooled page's axis: the sources that found it ("mined:period" for a mined negative that
    turned out to answer)."""
    return ",".join(
        f"{MINED}:{member.axis}" if s == MINED and member.axis else s for s in member.sources
    )


def _as_evidence(lab: CandidateLabel) -> CandidateLabel:
    """A metric distractor is another table of the gold's filing and period (issue 26,
    negatives/table_twins.py); one found to state the answer repeats the gold's fact there, so it
    is evidence (pooled, axis `mined:metric`), not a look-alike that answers. A period or entity
    distractor that answers still fails the gate: the question does not name its axis."""
    if lab.role == "distractor" and lab.axis == "metric" and lab.label == "sufficient":
        return replace(lab, role="pooled", axis=f"{MINED}:{lab.axis}")
    return lab


def role_of(member: PoolMember, item: Validated) -> tuple[str, str]:
    """(role, axis) of a pool page in its item's judgments."""
    if member.unit_id in item.revisions:
        return "distractor", REVISION
    evidence = set(item.acceptable[1:]) if item.slice == "main" else set()
    if MINED in member.sources and member.unit_id not in evidence:
        return "distractor", member.axis
    return "pooled", pooled_axis(member)


def build_candidate_labels(ctx: StageContext) -> StageResult:
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    root = ctx.paths.root
    contexts = load_document_contexts(ctx)
    page_facts = load_page_facts(ctx)
    validated = load_validated_questions(ctx)
    pools = load_item_pools(ctx)
    negatives = load_hard_negatives(ctx)
    index = load_evidence_index(ctx)

    def view(unit: str) -> PageView:
        return page_view(renders[unit], root, contexts, page_facts)

    questions, candidates, sources = {}, [], {}
    for v in validated:
        questions[v.item_id] = (v.question, v.answer)
        candidates.append(CandidateUnit(v.item_id, view(v.gold_unit_id), "gold", ""))
        # A regression item (a user's record, no pool of its own) is judged against the gold
        # page's mined negatives.
        members = pools.get(v.item_id) or [
            PoolMember(n.negative_unit_id, (MINED,), n.axis)
            for n in negatives.get(v.gold_unit_id, [])
        ]
        for m in members:
            if m.unit_id in renders:
                role, axis = role_of(m, v)
                candidates.append(CandidateUnit(v.item_id, view(m.unit_id), role, axis))
                sources[(v.item_id, m.unit_id)] = m.sources
    with stage_backend(ctx, "candidate_labels") as backend:
        labels = label_candidates(questions, candidates, backend)
        stats = backend.stats
    statement = {u: p.statement for u, p in load_page_profiles(ctx).items()}
    gold = {c.item_id: c.page for c in candidates if c.role == "gold"}
    gold_cells = {
        item: asked_cells(questions[item][0], answer_cells(index, page.unit_id, questions[item][1]))
        for item, page in gold.items()
    }
    cells_of = functools.lru_cache(maxsize=4096)(index.cells_of)  # a page is in many pools
    relabelled = []
    for lab, c in zip(labels, candidates, strict=True):
        gold_page = gold[c.item_id]
        lab = as_same_table(
            lab,
            statement.get(c.page.unit_id, ""),
            statement.get(gold_page.unit_id, ""),
            c.page.context,
            gold_page.context,
        )
        if lab.label != "sufficient" and lab.role != "gold":
            lab = by_evidence(
                lab,
                questions[c.item_id][0],
                sources.get((c.item_id, c.page.unit_id), ()),
                cells_of(c.page.unit_id),
                gold_cells[c.item_id],
                c.page.context,
                gold_page.context,
                functools.partial(_text_of, c.page),
            )
        relabelled.append(_as_evidence(_noting_coincidence(lab, questions, sources, index)))
    labels = relabelled
    write_rows(ctx.paths.table("candidate_labels"), (asdict(lab) for lab in labels), SCHEMA)
    record_producer(
        ctx, "candidate_labels", backend_identity(backend.backend)
    )  # provenance = what wrote these rows
    return StageResult(
        {
            "labels": len(labels),
            "by_role_and_label": dict(
                sorted(Counter(f"{lab.role}:{lab.label}" for lab in labels).items())
            ),
            **pooling_report(validated, labels, sources),
            "model_calls": sum(stats.calls.values()),
            "cache_hits": sum(stats.cache_hits.values()),
        },
        tables=("candidate_labels",),
    )


def _text_of(page: PageView) -> str:
    return str(text_layer_or_empty(page.text_path).get("text") or "")


def _noting_coincidence(
    lab: CandidateLabel,
    questions: dict[str, tuple[str, str]],
    sources: dict[tuple[str, str], tuple[str, ...]],
    index: EvidenceIndex,
) -> CandidateLabel:
    """A page found because it prints the answer's figure, not for the gold's row, and judged
    irrelevant, prints it for something else: say so, and where."""
    found_by = sources.get((lab.item_id, lab.unit_id), ())
    if lab.label != "irrelevant" or "figure" not in found_by or ANSWER in found_by:
        return lab
    figure = answer_figure(questions[lab.item_id][1])
    if figure is None:
        return lab
    cells = index.matching_cells(lab.unit_id, figure)
    where = f"prints it as {cells[0].where()}" if cells else "prints its digits in the text"
    return replace(lab, rationale=f"{COINCIDENCE}{where}. {lab.rationale}")


def pooling_report(
    validated: list[Validated],
    labels: list[CandidateLabel],
    sources: dict[tuple[str, str], tuple[str, ...]],
) -> dict:
    """Per set: pool sizes, items with two or more sufficient pages, and each source's yield
    (sufficient pages it found, and those no other source found)."""
    main = {v.item_id for v in validated if v.slice == "main"}
    sufficient = Counter(
        lab.item_id for lab in labels if lab.label == "sufficient" and lab.item_id in main
    )
    found: Counter[str] = Counter()
    alone: Counter[str] = Counter()
    coincidences = 0
    for lab in labels:
        srcs = sources.get((lab.item_id, lab.unit_id), ())
        if lab.role == "gold" or not srcs:
            continue
        coincidences += lab.rationale.startswith(COINCIDENCE)
        if lab.label == "sufficient":
            found.update(srcs)
            if len(srcs) == 1:
                alone[srcs[0]] += 1
    pooled = Counter(lab.item_id for lab in labels if lab.role != "gold")
    return {
        "pool_pages_judged": sum(pooled.values()),
        "main_items_with_2plus_sufficient": sum(1 for i in main if sufficient[i] >= 2),
        "main_items_with_2plus_sufficient_share": round(
            sum(1 for i in main if sufficient[i] >= 2) / len(main), 4
        )
        if main
        else 0.0,
        "sufficient_by_source": dict(sorted(found.items())),
        "sufficient_only_by_source": dict(sorted(alone.items())),
        "coincidences": coincidences,
        "revisions": sum(1 for lab in labels if lab.axis == REVISION),
    }


def load_candidate_labels(ctx: StageContext) -> list[CandidateLabel]:
    return [
        CandidateLabel(**r)
        for r in read_rows(ctx.paths.table("candidate_labels"), producer="candidate_labels")
    ]

"""`item_pools`: for every written question, every page of the corpus that might answer it
(core/evidence/pools.py), with the sources that found it, before anything is judged."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

import numpy as np
import pyarrow as pa

from evalset_pipeline.core.evidence.completeness import asked_period_cells
from evalset_pipeline.core.evidence.pools import (
    ANSWER,
    MINED,
    PoolBuilder,
    PoolMember,
    TwinFinder,
    answer_cells,
    evidence_sources,
)
from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.pipeline.candidate_questions import load_candidate_questions
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.evidence_index import load_evidence_index
from evalset_pipeline.core.pipeline.hard_negatives import load_comparatives, load_hard_negatives
from evalset_pipeline.core.pipeline.page_metadata import load_page_metadata
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.pipeline.template_groups import load_template_groups
from evalset_pipeline.core.questions.siblings import evidence_siblings
from evalset_pipeline.core.scoring.baselines import (
    BaselineUnavailable,
    load_corpus_index,
    make_retriever,
    search,
)
from evalset_pipeline.core.tables import read_rows, write_rows

SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("gold_unit_id", pa.string()),
        ("unit_id", pa.string()),
        ("axis", pa.string()),  # the axis a mined negative differs on; "" otherwise
        ("sources", pa.list_(pa.string())),
    ]
)
RETRIEVERS = ("bm25", "appearance")  # baselines whose top pages join every pool
EMPTY_TEXT = sha256_text("")


def build_item_pools(ctx: StageContext) -> StageResult:
    questions = [r for r in load_candidate_questions(ctx) if r["written"]]
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    meta = load_page_metadata(ctx)
    axes = list(ctx.config.axes)
    negatives, comparatives = load_hard_negatives(ctx), load_comparatives(ctx)
    templates = {u: t for u, (t, _) in load_template_groups(ctx).items()}
    golds = [q["gold_unit_id"] for q in questions]
    siblings = evidence_siblings(
        golds, {u: {a: m.get(a) for a in axes} for u, m in meta.items()}, templates, axes
    )
    index = load_evidence_index(ctx)
    twins = TwinFinder(
        {u: r.text_hash for u, r in renders.items()},
        {u: r.render_hash for u, r in renders.items()},
        index,
        EMPTY_TEXT,
    )
    same_subject: dict[tuple[str, str], list[str]] = defaultdict(list)
    for u, m in meta.items():
        if m.get("metric") and m.get("period"):
            same_subject[(m.get("metric"), m.get("period"))].append(u)
    retrieved, unavailable = _retrieved(ctx, questions)

    rows: list[dict[str, Any]] = []
    sizes: list[int] = []
    found: Counter[str] = Counter()
    only: Counter[str] = Counter()
    truncated: Counter[str] = Counter()
    for q in questions:
        gold, item = q["gold_unit_id"], q["item_id"]
        pool = PoolBuilder(gold)
        for n in negatives.get(gold, []):
            pool.add(MINED, [n.negative_unit_id], n.axis)
        pool.add("comparative", [c.comparative_unit_id for c in comparatives.get(gold, [])])
        pool.add("sibling", siblings.get(gold, []))
        pool.add("twin", twins(gold))
        cells = asked_period_cells(q["question"], answer_cells(index, gold, q["answer"]))
        answering, found_by = evidence_sources(index, gold, q["answer"], cells)
        pool.add(ANSWER, answering, capped=False)  # every page that states the same fact, always
        for source, units in found_by.items():
            pool.add(source, units)
        if not cells:  # no table cell holds the answer: the metadata says what else is about it
            page = meta.get(gold)
            if page is not None:
                about = (page.get("metric"), page.get("period"))
                pool.add("same_subject", same_subject.get(about, []))
        for source, by_item in retrieved.items():
            pool.add(source, by_item.get(item, []))
        members = pool.members()
        rows += [_row(item, gold, m) for m in members]
        sizes.append(len(members))
        for member in members:
            found.update(member.sources)
            if len(member.sources) == 1:
                only[member.sources[0]] += 1
        truncated.update(pool.truncated)
    write_rows(ctx.paths.table("item_pools"), rows, SCHEMA)
    a = np.asarray(sizes or [0])
    return StageResult(
        {
            "items": len(questions),
            "pooled_pages": len(rows),
            "pool_size": {
                "min": int(a.min()),
                "median": float(np.median(a)),
                "mean": round(float(a.mean()), 2),
                "max": int(a.max()),
            },
            # members each source found, and those no other source found (its own yield)
            "by_source": dict(sorted(found.items())),
            "only_by_source": dict(sorted(only.items())),
            "truncated_by_source": dict(sorted(truncated.items())),
            "retriever_depth": ctx.config.pool_depth,
            "retrievers_unavailable": unavailable,
        },
        tables=("item_pools",),
    )


def _row(item: str, gold: str, m: PoolMember) -> dict[str, Any]:
    return {
        "item_id": item,
        "gold_unit_id": gold,
        "unit_id": m.unit_id,
        "axis": m.axis,
        "sources": list(m.sources),
    }


def _retrieved(
    ctx: StageContext, questions: list[dict]
) -> tuple[dict[str, dict[str, list[str]]], dict[str, str]]:
    """Each available baseline's top `pool_depth` pages per question; why the others are not."""
    out: dict[str, dict[str, list[str]]] = {}
    unavailable: dict[str, str] = {}
    depth = ctx.config.pool_depth
    if depth < 1 or not questions:
        return out, unavailable
    corpus = load_corpus_index(ctx.paths)
    ids = [q["item_id"] for q in questions]
    texts = [q["question"] for q in questions]
    units = corpus.unit_ids
    for kind in RETRIEVERS:
        try:
            retriever = make_retriever(kind, ctx.paths, corpus)
        except BaselineUnavailable as exc:
            unavailable[kind] = str(exc).split(". ")[0]
            continue
        _, top = search(retriever.page_vectors, retriever.encode(ids, texts), depth)
        out[kind] = {item: [units[r] for r in top[i] if r >= 0] for i, item in enumerate(ids)}
    return out, unavailable


def load_item_pools(ctx: StageContext) -> dict[str, list[PoolMember]]:
    """item id -> its pool, in the order the sources found it."""
    out: dict[str, list[PoolMember]] = defaultdict(list)
    for r in read_rows(ctx.paths.table("item_pools"), producer="item_pools"):
        out[r["item_id"]].append(PoolMember(r["unit_id"], tuple(r["sources"]), r["axis"]))
    return out

"""Harden imported items: judge each gold page and its one-axis siblings, classify, publish a golden version.

The siblings are the ones the build mined (`hard_negatives`: same template, one axis different,
nearest by appearance), and the pages that print the gold's period (`comparative_pages`), exactly
as for written questions. Every candidate is labelled by the configured judge with the item's
reference answer: the VLM (`openai`) or, offline, the answer-evidence judge
(core/reader/answer_evidence.py). The benchmark's questions are its own words, so none is
rewritten. Each item is classified instead:

  kept                 the judge finds no sibling that states the answer         -> slice main
  sibling_answers      a one-axis sibling states it too (axes recorded)          -> slice underspecified,
                       every answering page acceptable (sufficient)
  gold_not_sufficient  no sibling answers, and the judge does not find the human  -> slice main, the human
                       gold page sufficient (computed answers, judge misses)        label kept, flagged

The human's gold pages stay `sufficient` with `label_source = human` (the benchmark's own label;
the judge's verdict is in the rationale and the provenance). The version's provenance holds the
source, its file hash, the import issues (the first 500 and their count), and per item its
original id, status and verdicts (every item up to 20,000, past that a fixed sample by item id).
Items stream: resolved, judged and staged on disk a batch at a time (`staging.py`).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pyarrow as pa

from evalset_pipeline.core.golden import schema
from evalset_pipeline.core.golden.model import PublishResult
from evalset_pipeline.core.hashing import fingerprint
from evalset_pipeline.core.imports.records import ResolvedItem, SourceSet
from evalset_pipeline.core.imports.resolve import Resolution
from evalset_pipeline.core.judging.base import LabelResult, PageView
from evalset_pipeline.core.pagetext.layer import load_text_layer
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.reader.answer_evidence import answer_printed
from evalset_pipeline.core.review.regression import detect_language

KEPT, SIBLING, GOLD_NOT_SUFFICIENT = "kept", "sibling_answers", "gold_not_sufficient"
STATUSES = (KEPT, SIBLING, GOLD_NOT_SUFFICIENT)
COMPARATIVE = "comparative"
Labeller = Callable[[Sequence[tuple[str, str, PageView]]], list[LabelResult]]


@dataclass(frozen=True)
class Candidate:
    item_id: str
    unit_id: str
    role: str  # gold | distractor | pooled
    axis: str


@dataclass
class Classified:
    item: ResolvedItem
    status: str
    slice: str
    gold: dict[str, LabelResult]
    answering: dict[str, str]  # unit -> axis of the siblings that state the answer
    axes_checked: list[str]
    printed: bool | None  # the answer is on a gold page at all (the judge-independent reference)
    labels: dict[str, tuple[Candidate, LabelResult]] = field(default_factory=dict)


@dataclass(frozen=True)
class WorkingCorpus:
    """What the build left in the data directory that hardening reads."""

    renders: dict[str, Any]  # unit -> PageRender
    views: dict[str, PageView]  # unit -> what a judge sees (with its document's facts)
    negatives: dict[str, list[Any]]  # gold unit -> [Negative]
    comparatives: dict[str, list[Any]]  # gold unit -> [Comparative]
    units: dict[str, dict[str, Any]]  # unit -> golden_units row (without version_id)
    manifest: Any  # CorpusManifest
    axes: list[str]
    knobs: dict[str, Any]


def load_working_corpus(paths: DataPaths) -> WorkingCorpus:
    from evalset_pipeline.core.golden.units import unit_row
    from evalset_pipeline.core.pipeline.context import BuildConfig, StageContext
    from evalset_pipeline.core.pipeline.documents import load_manifest
    from evalset_pipeline.core.pipeline.hard_negatives import load_comparatives, load_hard_negatives
    from evalset_pipeline.core.pipeline.lineage import LineageMismatch, load_producer
    from evalset_pipeline.core.pipeline.page_metadata import (
        load_document_contexts,
        load_page_metadata,
    )
    from evalset_pipeline.core.pipeline.page_renders import load_page_renders
    from evalset_pipeline.core.pipeline.pages import page_view
    from evalset_pipeline.core.pipeline.template_groups import load_template_groups

    ctx = StageContext(paths, BuildConfig())
    missing = [
        t
        for t in ("page_renders", "page_metadata", "template_groups", "hard_negatives")
        if not paths.table(t).exists()
    ]
    if missing:
        raise FileNotFoundError(
            f"{paths.root} holds no build of the corpus ({', '.join(missing)} missing): run "
            f"`evalset build --corpus DIR --data-dir {paths.root}` first"
        )
    renders = {p.unit_id: p for p in load_page_renders(ctx)}
    contexts = load_document_contexts(ctx)
    meta = load_page_metadata(ctx)
    templates = {u: t for u, (t, _) in load_template_groups(ctx).items()}
    # The template the negatives were mined with: metadata where given, else the cluster (as golden_set).
    units = {
        u: unit_row(
            u,
            r,
            {
                **(meta[u].values if u in meta else {}),
                "template_id": templates.get(u)
                or (meta[u].get("template_id") if u in meta else ""),
            },
        )
        for u, r in renders.items()
    }
    try:
        knobs = load_producer(ctx, "candidate_labels").knobs
    except LineageMismatch:
        knobs = {}
    return WorkingCorpus(
        renders,
        {u: page_view(r, paths.root, contexts) for u, r in renders.items()},
        load_hard_negatives(ctx),
        load_comparatives(ctx),
        units,
        load_manifest(ctx),
        list(knobs.get("axes") or BuildConfig().axes),
        knobs,
    )


def candidates(item: ResolvedItem, corpus: WorkingCorpus) -> list[Candidate]:
    """The gold pages, then each gold page's mined siblings (distractors) and comparatives (pooled)."""
    out = [Candidate(item.item_id, u, "gold", "") for u in item.gold_units]
    seen = set(item.gold_units)
    for g in item.gold_units:
        for n in corpus.negatives.get(g, []):
            if n.negative_unit_id not in seen:
                seen.add(n.negative_unit_id)
                out.append(Candidate(item.item_id, n.negative_unit_id, "distractor", n.axis))
        for c in corpus.comparatives.get(g, []):
            if c.comparative_unit_id not in seen:
                seen.add(c.comparative_unit_id)
                out.append(Candidate(item.item_id, c.comparative_unit_id, "pooled", COMPARATIVE))
    return out


def _printed(item: ResolvedItem, corpus: WorkingCorpus) -> bool | None:
    """Is the answer on a gold page at all (figures anywhere on it, or its words)? The reference the
    judge is validated against; it ignores row, subject and period, which the judge checks."""
    verdicts = [
        answer_printed(
            item.item.question, item.item.answer, load_text_layer(str(corpus.views[u].text_path))
        )
        for u in item.gold_units
    ]
    if any(v is True for v in verdicts):
        return True
    return None if all(v is None for v in verdicts) else False


# Candidate pages judged per call of the labeller: small enough that progress moves every few
# seconds offline, large enough to keep a VLM backend's requests in flight.
JUDGE_CHUNK = 512
Progress = Callable[[int, int], None]  # (pages judged so far, pages to judge)


def _judge_all(
    requests: list[tuple[str, str, PageView]], labeller: Labeller, progress: Progress | None
) -> list[LabelResult]:
    """Every request judged, in order, a chunk at a time so a long import can say how far it is."""
    out: list[LabelResult] = []
    for start in range(0, len(requests), JUDGE_CHUNK):
        out += labeller(requests[start : start + JUDGE_CHUNK])
        if progress is not None:
            progress(len(out), len(requests))
    return out


def classify(
    items: Sequence[ResolvedItem],
    corpus: WorkingCorpus,
    labeller: Labeller,
    progress: Progress | None = None,
) -> list[Classified]:
    pool = [(it, c) for it in items for c in candidates(it, corpus)]
    results = _judge_all(
        [(it.item.question, it.item.answer, corpus.views[c.unit_id]) for it, c in pool],
        labeller,
        progress,
    )
    by_item: dict[str, dict[str, tuple[Candidate, LabelResult]]] = {}
    for (it, c), r in zip(pool, results, strict=False):
        by_item.setdefault(it.item_id, {})[c.unit_id] = (c, r)
    out = []
    for it in items:
        labels = by_item.get(it.item_id, {})
        gold = {u: r for u, (c, r) in labels.items() if c.role == "gold"}
        answering = {
            u: c.axis
            for u, (c, r) in labels.items()
            if c.role == "distractor" and r.label == "sufficient"
        }
        axes = sorted({c.axis for c, _ in labels.values() if c.role == "distractor"})
        if answering:
            status, slice_ = SIBLING, "underspecified"
        elif not any(r.label == "sufficient" for r in gold.values()):
            status, slice_ = GOLD_NOT_SUFFICIENT, "main"
        else:
            status, slice_ = KEPT, "main"
        out.append(
            Classified(it, status, slice_, gold, answering, axes, _printed(it, corpus), labels)
        )
    return out


def _without_version(s: pa.Schema) -> pa.Schema:
    return pa.schema([f for f in s if f.name != "version_id"])


def _rows_of(
    source: SourceSet, classified: Sequence[Classified]
) -> tuple[list[dict[str, Any]], list[dict[str, Any]], dict[str, dict[str, Any]]]:
    """(golden_items rows, golden_judgments rows, provenance per item) of judged items."""
    items, judgments = [], []
    per_item: dict[str, Any] = {}
    for c in classified:
        it = c.item
        items.append(
            {
                "item_id": it.item_id,
                "slice": c.slice,
                "question": it.item.question,
                "answer": it.item.answer,
                "gold_unit_id": it.gold_units[0],
                "original_question": it.item.question,
                "language": detect_language(it.item.question),
                "qualified_axes": "",
            }
        )
        for unit, (cand, r) in c.labels.items():
            if cand.role == "gold":
                judgments.append(
                    {
                        "item_id": it.item_id,
                        "unit_id": unit,
                        "role": "gold",
                        "axis": "",
                        "label": "sufficient",
                        "label_source": "human",
                        "rationale": f"evidence page named by {source.source} ({it.item.original_id}); "
                        f"judge: {r.label}: {r.rationale}",
                    }
                )
            else:
                judgments.append(
                    {
                        "item_id": it.item_id,
                        "unit_id": unit,
                        "role": cand.role,
                        "axis": cand.axis,
                        "label": r.label,
                        "label_source": "model",
                        "rationale": r.rationale,
                    }
                )
        per_item[it.item_id] = {
            "original_id": it.item.original_id,
            "status": c.status,
            "printed": c.printed,
            "gold": {u: r.label for u, r in c.gold.items()},
            "answering": c.answering,
            "axes_checked": c.axes_checked,
            "where": f"{it.item.file}:{it.item.line}",
            "extra": it.item.extra,
        }
    return items, judgments, per_item


# Items whose per-item record (status, verdicts, axes) the version's provenance holds in full;
# past this a fixed sample by item id (the report's shares carry confidence intervals), so the
# manifest of a million-row import stays a few MB instead of hundreds.
PROVENANCE_ITEMS = 20_000


def _in_provenance(item_id: str, total: int) -> bool:
    """The same items whatever the batch order: a share of the id space ("x-" + hex)."""
    if total <= PROVENANCE_ITEMS:
        return True
    return int(item_id[2:10], 16) < PROVENANCE_ITEMS / total * 16**8


# Rows judged and staged per batch: a few seconds of work offline, a few MB held.
BATCH_ROWS = 4_096


def _batches(items: Iterator[ResolvedItem], size: int) -> Iterator[list[ResolvedItem]]:
    batch: list[ResolvedItem] = []
    for item in items:
        batch.append(item)
        if len(batch) == size:
            yield batch
            batch = []
    if batch:
        yield batch


def harden(
    paths: DataPaths,
    source: SourceSet,
    labeller: Labeller,
    judge_identity: dict[str, Any],
    corpus: WorkingCorpus | None = None,
    *,
    as_latest: bool = False,
    progress: Progress | None = None,
) -> tuple[PublishResult, dict[str, Any], Resolution]:
    """Resolve, judge, classify and publish; refuses (ValueError) when no item resolves.
    Returns (the publish, the version's provenance, the resolution).

    Streams: items are resolved, judged and staged on disk a batch at a time (`staging.py`), so
    memory does not grow with the rows; `progress(items judged, items to judge)` after each batch.
    The version is published without moving "latest" unless `as_latest`: downstream jobs that read
    `load_golden_set("latest")` keep getting the last build's set (issue 30)."""
    from evalset_pipeline.core.golden.publish import publish_prepared
    from evalset_pipeline.core.golden.validate import normalise_table
    from evalset_pipeline.core.imports.resolve import Tally, iter_resolved
    from evalset_pipeline.core.imports.staging import staging
    from evalset_pipeline.core.review.regression import corpus_index

    corpus = corpus or load_working_corpus(paths)
    index = corpus_index(paths)
    # Rows the reader parsed: what progress counts against and what the provenance sample is a
    # share of (the items that resolve are only known once streamed).
    total = len(source.items)
    tally = Tally()
    statuses: Counter[str] = Counter()
    per_item: dict[str, Any] = {}
    used: set[str] = set()
    with staging(paths) as staged:
        # a tenth of the rows at most, so even a small import's progress moves
        size = max(64, min(BATCH_ROWS, total // 10))
        for batch in _batches(iter_resolved(source, index, corpus.renders, tally), size):
            classified = classify(batch, corpus, labeller)
            items, judgments, records = _rows_of(source, classified)
            staged.add("golden_items", items)
            staged.add("golden_judgments", judgments)
            used.update(j["unit_id"] for j in judgments)
            statuses.update(c.status for c in classified)
            per_item.update((k, v) for k, v in records.items() if _in_provenance(k, total))
            if progress is not None:
                progress(tally.seen, total)
        resolution = tally.resolution(source)
        if not resolution.count:  # nothing was judged nor staged: the staging area just goes
            shown = "\n  ".join(str(i) for i in resolution.issues[:10])
            raise ValueError(
                f"nothing to import from {source.path}: no item has a gold page in this corpus"
                + (f"\n  {shown}" if shown else "")
            )
        if progress is not None:
            progress(total, total)
        imported = sum(statuses.values())
        provenance = {
            "kind": "import",
            "source": source.source,
            "format": source.format,
            "path": source.path,
            "input_sha256": source.file_sha256,
            "judge": judge_identity,
            "axes": corpus.axes,
            "rows": source.rows,
            "items_read": len(source.items),
            "imported": imported,
            "gold_refs": resolution.refs,
            "gold_refs_resolved": resolution.refs_resolved,
            "issue_count": len(resolution.issues),
            "issues": [str(i) for i in resolution.issues[:500]],
            "statuses": {s: statuses.get(s, 0) for s in STATUSES},
            # every item's record, or a sample by item id past PROVENANCE_ITEMS (the report says so)
            "items_in_provenance": "all" if len(per_item) == imported else "sample",
            "items": per_item,
        }
        units = pa.Table.from_pylist(
            [corpus.units[u] for u in sorted(used)], schema=_without_version(schema.GOLDEN_UNITS)
        )
        config = fingerprint(
            {
                "import": {
                    "source": source.source,
                    "format": source.format,
                    "sha256": source.file_sha256,
                },
                "judge": judge_identity,
                "knobs": corpus.knobs,
            }
        )
        funnel = {
            "imported": imported,
            **{s: statuses.get(s, 0) for s in STATUSES},
            "issues": len(resolution.issues),
        }
        version = staged.prepare(
            corpus.manifest, config, normalise_table("golden_units", units), funnel, provenance
        )
        result = publish_prepared(paths, version, make_latest=as_latest)
    return result, provenance, resolution

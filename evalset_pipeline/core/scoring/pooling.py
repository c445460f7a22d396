"""Pooling: judge what the runs retrieved that nobody judged yet, and publish it as a new version.

Label the union of several systems' top k once, and every later experiment reuses the labels
(seed, "The cost of labelling"): `pool add RUN [RUN ...]` takes each run's top `depth` distinct
units per golden item, drops the (item, unit) pairs the version already judges, sends the rest
through the judge's `label` task (the cached model backend, so a repeat asks nothing), and
publishes a new golden version whose judgments also hold them (role `pooled`, axis "",
label_source `model`). Items, corpus manifest and config fingerprint are the parent's; the
provenance gains a `pooling` record (runs, depth, counts, judge). A second identical pool add
finds nothing new and returns the same version id without publishing.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalset_pipeline.core.corpus.manifest import CorpusManifest
from evalset_pipeline.core.golden.model import GoldenSet, GoldenSetDraft
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.golden.schema import GOLDEN_JUDGMENTS, GOLDEN_UNITS
from evalset_pipeline.core.golden.units import unit_row
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.scoring.qrels import index_strings
from evalset_pipeline.core.scoring.runs import Run, declared_order

DEFAULT_POOL_DEPTH = 10
POOLED = "pooled"


@dataclass(frozen=True)
class PoolResult:
    version_id: str  # the version that now holds the labels (the parent when nothing was new)
    parent_version: str
    created: bool  # a new version was published
    runs: list[str]
    depth: int
    considered: int  # distinct (item, unit) pairs in the runs' top `depth` for golden items
    already_judged: int
    added: int  # new judgments in the published version
    by_label: dict[str, int]
    unknown_units: int  # pairs whose unit is not a rendered page (cannot be shown to the judge)
    unknown_query_rows: int  # run rows whose query id is not an item of the version
    model_calls: int
    cache_hits: int
    warnings: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def top_pairs(run: Run, item_ids: pa.Array, depth: int) -> tuple[np.ndarray, list[str], int]:
    """(item index, unit id) of each golden item's first `depth` distinct units, in the declared
    order (score descending, unit id ascending), and the number of rows with unknown query ids."""
    order = declared_order(run.query_ids, run.unit_ids, run.scores)
    queries = run.query_ids.take(pa.array(order))
    units = run.unit_ids.take(pa.array(order))
    q = index_strings(queries, item_ids)
    known = q >= 0
    unknown = int((~known).sum())
    q, units = q[known], units.filter(pa.array(known))
    if len(q) == 0:
        return np.zeros(0, np.int64), [], unknown
    enc = pc.dictionary_encode(units)
    codes = enc.indices.to_numpy(zero_copy_only=False).astype(np.int64)
    pair = q * max(len(enc.dictionary), 1) + codes
    _, first = np.unique(pair, return_index=True)
    keep = np.sort(first)  # first occurrence of each pair, still in declared order
    q, codes = q[keep], codes[keep]
    change = np.ones(len(q), bool)
    change[1:] = q[1:] != q[:-1]
    starts = np.flatnonzero(change)
    rank = np.arange(len(q)) - np.repeat(starts, np.diff(np.append(starts, len(q))))
    top = rank < depth
    names = enc.dictionary.to_pylist()
    return q[top], [names[c] for c in codes[top]], unknown


def _without_version(table: pa.Table) -> pa.Table:
    return table.drop_columns(["version_id"]) if "version_id" in table.column_names else table


def _manifest(info: dict[str, Any]) -> CorpusManifest:
    built = info.get("corpus_built_at")
    if isinstance(built, str):
        built = datetime.fromisoformat(built.replace("Z", "+00:00"))
    if not isinstance(built, datetime):
        raise ValueError(
            f"golden set {info.get('version_id')}: corpus_built_at is not a time ({built!r})"
        )
    return CorpusManifest(
        str(info["corpus_fingerprint"]),
        built,
        int(info["corpus_documents"]),
        int(info["corpus_pages"]),
    )


def working_pages(paths: DataPaths) -> tuple[dict[str, Any], dict[str, Any], str | None]:
    """Rendered pages and their metadata rows by unit id, and the working corpus fingerprint."""
    import json

    from evalset_pipeline.core.scoring.baselines import MANIFEST, IndexPage
    from evalset_pipeline.core.tables import read_rows

    renders = {
        r["unit_id"]: IndexPage.from_row(r)
        for r in read_rows(paths.table("page_renders"), producer="page_renders")
    }
    meta_path = paths.table("page_metadata")
    meta = {r["unit_id"]: r for r in read_rows(meta_path)} if meta_path.exists() else {}
    manifest = paths.table_file(MANIFEST)
    fingerprint = json.loads(manifest.read_text()).get("fingerprint") if manifest.exists() else None
    return renders, meta, fingerprint


def pool_runs(
    paths: DataPaths,
    golden: GoldenSet,
    runs: Sequence[Run],
    open_backend: Callable[[], Any],
    *,
    depth: int = DEFAULT_POOL_DEPTH,
) -> PoolResult:
    """Judge the runs' unjudged top-`depth` units and publish the version that holds them.

    `open_backend()` returns a CachedBackend (core/backends/factory.open_cached_backend); it is only
    opened when there is something to judge, and closed afterwards.
    """
    from evalset_pipeline.core.judging.base import PageView

    def page_view(
        page: Any, root: Path
    ) -> PageView:  # as core/pipeline/pages.page_view, without its imports
        return PageView(
            page.unit_id, root / page.render_path, root / page.text_path, page.render_hash
        )

    if depth < 1:
        raise ValueError("depth must be at least 1")
    if not runs:
        raise ValueError("no runs to pool")
    warnings: list[str] = []
    item_ids = golden.items.column("item_id").combine_chunks()
    names = [r.name for r in runs]
    wanted: dict[tuple[str, str], None] = {}  # insertion-ordered union
    unknown_rows = 0
    items_py = item_ids.to_pylist()
    for run in runs:
        q, units, unknown = top_pairs(run, item_ids, depth)
        unknown_rows += unknown
        for qi, u in zip(q.tolist(), units, strict=False):
            wanted[(items_py[qi], u)] = None
    if unknown_rows:
        warnings.append(
            f"{unknown_rows} run row(s) have query ids that are not items of {golden.version_id}; ignored"
        )
    judged = set(
        zip(
            golden.judgments.column("item_id").to_pylist(),
            golden.judgments.column("unit_id").to_pylist(),
            strict=False,
        )
    )
    new = [pair for pair in wanted if pair not in judged]
    already = len(wanted) - len(new)

    renders, meta, working_fp = working_pages(paths) if new else ({}, {}, None)
    if new and working_fp and working_fp != golden.info.get("corpus_fingerprint"):
        warnings.append(
            f"the rendered pages are from corpus {working_fp[:16]}, {golden.version_id} was built on "
            f"{str(golden.info.get('corpus_fingerprint'))[:16]}; pooled pages are judged as rendered now"
        )
    unknown_units = sum(1 for _, u in new if u not in renders)
    if unknown_units:
        warnings.append(
            f"{unknown_units} pooled pair(s) name units that are not rendered pages; left unjudged"
        )
    new = [(i, u) for i, u in new if u in renders]

    base: dict[str, Any] = dict(
        version_id=golden.version_id,
        parent_version=golden.version_id,
        runs=names,
        depth=depth,
        considered=len(wanted),
        already_judged=already,
        unknown_units=unknown_units,
        unknown_query_rows=unknown_rows,
    )
    if not new:
        return PoolResult(
            created=False,
            added=0,
            by_label={},
            model_calls=0,
            cache_hits=0,
            warnings=warnings,
            **base,
        )

    questions = {i["item_id"]: (i["question"], i["answer"] or "") for i in golden.items.to_pylist()}
    backend = open_backend()
    try:
        results = backend.label(
            [(*questions[i], page_view(renders[u], paths.root)) for i, u in new]
        )
        stats = backend.stats
        judge = {
            "backend": backend.name,
            "model": backend.model,
            "label_prompt": backend.prompt_hash("label"),
        }
    finally:
        backend.cache.close()

    judgment_schema = pa.schema([f for f in GOLDEN_JUDGMENTS if f.name != "version_id"])
    added = pa.Table.from_pylist(
        [
            {
                "item_id": i,
                "unit_id": u,
                "role": POOLED,
                "axis": "",
                "label": r.label,
                "rationale": r.rationale,
                "label_source": "model",
            }
            for (i, u), r in zip(new, results, strict=False)
        ],
        schema=judgment_schema,
    )
    units = _without_version(golden.units)
    have = set(units.column("unit_id").to_pylist())
    unit_schema = pa.schema([f for f in GOLDEN_UNITS if f.name != "version_id"])
    extra_units = pa.Table.from_pylist(
        [unit_row(u, renders[u], meta.get(u)) for u in sorted({u for _, u in new} - have)],
        schema=unit_schema,
    )
    by_label = dict(sorted(Counter(r.label for r in results).items()))
    calls, hits = int(stats.calls.get("label", 0)), int(stats.cache_hits.get("label", 0))

    provenance = dict(golden.info.get("provenance") or {})
    record = {
        "parent_version": golden.version_id,
        "runs": names,
        "depth": depth,
        "considered": len(wanted),
        "already_judged": already,
        "added": len(new),
        "by_label": by_label,
        "unknown_units": unknown_units,
        "judge": judge,
        "model_calls": calls,
        "cache_hits": hits,
    }
    provenance["pooling"] = list(provenance.get("pooling") or []) + [record]
    sources = dict(provenance.get("labels_by_source") or {})
    if sources:
        sources["model"] = int(sources.get("model", 0)) + len(new)
        provenance["labels_by_source"] = sources
    draft = GoldenSetDraft(
        items=_without_version(golden.items),
        judgments=pa.concat_tables(
            [_without_version(golden.judgments).cast(judgment_schema), added]
        ),
        units=pa.concat_tables([units.cast(unit_schema), extra_units]),
        corpus=_manifest(golden.info),
        config_fingerprint=str(golden.info["config_fingerprint"]),
        funnel=dict(golden.info.get("funnel") or {}),
        provenance=provenance,
    )
    published = publish_golden_set(paths, draft)
    return PoolResult(
        **{**base, "version_id": published.version_id},
        created=published.created,
        added=len(new),
        by_label=by_label,
        model_calls=calls,
        cache_hits=hits,
        warnings=warnings,
    )


def read_runs(run_paths: Sequence[str | Path]) -> list[Run]:
    from evalset_pipeline.core.scoring.runs import read_run

    return [read_run(p) for p in run_paths]

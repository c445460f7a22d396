"""Group `scores`: baseline_scores (the headline report for the golden version the build produced)."""

import dagster as dg

from evalset_pipeline.core.pipeline.baseline_scores import build_baseline_scores
from evalset_pipeline.defs.assets.golden import golden_set
from evalset_pipeline.defs.assets.metadata import stage_graph, to_metadata
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, stage_context


def _built_version(context: dg.AssetExecutionContext) -> str:
    """The version golden_set recorded on its latest materialization ('latest' if none is on record)."""
    event = context.instance.get_latest_materialization_event(golden_set.key)
    value = (
        event.asset_materialization.metadata.get("version_id")
        if event and event.asset_materialization
        else None
    )
    return str(value.value) if value is not None else "latest"


@dg.asset(
    group_name="scores",
    **stage_graph("baseline_scores"),
    description="Headline: top-1 vs random negatives (questions as written, n = written) beside sufficient@1/@5 "
    "vs hard negatives (main slice, n = kept), per built-in retriever (BM25 by default; "
    "settings.baseline_retrievers adds e.g. MiniLM `text`); docs/scoring.md.",
)
def baseline_scores(
    context: dg.AssetExecutionContext, settings: PipelineSettings, embedder: EmbedderResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, embedder=embedder)
    version_id, reports = build_baseline_scores(
        ctx, _built_version(context), settings.baseline_retrievers
    )
    meta: dict = {"version_id": version_id, "retrievers": ", ".join(r.retriever for r in reports)}
    for r in reports:
        meta[f"{r.retriever}_headline"] = dg.MetadataValue.md(r.markdown())
        meta.update(to_metadata({f"{r.retriever}_{k}": v for k, v in r.numbers().items()}))
    retrievers = ",".join(r.retriever for r in reports)
    return dg.MaterializeResult(
        metadata=meta, data_version=dg.DataVersion(f"{version_id}:{ctx.config.seed}:{retrievers}")
    )

"""Group `scores`: baseline_scores (the headline report for the golden version the build produced)."""

import dagster as dg

from evalset_pipeline.core.scoring.headline import headline_for_version
from evalset_pipeline.defs.assets.golden import golden_set
from evalset_pipeline.defs.assets.metadata import code_version_of, to_metadata
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
    deps=[golden_set],
    code_version=code_version_of(
        "core/scoring/headline.py",
        "core/scoring/baselines.py",
        "core/scoring/metrics.py",
        "core/scoring/runs.py",
        "core/scoring/qrels.py",
    ),
    description="Headline: top-1 vs random negatives (questions as written, n = written) beside sufficient@1/@5 "
    "vs hard negatives (main slice, n = kept), per built-in retriever; docs/scoring.md.",
)
def baseline_scores(
    context: dg.AssetExecutionContext, settings: PipelineSettings, embedder: EmbedderResource
) -> dg.MaterializeResult:
    ctx = stage_context(context, settings, embedder=embedder)
    version_id, reports = headline_for_version(
        ctx.paths, _built_version(context), seed=ctx.config.seed, page_embedder=ctx.embedder.model
    )
    meta: dict = {"version_id": version_id, "retrievers": ", ".join(r.retriever for r in reports)}
    for r in reports:
        meta[f"{r.retriever}_headline"] = dg.MetadataValue.md(r.markdown())
        meta.update(to_metadata({f"{r.retriever}_{k}": v for k, v in r.numbers().items()}))
    return dg.MaterializeResult(
        metadata=meta, data_version=dg.DataVersion(f"{version_id}:{ctx.config.seed}")
    )

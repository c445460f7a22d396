"""The Definitions the workspace loads: the whole asset graph, its resources, job, schedule and sensor."""
from __future__ import annotations

import dagster as dg

from evalset_pipeline.defs.assets import corpus, golden, index, negatives, questions
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

all_assets = dg.load_assets_from_modules([corpus, index, negatives, questions, golden])

build_golden_set_job = dg.define_asset_job(
    "build_golden_set", selection=dg.AssetSelection.all(), description="Corpus to golden set, every stage."
)


def default_resources() -> dict[str, object]:
    return {"settings": PipelineSettings(), "vlm": VLMResource(), "embedder": EmbedderResource()}


defs = dg.Definitions(
    assets=all_assets,
    jobs=[build_golden_set_job],
    resources=default_resources(),
    executor=dg.multiprocess_executor.configured({"max_concurrent": 2}),
)

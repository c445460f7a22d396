"""A small built corpus for import tests: the sample generator's 2 entities x 2 periods, every
stage but the `scores` group materialized in-process into a fresh data directory."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

AXES = ["period", "metric", "entity", "revision"]  # the restated deck is a revision sibling


def small_build(tmp_path_factory) -> tuple[Path, Path]:
    """(corpus, data dir) of a finished build that published one golden version."""
    corpus = tmp_path_factory.mktemp("corpus")
    generate_sample_corpus(corpus, entities=2, periods=2)
    data = tmp_path_factory.mktemp("data")
    resources = {
        "settings": PipelineSettings(
            data_dir=str(data), corpus_dir=str(corpus), workers=1, sample_size=12, axes=AXES
        ),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    # the `scores` group (baseline runs) is not needed: the report runs its own baseline
    result = dg.materialize(
        all_assets,
        resources=resources,
        raise_on_error=False,
        selection=dg.AssetSelection.all() - dg.AssetSelection.groups("scores"),
    )
    assert result.success, [e.message for e in result.all_events if e.is_step_failure]
    return corpus, data

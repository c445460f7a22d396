"""One in-process Dagster build of the golden set on the offline backends (textlayer writer,
the bundled text embedder), the score group left out: what the end-to-end tests on drawn
corpora run."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource


def build_golden_set(corpus: Path, data_dir: Path, **settings: object) -> None:
    """Materialize every asset but the scores; fails the test when the run does not succeed."""
    resources = {
        "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(corpus), **settings),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    result = dg.materialize(
        all_assets,
        resources=resources,
        selection=dg.AssetSelection.all() - dg.AssetSelection.groups("scores"),
    )
    assert result.success

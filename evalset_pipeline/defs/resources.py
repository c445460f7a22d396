"""Resources by role: `settings` (paths and build knobs), `vlm` (the model), `embedder` (page vectors).

Secrets only by environment variable name: the `vlm` resource holds the *name* of the API key
variable, the openai client reads its value, and nothing writes it anywhere.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import dagster as dg
from pydantic import Field

from evalset_pipeline.core import progress
from evalset_pipeline.core.buildlock import step_lock
from evalset_pipeline.core.index.embeddings import EmbedderSpec
from evalset_pipeline.core.labels import underspecified_policy
from evalset_pipeline.core.paths import DataPaths, default_corpus_dir, default_data_dir
from evalset_pipeline.core.pipeline.context import BuildConfig, StageContext
from evalset_pipeline.core.pipeline.graph import READS, stage_paths
from evalset_pipeline.core.render.pages import RenderSettings
from evalset_pipeline.core.vlm.cache import CachedBackend, Prices
from evalset_pipeline.core.vlm.factory import (
    VLMConfig,
    backend_identity,
    make_backend,
    open_cached_backend,
)


class PipelineSettings(dg.ConfigurableResource):
    data_dir: str = Field(
        default_factory=lambda: str(default_data_dir()),
        description="Where artifacts and golden sets live",
    )
    corpus_dir: str = Field(
        default_factory=lambda: str(default_corpus_dir()),
        description="Folder of PDFs (+ optional metadata.csv)",
    )
    seed: int = 13
    sample_size: int = Field(default=80, description="Gold pages to write questions for")
    negatives_per_axis: int = 2
    axes: list[str] = Field(
        default_factory=lambda: ["period", "metric", "entity"],
        description="Axes a distractor may differ on; add e.g. 'revision' for restatements",
    )
    max_rewrites: int = 2
    underspecified: str = Field(
        default="slice",
        description="slice: keep ambiguous questions in the underspecified slice; drop: discard them",
    )
    render_dpi: int = 96
    max_pixels: int = 4_000_000
    workers: int = Field(default=0, description="Processes for render/embed; 0 = one per core")
    baseline_retrievers: list[str] = Field(
        default_factory=list,
        description="Retrievers of baseline_scores; empty = bm25 (+ appearance when "
        "the page embedder has a text side). Add 'text' for MiniLM.",
    )

    @contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator[PipelineSettings]:
        """Inside a run, hold the data directory (shared) while the step runs, so it cannot interleave
        with an `evalset build` on the same directory (core/buildlock.py). Sensors and schedules
        only read: no lock for them."""
        run = getattr(context, "dagster_run", None)
        if run is None:
            yield self
            return
        with step_lock(
            DataPaths.at(self.data_dir), self.corpus_dir, detail=f"dagster run {run.run_id[:8]}"
        ):
            yield self

    def build_config(self) -> BuildConfig:
        return BuildConfig(
            corpus_dir=self.corpus_dir,
            seed=self.seed,
            sample_size=self.sample_size,
            negatives_per_axis=self.negatives_per_axis,
            axes=tuple(self.axes),
            max_rewrites=self.max_rewrites,
            underspecified=underspecified_policy(self.underspecified),
            render=RenderSettings(self.render_dpi, self.max_pixels),
            workers=self.workers,
        )


class EmbedderResource(dg.ConfigurableResource):
    model: str = Field(
        default="appearance",
        description="'appearance' (offline, no model) or a sentence-transformers name/path",
    )
    modality: str = Field(default="auto", description="auto | image | text")
    batch_size: int = 32

    def spec(self) -> EmbedderSpec:
        return EmbedderSpec(self.model, self.modality, self.batch_size)


class VLMResource(dg.ConfigurableResource):
    backend: str = Field(
        default="textlayer",
        description="textlayer (offline) | openai (any OpenAI-compatible endpoint)",
    )
    model: str = ""
    base_url: str | None = Field(
        default=None, description="None: OPENAI_BASE_URL or the OpenAI API"
    )
    api_key_env: str = Field(
        default="OPENAI_API_KEY", description="Name of the environment variable holding the key"
    )
    max_in_flight: int = 16
    image_max_side: int = 1600
    timeout_s: float = 60.0
    max_retries: int = 5
    input_usd_per_mtok: float = 0.0
    output_usd_per_mtok: float = 0.0

    def config(self) -> VLMConfig:
        return VLMConfig(
            self.backend,
            self.model,
            self.base_url,
            self.api_key_env,
            self.max_in_flight,
            self.image_max_side,
            self.timeout_s,
            self.max_retries,
            Prices(self.input_usd_per_mtok, self.output_usd_per_mtok),
        )

    def identity(self) -> dict[str, Any]:
        return backend_identity(make_backend(self.config()))


def _progress_logger(log: logging.Logger) -> Callable[[str, int, int | None], None]:
    """A stage's countable work: to the live display when one is showing (core/progress.py), and
    to the run's log at every tenth, so the UI's run view shows it too."""
    last: dict[str, int] = {}

    def report(task: str, done: int, total: int | None) -> None:
        progress.report(task, done, total)
        if total:
            tenth = done * 10 // max(total, 1)
            if tenth != last.get(task):
                last[task] = tenth
                log.info("%s: %d/%d", task, done, total)

    return report


def stage_context(
    context: dg.AssetExecutionContext | dg.AssetCheckExecutionContext,
    settings: PipelineSettings,
    embedder: EmbedderResource | None = None,
    vlm: VLMResource | None = None,
) -> StageContext:
    # An asset's stage sees only the tables it declares (core/pipeline/graph.py); checks read freely.
    stage = context.asset_key.path[-1] if isinstance(context, dg.AssetExecutionContext) else None
    progress.started(stage or "checks")
    paths = (
        stage_paths(settings.data_dir, stage) if stage in READS else DataPaths.at(settings.data_dir)
    )
    opener: Callable[[], CachedBackend] | None = None
    if vlm is not None:
        config = vlm.config()
        opener = lambda: open_cached_backend(config, paths)  # noqa: E731
    return StageContext(
        paths=paths,
        config=settings.build_config(),
        embedder=embedder.spec() if embedder else EmbedderSpec(),
        log=context.log,
        open_backend=opener,
        progress=_progress_logger(context.log),
    )

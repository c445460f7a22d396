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

from evalset_pipeline.core import progress
from evalset_pipeline.core.backends.factory import (
    VLMConfig,
    backend_identity,
    make_backend,
    open_cached_backend,
)
from evalset_pipeline.core.buildlock import step_lock
from evalset_pipeline.core.index.embeddings import EmbedderSpec
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.pipeline.context import BuildConfig, StageContext
from evalset_pipeline.core.pipeline.graph import READS, stage_paths
from evalset_pipeline.core.pipeline.settings import BuildSettings
from evalset_pipeline.core.vlm.cache import CachedBackend
from evalset_pipeline.defs.config_fields import resource_base, settings_from

# Generated fields (defs/config_fields.py); typed Any, as mypy cannot see a class made at runtime.
_SettingsFields: Any = resource_base("PipelineSettingsFields", BuildSettings)
_VLMFields: Any = resource_base("VLMResourceFields", VLMConfig)
_EmbedderFields: Any = resource_base("EmbedderResourceFields", EmbedderSpec)


class PipelineSettings(_SettingsFields):
    """The `settings` resource: one field per BuildSettings setting (core/pipeline/settings.py)."""

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

    def build_settings(self) -> BuildSettings:
        return settings_from(self, BuildSettings)

    def build_config(self) -> BuildConfig:
        return self.build_settings().build


class EmbedderResource(_EmbedderFields):
    """The `embedder` resource: one field per EmbedderSpec setting (core/index/embeddings.py)."""

    def spec(self) -> EmbedderSpec:
        return settings_from(self, EmbedderSpec)


class VLMResource(_VLMFields):
    """The `vlm` resource: one field per VLMConfig setting, prices flattened (core/backends/factory.py)."""

    def config(self) -> VLMConfig:
        return settings_from(self, VLMConfig)

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

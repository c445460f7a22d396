"""What every stage needs: where data lives, the build knobs, a logger, and the model factory."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from evalset_pipeline.core.hashing import fingerprint
from evalset_pipeline.core.index.embeddings import EmbedderSpec
from evalset_pipeline.core.labels import Underspecified
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.render.pages import RenderSettings


@dataclass(frozen=True)
class BuildConfig:
    """Knobs that change what a golden set contains; all of them go into its config fingerprint."""

    corpus_dir: str = "data/sample_corpus"
    seed: int = 13
    sample_size: int = 80
    negatives_per_axis: int = 2
    axes: tuple[str, ...] = ("period", "metric", "entity")
    max_rewrites: int = 2
    underspecified: Underspecified = "slice"
    render: RenderSettings = field(default_factory=RenderSettings)
    workers: int = 0  # 0 = one per core

    def knobs(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("corpus_dir")  # where the corpus is does not change what it is; its fingerprint does
        d.pop("workers")
        return d


@dataclass
class StageContext:
    paths: DataPaths
    config: BuildConfig
    embedder: EmbedderSpec = field(default_factory=EmbedderSpec)
    log: logging.Logger = field(default_factory=lambda: logging.getLogger("evalset"))
    # Returns (backend wrapped in the call cache, provenance dict without secrets).
    open_backend: Callable[[], Any] | None = None
    progress: Callable[[str, int, int | None], None] | None = None  # (stage, done, total or None)

    @property
    def corpus_dir(self) -> Path:
        return Path(self.config.corpus_dir)

    @property
    def workers(self) -> int | None:
        return self.config.workers or None

    def config_fingerprint(self, backend_identity: dict[str, Any]) -> str:
        return config_fingerprint_of(self.config.knobs(), self.embedder.model_id, backend_identity)


def config_fingerprint_of(
    knobs: dict[str, Any], embedder_id: str, backend_identity: dict[str, Any]
) -> str:
    """A golden set's config fingerprint: build knobs, embedder and model identity."""
    return fingerprint({"knobs": knobs, "embedder": embedder_id, "vlm": backend_identity})

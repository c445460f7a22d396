"""What every stage needs: where data lives, the build knobs, a logger, and the model factory."""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, get_args

from evalset_pipeline.core.hashing import fingerprint
from evalset_pipeline.core.index.embeddings import EmbedderSpec
from evalset_pipeline.core.labels import Underspecified, underspecified_policy
from evalset_pipeline.core.paths import DataPaths, default_corpus_dir
from evalset_pipeline.core.render.pages import RenderSettings
from evalset_pipeline.core.settings import nested, setting


@dataclass(frozen=True)
class BuildConfig:
    """Knobs that change what a golden set contains; all of them go into its config fingerprint.

    Declared once, with help text: the Dagster config, `evalset build`'s flags and its run config
    are generated from these fields (core/settings.py, core/pipeline/settings.py)."""

    corpus_dir: str = setting(
        help="Folder of PDFs, with an optional metadata.csv "
        "(default: $EVALSET_CORPUS_DIR or data/sample_corpus)",
        factory=lambda: str(default_corpus_dir()),
    )
    follow_symlinks: bool = setting(
        False,
        help="Also read PDFs that are symlinks to files outside the corpus folder (a folder of "
        "links to files kept elsewhere); folder links are never followed",
    )
    seed: int = setting(
        13, help="Seed of the gold sample, template clustering and the random-negative baseline"
    )
    sample_size: int = setting(80, help="Gold pages to write questions for")
    negatives_per_axis: int = setting(2, help="Hard negatives per gold page on each axis")
    pool_depth: int = setting(
        10,
        help="Top pages of each baseline retriever (BM25; appearance when the embedder can embed "
        "a question) added to every item's pool, beside the mined negatives and every page that "
        "prints the answer; 0 = none",
    )
    axes: tuple[str, ...] = setting(
        ("period", "metric", "entity"),
        help="Axes a distractor may differ on; add e.g. 'revision' for restatements",
    )
    max_rewrites: int = setting(
        2, help="Times an ambiguous question is made more specific before it leaves the main slice"
    )
    underspecified: Underspecified = setting(
        "slice",
        help="slice: keep ambiguous questions in the underspecified slice; drop: discard them",
        choices=get_args(Underspecified),
    )
    render: RenderSettings = nested(RenderSettings, rename={"dpi": "render_dpi"})
    workers: int = setting(0, help="Processes for render/embed; 0 = one per core")

    def __post_init__(self) -> None:
        underspecified_policy(self.underspecified)  # a typo fails here, naming the value

    def knobs(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("corpus_dir")  # where the corpus is does not change what it is; its fingerprint does
        d.pop("follow_symlinks")  # which files were read is in the corpus fingerprint too
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

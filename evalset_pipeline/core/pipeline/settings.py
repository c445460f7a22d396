"""What a build is launched with: where its data lives, the build knobs, and the baselines.

The one declaration behind the Dagster `settings` resource, `evalset build`'s flags and the run
config it passes (core/settings.py). The knobs themselves are `BuildConfig`'s fields, so what goes
into a golden set's config fingerprint stays `BuildConfig.knobs()`.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalset_pipeline.core.paths import default_data_dir
from evalset_pipeline.core.pipeline.context import BuildConfig
from evalset_pipeline.core.settings import nested, setting


@dataclass(frozen=True)
class BuildSettings:
    data_dir: str = setting(
        help="Where artifacts, golden sets and the CLI's Dagster instance live "
        "(default: $EVALSET_DATA_DIR or data)",
        factory=lambda: str(default_data_dir()),
    )
    build: BuildConfig = nested(BuildConfig)
    baseline_retrievers: tuple[str, ...] = setting(
        (),
        help="Retrievers of baseline_scores, e.g. bm25,text (text: MiniLM); empty: bm25, and "
        "appearance when the page embedder has a text side",
    )

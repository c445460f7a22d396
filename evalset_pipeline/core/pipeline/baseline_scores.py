"""`baseline_scores`: the headline report of the golden version a build produced, per built-in retriever.

BM25 over the text layers by default (seconds, no model); `text` (MiniLM, dense) and others when
configured. Both are cached by content, so a no-change rebuild reads no text layer and loads no
model.
"""

from __future__ import annotations

from collections.abc import Sequence

from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.scoring.headline import Headline, headline_for_version


def build_baseline_scores(
    ctx: StageContext, version: str, retrievers: Sequence[str] | None = None
) -> tuple[str, list[Headline]]:
    """(version id, one headline per retriever) for `version` ('latest' or a version id)."""
    return headline_for_version(
        ctx.paths,
        version,
        seed=ctx.config.seed,
        page_embedder=ctx.embedder.model,
        retrievers=list(retrievers) if retrievers else None,
    )

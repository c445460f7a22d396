"""Turn stored page rows into what a model backend sees."""

from __future__ import annotations

from pathlib import Path

from evalset_pipeline.core.judging.base import PageContext, PageView
from evalset_pipeline.core.render.pages import PageRender


def page_view(
    render: PageRender, data_dir: Path, contexts: dict[str, PageContext] | None = None
) -> PageView:
    """What a backend sees of a stored page; `contexts` (document sha256 -> its facts) adds the document."""
    context = (contexts or {}).get(render.document_sha256)
    return PageView(
        render.unit_id,
        data_dir / render.render_path,
        data_dir / render.text_path,
        render.render_hash,
        context,
    )

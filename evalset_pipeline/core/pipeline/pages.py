"""Turn stored page rows into what a model backend sees."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from evalset_pipeline.core.judging.base import PageContext, PageView
from evalset_pipeline.core.render.pages import PageRender


def page_view(
    render: PageRender,
    data_dir: Path,
    contexts: dict[str, PageContext] | None = None,
    bases: dict[str, str] | None = None,
) -> PageView:
    """What a backend sees of a stored page; `contexts` (document sha256 -> its facts) adds the
    document, `bases` (unit id -> consolidated | separate) the statements' basis the page is of."""
    context = (contexts or {}).get(render.document_sha256)
    basis = (bases or {}).get(render.unit_id, "")
    if basis:
        context = replace(context or PageContext(), basis=basis)
    return PageView(
        render.unit_id,
        data_dir / render.render_path,
        data_dir / render.text_path,
        render.render_hash,
        context,
    )

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
    page_facts: dict[str, dict[str, str]] | None = None,
) -> PageView:
    """What a backend sees of a stored page; `contexts` (document sha256 -> its facts) adds the
    document, `page_facts` (unit id -> basis, section: `page_metadata.load_page_facts`) what the
    page adds to it."""
    context = (contexts or {}).get(render.document_sha256)
    facts = (page_facts or {}).get(render.unit_id)
    if facts:
        base = context or PageContext()
        context = replace(
            base, basis=facts.get("basis", base.basis), section=facts.get("section", base.section)
        )
    return PageView(
        render.unit_id,
        data_dir / render.render_path,
        data_dir / render.text_path,
        render.render_hash,
        context,
    )

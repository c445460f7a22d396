"""Turn stored page rows into what a model backend sees."""
from __future__ import annotations

from pathlib import Path

from evalset_pipeline.core.render.pages import PageRender
from evalset_pipeline.core.vlm.base import PageView


def page_view(render: PageRender, data_dir: Path) -> PageView:
    return PageView(render.unit_id, data_dir / render.render_path, data_dir / render.text_path, render.render_hash)

"""Axis values read off the page itself, for pages the sidecar says nothing about."""
from __future__ import annotations

from pathlib import Path

from evalset_pipeline.core.render.pages import PageRender
from evalset_pipeline.core.render.text_layer import load_text_layer
from evalset_pipeline.core.vlm.page_reader import language_of


class TextLayerExtractor:
    """Reads only the page's text layer (never the sidecar)."""

    def __init__(self, data_dir: str | Path):
        self.data_dir = Path(data_dir)

    def __call__(self, page: PageRender) -> dict[str, str]:
        layer = load_text_layer(str(self.data_dir / page.text_path))
        text = layer.get("text", "")
        return {"language": language_of(text)} if text.strip() else {}

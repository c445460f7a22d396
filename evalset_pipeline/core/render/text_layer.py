"""The page's text layer, kept beside its render: what a text-only model (and `textlayer`) reads."""
from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pymupdf


def text_layer_of(page: pymupdf.Page) -> dict[str, Any]:
    """Plain text plus word boxes `[x0, y0, x1, y1, word, block_no, line_no, word_no]` in PDF points."""
    rect = page.rect
    return {
        "text": page.get_text("text"),
        "words": [list(w) for w in page.get_text("words")],
        "width": rect.width,
        "height": rect.height,
    }


@lru_cache(maxsize=4096)
def load_text_layer(path: str | Path) -> dict[str, Any]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)

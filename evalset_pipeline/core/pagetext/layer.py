"""The page's text layer, kept beside its render: what a text-only model (and `textlayer`) reads.

The one place that knows its format: render writes it with `text_layer_of`, every other stage
reads it through the functions below.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path
from typing import Any

import pymupdf

COORDINATE_DECIMALS = 2  # a hundredth of a point: far below any gap a reader measures


def text_layer_of(page: pymupdf.Page) -> dict[str, Any]:
    """Plain text plus word boxes `[x0, y0, x1, y1, word, block_no, line_no, word_no]` in PDF points.

    [perf, benchmarks/coldbuild.py] One text extraction serves both (MuPDF would otherwise parse
    the page's text twice), and coordinates are rounded: full-precision floats made the stored
    layer twice the size and twice the parse time for every stage that reads it."""
    rect = page.rect
    textpage = page.get_textpage()
    d = COORDINATE_DECIMALS
    return {
        "text": page.get_text("text", textpage=textpage),
        "words": [
            [round(x0, d), round(y0, d), round(x1, d), round(y1, d), *rest]
            for x0, y0, x1, y1, *rest in page.get_text("words", textpage=textpage)
        ],
        "width": rect.width,
        "height": rect.height,
    }


def encode_text_layer(layer: dict[str, Any]) -> bytes:
    """The stored form: compact JSON in UTF-8 (UnicodeEncodeError for text that is not valid UTF-8)."""
    return json.dumps(layer, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def read_text_layer(path: str | Path) -> dict[str, Any]:
    """The stored layer; OSError when it cannot be read, ValueError when it is not a JSON object."""
    with open(path, encoding="utf-8") as f:
        layer = json.load(f)
    if not isinstance(layer, dict):
        raise ValueError(f"{path}: a text layer is a JSON object, got {type(layer).__name__}")
    return layer


@lru_cache(maxsize=4096)
def load_text_layer(path: str | Path) -> dict[str, Any]:
    """`read_text_layer`, cached: metadata reads the same page several times in one stage."""
    return read_text_layer(path)


def text_layer_or_empty(path: str | Path) -> dict[str, Any]:
    """The stored layer, or {} when it is missing or unreadable (a page with no text to read)."""
    try:
        return read_text_layer(path)
    except (OSError, ValueError):
        return {}


def layer_text(layer: dict[str, Any]) -> str:
    """The layer's plain text ('' when it has none)."""
    text = layer.get("text")
    return text if isinstance(text, str) else ""


def page_text_or_empty(path: str | Path) -> str:
    """The plain text of a stored layer ('' when it cannot be read)."""
    return layer_text(text_layer_or_empty(path))

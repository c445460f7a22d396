"""Small PDFs drawn in the tests: pages of text lines (and table rows) at known positions."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import pymupdf

from evalset_pipeline.core.metadata.document_facts import DocumentFacts, extract_document_facts
from evalset_pipeline.core.pagetext.layer import text_layer_of

Line = (
    str | tuple[str, ...]
)  # a line of text, or a table row whose cells are spread across the page


def _put(page: pymupdf.Page, x: float, y: float, text: str) -> None:
    korean = any("\uac00" <= c <= "\ud7a3" for c in text)
    page.insert_text((x, y), text, fontsize=9, fontname="korea" if korean else "helv")


def draw_pdf(
    path: Path, pages: Sequence[Sequence[Line]], *, author: str = "", title: str = ""
) -> Path:
    doc = pymupdf.open()
    for lines in pages:
        page = doc.new_page(width=612, height=792)
        y = 60.0
        for line in lines:
            if isinstance(line, tuple):
                _put(page, 50, y, line[0])
                for i, cell in enumerate(line[1:]):
                    _put(page, 330 + 90 * i, y, cell)
            else:
                _put(page, 50, y, line)
            y += 13.0
    doc.set_metadata({"author": author, "title": title})
    doc.save(path)
    doc.close()
    return path


def layers_of(path: Path) -> list[dict]:
    with pymupdf.open(path) as doc:
        return [text_layer_of(page) for page in doc]


def facts_of_drawn(
    folder: Path, pages: Sequence[Sequence[Line]], name: str = "doc.pdf", **meta: str
) -> DocumentFacts:
    """One drawn document's facts, read as `page_metadata` reads them (before the corpus vote)."""
    layers = layers_of(draw_pdf(folder / name, pages, **meta))
    return extract_document_facts(
        "sha-" + name,
        name,
        [layer["text"] for layer in layers],
        title=meta.get("title", ""),
        author=meta.get("author", ""),
    )

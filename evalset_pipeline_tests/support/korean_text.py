"""Drawing Korean as real Korean PDFs set it: Hangul in the built-in CJK font, everything else
(digits, spaces, Latin, punctuation) in Helvetica. The CJK font's digits and spaces are
full-width, which would put word gaps where no Korean filing has them."""

from __future__ import annotations

import pymupdf

_CJK = "korea"
_LATIN = "helv"


def _runs(text: str) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for ch in text:
        font = _CJK if "\uac00" <= ch <= "\ud7a3" or ch in "△ⅠⅡⅢⅣ" else _LATIN
        if out and out[-1][0] == font:
            out[-1] = (font, out[-1][1] + ch)
        else:
            out.append((font, ch))
    return out


def _width(font: str, run: str, size: float) -> float:
    return len(run) * size if font == _CJK else pymupdf.get_text_length(run, _LATIN, size)


def text_width(text: str, size: float) -> float:
    return sum(_width(f, r, size) for f, r in _runs(text))


def put_text(page: pymupdf.Page, kind: str, x: float, y: float, text: str, size: float) -> None:
    """Draw `text` left-aligned at x ("l"), right-aligned at x ("r") or centred on x ("c")."""
    left = {"l": x, "r": x - text_width(text, size), "c": x - text_width(text, size) / 2}[kind]
    for font, run in _runs(text):
        page.insert_text((left, y), run, fontsize=size, fontname=font)
        left += _width(font, run, size)

"""Chart-heavy quarterly reviews in a style the sample generator never draws: one horizontal bar
chart per page, the value printed beside each bar, a title with `|` separators ("Net revenue by
segment | Contoso Ltd. | Q3 2024") and nothing else on the page: fewer than 25 words, no header,
no footer, no cover. Generated in the tests, never stored in git."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import pymupdf

MEASURES = ("Net revenue", "Operating income", "Capital expenditure")
SEGMENTS = ("Cloud", "Devices", "Services", "Gaming", "Search")
_COLOURS = (
    (0.16, 0.38, 0.62),
    (0.85, 0.45, 0.13),
    (0.3, 0.6, 0.3),
    (0.6, 0.3, 0.6),
    (0.5, 0.5, 0.5),
)


@dataclass(frozen=True)
class Reviewer:
    name: str
    slug: str
    base: int  # scales every figure, so two companies never print the same numbers

    def value(self, measure: str, segment: str, year: int, quarter: int) -> int:
        m, s = MEASURES.index(measure), SEGMENTS.index(segment)
        return self.base * (m + 2) + 97 * s + 41 * quarter + 13 * (year - 2020) + 7 * s * quarter


REVIEWERS = (Reviewer("Contoso Ltd.", "contoso", 1100), Reviewer("Fabrikam Inc.", "fabrikam", 1700))


def _chart(doc: pymupdf.Document, reviewer: Reviewer, measure: str, year: int, q: int) -> None:
    page = doc.new_page(width=792, height=612)
    title = f"{measure} by segment | {reviewer.name} | Q{q} {year}"
    page.insert_text((48, 64), title, fontsize=18, fontname="helv")
    values = [reviewer.value(measure, s, year, q) for s in SEGMENTS]
    top = max(values)
    for i, (segment, value) in enumerate(zip(SEGMENTS, values, strict=True)):
        y = 130 + 70 * i
        page.insert_text((48, y + 22), segment, fontsize=13, fontname="helv")
        width = 440 * value / top
        page.draw_rect(pymupdf.Rect(170, y, 170 + width, y + 34), color=None, fill=_COLOURS[i])
        page.insert_text((180 + width, y + 22), f"{value:,}", fontsize=13, fontname="helv")


def write_chart_reviews(root: Path, quarters: tuple[tuple[int, int], ...]) -> list[Path]:
    """One review per reviewer and (year, quarter): a chart page per measure."""
    paths = []
    for reviewer in REVIEWERS:
        folder = root / reviewer.slug
        folder.mkdir(parents=True, exist_ok=True)
        for year, q in quarters:
            doc = pymupdf.open()
            for measure in MEASURES:
                _chart(doc, reviewer, measure, year, q)
            path = folder / f"{reviewer.slug}_{year}_q{q}_review.pdf"
            doc.save(path)
            doc.close()
            paths.append(path)
    return paths

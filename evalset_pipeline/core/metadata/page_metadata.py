"""Per-page axis values (template, entity, metric, period, revision, language) and where each came from.

Sources: `sidecar` (the user's metadata.csv; always wins), `extracted` (read off the page's text
layer or the PDF's own metadata), `cluster` (template found by clustering appearance), or ""
when nothing is known.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import pyarrow as pa

from evalset_pipeline.core.labels import PAGE_FIELDS
from evalset_pipeline.core.metadata.sidecar import Sidecar
from evalset_pipeline.core.render.pages import PageRender

FIELDS = PAGE_FIELDS
DEFAULT_AXES = ("period", "metric", "entity")

SCHEMA = pa.schema(
    [("unit_id", pa.string())]
    + [(f, pa.string()) for name in FIELDS for f in (name, f"{name}_source")]
)

# An extractor sees one page and returns the fields it could read: {field: value}.
Extractor = Callable[[PageRender], dict[str, str]]


@dataclass(frozen=True)
class PageMetadata:
    unit_id: str
    values: dict[str, str] = field(default_factory=dict)
    sources: dict[str, str] = field(default_factory=dict)

    def get(self, name: str) -> str:
        return self.values.get(name, "")

    def to_row(self) -> dict[str, str]:
        row = {"unit_id": self.unit_id}
        for name in FIELDS:
            row[name] = self.values.get(name, "")
            row[f"{name}_source"] = self.sources.get(name, "")
        return row

    @classmethod
    def from_row(cls, row: dict[str, str]) -> PageMetadata:
        values = {n: row[n] for n in FIELDS if row.get(n)}
        sources = {n: row[f"{n}_source"] for n in FIELDS if row.get(n)}
        return cls(row["unit_id"], values, sources)


def build_page_metadata(
    pages: Iterable[PageRender], sidecar: Sidecar, extractor: Extractor | None = None
) -> list[PageMetadata]:
    """Sidecar values win; the extractor fills what the sidecar leaves empty."""
    out = []
    for page in pages:
        values: dict[str, str] = {}
        sources: dict[str, str] = {}
        if extractor is not None:
            for name, value in extractor(page).items():
                if value and name in FIELDS:
                    values[name], sources[name] = value, "extracted"
        for name, value in _sidecar_values(sidecar, page).items():
            if value and name in FIELDS:
                values[name], sources[name] = value, "sidecar"
        out.append(PageMetadata(page.unit_id, values, sources))
    return out


def _sidecar_values(sidecar: Sidecar, page: PageRender) -> dict[str, str]:
    return sidecar.rows.get((page.document_path, page.page_number), {})

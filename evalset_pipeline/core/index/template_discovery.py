"""Template discovery from page records: the one entry point the stage and the scale benchmark share.

Input per page: its metadata template (or ""), its structural template ("statement:…" or ""),
its appearance vector, and its profile (document, page number, heading, layout, figure share).
Headings are carried over continuation pages of the same document before anything is compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from evalset_pipeline.core.index.page_structure import (
    HEADING_DIM,
    carried_headings,
    heading_key,
    heading_vector,
    structure_vectors,
)
from evalset_pipeline.core.index.templates import TemplateGroups, assign_templates

__all__ = ["PageShape", "discover_templates", "statement_template"]


@dataclass(frozen=True)
class PageShape:
    """What template discovery reads of one page besides its vector."""

    document: str = ""
    page_number: int = 0
    heading: str = ""
    layout: str = ""
    numeric_share: float = 0.0
    statement: str = ""
    basis: str = ""  # consolidated | separate where the document holds both


def statement_template(shape: PageShape) -> str:
    """A primary statement's template: the statement, and its basis where the document prints
    both (a consolidated balance sheet and a separate one are two statements that look alike)."""
    if not shape.statement:
        return ""
    return f"statement:{shape.statement}" + (f":{shape.basis}" if shape.basis else "")


def _heading_vectors(keys: Sequence[str]) -> np.ndarray:
    """One hashed vector per distinct heading (corpora repeat headings a lot), spread to pages."""
    distinct = {k: i for i, k in enumerate(dict.fromkeys(keys))}
    table = (
        np.stack([heading_vector(k) for k in distinct])
        if distinct
        else np.zeros((0, HEADING_DIM), np.float32)
    )
    return table[[distinct[k] for k in keys]] if keys else np.zeros((0, HEADING_DIM), np.float32)


def discover_templates(
    unit_ids: Sequence[str],
    named: Sequence[str],
    appearance: np.ndarray,
    shapes: Sequence[PageShape | None],
    *,
    seed: int = 0,
) -> TemplateGroups:
    """Metadata templates win, then statements, then clusters (see `templates.assign_templates`)."""

    def position(i: int) -> tuple[str, int]:
        shape = shapes[i]
        return (shape.document, shape.page_number) if shape else ("", i)

    order = sorted(range(len(unit_ids)), key=position)
    carried = carried_headings(
        [s.heading if (s := shapes[i]) else "" for i in order],
        [s.document if (s := shapes[i]) else f"?{i}" for i in order],
    )
    headings = [""] * len(unit_ids)
    keys: dict[str, str] = {}  # scale: one heading_key (regex) per distinct heading, not per page
    for i, h in zip(order, carried, strict=False):
        if h not in keys:
            keys[h] = heading_key(h)
        headings[i] = keys[h]
    rows = [
        {"heading": h, "layout": s.layout, "numeric_share": s.numeric_share} if s else None
        for h, s in zip(headings, shapes, strict=False)
    ]
    structural = [statement_template(s) if s else "" for s in shapes]
    return assign_templates(
        unit_ids,
        named,
        appearance,
        seed=seed,
        structural_templates=structural,
        headings=headings,
        heading_vectors=_heading_vectors(headings),
        structure_vectors=structure_vectors(appearance, rows),
    )

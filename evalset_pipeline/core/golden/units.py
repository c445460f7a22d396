"""A golden_units row: one page as a golden version records it (paths, hash and description)."""

from __future__ import annotations

from typing import Any

from evalset_pipeline.core.labels import PAGE_FIELDS


def unit_row(unit_id: str, render: Any, meta: Any | None, template_id: str = "") -> dict[str, Any]:
    """From the page's render record and its page_metadata (a row or a PageMetadata, anything
    with `.get(field)`); `template_id`, when given, wins over the metadata's (the template the
    grouping assigned). Missing values are ""."""
    values = {f: (meta.get(f) or "") if meta is not None else "" for f in PAGE_FIELDS}
    if template_id:
        values["template_id"] = template_id
    return {
        "unit_id": unit_id,
        "document_path": render.document_path,
        "document_sha256": render.document_sha256,
        "page_number": render.page_number,
        "render_path": render.render_path,
        "text_path": render.text_path,
        "render_hash": render.render_hash,
        **values,
    }

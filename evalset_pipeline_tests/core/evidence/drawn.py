"""Drawn statement pages as text-layer files, for the evidence tests."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from evalset_pipeline.core.evidence.index import (
    CELLS_SCHEMA,
    PAGES_SCHEMA,
    EvidenceIndex,
    page_evidence,
)
from evalset_pipeline_tests.core.reader.test_table_reader import centred, draw_layer, row


def statement(
    tmp_path: Path,
    name: str,
    title: str,
    years: tuple[str, str],
    rows: dict[str, tuple[str, str]],
    unit_line: str = "(In millions)",
) -> Path:
    """A page with one table: a title, its unit line, two year columns; its text layer's path."""
    lines = [[("l", 50, title)], [("l", 50, unit_line)], centred("", "", *years)]
    lines += [row(label, "", "", *cells) for label, cells in rows.items()]
    layer = draw_layer(lines, tmp_path, f"{name}.pdf")
    path = tmp_path / f"{name}.json"
    path.write_text(json.dumps(layer))
    return path


def index_of(pages: dict[str, Path]) -> EvidenceIndex:
    page_rows, cell_rows = [], []
    for unit, path in pages.items():
        keys, cells = page_evidence(unit, str(path), None)
        page_rows.append({"unit_id": unit, "page_key": "k", "text_keys": keys})
        cell_rows += cells
    return EvidenceIndex(
        pa.Table.from_pylist(page_rows, PAGES_SCHEMA), pa.Table.from_pylist(cell_rows, CELLS_SCHEMA)
    )

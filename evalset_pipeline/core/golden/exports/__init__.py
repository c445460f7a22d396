"""Export a golden-set version for external evaluation harnesses: beir, vidore, jsonl."""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from evalset_pipeline.core.golden.exports._common import (
    ExportError,
    data_dir_of,
    load_units,
    prepare_out_dir,
    write_version_info,
)
from evalset_pipeline.core.golden.model import GoldenSet

FORMATS = ("beir", "vidore", "jsonl")

__all__ = ["FORMATS", "ExportError", "export_golden_set"]


def export_golden_set(
    golden: GoldenSet, fmt: str, out_dir: str | Path, *, data_dir: str | Path | None = None, overwrite: bool = False
) -> dict[str, Any]:
    """Write `golden` in format `fmt` under `out_dir`; returns counts of what was written.

    `data_dir` (where units' render/text paths are rooted) defaults to the snapshot's data dir.
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    out = Path(out_dir)
    units = load_units(golden, Path(data_dir) if data_dir is not None else data_dir_of(golden))
    prepare_out_dir(out, overwrite)
    summary = importlib.import_module(f"{__name__}.{fmt}").export(golden, out, units)
    write_version_info(golden, out, fmt)
    return {"format": fmt, "version_id": golden.version_id, "out": str(out), **summary}

"""Which pages an export's corpus holds.

Default: **every page of the build** — the pages `evalset score` and the baselines rank over
(`page_renders`), not only the ones a judgment references. A corpus of referenced pages alone
has fewer distractors than the golden set was scored against, so an external tool would report
higher numbers than `evalset score` for the same retriever.

The build's working tables describe the *latest* build, which need not be the version being
exported; their corpus fingerprint must match the version's, or the export refuses (with
`referenced_only` as the way out). Referenced pages keep their `golden_units` row (the version's
own record); the others get the same row built from `page_renders` + `page_metadata`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalset_pipeline.core.exports._common import ExportError
from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.paths import DataPaths


@dataclass(frozen=True)
class CorpusRows:
    rows: list[dict[str, Any]]  # golden_units rows, sorted by unit_id
    scope: str  # "build" (every rendered page) or "referenced"
    n_referenced: int  # pages some judgment or gold of the version points at


def corpus_rows(golden: GoldenSet, data_dir: Path, *, referenced_only: bool = False) -> CorpusRows:
    from evalset_pipeline.core.golden.units import unit_row
    from evalset_pipeline.core.scoring.pooling import working_pages

    referenced = {
        r["unit_id"]: {k: v for k, v in r.items() if k != "version_id"}
        for r in golden.units.to_pylist()
    }
    if referenced_only:
        return CorpusRows(
            [referenced[u] for u in sorted(referenced)], "referenced", len(referenced)
        )
    paths = DataPaths(data_dir)
    if not paths.table("page_renders").exists():
        raise ExportError(
            f"{paths.table('page_renders')} does not exist, so the build's pages are unknown: export from the "
            "data directory of the build, or pass --referenced-only (judged pages only: fewer distractors "
            "than `evalset score` ranks)"
        )
    renders, meta, fingerprint = working_pages(paths)
    expected = golden.info.get("corpus_fingerprint")
    if fingerprint != expected:
        raise ExportError(
            f"the build's page tables are of corpus {fingerprint}, but {golden.version_id} was built on corpus "
            f"{expected}: rebuild that corpus first, or pass --referenced-only (judged pages only)"
        )
    rows = dict(referenced)
    for unit_id, render in renders.items():
        if unit_id not in rows:
            rows[unit_id] = unit_row(unit_id, render, meta.get(unit_id))
    return CorpusRows([rows[u] for u in sorted(rows)], "build", len(referenced))

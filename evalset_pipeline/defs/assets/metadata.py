"""What the UI shows for each materialization, and the versions that let it say what is stale.

- `to_metadata` / `md_table`: a stage's summary dict as Dagster metadata (numbers stay numbers, so
  the UI can plot them across materializations; nested values become JSON; tables Markdown).
- `stage_graph`: an asset's upstream assets and code version, both derived in one place
  (core/pipeline/graph.py) from what its stage reads and the stage module's import closure, so
  editing that code or an input marks the asset stale in the UI without anyone keeping a list.
- `table_version`: an asset's data version is a hash of what it persisted, so downstream assets
  are stale exactly when their inputs' content changed, not whenever upstream re-ran.
- `materialization`: a stage's `StageResult` as its asset's materialization, by those rules.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from typing import Any

import dagster as dg

from evalset_pipeline.core.hashing import sha256_file
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.pipeline import graph
from evalset_pipeline.core.pipeline.result import StageResult
from evalset_pipeline.core.questions.funnel import FUNNEL_ORDER


def stage_graph(stage: str) -> dict[str, Any]:
    """`deps` and `code_version` of a stage's asset, from core/pipeline/graph.py."""
    return {
        "deps": [dg.AssetKey(name) for name in graph.upstream(stage)],
        "code_version": graph.code_version(stage),
    }


def table_version(paths: DataPaths, *names: str, files: Iterable[str] = ()) -> dg.DataVersion:
    """Data version over an asset's persisted tables (and extra files under tables/)."""
    h = hashlib.sha256()
    for path in [paths.table(n) for n in names] + [paths.table_file(f) for f in files]:
        h.update(
            path.name.encode()
            + b"\0"
            + (sha256_file(path) if path.exists() else "missing").encode()
        )
    return dg.DataVersion(h.hexdigest()[:16])


def materialization(paths: DataPaths, result: StageResult, **extra: Any) -> dg.MaterializeResult:
    """A stage's result as its asset's materialization: its metrics (then `extra`) as metadata,
    its own data version or the hash of the tables it names."""
    version = (
        dg.DataVersion(result.version)
        if result.version is not None
        else table_version(paths, *result.tables, files=result.files)
    )
    return dg.MaterializeResult(
        metadata={**to_metadata(result.metrics), **extra}, data_version=version
    )


def to_metadata(summary: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in summary.items():
        if isinstance(value, bool) or isinstance(value, (int, float, str)) or value is None:
            out[key] = value
        elif isinstance(value, dg.MetadataValue):
            out[key] = value
        else:
            out[key] = dg.MetadataValue.json(json.loads(json.dumps(value, default=str)))
    return out


def md_cell(value: Any) -> str:
    return str(value if value is not None else "").replace("|", "\\|").replace("\n", " ")


def md_table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    body = "".join("| " + " | ".join(md_cell(r.get(c, "")) for c in columns) + " |\n" for r in rows)
    return head + body


def funnel_md(funnel: dict[str, Any]) -> str:
    """The question funnel as a two-column table, drop reasons indented under `dropped`."""
    rows = [{"stage": k, "count": funnel[k]} for k in FUNNEL_ORDER if k in funnel]
    rows += [
        {"stage": f"↳ dropped: {reason}", "count": n}
        for reason, n in (funnel.get("dropped_reasons") or {}).items()
    ]
    rows += [
        {"stage": f"↳ skipped: {reason}", "count": n}
        for reason, n in (funnel.get("skipped_reasons") or {}).items()
    ]
    return md_table(rows, ["stage", "count"])


def coverage_md(coverage: dict[str, dict[str, Any]]) -> str:
    """Per-axis coverage: items with a distractor on the axis, and how those distractors were labelled."""
    rows = [
        {
            "axis": a,
            "items": c["items"],
            "share of kept": f"{c['share']:.0%}",
            "distractors": c["distractors"],
            **{lab: c["labels"].get(lab, 0) for lab in ("sufficient", "supporting", "irrelevant")},
        }
        for a, c in coverage.items()
    ]
    return md_table(
        rows,
        ["axis", "items", "share of kept", "distractors", "sufficient", "supporting", "irrelevant"],
    )


def cost_md(provenance: dict[str, Any]) -> str:
    """The cost ledger summary: calls made and served from cache per task, tokens, USD."""
    calls, hits = (
        provenance.get("calls_this_build") or {},
        provenance.get("cache_hits_this_build") or {},
    )
    rows = [
        {"task": t, "calls": calls.get(t, 0), "cache hits": hits.get(t, 0)}
        for t in sorted(set(calls) | set(hits))
    ]
    tokens = provenance.get("tokens") or {}
    per_item = provenance.get("cost_per_kept_item_usd")
    return (
        md_table(rows, ["task", "calls", "cache hits"])
        + f"\n**tokens** prompt {tokens.get('prompt', 0):,} / completion {tokens.get('completion', 0):,} · "
        f"**cost** {provenance.get('cost_usd', 0):.4f} USD · **per kept item** "
        f"{'n/a' if per_item is None else f'{per_item:.6f} USD'} · "
        f"backend `{provenance.get('backend', '')}` model `{provenance.get('model', '') or '-'}`\n"
    )

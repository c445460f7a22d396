"""A Markdown preview of a few golden items: the gold page beside its distractors, large enough to compare.

Each page is its render scaled to 280 px wide as a small JPEG data URI (a few KB): Dagster's
Markdown metadata renderer shows `![alt](data:image/jpeg;base64,…)` images (checked in headless
Chromium against dagster-webserver 1.13; see docs/dagster.md), so the preview needs no file
server and survives in the run history after artifacts are pruned. The full page per version,
every item with links to the full renders, is `preview_page` (core/pipeline/golden_preview.py).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

import dagster as dg

from evalset_pipeline.core.checks.golden_gates import axis_coverage
from evalset_pipeline.core.golden.model import GoldenSetDraft, PublishResult
from evalset_pipeline.core.pipeline.context import StageContext
from evalset_pipeline.core.pipeline.golden_preview import (
    ordered_cells,
    preview_image_uri,
    preview_images,
    write_preview_page,
)
from evalset_pipeline.core.pipeline.page_renders import load_page_renders
from evalset_pipeline.defs.assets.metadata import cost_md, coverage_md, funnel_md, md_cell


def _img(alt: str, path: Path | None, cache_dir: Path | None) -> str:
    uri = preview_image_uri(path, cache_dir) if path else None
    return f"![{alt}]({uri})" if uri else f"*{alt}: no image*"


def items_preview_md(
    items: Iterable[Mapping[str, Any]],
    judgments: Iterable[Mapping[str, Any]],
    units: Mapping[str, Mapping[str, Any]],
    thumbs: Mapping[str, Path],
    limit: int = 4,
    cache_dir: Path | None = None,
) -> str:
    """Per item: question and answer, then one table row of page images (gold first), labels, pages.

    items: golden_items rows; judgments: golden_judgments rows; units: unit_id -> golden_units row;
    thumbs: unit_id -> absolute path of its render. Main-slice items first, by item_id.
    """
    by_item: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in judgments:
        by_item[j["item_id"]].append(j)
    chosen = sorted(items, key=lambda i: (i["slice"] != "main", i["item_id"]))[:limit]
    if not chosen:
        return "*no items*"
    out = []
    for item in chosen:
        cells = ordered_cells(item, by_item[item["item_id"]])
        out.append(
            f"**{md_cell(item['item_id'])}** ({item['slice']}): {md_cell(item['question'])} "
            f"→ *{md_cell(item.get('answer', ''))}*\n\n"
        )
        out.append("| " + " | ".join(c[0] for c in cells) + " |\n|" + "---|" * len(cells) + "\n")
        out.append(
            "| " + " | ".join(_img(c[0], thumbs.get(c[1]), cache_dir) for c in cells) + " |\n"
        )
        out.append(
            "| " + " | ".join(f"**{c[2]}**" if c[0] == "gold" else c[2] for c in cells) + " |\n"
        )
        out.append("| " + " | ".join(_page_ref(units.get(c[1], {})) for c in cells) + " |\n\n")
    return "".join(out)


def _page_ref(unit: Mapping[str, Any]) -> str:
    if not unit:
        return ""
    values = " · ".join(str(unit[k]) for k in ("entity", "metric", "period") if unit.get(k))
    return md_cell(
        f"{Path(str(unit.get('document_path', ''))).name} p.{unit.get('page_number', '?')} {values}".strip()
    )


def golden_set_story(
    ctx: StageContext, result: PublishResult, draft: GoldenSetDraft
) -> dict[str, Any]:
    """The golden_set materialization at a glance: counts, funnel, per-axis coverage, cost, preview."""
    items, judgments = draft.items.to_pylist(), draft.judgments.to_pylist()
    units = {u["unit_id"]: u for u in draft.units.to_pylist()}
    slices: dict[str, int] = defaultdict(int)
    for i in items:
        slices[i["slice"]] += 1
    root = ctx.paths.root
    thumbs = {p.unit_id: root / p.render_path for p in load_page_renders(ctx) if p.unit_id in units}
    page = write_preview_page(root, result.version_id, items, judgments, units)
    provenance = draft.provenance
    return {
        "version_id": result.version_id,
        "seq": result.seq,
        "new_version": result.created,
        "items": len(items),
        **{f"items_{s}": n for s, n in sorted(slices.items())},
        "judgments": len(judgments),
        "units": len(units),
        "corpus_fingerprint": draft.corpus.fingerprint[:16],
        "corpus_pages": draft.corpus.pages,
        "model_calls": sum((provenance.get("calls_this_build") or {}).values()),
        "cost_usd": float(provenance.get("cost_usd") or 0.0),
        "funnel": dg.MetadataValue.md(funnel_md(draft.funnel)),
        "axis_coverage": dg.MetadataValue.md(
            coverage_md(axis_coverage(items, judgments, ctx.config.axes))
        ),
        "cost_ledger": dg.MetadataValue.md(cost_md(provenance)),
        "preview": dg.MetadataValue.md(
            items_preview_md(items, judgments, units, thumbs, cache_dir=preview_images(root))
        ),
        "preview_page": dg.MetadataValue.path(str(page.resolve())),
        "preview_page_url": dg.MetadataValue.url(page.resolve().as_uri()),
        "snapshot": dg.MetadataValue.path(str(result.snapshot_dir)),
    }

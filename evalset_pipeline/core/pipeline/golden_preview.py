"""A page per golden version to compare a gold page with its look-alikes: `artifacts/previews/<version>.html`.

Each item shows its question and answer, then the gold page and every distractor side by side at
a readable width (360 px), each image linked to its full render, with its label, axis and page.
Images are linked, not copied: the renders stay where page_renders put them (content-addressed),
and the page is small. Everything a page or a model wrote is HTML-escaped.

`preview_image_uri` gives the same pages as small JPEG data URIs for the asset's Markdown preview
in the Dagster UI, which cannot serve local files.
"""

from __future__ import annotations

import base64
import html
import io
import os
from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from evalset_pipeline.core.atomic import write_text_atomic

PREVIEW_WIDTH = 360  # px in the HTML page
INLINE_WIDTH = 280  # px of the data-URI images in the UI's Markdown preview
INLINE_QUALITY = 60


def preview_images(data_dir: Path) -> Path:
    return Path(data_dir) / "artifacts" / "previews" / "images"


def preview_path(data_dir: Path, version_id: str) -> Path:
    return Path(data_dir) / "artifacts" / "previews" / f"{version_id}.html"


def preview_image_uri(
    render: Path, cache_dir: Path | None = None, width: int = INLINE_WIDTH
) -> str | None:
    """The render scaled to `width` px as a JPEG data URI (None if it cannot be read). With
    `cache_dir` the JPEG is kept there by the render's (content-addressed) name, so a no-change
    rebuild encodes nothing."""
    from PIL import Image

    from evalset_pipeline.core.atomic import write_bytes_atomic

    cached = Path(cache_dir or render.parent) / f"{render.stem}.w{width}.jpg"
    try:
        if cache_dir is None:
            raise FileNotFoundError(cached)
        data = cached.read_bytes()
    except OSError:
        try:
            with Image.open(render) as opened:
                im = opened.convert("RGB")
                im.thumbnail((width, width * 4))
                buf = io.BytesIO()
                im.save(buf, "JPEG", quality=INLINE_QUALITY, optimize=True)
        except OSError:
            return None
        data = buf.getvalue()
        if cache_dir is not None:
            try:
                write_bytes_atomic(cached, data)
            except OSError:
                pass  # a read-only data dir: encode again next time
    return "data:image/jpeg;base64," + base64.b64encode(data).decode("ascii")


def ordered_cells(
    item: Mapping[str, Any], judgments: list[Mapping[str, Any]]
) -> list[tuple[str, str, str]]:
    """(role text, unit id, label) of an item's pages: the gold first, then every other page of
    its pool that answers (with the sources that found it), then distractors by axis."""
    labels = {j["unit_id"]: j for j in judgments}
    gold = item["gold_unit_id"]
    cells = [("gold", gold, labels.get(gold, {}).get("label", "?"))]
    cells += [
        (f"also answers ({j['axis'] or 'pooled'})", j["unit_id"], j["label"])
        for j in sorted(judgments, key=lambda j: j["unit_id"])
        if j["role"] == "pooled" and j["label"] == "sufficient" and j["unit_id"] != gold
    ]
    cells += [
        (f"{j['axis']} distractor", j["unit_id"], j["label"])
        for j in sorted(
            (j for j in judgments if j["role"] == "distractor"),
            key=lambda j: (j["axis"], j["unit_id"]),
        )
    ]
    return cells


_CSS = (
    """body{font:14px/1.4 system-ui,sans-serif;margin:24px;color:#1d1d1f}h1{font-size:20px}
.item{border-top:1px solid #ddd;padding:16px 0}.q{font-size:16px;font-weight:600}.a{color:#555;margin:4px 0 12px}
.row{display:flex;gap:12px;overflow-x:auto}.cell{flex:0 0 auto;width:%dpx}.cell img{width:100%%;border:1px solid #ccc}
.gold img{border:3px solid #2e7d32}.lab{font-weight:600}.sufficient{color:#2e7d32}.supporting{color:#b26a00}
.irrelevant{color:#666}.meta{color:#555;font-size:12px}"""
    % PREVIEW_WIDTH
)


def write_preview_page(
    data_dir: Path,
    version_id: str,
    items: Iterable[Mapping[str, Any]],
    judgments: Iterable[Mapping[str, Any]],
    units: Mapping[str, Mapping[str, Any]],
) -> Path:
    """Write the version's preview page; returns its path. Main-slice items first, by item id."""
    out = preview_path(data_dir, version_id)
    by_item: dict[str, list[Mapping[str, Any]]] = defaultdict(list)
    for j in judgments:
        by_item[j["item_id"]].append(j)
    e = html.escape
    parts = [
        f"<!doctype html><meta charset=utf-8><title>{e(version_id)}</title><style>{_CSS}</style>",
        f"<h1>Golden set {e(version_id)}</h1><p>Each question with its gold page (green frame) and its "
        f"distractors: same template, one axis different. Click a page for its full render.</p>",
    ]
    for item in sorted(items, key=lambda i: (i["slice"] != "main", i["item_id"])):
        parts.append(
            f'<div class=item id="{e(item["item_id"])}"><div class=q>{e(item["question"])}</div>'
            f"<div class=a>{e(item['slice'])} · answer: {e(str(item.get('answer') or ''))}</div><div class=row>"
        )
        for role, unit_id, label in ordered_cells(item, by_item[item["item_id"]]):
            unit = units.get(unit_id, {})
            href = e(
                Path(
                    os.path.relpath(Path(data_dir) / str(unit.get("render_path", "")), out.parent)
                ).as_posix()
            )
            where = (
                f"{Path(str(unit.get('document_path', ''))).name} p.{unit.get('page_number', '?')}"
            )
            values = " · ".join(str(unit[k]) for k in ("entity", "metric", "period") if unit.get(k))
            parts.append(
                f'<div class="cell{" gold" if role == "gold" else ""}"><a href="{href}"><img loading=lazy '
                f'src="{href}" alt="{e(role)} {e(unit_id)}"></a><div><span class="lab {e(label)}">{e(label)}</span> '
                f"· {e(role)}</div><div class=meta>{e(where)}<br>{e(values)}</div></div>"
            )
        parts.append("</div></div>")
    write_text_atomic(out, "".join(parts))
    return out

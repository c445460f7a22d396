"""One self-contained JSON record per item: the question, and every candidate with its label,
text layer and image (a path into images/ plus its sha256), so no other file is needed to judge it.

    golden.jsonl   {"item_id", "slice", "question", "answer", ..., "candidates": [{unit_id, role, axis,
                    label, score, rationale, label_source, text, title, image, image_sha256, metadata}]}
    images/        one PNG per distinct render
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalset_pipeline.core.golden.exports._common import SCORES, UnitPayload, write_images, write_jsonl
from evalset_pipeline.core.golden.model import GoldenSet

_ROLE_ORDER = {"gold": 0, "distractor": 1, "pooled": 2}


def export(golden: GoldenSet, out_dir: Path, units: dict[str, UnitPayload]) -> dict[str, Any]:
    write_images(units, out_dir)
    candidates: dict[str, list[dict[str, Any]]] = {}
    for j in golden.judgments.to_pylist():
        u = units[j["unit_id"]]
        candidates.setdefault(j["item_id"], []).append(
            {
                "unit_id": j["unit_id"],
                "role": j["role"],
                "axis": j["axis"],
                "label": j["label"],
                "score": SCORES[j["label"]],
                "rationale": j["rationale"],
                "label_source": j["label_source"],
                "title": u.title,
                "text": u.text,
                "image": u.image_name,
                "image_sha256": Path(u.image_name).stem,
                "metadata": u.metadata,
            }
        )
    records = []
    for item in golden.items.to_pylist():
        item.pop("version_id", None)
        cands = sorted(candidates.get(item["item_id"], []), key=lambda c: (_ROLE_ORDER.get(c["role"], 9), c["unit_id"]))
        records.append({"version_id": golden.version_id, **item, "candidates": cands})
    write_jsonl(out_dir / "golden.jsonl", records)
    return {"items": len(records), "candidates": sum(len(r["candidates"]) for r in records)}

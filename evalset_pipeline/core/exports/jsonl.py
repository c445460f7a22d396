"""One self-contained JSON record per item: the question, and every candidate with its label,
text layer and image (a path into images/ plus its sha256), so no other file is needed to judge it.

    golden.jsonl   {"item_id", "slice", "question", "answer", ..., "candidates": [{unit_id, role, axis,
                    label, grade, score, rationale, label_source, text, title, image, image_sha256, metadata}]}
    corpus.jsonl   every exported page (the retrieval corpus): {unit_id, title, text, image, metadata}
    images/        one PNG per distinct render

`grade` is the scorer's grade (sufficient 2, supporting 1, irrelevant 0); `score` is the qrels
score under the export's relevance policy (binary by default: 1 = sufficient).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalset_pipeline.core.exports._common import corpus_record, write_images, write_jsonl
from evalset_pipeline.core.exports.data import ExportData
from evalset_pipeline.core.scoring.conventions import GRADES

_ROLE_ORDER = {"gold": 0, "distractor": 1, "pooled": 2}


def export(data: ExportData, out_dir: Path) -> dict[str, Any]:
    images = write_images(data.units, out_dir)
    units = {u.unit_id: u for u in data.units}
    write_jsonl(
        out_dir / "corpus.jsonl",
        (corpus_record(u, images[u.unit_id], "unit_id") for u in data.units),
    )
    candidates: dict[str, list[dict[str, Any]]] = {}
    for j in data.golden.judgments.to_pylist():
        u = units[j["unit_id"]]
        grade = GRADES[j["label"]]
        candidates.setdefault(j["item_id"], []).append(
            {
                "unit_id": j["unit_id"],
                "role": j["role"],
                "axis": j["axis"],
                "label": j["label"],
                "grade": grade,
                "score": data.policy.score(grade),
                "rationale": j["rationale"],
                "label_source": j["label_source"],
                "title": u.title,
                "text": u.text,
                "image": images[u.unit_id],
                "image_sha256": Path(images[u.unit_id]).stem,
                "metadata": u.metadata,
            }
        )
    records = []
    for item in data.items():
        cands = sorted(
            candidates.get(item["item_id"], []),
            key=lambda c: (_ROLE_ORDER.get(c["role"], 9), c["unit_id"]),
        )
        records.append({"version_id": data.golden.version_id, **item, "candidates": cands})
    write_jsonl(out_dir / "golden.jsonl", records)
    return {"files": ["golden.jsonl", "corpus.jsonl", "images/"]}

"""What every export needs: each unit's image and text layer, relevance grades, output checks.

Every unit is exported with both modalities (image file + text layer), so a text-only and an
image retriever are scored on exactly the same pages and queries.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.hashing import canonical_json, sha256_bytes

# Graded relevance (TREC style): sufficient answers the question, supporting helps, irrelevant = 0.
SCORES = {"sufficient": 2, "supporting": 1, "irrelevant": 0}
UNIT_METADATA = (
    "document_path",
    "document_sha256",
    "page_number",
    "template_id",
    "entity",
    "metric",
    "period",
    "revision",
    "language",
)


class ExportError(RuntimeError):
    """The export cannot be produced (missing render or text layer, non-empty output dir)."""


@dataclass(frozen=True)
class UnitPayload:
    unit_id: str
    row: dict[str, Any]
    image: bytes
    image_name: str  # images/<sha256>.<ext>: content-addressed, safe for any unit id
    text: str
    title: str

    @property
    def metadata(self) -> dict[str, Any]:
        return {k: self.row.get(k) for k in UNIT_METADATA}


def split_name(slice_name: str) -> str:
    """The main slice is the benchmark's `test` split; other slices keep their own split name."""
    return "test" if slice_name == "main" else slice_name


def page_title(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def data_dir_of(golden: GoldenSet) -> Path:
    return golden.snapshot_dir.parents[2]  # <data>/golden/versions/<id>


def load_units(golden: GoldenSet, data_dir: Path) -> dict[str, UnitPayload]:
    """Read every unit's render and text layer (paths are relative to the data directory)."""
    payloads: dict[str, UnitPayload] = {}
    missing: list[str] = []
    for row in golden.units.to_pylist():
        image_path, text_path = data_dir / row["render_path"], data_dir / row["text_path"]
        try:
            image = image_path.read_bytes()
            layer = json.loads(text_path.read_text(encoding="utf-8"))
        except (OSError, ValueError) as exc:
            missing.append(f"{row['unit_id']}: {exc}")
            continue
        text = str(layer.get("text") or "")
        suffix = Path(row["render_path"]).suffix or ".png"
        payloads[row["unit_id"]] = UnitPayload(
            unit_id=row["unit_id"],
            row=row,
            image=image,
            image_name=f"images/{sha256_bytes(image)}{suffix}",
            text=text,
            title=page_title(text),
        )
    if missing:
        shown = "\n  ".join(missing[:10])
        raise ExportError(f"{len(missing)} unit(s) lack a readable render or text layer under {data_dir}:\n  {shown}")
    return payloads


def prepare_out_dir(out_dir: Path, overwrite: bool) -> None:
    if out_dir.exists() and any(out_dir.iterdir()) and not overwrite:
        raise ExportError(f"{out_dir} is not empty; choose another directory or pass overwrite")
    out_dir.mkdir(parents=True, exist_ok=True)


def write_images(payloads: dict[str, UnitPayload], out_dir: Path) -> None:
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    for payload in payloads.values():
        target = out_dir / payload.image_name
        if not target.exists():  # identical renders are stored once
            target.write_bytes(payload.image)


def write_version_info(golden: GoldenSet, out_dir: Path, fmt: str) -> None:
    """Stamp the export with the version it came from, so a score can be traced to its gold."""
    # canonical_json turns datetimes into strings; round-tripping gives plain JSON values.
    record = {"format": fmt, "version_id": golden.version_id, "golden_set": json.loads(canonical_json(golden.info))}
    (out_dir / "golden_set.json").write_text(json.dumps(record, indent=2, ensure_ascii=False), encoding="utf-8")


def write_jsonl(path: Path, records: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")

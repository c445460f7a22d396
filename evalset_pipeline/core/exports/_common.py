"""What every export needs: each unit's image and text layer, output checks, small writers.

Every unit is exported with both modalities (image file + text layer), so a text-only and an
image retriever are scored on exactly the same pages and queries. Images are read when a
writer asks for them, not all at once, so a whole-corpus export never holds every render in
memory.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.golden.schema import UNIT_DESCRIPTION
from evalset_pipeline.core.hashing import canonical_json, sha256_bytes
from evalset_pipeline.core.pagetext.layer import layer_text, read_text_layer

UNIT_METADATA = ("document_path", *UNIT_DESCRIPTION)


class ExportError(RuntimeError):
    """The export cannot be produced (missing render or text layer, non-empty output dir, …)."""


@dataclass(frozen=True)
class UnitPayload:
    unit_id: str
    row: dict[str, Any]  # a golden_units row
    image_path: Path  # absolute path of the render
    text: str
    title: str

    @property
    def metadata(self) -> dict[str, Any]:
        return {k: self.row.get(k) for k in UNIT_METADATA}

    def read_image(self) -> bytes:
        return self.image_path.read_bytes()

    def image_name(self, image: bytes) -> str:
        """images/<sha256>.<ext>: content-addressed, safe for any unit id, identical renders once."""
        return f"images/{sha256_bytes(image)}{self.image_path.suffix or '.png'}"


def corpus_record(unit: UnitPayload, image: str, id_key: str) -> dict[str, Any]:
    """A corpus.jsonl line: the unit under the format's id key, its title, text, image and metadata."""
    return {
        id_key: unit.unit_id,
        "title": unit.title,
        "text": unit.text,
        "image": image,
        "metadata": unit.metadata,
    }


def split_name(slice_name: str) -> str:
    """The main slice is the `test` split (every tool's default); other slices keep their name."""
    return "test" if slice_name == "main" else slice_name


def page_title(text: str) -> str:
    for line in text.splitlines():
        if line.strip():
            return line.strip()[:200]
    return ""


def data_dir_of(golden: GoldenSet) -> Path:
    return golden.snapshot_dir.parents[2]  # <data>/golden/versions/<id>


def load_units(rows: Iterable[dict[str, Any]], data_dir: Path) -> list[UnitPayload]:
    """Check every unit's render and read its text layer (paths are relative to the data directory).

    All missing files are reported at once, before anything is written.
    """
    payloads: list[UnitPayload] = []
    missing: list[str] = []
    for row in rows:
        image_path, text_path = data_dir / row["render_path"], data_dir / row["text_path"]
        try:
            if not image_path.is_file():
                raise OSError(f"no render at {image_path}")
            layer = read_text_layer(text_path)
        except (OSError, ValueError) as exc:
            missing.append(f"{row['unit_id']}: {exc}")
            continue
        text = layer_text(layer)
        payloads.append(UnitPayload(row["unit_id"], row, image_path, text, page_title(text)))
    if missing:
        shown = "\n  ".join(missing[:10])
        raise ExportError(
            f"{len(missing)} unit(s) lack a readable render or text layer under {data_dir}:\n  {shown}"
        )
    return payloads


def prepare_out_dir(out_dir: Path, overwrite: bool) -> None:
    if out_dir.exists() and any(out_dir.iterdir()) and not overwrite:
        raise ExportError(f"{out_dir} is not empty; choose another directory or pass overwrite")
    out_dir.mkdir(parents=True, exist_ok=True)


def write_images(units: Iterable[UnitPayload], out_dir: Path) -> dict[str, str]:
    """Copy every render into images/; returns unit id -> relative image path."""
    (out_dir / "images").mkdir(parents=True, exist_ok=True)
    names: dict[str, str] = {}
    for unit in units:
        image = unit.read_image()
        name = names[unit.unit_id] = unit.image_name(image)
        target = out_dir / name
        if not target.exists():  # identical renders are stored once
            target.write_bytes(image)
    return names


def write_version_info(golden: GoldenSet, out_dir: Path, record: dict[str, Any]) -> None:
    """Stamp the export with the version it came from, so a score can be traced to its gold."""
    # canonical_json turns datetimes into strings; round-tripping gives plain JSON values.
    info = {
        **record,
        "version_id": golden.version_id,
        "golden_set": json.loads(canonical_json(golden.info)),
    }
    (out_dir / "golden_set.json").write_text(
        json.dumps(info, indent=2, ensure_ascii=False), encoding="utf-8"
    )


def write_jsonl(path: Path, records: Iterable[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for record in records:
            f.write(json.dumps(record, ensure_ascii=False) + "\n")

"""Small synthetic golden-set drafts with real PNG and text-layer files (no pipeline needed).

Used by the golden-set tests, the CLI tests and the child processes the concurrency and crash
tests start (which get the repository on PYTHONPATH from `child_env`).
"""

from __future__ import annotations

import json
import os
import struct
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa

from evalset_pipeline.core.corpus.manifest import CorpusManifest
from evalset_pipeline.core.golden.model import GoldenSetDraft

REPO = Path(__file__).resolve().parents[3]


def child_env() -> dict[str, str]:
    """Environment for child processes, with this repository importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    return env


def tiny_png(seed: int) -> bytes:
    """A valid 4x4 RGB PNG whose pixels depend on `seed` (so renders differ)."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return (
            struct.pack(">I", len(data))
            + kind
            + data
            + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
        )

    row = b"\x00" + bytes((seed * 37 + i * 11) % 256 for i in range(12))
    raw = row * 4
    ihdr = struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + chunk(b"IHDR", ihdr)
        + chunk(b"IDAT", zlib.compress(raw))
        + chunk(b"IEND", b"")
    )


def write_units(data_dir: Path, n_units: int) -> list[dict]:
    renders = data_dir / "artifacts" / "renders"
    renders.mkdir(parents=True, exist_ok=True)
    units = []
    for u in range(n_units):
        unit_id = f"doc{u // 4}:p{u % 4 + 1}"
        stem = f"u{u:04d}"
        png, text = renders / f"{stem}.png", renders / f"{stem}.json"
        if not png.exists():
            png.write_bytes(tiny_png(u))
            layer = {
                "text": f"\nAcme Corp report {u // 4}\nRevenue FY24 Q{u % 4 + 1}: {100 + u} MUSD",
                "words": [],
                "width": 4,
                "height": 4,
            }
            text.write_text(json.dumps(layer), encoding="utf-8")
        units.append(
            {
                "unit_id": unit_id,
                "document_path": f"doc{u // 4}.pdf",
                "document_sha256": f"{u // 4:064x}",
                "page_number": u % 4 + 1,
                "render_path": f"artifacts/renders/{stem}.png",
                "text_path": f"artifacts/renders/{stem}.json",
                "render_hash": f"{u:064x}",
                "template_id": "t-revenue",
                "entity": "Acme",
                "metric": "revenue",
                "period": f"FY24Q{u % 4 + 1}",
                "revision": "",
                "language": "en",
            }
        )
    return units


def make_draft(
    data_dir: Path, n_items: int = 6, variant: int = 0, n_units: int = 8, **changes: object
) -> GoldenSetDraft:
    """A draft with `n_items` questions, each with its gold page and two distractors.

    `variant` changes question 0's text, so each variant is a distinct version.
    """
    units = write_units(Path(data_dir), n_units)
    items, judgments = [], []
    for i in range(n_items):
        gold = units[i % n_units]["unit_id"]
        question = f"What was Acme revenue in FY24 Q{i % 4 + 1}?" + (
            f" (v{variant})" if i == 0 and variant else ""
        )
        items.append(
            {
                "item_id": f"it-{i:04d}",
                "slice": "main" if i % 5 else "underspecified" if i else "main",
                "question": question,
                "answer": f"{100 + i % n_units} MUSD",
                "gold_unit_id": gold,
                "original_question": question,
                "language": "en",
                "qualified_axes": "",
            }
        )
        judgments.append(
            {
                "item_id": f"it-{i:04d}",
                "unit_id": gold,
                "role": "gold",
                "axis": "",
                "label": "sufficient",
                "rationale": "states it",
                "label_source": "model",
            }
        )
        for k, label in ((1, "irrelevant"), (2, "supporting")):
            other = units[(i + k) % n_units]["unit_id"]
            judgments.append(
                {
                    "item_id": f"it-{i:04d}",
                    "unit_id": other,
                    "role": "distractor",
                    "axis": "period",
                    "label": label,
                    "rationale": "other period",
                    "label_source": "model",
                }
            )
    draft = GoldenSetDraft(
        items=pa.Table.from_pylist(items),
        judgments=pa.Table.from_pylist(judgments),
        units=pa.Table.from_pylist(units),
        corpus=CorpusManifest(
            fingerprint="corpus-fp-1",
            built_at=datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC),
            documents=(n_units + 3) // 4,
            pages=n_units,
        ),
        config_fingerprint="config-fp-1",
        funnel={"candidates": n_items + 2, "kept": n_items, "dropped": {"unanswerable": 2}},
        provenance={"backend": "textlayer", "calls": 12},
    )
    for key, value in changes.items():
        setattr(draft, key, value)
    return draft

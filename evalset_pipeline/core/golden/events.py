"""Publish events: the history of what "latest" was, one immutable file per event.

"latest" is the version of the most recent build's inputs, not the highest seq: revert a typo
in metadata.csv and rebuild, and the version of the restored inputs (published before, so no
new row) must become latest again. Each time LATEST moves, publishing writes
`golden/publishes/<event>.json` (event = 1, 2, 3, … under the publish lock) before swapping
LATEST; the last event is latest, and `LATEST`, the warehouse's `golden_publishes` table and
the reader copy are indexes derived from these files, repaired by the next publish.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from typing import Any

from evalset_pipeline.core.golden.errors import GoldenSetCorrupt
from evalset_pipeline.core.golden.layout import GoldenLayout, atomic_write_bytes
from evalset_pipeline.core.hashing import canonical_json

_NAME = "{:08d}.json"


@dataclass(frozen=True)
class PublishEvent:
    event: int
    version_id: str
    seq: int  # the version's own seq (when it was first published)
    published_at: str  # UTC, ISO 8601
    new_version: bool  # False: an existing version confirmed again by a build
    manifest_sha256: str = (
        ""  # of the version's manifest.json bytes, so `verify` can tell it was edited
    )


def read_events(layout: GoldenLayout) -> list[PublishEvent]:
    if not layout.publishes.is_dir():
        return []
    out = []
    for path in sorted(layout.publishes.glob("*.json")):
        if not path.stem.isdigit():
            continue
        try:
            out.append(PublishEvent(**json.loads(path.read_text(encoding="utf-8"))))
        except (ValueError, TypeError) as exc:
            raise GoldenSetCorrupt(f"{path} is not a publish event: {exc}") from exc
    return sorted(out, key=lambda e: e.event)


def write_event(layout: GoldenLayout, event: PublishEvent) -> None:
    layout.publishes.mkdir(parents=True, exist_ok=True)
    atomic_write_bytes(
        layout.publishes / _NAME.format(event.event), canonical_json(asdict(event)).encode("utf-8")
    )


def as_row(event: PublishEvent) -> dict[str, Any]:
    return asdict(event)

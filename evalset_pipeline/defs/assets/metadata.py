"""Turn a stage's summary dict into Dagster metadata the UI shows well."""
from __future__ import annotations

import json
from typing import Any

import dagster as dg


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


def md_table(rows: list[dict[str, Any]], columns: list[str]) -> str:
    head = "| " + " | ".join(columns) + " |\n|" + "---|" * len(columns) + "\n"
    body = "".join("| " + " | ".join(str(r.get(c, "")).replace("|", "\\|") for c in columns) + " |\n" for r in rows)
    return head + body

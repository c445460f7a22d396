"""The metadata sidecar (`metadata.csv` at the corpus root): how users hand in what they know.

Columns: document, page, template_id, entity, metric, period, revision, language. `document`
is relative to the corpus root, `page` is 1-based. Any column but document/page may be empty or
absent; what is missing is extracted or clustered later. Bad rows are reported with their line
number and skipped; valid rows are always used.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass, field
from pathlib import Path

from evalset_pipeline.core.metadata.periods import normalize_period

SIDECAR_NAME = "metadata.csv"
KEY_COLUMNS = ("document", "page")
VALUE_COLUMNS = ("template_id", "entity", "metric", "period", "revision", "language")


@dataclass(frozen=True)
class SidecarIssue:
    line: int
    message: str

    def __str__(self) -> str:
        return f"{SIDECAR_NAME}:{self.line}: {self.message}"


@dataclass
class Sidecar:
    rows: dict[tuple[str, int], dict[str, str]] = field(default_factory=dict)  # (document, page) -> values
    issues: list[SidecarIssue] = field(default_factory=list)
    extra_columns: tuple[str, ...] = ()  # user columns, usable as extra axes (e.g. `revision`, `region`)


def read_sidecar(corpus_root: str | Path, known_pages: dict[str, int] | None = None) -> Sidecar:
    """Read the sidecar if there is one. `known_pages` maps document path -> page count."""
    path = Path(corpus_root) / SIDECAR_NAME
    out = Sidecar()
    if not path.exists():
        return out
    with open(path, newline="", encoding="utf-8-sig") as f:
        reader = csv.DictReader(f)
        header = [h.strip() for h in (reader.fieldnames or [])]
        missing = [c for c in KEY_COLUMNS if c not in header]
        if missing:
            out.issues.append(SidecarIssue(1, f"missing required column(s) {', '.join(missing)}; sidecar ignored"))
            return out
        out.extra_columns = tuple(h for h in header if h not in KEY_COLUMNS + VALUE_COLUMNS)
        seen_line: dict[tuple[str, int], int] = {}
        conflicted: set[tuple[str, int]] = set()
        for line, raw in enumerate(reader, start=2):
            row = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if k is not None}
            doc, page_text = row.get("document", "").replace("\\", "/"), row.get("page", "")
            if not doc or not page_text:
                out.issues.append(SidecarIssue(line, "empty document or page; row skipped"))
                continue
            try:
                page = int(page_text)
            except ValueError:
                out.issues.append(SidecarIssue(line, f"page {page_text!r} is not a number; row skipped"))
                continue
            if known_pages is not None:
                if doc not in known_pages:
                    out.issues.append(SidecarIssue(line, f"document {doc!r} is not in the corpus; row skipped"))
                    continue
                if not 1 <= page <= known_pages[doc]:
                    out.issues.append(SidecarIssue(line, f"{doc} has no page {page} (it has {known_pages[doc]}); row skipped"))
                    continue
            values = {k: v for k, v in row.items() if k not in KEY_COLUMNS and v}
            if "period" in values:
                canonical = normalize_period(values["period"])
                if canonical is None:
                    out.issues.append(SidecarIssue(line, f"period {values['period']!r} not recognised; kept as written"))
                else:
                    values["period"] = canonical
            key = (doc, page)
            if key in conflicted:
                out.issues.append(SidecarIssue(line, f"another row for conflicting {doc} page {page}; skipped"))
                continue
            if key in out.rows and out.rows[key] != values:
                out.issues.append(
                    SidecarIssue(line, f"conflicts with line {seen_line[key]} for {doc} page {page}; both rows skipped")
                )
                del out.rows[key]  # a conflict means we know nothing reliable about this page
                conflicted.add(key)
                continue
            out.rows[key] = values
            seen_line[key] = line
    return out

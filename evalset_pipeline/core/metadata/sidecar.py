"""The metadata sidecar (`metadata.csv` at the corpus root): how users hand in what they know.

Columns: document, page, template_id, entity, metric, period, revision, language. `document`
is relative to the corpus root, `page` is 1-based. Any column but document/page may be empty or
absent; what is missing is extracted or clustered later. Bad rows are reported with their line
number and skipped; valid rows are always used. Reported: rows naming a document that is not in
the corpus (or was rejected) or a page it does not have, rows with no values, rows that conflict
with another row for the same page (both skipped), fields beyond the header, header names that
look like a misspelt known column, lines that are not UTF-8, and CSV that cannot be parsed (rows
before it are kept). Columns not in the list above are extra axes (`revision`, `region`, ...).
A document may be named by any of its paths (duplicates) and in any Unicode normal form.
"""
from __future__ import annotations

import csv
import difflib
import unicodedata
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


def read_sidecar(
    corpus_root: str | Path, known_pages: dict[str, int] | None = None, aliases: dict[str, str] | None = None
) -> Sidecar:
    """Read the sidecar if there is one. `known_pages` maps document path -> page count;
    `aliases` maps every path of a document (duplicates under several names) to the one its
    pages are recorded under, so a row may name any of them."""
    path = Path(corpus_root) / SIDECAR_NAME
    out = Sidecar()
    if not path.exists():
        return out
    by_nfc = {unicodedata.normalize("NFC", k): k for k in (known_pages or {})}
    # surrogateescape: a stray non-UTF-8 byte costs its line, not the whole file.
    with open(path, newline="", encoding="utf-8-sig", errors="surrogateescape") as f:
        reader = csv.DictReader(f)
        try:
            raw_header = list(reader.fieldnames or [])
        except csv.Error as exc:
            out.issues.append(SidecarIssue(1, f"cannot parse the header ({exc}); sidecar ignored"))
            return out
        header = [h.strip() for h in raw_header]
        missing = [c for c in KEY_COLUMNS if c not in header]
        if missing:
            out.issues.append(SidecarIssue(1, f"missing required column(s) {', '.join(missing)}; sidecar ignored"))
            return out
        out.issues += _header_issues(header)
        out.extra_columns = tuple(
            h for h in dict.fromkeys(header) if h and not _bad_text(h) and h not in KEY_COLUMNS + VALUE_COLUMNS)
        seen_line: dict[tuple[str, int], int] = {}
        conflicted: set[tuple[str, int]] = set()
        line = 1
        rows = iter(reader)
        while True:
            try:
                raw = next(rows)
            except StopIteration:
                break
            except csv.Error as exc:
                # line_num still names the last line read whole; the bad row starts after it.
                out.issues.append(SidecarIssue(reader.line_num + 1, f"cannot parse CSV ({exc}); rest of file ignored"))
                break
            line = reader.line_num  # physical line where this row ends (quoted fields may span lines)
            if _has_surrogates(raw):
                out.issues.append(SidecarIssue(line, "not valid UTF-8; row skipped"))
                continue
            if raw.get(None):
                out.issues.append(SidecarIssue(line, f"{len(raw[None])} field(s) beyond the header; ignored"))
            row = {(k or "").strip(): (v or "").strip() for k, v in raw.items() if k and not _bad_text(k)}
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
                doc = by_nfc.get(unicodedata.normalize("NFC", doc), doc)
                if doc not in known_pages:
                    where = Path(corpus_root) / doc
                    why = ("is in the corpus folder but was not taken in (see rejected documents)"
                           if _exists(where) else "is not in the corpus")
                    out.issues.append(SidecarIssue(line, f"document {doc!r} {why}; row skipped"))
                    continue
                if not 1 <= page <= known_pages[doc]:
                    out.issues.append(SidecarIssue(line, f"{doc} has no page {page} (it has {known_pages[doc]}); row skipped"))
                    continue
            if aliases:
                doc = aliases.get(doc, doc)
            values = {k: v for k, v in row.items() if k not in KEY_COLUMNS and v}
            if not values:
                out.issues.append(SidecarIssue(line, f"no values for {doc} page {page}; row skipped"))
                continue
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
            if key in out.rows:
                out.issues.append(SidecarIssue(line, f"same as line {seen_line[key]}; ignored"))
                continue
            out.rows[key] = values
            seen_line[key] = line
    return out


def _header_issues(header: list[str]) -> list[SidecarIssue]:
    issues = []
    known = KEY_COLUMNS + VALUE_COLUMNS
    for i, name in enumerate(header, start=1):
        if _bad_text(name):
            issues.append(SidecarIssue(1, f"column {i} name is not valid UTF-8; ignored"))
        elif not name:
            issues.append(SidecarIssue(1, f"column {i} has no name; ignored"))
        elif header.index(name) != i - 1:
            issues.append(SidecarIssue(1, f"column {name!r} appears more than once; the last one wins"))
        elif name not in known:
            close = difflib.get_close_matches(name.casefold(), known, n=1, cutoff=0.8)
            if close:
                issues.append(SidecarIssue(1, f"unknown column {name!r} (did you mean {close[0]!r}?); kept as an extra axis"))
    return issues


def _has_surrogates(raw: dict) -> bool:
    values = [v for v in raw.values() if isinstance(v, str)] + [v for v in raw.get(None) or [] if isinstance(v, str)]
    return any(_bad_text(v) for v in values)


def _bad_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _exists(path: Path) -> bool:
    try:
        return path.exists()
    except (OSError, ValueError):
        return False

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
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import TextIO

from evalset_pipeline.core.pagetext.periods import normalize_period

SIDECAR_NAME = "metadata.csv"
# Issues listed one by one; past this, they are counted by kind (a million bad rows must not
# become a million warnings: issue 16 measured 817 s and 2.2 GB for that).
SHOWN_ISSUES = 50
MAX_CSV_ERRORS = 1000  # unparseable stretches reported before the rest of the file is given up on
KEY_COLUMNS = ("document", "page")
VALUE_COLUMNS = ("template_id", "entity", "metric", "period", "revision", "language")


@dataclass(frozen=True)
class SidecarIssue:
    line: int
    message: str
    kind: str = ""  # what went wrong, for the summary of issues past the first SHOWN_ISSUES

    def __str__(self) -> str:
        return f"{SIDECAR_NAME}:{self.line}: {self.message}"


@dataclass
class Sidecar:
    rows: dict[tuple[str, int], dict[str, str]] = field(
        default_factory=dict
    )  # (document, page) -> values
    issues: list[SidecarIssue] = field(default_factory=list)
    extra_columns: tuple[
        str, ...
    ] = ()  # user columns, usable as extra axes (e.g. `revision`, `region`)


def read_sidecar(
    corpus_root: str | Path,
    known_pages: dict[str, int] | None = None,
    aliases: dict[str, str] | None = None,
) -> Sidecar:
    """Read the sidecar if there is one. `known_pages` maps document path -> page count;
    `aliases` maps every path of a document (duplicates under several names) to the one its
    pages are recorded under, so a row may name any of them."""
    path = Path(corpus_root) / SIDECAR_NAME
    out = Sidecar()
    if not path.exists():
        return out
    by_nfc = {unicodedata.normalize("NFC", k): k for k in (known_pages or {})}
    encoding, problem = _sniff_encoding(path)
    if problem:
        out.issues.append(SidecarIssue(1, problem, "encoding"))
        return out
    collector = _Collector()
    # surrogateescape: a stray non-UTF-8 byte costs its line, not the whole file.
    with open(path, newline="", encoding=encoding, errors="surrogateescape") as f:
        _read_rows(f, corpus_root, known_pages, aliases, by_nfc, out, collector)
    out.issues += collector.finish()
    return out


def _sniff_encoding(path: Path) -> tuple[str, str]:
    """(encoding, problem): UTF-8 (with or without BOM) or UTF-16/32 by BOM; else a clear rejection."""
    with open(path, "rb") as f:
        head = f.read(4096)
    if head.startswith((b"\xff\xfe\x00\x00", b"\x00\x00\xfe\xff")):
        return "utf-32", ""
    if head.startswith((b"\xff\xfe", b"\xfe\xff")):
        return "utf-16", ""  # Excel's "Unicode text"; the codec reads the BOM for byte order
    if head.count(b"\x00") > len(head) // 4:
        return "", (
            "not UTF-8: the file looks like UTF-16 or UTF-32 without a byte-order mark; "
            "save it as UTF-8 (CSV UTF-8 in Excel); sidecar ignored"
        )
    return "utf-8-sig", ""


class _Collector:
    """Keeps the first SHOWN_ISSUES issues and counts the rest by kind; messages of issues that will
    not be shown are never built (some cost a filesystem lookup)."""

    def __init__(self) -> None:
        self.shown: list[SidecarIssue] = []
        self.hidden: dict[str, int] = {}

    def add(self, line: int, kind: str, message: str | Callable[[], str]) -> None:
        if len(self.shown) < SHOWN_ISSUES:
            self.shown.append(SidecarIssue(line, message() if callable(message) else message, kind))
        else:
            self.hidden[kind] = self.hidden.get(kind, 0) + 1

    def finish(self) -> list[SidecarIssue]:
        if not self.hidden:
            return self.shown
        total = sum(self.hidden.values())
        kinds = ", ".join(
            f"{k}: {n:,}" for k, n in sorted(self.hidden.items(), key=lambda kv: -kv[1])
        )
        return self.shown + [
            SidecarIssue(0, f"… and {total:,} more issue(s) not listed ({kinds})", "summary")
        ]


def _not_in_corpus(corpus_root: str | Path, doc: str) -> str:
    where = (
        "is in the corpus folder but was not taken in (see rejected documents)"
        if _exists(Path(corpus_root) / doc)
        else "is not in the corpus"
    )
    return f"document {doc!r} {where}; row skipped"


def _read_rows(
    f: TextIO,
    corpus_root: str | Path,
    known_pages: dict[str, int] | None,
    aliases: dict[str, str] | None,
    by_nfc: dict[str, str],
    out: Sidecar,
    issues: _Collector,
) -> None:
    if True:
        reader = csv.DictReader(f)
        try:
            raw_header = list(reader.fieldnames or [])
        except csv.Error as exc:
            out.issues.append(
                SidecarIssue(1, f"cannot parse the header ({exc}); sidecar ignored", "header")
            )
            return
        header = [h.strip() for h in raw_header]
        missing = [c for c in KEY_COLUMNS if c not in header]
        if missing:
            out.issues.append(
                SidecarIssue(
                    1, f"missing required column(s) {', '.join(missing)}; sidecar ignored", "header"
                )
            )
            return
        out.issues += _header_issues(header)
        out.extra_columns = tuple(
            h
            for h in dict.fromkeys(header)
            if h and not _bad_text(h) and h not in KEY_COLUMNS + VALUE_COLUMNS
        )
        seen_line: dict[tuple[str, int], int] = {}
        conflicted: set[tuple[str, int]] = set()
        line = 1
        errors = 0
        rows = iter(reader)
        while True:
            try:
                raw = next(rows)
            except StopIteration:
                break
            except csv.Error as exc:
                # The bad row starts after the last one read whole. The reader resets and goes on
                # with the next line, so one oversized field costs its row, not the rest of the file.
                errors += 1
                if errors > MAX_CSV_ERRORS:
                    issues.add(
                        line + 1,
                        "unparseable CSV",
                        f"cannot parse CSV ({exc}); more than {MAX_CSV_ERRORS} "
                        "unparseable rows, rest of file ignored",
                    )
                    break
                issues.add(line + 1, "unparseable CSV", f"cannot parse CSV ({exc}); row skipped")
                line = reader.line_num
                continue
            line = (
                reader.line_num
            )  # physical line where this row ends (quoted fields may span lines)
            if _has_surrogates(raw):
                issues.add(line, "not UTF-8", "not valid UTF-8; row skipped")
                continue
            if raw.get(None):
                issues.add(
                    line,
                    "fields beyond the header",
                    f"{len(raw[None])} field(s) beyond the header; ignored",
                )
            row = {
                (k or "").strip(): (v or "").strip()
                for k, v in raw.items()
                if k and not _bad_text(k)
            }
            doc, page_text = row.get("document", "").replace("\\", "/"), row.get("page", "")
            if not doc or not page_text:
                issues.add(line, "empty document or page", "empty document or page; row skipped")
                continue
            try:
                page = int(page_text)
            except ValueError:
                issues.add(
                    line, "page not a number", f"page {page_text!r} is not a number; row skipped"
                )
                continue
            if known_pages is not None:
                doc = by_nfc.get(unicodedata.normalize("NFC", doc), doc)
                if doc not in known_pages:
                    # partial: the file system is asked only for the issues that are shown
                    issues.add(
                        line,
                        "document not in the corpus",
                        partial(_not_in_corpus, corpus_root, doc),
                    )
                    continue
                if not 1 <= page <= known_pages[doc]:
                    issues.add(
                        line,
                        "no such page",
                        f"{doc} has no page {page} (it has {known_pages[doc]}); row skipped",
                    )
                    continue
            if aliases:
                doc = aliases.get(doc, doc)
            values = {k: v for k, v in row.items() if k not in KEY_COLUMNS and v}
            if not values:
                issues.add(line, "no values", f"no values for {doc} page {page}; row skipped")
                continue
            if "period" in values:
                canonical = normalize_period(values["period"])
                if canonical is None:
                    issues.add(
                        line,
                        "period not recognised",
                        f"period {values['period']!r} not recognised; kept as written",
                    )
                else:
                    values["period"] = canonical
            key = (doc, page)
            if key in conflicted:
                issues.add(
                    line,
                    "conflicting rows",
                    f"another row for conflicting {doc} page {page}; skipped",
                )
                continue
            if key in out.rows and out.rows[key] != values:
                issues.add(
                    line,
                    "conflicting rows",
                    f"conflicts with line {seen_line[key]} for {doc} page {page}; both rows skipped",
                )
                del out.rows[key]  # a conflict means we know nothing reliable about this page
                conflicted.add(key)
                continue
            if key in out.rows:
                issues.add(line, "duplicate rows", f"same as line {seen_line[key]}; ignored")
                continue
            out.rows[key] = values
            seen_line[key] = line


def _header_issues(header: list[str]) -> list[SidecarIssue]:
    issues = []
    known = KEY_COLUMNS + VALUE_COLUMNS
    for i, name in enumerate(header, start=1):
        if _bad_text(name):
            issues.append(SidecarIssue(1, f"column {i} name is not valid UTF-8; ignored"))
        elif not name:
            issues.append(SidecarIssue(1, f"column {i} has no name; ignored"))
        elif header.index(name) != i - 1:
            issues.append(
                SidecarIssue(1, f"column {name!r} appears more than once; the last one wins")
            )
        elif name not in known:
            close = difflib.get_close_matches(name.casefold(), known, n=1, cutoff=0.8)
            if close:
                issues.append(
                    SidecarIssue(
                        1,
                        f"unknown column {name!r} (did you mean {close[0]!r}?); kept as an extra axis",
                    )
                )
    return issues


def _has_surrogates(raw: dict) -> bool:
    values = [v for v in raw.values() if isinstance(v, str)] + [
        v for v in raw.get(None) or [] if isinstance(v, str)
    ]
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

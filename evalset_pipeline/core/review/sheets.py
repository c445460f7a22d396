"""Review sheets: what annotators fill in (CSV or JSONL), and importing them into the store.

A labelling sheet has one row per (question, candidate page). Only four columns are needed to
import it: `version_id`, `item_id`, `unit_id`, `human_label` (plus an optional `note`); the
question, the page image hash and the model's label are taken from the golden version the row
names, never from the sheet, so an edited display column cannot change what a label means. A
row whose `question_sha` no longer matches its version's question is rejected.

An adjudication sheet (written by `evalset review conflicts --out`) has `adjudicated_label`
instead of `human_label` and is keyed by (`item_id`, `unit_id`, `question_sha`).

Imports are all-or-nothing: any bad row (unknown item, unknown label, two different labels for
one pair) rejects the sheet with every problem listed, and nothing is stored.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from evalset_pipeline.core.golden.errors import GoldenSetError
from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.hashing import sha256_bytes
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.review.agreement import LABELS
from evalset_pipeline.core.review.store import PairKey, PairReview, ReviewStore, question_sha

SHEET_COLUMNS = (
    "packet_id",
    "version_id",
    "slot",
    "item_id",
    "unit_id",
    "question_sha",
    "role",
    "axis",
    "page",
    "question",
    "answer",
    "model_label",
    "model_rationale",
    "human_label",
    "note",
)
ADJUDICATION_COLUMNS = (
    "item_id",
    "unit_id",
    "question_sha",
    "version_id",
    "page",
    "question",
    "model_label",
    "annotator_labels",
    "adjudicated_label",
    "note",
)
# Columns only shown to people: protected against spreadsheet formula injection on export.
DISPLAY_COLUMNS = ("page", "question", "answer", "model_rationale", "annotator_labels")

_ALIASES = {
    "sufficient": "sufficient",
    "suff": "sufficient",
    "2": "sufficient",
    "supporting": "supporting",
    "supp": "supporting",
    "sup": "supporting",
    "1": "supporting",
    "irrelevant": "irrelevant",
    "irr": "irrelevant",
    "irrel": "irrelevant",
    "0": "irrelevant",
}


class SheetError(ValueError):
    """The sheet cannot be imported; the message lists every problem (nothing was stored)."""


def normalize_label(text: Any) -> str | None:
    """A label from what a person typed: full word, short form or grade (2/1/0); blank -> None."""
    s = "" if text is None else str(text).strip().lower()
    if not s:
        return None
    if s in _ALIASES:
        return _ALIASES[s]
    raise ValueError(f"{text!r} is not a label (use {', '.join(LABELS)})")


def spreadsheet_safe(value: Any) -> str:
    """Text a spreadsheet will show as text, never evaluate (=, +, -, @ start a formula)."""
    s = "" if value is None else str(value)
    return "'" + s if s[:1] in ("=", "+", "-", "@", "\t", "\r") else s


def write_csv(path: Path, columns: Sequence[str], rows: Iterable[Mapping[str, Any]]) -> int:
    n = 0
    with open(path, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(columns), extrasaction="ignore")
        w.writeheader()
        for row in rows:
            w.writerow(
                {
                    c: spreadsheet_safe(row.get(c))
                    if c in DISPLAY_COLUMNS
                    else ("" if row.get(c) is None else row.get(c))
                    for c in columns
                }
            )
            n += 1
    return n


def read_sheet(path: str | Path) -> tuple[list[str], list[dict[str, Any]]]:
    """(columns, rows) of a CSV (Excel's BOM tolerated) or JSONL sheet."""
    path = Path(path)
    if path.suffix.lower() in (".jsonl", ".ndjson", ".json"):
        rows = []
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if line.strip():
                try:
                    row = json.loads(line)
                except ValueError as exc:
                    raise SheetError(f"{path.name} line {n}: not JSON ({exc})") from exc
                if not isinstance(row, dict):
                    raise SheetError(f"{path.name} line {n}: expected a JSON object")
                rows.append(row)
        columns = list(dict.fromkeys(k for r in rows for k in r))
        return columns, rows
    with open(path, encoding="utf-8-sig", newline="") as f:
        reader = csv.DictReader(f)
        rows = [dict(r) for r in reader]
        return list(reader.fieldnames or []), rows


def _cell(row: Mapping[str, Any], name: str) -> str:
    v = row.get(name)
    return "" if v is None else str(v).strip()


@dataclass
class ImportResult:
    sheet: str
    kind: str  # labels | adjudications
    rows: int
    labelled: int
    blank: int
    stored: Path | None
    created: bool
    conflicts: list[PairKey] = field(
        default_factory=list
    )  # imported pairs now disagreeing with another annotator
    versions: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {
            "sheet": self.sheet,
            "kind": self.kind,
            "rows": self.rows,
            "labelled": self.labelled,
            "blank": self.blank,
            "stored": str(self.stored) if self.stored else None,
            "created": self.created,
            "conflicts": [k.__dict__ for k in self.conflicts],
            "versions": self.versions,
        }


class _Versions:
    """Golden versions a sheet refers to, loaded once each."""

    def __init__(self, paths: DataPaths):
        self.paths = paths
        self._cache: dict[str, GoldenSet | Exception] = {}

    def get(self, version_id: str) -> GoldenSet:
        from evalset_pipeline.core.golden.reader import load_golden_set

        if version_id not in self._cache:
            try:
                self._cache[version_id] = load_golden_set(version_id, self.paths.root)
            except GoldenSetError as exc:
                self._cache[version_id] = exc
        got = self._cache[version_id]
        if isinstance(got, Exception):
            raise got
        return got


@dataclass(frozen=True)
class VersionIndex:
    items: dict[str, dict[str, Any]]
    judgments: dict[tuple[str, str], dict[str, Any]]
    render_hash: dict[str, str]
    judge: dict[str, str]

    @classmethod
    def of(cls, golden: GoldenSet) -> VersionIndex:
        prov = golden.info.get("provenance") or {}
        return cls(
            items={r["item_id"]: r for r in golden.items.to_pylist()},
            judgments={(r["item_id"], r["unit_id"]): r for r in golden.judgments.to_pylist()},
            render_hash={r["unit_id"]: r["render_hash"] for r in golden.units.to_pylist()},
            judge={
                "judge_backend": str(prov.get("backend") or ""),
                "judge_model": str(prov.get("model") or ""),
                "label_prompt": str((prov.get("prompts") or {}).get("label") or ""),
            },
        )


def import_sheet(
    paths: DataPaths,
    sheet: str | Path,
    annotator: str,
    *,
    adjudication: bool | None = None,
    now: datetime | None = None,
) -> ImportResult:
    """Store a filled sheet's labels under `annotator` (or its adjudications, for an adjudication sheet)."""
    sheet = Path(sheet)
    if not annotator.strip():
        raise SheetError("an annotator name is needed (--annotator NAME)")
    raw = sheet.read_bytes()
    columns, rows = read_sheet(sheet)
    if adjudication is None:
        adjudication = "adjudicated_label" in columns
    if adjudication:
        return _import_adjudications(paths, sheet, columns, rows, annotator.strip(), now)
    missing = [c for c in ("version_id", "item_id", "unit_id", "human_label") if c not in columns]
    if missing:
        raise SheetError(
            f"{sheet.name}: missing column(s) {missing}; export a sheet with `evalset review export`"
        )
    versions = _Versions(paths)
    indexes: dict[str, VersionIndex] = {}
    problems: list[str] = []
    records: dict[PairKey, dict[str, Any]] = {}
    blank = 0
    for n, row in enumerate(rows, 2):  # header is line 1 of a CSV
        where = f"row {n}"
        try:
            label = normalize_label(row.get("human_label"))
        except ValueError as exc:
            problems.append(f"{where}: {exc}")
            continue
        if label is None:
            blank += 1
            continue
        version_id, item_id, unit_id = (
            _cell(row, "version_id"),
            _cell(row, "item_id"),
            _cell(row, "unit_id"),
        )
        if version_id not in indexes:
            try:
                indexes[version_id] = VersionIndex.of(versions.get(version_id))
            except GoldenSetError as exc:
                problems.append(f"{where}: golden version {version_id!r}: {exc}")
                continue
        index = indexes[version_id]
        item = index.items.get(item_id)
        judgment = index.judgments.get((item_id, unit_id))
        if item is None or judgment is None:
            problems.append(f"{where}: ({item_id}, {unit_id}) is not a candidate of {version_id}")
            continue
        qsha = question_sha(item["question"])
        given = _cell(row, "question_sha")
        if given and given != qsha:
            problems.append(
                f"{where}: question_sha {given} does not match {version_id}'s question for {item_id}"
            )
            continue
        key = PairKey(item_id, unit_id, qsha)
        shown_model = _cell(row, "model_label")
        model_label = judgment["label"] if judgment.get("label_source") == "model" else None
        record = {
            "item_id": item_id,
            "unit_id": unit_id,
            "question_sha": qsha,
            "question": item["question"],
            "render_hash": index.render_hash.get(unit_id, ""),
            "label": label,
            "note": _cell(row, "note"),
            "version_id": version_id,
            "packet_id": _cell(row, "packet_id"),
            "slot": _cell(row, "slot"),
            "sheet": sheet.name,
            "model_label": model_label,
            **index.judge,
            "blind": bool(model_label) and not shown_model,
        }
        previous = records.get(key)
        if previous is not None and previous["label"] != label:
            problems.append(
                f"{where}: ({item_id}, {unit_id}) labelled both {previous['label']} and {label}"
            )
            continue
        records[key] = record
    if problems:
        shown = "\n  ".join(problems[:25]) + (
            f"\n  … and {len(problems) - 25} more" if len(problems) > 25 else ""
        )
        raise SheetError(f"{sheet.name}: {len(problems)} problem(s), nothing imported:\n  {shown}")
    store = ReviewStore(paths)
    stored, created = store.add_labels(
        list(records.values()), annotator.strip(), sha256_bytes(raw), now=now
    )
    reviews = store.reviews()
    clash = [k for k in records if k in reviews and reviews[k].state == "conflict"]
    return ImportResult(
        sheet.name,
        "labels",
        len(rows),
        len(records),
        blank,
        stored,
        created,
        clash,
        sorted(indexes),
    )


def _import_adjudications(
    paths: DataPaths,
    sheet: Path,
    columns: list[str],
    rows: list[dict[str, Any]],
    adjudicator: str,
    now: datetime | None,
) -> ImportResult:
    missing = [
        c for c in ("item_id", "unit_id", "question_sha", "adjudicated_label") if c not in columns
    ]
    if missing:
        raise SheetError(
            f"{sheet.name}: missing column(s) {missing}; write one with `evalset review conflicts --out DIR`"
        )
    store = ReviewStore(paths)
    reviews = store.reviews()
    problems: list[str] = []
    records: dict[PairKey, dict[str, Any]] = {}
    blank = 0
    for n, row in enumerate(rows, 2):
        try:
            label = normalize_label(row.get("adjudicated_label"))
        except ValueError as exc:
            problems.append(f"row {n}: {exc}")
            continue
        if label is None:
            blank += 1
            continue
        key = PairKey(_cell(row, "item_id"), _cell(row, "unit_id"), _cell(row, "question_sha"))
        review = reviews.get(key)
        if review is None:
            problems.append(
                f"row {n}: ({key.item_id}, {key.unit_id}, {key.question_sha}) has no human labels to adjudicate"
            )
            continue
        records[key] = {
            "item_id": key.item_id,
            "unit_id": key.unit_id,
            "question_sha": key.question_sha,
            "question": review.question,
            "render_hash": review.render_hash,
            "label": label,
            "note": _cell(row, "note"),
        }
    if problems:
        raise SheetError(
            f"{sheet.name}: {len(problems)} problem(s), nothing imported:\n  "
            + "\n  ".join(problems[:25])
        )
    stored = store.add_adjudications(
        list(records.values()), adjudicator, f"sheet:{sheet.name}", now=now
    )
    return ImportResult(
        sheet.name, "adjudications", len(rows), len(records), blank, stored, stored is not None
    )


def adjudicate(
    paths: DataPaths,
    item_id: str,
    unit_id: str,
    label: str,
    by: str,
    note: str = "",
    question_sha_: str | None = None,
    now: datetime | None = None,
) -> tuple[PairKey, Path]:
    """Record one adjudicated label; it wins over every annotator's label for that pair."""
    norm = normalize_label(label)
    if norm is None:
        raise SheetError("an adjudicated label cannot be blank")
    if not by.strip():
        raise SheetError("say who adjudicated (--by NAME)")
    store = ReviewStore(paths)
    reviews = store.reviews()
    keys = [
        k
        for k in reviews
        if k.item_id == item_id
        and k.unit_id == unit_id
        and (question_sha_ is None or k.question_sha.startswith(question_sha_))
    ]
    question, render_hash = None, ""
    if len(keys) > 1:
        keys = _prefer_latest_question(paths, item_id, keys)
    if len(keys) > 1:
        raise SheetError(
            f"({item_id}, {unit_id}) was reviewed under {len(keys)} question wordings "
            f"({', '.join(k.question_sha for k in keys)}); pass --question-sha"
        )
    if keys:
        key = keys[0]
        question, render_hash = reviews[key].question, reviews[key].render_hash
    else:  # never reviewed: adjudicate against the latest version's question
        from evalset_pipeline.core.golden.reader import load_golden_set

        try:
            index = VersionIndex.of(load_golden_set("latest", paths.root))
        except GoldenSetError as exc:
            raise SheetError(
                f"({item_id}, {unit_id}) has no human labels and no golden set to look it up in: {exc}"
            ) from exc
        if (item_id, unit_id) not in index.judgments:
            raise SheetError(
                f"({item_id}, {unit_id}) is neither reviewed nor a candidate of the latest golden set"
            )
        question = index.items[item_id]["question"]
        render_hash = index.render_hash.get(unit_id, "")
        key = PairKey(item_id, unit_id, question_sha(question))
        if question_sha_ and not key.question_sha.startswith(question_sha_):
            raise SheetError(
                f"question_sha {question_sha_} does not match the latest question of {item_id}"
            )
    path = store.add_adjudications(
        [
            {
                "item_id": key.item_id,
                "unit_id": key.unit_id,
                "question_sha": key.question_sha,
                "question": question,
                "render_hash": render_hash,
                "label": norm,
                "note": note,
            }
        ],
        by.strip(),
        "cli",
        now=now,
    )
    assert path is not None
    return key, path


def _prefer_latest_question(paths: DataPaths, item_id: str, keys: list[PairKey]) -> list[PairKey]:
    from evalset_pipeline.core.golden.reader import load_golden_set

    try:
        gs = load_golden_set("latest", paths.root)
    except GoldenSetError:
        return keys
    for row in gs.items.to_pylist():
        if row["item_id"] == item_id:
            sha = question_sha(row["question"])
            return [k for k in keys if k.question_sha == sha] or keys
    return keys


def adjudication_rows(
    conflicting: Iterable[PairReview], pages: Mapping[str, str] | None = None
) -> list[dict[str, Any]]:
    """Rows of an adjudication sheet, one per pair in conflict."""
    out = []
    for r in conflicting:
        newest = max(r.by_annotator.values(), key=lambda x: x["imported_at"])
        out.append(
            {
                "item_id": r.key.item_id,
                "unit_id": r.key.unit_id,
                "question_sha": r.key.question_sha,
                "version_id": newest.get("version_id") or "",
                "page": (pages or {}).get(r.key.unit_id, ""),
                "question": r.question,
                "model_label": r.model_label or "",
                "annotator_labels": "; ".join(f"{a}={lab}" for a, lab in r.human_labels.items()),
                "adjudicated_label": "",
                "note": "",
            }
        )
    return out

"""Human labels and adjudications, kept in the data directory as append-only Parquet batches.

    data/reviews/labels/<UTC time>-<annotator>-<sheet sha256[:12]>.parquet        one per imported sheet
    data/reviews/adjudications/<UTC time>-<adjudicator>-<content sha256[:12]>.parquet   one per decision batch

Why files and not a `reviews.duckdb`:

* **Short writes, no lock to meet.** An import is one file created under a temp name and renamed
  into place (`os.replace`): the whole write is a few milliseconds, and a crash leaves either no
  file or a complete one. DuckDB admits one writing process *or* many readers per file, so a
  review import running while `evalset build` reads the reviews (the golden_set stage) would fail
  one of the two; with immutable files neither ever waits.
* **Nothing is ever overwritten.** A batch is written once and never edited, so one annotator's
  import cannot touch another's labels, and the history of who said what, when, from which sheet,
  is kept for free. "Latest wins" is a read-time rule: for each (question, page) the newest label
  *per annotator* counts, and an adjudication overrides them all.
* **Readers are cheap.** A few thousand small files read in well under a second; labels are
  human-speed data (hundreds per day), not model-speed data.

A label is attached to the *question text* it was given for (`question_sha`), not only to the
item id: if a later version rewrites an item's question, the old labels no longer apply to it
and are reported as stale instead of being silently carried over.
"""

from __future__ import annotations

import fcntl
import os
import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.hashing import sha256_text
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.tables import write_table

TS = pa.timestamp("us", tz="UTC")
LABEL_SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("unit_id", pa.string()),
        ("question_sha", pa.string()),
        ("question", pa.string()),  # the question the label was given for
        ("render_hash", pa.string()),  # the page image shown (joins the model-call ledger)
        ("label", pa.string()),
        ("note", pa.string()),
        ("annotator", pa.string()),
        ("imported_at", TS),
        ("version_id", pa.string()),
        ("packet_id", pa.string()),
        ("slot", pa.string()),
        ("sheet", pa.string()),
        ("sheet_sha256", pa.string()),
        # What the model said when the packet was made, and which judge said it (blind: not shown).
        ("model_label", pa.string()),
        ("judge_backend", pa.string()),
        ("judge_model", pa.string()),
        ("label_prompt", pa.string()),
        ("blind", pa.bool_()),
    ]
)
ADJUDICATION_SCHEMA = pa.schema(
    [
        ("item_id", pa.string()),
        ("unit_id", pa.string()),
        ("question_sha", pa.string()),
        ("question", pa.string()),
        ("render_hash", pa.string()),
        ("label", pa.string()),
        ("note", pa.string()),
        ("adjudicator", pa.string()),
        ("adjudicated_at", TS),
        ("source", pa.string()),
    ]
)


def question_sha(question: str) -> str:
    return sha256_text(question)[:16]


def slug(name: str) -> str:
    s = re.sub(r"[^A-Za-z0-9_.-]+", "_", name.strip()).strip("._")
    return (s or "anon")[:40]


@dataclass(frozen=True, order=True)
class PairKey:
    """One (question, candidate page) as a human saw it."""

    item_id: str
    unit_id: str
    question_sha: str


@dataclass
class PairReview:
    key: PairKey
    question: str
    render_hash: str
    by_annotator: dict[str, dict[str, Any]] = field(
        default_factory=dict
    )  # newest label row per annotator
    adjudication: dict[str, Any] | None = None  # newest adjudication row

    @property
    def human_labels(self) -> dict[str, str]:
        return {a: r["label"] for a, r in sorted(self.by_annotator.items())}

    @property
    def state(self) -> str:
        """adjudicated | agreed (every annotator gave the same label) | conflict."""
        if self.adjudication is not None:
            return "adjudicated"
        return "agreed" if len(set(self.human_labels.values())) <= 1 else "conflict"

    @property
    def label(self) -> str | None:
        """The human answer for this pair, or None while annotators disagree."""
        if self.adjudication is not None:
            return str(self.adjudication["label"])
        labels = set(self.human_labels.values())
        return labels.pop() if len(labels) == 1 else None

    @property
    def source(self) -> str | None:
        """label_source in golden_judgments: adjudicated | human; None while in conflict."""
        if self.adjudication is not None:
            return "adjudicated"
        return "human" if self.label is not None else None

    @property
    def model_label(self) -> str | None:
        """The model label recorded at export (newest non-blind one), if any."""
        rows = sorted(self.by_annotator.values(), key=lambda r: r["imported_at"], reverse=True)
        for r in rows:
            if r.get("model_label"):
                return str(r["model_label"])
        return None

    def rationale(self) -> str:
        if self.adjudication is not None:
            a = self.adjudication
            text = f"adjudicated by {a['adjudicator']}"
            if self.by_annotator:
                text += " (" + ", ".join(f"{k}: {v}" for k, v in self.human_labels.items()) + ")"
            return text + (f": {a['note']}" if a.get("note") else "")
        notes = "; ".join(
            f"{a}: {r['note']}" for a, r in sorted(self.by_annotator.items()) if r.get("note")
        )
        return (
            "human label by "
            + ", ".join(sorted(self.by_annotator))
            + (f" ({notes})" if notes else "")
        )


class ReviewStore:
    def __init__(self, paths: DataPaths):
        self.paths = paths
        self.root = paths.root / "reviews"
        self.labels_dir = self.root / "labels"
        self.adjudications_dir = self.root / "adjudications"

    # --- writing -------------------------------------------------------------------------------

    @contextmanager
    def _lock(self) -> Iterator[None]:
        """Serialise writers (the check for an already-imported sheet and the write are one step)."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / ".write.lock", "a+") as f:
            fcntl.flock(f.fileno(), fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(f.fileno(), fcntl.LOCK_UN)

    def _write(
        self,
        directory: Path,
        who: str,
        digest: str,
        rows: list[dict[str, Any]],
        schema: pa.Schema,
        now: datetime,
    ) -> Path:
        name = f"{now.strftime('%Y%m%dT%H%M%S%fZ')}-{slug(who)}-{digest[:12]}.parquet"
        path = directory / name
        write_table(path, pa.Table.from_pylist(rows, schema=schema))
        os.chmod(path, 0o444)
        return path

    def find_import(self, annotator: str, sheet_sha256: str) -> Path | None:
        """The batch this annotator already imported from a byte-identical sheet, if any."""
        if not self.labels_dir.is_dir():
            return None
        hits = sorted(self.labels_dir.glob(f"*-{slug(annotator)}-{sheet_sha256[:12]}.parquet"))
        for path in hits:  # the slug could collide; the rows say who it really was
            t = pq.read_table(path, columns=["annotator"])
            if t.num_rows and t.column("annotator")[0].as_py() == annotator:
                return path
        return None

    def add_labels(
        self,
        rows: list[dict[str, Any]],
        annotator: str,
        sheet_sha256: str,
        now: datetime | None = None,
    ) -> tuple[Path | None, bool]:
        """Store one sheet's labels; returns (file, created). Re-importing the same sheet is a no-op."""
        now = now or datetime.now(UTC)
        with self._lock():
            existing = self.find_import(annotator, sheet_sha256)
            if existing is not None:
                return existing, False
            if not rows:
                return None, False
            full = [
                {**r, "annotator": annotator, "imported_at": now, "sheet_sha256": sheet_sha256}
                for r in rows
            ]
            return self._write(
                self.labels_dir, annotator, sheet_sha256, full, LABEL_SCHEMA, now
            ), True

    def add_adjudications(
        self, rows: list[dict[str, Any]], adjudicator: str, source: str, now: datetime | None = None
    ) -> Path | None:
        if not rows:
            return None
        now = now or datetime.now(UTC)
        full = [
            {**r, "adjudicator": adjudicator, "adjudicated_at": now, "source": source} for r in rows
        ]
        digest = sha256_text(
            repr(sorted((r["item_id"], r["unit_id"], r["label"]) for r in rows)) + source
        )
        with self._lock():
            return self._write(
                self.adjudications_dir, adjudicator, digest, full, ADJUDICATION_SCHEMA, now
            )

    # --- reading -------------------------------------------------------------------------------

    @staticmethod
    def _read_dir(directory: Path, schema: pa.Schema) -> list[dict[str, Any]]:
        if not directory.is_dir():
            return []
        rows: list[dict[str, Any]] = []
        for path in sorted(directory.glob("*.parquet")):  # temp files are dot-prefixed *.tmp
            table = pq.read_table(path)
            missing = [f for f in schema if f.name not in table.column_names]
            for f in missing:  # batches written by an older layout read with empty new columns
                table = table.append_column(f, pa.nulls(table.num_rows, f.type))
            rows.extend(table.select(schema.names).to_pylist())
        return rows

    def label_rows(self) -> list[dict[str, Any]]:
        return self._read_dir(self.labels_dir, LABEL_SCHEMA)

    def adjudication_rows(self) -> list[dict[str, Any]]:
        return self._read_dir(self.adjudications_dir, ADJUDICATION_SCHEMA)

    def reviews(self) -> dict[PairKey, PairReview]:
        """Every reviewed (question, page) with the newest label per annotator and any adjudication."""
        return resolve(self.label_rows(), self.adjudication_rows())

    def is_empty(self) -> bool:
        return not any(
            d.is_dir() and any(d.glob("*.parquet"))
            for d in (self.labels_dir, self.adjudications_dir)
        )


def resolve(
    labels: Iterable[dict[str, Any]], adjudications: Iterable[dict[str, Any]]
) -> dict[PairKey, PairReview]:
    out: dict[PairKey, PairReview] = {}
    # Files are read in name order (= import time); sorting by time again makes it explicit.
    for r in sorted(labels, key=lambda r: r["imported_at"]):
        key = PairKey(r["item_id"], r["unit_id"], r["question_sha"])
        review = out.setdefault(key, PairReview(key, r["question"], r["render_hash"] or ""))
        review.by_annotator[r["annotator"]] = r  # newer replaces older, for this annotator only
    for r in sorted(adjudications, key=lambda r: r["adjudicated_at"]):
        key = PairKey(r["item_id"], r["unit_id"], r["question_sha"])
        review = out.setdefault(key, PairReview(key, r["question"], r["render_hash"] or ""))
        review.adjudication = r
    return dict(sorted(out.items()))


def conflicts(reviews: dict[PairKey, PairReview]) -> list[PairReview]:
    return [r for r in reviews.values() if r.state == "conflict"]


def double_annotated(reviews: dict[PairKey, PairReview]) -> list[PairReview]:
    return [r for r in reviews.values() if len(r.by_annotator) >= 2]


def status(reviews: dict[PairKey, PairReview]) -> dict[str, Any]:
    by_state: dict[str, int] = defaultdict(int)
    annotators: dict[str, int] = defaultdict(int)
    for r in reviews.values():
        by_state[r.state] += 1
        for a in r.by_annotator:
            annotators[a] += 1
    return {
        "pairs": len(reviews),
        "items": len({k.item_id for k in reviews}),
        "by_state": dict(sorted(by_state.items())),
        "double_annotated_pairs": len(double_annotated(reviews)),
        "labels_by_annotator": dict(sorted(annotators.items())),
    }

"""What must hold before a golden set is published, as pure functions over table rows.

Rows are dicts as `core.tables.read_rows` returns them:
  validated  (validated_questions): item_id, gold_unit_id, slice, question, ...
  labels     (candidate_labels):    item_id, unit_id, role (gold | distractor | pooled), axis, label
  rejected   (rejected_documents):  path, sha256, reason, stage (scan | open | render)

Each function returns a `CheckOutcome`; its `severity` is what a failure means: ERROR poisons
the golden set (the Dagster wrapper makes those blocking), WARN is worth a look.
A kept item is every row of validated_questions: the main slice plus, when configured, the
underspecified slice; both enter the golden set.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.evidence.completeness import completeness, item_refs
from evalset_pipeline.core.evidence.index import EvidenceIndex
from evalset_pipeline.core.hashing import sha256_bytes
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.tables import read_rows

ERROR, WARN = "ERROR", "WARN"
Row = Mapping[str, Any]
SHOWN = 20  # failing examples listed in metadata


@dataclass(frozen=True)
class CheckOutcome:
    passed: bool
    severity: str  # what a failure means: ERROR (blocks publishing) or WARN
    description: str
    metadata: dict[str, Any] = field(default_factory=dict)


def load_gate_inputs(paths: DataPaths) -> tuple[list[dict], list[dict]]:
    """(validated_questions rows, candidate_labels rows) from where their assets persisted them."""
    validated, labels, _ = load_gate_inputs_hashed(paths)
    return validated, labels


def load_gate_inputs_hashed(paths: DataPaths) -> tuple[list[dict], list[dict], dict[str, str]]:
    """The gate inputs plus the sha256 of the exact bytes parsed: the key their verdict is stored under."""
    rows, hashes = {}, {}
    for name in ("validated_questions", "candidate_labels"):
        path = paths.table(name)
        read_rows(
            path, producer=name
        ) if not path.exists() else None  # the usual "materialize X first" error
        data = path.read_bytes()
        hashes[name] = sha256_bytes(data)
        rows[name] = pq.read_table(pa.BufferReader(data)).to_pylist()
    return rows["validated_questions"], rows["candidate_labels"], hashes


def _share(part: int, whole: int) -> float:
    return round(part / whole, 4) if whole else 1.0


def gold_is_sufficient(validated: Iterable[Row], labels: Iterable[Row]) -> CheckOutcome:
    """Every kept item's gold page is labelled sufficient for its own question.

    The regression slice is exempt: its questions are users' own words, never rewritten, and the
    expected page is sufficient by the record's say-so (a human found it), whatever the model
    judge makes of phrasing it was never trained on.
    """
    kept = {v["item_id"]: v["slice"] for v in validated if v["slice"] != "regression"}
    gold: dict[str, str] = {}
    for lab in labels:
        if lab["role"] == "gold":
            gold[lab["item_id"]] = lab["label"]
    failing = sorted((i, gold.get(i, "unlabelled")) for i in kept if gold.get(i) != "sufficient")
    by_slice = Counter(kept[i] for i, _ in failing)
    return CheckOutcome(
        passed=not failing,
        severity=ERROR,
        description=(
            f"gold is sufficient for all {len(kept)} kept items"
            if not failing
            else f"{len(failing)} of {len(kept)} kept items: the gold page is not labelled sufficient"
        ),
        metadata={
            "kept_items": len(kept),
            "gold_sufficient_share": _share(len(kept) - len(failing), len(kept)),
            "failing": len(failing),
            "failing_by_slice": dict(sorted(by_slice.items())),
            "failing_examples": [{"item_id": i, "gold_label": lab} for i, lab in failing[:SHOWN]],
        },
    )


def no_sufficient_distractor_in_main(
    validated: Iterable[Row], labels: Iterable[Row]
) -> CheckOutcome:
    """No main-slice item is answerable from one of its distractors.

    Pooled candidates (other pages that carry the same fact) may be sufficient; distractors may
    not, since they exist to differ from the gold on exactly one axis the question names.
    """
    main = {v["item_id"] for v in validated if v["slice"] == "main"}
    bad = sorted(
        (lab["item_id"], lab["unit_id"], lab["axis"])
        for lab in labels
        if lab["role"] == "distractor" and lab["item_id"] in main and lab["label"] == "sufficient"
    )
    items = {i for i, _, _ in bad}
    return CheckOutcome(
        passed=not bad,
        severity=ERROR,
        description=(
            "no main-slice item is answerable from a distractor"
            if not bad
            else f"{len(items)} main-slice items are answerable from a distractor ({len(bad)} distractors)"
        ),
        metadata={
            "main_items": len(main),
            "items_answerable_from_distractor": len(items),
            "sufficient_distractors": len(bad),
            "by_axis": dict(sorted(Counter(a for _, _, a in bad).items())),
            "examples": [{"item_id": i, "distractor": u, "axis": a} for i, u, a in bad[:SHOWN]],
        },
    )


def every_answering_page_judged(
    validated: Iterable[Row], labels: Iterable[Row], index: EvidenceIndex
) -> CheckOutcome:
    """Every page of the corpus that prints a kept item's answer for its row and period is judged
    for it (core/evidence/completeness.py): the qrels list every page that answers.

    The regression slice is exempt: its questions and answers are users' records, not pooled."""
    labels = list(labels)
    items = item_refs((v for v in validated if v["slice"] != "regression"), labels)
    report = completeness(items, {(lab["item_id"], lab["unit_id"]) for lab in labels}, index)
    missing = report.unjudged
    return CheckOutcome(
        passed=not missing,
        severity=ERROR,
        description=(
            f"every page that prints the answer is judged ({report.other_answering_pages} besides "
            f"the golds, in {report.items_with_other_answering_pages} of {report.checkable} items)"
            if not missing
            else f"{len(missing)} pages print a kept item's answer for its row and period and were "
            f"never judged ({report.items_with_unjudged} items)"
        ),
        metadata={
            **{k: v for k, v in report.to_dict().items() if k != "unjudged"},
            "examples": [
                {"item_id": u.item_id, "unit_id": u.unit_id, "prints": u.where}
                for u in missing[:SHOWN]
            ],
        },
    )


def axis_coverage(
    validated: Iterable[Row], labels: Iterable[Row], axes: Sequence[str] = ()
) -> dict[str, Any]:
    """Per axis: kept items with at least one distractor on it, and that axis's label counts."""
    kept = {v["item_id"] for v in validated}
    items_by_axis: dict[str, set[str]] = defaultdict(set)
    label_counts: dict[str, Counter] = defaultdict(Counter)
    for lab in labels:
        if lab["role"] == "distractor" and lab["item_id"] in kept:
            items_by_axis[lab["axis"]].add(lab["item_id"])
            label_counts[lab["axis"]][lab["label"]] += 1
    names = list(dict.fromkeys([*axes, *sorted(items_by_axis)]))
    return {
        a: {
            "items": len(items_by_axis[a]),
            "share": _share(len(items_by_axis[a]), len(kept)),
            "distractors": sum(label_counts[a].values()),
            "labels": dict(sorted(label_counts[a].items())),
        }
        for a in names
    }


def distractors_on_some_axis(
    validated: Iterable[Row], labels: Iterable[Row], axes: Sequence[str] = ()
) -> CheckOutcome:
    """Every kept item has distractors on at least one axis (else it is not a hard-negative item)."""
    validated = list(validated)
    labels = list(labels)
    kept = {v["item_id"] for v in validated}
    covered = {lab["item_id"] for lab in labels if lab["role"] == "distractor"}
    bare = sorted(kept - covered)
    return CheckOutcome(
        passed=not bare,
        severity=ERROR,
        description=(
            f"all {len(kept)} kept items have distractors"
            if not bare
            else f"{len(bare)} of {len(kept)} kept items have no distractor on any axis"
        ),
        metadata={
            "kept_items": len(kept),
            "items_without_distractors": len(bare),
            "per_axis": axis_coverage(validated, labels, axes),
            "examples": bare[:SHOWN],
        },
    )


def min_kept_items(validated: Iterable[Row], minimum: int) -> CheckOutcome:
    """Enough main-slice items to be worth publishing: none at all is an ERROR, too few a WARN."""
    slices = Counter(v["slice"] for v in validated)
    main = slices.get("main", 0)
    passed = main >= minimum and main > 0
    return CheckOutcome(
        passed=passed,
        severity=ERROR if main == 0 else WARN,
        description=(
            f"{main} main-slice items (minimum {minimum})"
            if passed
            else "no main-slice item survived validation"
            if main == 0
            else f"only {main} main-slice items (minimum {minimum})"
        ),
        metadata={"main_items": main, "minimum": minimum, "by_slice": dict(sorted(slices.items()))},
    )


def rejected_share(documents: int, rejected: Iterable[Row], max_share: float) -> CheckOutcome:
    """Share of PDFs under the corpus root that could not be used (scan/open); page failures reported beside."""
    rejected = list(rejected)
    files = sorted({r["path"] for r in rejected if r["stage"] != "render"})
    page_failures = sum(1 for r in rejected if r["stage"] == "render")
    total = documents + len(files)
    share = round(len(files) / total, 4) if total else 0.0
    reasons = Counter(r["reason"].split(" (")[0] for r in rejected if r["stage"] != "render")
    return CheckOutcome(
        passed=share <= max_share,
        severity=WARN,
        description=f"{len(files)} of {total} PDFs rejected ({share:.1%}; at most {max_share:.0%} expected)",
        metadata={
            "rejected_documents": len(files),
            "documents": documents,
            "rejected_share": share,
            "max_share": max_share,
            "pages_failed_to_render": page_failures,
            "reasons": dict(reasons.most_common()),
            "examples": files[:SHOWN],
        },
    )


def golden_set_freshness(
    latest: Mapping[str, Any] | None, current_fingerprint: str, now: datetime | None = None
) -> CheckOutcome:
    """The latest golden set was built from the corpus as it is now (same corpus fingerprint)."""
    if latest is None:
        return CheckOutcome(
            False,
            WARN,
            "no golden set has been published yet",
            {"current_corpus_fingerprint": current_fingerprint},
        )
    built_from = str(latest.get("corpus_fingerprint") or "")
    created = latest.get("created_at")
    age_h = None
    if isinstance(created, str):
        created = datetime.fromisoformat(created)
    if isinstance(created, datetime):
        created = created if created.tzinfo else created.replace(tzinfo=UTC)
        age_h = round(((now or datetime.now(UTC)) - created).total_seconds() / 3600, 2)
    fresh = built_from == current_fingerprint
    return CheckOutcome(
        passed=fresh,
        severity=WARN,
        description=(
            f"{latest.get('version_id')} matches the corpus as it is now"
            if fresh
            else f"{latest.get('version_id')} was built from another corpus state: "
            "PDFs were added, changed or removed since"
        ),
        metadata={
            "version_id": latest.get("version_id"),
            "golden_corpus_fingerprint": built_from,
            "current_corpus_fingerprint": current_fingerprint,
            "age_hours": age_h,
        },
    )

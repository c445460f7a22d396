"""Gate verdicts stored with the tables they judged, so publishing cannot skip the gates.

Dagster's blocking checks stop `golden_set` only in a run that also runs the checks. A run that
selects `golden_set` alone (UI, `dagster asset materialize --select golden_set`, a partial job)
never sees them. So the gates leave a verdict on disk, keyed by the sha256 of the exact bytes
of the tables they judged (validated_questions + candidate_labels), and `golden_set` publishes
only tables whose key has a verdict where every blocking gate passed. Rewrite a table (a new
build, a hand edit) and its key changes: no verdict, no publish, until the gates run on it.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from evalset_pipeline.core.atomic import write_text_atomic
from evalset_pipeline.core.hashing import canonical_json, sha256_file, sha256_text
from evalset_pipeline.core.paths import DataPaths

# Every gate that must have run and passed (a WARN failure passes: it never blocks).
BLOCKING_GATES = (
    "candidate_labels_gold_sufficient",
    "candidate_labels_no_sufficient_distractor",
    "candidate_labels_distractor_coverage",
    "candidate_labels_min_kept_items",
    "candidate_labels_every_answering_page_judged",
)
JUDGED_TABLES = ("validated_questions", "candidate_labels")


class GatesNotPassed(RuntimeError):
    """golden_set was asked to publish tables whose gates failed, or never ran on them."""


@dataclass(frozen=True)
class GateResult:
    passed: bool
    severity: str  # ERROR | WARN: what a failure means
    description: str

    @property
    def blocks(self) -> bool:
        return not self.passed and self.severity == "ERROR"


@dataclass
class Verdict:
    key: str
    tables: dict[str, str]  # table -> sha256 of its bytes when judged
    gates: dict[str, GateResult] = field(default_factory=dict)
    judged_at: str = ""

    @property
    def missing(self) -> list[str]:
        return [g for g in BLOCKING_GATES if g not in self.gates]

    @property
    def failing(self) -> dict[str, GateResult]:
        return {name: r for name, r in self.gates.items() if r.blocks}

    @property
    def warnings(self) -> dict[str, GateResult]:
        return {name: r for name, r in self.gates.items() if not r.passed and not r.blocks}


def table_hashes(paths: DataPaths) -> dict[str, str]:
    """sha256 of each judged table as it is on disk now."""
    out = {}
    for name in JUDGED_TABLES:
        path = paths.table(name)
        out[name] = sha256_file(path) if path.exists() else "missing"
    return out


def verdict_key(tables: Mapping[str, str]) -> str:
    return sha256_text(canonical_json(dict(tables)))[:32]


def _path(paths: DataPaths, key: str) -> Path:
    return paths.artifacts / "verdicts" / f"{key}.json"


def load_verdict(paths: DataPaths, tables: Mapping[str, str]) -> Verdict | None:
    key = verdict_key(tables)
    path = _path(paths, key)
    if not path.exists():
        return None
    data = json.loads(path.read_text(encoding="utf-8"))
    return Verdict(
        key,
        data["tables"],
        {n: GateResult(**r) for n, r in data["gates"].items()},
        data.get("judged_at", ""),
    )


def record_verdict(
    paths: DataPaths, tables: Mapping[str, str], results: Mapping[str, GateResult]
) -> Verdict:
    """Merge these gate results into the verdict for `tables` (a run may evaluate a subset of gates)."""
    verdict = load_verdict(paths, tables) or Verdict(verdict_key(tables), dict(tables))
    verdict.gates.update(results)
    verdict.judged_at = datetime.now(UTC).isoformat()
    body = {
        "tables": verdict.tables,
        "judged_at": verdict.judged_at,
        "gates": {n: asdict(r) for n, r in sorted(verdict.gates.items())},
    }
    write_text_atomic(_path(paths, verdict.key), json.dumps(body, indent=1, sort_keys=True))
    return verdict


def require_passed(paths: DataPaths, tables: Mapping[str, str] | None = None) -> Verdict:
    """The verdict for the tables as they are now, if every blocking gate passed; else `GatesNotPassed`."""
    tables = dict(tables or table_hashes(paths))
    short = ", ".join(f"{t} {h[:12]}" for t, h in tables.items())
    verdict = load_verdict(paths, tables)
    if verdict is None:
        raise GatesNotPassed(
            f"refusing to publish: the blocking gates never ran on these tables ({short}). Materialize "
            f"candidate_labels with its checks (e.g. `dagster asset materialize --select candidate_labels+` "
            f"or `evalset build`); golden_set publishes only tables whose gates passed."
        )
    if verdict.failing:
        failed = "; ".join(f"{n}: {r.description}" for n, r in sorted(verdict.failing.items()))
        raise GatesNotPassed(
            f"refusing to publish: these tables ({short}) failed the blocking gates at {verdict.judged_at}: "
            f"{failed}. Fix the cause and build again; golden_set never publishes tables whose gates failed."
        )
    if verdict.missing:
        raise GatesNotPassed(
            f"refusing to publish: gate(s) {', '.join(verdict.missing)} never ran on these tables ({short}); "
            f"run all candidate_labels checks."
        )
    return verdict


def as_json(verdict: Verdict) -> dict[str, Any]:
    return {
        "key": verdict.key,
        "tables": verdict.tables,
        "judged_at": verdict.judged_at,
        "gates": {n: asdict(r) for n, r in sorted(verdict.gates.items())},
    }

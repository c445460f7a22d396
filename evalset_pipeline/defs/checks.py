"""Asset checks: thin Dagster wrappers around `core/checks` (pure functions over the persisted tables).

Blocking gates sit on `candidate_labels`, the last table before publishing, so a run that builds
`golden_set` stops before a poisoned version exists (Dagster skips downstream assets when a
blocking check fails with ERROR severity):

  candidate_labels_gold_sufficient        ERROR  the gold is labelled sufficient for every kept item
  candidate_labels_no_sufficient_distractor ERROR  no main-slice item is answerable from a distractor
  candidate_labels_distractor_coverage    ERROR  every kept item has distractors on at least one axis
  candidate_labels_min_kept_items         ERROR when no item survived, WARN below the minimum
  candidate_labels_every_answering_page_judged ERROR  every page printing a kept item's answer for
                                                   its row and period is judged (pool completeness)

Advisory (never block):

  documents_rejected_share                WARN   too many PDFs could not be used
  golden_set_fresh                        WARN   the latest golden set was built from the corpus as it is now
  golden_set_snapshots_intact             ERROR  every snapshot matches its checksums; indexes agree (not blocking)

The gates also write their verdict beside the tables they judged (core/checks/verdicts.py), and
golden_set refuses tables without a passing verdict, so a run that skips these checks
(`--select golden_set`) cannot publish what they would have blocked.

Thresholds are op config (set per run in the launchpad), their defaults from environment
variables: EVALSET_MIN_KEPT_ITEMS (10), EVALSET_MAX_REJECTED_SHARE (0.2).
"""

from collections.abc import Iterator
from dataclasses import asdict

import dagster as dg
from pydantic import Field

from evalset_pipeline.core.checks import golden_gates as gates
from evalset_pipeline.core.checks import verdicts
from evalset_pipeline.core.checks.corpus_state import (
    current_corpus_fingerprint,
    latest_golden_info,
    stat_cache_path,
)
from evalset_pipeline.core.environment import environment
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.pipeline.documents import load_documents, load_rejected
from evalset_pipeline.core.pipeline.evidence_index import load_evidence_index
from evalset_pipeline.defs.assets.corpus import documents
from evalset_pipeline.defs.assets.golden import golden_set
from evalset_pipeline.defs.assets.metadata import to_metadata
from evalset_pipeline.defs.assets.questions import candidate_labels
from evalset_pipeline.defs.resources import PipelineSettings, stage_context


def _to_result(key: dg.AssetCheckKey, outcome: gates.CheckOutcome) -> dg.AssetCheckResult:
    severity = (
        dg.AssetCheckSeverity.ERROR
        if outcome.severity == gates.ERROR
        else dg.AssetCheckSeverity.WARN
    )
    return dg.AssetCheckResult(
        asset_key=key.asset_key,
        check_name=key.name,
        passed=outcome.passed,
        severity=severity,
        description=outcome.description,
        metadata=to_metadata(outcome.metadata),
    )


class GoldenGateConfig(dg.Config):
    min_kept_items: int = Field(
        default=environment().min_kept_items,
        description="Fewer main-slice items than this is a WARN; none at all is an ERROR",
    )


_GATES = {  # names: core/checks/verdicts.BLOCKING_GATES, which golden_set requires
    "candidate_labels_gold_sufficient": "The gold page is labelled sufficient for 100% of kept items.",
    "candidate_labels_no_sufficient_distractor": "No main-slice item is answerable from one of its distractors.",
    "candidate_labels_distractor_coverage": "Every kept item has distractors on at least one axis; per-axis coverage.",
    "candidate_labels_min_kept_items": (
        "Enough main-slice items: none is an ERROR (blocks), fewer than the minimum a WARN."
    ),
    "candidate_labels_every_answering_page_judged": (
        "Every page of the corpus that prints a kept item's answer for its row and period is judged."
    ),
}


@dg.multi_asset_check(
    name="candidate_labels_gates",
    specs=[
        dg.AssetCheckSpec(name, asset=candidate_labels, blocking=True, description=text)
        for name, text in _GATES.items()
    ],
    can_subset=True,
    description="Blocking gates before publishing: a failure here stops golden_set from materializing.",
)
def candidate_labels_gates(
    context: dg.AssetCheckExecutionContext, config: GoldenGateConfig, settings: PipelineSettings
) -> Iterator[dg.AssetCheckResult]:
    ctx = stage_context(context, settings)
    validated, labels, tables = gates.load_gate_inputs_hashed(ctx.paths)
    outcomes = {
        "candidate_labels_gold_sufficient": lambda: gates.gold_is_sufficient(validated, labels),
        "candidate_labels_no_sufficient_distractor": lambda: gates.no_sufficient_distractor_in_main(
            validated, labels
        ),
        "candidate_labels_distractor_coverage": lambda: gates.distractors_on_some_axis(
            validated, labels, ctx.config.axes
        ),
        "candidate_labels_min_kept_items": lambda: gates.min_kept_items(
            validated, config.min_kept_items
        ),
        "candidate_labels_every_answering_page_judged": lambda: gates.every_answering_page_judged(
            validated, labels, load_evidence_index(ctx)
        ),
    }
    keys = sorted(context.selected_asset_check_keys, key=lambda k: k.name)
    results = {key.name: outcomes[key.name]() for key in keys}
    # The verdict goes on disk, keyed by the bytes judged, before Dagster hears it: golden_set
    # reads it whichever way it is launched, with or without these checks in its run.
    verdicts.record_verdict(
        ctx.paths,
        tables,
        {
            name: verdicts.GateResult(o.passed, o.severity, o.description)
            for name, o in results.items()
        },
    )
    for key in keys:
        yield _to_result(key, results[key.name])


class RejectedShareConfig(dg.Config):
    max_rejected_share: float = Field(
        default=environment().max_rejected_share,
        description="Largest acceptable share of PDFs that could not be used",
    )


@dg.asset_check(
    asset=documents,
    name="documents_rejected_share",
    description="Share of PDFs under the corpus root that were rejected (WARN above the threshold).",
)
def documents_rejected_share(
    context: dg.AssetCheckExecutionContext, config: RejectedShareConfig, settings: PipelineSettings
) -> dg.AssetCheckResult:
    ctx = stage_context(context, settings)
    outcome = gates.rejected_share(
        len(load_documents(ctx)), [asdict(r) for r in load_rejected(ctx)], config.max_rejected_share
    )
    return _to_result(dg.AssetCheckKey(documents.key, "documents_rejected_share"), outcome)


@dg.asset_check(
    asset=golden_set,
    name="golden_set_fresh",
    description="The latest golden set was built from the corpus as it is now (corpus fingerprint).",
)
def golden_set_fresh(
    context: dg.AssetCheckExecutionContext, settings: PipelineSettings
) -> dg.AssetCheckResult:
    paths = DataPaths.at(settings.data_dir)
    current = current_corpus_fingerprint(
        settings.corpus_dir, stat_cache_path(paths), settings.follow_symlinks
    )
    outcome = gates.golden_set_freshness(latest_golden_info(paths.root), current)
    return _to_result(dg.AssetCheckKey(golden_set.key, "golden_set_fresh"), outcome)


@dg.asset_check(
    asset=golden_set,
    name="golden_set_snapshots_intact",
    description="Every published snapshot matches its checksums; history, LATEST, reader copy and warehouse agree.",
)
def golden_set_snapshots_intact(
    context: dg.AssetCheckExecutionContext, settings: PipelineSettings
) -> dg.AssetCheckResult:
    from evalset_pipeline.core.golden.verify import verify_golden

    report = verify_golden(DataPaths.at(settings.data_dir))
    problems = [str(p) for p in report.problems]
    # ERROR severity so the UI shows it red; not blocking: the damage is in versions already out.
    return dg.AssetCheckResult(
        passed=report.ok,
        severity=dg.AssetCheckSeverity.ERROR,
        description=(
            f"{report.versions} snapshots verified, {report.events} publish events"
            if report.ok
            else f"{len(problems)} problem(s): {problems[0]} (run `evalset golden verify`)"
        ),
        metadata={
            "versions": report.versions,
            "problems": dg.MetadataValue.json(problems),
            "corrupt_versions": dg.MetadataValue.json(report.corrupt_versions),
            "notes": dg.MetadataValue.json(report.notes),
        },
    )


all_checks = [
    candidate_labels_gates,
    documents_rejected_share,
    golden_set_fresh,
    golden_set_snapshots_intact,
]

"""`evalset score RUN` and `evalset compare RUN_A RUN_B`: score runs against a golden version.

Exit codes: 0 scored; 1 bad input (no such golden version, unreadable run, a non-finite score or a
rank that is not an integer); 2 refused (golden set too old, too many queries without results, unit
ids that are not pages of the set's corpus; see core/scoring/guards.py) or bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import INPUT_ERROR, add_data_dir, add_golden, json_safe
from evalset_pipeline.core.golden.errors import GoldenSetError
from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.scoring.compare import build_compare_report
from evalset_pipeline.core.scoring.conventions import (
    BOOTSTRAP_RESAMPLES,
    BOOTSTRAP_SEED,
    DEFAULT_GAIN,
    DEFAULT_MAX_AGE_DAYS,
    DEFAULT_RELEVANCE,
    GAINS,
    RELEVANCE_THRESHOLDS,
)
from evalset_pipeline.core.scoring.guards import (
    KnownUnits,
    MeasurementRefused,
    check_empty_queries,
    check_golden_age,
    check_unknown_units,
    corpus_warnings,
    run_pair_warnings,
)
from evalset_pipeline.core.scoring.metrics import QueryScores, score_run
from evalset_pipeline.core.scoring.qrels import Qrels, qrels_from_golden
from evalset_pipeline.core.scoring.report import (
    build_score_report,
    render_compare_report,
    render_score_report,
)
from evalset_pipeline.core.scoring.runs import Run, RunFormatError, RunMeta, read_run


def load_golden(version: str, data_dir: Path | None) -> GoldenSet:
    """The golden version to score against (tests replace this to score in-memory sets)."""
    from evalset_pipeline.core.golden.reader import (
        load_golden_set,  # imported late: reader is optional here
    )

    return load_golden_set(version=version, data_dir=data_dir)


def _common(p: argparse.ArgumentParser) -> None:
    add_golden(p)
    add_data_dir(p)
    p.add_argument("--json", action="store_true", help="print one JSON object instead of tables")
    p.add_argument(
        "--relevance",
        choices=sorted(RELEVANCE_THRESHOLDS),
        default=DEFAULT_RELEVANCE,
        help="what counts as relevant for Recall@k and MRR@k (default: sufficient)",
    )
    p.add_argument(
        "--gain",
        choices=GAINS,
        default=DEFAULT_GAIN,
        help="nDCG gain: binary (default: 1 per relevant unit, what every tool computes from the "
        "default export) or graded (sufficient 2, supporting 1, as in `evalset golden export --gain "
        "graded`)",
    )
    p.add_argument(
        "--max-age-days",
        type=float,
        default=DEFAULT_MAX_AGE_DAYS,
        help=f"refuse golden sets older than this (default: {DEFAULT_MAX_AGE_DAYS:g})",
    )
    p.add_argument(
        "--allow-stale", action="store_true", help="score against a golden set past --max-age-days"
    )
    p.add_argument(
        "--allow-empty", action="store_true", help="score even when >5%% of queries have no results"
    )
    p.add_argument(
        "--allow-unknown-units",
        action="store_true",
        help="score even when the run's unit ids are not pages of the golden set's corpus",
    )


def register(subparsers: Any) -> None:
    s = subparsers.add_parser(
        "score",
        help="score a run (TREC, JSONL or Parquet) against a golden version",
        description="Recall@k, nDCG@k, MRR@k, sufficient@k, supporting-only@k, Judged@k and the gold-unit "
        "view per slice, at k = 1, 3, 5, 10. Conventions: docs/scoring.md.",
    )
    s.add_argument(
        "run", type=Path, help="run file: TREC (qid Q0 docid rank score tag), .jsonl or .parquet"
    )
    _common(s)
    s.add_argument(
        "--corpus-fingerprint",
        default=None,
        help="corpus the run was retrieved from (overrides run metadata)",
    )
    s.add_argument(
        "--corpus-pages",
        type=int,
        default=None,
        help="pages in that corpus (overrides run metadata)",
    )
    s.set_defaults(func=cmd_score)

    c = subparsers.add_parser(
        "compare",
        help="paired comparison of two runs on the same golden version",
        description="Per-query differences B − A with 95% BCa bootstrap intervals, exact McNemar on "
        "0/1 metrics, and a verdict per metric (better / worse / indistinguishable).",
    )
    c.add_argument("run_a", type=Path, help="baseline run")
    c.add_argument("run_b", type=Path, help="candidate run")
    _common(c)
    c.add_argument(
        "--corpus-fingerprint-a", default=None, help="corpus of run A (overrides its metadata)"
    )
    c.add_argument(
        "--corpus-fingerprint-b", default=None, help="corpus of run B (overrides its metadata)"
    )
    c.add_argument(
        "--resamples", type=int, default=BOOTSTRAP_RESAMPLES, help="bootstrap resamples (min 10000)"
    )
    c.add_argument(
        "--seed",
        type=int,
        default=BOOTSTRAP_SEED,
        help="bootstrap seed (fixed, so reports reproduce)",
    )
    c.add_argument(
        "--show-judged", action="store_true", help="also list the _judged metrics in the tables"
    )
    c.set_defaults(func=cmd_compare)


# --- shared steps ------------------------------------------------------------------------------


def _load(args: argparse.Namespace, run_paths: list[Path]) -> tuple[GoldenSet, list[Run]]:
    golden = load_golden(args.golden, args.data_dir)
    return golden, [read_run(p) for p in run_paths]


def _override(run: Run, fingerprint: str | None, pages: int | None = None) -> Run:
    return run.with_meta(
        RunMeta(corpus_fingerprint=fingerprint, corpus_pages=pages).merged_over(run.meta)
    )


def _run_info(run: Run) -> dict[str, Any]:
    return {
        "path": run.source,
        "name": run.name,
        "rows": len(run),
        **{k: v for k, v in run.meta.to_dict().items() if k != "run_name"},
    }


def known_units(golden: GoldenSet, data_dir: Path | None) -> KnownUnits:
    """The pages a run may name: the golden set's pages and their documents' pages, plus every
    rendered page of the data directory's build when it is of the same corpus (then complete)."""
    units = golden.units
    ids = set(units.column("unit_id").to_pylist()) if "unit_id" in units.column_names else set()
    # Judged pages are units too even where a (test-built) set lists no golden_units rows.
    ids.update(golden.judgments.column("unit_id").to_pylist())
    shas = (
        units.column("document_sha256").to_pylist()
        if "document_sha256" in units.column_names
        else []
    )
    prefixes = {f"{sha[:12]}-p" for sha in shas if sha}
    complete = False
    try:
        from evalset_pipeline.core.paths import DataPaths
        from evalset_pipeline.core.scoring.baselines import load_corpus_index

        index = load_corpus_index(DataPaths.at(data_dir))
        if index.corpus_fingerprint and index.corpus_fingerprint == golden.info.get(
            "corpus_fingerprint"
        ):
            ids.update(index.unit_ids)
            complete = True
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no build here: judge by the golden set's own pages only
    return KnownUnits(frozenset(ids), frozenset(prefixes), complete)


def _score(
    args: argparse.Namespace, qrels: Qrels, run: Run, golden: GoldenSet, known: KnownUnits
) -> tuple[QueryScores, list[str]]:
    # Before scoring: a run of ids from another corpus would score 0.000 and exit 0 otherwise.
    import pyarrow.compute as pc

    unknown_warnings = check_unknown_units(
        pc.unique(run.unit_ids).to_pylist(),  # distinct ids only: a 1M-row run has far fewer
        known,
        run_path=run.source or run.name,
        version_id=golden.version_id,
        allow_unknown=args.allow_unknown_units,
    )
    scores = score_run(qrels, run, relevance=args.relevance, gain=args.gain)
    # Only queries that can be scored: one the zero-relevant policy excludes changes no number
    # whether or not the run answers it (and exports leave such items out of their queries).
    warnings = check_empty_queries(
        scores.n_results[scores.eligible], run_name=run.name, allow_empty=args.allow_empty
    )
    return scores, unknown_warnings + warnings


def _print_json(report: dict[str, Any]) -> None:
    print(json.dumps(json_safe(report), allow_nan=False, default=str))


def _fail(message: str, code: int) -> int:
    print(message, file=sys.stderr)
    return code


# --- commands ----------------------------------------------------------------------------------


def cmd_score(args: argparse.Namespace) -> int:
    try:
        golden, (run,) = _load(args, [args.run])
    except (GoldenSetError, FileNotFoundError, RunFormatError, ValueError) as exc:
        return _fail(f"error: {exc}", INPUT_ERROR)
    run = _override(run, args.corpus_fingerprint, args.corpus_pages)
    try:
        warnings = check_golden_age(
            golden.info, max_age_days=args.max_age_days, allow_stale=args.allow_stale
        )
        qrels = qrels_from_golden(golden)
        scores, empty_warnings = _score(
            args, qrels, run, golden, known_units(golden, args.data_dir)
        )
    except MeasurementRefused as exc:
        return _fail(str(exc), exc.exit_code)
    except ValueError as exc:
        return _fail(f"error: {exc}", INPUT_ERROR)
    # Corpus warnings first: they decide whether the numbers below can be compared at all.
    warnings = corpus_warnings(golden.info, run.meta, run_name=run.name) + warnings + empty_warnings
    warnings += list(qrels.warnings)
    report = build_score_report(
        golden_info=golden.info,
        version_id=golden.version_id,
        scores=scores,
        warnings=warnings,
        run_info=_run_info(run),
    )
    if args.json:
        _print_json(report)
    else:
        render_score_report(report)
    return 0


def cmd_compare(args: argparse.Namespace) -> int:
    if args.resamples < BOOTSTRAP_RESAMPLES:
        return _fail(
            f"error: --resamples must be at least {BOOTSTRAP_RESAMPLES:,} for a stable 95% interval",
            2,
        )
    try:
        golden, (run_a, run_b) = _load(args, [args.run_a, args.run_b])
    except (GoldenSetError, FileNotFoundError, RunFormatError, ValueError) as exc:
        return _fail(f"error: {exc}", INPUT_ERROR)
    run_a = _override(run_a, args.corpus_fingerprint_a)
    run_b = _override(run_b, args.corpus_fingerprint_b)
    name_a, name_b = run_a.name, run_b.name
    if name_a == name_b:  # two runs with one tag: keep the report readable
        name_a, name_b = f"A:{name_a}", f"B:{name_b}"
    try:
        warnings = check_golden_age(
            golden.info, max_age_days=args.max_age_days, allow_stale=args.allow_stale
        )
        qrels = qrels_from_golden(golden)
        known = known_units(golden, args.data_dir)
        scores_a, empty_a = _score(args, qrels, run_a, golden, known)
        scores_b, empty_b = _score(args, qrels, run_b, golden, known)
    except MeasurementRefused as exc:
        return _fail(str(exc), exc.exit_code)
    except ValueError as exc:
        return _fail(f"error: {exc}", INPUT_ERROR)
    top = run_pair_warnings(run_a.meta, run_b.meta, name_a, name_b)
    top += corpus_warnings(golden.info, run_a.meta, run_name=name_a) + corpus_warnings(
        golden.info, run_b.meta, run_name=name_b
    )
    warnings = top + warnings + empty_a + empty_b + list(qrels.warnings)
    report = build_compare_report(
        version_id=golden.version_id,
        a=scores_a,
        b=scores_b,
        run_a={**_run_info(run_a), "name": name_a},
        run_b={**_run_info(run_b), "name": name_b},
        warnings=warnings,
        n_resamples=args.resamples,
        seed=args.seed,
    )
    if args.json:
        _print_json(report)
    else:
        render_compare_report(report, show_judged=args.show_judged)
    return 0

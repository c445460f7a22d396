"""`evalset import FORMAT PATH`: import an external benchmark into the golden store, hardened.

Reads a BEIR folder, a ViDoRe / MTEB parquet folder or a FinanceBench-style JSONL file, maps its
gold pages onto the units of the corpus the data directory was built from, judges each gold page
and its mined one-axis siblings, and publishes the result as a new golden version (see
docs/hardening.md). Bad rows are listed with their file and line; the valid rows still import.

The version is published without becoming "latest" (downstream jobs reading latest keep the last
build's set) unless `--as-latest`; it is named by its id, in `evalset golden history` and as the
default of `evalset report hardening`.

Exit codes: 0 imported (even with bad rows, listed on stderr); 1 bad input (no build in the data
directory, unreadable input, no row resolves); 2 bad arguments; 3 the data directory is held by a
build or another import (as `evalset build`).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import (
    add_data_dir,
    add_vlm_options,
    json_safe,
    vlm_config,
    vlm_flags_error,
)

SHOWN_ISSUES = 20


def register(subparsers: Any) -> None:
    from evalset_pipeline.core.imports.records import FORMATS

    p = subparsers.add_parser(
        "import",
        help="import an external benchmark (BEIR, ViDoRe/MTEB parquet, JSONL) and harden it",
        description=__doc__.split("\n\n")[1],
    )
    p.add_argument(
        "format",
        choices=FORMATS,
        help="beir: queries.jsonl + corpus.jsonl + qrels/*.tsv; vidore / mteb: "
        "corpus/ queries/ qrels/ parquet; jsonl: question, answer, document, evidence_pages (1-based)",
    )
    p.add_argument("path", type=Path, help="the folder (beir, vidore, mteb) or the file (jsonl)")
    p.add_argument("--source", default="", help="the benchmark's name (default: the folder's name)")
    p.add_argument(
        "--mapping",
        type=Path,
        default=None,
        metavar="CSV",
        help="corpus_id,document,page (1-based) for corpora whose rows do not name their page",
    )
    p.add_argument(
        "--split",
        action="append",
        default=[],
        help="import only this split (repeatable; default: all)",
    )
    add_vlm_options(p)
    add_data_dir(p)
    p.add_argument(
        "--wait", action="store_true", help="queue behind a build holding the data directory"
    )
    p.add_argument(
        "--max-rows",
        type=int,
        default=None,
        metavar="N",
        help="refuse an input with more questions than this before judging any (default 1,000,000)",
    )
    p.add_argument(
        "--as-latest",
        action="store_true",
        help="make the imported version latest (default: latest stays the last build's version)",
    )
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_import)


def _labeller(args: argparse.Namespace, paths: Any):
    """(label function, judge identity, closer): the answer-evidence judge offline, the VLM with openai."""
    if args.vlm == "textlayer":
        from evalset_pipeline.core.reader.answer_evidence import AnswerEvidenceJudge

        judge = AnswerEvidenceJudge()
        return judge.label, judge.identity(), lambda: None
    from evalset_pipeline.core.backends.factory import backend_identity, open_cached_backend

    backend = open_cached_backend(vlm_config(args), paths)
    return backend.label, backend_identity(backend.backend), backend.cache.close


class _JudgeProgress:
    """`judging: N of M rows (P%)` on stderr, once per tenth, for imports large enough to take a
    while (a 900k-row import used to print nothing for hours)."""

    def __init__(self, min_rows: int = 500) -> None:
        self.min_rows = min_rows
        self.shown = -1

    def __call__(self, done: int, total: int) -> None:
        if total < self.min_rows:
            return
        tenth = done * 10 // total
        if tenth > self.shown:
            self.shown = tenth
            print(
                f"judging: {done:,} of {total:,} rows ({done / total:.0%})",
                file=sys.stderr,
                flush=True,
            )


def cmd_import(args: argparse.Namespace) -> int:
    from evalset_pipeline.cli.build import EXIT_BUSY
    from evalset_pipeline.core.buildlock import BuildLocked, build_lock
    from evalset_pipeline.core.golden.errors import GoldenSetError
    from evalset_pipeline.core.imports.harden import harden, load_working_corpus
    from evalset_pipeline.core.imports.readers import read_source
    from evalset_pipeline.core.imports.records import DEFAULT_MAX_ROWS, ImportFormatError
    from evalset_pipeline.core.imports.staging import remove_leftovers
    from evalset_pipeline.core.paths import DataPaths

    problem = vlm_flags_error(args) or (
        "--max-rows must be at least 1" if args.max_rows is not None and args.max_rows < 1 else ""
    )
    if problem:
        print(f"error: {problem}", file=sys.stderr)
        return 2
    paths = DataPaths.at(args.data_dir)
    if not paths.root.is_dir():
        # Checked before the lock: taking it would create the directory for a failed import.
        print(
            f"error: data directory {paths.root} does not exist: run `evalset build --corpus DIR "
            f"--data-dir {paths.root}` first (an import maps a benchmark onto a built corpus)",
            file=sys.stderr,
        )
        return 1
    try:
        source = read_source(
            args.format,
            args.path,
            source=args.source,
            mapping=args.mapping,
            splits=tuple(args.split),
            max_rows=args.max_rows or DEFAULT_MAX_ROWS,
        )
        if source.rows >= 10_000:
            print(f"read {source.rows:,} rows from {source.path}", file=sys.stderr, flush=True)
        for warning in source.warnings:
            print(f"warning: {warning}", file=sys.stderr)
        with build_lock(
            paths,
            str(args.path),
            wait=args.wait,
            on_wait=lambda who: print(f"waiting: {who}", file=sys.stderr, flush=True),
            kind="evalset import",
        ):
            remove_leftovers(paths)  # staging a killed import left (we hold the lock)
            corpus = load_working_corpus(paths)
            # The corpus (renders, views, mined siblings) lives to the end: out of the collector's
            # sight, its full passes stop rescanning it while a million rows stream by.
            gc.freeze()
            label, identity, close = _labeller(args, paths)
            try:
                result, prov, resolution = harden(
                    paths,
                    source,
                    label,
                    identity,
                    corpus,
                    as_latest=args.as_latest,
                    progress=_JudgeProgress(),
                )
            finally:
                close()
    except BuildLocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY
    except (ImportFormatError, FileNotFoundError, ValueError, GoldenSetError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    summary = {
        "version_id": result.version_id,
        "created": result.created,
        "source": source.source,
        "format": source.format,
        "rows": source.rows,
        "imported": prov["imported"],
        "statuses": prov["statuses"],
        "gold_refs": prov["gold_refs"],
        "gold_refs_resolved": prov["gold_refs_resolved"],
        "issues": [str(i) for i in resolution.issues],
        "warnings": list(source.warnings),
        "is_latest": result.is_latest,
        "judge": identity,
        "snapshot": str(result.snapshot_dir),
    }
    for issue in resolution.issues[:SHOWN_ISSUES]:
        print(f"skipped {issue}", file=sys.stderr)
    if len(resolution.issues) > SHOWN_ISSUES:
        print(
            f"... and {len(resolution.issues) - SHOWN_ISSUES} more (in the version's provenance)",
            file=sys.stderr,
        )
    if args.json:
        print(json.dumps(json_safe(summary), default=str))
        return 0
    print(
        f"imported {prov['imported']} of {source.rows} rows from {source.path} as {source.source}: "
        + ", ".join(f"{k} {v}" for k, v in prov["statuses"].items())
    )
    print(
        f"gold pages mapped: {prov['gold_refs_resolved']} of {prov['gold_refs']}; issues: {len(resolution.issues)}"
    )
    latest = (
        "latest"
        if result.is_latest
        else "not latest: `latest` is still the last build's version (--as-latest to change that)"
    )
    print(
        f"golden version {result.version_id} ({'new' if result.created else 'unchanged'}; {latest}); "
        f"`evalset report hardening --golden {result.version_id}` reads it"
    )
    return 0

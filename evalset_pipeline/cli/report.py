"""`evalset report headline`: top-1 against random negatives beside sufficient@k against hard ones.

Exit codes: 0 reported; 1 bad input (no golden set, working tables missing); 2 refused (the
retriever has no honest run on this index) or bad arguments.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from evalset_pipeline.cli.common import add_data_dir, add_golden, json_safe, retrieval_failure
from evalset_pipeline.core.golden.errors import GoldenSetError


def register(subparsers: Any) -> None:
    from evalset_pipeline.core.scoring.baselines import DEFAULT_RETRIEVER, DEFAULT_SEED, RETRIEVERS

    report = subparsers.add_parser(
        "report", help="reports over a golden version (headline, hardening, completeness)"
    )
    sub = report.add_subparsers(dest="report_command", required=True)
    h = sub.add_parser(
        "headline",
        help="top-1 vs random negatives beside sufficient@1/@5 vs hard negatives, each with its own n",
        description="Random negatives: every written question as written (before validation), its source page "
        "+ R seeded random pages of another template and document (R = median hard pool size - 1); top-1, top-5. "
        "Hard negatives: the golden main slice against its judged pool; sufficient@1, sufficient@5, "
        "supporting-only@5. Both also over the whole index, plus a one-change-at-a-time bridge. "
        "See docs/scoring.md, 'The headline report'.",
    )
    h.add_argument(
        "--retriever",
        choices=RETRIEVERS,
        default=DEFAULT_RETRIEVER,
        help=f"which baseline ranks (default: {DEFAULT_RETRIEVER})",
    )
    add_golden(h)
    add_data_dir(h)
    h.add_argument(
        "--seed", type=int, default=DEFAULT_SEED, help="seed of the random-negative draws"
    )
    h.add_argument("--json", action="store_true", help="print one JSON object")
    h.set_defaults(func=cmd_headline)
    from evalset_pipeline.cli import report_completeness, report_hardening

    report_hardening.register(sub)
    report_completeness.register(sub)


def cmd_headline(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.scoring.baselines import BaselineUnavailable
    from evalset_pipeline.core.scoring.headline import headline

    paths = DataPaths.at(args.data_dir)
    try:
        golden = load_golden_set(args.golden, paths.root)
        report = headline(paths, golden, args.retriever, seed=args.seed)
    except (BaselineUnavailable, GoldenSetError, FileNotFoundError, ValueError) as exc:
        return retrieval_failure(exc, args.retriever)
    if args.json:
        print(json.dumps(json_safe(report.to_dict()), allow_nan=False, default=str))
        return 0
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(report.markdown()))
    return 0

"""`evalset pool add RUN [RUN ...]`: judge the runs' unjudged top-k and publish a new golden version.

Exit codes: 0 pooled (or nothing new: same version); 1 bad input (no golden set, unreadable run,
judge failure); 2 bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import (
    INPUT_ERROR,
    add_data_dir,
    add_golden,
    add_vlm_options,
    vlm_config,
    vlm_flags_error,
)
from evalset_pipeline.core.golden.errors import GoldenSetError


def register(subparsers: Any) -> None:
    from evalset_pipeline.core.scoring.pooling import DEFAULT_POOL_DEPTH

    pool = subparsers.add_parser(
        "pool", help="pool runs: label what they retrieved, once, for every later experiment"
    )
    sub = pool.add_subparsers(dest="pool_command", required=True)
    p = sub.add_parser(
        "add",
        help="judge the runs' unjudged top-k units and publish a golden version that holds them",
        description="Takes each run's top --depth distinct units per golden item, drops pairs the version already "
        "judges, labels the rest with the judge (cached: a repeat asks nothing) and publishes a new version with "
        "them as role `pooled`. Nothing new: no new version. See docs/scoring.md, 'Pooling'.",
    )
    p.add_argument(
        "runs", nargs="+", type=Path, metavar="RUN", help="run files (TREC, .jsonl, .parquet)"
    )
    p.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_POOL_DEPTH,
        help=f"top k per query to pool (default: {DEFAULT_POOL_DEPTH})",
    )
    add_golden(p, help="golden version to extend (default: latest)")
    add_data_dir(p)
    add_vlm_options(p)
    p.add_argument("--json", action="store_true", help="print one JSON object")
    p.set_defaults(func=cmd_pool_add)


def cmd_pool_add(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.backends.factory import open_cached_backend
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.judging.base import BatchError
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.scoring.pooling import pool_runs, read_runs
    from evalset_pipeline.core.scoring.runs import RunFormatError

    if args.depth < 1:
        print("error: --depth must be at least 1", file=sys.stderr)
        return 2
    if problem := vlm_flags_error(args):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    paths = DataPaths.at(args.data_dir)
    config = vlm_config(args)
    try:
        golden = load_golden_set(args.golden, paths.root)
        runs = read_runs(args.runs)
        result = pool_runs(
            paths, golden, runs, lambda: open_cached_backend(config, paths), depth=args.depth
        )
    except (GoldenSetError, FileNotFoundError, RunFormatError, ValueError, BatchError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return INPUT_ERROR
    if args.json:
        print(json.dumps(result.to_dict(), default=str))
        return 0
    for w in result.warnings:
        print(f"warning: {w}", file=sys.stderr)
    if result.created:
        state = f"new version; parent {result.parent_version}"
    elif result.added:
        state = f"identical version existed already; parent {result.parent_version}"
    else:
        state = "nothing new to judge: same version, nothing published"
    labels = ", ".join(f"{k} {v}" for k, v in result.by_label.items()) or "none"
    print(f"{result.version_id} ({state})")
    print(
        f"runs: {', '.join(result.runs)}  top {result.depth}: {result.considered} pairs, "
        f"{result.already_judged} already judged, {result.added} added ({labels}); "
        f"judge calls {result.model_calls}, cache hits {result.cache_hits}"
    )
    return 0

"""`evalset baseline`: a run from a built-in retriever, ready for `evalset score`.

    evalset baseline --retriever text --out /tmp/run.trec && evalset score /tmp/run.trec

Exit codes: 0 written; 1 bad input (no golden set, working tables missing); 2 refused (the
retriever has no honest run on this index, e.g. `appearance` over the offline appearance vectors)
or bad arguments.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import add_data_dir, add_golden, retrieval_failure
from evalset_pipeline.core.golden.errors import GoldenSetError


def register(subparsers: Any) -> None:
    from evalset_pipeline.core.scoring.baselines import (
        DEFAULT_DEPTH,
        DEFAULT_RETRIEVER,
        DEFAULT_SEED,
        RETRIEVERS,
    )

    p = subparsers.add_parser(
        "baseline",
        help="write a run from a built-in retriever (bm25, text, appearance, random) for every golden item",
        description="Retrieves over every rendered page of the corpus (exact cosine, top --depth) with the "
        "golden items' questions as queries. bm25 (default): BM25 over each page's text layer. "
        "text: all-MiniLM-L6-v2 over each page's text layer. appearance: the "
        "question embedded by the page-embedding model, when that model has a text side (refused over the offline "
        "appearance vectors). random: the chance floor. Output format by suffix: .parquet, .jsonl, else TREC; the "
        "corpus fingerprint and page count travel with the run. See docs/scoring.md, 'Baselines'.",
    )
    p.add_argument(
        "--retriever",
        choices=RETRIEVERS,
        default=DEFAULT_RETRIEVER,
        help=f"which baseline (default: {DEFAULT_RETRIEVER})",
    )
    p.add_argument(
        "--out",
        type=Path,
        required=True,
        metavar="RUN",
        help="run file to write (.trec, .jsonl, .parquet)",
    )
    add_golden(p, help="golden version whose items are the queries")
    add_data_dir(p)
    p.add_argument(
        "--depth",
        type=int,
        default=DEFAULT_DEPTH,
        help=f"results per query (default: {DEFAULT_DEPTH})",
    )
    p.add_argument("--seed", type=int, default=DEFAULT_SEED, help="seed of the random retriever")
    p.add_argument("--json", action="store_true", help="print a JSON summary")
    p.set_defaults(func=cmd_baseline)


def cmd_baseline(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.scoring.baselines import (
        BaselineUnavailable,
        baseline_run,
        load_corpus_index,
        write_run,
    )

    if args.depth < 1:
        print("error: --depth must be at least 1", file=sys.stderr)
        return 2
    paths = DataPaths.at(args.data_dir)
    try:
        golden = load_golden_set(args.golden, paths.root)
        index = load_corpus_index(paths)
        run = baseline_run(
            paths, golden.items, args.retriever, depth=args.depth, seed=args.seed, index=index
        )
    except (BaselineUnavailable, GoldenSetError, FileNotFoundError, ValueError) as exc:
        return retrieval_failure(exc, args.retriever)
    fmt = write_run(run, args.out)
    summary = {
        "path": str(args.out),
        "format": fmt,
        "retriever": args.retriever,
        "golden": golden.version_id,
        "queries": golden.items.num_rows,
        "rows": len(run),
        "depth": args.depth,
        "index_pages": len(index),
        **{k: v for k, v in run.meta.to_dict().items() if v is not None},
    }
    if args.json:
        print(json.dumps(summary))
    else:
        fp = summary.get("corpus_fingerprint") or "?"
        print(
            f"wrote {summary['rows']} rows ({summary['queries']} queries x top {args.depth} of {len(index)} pages) "
            f"to {args.out} [{fmt}], run {summary.get('run_name')}, golden {golden.version_id}, corpus {fp[:16]}"
        )
    return 0

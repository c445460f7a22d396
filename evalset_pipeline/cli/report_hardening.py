"""`evalset report hardening`: sibling-answerable shares, judge validation and before/after of an imported set.

Exit codes: 0 reported; 1 bad input (no such version, not an import).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import add_data_dir, json_safe


def register(report_subparsers: Any) -> None:
    from evalset_pipeline.core.scoring.baselines import RETRIEVERS

    h = report_subparsers.add_parser(
        "hardening",
        help="what hardening an imported benchmark found (docs/hardening.md)",
        description="Per axis, the share of imported questions a one-axis sibling answers (95%% interval); the "
        "judge against the human gold pages (confusion matrix, per-class recall, macro-F1; computed answers "
        "apart); a baseline retriever against the original qrels and the hardened set.",
    )
    h.add_argument(
        "--golden",
        default=None,
        metavar="latest|VERSION",
        help="the imported version (default: the newest import; imports do not move latest)",
    )
    add_data_dir(h)
    h.add_argument(
        "--retriever",
        choices=RETRIEVERS,
        default="text",
        help="baseline for the before/after table",
    )
    h.add_argument("--no-baseline", action="store_true", help="skip the before/after table")
    h.add_argument(
        "--html",
        type=Path,
        default=None,
        metavar="FILE",
        help="where to write the HTML page (default: <data>/reports/hardening-<version>.html)",
    )
    h.add_argument("--json", action="store_true", help="print one JSON object")
    h.set_defaults(func=cmd_hardening)


def cmd_hardening(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.errors import GoldenSetError
    from evalset_pipeline.core.golden.reader import latest_import, load_golden_set
    from evalset_pipeline.core.imports.report import NotAnImport, hardening_report
    from evalset_pipeline.core.paths import DataPaths

    paths = DataPaths.at(args.data_dir)
    try:
        golden = load_golden_set(args.golden or latest_import(paths.root), paths.root)
        report = hardening_report(
            golden, paths, retriever=None if args.no_baseline else args.retriever
        )
    except (GoldenSetError, NotAnImport, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = args.html or paths.root / "reports" / f"hardening-{golden.version_id}.html"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report.html(), encoding="utf-8")
    if args.json:
        print(
            json.dumps(
                json_safe({**report.to_dict(), "html": str(out)}), allow_nan=False, default=str
            )
        )
        return 0
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(report.markdown()))
    print(f"HTML: {out}")
    return 0

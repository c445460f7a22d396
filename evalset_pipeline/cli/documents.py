"""`evalset documents [--rejected | --facts] [--json] [--data-dir DIR]`: what the last build took
in, and what it did not.

Reads the `documents` and `rejected_documents` tables the `documents` and `page_renders` stages
wrote under the data directory, or with `--facts` the `document_facts` table of `page_metadata`
(registrant, form, reporting period, fiscal calendar, each with its source and confidence, and
the document's conflicts with its filer's other documents and its low-confidence facts);
never touches the corpus or DuckDB, so it works during a build.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "documents", help="List the corpus documents of the last build, or the rejected ones"
    )
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        help="data directory (default: $EVALSET_DATA_DIR or ./data)",
    )
    p.add_argument(
        "--rejected",
        action="store_true",
        help="list rejected documents and pages (path, sha256, reason, stage) instead",
    )
    p.add_argument(
        "--facts",
        action="store_true",
        help="show each document's facts (registrant, form, period, fiscal year end), their sources, "
        "and the conflicts and low-confidence facts flagged on each",
    )
    p.add_argument("--json", action="store_true", help="print JSON rows")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.paths import DataPaths, default_data_dir
    from evalset_pipeline.core.tables import read_rows

    data_dir = Path(args.data_dir) if args.data_dir is not None else default_data_dir()
    if "\x00" in str(data_dir) or not data_dir.is_dir():
        print(
            f"error: data directory {str(data_dir)!r} does not exist or is not a directory",
            file=sys.stderr,
        )
        return 2
    if args.rejected and args.facts:
        print("error: --rejected and --facts are two views; pick one", file=sys.stderr)
        return 2
    name = (
        "rejected_documents" if args.rejected else "document_facts" if args.facts else "documents"
    )
    path = DataPaths.at(data_dir).table(name)
    if not path.is_file():
        print(
            f"error: no {name} table under {data_dir}: run `evalset build --data-dir {data_dir}` first",
            file=sys.stderr,
        )
        return 2
    try:
        rows = read_rows(path)
    except Exception as exc:  # a damaged table is reported, not a traceback
        print(f"error: cannot read {path}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    coverage = None if args.rejected or args.facts else _coverage(data_dir)
    if coverage is not None:
        for r in rows:  # per document: pages with no text layer, pages a question was asked on
            counts = coverage.by_document.get(r["path"], {})
            r["pages_without_text_layer"] = counts.get("without_text_layer", 0)
            r["pages_sampled"] = counts.get("sampled", 0)
    if args.json:
        print(json.dumps(rows, indent=2, ensure_ascii=False, default=str))
        return 0
    if args.facts:
        _print_facts(rows, data_dir=data_dir)
    else:
        _print(rows, rejected=args.rejected, data_dir=data_dir)
        if coverage is not None:
            for line in coverage_lines(coverage.to_dict()):
                print(line)
    return 0


def _coverage(data_dir: Path):  # -> Coverage | None
    """Text layers and sampling per page; None when the build did not get that far."""
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.pipeline.coverage import page_coverage

    try:
        return page_coverage(DataPaths.at(data_dir))
    except (OSError, ValueError, KeyError, TypeError):
        return None


def coverage_lines(c: dict) -> list[str]:
    """What the build summary and `evalset documents` say about pages never asked about."""
    if not c or not c.get("pages"):
        return []
    lines = [
        f"pages: {c['pages']:,}; {c['pages_without_text_layer']:,} without a text layer; "
        f"{c['pages_sampled']:,} sampled for a question, {c['pages_never_sampled']:,} never sampled"
    ]
    lines += [f"  never sampled, {n:,}: {why}" for why, n in c["never_sampled_reasons"].items()]
    if c.get("documents_never_sampled_count"):
        shown = ", ".join(
            f"{d['path']} ({d['pages']:,} pages"
            + (f", {d['without_text_layer']:,} without text" if d["without_text_layer"] else "")
            + ")"
            for d in c["documents_never_sampled"]
        )
        more = c["documents_never_sampled_count"] - len(c["documents_never_sampled"])
        lines.append(
            f"  documents with no sampled page: {c['documents_never_sampled_count']:,} "
            f"(largest: {shown}{f', and {more} more' if more > 0 else ''})"
        )
    return lines


def _print_facts(rows: list[dict], *, data_dir: Path) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text

    console = Console()
    t = Table(title=f"document facts ({len(rows)})")
    for col in (
        "path",
        "entity",
        "source",
        "form",
        "period",
        "ends",
        "source ",
        "fiscal year ends",
        "subject",
        "conflicts / low confidence",
    ):
        t.add_column(col, overflow="fold")
    months = "Jan Feb Mar Apr May Jun Jul Aug Sep Oct Nov Dec".split()
    for r in sorted(rows, key=lambda r: r["path"]):
        t.add_row(
            Text(r["path"]),
            # a renamed filer's other names, and the identifier its covers print
            Text(
                "\n".join(
                    [r["entity"] or "-"]
                    + [f"also {a}" for a in r.get("aliases") or []]
                    + list(r.get("filer_ids") or [])
                )
            ),
            Text(f"{r['entity_source'] or '-'} {r['entity_confidence']:.2f}"),
            Text(r["form"] or "-"),
            Text(r["period"] or "-"),
            Text(r["period_end"] or "-"),
            Text(f"{r['period_source'] or '-'} {r['period_confidence']:.2f}"),
            Text(f"{months[r['fiscal_year_end_month'] - 1]} ({r['calendar_source']})"),
            # what the cover says the document is about (tables written before it have none)
            Text(f"{r['subject']} ({r.get('subject_source') or '-'})" if r.get("subject") else "-"),
            _concerns(r),
        )
    console.print(t)
    if not rows:
        console.print(Text(f"none in {data_dir}"))
    conflicting = sum(1 for r in rows if r.get("conflicts"))
    flagged = sum(1 for r in rows if r.get("flags"))
    if conflicting or flagged:
        console.print(
            Text(
                f"{conflicting} documents with conflicts (their pages are not sampled until a "
                f"sidecar row gives their period), {flagged} with low-confidence facts"
            )
        )


def _concerns(row: dict) -> Any:
    """A document's conflicts (red) and low-confidence facts, one per line ("-" when none);
    tables written before these columns existed have neither."""
    from rich.text import Text

    out = Text()
    for c in row.get("conflicts") or []:
        out.append(f"CONFLICT {c}\n", style="bold red")
    for f in row.get("flags") or []:
        out.append(f"{f}\n", style="yellow")
    out.rstrip()
    return out if out.plain else Text("-")


def _print(rows: list[dict], *, rejected: bool, data_dir: Path) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text  # cells as Text: a file named "[/b].pdf" is a name, not markup

    console = Console()
    if rejected:
        t = Table(title=f"rejected documents ({len(rows)})")
        for col in ("path", "sha256", "reason", "stage"):
            t.add_column(col, overflow="fold")
        for r in rows:
            t.add_row(
                Text(r["path"]), Text(r["sha256"][:16] or "-"), Text(r["reason"]), Text(r["stage"])
            )
    else:
        t = Table(title=f"documents ({len(rows)}, {sum(r['page_count'] for r in rows)} pages)")
        numeric = ("pages", "no text", "sampled", "bytes")
        for col in ("path", "pages", "no text", "sampled", "sha256", "bytes", "also as"):
            t.add_column(col, overflow="fold", justify="right" if col in numeric else "left")
        for r in rows:
            others = [p for p in r["paths"] if p != r["path"]]
            t.add_row(
                Text(r["path"]),
                str(r["page_count"]),
                str(r.get("pages_without_text_layer", "-")),
                str(r.get("pages_sampled", "-")),
                Text(r["document_sha256"][:16]),
                str(r["bytes"]),
                Text(", ".join(others)),
            )
    console.print(t)
    if not rows:
        console.print(Text(f"none in {data_dir}"))

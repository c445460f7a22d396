"""`evalset report completeness [VERSION]`: pages that print an item's answer for its row and
period and were never judged (core/evidence/completeness.py). Zero for a built set; for an
imported benchmark, the share of its questions another page of the corpus also answers.

Exit codes: 0 reported; 1 bad input (no such version, no evidence index in the data dir).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import INPUT_ERROR, add_data_dir, add_golden, json_safe

SHOWN = 50  # unjudged pages listed in the terminal (--json lists all)


def register(report_subparsers: Any) -> None:
    c = report_subparsers.add_parser(
        "completeness",
        help="pages that print an item's answer and were never judged",
        description="For every item whose answer is a figure of 3+ significant digits printed in a table "
        "cell of its gold page: the other pages of the corpus that print it for the same row label and "
        "period, and which of them the version never judged. Built sets: 0. Imported benchmarks: the "
        "share of questions another page also answers. Needs the data dir's evidence index "
        "(`evalset build` makes it).",
    )
    add_golden(c)
    add_data_dir(c)
    c.add_argument(
        "--judge",
        action=argparse.BooleanOptionalAction,
        default=None,
        help="also show every page that prints the answer's digits to the offline answer-evidence "
        "judge (for answers no table cell places: on by default for an imported benchmark)",
    )
    c.add_argument("--json", action="store_true", help="print one JSON object")
    c.set_defaults(func=cmd_completeness)


def cmd_completeness(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.evidence.completeness import (
        answered_by_evidence,
        completeness,
        item_refs,
    )
    from evalset_pipeline.core.evidence.index import EvidenceIndex
    from evalset_pipeline.core.golden.errors import GoldenSetError
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.paths import DataPaths

    paths = DataPaths.at(args.data_dir)
    try:
        golden = load_golden_set(args.golden, paths.root)
        index = EvidenceIndex.read(paths)
    except (GoldenSetError, FileNotFoundError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return INPUT_ERROR
    judgments = golden.judgments.to_pylist()
    items = item_refs(golden.items.to_pylist(), judgments)
    judged = {(j["item_id"], j["unit_id"]) for j in judgments}
    report = completeness(items, judged, index)
    imported = (golden.info.get("provenance") or {}).get("kind") == "import"
    audit = (
        answered_by_evidence(items, judged, index, _evidence_judge(paths))
        if (args.judge if args.judge is not None else imported)
        else None
    )
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    pages = _page_names(paths)
    if args.json:
        out = {"version_id": golden.version_id, **report.to_dict()}
        if audit is not None:
            out["evidence_judge"] = {
                **audit.to_dict(),
                "unjudged": [u.__dict__ for u in audit.unjudged],
            }
        print(json.dumps(json_safe(out), allow_nan=False, default=str))
        return 0
    names = {**pages, **_named(units)}
    _print(golden.version_id, report, names)
    if audit is not None:
        _print_audit(audit, names)
    return 0


def _evidence_judge(paths: Any) -> Any:
    """The answer-evidence judge over this data dir's pages and document facts."""
    from evalset_pipeline.core.evidence.completeness import evidence_judge
    from evalset_pipeline.core.tables import read_rows

    facts = paths.table("document_facts")
    return evidence_judge(
        paths.root,
        read_rows(paths.table("page_renders")),
        read_rows(facts) if facts.exists() else [],
    )


def _page_names(paths: Any) -> dict[str, str]:
    """unit id -> "file.pdf p12", for every rendered page (unjudged pages are not in the version)."""
    from evalset_pipeline.core.tables import read_rows

    path = paths.table("page_renders")
    if not path.exists():
        return {}
    return {
        r["unit_id"]: f"{Path(r['document_path']).name} p{r['page_number']}"
        for r in read_rows(path)
    }


def _named(units: dict[str, dict]) -> dict[str, str]:
    return {u: f"{Path(x['document_path']).name} p{x['page_number']}" for u, x in units.items()}


def _print(version: str, report: Any, names: dict[str, str]) -> None:
    from rich.console import Console

    console = Console()
    share = report.share_answered_elsewhere
    console.print(
        f"[bold]{version}[/]: {report.items} items; {report.checkable} with a figure their gold page "
        f"prints in a table ({report.not_located} more print it outside a table the reader found)\n"
        f"answered by another page too: {report.items_with_other_answering_pages} items"
        + (f" ({share:.1%})" if share is not None else "")
        + f", {report.other_answering_pages} pages\n"
        f"[bold]never judged: {len(report.unjudged)} pages[/] in {report.items_with_unjudged} items"
    )
    if not report.unjudged:
        return
    by_item: dict[str, list[Any]] = {}
    for u in report.unjudged:
        by_item.setdefault(u.item_id, []).append(u)
    shown = 0
    for item, pages in by_item.items():
        if shown >= SHOWN:
            break
        console.print(
            f"\n[bold]{item}[/] {pages[0].question} -> {pages[0].answer}", highlight=False
        )
        for u in pages:
            console.print(f"  {names.get(u.unit_id, u.unit_id)}: {u.where}", highlight=False)
        shown += len(pages)
    if len(report.unjudged) > shown:
        console.print(f"… and {len(report.unjudged) - shown} more pages (--json lists all)")


def _print_audit(audit: Any, names: dict[str, str]) -> None:
    from rich.console import Console

    console = Console()
    share = audit.share_answered_elsewhere
    console.print(
        f"\n[bold]answer-evidence judge[/] (every page printing the answer's digits): "
        f"{audit.items_answered_elsewhere} of {audit.items} items"
        + (f" ({share:.1%})" if share is not None else "")
        + f" are answered by another page too ({audit.pages_answering} pages); "
        f"[bold]never judged: {len(audit.unjudged)}[/]"
    )
    for u in audit.unjudged[:SHOWN]:
        console.print(
            f"  {u.item_id} {names.get(u.unit_id, u.unit_id)}: {u.question[:90]}", highlight=False
        )

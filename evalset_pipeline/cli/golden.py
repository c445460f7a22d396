"""`evalset golden list | show [VERSION] | diff A B | export --format F --out DIR [--version V]`.

Reads only snapshots and the LATEST pointer, so every command works while a build publishes.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from typing import Any

from rich import box
from rich.console import Console
from rich.table import Table

from evalset_pipeline.cli.common import add_data_dir
from evalset_pipeline.core.scoring.conventions import DEFAULT_GAIN, GAINS

EPILOG = "VERSION is 'latest', a version id (gs-…), or a unique prefix of one."


def _emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, default=str, ensure_ascii=False) + "\n")


def _short(value: Any, n: int = 12) -> str:
    return "" if value is None else str(value)[:n]


def _when(value: Any) -> str:
    return value.strftime("%Y-%m-%d %H:%M:%S") if hasattr(value, "strftime") else str(value)


def cmd_list(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.reader import list_golden_sets

    rows = list_golden_sets(args.data_dir)
    if args.json:
        _emit_json(rows)
        return 0
    console = Console()
    if not rows:
        console.print("no golden sets published yet")
        return 0
    table = Table(
        title=f"golden sets ({len(rows)}, newest first; * = latest; m/u/r = main/underspecified/regression)",
        box=box.SIMPLE_HEAD,
        pad_edge=False,
        collapse_padding=True,
        padding=(0, 1),
    )
    # No parent column: the parent is always the previous seq (`show` names it).
    for col in ("seq", "version", "created (UTC)", "items", "m/u/r", "corpus", "config"):
        table.add_column(
            col,
            no_wrap=True,
            justify="right" if col in ("seq", "items") else "left",
            min_width={"seq": 4, "version": 19}.get(col),
        )
    for r in reversed(rows):
        if r.get("corrupt"):  # listed, never dropped: `evalset golden verify` says more
            table.add_row(
                "?" + ("[bold green]*[/]" if r["is_latest"] else " "),
                r["version_id"],
                "[bold red]CORRUPT[/]",
                "",
                "",
                "",
                "",
            )
            continue
        table.add_row(
            f"{r['seq']}{'[bold green]*[/]' if r['is_latest'] else ' '}",
            r["version_id"],
            r["created_at"].strftime("%Y-%m-%d %H:%M"),
            str(r["n_items"]),
            f"{r['n_main']}/{r['n_underspecified']}/{r['n_regression']}",
            _short(r["corpus_fingerprint"], 8),
            _short(r["config_fingerprint"], 8),
        )
    console.print(table)
    for r in rows:
        if r.get("corrupt"):
            print(
                f"warning: {r['version_id']} is corrupt: {r['corrupt']} (run `evalset golden verify`)",
                file=sys.stderr,
            )
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.reader import imported_versions, publish_history

    events = publish_history(args.data_dir)
    # Imports published without --as-latest never moved LATEST, so no event names them; they are
    # listed too (event null) so an import's version is findable here by its id.
    named = {e["version_id"] for e in events}
    off_latest = [i for i in imported_versions(args.data_dir) if i["version_id"] not in named]
    if args.json:
        _emit_json(
            [{**e, "kind": "publish"} for e in events]
            + [
                {
                    "event": None,
                    "version_id": i["version_id"],
                    "seq": i["seq"],
                    "published_at": i["created_at"],
                    "new_version": True,
                    "kind": "import",
                    "source": i["source"],
                }
                for i in off_latest
            ]
        )
        return 0
    table = Table(
        title="publish history (newest first): each time LATEST moved", box=box.SIMPLE_HEAD
    )
    for col in ("event", "version", "seq", "published (UTC)", "what"):
        table.add_column(col, no_wrap=True)
    for e in reversed(events):
        table.add_row(
            str(e["event"]),
            e["version_id"],
            str(e["seq"]),
            e["published_at"][:19].replace("T", " "),
            "new version" if e["new_version"] else "confirmed again (inputs reverted)",
        )
    for i in reversed(off_latest):
        table.add_row(
            "-",
            i["version_id"],
            str(i["seq"]),
            i["created_at"].strftime("%Y-%m-%d %H:%M:%S"),
            f"imported from {i['source']}, not latest (`evalset import --as-latest` makes it latest)",
        )
    Console().print(table)
    return 0


def cmd_verify(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.verify import repair_manifests, verify_golden
    from evalset_pipeline.core.paths import DataPaths

    paths = DataPaths.at(args.data_dir)
    repaired = repair_manifests(paths) if args.repair else []
    report = verify_golden(paths)
    if args.json:
        _emit_json(
            {
                "ok": report.ok,
                "versions": report.versions,
                "events": report.events,
                "problems": [str(p) for p in report.problems],
                "lags": [str(p) for p in report.lags],
                "notes": report.notes,
                "repaired": repaired,
            }
        )
    else:
        for line in repaired:
            print(f"repair: {line}")
        for note in report.notes:
            print(f"note: {note}")
        for lag in report.lags:
            print(f"LAG {lag}: an interrupted publish; readers get a complete version meanwhile")
        for problem in report.problems:
            print(f"CORRUPT {problem}", file=sys.stderr)
        state = "ok" if report.ok else f"{len(report.problems)} problem(s)"
        if report.lags:
            state += f", {len(report.lags)} index(es) behind: the next publish catches them up"
        print(f"{report.versions} versions, {report.events} publish events: {state}")
    return 0 if report.ok else 1


def _summary(golden: Any) -> dict[str, Any]:
    judgments = golden.judgments.to_pylist()
    return {
        "version_id": golden.version_id,
        "info": golden.info,
        "snapshot_dir": str(golden.snapshot_dir),
        "items": golden.items.num_rows,
        "judgments": len(judgments),
        "units": golden.units.num_rows,
        "labels_by_role": {
            f"{r} {lab}": n
            for (r, lab), n in sorted(Counter((j["role"], j["label"]) for j in judgments).items())
        },
    }


def cmd_show(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.reader import load_golden_set

    golden = load_golden_set(args.version, args.data_dir)
    summary = _summary(golden)
    if args.json:
        _emit_json(summary)
        return 0
    info = golden.info
    console = Console()
    table = Table(title=f"golden set {golden.version_id}", show_header=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    for key in (
        "seq",
        "created_at",
        "parent_version",
        "corpus_fingerprint",
        "corpus_built_at",
        "corpus_documents",
        "corpus_pages",
        "config_fingerprint",
        "n_items",
        "n_main",
        "n_underspecified",
        "n_regression",
    ):
        table.add_row(key, _when(info[key]) if key.endswith("_at") else str(info[key]))
    table.add_row("judgments / units", f"{summary['judgments']} / {summary['units']}")
    for key, n in summary["labels_by_role"].items():
        table.add_row(f"  {key}", str(n))
    table.add_row("funnel", json.dumps(info["funnel"], indent=1, ensure_ascii=False))
    table.add_row("provenance", json.dumps(info["provenance"], indent=1, ensure_ascii=False))
    table.add_row("snapshot", str(golden.snapshot_dir))
    console.print(table)
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.diff import diff_golden_sets
    from evalset_pipeline.core.golden.reader import load_golden_set

    diff = diff_golden_sets(
        load_golden_set(args.a, args.data_dir), load_golden_set(args.b, args.data_dir)
    )
    if args.json:
        _emit_json(diff.to_dict())
        return 0
    console = Console()
    console.print(
        f"[bold]{diff.a} → {diff.b}[/]: {len(diff.added)} added, {len(diff.removed)} removed, "
        f"{len(diff.changed)} changed, {diff.unchanged} unchanged items"
    )
    for key, (old, new) in diff.info.items():
        console.print(f"  {key}: {old} → {new}")
    if diff.label_transitions:
        console.print(
            "  label changes: " + ", ".join(f"{k}: {n}" for k, n in diff.label_transitions.items())
        )
    if diff.units_added or diff.units_removed or diff.units_changed:
        console.print(
            f"  units: +{len(diff.units_added)} -{len(diff.units_removed)} ~{len(diff.units_changed)}"
        )
    limit = args.limit
    for title, rows in (("added", diff.added), ("removed", diff.removed)):
        if rows:
            table = Table(title=f"{title} items ({len(rows)})")
            for col in ("item", "slice", "question"):
                table.add_column(col)
            for r in rows[:limit]:
                table.add_row(r["item_id"], r["slice"], r["question"])
            console.print(table)
    if diff.changed:
        table = Table(title=f"changed items ({len(diff.changed)})")
        for col in ("item", "what", "before", "after"):
            table.add_column(col)
        for change in diff.changed[:limit]:
            name = (
                change.item_id
                if change.new_item_id == change.item_id
                else f"{change.item_id} → {change.new_item_id}"
            )
            for field, (old, new) in change.fields.items():
                table.add_row(name, field, str(old), str(new))
            for unit, (old, new) in change.labels.items():
                table.add_row(name, f"label {unit}", old or "—", new or "—")
            if change.distractors_added or change.distractors_removed:
                table.add_row(
                    name,
                    "distractors",
                    ", ".join(change.distractors_removed) or "—",
                    ", ".join(change.distractors_added) or "—",
                )
        console.print(table)
    if max(len(diff.added), len(diff.removed), len(diff.changed)) > limit:
        console.print(f"(showing at most {limit} per section; --limit N or --json for all)")
    return 0


def cmd_export(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.exports import export_golden_set
    from evalset_pipeline.core.golden.reader import load_golden_set

    golden = load_golden_set(args.version, args.data_dir)
    summary = export_golden_set(
        golden,
        args.format,
        args.out,
        data_dir=args.data_dir,
        overwrite=args.overwrite,
        graded=args.gain == "graded",
        referenced_only=args.referenced_only,
    )
    if args.json:
        _emit_json(summary)
        return 0
    splits = ", ".join(
        f"{c['split']} {c['queries']} queries / {c['qrels']} qrels"
        for c in summary["slices"].values()
    )
    Console().print(
        f"exported {golden.version_id} as {args.format} to {args.out}: {summary['corpus']} pages "
        f"({summary['corpus_scope']}), relevance {summary['relevance']}; {splits}. Scoring: {args.out}/README.md"
    )
    return 0


def _guarded(func: Any) -> Any:
    """Turn expected failures (unknown version, corrupt snapshot, bad export) into one-line errors."""

    def run(args: argparse.Namespace) -> int:
        from evalset_pipeline.core.exports import ExportError
        from evalset_pipeline.core.golden.errors import GoldenSetError

        try:
            return func(args)
        except (GoldenSetError, ExportError) as exc:
            print(f"evalset golden {args.golden_command}: {exc}", file=sys.stderr)
            return 1

    return run


def register(subparsers: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_data_dir(common)
    golden = subparsers.add_parser(
        "golden", help="list, inspect, diff and export published golden sets", epilog=EPILOG
    )
    sub = golden.add_subparsers(dest="golden_command", required=True)

    p = sub.add_parser("list", parents=[common], help="all versions, newest first")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_list))

    p = sub.add_parser("history", parents=[common], help="every time LATEST moved, newest first")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_history))

    p = sub.add_parser(
        "verify",
        parents=[common],
        help="check every snapshot's checksums, the history, LATEST, the reader copy and the warehouse",
    )
    p.add_argument("--json", action="store_true")
    p.add_argument(
        "--repair",
        action="store_true",
        help="rewrite a damaged manifest from the warehouse where the data files still prove the version id",
    )
    p.set_defaults(func=_guarded(cmd_verify))

    p = sub.add_parser(
        "show",
        parents=[common],
        help="one version's row, counts, funnel and provenance",
        epilog=EPILOG,
    )
    p.add_argument("version", nargs="?", default="latest")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_show))

    p = sub.add_parser(
        "diff", parents=[common], help="items added / removed / changed from A to B", epilog=EPILOG
    )
    p.add_argument(
        "a", metavar="A", help="the version to compare from (e.g. the one a baseline was scored on)"
    )
    p.add_argument("b", metavar="B", help="the version to compare to (e.g. latest)")
    p.add_argument("--json", action="store_true")
    p.add_argument("--limit", type=int, default=50, help="rows shown per section (default 50)")
    p.set_defaults(func=_guarded(cmd_diff))

    p = sub.add_parser(
        "export",
        parents=[common],
        help="write a version as beir, mteb, vidore or jsonl",
        epilog=EPILOG,
    )
    p.add_argument("--format", required=True, choices=("beir", "mteb", "vidore", "jsonl"))
    p.add_argument(
        "--out", required=True, help="output directory (must be empty unless --overwrite)"
    )
    p.add_argument("--version", default="latest")
    p.add_argument("--overwrite", action="store_true", help="write into a non-empty directory")
    p.add_argument(
        "--gain",
        choices=GAINS,
        default=DEFAULT_GAIN,
        help="qrels grades: binary (default: 1 = sufficient, what `evalset score` counts by default) or "
        "graded (sufficient=2, supporting=1, as `evalset score --gain graded`; tools then count "
        "supporting as relevant unless given relevance level 2)",
    )
    p.add_argument(
        "--referenced-only",
        action="store_true",
        help="corpus = only pages a judgment refers to (default: every page of the build)",
    )
    p.add_argument("--json", action="store_true", help="print what was written as JSON")
    p.set_defaults(func=_guarded(cmd_export))

"""`evalset review export | import | conflicts | adjudicate | agreement | status | exemplars`.

People in the loop: the model pre-labels, humans check a stratified sample (some of it twice),
disagreements are adjudicated, and the next golden version uses the human labels and states how
well the model agreed with them. Human labels live in `DATA/reviews/` (see core/review/store.py).

Exit codes: 0 done; 1 bad input (unknown version, sheet with problems: nothing stored).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from evalset_pipeline.cli.common import add_data_dir
from evalset_pipeline.core.paths import DataPaths


def _emit_json(value: Any) -> None:
    sys.stdout.write(json.dumps(value, indent=2, default=str, ensure_ascii=False) + "\n")


def _paths(args: argparse.Namespace) -> DataPaths:
    return DataPaths.at(args.data_dir)


def _f(x: float | None, d: int = 3) -> str:
    return "—" if x is None else f"{x:.{d}f}"


def _ci(ci: list[float] | None) -> str:
    return "" if not ci else f"[{ci[0]:.3f}, {ci[1]:.3f}]"


# --- export / import ----------------------------------------------------------------------------


def cmd_export(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.review.packets import export_packets
    from evalset_pipeline.core.review.store import ReviewStore, question_sha

    paths = _paths(args)
    golden = load_golden_set(args.version, paths.root)
    skip: set[str] = set()
    if not args.include_reviewed:
        current = {r["item_id"]: question_sha(r["question"]) for r in golden.items.to_pylist()}
        skip = {
            k.item_id
            for k in ReviewStore(paths).reviews()
            if current.get(k.item_id) == k.question_sha
        }
    slots = [s.strip() for s in args.slots.split(",") if s.strip()]
    slices = [s.strip() for s in args.slices.split(",") if s.strip()] if args.slices else None
    m = export_packets(
        golden,
        args.out,
        sample=args.sample,
        overlap=args.overlap,
        slots=slots,
        seed=args.seed,
        blind=args.blind,
        embed=args.embed,
        slices=slices,
        skip_items=skip,
        overwrite=args.overwrite,
    )
    if args.json:
        _emit_json(m)
        return 0
    total = len({i for s in m["slots"].values() for i in s})
    print(
        f"packet {m['packet_id']} from {m['version_id']}: {total} questions, "
        f"{len(m['double_annotated'])} double-annotated, written to {args.out}"
    )
    for slot, f in m["files"].items():
        print(
            f"  slot {slot}: {f['items']} questions, {f['labels']} labels  {Path(args.out) / f['packet']}  "
            f"{Path(args.out) / f['sheet']}"
        )
    if m["skipped_reviewed_items"]:
        print(
            f"  ({m['skipped_reviewed_items']} already-reviewed questions left out; --include-reviewed to keep them)"
        )
    print(
        "strata (slice | template | qualified axes): "
        + ", ".join(f"{k}={v}" for k, v in m["strata"].items())
    )
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.sheets import import_sheet

    result = import_sheet(
        _paths(args), args.sheet, args.annotator, adjudication=True if args.adjudication else None
    )
    if args.json:
        _emit_json(result.as_dict())
        return 0
    if not result.created and result.stored is not None:
        print(
            f"{result.sheet}: already imported for {args.annotator} ({result.stored.name}); nothing new stored"
        )
        return 0
    what = "adjudicated labels" if result.kind == "adjudications" else f"labels by {args.annotator}"
    print(
        f"{result.sheet}: stored {result.labelled} {what} ({result.blank} rows left blank)"
        + (f" in {result.stored}" if result.stored else "")
    )
    if result.conflicts:
        print(
            f"{len(result.conflicts)} of them disagree with another annotator: `evalset review conflicts` lists them"
        )
    return 0


# --- conflicts / adjudication -------------------------------------------------------------------


def _pages(paths: DataPaths) -> dict[str, str]:
    from evalset_pipeline.core.golden.errors import GoldenSetError
    from evalset_pipeline.core.golden.reader import load_golden_set

    try:
        gs = load_golden_set("latest", paths.root)
    except GoldenSetError:
        return {}
    return {
        u["unit_id"]: f"{u['document_path']} p.{u['page_number']}" for u in gs.units.to_pylist()
    }


def cmd_conflicts(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.sheets import (
        ADJUDICATION_COLUMNS,
        adjudication_rows,
        write_csv,
    )
    from evalset_pipeline.core.review.store import ReviewStore, conflicts

    paths = _paths(args)
    found = conflicts(ReviewStore(paths).reviews())
    rows = adjudication_rows(found, _pages(paths))
    if args.out:
        out = Path(args.out)
        out.parent.mkdir(parents=True, exist_ok=True)
        write_csv(out, ADJUDICATION_COLUMNS, rows)
    if args.json:
        _emit_json({"conflicts": rows, "sheet": args.out})
        return 0
    if not rows:
        print("no open conflicts: every double-annotated pair agrees or has been adjudicated")
        return 0
    from rich.console import Console
    from rich.table import Table

    t = Table(title=f"{len(rows)} pair(s) where annotators disagree (adjudicate to settle)")
    for col in ("item", "unit", "question", "annotators", "model"):
        t.add_column(col, overflow="fold")
    for r in rows:
        t.add_row(
            r["item_id"],
            r["unit_id"],
            r["question"],
            r["annotator_labels"],
            r["model_label"] or "—",
        )
    Console().print(t)
    if args.out:
        print(
            f"adjudication sheet: {args.out} (fill adjudicated_label, then "
            f"`evalset review import {args.out} --annotator NAME`)"
        )
    else:
        print(
            "settle one with `evalset review adjudicate ITEM UNIT LABEL --by NAME`, "
            "or all with `--out SHEET.csv` and an import"
        )
    return 0


def cmd_adjudicate(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.sheets import adjudicate

    key, path = adjudicate(
        _paths(args), args.item, args.unit, args.label, args.by, args.note or "", args.question_sha
    )
    print(
        f"adjudicated ({key.item_id}, {key.unit_id}) = {args.label} by {args.by} "
        f"(question {key.question_sha}); stored in {path.name}. The next build uses it."
    )
    return 0


# --- agreement / status / exemplars ---------------------------------------------------------------


def _current_judge(paths: DataPaths) -> Any:
    from evalset_pipeline.core.golden.errors import GoldenSetError
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.review.report import judge_from_identity

    try:
        gs = load_golden_set("latest", paths.root)
    except GoldenSetError:
        return None
    return judge_from_identity(gs.info.get("provenance") or {})


def cmd_agreement(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.report import agreement_report
    from evalset_pipeline.core.review.store import ReviewStore

    paths = _paths(args)
    report = agreement_report(paths, ReviewStore(paths).reviews(), _current_judge(paths))
    if not args.all_judges:
        report["judges"] = [j for j in report["judges"] if j.get("current")] or report["judges"][:1]
    if args.json:
        _emit_json(report)
        return 0
    _print_agreement(report)
    return 0


def _print_matrix(
    console: Any, title: str, rep: dict[str, Any], ref: str = "human", pred: str = "model"
) -> None:
    from rich.table import Table

    t = Table(title=title, title_justify="left", show_lines=False)
    t.add_column(f"{ref} \\ {pred}", style="bold")
    for c in rep["classes"]:
        t.add_column(c, justify="right")
    t.add_column("recall", justify="right")
    t.add_column("support", justify="right")
    for c, row in zip(rep["classes"], rep["matrix"], strict=False):
        pc = rep["per_class"][c]
        t.add_row(
            c,
            *[str(x) for x in row],
            f"{_f(pc['recall']['value'])} {_ci(pc['recall']['ci95'])}",
            str(pc["support"]),
        )
    t.add_row(
        "precision",
        *[f"{_f(rep['per_class'][c]['precision']['value'])}" for c in rep["classes"]],
        "",
        "",
    )
    t.add_row("F1", *[_f(rep["per_class"][c]["f1"]) for c in rep["classes"]], "", "")
    t.add_row(
        "prevalence",
        *[_f(rep["per_class"][c]["prevalence"]["value"]) for c in rep["classes"]],
        "",
        "",
    )
    console.print(t)
    acc = rep["accuracy"]
    boot = rep.get("bootstrap") or {}
    console.print(
        f"  n={rep['n']} ({rep.get('items', '?')} questions)  accuracy {_f(acc['value'])} {_ci(acc['ci95'])}  "
        f"Cohen's kappa {_f(rep['cohens_kappa'])} {_ci(boot.get('cohens_kappa_ci95'))}  "
        f"macro-F1 {_f(rep['macro_f1'])} {_ci(boot.get('macro_f1_ci95'))} over {', '.join(rep['macro_f1_classes'])}"
    )


def _print_agreement(report: dict[str, Any]) -> None:
    from rich.console import Console

    console = Console()
    if report.get("note"):
        console.print(f"[yellow]{report['note']}; using the model labels recorded at export[/]")
    if not report["judges"]:
        console.print(
            "no human labels yet: export a packet (`evalset review export --out DIR`) and import the sheets"
        )
    for sec in report["judges"]:
        j = sec["judge"]
        flag = " [green](current judge)[/]" if sec.get("current") else ""
        console.rule(
            f"judge {j['backend']}/{j['model']} · label prompt {j['label_prompt'] or '?'}{flag}"
        )
        h, hl = sec["heldout"], sec["human_labels"]
        console.print(
            f"human labels: {hl['resolved']} resolved ({hl['by_source']['human']} agreed, "
            f"{hl['by_source']['adjudicated']} adjudicated), {hl['in_conflict']} in conflict; "
            f"split by item hash: {sec['dev']['labels']} development (exemplars only), "
            f"{h['labels']} held-out (scored here); {h['with_model_label']} held-out labels this judge labelled"
        )
        if not h.get("three_class"):
            console.print("  no held-out pair labelled by this judge: nothing to measure yet")
            continue
        _print_matrix(console, "three classes (held-out)", h["three_class"])
        _print_matrix(
            console,
            "sufficient / supporting boundary (pairs both sides put in those two)",
            h["sufficient_vs_supporting"],
        )
        _print_matrix(
            console,
            "sufficient vs the rest (what sufficient@k depends on)",
            h["sufficient_vs_rest"],
        )
    inter = report["inter_annotator"]
    console.rule("inter-annotator agreement (double-annotated pairs)")
    if not inter["annotator_pairs"]:
        console.print("no pair labelled by two annotators yet (export with --overlap > 0)")
        return
    for p in inter["annotator_pairs"]:
        a, b = p["annotators"]
        console.print(
            f"{a} vs {b}: n={p['n']}  agreement {_f(p['agreement']['value'])} {_ci(p['agreement']['ci95'])}  "
            f"Cohen's kappa {_f(p['cohens_kappa'])}  matrix (rows {a}, columns {b}) {p['matrix']}"
        )
    pooled = inter.get("pooled") or {}
    if pooled:
        console.print(
            f"pooled: {pooled['comparisons']} comparisons, agreement {_f(pooled['agreement']['value'])} "
            f"{_ci(pooled['agreement']['ci95'])}, kappa {_f(pooled['cohens_kappa'])}  "
            "(annotator agreement bounds how much model-human agreement can be measured)"
        )


def cmd_status(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.store import ReviewStore, status

    store = ReviewStore(_paths(args))
    s = {**status(store.reviews()), "store": str(store.root)}
    if args.json:
        _emit_json(s)
        return 0
    print(
        f"{s['pairs']} reviewed (question, page) pairs over {s['items']} questions in {s['store']}"
    )
    print("  by state: " + (", ".join(f"{k}={v}" for k, v in s["by_state"].items()) or "none"))
    print(f"  double-annotated pairs: {s['double_annotated_pairs']}")
    print(
        "  labels by annotator: "
        + (", ".join(f"{k}={v}" for k, v in s["labels_by_annotator"].items()) or "none")
    )
    return 0


def cmd_exemplars(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.review.split import dev_exemplars
    from evalset_pipeline.core.review.store import ReviewStore

    rows = dev_exemplars(ReviewStore(_paths(args)).reviews().values(), per_class=args.per_class)
    if args.json:
        _emit_json(rows)
        return 0
    if not rows:
        print("no human label in the development split yet")
    for r in rows:
        print(f"[{r['label']}] {r['item_id']} / {r['unit_id']}: {r['question']}")
    return 0


def _guarded(func: Any) -> Any:
    def run(args: argparse.Namespace) -> int:
        from evalset_pipeline.core.golden.errors import GoldenSetError
        from evalset_pipeline.core.review.packets import PacketError
        from evalset_pipeline.core.review.sheets import SheetError

        try:
            return func(args)
        except (GoldenSetError, PacketError, SheetError, FileNotFoundError) as exc:
            print(f"evalset review {args.review_command}: {exc}", file=sys.stderr)
            return 1

    return run


def register(subparsers: Any) -> None:
    common = argparse.ArgumentParser(add_help=False)
    add_data_dir(common)
    review = subparsers.add_parser(
        "review", help="review packets, human labels, adjudication, model-human agreement"
    )
    sub = review.add_subparsers(dest="review_command", required=True)

    p = sub.add_parser(
        "export",
        parents=[common],
        help="write an HTML review packet + sheets for a sample of items",
    )
    p.add_argument(
        "--out", required=True, help="output directory (must be empty unless --overwrite)"
    )
    p.add_argument("--version", default="latest", help="golden version (default latest)")
    p.add_argument("--sample", type=int, default=20, help="questions to sample (default 20)")
    p.add_argument(
        "--overlap",
        type=float,
        default=0.2,
        help="share of sampled questions every slot gets, for double annotation (default 0.2)",
    )
    p.add_argument("--slots", default="A,B", help="annotator slots, comma-separated (default A,B)")
    p.add_argument("--seed", type=int, default=13)
    p.add_argument(
        "--slices", default="", help="only these slices, e.g. main,regression (default all)"
    )
    p.add_argument(
        "--blind", action="store_true", help="hide the model's labels (unanchored agreement)"
    )
    p.add_argument(
        "--embed",
        action="store_true",
        help="inline the page images (one self-contained HTML per slot)",
    )
    p.add_argument(
        "--include-reviewed",
        action="store_true",
        help="also sample questions that already have human labels",
    )
    p.add_argument("--overwrite", action="store_true")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_export))

    p = sub.add_parser(
        "import", parents=[common], help="store a filled sheet's labels under an annotator's name"
    )
    p.add_argument("sheet", help="CSV or JSONL sheet (from a packet, or an adjudication sheet)")
    p.add_argument(
        "--annotator",
        required=True,
        help="who labelled it (or adjudicated, for an adjudication sheet)",
    )
    p.add_argument(
        "--adjudication",
        action="store_true",
        help="the sheet holds adjudicated labels (auto-detected)",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_import))

    p = sub.add_parser(
        "conflicts",
        parents=[common],
        help="pairs where annotators disagree (the adjudication list)",
    )
    p.add_argument("--out", default=None, help="also write an adjudication sheet (CSV) here")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_conflicts))

    p = sub.add_parser(
        "adjudicate", parents=[common], help="settle one pair; an adjudicated label wins"
    )
    p.add_argument("item")
    p.add_argument("unit")
    p.add_argument("label", help="sufficient | supporting | irrelevant")
    p.add_argument("--by", required=True, help="who adjudicated")
    p.add_argument("--note", default="")
    p.add_argument(
        "--question-sha",
        default=None,
        help="which question wording, if the pair was reviewed under several",
    )
    p.set_defaults(func=_guarded(cmd_adjudicate))

    p = sub.add_parser(
        "agreement",
        parents=[common],
        help="model vs human (held-out split) and annotator vs annotator agreement",
    )
    p.add_argument(
        "--all-judges",
        action="store_true",
        help="every judge (model + label prompt) the ledger knows",
    )
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_agreement))

    p = sub.add_parser("status", parents=[common], help="how many labels, by state and annotator")
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_status))

    p = sub.add_parser(
        "exemplars",
        parents=[common],
        help="human-labelled prompt exemplars, from the development split only",
    )
    p.add_argument("--per-class", type=int, default=2)
    p.add_argument("--json", action="store_true")
    p.set_defaults(func=_guarded(cmd_exemplars))

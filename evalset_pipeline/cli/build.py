"""`evalset build`: materialize every asset through Dagster, in process, and report the golden set."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path

from evalset_pipeline.cli.common import add_vlm_options, vlm_flags_error, vlm_kwargs
from evalset_pipeline.core.paths import default_corpus_dir, default_data_dir
from evalset_pipeline.core.questions.funnel import FUNNEL_ORDER
from evalset_pipeline.core.redact import redact


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="Build (or confirm) the golden set for a corpus")
    p.add_argument(
        "--corpus",
        type=Path,
        default=None,
        help="Folder of PDFs, optional metadata.csv (default: data/sample_corpus)",
    )
    p.add_argument(
        "--data-dir", type=Path, default=None, help="Artifacts and golden sets (default: data)"
    )
    add_vlm_options(p)
    p.add_argument(
        "--embedder", default="appearance", help="'appearance' or a sentence-transformers name/path"
    )
    p.add_argument("--sample-size", type=int, default=80)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--negatives-per-axis", type=int, default=2)
    p.add_argument(
        "--axes",
        default="period,metric,entity",
        help="Comma-separated axes, e.g. period,metric,entity,revision",
    )
    p.add_argument(
        "--workers", type=int, default=0, help="Processes for render/embed (0 = one per core)"
    )
    p.add_argument("--json", action="store_true", help="Print the summary as JSON")
    p.add_argument(
        "--wait",
        action="store_true",
        help="If another build holds the data directory, wait for it (default: fail at once, naming it)",
    )
    p.set_defaults(func=run)


EXIT_BUSY = 3  # another build holds the data directory


def run(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.buildlock import BuildLocked, build_lock
    from evalset_pipeline.core.paths import DataPaths

    data_dir = args.data_dir or default_data_dir()
    corpus = args.corpus or default_corpus_dir()
    if not Path(corpus).is_dir():
        print(f"error: corpus folder {corpus} does not exist", file=sys.stderr)
        return 2
    if not has_pdfs(Path(corpus)):
        print(
            f"error: no PDFs under {corpus} (looked for *.pdf in every sub-folder); nothing to build",
            file=sys.stderr,
        )
        return 2
    if problem := vlm_flags_error(args):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    # Taken before Dagster is even imported, so a second build learns at once who holds the directory.
    try:
        with build_lock(
            DataPaths.at(data_dir),
            Path(corpus).resolve(),
            wait=args.wait,
            on_wait=lambda who: print(f"waiting: {who}", file=sys.stderr, flush=True),
        ):
            return _build(args, data_dir, corpus)
    except BuildLocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY


def has_pdfs(root: Path) -> bool:
    for _, _, files in os.walk(root):
        if any(f.lower().endswith(".pdf") for f in files):
            return True
    return False


def _build(args: argparse.Namespace, data_dir: Path, corpus: Path) -> int:
    import dagster as dg

    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    resources = {
        "settings": PipelineSettings(
            data_dir=str(data_dir),
            corpus_dir=str(corpus),
            seed=args.seed,
            sample_size=args.sample_size,
            negatives_per_axis=args.negatives_per_axis,
            axes=[a.strip() for a in args.axes.split(",") if a.strip()],
            workers=args.workers,
            progress_bar=sys.stderr.isatty() and not args.json,
        ),
        "vlm": VLMResource(
            **vlm_kwargs(args),
            input_usd_per_mtok=args.input_usd_per_mtok,
            output_usd_per_mtok=args.output_usd_per_mtok,
        ),
        "embedder": EmbedderResource(model=args.embedder),
    }
    result = dg.materialize(all_assets, resources=resources, raise_on_error=False)
    checks = check_outcomes(result)
    if not result.success:
        for event in result.all_events:
            if event.is_step_failure and event.step_key != "candidate_labels_gates":
                print(
                    f"error in {event.step_key}: {redact(step_error(event.step_failure_data.error))}",
                    file=sys.stderr,
                )
        blocked = [c for c in checks if not c["passed"] and c["severity"] == "ERROR"]
        if blocked:
            print(gates_paragraph(blocked, _funnel(data_dir)), file=sys.stderr)
        return 1
    golden_meta = result.asset_materializations_for_node("golden_set")[-1].metadata
    created = bool(golden_meta["new_version"].value)
    moved = bool(golden_meta["latest_moved"].value) if "latest_moved" in golden_meta else created
    gs = load_golden_set("latest", data_dir)
    summary = {
        "version_id": gs.version_id,
        "new_version": created,
        "latest_moved": moved,  # also true when reverted inputs confirmed an older version again
        "seq": gs.info.get("seq"),
        "items": gs.items.num_rows,
        "by_slice": _count(gs.items.column("slice").to_pylist()),
        "funnel": gs.info.get("funnel"),
        "stored_at": {
            "duckdb": str(Path(data_dir) / "evalsets.duckdb"),
            "snapshot": str(gs.snapshot_dir),
        },
        "corpus": {
            "documents": gs.info.get("corpus_documents"),
            "pages": gs.info.get("corpus_pages"),
            "fingerprint": gs.info.get("corpus_fingerprint"),
        },
        "rejected_documents": _rejected(data_dir),
        "sidecar_issues": _sidecar_issues(result),  # [bad-input]
        "warnings": [f"{c['name']}: {c['description']}" for c in checks if not c["passed"]]
        + list(golden_meta["warnings"].value if "warnings" in golden_meta else []),
    }
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        _print_summary(summary)
    return 0


# Dagster's wrappers around what a step raised; the first error below them is ours, and ours say
# what to do (GoldenSetLocked, ModelCallCacheLocked, GatesNotPassed, ...): never dig past it.
_WRAPPERS = ("Dagster",)


def step_error(err) -> str:
    while (
        err is not None
        and err.cause is not None
        and err.cls_name
        and err.cls_name.startswith(_WRAPPERS)
    ):
        err = err.cause
    if err is None:
        return "failed"
    text = err.message.strip()
    # SerializableErrorInfo.message reads "module.Class: text"; keep the class name only.
    head, sep, rest = text.partition(": ")
    return f"{head.rsplit('.', 1)[-1]}: {rest}" if sep and "." in head and " " not in head else text


def check_outcomes(result) -> list[dict]:
    out = []
    for ev in result.get_asset_check_evaluations():
        out.append(
            {
                "name": ev.check_name,
                "passed": ev.passed,
                "severity": ev.severity.value if ev.severity else "ERROR",
                "description": (ev.description or "").strip(),
            }
        )
    return out


def _funnel(data_dir: Path) -> dict:
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.questions.funnel import FunnelRow, summarize
    from evalset_pipeline.core.tables import read_rows

    path = DataPaths.at(data_dir).table("funnel")
    return summarize([FunnelRow(**r) for r in read_rows(path)]) if path.exists() else {}


def gates_paragraph(blocked: list[dict], funnel: dict) -> str:
    """One paragraph: what blocked publishing, and the funnel that led there."""
    why = "; ".join(f"{c['description']} ({c['name']})" for c in blocked)
    counts = ", ".join(f"{k} {funnel[k]}" for k in FUNNEL_ORDER if k in funnel) or "not available"
    reasons = "; ".join(f"{r}: {n}" for r, n in (funnel.get("dropped_reasons") or {}).items())
    return (
        f"error: no golden set was published, because the blocking gates failed: {why}. "
        f"Funnel: {counts}" + (f" (dropped: {reasons})" if reasons else "") + ". "
        "The previous version, if any, is still the latest. See `evalset documents --rejected`, the "
        "funnel above and docs/dagster.md (checks) for what each gate means."
    )


def _count(values: list[str]) -> dict[str, int]:
    out: dict[str, int] = {}
    for v in values:
        out[v] = out.get(v, 0) + 1
    return dict(sorted(out.items()))


def _rejected(data_dir: Path) -> list[dict]:
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.tables import read_rows

    path = DataPaths.at(data_dir).table("rejected_documents")
    return read_rows(path) if path.exists() else []


def _sidecar_issues(
    result,
) -> list[str]:  # [bad-input] metadata.csv problems, as page_metadata reported them
    mats = result.asset_materializations_for_node("page_metadata")
    entry = mats[-1].metadata.get("sidecar_issues") if mats else None
    return list(entry.value) if entry is not None else []


def _print_summary(s: dict) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text  # [bad-input] cells as Text: a file named "[/b].pdf" is not markup

    console = Console()
    state = (
        "new version"
        if s["new_version"]
        else "confirmed again: same inputs as this earlier version, LATEST moved back to it"
        if s.get("latest_moved")
        else "unchanged: same inputs, same version, no new row"
    )
    console.print(f"[bold]golden set[/bold] {s['version_id']}  (seq {s['seq']}, {state})")
    console.print(
        f"items: {s['items']}  " + "  ".join(f"{k}={v}" for k, v in s["by_slice"].items())
    )
    c = s["corpus"]
    console.print(
        f"corpus: {c['documents']} documents, {c['pages']} pages, fingerprint {c['fingerprint'][:16]}"
    )
    f = s["funnel"] or {}
    t = Table(title="funnel", show_header=True)
    t.add_column("stage")
    t.add_column("count", justify="right")
    for key in FUNNEL_ORDER:
        if key in f:
            t.add_row(key, str(f[key]))
    for reason, n in (f.get("dropped_reasons") or {}).items():
        t.add_row(f"  dropped: {reason}", str(n))
    for reason, n in list((f.get("skipped_reasons") or {}).items())[:3]:  # the top skip reasons
        t.add_row(f"  skipped: {reason}", str(n))
    console.print(t)
    if s["rejected_documents"]:
        r = Table(title="rejected documents")
        for col in ("path", "sha256", "reason", "stage"):
            r.add_column(col, overflow="fold")
        for row in s["rejected_documents"]:
            r.add_row(
                Text(row["path"]),
                Text(row["sha256"][:12] or "-"),
                Text(row["reason"]),
                Text(row["stage"]),
            )
        console.print(r)
    for issue in s.get("sidecar_issues") or []:  # [bad-input]
        console.print(Text(f"sidecar: {issue}"), style="yellow")
    for warning in s.get("warnings") or []:
        console.print(Text(f"warning: {warning}"), style="bold yellow")
    console.print(f"stored in {s['stored_at']['duckdb']} and {s['stored_at']['snapshot']}")

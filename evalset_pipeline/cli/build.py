"""`evalset build`: materialize every asset through Dagster, in process, and report the golden set."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from evalset_pipeline.cli.common import add_vlm_options, vlm_flags_error, vlm_kwargs
from evalset_pipeline.core.paths import default_corpus_dir, default_data_dir


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="Build (or confirm) the golden set for a corpus")
    p.add_argument("--corpus", type=Path, default=None, help="Folder of PDFs, optional metadata.csv (default: data/sample_corpus)")
    p.add_argument("--data-dir", type=Path, default=None, help="Artifacts and golden sets (default: data)")
    add_vlm_options(p)
    p.add_argument("--embedder", default="appearance", help="'appearance' or a sentence-transformers name/path")
    p.add_argument("--sample-size", type=int, default=80)
    p.add_argument("--seed", type=int, default=13)
    p.add_argument("--negatives-per-axis", type=int, default=2)
    p.add_argument("--axes", default="period,metric,entity", help="Comma-separated axes, e.g. period,metric,entity,revision")
    p.add_argument("--workers", type=int, default=0, help="Processes for render/embed (0 = one per core)")
    p.add_argument("--json", action="store_true", help="Print the summary as JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    import dagster as dg

    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    data_dir = args.data_dir or default_data_dir()
    corpus = args.corpus or default_corpus_dir()
    if not Path(corpus).is_dir():
        print(f"error: corpus folder {corpus} does not exist", file=sys.stderr)
        return 2
    if (problem := vlm_flags_error(args)):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    resources = {
        "settings": PipelineSettings(
            data_dir=str(data_dir), corpus_dir=str(corpus), seed=args.seed, sample_size=args.sample_size,
            negatives_per_axis=args.negatives_per_axis, axes=[a.strip() for a in args.axes.split(",") if a.strip()],
            workers=args.workers, progress_bar=sys.stderr.isatty() and not args.json,
        ),
        "vlm": VLMResource(**vlm_kwargs(args), input_usd_per_mtok=args.input_usd_per_mtok,
                           output_usd_per_mtok=args.output_usd_per_mtok),
        "embedder": EmbedderResource(model=args.embedder),
    }
    result = dg.materialize(all_assets, resources=resources, raise_on_error=False)
    if not result.success:
        for event in result.all_events:
            if event.is_step_failure:
                err = event.step_failure_data.error
                while err is not None and err.cause is not None:  # [bad-input] the cause, not Dagster's wrapper
                    err = err.cause
                print(f"error in {event.step_key}: {err.message.strip() if err else 'failed'}", file=sys.stderr)
        return 1
    golden_meta = result.asset_materializations_for_node("golden_set")[-1].metadata
    created = bool(golden_meta["new_version"].value)
    gs = load_golden_set("latest", data_dir)
    summary = {
        "version_id": gs.version_id,
        "new_version": created,
        "seq": gs.info.get("seq"),
        "items": gs.items.num_rows,
        "by_slice": _count(gs.items.column("slice").to_pylist()),
        "funnel": gs.info.get("funnel"),
        "stored_at": {"duckdb": str(Path(data_dir) / "evalsets.duckdb"), "snapshot": str(gs.snapshot_dir)},
        "corpus": {"documents": gs.info.get("corpus_documents"), "pages": gs.info.get("corpus_pages"),
                   "fingerprint": gs.info.get("corpus_fingerprint")},
        "rejected_documents": _rejected(data_dir),
        "sidecar_issues": _sidecar_issues(result),  # [bad-input]
    }
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        _print_summary(summary)
    return 0


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


def _sidecar_issues(result) -> list[str]:  # [bad-input] metadata.csv problems, as page_metadata reported them
    mats = result.asset_materializations_for_node("page_metadata")
    entry = mats[-1].metadata.get("sidecar_issues") if mats else None
    return list(entry.value) if entry is not None else []


def _print_summary(s: dict) -> None:
    from rich.console import Console
    from rich.table import Table
    from rich.text import Text  # [bad-input] cells as Text: a file named "[/b].pdf" is not markup

    console = Console()
    state = "new version" if s["new_version"] else "unchanged: same inputs, same version, no new row"
    console.print(f"[bold]golden set[/bold] {s['version_id']}  (seq {s['seq']}, {state})")
    console.print(f"items: {s['items']}  " + "  ".join(f"{k}={v}" for k, v in s["by_slice"].items()))
    c = s["corpus"]
    console.print(f"corpus: {c['documents']} documents, {c['pages']} pages, fingerprint {c['fingerprint'][:16]}")
    f = s["funnel"] or {}
    t = Table(title="funnel", show_header=True)
    t.add_column("stage")
    t.add_column("count", justify="right")
    for key in ("sampled", "skipped", "generated", "kept_as_written", "qualified", "kept", "underspecified", "dropped"):
        if key in f:
            t.add_row(key, str(f[key]))
    for reason, n in (f.get("dropped_reasons") or {}).items():
        t.add_row(f"  dropped: {reason}", str(n))
    console.print(t)
    if s["rejected_documents"]:
        r = Table(title="rejected documents")
        for col in ("path", "sha256", "reason", "stage"):
            r.add_column(col, overflow="fold")
        for row in s["rejected_documents"]:
            r.add_row(Text(row["path"]), Text(row["sha256"][:12] or "-"), Text(row["reason"]), Text(row["stage"]))
        console.print(r)
    for issue in s.get("sidecar_issues") or []:  # [bad-input]
        console.print(Text(f"sidecar: {issue}"), style="yellow")
    console.print(f"stored in {s['stored_at']['duckdb']} and {s['stored_at']['snapshot']}")

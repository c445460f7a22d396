"""What `evalset build` says at the end: the golden set, and what the build did to get there.

The numbers come from the run itself (each asset's materialization metadata, the check
evaluations, step start/end times in the instance's event log), so the summary, `--json` and
the UI show the same figures.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from evalset_pipeline.core.pipeline.graph import STAGES
from evalset_pipeline.core.questions.funnel import FUNNEL_ORDER

# The graph's build order, each stage's gate check right after it.
STAGE_ORDER = tuple(
    n for s in STAGES for n in ((s, f"{s}_gates") if s == "candidate_labels" else (s,))
)
MODEL_STAGES = ("candidate_questions", "validated_questions", "candidate_labels")


def _meta(result, node: str) -> dict[str, Any]:
    mats = result.asset_materializations_for_node(node)
    return {k: v.value for k, v in mats[-1].metadata.items()} if mats else {}


def stage_seconds(instance, run_id: str) -> dict[str, float]:
    """Wall time of each step of the run, from its STEP_START / STEP_SUCCESS|FAILURE events."""
    from dagster import DagsterEventType

    starts: dict[str, float] = {}
    out: dict[str, float] = {}
    for entry in instance.all_logs(
        run_id,
        of_type={
            DagsterEventType.STEP_START,
            DagsterEventType.STEP_SUCCESS,
            DagsterEventType.STEP_FAILURE,
        },
    ):
        step = entry.step_key or ""
        if entry.dagster_event_type == DagsterEventType.STEP_START:
            starts[step] = entry.timestamp
        elif step in starts:
            out[step] = round(entry.timestamp - starts[step], 2)
    return dict(
        sorted(out.items(), key=lambda kv: STAGE_ORDER.index(kv[0]) if kv[0] in STAGE_ORDER else 99)
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


def _coverage(data_dir: Path) -> dict[str, Any]:
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.pipeline.coverage import page_coverage

    try:
        return page_coverage(DataPaths.at(data_dir)).to_dict()
    except (OSError, ValueError, KeyError, TypeError):  # a summary never fails on its extras
        return {}


def collect_summary(result, instance, checks: list[dict], data_dir: Path) -> dict[str, Any]:
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.negatives.lookalikes import golden_lookalikes
    from evalset_pipeline.defs.instance import instance_home

    golden_meta = _meta(result, "golden_set")
    created = bool(golden_meta.get("new_version"))
    gs = load_golden_set("latest", data_dir)
    renders, embeddings = _meta(result, "page_renders"), _meta(result, "page_embeddings")
    model = {
        stage: {
            "calls": int(_meta(result, stage).get("model_calls") or 0),
            "cache_hits": int(_meta(result, stage).get("cache_hits") or 0),
        }
        for stage in MODEL_STAGES
    }
    provenance = gs.info.get("provenance") or {}
    tokens = provenance.get("tokens") or {}
    baseline = _meta(result, "baseline_scores")
    metadata = _meta(result, "page_metadata")
    pools, labels = _meta(result, "item_pools"), _meta(result, "candidate_labels")
    return {
        "version_id": gs.version_id,
        "new_version": created,
        "latest_moved": bool(
            golden_meta.get("latest_moved", created)
        ),  # also true when reverted inputs confirmed an older version
        "seq": gs.info.get("seq"),
        "items": gs.items.num_rows,
        "by_slice": _count(gs.items.column("slice").to_pylist()),
        "funnel": gs.info.get("funnel"),
        "corpus": {
            "documents": gs.info.get("corpus_documents"),
            "pages": gs.info.get("corpus_pages"),
            "fingerprint": gs.info.get("corpus_fingerprint"),
        },
        "done": {
            "pages_rendered": int(renders.get("rendered") or 0),
            "pages_render_reused": int(renders.get("reused") or 0),
            "pages_embedded": int(embeddings.get("embedded") or 0),
            "pages_embedding_reused": int(embeddings.get("cached") or 0),
            "model_calls": sum(m["calls"] for m in model.values()),
            "cache_hits": sum(m["cache_hits"] for m in model.values()),
            "model_by_stage": model,
            "tokens": {
                "prompt": int(tokens.get("prompt") or 0),
                "completion": int(tokens.get("completion") or 0),
            },
            "cost_usd": float(provenance.get("cost_usd") or 0.0),
            "backend": provenance.get("backend", ""),
            "model": provenance.get("model", ""),
            "baseline": {
                k: v
                for k, v in baseline.items()
                if k.endswith("_sufficient@1") or k == "retrievers"
            },
        },
        # every page that might answer each item, judged (core/evidence/pools.py)
        "pooling": {
            "pool_pages": int(pools.get("pooled_pages") or 0),
            "median_pool": (pools.get("pool_size") or {}).get("median"),
            "by_source": pools.get("by_source") or {},
            "judged": int(labels.get("pool_pages_judged") or 0),
            "main_items_with_2plus_sufficient": int(
                labels.get("main_items_with_2plus_sufficient") or 0
            ),
            "sufficient_by_source": labels.get("sufficient_by_source") or {},
            "coincidences": int(labels.get("coincidences") or 0),
            "revisions": int(labels.get("revisions") or 0),
        },
        # main items with a distractor one axis away, per axis (core/negatives/lookalikes.py)
        "lookalikes": golden_lookalikes(gs.items, gs.judgments),
        "seconds": {**stage_seconds(instance, result.run_id)},
        "rejected_documents": _rejected(data_dir),
        # pages without a text layer and pages never sampled, with the reason (issue 30)
        "coverage": _coverage(data_dir),
        "sidecar_issues": list(metadata.get("sidecar_issues") or []),  # [bad-input]
        # document facts the filer's documents disagree on, and facts read with low confidence
        "facts": {
            "documents_with_conflicts": int(metadata.get("documents_with_conflicts") or 0),
            "documents_with_low_confidence": int(
                metadata.get("documents_with_low_confidence") or 0
            ),
            "pages_held_for_conflicts": int(metadata.get("pages_held_for_conflicts") or 0),
            "conflicts": list(metadata.get("conflicts") or []),
        },
        "warnings": [f"{c['name']}: {c['description']}" for c in checks if not c["passed"]]
        + list(golden_meta.get("warnings") or []),
        "stored_at": {
            "duckdb": str(Path(data_dir) / "evalsets.duckdb"),
            "snapshot": str(gs.snapshot_dir),
            "dagster_home": str(instance_home(data_dir)),
            "run_id": result.run_id,
        },
    }


def print_summary(s: dict[str, Any]) -> None:
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
    c, d = s["corpus"], s["done"]
    console.print(
        f"corpus: {c['documents']} documents, {c['pages']} pages, fingerprint {c['fingerprint'][:16]}"
    )
    console.print(
        f"done: {d['pages_rendered']} pages rendered ({d['pages_render_reused']} reused), "
        f"{d['pages_embedded']} embedded ({d['pages_embedding_reused']} reused), "
        f"{d['model_calls']} model calls ({d['cache_hits']} cache hits, {d['backend']}"
        f"{' ' + d['model'] if d['model'] else ''}), tokens {d['tokens']['prompt']:,} in / "
        f"{d['tokens']['completion']:,} out, cost {d['cost_usd']:.4f} USD"
    )
    p = s.get("pooling") or {}
    if p.get("judged"):
        main = (s.get("by_slice") or {}).get("main", 0)
        console.print(
            f"pooling: {p['judged']:,} pool pages judged (median {p['median_pool']} per item); "
            f"{p['main_items_with_2plus_sufficient']} of {main} main items answered by more than "
            f"one page; {p['coincidences']} coincidences, {p['revisions']} restatements"
        )
    looks = s.get("lookalikes") or {}
    if looks.get("items"):
        kinds = ", ".join(f"{k} {c['items']}" for k, c in looks["by_kind"].items())
        console.print(
            f"distractors one axis away: {looks['one_axis_items']} of {looks['items']} main items "
            f"(items per kind: {kinds}; appearance never counts)"
        )
    total = sum(s["seconds"].values())
    console.print(
        f"time: {total:.1f} s in steps; "
        + ", ".join(f"{k} {v:.1f}" for k, v in s["seconds"].items() if v >= 0.05 * max(total, 1e-9))
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
    from evalset_pipeline.cli.documents import coverage_lines

    for line in coverage_lines(s.get("coverage") or {}):
        console.print(Text(line))
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
    facts = s.get("facts") or {}
    if facts.get("documents_with_conflicts") or facts.get("documents_with_low_confidence"):
        console.print(
            f"document facts: {facts['documents_with_conflicts']} documents with conflicts "
            f"({facts['pages_held_for_conflicts']} pages not sampled until a sidecar row settles "
            f"them), {facts['documents_with_low_confidence']} with low-confidence facts "
            "(`evalset documents --facts`)"
        )
    for issue in s.get("sidecar_issues") or []:  # [bad-input]
        console.print(Text(f"sidecar: {issue}"), style="yellow")
    for warning in s.get("warnings") or []:
        console.print(Text(f"warning: {warning}"), style="bold yellow")
    console.print(
        f"stored in {s['stored_at']['duckdb']} and {s['stored_at']['snapshot']}; "
        f"run {s['stored_at']['run_id'][:8]} in {s['stored_at']['dagster_home']} (`make ui` shows it)"
    )

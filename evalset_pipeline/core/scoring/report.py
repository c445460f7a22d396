"""Slice summaries and the two report forms: one JSON object, or rich tables for people.

Warnings always come first and conventions always come along: a number read without them is
read wrong.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from typing import Any

import numpy as np
from rich.console import Console
from rich.panel import Panel
from rich.table import Table

from evalset_pipeline.core.scoring.conventions import (
    DIAGNOSTIC_FAMILIES,
    JUDGED_SUFFIX,
    SLICES,
    conventions,
    families_for_slice,
    metric_key,
    metric_keys,
)
from evalset_pipeline.core.scoring.metrics import QueryScores


@dataclass(frozen=True)
class SliceSummary:
    name: str
    n_items: int  # golden items in the slice
    n_scored: int  # items in every mean (at least one relevant judged unit)
    n_excluded: int  # items with no relevant judged unit (zero-relevant policy)
    n_without_results: int  # scored items the run returned nothing for (they count as zero)
    metrics: dict[str, float | None]  # slice mean per metric key; None when nothing was scored


def _mean(values: np.ndarray) -> float | None:
    finite = values[~np.isnan(values)]
    return float(finite.mean()) if len(finite) else None


def summarize(scores: QueryScores) -> dict[str, SliceSummary]:
    """Query-averaged means per slice (every scored query weighs the same)."""
    out: dict[str, SliceSummary] = {}
    for name in SLICES:
        mask = scores.slices == name
        scored = mask & scores.eligible
        out[name] = SliceSummary(
            name=name,
            n_items=int(mask.sum()),
            n_scored=int(scored.sum()),
            n_excluded=int((mask & ~scores.eligible).sum()),
            n_without_results=int((scored & (scores.n_results == 0)).sum()),
            metrics={
                key: _mean(scores.values[key][scored]) for key in metric_keys(name, scores.ks)
            },
        )
    return out


def exclusion_warnings(scores: QueryScores, summaries: Mapping[str, SliceSummary]) -> list[str]:
    """Items the zero-relevant policy took out (a property of the golden set, not of the run)."""
    out: list[str] = []
    relevant = "sufficient" if scores.relevance == "sufficient" else "sufficient or supporting"
    for s in summaries.values():
        if s.n_excluded:
            out.append(
                f"{s.n_excluded} of {s.n_items} {s.name} item(s) have no unit labelled {relevant} and are "
                "excluded from every metric of the slice (conventions: zero_relevant)"
            )
    return out


def run_warnings(scores: QueryScores) -> list[str]:
    """What the scorer noticed about the run: queries it does not know, units listed twice."""
    out: list[str] = []
    if scores.n_unknown_rows:
        ids = scores.unknown_query_ids
        shown = ", ".join(ids[:5]) + (", …" if len(ids) > 5 else "")
        out.append(
            f"{len(ids)} run query id(s) ({scores.n_unknown_rows} rows) are not items of golden version "
            f"{scores.version_id} and were ignored: {shown}"
        )
    if scores.n_duplicates:
        out.append(
            f"{scores.n_duplicates} duplicate (query, unit) row(s) in the run; each unit kept its best score"
        )
    return out


def _json_number(value: float | None) -> float | None:
    return None if value is None or (isinstance(value, float) and math.isnan(value)) else value


def build_score_report(
    *,
    golden_info: Mapping[str, Any],
    version_id: str,
    scores: QueryScores,
    warnings: list[str],
    run_info: Mapping[str, Any],
) -> dict[str, Any]:
    """The `--json` object. Keys: version, slices, n_queries, warnings, conventions, and context."""
    summaries = summarize(scores)
    all_warnings = list(warnings) + run_warnings(scores) + exclusion_warnings(scores, summaries)
    created = golden_info.get("created_at")
    return {
        "version": version_id,
        "golden": {
            "version_id": version_id,
            "created_at": created.isoformat() if isinstance(created, (datetime, date)) else created,
            "corpus_fingerprint": golden_info.get("corpus_fingerprint"),
            "corpus_pages": golden_info.get("corpus_pages"),
        },
        "run": dict(run_info),
        "relevance": scores.relevance,
        "gain": scores.gain,
        "ks": list(scores.ks),
        "n_queries": int(len(scores.item_ids)),
        "counts": {
            name: {
                "n_items": s.n_items,
                "n_scored": s.n_scored,
                "n_excluded_no_relevant": s.n_excluded,
                "n_scored_without_results": s.n_without_results,
            }
            for name, s in summaries.items()
        },
        "slices": {
            name: {k: _json_number(v) for k, v in s.metrics.items()}
            for name, s in summaries.items()
        },
        "warnings": all_warnings,
        "conventions": conventions(scores.relevance, scores.gain),
    }


# --- human-readable ----------------------------------------------------------------------------


def _fmt(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


def _warnings_panel(console: Console, warnings: list[str]) -> None:
    if warnings:
        body = "\n".join(f"• {w}" for w in warnings)
        console.print(Panel(body, title="warnings", border_style="yellow", expand=True))


def _conventions_panel(console: Console, conv: Mapping[str, str]) -> None:
    body = "\n".join(f"[bold]{k}[/bold]: {v}" for k, v in conv.items())
    console.print(
        Panel(body, title="conventions (docs/scoring.md)", border_style="dim", expand=True)
    )


_FAMILY_LABELS = {
    "recall": "Recall",
    "ndcg": "nDCG",
    "mrr": "MRR",
    "sufficient": "sufficient",
    "supporting_only": "supporting-only (lower is better)",
    "judged": "Judged",
    "gold_recall": "gold Recall (hit)",
    "gold_ndcg": "gold nDCG",
}


def render_score_report(report: Mapping[str, Any], console: Console | None = None) -> None:
    console = console or Console()
    _warnings_panel(console, report["warnings"])
    run = report.get("run", {})
    console.print(
        f"[bold]golden[/bold] {report['version']}   [bold]run[/bold] {run.get('name', '')}   "
        f"[bold]relevance[/bold] {report['relevance']}   [bold]gain[/bold] {report.get('gain', 'graded')}   "
        f"[bold]queries[/bold] {report['n_queries']}"
    )
    ks = report["ks"]
    for name, metrics in report["slices"].items():
        c = report["counts"][name]
        title = f"{name}: n={c['n_scored']} scored of {c['n_items']}"
        if c["n_excluded_no_relevant"]:
            title += f", {c['n_excluded_no_relevant']} excluded (nothing relevant judged)"
        if c["n_scored_without_results"]:
            title += f", {c['n_scored_without_results']} without results (count as 0)"
        if c["n_items"] == 0:
            console.print(f"[dim]{name}: no items in this golden version[/dim]")
            continue
        table = Table(title=title, title_justify="left")
        table.add_column("metric")
        for k in ks:
            table.add_column(f"@{k}", justify="right")
        for judged_only in (False, True):
            for fam in families_for_slice(name):
                if judged_only and fam == "judged":
                    continue
                label = _FAMILY_LABELS.get(fam, fam) + (
                    f" {JUDGED_SUFFIX[1:]}-only" if judged_only else ""
                )
                table.add_row(
                    label, *(_fmt(metrics.get(metric_key(fam, k, judged_only))) for k in ks)
                )
            if not judged_only:
                table.add_section()
        console.print(table)
    _conventions_panel(console, report["conventions"])


# --- compare -----------------------------------------------------------------------------------


def render_compare_report(
    report: Mapping[str, Any], console: Console | None = None, *, show_judged: bool = False
) -> None:
    console = console or Console()
    _warnings_panel(console, report["warnings"])
    a, b = report["run_a"]["name"], report["run_b"]["name"]
    console.print(
        f"[bold]golden[/bold] {report['version']}   [bold]A[/bold] {a}   [bold]B[/bold] {b}   "
        f"Δ = B − A, {report['confidence_level']:.0%} paired BCa bootstrap ({report['n_resamples']:,} resamples, "
        f"seed {report['seed']})"
    )
    colors = {"better": "green", "worse": "red", "indistinguishable": "dim"}
    for name, metrics in report["slices"].items():
        n = report["counts"][name]["n_scored"]
        if not metrics:
            console.print(f"[dim]{name}: nothing to compare (n=0)[/dim]")
            continue
        table = Table(title=f"{name}: n={n} paired queries", title_justify="left")
        for col, just in (
            ("metric", "left"),
            ("A", "right"),
            ("B", "right"),
            ("Δ", "right"),
            ("95% CI", "right"),
            ("McNemar p", "right"),
            ("verdict", "left"),
        ):
            table.add_column(col, justify=just)  # type: ignore[arg-type]
        for key, m in metrics.items():
            if key.endswith(JUDGED_SUFFIX) and not show_judged:
                continue
            lo, hi = m["ci_low"], m["ci_high"]
            ci = "—" if lo is None else f"[{lo:+.3f}, {hi:+.3f}]"
            p = m.get("mcnemar_p")
            verdict = m["verdict"]
            table.add_row(
                key,
                _fmt(m["mean_a"]),
                _fmt(m["mean_b"]),
                "—" if m["delta"] is None else f"{m['delta']:+.3f}",
                ci,
                "" if p is None else f"{p:.3g}",
                f"[{colors.get(verdict, 'white')}]{verdict}[/]",
            )
        console.print(table)
    console.print(
        "[dim]verdict: better/worse when the interval excludes zero (for supporting_only lower is better; "
        f"{', '.join(sorted(DIAGNOSTIC_FAMILIES))} is a diagnostic: higher/lower); indistinguishable otherwise"
        + ("" if show_judged else "; _judged metrics: --show-judged or --json")
        + "[/dim]"
    )
    _conventions_panel(console, report["conventions"])

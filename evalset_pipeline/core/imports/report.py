"""`evalset report hardening`: what a hardened import says about the benchmark and about a retriever.

Three parts, each with its counts (docs/hardening.md says how to read them):

  siblings          per axis, the share of imported questions that a one-axis sibling answers
                    (k of n: n = questions with at least one sibling on that axis), with a 95%
                    Wilson interval (scipy.stats.binomtest); over all items and over those whose
                    gold page the judge itself finds sufficient (where "no sibling answers" is a
                    verdict the judge could have reached the other way).
  judge_validation  the judge against the benchmark's human gold pages (held-out human labels):
                    the reference of each item is `sufficient` when its answer is printed on a
                    gold page (figures anywhere on it, or its words), `supporting` when it is not
                    (a computed answer: the human's page holds the inputs); the prediction is the
                    judge's best label over the gold pages. Confusion matrix, per-class recall,
                    macro-F1 (review/agreement.classification_report). Computed answers are the
                    `supporting` row, so they are reported apart; items whose answer has nothing
                    a page could show (a bare "Yes.") are counted and left out.
  before_after      a built-in baseline retriever over every page of the corpus: Recall@k and
                    sufficient@k against the original qrels (the human gold pages only) and
                    against the hardened set (main slice; underspecified slice, where any
                    answering page counts).
"""

from __future__ import annotations

import html
from collections import Counter
from dataclasses import dataclass
from typing import Any

import pyarrow as pa
from scipy.stats import binomtest

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.labels import LABELS
from evalset_pipeline.core.negatives.mining import FALLBACK_AXIS
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.review.agreement import Confusion, classification_report

KS = (1, 5, 10)
_RANK = {"sufficient": 2, "supporting": 1, "irrelevant": 0}


class NotAnImport(ValueError):
    """The version was not made by `evalset import`."""


def share(k: int, n: int) -> dict[str, Any]:
    """k of n with its 95% Wilson interval (None when n is 0)."""
    if n == 0:
        return {"k": 0, "n": 0, "share": None, "ci95": None}
    ci = binomtest(k, n).proportion_ci(confidence_level=0.95, method="wilson")
    return {"k": k, "n": n, "share": k / n, "ci95": [float(ci.low), float(ci.high)]}


def import_info(golden: GoldenSet) -> dict[str, Any]:
    prov = golden.info.get("provenance") or {}
    if prov.get("kind") != "import":
        raise NotAnImport(
            f"{golden.version_id} was not made by `evalset import` (no import provenance); "
            "pass --golden with the version the import printed"
        )
    return prov


def sibling_shares(items: dict[str, dict[str, Any]], axes: list[str]) -> dict[str, Any]:
    seen_axes = sorted(
        {a for i in items.values() for a in i["axes_checked"]}, key=lambda a: (a not in axes, a)
    )
    out: dict[str, Any] = {}
    for scope, chosen in (
        ("all", items),
        ("gold_sufficient", {k: v for k, v in items.items() if "sufficient" in v["gold"].values()}),
    ):
        per_axis = {}
        for axis in seen_axes:
            n = [i for i in chosen.values() if axis in i["axes_checked"]]
            per_axis[axis] = share(sum(1 for i in n if axis in i["answering"].values()), len(n))
        # `appearance` pools (nearest look-alikes where every one-axis pool was empty) are shown, not counted here
        with_siblings = [i for i in chosen.values() if set(i["axes_checked"]) - {FALLBACK_AXIS}]
        per_axis["any"] = share(
            sum(1 for i in with_siblings if set(i["answering"].values()) - {FALLBACK_AXIS}),
            len(with_siblings),
        )
        out[scope] = {
            "per_axis": per_axis,
            "items": len(chosen),
            "without_siblings": len(chosen) - len(with_siblings),
        }
    return out


def _best(labels: dict[str, str]) -> str:
    return max(labels.values(), key=lambda lab: _RANK[lab]) if labels else "irrelevant"


def judge_validation(items: dict[str, dict[str, Any]]) -> dict[str, Any]:
    ref, pred, no_content = [], [], 0
    for i in items.values():
        if i["printed"] is None:
            no_content += 1
            continue
        ref.append("sufficient" if i["printed"] else "supporting")
        pred.append(_best(i["gold"]))
    report = classification_report(Confusion.from_pairs(ref, pred, LABELS))
    not_sufficient = sum(1 for i in items.values() if _best(i["gold"]) != "sufficient")
    declared: dict[str, Counter] = {}
    for i in items.values():
        reasoning = i.get("extra", {}).get("question_reasoning")
        if reasoning is not None or "question_reasoning" in i.get("extra", {}):
            declared.setdefault(str(reasoning), Counter())[_best(i["gold"])] += 1
    return {
        "reference": "sufficient = the answer is printed on a gold page; supporting = it is not (computed)",
        "printed": share(
            sum(
                1
                for r, p in zip(ref, pred, strict=False)
                if r == "sufficient" and p == "sufficient"
            ),
            ref.count("sufficient"),
        ),
        "computed": {
            "n": ref.count("supporting"),
            "judged": dict(
                Counter(p for r, p in zip(ref, pred, strict=False) if r == "supporting")
            ),
        },
        "no_content": no_content,
        "gold_not_sufficient": share(not_sufficient, len(items)),
        "confusion": report,
        "by_declared_reasoning": {k: dict(v) for k, v in sorted(declared.items())},
    }


def before_after(
    golden: GoldenSet, paths: DataPaths, retriever: str, ks: tuple[int, ...] = KS
) -> dict[str, Any]:
    from evalset_pipeline.core.scoring.baselines import baseline_run
    from evalset_pipeline.core.scoring.metrics import score_run
    from evalset_pipeline.core.scoring.pooling import working_pages
    from evalset_pipeline.core.scoring.qrels import qrels_from_golden, qrels_from_tables
    from evalset_pipeline.core.scoring.report import summarize

    _, _, fingerprint = working_pages(paths)
    if fingerprint != golden.info.get("corpus_fingerprint"):
        raise ValueError(
            f"the data directory's pages are of corpus {fingerprint}, the version's of "
            f"{golden.info.get('corpus_fingerprint')}: rebuild that corpus to score a retriever on it"
        )
    run = baseline_run(paths, golden.items, retriever)
    gold = golden.judgments.filter(pa.compute.equal(golden.judgments.column("role"), "gold"))
    original = qrels_from_tables(
        pa.table(
            {
                "item_id": golden.items.column("item_id"),
                "slice": pa.array(["main"] * golden.items.num_rows),
                "gold_unit_id": golden.items.column("gold_unit_id"),
            }
        ),
        pa.table(
            {
                "item_id": gold.column("item_id"),
                "unit_id": gold.column("unit_id"),
                "label": pa.array(["sufficient"] * gold.num_rows),
            }
        ),
        "original-qrels",
    )
    rows = []
    for name, qrels, slices in (
        ("original qrels", original, ("main",)),
        ("hardened", qrels_from_golden(golden), ("main", "underspecified")),
    ):
        summary = summarize(score_run(qrels, run, ks=ks))
        for s in slices:
            m = summary[s].metrics
            rows.append(
                {
                    "qrels": name,
                    "slice": "all" if name == "original qrels" else s,
                    "n": summary[s].n_scored,
                    **{f"sufficient@{k}": m.get(f"sufficient@{k}") for k in ks},
                    **{f"recall@{k}": m.get(f"recall@{k}") for k in ks},
                }
            )
    return {"retriever": retriever, "ks": list(ks), "rows": rows}


@dataclass(frozen=True)
class HardeningReport:
    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.data

    def markdown(self) -> str:
        d = self.data
        out = [
            f"# Hardening report: {d['source']} ({d['version_id']})",
            "",
            f"{d['imported']} imported questions ({d['format']}, judge {d['judge'].get('backend')}"
            f"{' ' + d['judge']['model'] if d['judge'].get('model') else ''}); {d['issue_count']} import issue(s). "
            f"Status: " + ", ".join(f"{k} {v}" for k, v in d["statuses"].items()),
            "",
            "## Questions a one-axis sibling answers",
            "",
            "| axis | all: k / n | share | 95% CI | gold sufficient: k / n | share | 95% CI |",
            "|---|---|---|---|---|---|---|",
        ]
        sib = d["siblings"]
        for axis in sib["all"]["per_axis"]:
            a, g = sib["all"]["per_axis"][axis], sib["gold_sufficient"]["per_axis"][axis]
            out.append(
                f"| {axis} | {a['k']} / {a['n']} | {_pct(a['share'])} | {_ci(a)} | {g['k']} / {g['n']} | "
                f"{_pct(g['share'])} | {_ci(g)} |"
            )
        jv = d["judge_validation"]
        c = jv["confusion"]
        out += [
            "",
            f"`any`: a sibling on some one-axis pool; `{FALLBACK_AXIS}`: the nearest same-template pages where "
            "every one-axis pool was empty (not one-axis, not in `any`).",
            "",
            "## Judge validation on the human gold pages",
            "",
            f"Printed answers: judge finds the gold page sufficient for {jv['printed']['k']} / {jv['printed']['n']} "
            f"({_pct(jv['printed']['share'])}, 95% CI {_ci(jv['printed'])}). Computed answers (reported apart): "
            f"{jv['computed']['n']}, judged {jv['computed']['judged']}. Nothing to show: {jv['no_content']}. "
            "Gold page not found sufficient overall: "
            f"{jv['gold_not_sufficient']['k']} / {jv['gold_not_sufficient']['n']}.",
            "",
            "| reference \\ judge | " + " | ".join(c["classes"]) + " | recall |",
            "|---|" + "---|" * (len(c["classes"]) + 1),
        ]
        for name, row in zip(c["classes"], c["matrix"], strict=False):
            rec = c["per_class"][name]["recall"]["value"]
            out.append(f"| {name} | " + " | ".join(str(x) for x in row) + f" | {_pct(rec)} |")
        out += [
            "",
            f"macro-F1 {_f(c['macro_f1'])} over {', '.join(c['macro_f1_classes'])}; n = {c['n']}.",
        ]
        ba = d.get("before_after")
        if ba and ba.get("rows"):
            ks = ba["ks"]
            out += [
                "",
                f"## Before / after: baseline `{ba['retriever']}` over the whole corpus",
                "",
                "| qrels | slice | n | "
                + " | ".join(f"sufficient@{k}" for k in ks)
                + " | "
                + " | ".join(f"Recall@{k}" for k in ks)
                + " |",
                "|---|---|---|" + "---|" * (2 * len(ks)),
            ]
            for r in ba["rows"]:
                out.append(
                    f"| {r['qrels']} | {r['slice']} | {r['n']} | "
                    + " | ".join(_f(r[f"sufficient@{k}"]) for k in ks)
                    + " | "
                    + " | ".join(_f(r[f"recall@{k}"]) for k in ks)
                    + " |"
                )
        elif ba and ba.get("skipped"):
            out += ["", f"Before / after not measured: {ba['skipped']}"]
        return "\n".join(out) + "\n"

    def html(self) -> str:
        import markdown_it  # rich's own dependency: the page is the markdown report, rendered

        body = markdown_it.MarkdownIt().enable("table").render(self.markdown())
        return (
            "<!doctype html><html><head><meta charset='utf-8'><title>"
            + html.escape(f"Hardening report {self.data['version_id']}")
            + "</title><style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
            "table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:.2em .6em;text-align:right}"
            "td:first-child,th:first-child{text-align:left}</style></head><body>"
            + body
            + "</body></html>\n"
        )


def _pct(v: float | None) -> str:
    return "—" if v is None else f"{100 * v:.1f}%"


def _f(v: float | None) -> str:
    return "—" if v is None else f"{v:.3f}"


def _ci(s: dict[str, Any]) -> str:
    return "—" if not s.get("ci95") else f"[{100 * s['ci95'][0]:.1f}%, {100 * s['ci95'][1]:.1f}%]"


def hardening_report(
    golden: GoldenSet, paths: DataPaths, *, retriever: str | None = "text"
) -> HardeningReport:
    prov = import_info(golden)
    items = prov["items"]
    data: dict[str, Any] = {
        "version_id": golden.version_id,
        "source": prov["source"],
        "format": prov["format"],
        "judge": prov["judge"],
        "imported": prov["imported"],
        "issue_count": prov["issue_count"],
        "statuses": prov["statuses"],
        "gold_refs": prov["gold_refs"],
        "gold_refs_resolved": prov["gold_refs_resolved"],
        # shares below are over these items: all, or past 20,000 a fixed sample by item id
        "items_in_provenance": {"kind": prov.get("items_in_provenance", "all"), "n": len(items)},
        "siblings": sibling_shares(items, prov.get("axes") or []),
        "judge_validation": judge_validation(items),
        "answering_examples": [
            {"original_id": i["original_id"], "answering": i["answering"]}
            for i in items.values()
            if i["answering"]
        ][:50],
    }
    if retriever:
        from evalset_pipeline.core.scoring.baselines import BaselineUnavailable

        try:
            data["before_after"] = before_after(golden, paths, retriever)
        except (ValueError, FileNotFoundError, BaselineUnavailable) as exc:
            data["before_after"] = {"retriever": retriever, "skipped": str(exc)}
    return HardeningReport(data)

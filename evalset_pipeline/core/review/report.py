"""Model-human agreement per judge (model + label prompt version) and inter-annotator agreement.

Where the model's labels come from:

* at build time (`apply.py`): the labels the current judge just gave (`candidate_labels`);
* on the command line: the model-call ledger (`cache/model_calls.duckdb`, task `label`), which
  holds every label any judge ever gave, keyed by backend, model, label-prompt hash, page image
  hash and question text. Joining human labels on (page image, question) finds each judge's
  labels for the same pairs, so a new judge or an edited label prompt is validated against the
  same held-out human labels the moment it has labelled them. When the ledger cannot be read (a
  build holds its lock, or it was deleted) the model label recorded with each human label at
  export time is used instead, and the report says so.

Judge quality is measured on the held-out split only (`split.py`); the development split is
counted, never scored.
"""

from __future__ import annotations

import json
from collections import defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import asdict, dataclass
from itertools import combinations
from typing import Any

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.review.agreement import (
    LABELS,
    Confusion,
    classification_report,
    headline,
    label_views,
    proportion,
)
from evalset_pipeline.core.review.split import DEV, DEV_FRACTION, HELDOUT, split_info, split_of
from evalset_pipeline.core.review.store import PairKey, PairReview


@dataclass(frozen=True, order=True)
class Judge:
    backend: str
    model: str
    label_prompt: str

    @property
    def key(self) -> str:
        return f"{self.backend}/{self.model} label-prompt {self.label_prompt or '?'}"

    def as_dict(self) -> dict[str, str]:
        return asdict(self)


def judge_from_identity(identity: Mapping[str, Any]) -> Judge:
    """The judge named in a backend identity / golden provenance ({backend, model, prompts})."""
    prompts = identity.get("prompts") or {}
    return Judge(
        str(identity.get("backend") or ""),
        str(identity.get("model") or ""),
        str(prompts.get("label") or ""),
    )


def model_human_agreement(
    reviews: Iterable[PairReview],
    model_labels: Mapping[PairKey, str],
    judge: Judge,
    dev_fraction: float = DEV_FRACTION,
    bootstrap: bool = True,
) -> dict[str, Any]:
    """Held-out human labels (adjudicated or unanimous) against one judge's labels for the same pairs."""
    reviews = list(reviews)
    resolved = [r for r in reviews if r.label is not None]
    parts: dict[str, list[PairReview]] = {DEV: [], HELDOUT: []}
    for r in resolved:
        parts[split_of(r.key.item_id, dev_fraction)].append(r)
    scored = [r for r in parts[HELDOUT] if model_labels.get(r.key) in LABELS]
    report: dict[str, Any] = {
        "judge": judge.as_dict(),
        "judge_key": judge.key,
        "split": split_info(dev_fraction),
        "human_labels": {
            "pairs": len(reviews),
            "resolved": len(resolved),
            "in_conflict": sum(1 for r in reviews if r.state == "conflict"),
            "by_source": {
                s: sum(1 for r in resolved if r.source == s) for s in ("human", "adjudicated")
            },
        },
        "dev": {"labels": len(parts[DEV]), "items": len({r.key.item_id for r in parts[DEV]})},
        "heldout": {
            "labels": len(parts[HELDOUT]),
            "items": len({r.key.item_id for r in parts[HELDOUT]}),
            "with_model_label": len(scored),
            # Held-out pairs this judge never labelled (e.g. labelled under another question wording).
            "without_model_label": len(parts[HELDOUT]) - len(scored),
        },
    }
    if scored:
        report["heldout"].update(
            label_views(
                [r.label for r in scored if r.label is not None],
                [model_labels[r.key] for r in scored],
                clusters=[r.key.item_id for r in scored],
                bootstrap=bootstrap,
            )
        )
    return report


def inter_annotator(reviews: Iterable[PairReview]) -> dict[str, Any]:
    """Agreement between annotators on the pairs two (or more) of them labelled (newest label each)."""
    by_pair: dict[tuple[str, str], list[tuple[str, str]]] = defaultdict(list)
    double = 0
    items: set[str] = set()
    for r in reviews:
        labels = r.human_labels
        if len(labels) < 2:
            continue
        double += 1
        items.add(r.key.item_id)
        for a, b in combinations(sorted(labels), 2):
            by_pair[(a, b)].append((labels[a], labels[b]))
    pairs_out = []
    pooled_ref: list[str] = []
    pooled_pred: list[str] = []
    for (a, b), rows in sorted(by_pair.items()):
        ref, pred = [x for x, _ in rows], [y for _, y in rows]
        pooled_ref += ref
        pooled_pred += pred
        rep = classification_report(Confusion.from_pairs(ref, pred, LABELS))
        pairs_out.append(
            {
                "annotators": [a, b],
                "n": rep["n"],
                "agreement": rep["accuracy"],
                "cohens_kappa": rep["cohens_kappa"],
                "matrix": rep["matrix"],
                "matrix_layout": f"rows = {a}, columns = {b}",
            }
        )
    out: dict[str, Any] = {
        "double_annotated_pairs": double,
        "items": len(items),
        "annotator_pairs": pairs_out,
    }
    if pooled_ref:
        rep = classification_report(Confusion.from_pairs(pooled_ref, pooled_pred, LABELS))
        agree = sum(1 for x, y in zip(pooled_ref, pooled_pred, strict=False) if x == y)
        out["pooled"] = {
            "comparisons": len(pooled_ref),
            "agreement": proportion(agree, len(pooled_ref)),
            "cohens_kappa": rep["cohens_kappa"],
        }
    return out


def _fmt(x: float | None, digits: int = 3) -> str:
    return "n/a" if x is None else f"{x:.{digits}f}"


def statement(report: Mapping[str, Any], total_labels: int | None = None) -> str:
    """One sentence for the golden set's metadata: who labelled it and how well that was measured."""
    j = report["judge"]
    who = f"{j['backend']}/{j['model']} (label prompt {j['label_prompt'] or '?'})"
    h = report["heldout"]
    human = report["human_labels"]
    reviewed = f"{human['resolved']} human-resolved labels"
    if total_labels is not None:
        reviewed += f" of {total_labels}"
    if not h.get("three_class"):
        return (
            f"Candidate labels were pre-labelled by the model {who}; {reviewed}; "
            f"model-human agreement not measured yet (no held-out human labels for this judge)."
        )
    t, b = h["three_class"], h["sufficient_vs_supporting"]
    ci = t["accuracy"]["ci95"]
    text = (
        f"Candidate labels were pre-labelled by the model {who}; {reviewed}. On {t['n']} held-out human labels "
        f"({t['items']} questions) the model agrees on {_fmt(t['accuracy']['value'])} "
        f"[95% CI {_fmt(ci[0])}-{_fmt(ci[1])}], Cohen's kappa {_fmt(t['cohens_kappa'])}, macro-F1 "
        f"{_fmt(t['macro_f1'])}"
    )
    if b["n"]:
        bci = b["accuracy"]["ci95"]
        text += (
            f"; on the sufficient/supporting boundary {_fmt(b['accuracy']['value'])} "
            f"[{_fmt(bci[0])}-{_fmt(bci[1])}] (n={b['n']})"
        )
    return text + "."


def provenance_summary(
    report: Mapping[str, Any], inter: Mapping[str, Any], total_labels: int
) -> dict[str, Any]:
    """The compact form stored in golden provenance (`model_human_agreement`)."""
    h = report["heldout"]
    out: dict[str, Any] = {
        "pre_labelled_by_model": True,
        "judge": report["judge"],
        "statement": statement(report, total_labels),
        "split": report["split"],
        "human_labels": report["human_labels"],
        "dev_labels": report["dev"]["labels"],
        "heldout_labels": h["labels"],
        "heldout_scored": h["with_model_label"],
    }
    for view in ("three_class", "sufficient_vs_supporting", "sufficient_vs_rest"):
        if h.get(view):
            out[view] = headline(h[view])
    if inter.get("double_annotated_pairs"):
        pooled = inter.get("pooled") or {}
        out["inter_annotator"] = {
            "double_annotated_pairs": inter["double_annotated_pairs"],
            "agreement": (pooled.get("agreement") or {}).get("value"),
            "agreement_ci95": (pooled.get("agreement") or {}).get("ci95"),
            "cohens_kappa": pooled.get("cohens_kappa"),
        }
    return out


# --- model labels from the ledger or from the records ---------------------------------------------


def ledger_labels(
    paths: DataPaths, reviews: Iterable[PairReview]
) -> dict[Judge, dict[PairKey, str]]:
    """Every judge's label for the reviewed pairs, from the model-call ledger (read-only).

    Raises OSError-like duckdb errors when the ledger is missing or locked; callers fall back.
    """
    import duckdb

    reviews = [r for r in reviews if r.render_hash]
    if not paths.cache_db.exists():
        raise FileNotFoundError(f"no model-call ledger at {paths.cache_db}")
    wanted: dict[tuple[str, str], list[PairKey]] = defaultdict(list)
    for r in reviews:
        wanted[(r.render_hash, r.question)].append(r.key)
    if not wanted:
        return {}
    con = duckdb.connect(str(paths.cache_db), read_only=True)
    try:
        rows = con.execute(
            "SELECT backend, model, prompt_hash, image_hash, question, response_json FROM model_calls "
            "WHERE task = 'label' AND question IN (SELECT unnest(?)) ORDER BY created_at",
            [sorted({q for _, q in wanted})],
        ).fetchall()
    finally:
        con.close()
    out: dict[Judge, dict[PairKey, str]] = defaultdict(dict)
    for backend, model, prompt_hash, image_hash, question, response in rows:
        keys = wanted.get((image_hash, question))
        if not keys:
            continue
        label = json.loads(response).get("label")
        for key in keys:
            out[Judge(backend, model, prompt_hash)][key] = (
                label  # newest call wins (ORDER BY created_at)
            )
    return dict(out)


def recorded_labels(reviews: Iterable[PairReview]) -> dict[Judge, dict[PairKey, str]]:
    """The model label each human label was exported beside, grouped by the judge that gave it."""
    out: dict[Judge, dict[PairKey, str]] = defaultdict(dict)
    for r in reviews:
        for row in r.by_annotator.values():
            if row.get("model_label"):
                judge = Judge(
                    row.get("judge_backend") or "",
                    row.get("judge_model") or "",
                    row.get("label_prompt") or "",
                )
                out[judge].setdefault(r.key, row["model_label"])
    return dict(out)


def agreement_report(
    paths: DataPaths,
    reviews: dict[PairKey, PairReview],
    current: Judge | None = None,
    dev_fraction: float = DEV_FRACTION,
) -> dict[str, Any]:
    """The full report `evalset review agreement` prints: one section per judge, then annotators."""
    if not reviews:
        return {
            "model_labels_from": None,
            "note": "",
            "current_judge": current.as_dict() if current else None,
            "judges": [],
            "inter_annotator": inter_annotator([]),
        }
    source = "ledger"
    note = ""
    try:
        by_judge = ledger_labels(paths, reviews.values())
    except Exception as exc:  # noqa: BLE001 - a locked or missing ledger is expected; fall back
        by_judge, source, note = (
            {},
            "recorded",
            f"model-call ledger not readable ({type(exc).__name__}: {exc})",
        )
    recorded = recorded_labels(reviews.values())
    for judge, labels in recorded.items():  # judges the ledger no longer (or never) had
        if judge not in by_judge:
            by_judge[judge] = labels
    judges = sorted(by_judge, key=lambda j: (j != current, j.key))
    sections = []
    for judge in judges:
        rep = model_human_agreement(reviews.values(), by_judge[judge], judge, dev_fraction)
        rep["current"] = judge == current
        sections.append(rep)
    if current is not None and current not in by_judge:
        rep = model_human_agreement(reviews.values(), {}, current, dev_fraction)
        rep["current"] = True
        sections.insert(0, rep)
    return {
        "model_labels_from": source,
        "note": note,
        "current_judge": current.as_dict() if current else None,
        "judges": sections,
        "inter_annotator": inter_annotator(reviews.values()),
    }

"""The headline report: top-1 against random negatives next to sufficient@k against hard negatives.

Two columns, each with its own denominator (docs/scoring.md, "The headline report"):

  random negatives  every written question as written (candidate_questions, before validation,
                    n = written); candidates = its source page + R pages drawn (seeded, per item)
                    from pages of another template *and* another document; top-1 = the source
                    page ranked first, top-5 = within the first five. R = median hard pool size
                    minus one, so both columns rank the same number of candidates.
  hard negatives    the golden set's main slice as validated (n = kept items that have a
                    sufficient unit); candidates = its hard-negative pool (the gold and its
                    distractors: same template, one axis different); sufficient@1, sufficient@5,
                    supporting-only@5. Pooled units (other templates stating the same facts) are
                    left out of this pool on purpose: they are not look-alikes, and the seed's
                    column asks whether a retriever finds the evidence among look-alikes. They do
                    count as sufficient in the whole-index column, so a retriever is never
                    punished for returning them.

Both are also ranked over the whole corpus index (every rendered page), and a bridge on the kept
items changes one thing at a time (question, then negatives, then label) with one denominator,
because the two headline columns cannot be subtracted from each other.

Every number comes out of `score_run`, so the scorer's conventions (tie-break by unit id,
unjudged = irrelevant, zero-relevant items excluded) hold here too.
"""

from __future__ import annotations

import hashlib
import math
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.negatives.lookalikes import distractors_by_kind
from evalset_pipeline.core.negatives.mining import FALLBACK_AXIS
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.scoring.baselines import MANIFEST, CorpusIndex, Retriever, retrieve
from evalset_pipeline.core.scoring.metrics import QueryScores, score_run
from evalset_pipeline.core.scoring.qrels import qrels_from_tables
from evalset_pipeline.core.scoring.runs import run_from_columns

KS = (1, 5)
INDEX_DEPTH = 10  # whole-index rankings are read to the deepest cutoff the scorer reads


@dataclass(frozen=True)
class Column:
    key: str
    questions: str  # which questions, in words
    candidates: str  # what competes with the answer, in words
    n: int  # the denominator: questions in every mean of this column
    n_items: int  # questions in the set before exclusions
    candidates_per_query: float  # median candidates ranked per question
    metrics: dict[str, float | None]


@dataclass(frozen=True)
class Headline:
    version_id: str
    retriever: str
    retriever_description: str
    seed: int
    random_negatives: int  # R
    median_pool: float  # median judged pool size of the main slice (gold included)
    index_pages: int
    funnel: dict[str, int]  # sampled / written / kept, as the working tables and golden set say
    columns: dict[str, Column]
    bridge: list[dict[str, Any]]  # one change at a time, one denominator
    bridge_n: int
    warnings: list[str] = field(default_factory=list)
    # The hard column again, per distractor kind: gold + only the distractors mined on that axis
    # (`appearance` = nearest look, not one axis away), over the items that have such distractors.
    by_kind: dict[str, dict[str, Any]] = field(default_factory=dict)

    # --- forms ---------------------------------------------------------------------------------

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "columns": {k: asdict(c) for k, c in self.columns.items()}}

    def numbers(self) -> dict[str, float | int | None]:
        """Flat numbers (for Dagster metadata and assertions)."""
        out: dict[str, float | int | None] = {
            "random_negatives_R": self.random_negatives,
            "median_pool": self.median_pool,
            "index_pages": self.index_pages,
        }
        for key, col in self.columns.items():
            out[f"{key}_n"] = col.n
            for m, v in col.metrics.items():
                out[f"{key}_{m.replace('@', '_at_')}"] = v
        for step in self.bridge:
            out[f"bridge_{step['key']}"] = step["value"]
        out["bridge_n"] = self.bridge_n
        for kind, row in self.by_kind.items():
            out[f"hard_{kind}_n"] = row["n"]
            out[f"hard_{kind}_sufficient_at_1"] = row["sufficient@1"]
        return out

    def markdown(self) -> str:
        c = self.columns
        rnd, hard, rnd_i, hard_i = c["random"], c["hard"], c["random_index"], c["hard_index"]
        lines = [
            f"**Headline** — retriever `{self.retriever}` ({self.retriever_description}); golden `{self.version_id}`",
            "",
            "| | random negatives | hard negatives |",
            "|---|---:|---:|",
            f"| questions | {rnd.questions} | {hard.questions} |",
            f"| candidates per question | {rnd.candidates} | {hard.candidates} |",
            f"| top-1 / sufficient@1 | {_f(rnd.metrics['top@1'])} | {_f(hard.metrics['sufficient@1'])} |",
            f"| top-5 / sufficient@5 | {_f(rnd.metrics['top@5'])} | {_f(hard.metrics['sufficient@5'])} |",
            f"| supporting-only@5 | — | {_f(hard.metrics['supporting_only@5'])} |",
            f"| **n (questions)** | **{rnd.n}** written | **{hard.n}** kept |",
            f"| whole index ({self.index_pages} pages): top-1 / sufficient@1 | {_f(rnd_i.metrics['top@1'])} | "
            f"{_f(hard_i.metrics['sufficient@1'])} |",
            f"| whole index: top-5 / sufficient@5 | {_f(rnd_i.metrics['top@5'])} | "
            f"{_f(hard_i.metrics['sufficient@5'])} |",
            f"| whole index: supporting-only@5 | — | {_f(hard_i.metrics['supporting_only@5'])} |",
            f"| whole index: judged@5 | — | {_f(hard_i.metrics['judged@5'])} |",
            "",
            f"The columns have different denominators ({rnd.n} questions before validation, {hard.n} after): "
            "read each down, do not subtract across. Funnel: "
            + ", ".join(f"{k} {v}" for k, v in self.funnel.items())
            + ".",
            "",
            f"One change at a time, same {self.bridge_n} kept questions:",
            "",
            "| step | changed | value |",
            "|---|---|---:|",
        ]
        lines += [f"| {s['label']} | {s['changed']} | {_f(s['value'])} |" for s in self.bridge]
        if self.by_kind:
            lines += [
                "",
                "Hard negatives by kind (gold + only that kind's distractors; `appearance` is not one axis away):",
                "",
                "| distractor kind | items | sufficient@1 | top-1 |",
                "|---|---:|---:|---:|",
            ]
            lines += [
                f"| {k} | {r['n']} | {_f(r['sufficient@1'])} | {_f(r['top@1'])} |"
                for k, r in self.by_kind.items()
            ]
        if self.warnings:
            lines += ["", "Warnings:", ""] + [f"- {w}" for w in self.warnings]
        return "\n".join(lines)


def _f(value: float | None) -> str:
    return (
        "—" if value is None or (isinstance(value, float) and math.isnan(value)) else f"{value:.3f}"
    )


# --- building blocks ---------------------------------------------------------------------------


def _item_rng(seed: int, item_id: str) -> np.random.Generator:
    digest = hashlib.sha256(f"headline:{seed}:{item_id}".encode()).digest()
    return np.random.default_rng(int.from_bytes(digest[:8], "big"))


def _codes(values: Sequence[str]) -> np.ndarray:
    lookup: dict[str, int] = {}
    return np.asarray([lookup.setdefault(v, len(lookup)) for v in values], dtype=np.int64)


class _RandomPools:
    """Per item: its gold row + R rows drawn (seeded by item id) from another template and document."""

    def __init__(self, index: CorpusIndex, templates: dict[str, str], seed: int, r: int):
        self.template = _codes([templates.get(p.unit_id, "") for p in index.pages])
        self.document = _codes([p.document_sha256 for p in index.pages])
        self.seed, self.r = seed, r
        self.short = 0  # items with fewer than R eligible pages

    def rows(self, item_id: str, gold_row: int) -> np.ndarray:
        eligible = np.flatnonzero(
            (self.template != self.template[gold_row]) & (self.document != self.document[gold_row])
        )
        take = min(self.r, len(eligible))
        if take < self.r:
            self.short += 1
        drawn = (
            _item_rng(self.seed, item_id).choice(eligible, size=take, replace=False)
            if take
            else eligible[:0]
        )
        return np.concatenate([[gold_row], np.sort(drawn)]).astype(np.int64)


def _encode_once(
    retriever: Retriever, pairs: Sequence[tuple[str, str]]
) -> Callable[[Sequence[str], Sequence[str]], np.ndarray]:
    """Embed each distinct (query id, text) once (a question as written is often the validated
    one too); returns encode(ids, texts) that slices the result."""
    unique = list(dict.fromkeys(pairs))
    where = {pair: n for n, pair in enumerate(unique)}
    vectors = retriever.encode([q for q, _ in unique], [t for _, t in unique]) if unique else None

    def encode(ids: Sequence[str], texts: Sequence[str]) -> np.ndarray:
        rows = [where[(q, t)] for q, t in zip(ids, texts, strict=False)]
        return (
            vectors[rows]
            if rows and vectors is not None
            else np.zeros((0, retriever.page_vectors.shape[1]), np.float32)
        )

    return encode


def _gold_qrels(item_ids: Sequence[str], golds: Sequence[str]) -> Any:
    """Single-gold qrels: the source page is the one correct answer (what top-1 scores)."""
    items = pa.table(
        {
            "item_id": pa.array(list(item_ids), pa.string()),
            "slice": pa.array(["main"] * len(item_ids)),
            "gold_unit_id": pa.array(list(golds), pa.string()),
        }
    )
    judgments = pa.table(
        {
            "item_id": items.column("item_id"),
            "unit_id": items.column("gold_unit_id"),
            "label": pa.array(["sufficient"] * len(item_ids)),
        }
    )
    return qrels_from_tables(items, judgments, version_id="single-gold")


def _pool_run(
    retriever: Retriever,
    query_vectors: np.ndarray,
    ids: Sequence[str],
    rows: Sequence[np.ndarray],
    index: CorpusIndex,
) -> Any:
    units = np.asarray(index.unit_ids, dtype=object)
    q, u, s = [], [], []
    for i, (item_id, r) in enumerate(zip(ids, rows, strict=False)):
        q += [item_id] * len(r)
        u += units[r].tolist()
        s.append(retriever.pair_scores(query_vectors, r, i).astype(np.float64))
    return run_from_columns(
        pa.array(q, pa.string()), pa.array(u, pa.string()), np.concatenate(s) if s else np.zeros(0)
    )


def _means(scores: QueryScores, keys: Sequence[str]) -> tuple[int, dict[str, float | None]]:
    mask = scores.eligible
    out: dict[str, float | None] = {}
    for key in keys:
        values = scores.values[key][mask]
        values = values[~np.isnan(values)]
        out[key] = float(values.mean()) if len(values) else None
    return int(mask.sum()), out


def _per_item(scores: QueryScores, key: str) -> dict[str, float]:
    return {
        i: float(v)
        for i, v, ok in zip(
            scores.item_ids.tolist(),
            scores.values[key].tolist(),
            scores.eligible.tolist(),
            strict=False,
        )
        if ok and not math.isnan(v)
    }


def _by_kind(
    retriever: Retriever,
    index: CorpusIndex,
    items: pa.Table,
    judgments: pa.Table,
    queries: tuple[list[str], np.ndarray],
    *,
    version_id: str,
) -> dict[str, dict[str, Any]]:
    """Per distractor kind: sufficient@1 and top-1 of the items that have such distractors,
    ranking the gold and those distractors only."""
    ids, vectors = queries
    row_of = {u: i for i, u in enumerate(index.unit_ids)}
    position = {item: n for n, item in enumerate(ids)}
    kinds = distractors_by_kind(judgments)
    golds: dict[str, set[str]] = {}
    for item, unit, role in zip(
        *(judgments.column(c).to_pylist() for c in ("item_id", "unit_id", "role")), strict=True
    ):
        if role == "gold":
            golds.setdefault(item, set()).add(unit)
    out: dict[str, dict[str, Any]] = {}
    for kind in sorted({k for per in kinds.values() for k in per}):
        chosen = [i for i in ids if kinds.get(i, {}).get(kind)]
        rows = [
            np.asarray(
                sorted(row_of[u] for u in golds.get(i, set()) | kinds[i][kind] if u in row_of),
                dtype=np.int64,
            )
            for i in chosen
        ]
        keep = pa.array(chosen, pa.string())
        qrels = qrels_from_tables(
            items.filter(pc.is_in(items.column("item_id"), keep)),
            judgments.filter(pc.is_in(judgments.column("item_id"), keep)),
            version_id=version_id,
        )
        run = _pool_run(retriever, vectors[[position[i] for i in chosen]], chosen, rows, index)
        n, m = _means(score_run(qrels, run, ks=KS), ["sufficient@1", "gold_recall@1"])
        out[kind] = {
            "n": n,
            "items": len(chosen),
            "one_axis": kind != FALLBACK_AXIS,
            "sufficient@1": m["sufficient@1"],
            "top@1": m["gold_recall@1"],
        }
    return out


def _load_working(paths: DataPaths) -> tuple[list[dict[str, Any]], dict[str, str], dict[str, Any]]:
    import json

    from evalset_pipeline.core.tables import read_rows

    questions = read_rows(paths.table("candidate_questions"), producer="candidate_questions")
    templates = {
        r["unit_id"]: r["template_id"]
        for r in read_rows(paths.table("template_groups"), producer="template_groups")
    }
    manifest_path = paths.table_file(MANIFEST)
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else {}
    return questions, templates, manifest


POOL_ROLES = ("gold", "distractor")


def pool_sizes(golden: GoldenSet) -> dict[str, int]:
    """Hard-pool units per main-slice item (the gold + its distractors), by item id."""
    main = set(
        pc.filter(
            golden.items.column("item_id"), pc.equal(golden.items.column("slice"), "main")
        ).to_pylist()
    )
    out: dict[str, set[str]] = {i: set() for i in main}
    for item, unit, label, role in zip(
        golden.judgments.column("item_id").to_pylist(),
        golden.judgments.column("unit_id").to_pylist(),
        golden.judgments.column("label").to_pylist(),
        golden.judgments.column("role").to_pylist(),
        strict=False,
    ):
        if item in out and label is not None and role in POOL_ROLES:
            out[item].add(unit)
    return {i: len(units) for i, units in out.items()}


def random_negative_count(sizes: dict[str, int]) -> tuple[int, float]:
    """R = median pool size (rounded half up) minus one: both columns then rank as many candidates."""
    if not sizes:
        raise ValueError(
            "the golden version has no main-slice items; there is no hard-negative column to set beside"
        )
    median = float(np.median(list(sizes.values())))
    return max(1, int(math.floor(median + 0.5)) - 1), median


# --- the report --------------------------------------------------------------------------------


_METRICS = {
    "random": ("top@1", "top@5"),
    "random_index": ("top@1", "top@5"),
    "hard": ("sufficient@1", "sufficient@5", "supporting_only@5", "top@1"),
    "hard_index": ("sufficient@1", "sufficient@5", "supporting_only@5", "judged@5"),
}


def _empty(
    golden: GoldenSet,
    retriever: Retriever,
    index: CorpusIndex,
    seed: int,
    written_rows: list[dict[str, Any]],
) -> Headline:
    """No main-slice item: no hard column, and R (its median pool size) is undefined. A report
    that says so, rather than a failure, since an empty main slice is a state of the set."""
    n_written = sum(1 for w in written_rows if w["written"])
    columns = {
        key: Column(key, "", "", 0, 0, 0.0, {m: None for m in metrics})
        for key, metrics in _METRICS.items()
    }
    return Headline(
        version_id=golden.version_id,
        retriever=retriever.name,
        retriever_description=retriever.description,
        seed=seed,
        random_negatives=0,
        median_pool=0.0,
        index_pages=len(index),
        funnel={"sampled": len(written_rows), "written": n_written, "kept": 0},
        columns=columns,
        bridge=[],
        bridge_n=0,
        warnings=[
            f"golden version {golden.version_id} has no main-slice items: there is no hard-negative column, and "
            "R (the median hard pool size minus one) is undefined, so neither column is computed"
        ],
    )


def compute_headline(
    paths: DataPaths,
    golden: GoldenSet,
    retriever: Retriever,
    index: CorpusIndex,
    *,
    seed: int = 13,
) -> Headline:
    """Both columns, the whole-index variants and the bridge, for one retriever (see module doc)."""
    warnings: list[str] = []
    written_rows, templates, manifest = _load_working(paths)
    row_of = {u: i for i, u in enumerate(index.unit_ids)}
    items = golden.items.to_pylist()
    main = [i for i in items if i["slice"] == "main"]
    sizes = pool_sizes(golden)
    if not sizes:
        return _empty(golden, retriever, index, seed, written_rows)
    r, median = random_negative_count(sizes)

    # Do the working tables (the naive column's source) belong to this golden version?
    if (
        manifest.get("fingerprint")
        and golden.info.get("corpus_fingerprint")
        and manifest["fingerprint"] != golden.info["corpus_fingerprint"]
    ):
        warnings.append(
            f"the working tables are from corpus {manifest['fingerprint'][:16]}, golden version {golden.version_id} "
            f"from {str(golden.info['corpus_fingerprint'])[:16]}: the columns describe different corpora"
        )
    by_id = {w["item_id"]: w for w in written_rows}
    foreign = [
        i["item_id"]
        for i in main
        if by_id.get(i["item_id"], {}).get("question") != i["original_question"]
    ]
    if foreign:
        warnings.append(
            f"{len(foreign)} of {len(main)} main items are not among the written questions of the working tables "
            f"as written (e.g. {foreign[0]}): candidate_questions is from another build than {golden.version_id}; "
            "rebuild, or read the random-negatives column as describing that build"
        )

    # Random negatives: every written question, as written.
    written = [w for w in written_rows if w["written"]]
    missing_gold = [w for w in written if w["gold_unit_id"] not in row_of]
    if missing_gold:
        warnings.append(
            f"{len(missing_gold)} written question(s) have a source page that is not in the index and are left out"
        )
    written = [w for w in written if w["gold_unit_id"] in row_of]
    w_ids = [w["item_id"] for w in written]
    kept = [i for i in main if i["gold_unit_id"] in row_of]
    encode = _encode_once(
        retriever,
        [(w["item_id"], w["question"]) for w in written]
        + [(i["item_id"], i["question"]) for i in main]
        + [(i["item_id"], i["original_question"] or i["question"]) for i in kept],
    )
    w_vectors = encode(w_ids, [w["question"] for w in written])
    pools = _RandomPools(index, templates, seed, r)
    w_rows = [pools.rows(w["item_id"], row_of[w["gold_unit_id"]]) for w in written]
    gold_qrels = _gold_qrels(w_ids, [w["gold_unit_id"] for w in written])
    top_keys = [f"gold_recall@{k}" for k in KS]
    s_random = score_run(gold_qrels, _pool_run(retriever, w_vectors, w_ids, w_rows, index), ks=KS)
    n_random, m_random = _means(s_random, top_keys)
    s_random_index = score_run(
        gold_qrels,
        retrieve(retriever, index, w_ids, [], INDEX_DEPTH, query_vectors=w_vectors),
        ks=KS,
    )
    n_random_index, m_random_index = _means(s_random_index, top_keys)
    if pools.short:
        warnings.append(
            f"{pools.short} question(s) had fewer than {r} pages of another template and document to draw from"
        )

    # Hard negatives: the main slice as validated, against its judged pool.
    main_ids = [i["item_id"] for i in main]
    main_items = golden.items.filter(
        pc.is_in(golden.items.column("item_id"), pa.array(main_ids, pa.string()))
    )
    main_judgments = golden.judgments.filter(
        pc.is_in(golden.judgments.column("item_id"), pa.array(main_ids, pa.string()))
    )
    hard_qrels = qrels_from_tables(main_items, main_judgments, version_id=golden.version_id)
    pool_units: dict[str, list[str]] = {i: [] for i in main_ids}
    for item, unit, role in zip(
        main_judgments.column("item_id").to_pylist(),
        main_judgments.column("unit_id").to_pylist(),
        main_judgments.column("role").to_pylist(),
        strict=False,
    ):
        if role in POOL_ROLES:
            pool_units[item].append(unit)
    unranked = sum(1 for units in pool_units.values() for u in units if u not in row_of)
    if unranked:
        warnings.append(
            f"{unranked} judged unit(s) are not in the index (not rendered now) and cannot be ranked"
        )
    h_rows = [
        np.asarray(sorted(row_of[u] for u in set(pool_units[i]) if u in row_of), dtype=np.int64)
        for i in main_ids
    ]
    h_vectors = encode(main_ids, [i["question"] for i in main])
    hard_keys = ["sufficient@1", "sufficient@5", "supporting_only@5", "gold_recall@1"]
    s_hard = score_run(hard_qrels, _pool_run(retriever, h_vectors, main_ids, h_rows, index), ks=KS)
    n_hard, m_hard = _means(s_hard, hard_keys)
    s_hard_index = score_run(
        hard_qrels,
        retrieve(retriever, index, main_ids, [], INDEX_DEPTH, query_vectors=h_vectors),
        ks=KS,
    )
    n_hard_index, m_hard_index = _means(s_hard_index, hard_keys[:3] + ["judged@5"])
    excluded = len(main_ids) - n_hard
    if excluded:
        warnings.append(
            f"{excluded} main item(s) have no unit labelled sufficient and are excluded (conventions: zero_relevant)"
        )

    by_kind = _by_kind(
        retriever,
        index,
        main_items,
        main_judgments,
        (main_ids, h_vectors),
        version_id=golden.version_id,
    )

    # The bridge: kept items only, one change at a time, one denominator.
    k_ids = [i["item_id"] for i in kept]
    k_rows = [
        pools.rows(i["item_id"], row_of[i["gold_unit_id"]]) for i in kept
    ]  # the same draws as above
    k_qrels = _gold_qrels(k_ids, [i["gold_unit_id"] for i in kept])
    as_written = encode(k_ids, [i["original_question"] or i["question"] for i in kept])
    position = {item: n for n, item in enumerate(main_ids)}
    validated = h_vectors[[position[i] for i in k_ids]] if k_ids else h_vectors[:0]
    b1 = _per_item(
        score_run(k_qrels, _pool_run(retriever, as_written, k_ids, k_rows, index), ks=KS),
        "gold_recall@1",
    )
    b2 = _per_item(
        score_run(k_qrels, _pool_run(retriever, validated, k_ids, k_rows, index), ks=KS),
        "gold_recall@1",
    )
    b3 = _per_item(s_hard, "gold_recall@1")
    b4 = _per_item(s_hard, "sufficient@1")
    common = [i for i in k_ids if i in b1 and i in b2 and i in b3 and i in b4]

    def mean(values: dict[str, float]) -> float | None:
        return float(np.mean([values[i] for i in common])) if common else None

    bridge = [
        {
            "key": "as_written_random_top1",
            "label": "as written, random negatives: top-1",
            "changed": "—",
            "value": mean(b1),
        },
        {
            "key": "validated_random_top1",
            "label": "validated question, same random negatives: top-1",
            "changed": "the question",
            "value": mean(b2),
        },
        {
            "key": "validated_hard_top1",
            "label": "validated question, hard pool: top-1 (source page first)",
            "changed": "the negatives",
            "value": mean(b3),
        },
        {
            "key": "validated_hard_sufficient1",
            "label": "validated question, hard pool: sufficient@1",
            "changed": "the label",
            "value": mean(b4),
        },
    ]

    qsz = [len(x) for x in h_rows]
    columns = {
        "random": Column(
            "random",
            "as written, before validation",
            f"gold + {r} random pages (other template and document)",
            n_random,
            len(written_rows),
            float(np.median([len(x) for x in w_rows])) if w_rows else 0.0,
            {"top@1": m_random["gold_recall@1"], "top@5": m_random["gold_recall@5"]},
        ),
        "random_index": Column(
            "random_index",
            "as written, before validation",
            f"all {len(index)} pages",
            n_random_index,
            len(written_rows),
            float(len(index)),
            {"top@1": m_random_index["gold_recall@1"], "top@5": m_random_index["gold_recall@5"]},
        ),
        "hard": Column(
            "hard",
            "validated, main slice",
            f"hard pool: gold + distractors (median {median:g})",
            n_hard,
            len(main_ids),
            float(np.median(qsz)) if qsz else 0.0,
            {
                "sufficient@1": m_hard["sufficient@1"],
                "sufficient@5": m_hard["sufficient@5"],
                "supporting_only@5": m_hard["supporting_only@5"],
                "top@1": m_hard["gold_recall@1"],
            },
        ),
        "hard_index": Column(
            "hard_index",
            "validated, main slice",
            f"all {len(index)} pages (unjudged = irrelevant)",
            n_hard_index,
            len(main_ids),
            float(len(index)),
            {
                "sufficient@1": m_hard_index["sufficient@1"],
                "sufficient@5": m_hard_index["sufficient@5"],
                "supporting_only@5": m_hard_index["supporting_only@5"],
                "judged@5": m_hard_index["judged@5"],
            },
        ),
    }
    funnel = {
        "sampled": len(written_rows),
        "written": len([w for w in written_rows if w["written"]]),
        "kept": len(main_ids),
    }
    return Headline(
        version_id=golden.version_id,
        retriever=retriever.name,
        retriever_description=retriever.description,
        seed=seed,
        random_negatives=r,
        median_pool=median,
        index_pages=len(index),
        funnel=funnel,
        columns=columns,
        bridge=bridge,
        bridge_n=len(common),
        warnings=warnings,
        by_kind=by_kind,
    )


def headline(
    paths: DataPaths,
    golden: GoldenSet,
    retriever_kind: str = "text",
    *,
    seed: int = 13,
    index: CorpusIndex | None = None,
) -> Headline:
    """`compute_headline` for a built-in retriever (`text`, `appearance`, `random`)."""
    from evalset_pipeline.core.scoring.baselines import load_corpus_index, make_retriever

    index = index or load_corpus_index(paths)
    return compute_headline(
        paths, golden, make_retriever(retriever_kind, paths, index, seed=seed), index, seed=seed
    )


def headline_for_version(
    paths: DataPaths,
    version: str = "latest",
    *,
    seed: int = 13,
    page_embedder: str = "appearance",
    retrievers: Sequence[str] | None = None,
) -> tuple[str, list[Headline]]:
    """The headline of one golden version for each retriever (what the `baseline_scores` asset shows).

    By default: `bm25`, plus `appearance` when the page embeddings were made by a model with a
    text side (never over the offline appearance vectors; see baselines.py). `text` (MiniLM,
    dense) on request: it embeds every page's text layer on a cold build.
    """
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.index.embeddings import APPEARANCE
    from evalset_pipeline.core.scoring.baselines import (
        DEFAULT_RETRIEVER,
        appearance_available,
        load_corpus_index,
        make_retriever,
    )

    golden = load_golden_set(version, paths.root)
    index = load_corpus_index(paths)
    if retrievers is None:
        retrievers = [DEFAULT_RETRIEVER] + (
            ["appearance"] if page_embedder != APPEARANCE and appearance_available(paths) else []
        )
    reports = [
        compute_headline(
            paths, golden, make_retriever(k, paths, index, seed=seed), index, seed=seed
        )
        for k in retrievers
    ]
    return golden.version_id, reports

"""The dataset card (README.md) written into every export.

It states what a number computed on the export means — version, corpus, funnel, relevance
policy, conventions — and the exact way to score with each tool so that the tool's number and
`evalset score`'s agree. Someone who only has the folder must be able to score it right.
"""

from __future__ import annotations

import json
from typing import Any

from evalset_pipeline.core.exports.data import ExportData
from evalset_pipeline.core.negatives.lookalikes import golden_lookalikes
from evalset_pipeline.core.scoring.conventions import KS, conventions

_CUTS = ",".join(str(k) for k in KS)


def _policy_text(data: ExportData) -> str:
    if not data.policy.graded:
        return (
            "**binary** (default): a qrels row with score 1 = the unit is labelled *sufficient* (a reader can "
            "derive the answer from that page alone). Supporting and irrelevant units have no row. Every tool "
            "counts score >= 1 as relevant, so every tool's default reads it the way `evalset score` does.\n\n"
            "- Recall@k, MRR@k and nDCG@k from any tool = plain `evalset score` (relevant = sufficient, "
            "binary gain: its defaults).\n"
            "- Graded nDCG (sufficient 2, supporting 1) is the option on both sides: `evalset score --gain "
            "graded`, and an export written with `--gain graded` scored at relevance level 2."
        )
    return (
        "**graded** (`--gain graded`): score 2 = *sufficient*, 1 = *supporting* (on-subject, does not answer), "
        "irrelevant units have no row.\n\n"
        "> **Warning.** BEIR, pytrec_eval, trec_eval, ranx and MTEB count every score >= 1 as relevant unless "
        "told otherwise, so by default they count *supporting* pages — the look-alike distractors — as hits, "
        "and report higher Recall/MRR than `evalset score`. Tell them the level: `trec_eval -l 2`, "
        "`pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level=2)`. A tool without that option "
        "(BEIR's `EvaluateRetrieval`, ranx, MTEB, vidore-benchmark) computes "
        "`evalset score --relevance supporting`.\n\n"
        "- nDCG@k uses the grades as gains in every tool = `evalset score --gain graded`.\n"
        "- Recall@k, MRR@k at relevance level 2 = plain `evalset score`; "
        "at level 1 = `evalset score --relevance supporting`."
    )


def _tool_sections(data: ExportData, fmt: str) -> list[str]:
    v, split = (
        data.golden.version_id,
        data.split("main") if "main" in data.slices else data.split(data.slices[0]),
    )
    splits = ", ".join(f"`{data.split(s)}`" for s in data.slices)
    level = data.policy.tool_relevance_level
    if data.policy.graded:
        reference = [
            f"evalset score RUN --golden {v} --gain graded                         # = tools at level 2",
            f"evalset score RUN --golden {v} --gain graded --relevance supporting  # = tools at level 1",
        ]
    else:
        reference = [
            f"evalset score RUN --golden {v}                 # = every tool's default on this export",
            f"evalset score RUN --golden {v} --gain graded   # same Recall/MRR; nDCG sufficient 2, supporting 1",
        ]
    out = [
        "### evalset score (the reference)",
        "",
        "A run keyed by the exported ids (query id = item id, corpus id = unit id) is read as it is:",
        "",
        "```",
        *reference,
        "```",
        "",
    ]
    if fmt in ("beir", "jsonl"):
        out += [
            "### BEIR",
            "",
            "```python",
            "from beir.datasets.data_loader import GenericDataLoader",
            "from beir.retrieval.evaluation import EvaluateRetrieval",
            f'corpus, queries, qrels = GenericDataLoader("DIR").load(split="{split}")   # splits: {splits}',
            "results = {query_id: {unit_id: score, ...}, ...}   # your retriever, every query, no tied scores",
            f"ndcg, _map, recall, precision = EvaluateRetrieval.evaluate(qrels, results, [{_CUTS.replace(',', ', ')}])",
            f'mrr = EvaluateRetrieval.evaluate_custom(qrels, results, [{_CUTS.replace(",", ", ")}], metric="mrr")',
            "```",
            "",
            "### pytrec_eval / trec_eval",
            "",
            "```python",
            "import pytrec_eval",
            f'measures = {{"recall.{_CUTS}", "ndcg_cut.{_CUTS}", "recip_rank"}}',
            f"evaluator = pytrec_eval.RelevanceEvaluator(qrels, measures, relevance_level={level})",
            "per_query = evaluator.evaluate(results)",
            "```",
            "",
            "```",
            f"tail -n +2 qrels/{split}.tsv | awk '{{print $1, 0, $2, $3}}' > {split}.qrels",
            f"trec_eval -l {level} -m recall.{_CUTS} -m ndcg_cut.{_CUTS} -m recip_rank {split}.qrels RUN.trec",
            "```",
            "",
            "`recip_rank` is MRR without a cutoff; MRR@k = it when the first relevant unit is within k, else 0.",
            "",
            "### ranx",
            "",
            "```python",
            "from ranx import Qrels, Run, evaluate",
            'evaluate(Qrels(qrels), Run(results), ["recall@10", "ndcg@10", "mrr@10"])',
            "```",
            "",
            "ranx counts every score >= 1 as relevant: with the default (binary) export that is plain "
            "`evalset score`. (Documented, not checked by this project's tests.)",
            "",
        ]
    if fmt == "mteb":
        out += [
            "### MTEB (v2)",
            "",
            "```python",
            "from mteb.abstasks.retrieval_dataset_loaders import RetrievalDatasetLoader",
            f'split = RetrievalDatasetLoader(hf_repo="DIR", revision="main", split="{split}").load()'
            f"   # splits: {splits}",
            'split["corpus"]          # id, text, image',
            'split["queries"]         # id, text',
            'split["relevant_docs"]   # {query-id: {corpus-id: score}}',
            "```",
            "",
            'A task class (`AbsTaskRetrieval` with `TaskMetadata(dataset={"path": DIR, "revision": "main"}, '
            f"eval_splits=[{splits.replace('`', chr(34))}], ...)`) loads the same way through `task.load_data()`. "
            "MTEB counts every score >= 1 as relevant and rounds means to 5 decimals.",
            "",
        ]
    if fmt == "vidore":
        out += [
            "### vidore-benchmark (5.0.0)",
            "",
            "```python",
            "from datasets import load_dataset",
            "from vidore_benchmark.evaluation.vidore_evaluators import ViDoReEvaluatorBEIR",
            f'ds = {{c: load_dataset("DIR", c, split="{split}") for c in ("corpus", "queries", "qrels")}}',
            "metrics = ViDoReEvaluatorBEIR(retriever).evaluate_dataset(ds, batch_query=8, batch_passage=8)",
            "```",
            "",
            "```",
            "vidore-benchmark evaluate-retriever --model-class MODEL --dataset-name DIR "
            f"--dataset-format beir --split {split}",
            "```",
            "",
            "Image retrievers (`use_visual_embedding=True`) read `image`, text retrievers read `text_description` "
            "(the page's text layer). vidore-benchmark counts every score >= 1 as relevant.",
            "",
        ]
    return out


def _lookalike_section(data: ExportData) -> list[str]:
    """How many main items have a distractor that is the gold one axis away, per axis."""
    shares = golden_lookalikes(data.golden.items, data.golden.judgments)
    n = shares["items"]
    lines = [
        "## Distractors",
        "",
        "A hard negative counts when it looks like the gold page and differs on exactly one axis (the "
        "same table for another period or filer, another table of the filing). `appearance` neighbours "
        "only fill a slot where no such page exists and are not counted as one-axis.",
        "",
        "| distractor kind | main items with at least one | share |",
        "|---|---:|---:|",
        f"| any one-axis | {shares['one_axis_items']} of {n} | {_share(shares['one_axis_share'])} |",
    ]
    lines += [
        f"| {kind} | {c['items']} of {n} | {_share(c['share'])} |"
        for kind, c in shares["by_kind"].items()
    ]
    return [*lines, ""]


def _share(value: float | None) -> str:
    return "—" if value is None else f"{value:.1%}"


def dataset_card(data: ExportData, fmt: str, header: str = "") -> str:
    info: dict[str, Any] = data.golden.info
    counts = data.counts()
    scope = (
        "every page of the build (the pages `evalset score` and the baselines rank over)"
        if data.scope == "build"
        else "only the pages a judgment or gold refers to (`--referenced-only`): fewer distractors than "
        "`evalset score` ranks, so tools report higher numbers than a whole-corpus run"
    )
    lines = [
        header.rstrip("\n"),
        f"# Golden set {data.golden.version_id} ({fmt} export)",
        "",
        "Exported by evalset_pipeline. `golden_set.json` holds the version's full record.",
        "",
        "| field | value |",
        "|---|---|",
        f"| version id | `{data.golden.version_id}` |",
        f"| created | {info.get('created_at')} |",
        f"| corpus fingerprint | `{info.get('corpus_fingerprint')}` |",
        f"| config fingerprint | `{info.get('config_fingerprint')}` |",
        f"| corpus | {counts['corpus']} pages: {scope}; {counts['corpus_referenced']} referenced by a judgment |",
        f"| relevance policy | {data.policy.name} |",
        "",
        "## Splits",
        "",
        "| slice | split | items | queries | left out (nothing relevant) | qrels rows |",
        "|---|---|---:|---:|---:|---:|",
    ]
    for s, c in counts["slices"].items():
        lines.append(
            f"| {s} | `{c['split']}` | {c['items']} | {c['queries']} | {c['left_out_no_relevant']} | {c['qrels']} |"
        )
    conv = conventions()
    lines += [
        "",
        "## Relevance policy",
        "",
        _policy_text(data),
        "",
        "## Conventions",
        "",
        "- **Ids** are the golden set's own: query id = `item_id`, corpus id = `unit_id` (as in `golden_items` /"
        " `golden_units`, and as `evalset score` reads runs). No prefixes.",
        "- **Splits**: one per slice; the main slice is `test`. Slices are scored separately, never pooled.",
        "- **Queries** are the items with at least one relevant unit under the policy; the others are left out"
        " (counted above), as `evalset score` excludes them from every metric (zero-relevant policy).",
        "- **Unjudged pages** count as irrelevant in every tool and in `evalset score`.",
        "- **Ties**: " + conv["tie_break"] + ". Break ties in the run to get identical numbers.",
        "- **Missing queries**: "
        + conv["missing_queries"]
        + ". pytrec_eval and BEIR's nDCG/Recall average only"
        " the queries present in the run; return results for every query.",
        "- **Depth**: " + conv["depth"] + ".",
        "- **Rounding**: BEIR, MTEB and vidore-benchmark round means to 5 decimals.",
        "",
        "## How to score",
        "",
        *_tool_sections(data, fmt),
        *_lookalike_section(data),
        "## Funnel",
        "",
        "```json",
        json.dumps(info.get("funnel") or {}, indent=2, ensure_ascii=False, default=str),
        "```",
        "",
    ]
    return "\n".join(lines).lstrip("\n")

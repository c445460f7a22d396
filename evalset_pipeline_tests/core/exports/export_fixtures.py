"""A published golden set with every case an export must get right, plus the build's page tables.

12 items over 16 referenced pages, in all three slices; the build has 20 pages (4 never judged).
Labels mix sufficient (1 or 2 per item), supporting and irrelevant distractors and a pooled
unit; `it-0011` has no sufficient unit (the zero-relevant case). Runs are seeded permutations
of all 20 pages with distinct scores, so no tie-break convention can change a number.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.scoring.runs import Run, run_from_columns
from evalset_pipeline_tests.core.golden.golden_synth import make_draft, write_units

N_BUILD_PAGES = 20
N_REFERENCED = 16
CORPUS_FP = "corpus-fp-1"  # make_draft's manifest


def _item(item_id: str, slice_name: str, gold: str, n: int) -> dict:
    q = f"What was Acme revenue in FY24 Q{n % 4 + 1} (report {n})?"
    return {
        "item_id": item_id,
        "slice": slice_name,
        "question": q,
        "answer": f"{100 + n} MUSD",
        "gold_unit_id": gold,
        "original_question": q,
        "language": "en",
        "qualified_axes": "",
    }


def _judgment(item_id: str, unit_id: str, role: str, label: str) -> dict:
    return {
        "item_id": item_id,
        "unit_id": unit_id,
        "role": role,
        "axis": "" if role == "pooled" else "period",
        "label": label,
        "rationale": "r",
        "label_source": "model",
    }


def write_page_tables(
    data_dir: Path, n_pages: int = N_BUILD_PAGES, fingerprint: str = CORPUS_FP
) -> list[dict]:
    """What a build leaves in artifacts/tables: page_renders, page_metadata, the corpus manifest."""
    units = write_units(data_dir, n_pages)
    paths = DataPaths(data_dir)
    paths.tables.mkdir(parents=True, exist_ok=True)
    render_cols = (
        "unit_id",
        "document_sha256",
        "document_path",
        "page_number",
        "render_path",
        "text_path",
        "render_hash",
    )
    renders = [{**{k: u[k] for k in render_cols}, "thumb_path": u["render_path"]} for u in units]
    pq.write_table(pa.Table.from_pylist(renders), paths.table("page_renders"))
    meta_cols = ("unit_id", "template_id", "entity", "metric", "period", "revision", "language")
    pq.write_table(
        pa.Table.from_pylist([{k: u[k] for k in meta_cols} for u in units]),
        paths.table("page_metadata"),
    )
    manifest = {"fingerprint": fingerprint, "pages": n_pages, "documents": (n_pages + 3) // 4}
    (paths.tables / "corpus_manifest.json").write_text(json.dumps(manifest))
    return units


def publish_export_case(data_dir: Path) -> GoldenSet:
    units = write_page_tables(data_dir)
    ids = [u["unit_id"] for u in units[:N_REFERENCED]]
    items, judgments = [], []
    for n in range(12):
        slice_name = "underspecified" if n in (9, 10) else "main"
        item_id = f"it-{n:04d}"
        if n == 8:
            slice_name, item_id = "regression", "r-0008"
        gold = ids[n]
        items.append(_item(item_id, slice_name, gold, n))
        gold_label = "supporting" if n == 11 else "sufficient"  # it-0011: nothing sufficient
        judgments.append(_judgment(item_id, gold, "gold", gold_label))
        second = "sufficient" if slice_name == "underspecified" or n % 4 == 0 else "supporting"
        for k, label in ((1, "supporting"), (2, "irrelevant"), (3, second)):
            judgments.append(_judgment(item_id, ids[(n + k) % N_REFERENCED], "distractor", label))
        if n % 3 == 0 or n == 11:
            judgments.append(
                _judgment(item_id, ids[(n + 4) % N_REFERENCED], "pooled", "irrelevant")
            )
    referenced = {j["unit_id"] for j in judgments}
    assert len(referenced) == N_REFERENCED
    draft = make_draft(
        data_dir,
        items=pa.Table.from_pylist(items),
        judgments=pa.Table.from_pylist(judgments),
        units=pa.Table.from_pylist([u for u in units if u["unit_id"] in referenced]),
    )
    publish_golden_set(DataPaths(data_dir), draft)
    return load_golden_set(data_dir=data_dir)


def permutation_run(query_ids: list[str], unit_ids: list[str], seed: int) -> Run:
    """Every query ranks every page, in a seeded order, with distinct scores (no ties anywhere)."""
    rng = np.random.default_rng(seed)
    q, u, s = [], [], []
    for query in query_ids:
        order = rng.permutation(len(unit_ids))
        for rank, idx in enumerate(order):
            q.append(query)
            u.append(unit_ids[idx])
            s.append(float(len(unit_ids) - rank) + 0.001 * rng.random())
    return run_from_columns(q, u, s, source=f"permutation-{seed}")


def as_results(run: Run, queries: set[str] | None = None) -> dict[str, dict[str, float]]:
    """The run as BEIR / pytrec_eval / MTEB take it: {query id: {corpus id: score}}."""
    out: dict[str, dict[str, float]] = {}
    for q, u, s in zip(
        run.query_ids.to_pylist(), run.unit_ids.to_pylist(), run.scores.tolist(), strict=False
    ):
        if queries is None or q in queries:
            out.setdefault(q, {})[u] = s
    return out

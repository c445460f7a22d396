"""Export a golden-set version for external evaluation harnesses: beir, mteb, vidore, jsonl.

Every export holds the same facts, so every tool scores it the same way:
  * ids as stored (query id = item_id, corpus id = unit_id), the ones `evalset score` reads;
  * relevance: binary by default (relevant = sufficient, as `evalset score`), `graded` on request;
  * the whole corpus of the build by default (`referenced_only` for judged pages only);
  * one split per slice; a dataset card (README.md) with the conventions and the commands.
"""

from __future__ import annotations

import importlib
from pathlib import Path
from typing import Any

from evalset_pipeline.core.exports._common import (
    ExportError,
    data_dir_of,
    load_units,
    prepare_out_dir,
    write_version_info,
)
from evalset_pipeline.core.exports.card import dataset_card
from evalset_pipeline.core.exports.corpus import corpus_rows
from evalset_pipeline.core.exports.data import ExportData
from evalset_pipeline.core.exports.relevance import RelevancePolicy, export_qrels
from evalset_pipeline.core.golden.model import GoldenSet

FORMATS = ("beir", "mteb", "vidore", "jsonl")

__all__ = ["FORMATS", "ExportError", "RelevancePolicy", "export_golden_set"]


def export_golden_set(
    golden: GoldenSet,
    fmt: str,
    out_dir: str | Path,
    *,
    data_dir: str | Path | None = None,
    overwrite: bool = False,
    graded: bool = False,
    referenced_only: bool = False,
) -> dict[str, Any]:
    """Write `golden` in format `fmt` under `out_dir`; returns what was written (counts per slice).

    `data_dir` (where the build's tables live and units' render/text paths are rooted) defaults to
    the snapshot's data dir. Everything is checked before the first file is written.
    """
    if fmt not in FORMATS:
        raise ExportError(f"unknown export format {fmt!r}; choose one of {', '.join(FORMATS)}")
    out = Path(out_dir)
    root = Path(data_dir) if data_dir is not None else data_dir_of(golden)
    corpus = corpus_rows(golden, root, referenced_only=referenced_only)
    policy = RelevancePolicy(graded=graded)
    data = ExportData(
        golden=golden,
        units=load_units(corpus.rows, root),
        qrels=export_qrels(golden, policy),
        policy=policy,
        scope=corpus.scope,
        n_referenced=corpus.n_referenced,
    )
    prepare_out_dir(out, overwrite)
    written = importlib.import_module(f"{__name__}.{fmt}").export(data, out)
    (out / "README.md").write_text(
        dataset_card(data, fmt, written.pop("card_header", "")), encoding="utf-8"
    )
    summary = {
        "format": fmt,
        "relevance": policy.name,
        "corpus_scope": corpus.scope,
        **data.counts(),
    }
    write_version_info(golden, out, summary)
    return {**summary, "version_id": golden.version_id, "out": str(out)}

"""A stage whose inputs are what they were at its last run does not run again.

[perf, benchmarks/rebuild.py, benchmarks/coldbuild.py] Dagster runs every step of a scheduled
refresh; most stages then find their work done piece by piece (renders and embeddings by content
key, model calls in the call cache). `page_metadata` has no such pieces: it re-read every text
layer of the corpus on every build, 52 s of a 5,103-page no-change rebuild.

The key is everything a stage's output can depend on: the content hash of each table it reads
(`graph.READS`; the page table carries each text layer's hash), any extra input file (the
corpus sidecar), the stage's code version (its import closure) and the build knobs. A hit needs
the stage's outputs to be exactly the files the last run wrote (their hashes are recorded), so
a deleted or edited output runs the stage again. The record is written after the outputs, so a
crash in between costs a re-run, never a stale hit.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from evalset_pipeline.core.atomic import write_text_atomic
from evalset_pipeline.core.hashing import canonical_json, sha256_file, sha256_text
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.pipeline import graph
from evalset_pipeline.core.pipeline.result import StageResult

__all__ = ["memoized", "memo_path"]


def memo_path(paths: DataPaths, stage: str) -> Path:
    return paths.artifacts / "memo" / f"{stage}.json"


def _hash(path: Path) -> str:
    return sha256_file(path) if path.exists() else "missing"


def _key(paths: DataPaths, stage: str, knobs: dict[str, Any], extra_files: Iterable[Path]) -> str:
    reads = {
        name: _hash(paths.table(name)) for name in graph.READS[stage] if name not in graph.EXTERNAL
    }
    extra = {str(p): _hash(p) for p in extra_files}
    return sha256_text(
        canonical_json(
            {"reads": reads, "extra": extra, "code": graph.code_version(stage), "knobs": knobs}
        )
    )[:32]


def _outputs(paths: DataPaths, stage: str) -> dict[str, str]:
    return {name: _hash(paths.table(name)) for name in sorted(graph.writes(stage))}


def memoized(
    paths: DataPaths,
    stage: str,
    run: Callable[[], StageResult],
    *,
    knobs: dict[str, Any],
    extra_files: Iterable[Path] = (),
) -> tuple[StageResult, bool]:
    """(the stage's result, whether it was reused): `run()` only when an input, the code, the
    knobs or an output differs from the last run's."""
    extra = tuple(extra_files)
    key = _key(paths, stage, knobs, extra)
    path = memo_path(paths, stage)
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
        if record["key"] == key and record["outputs"] == _outputs(paths, stage):
            saved = record["result"]
            tuples = {k: tuple(saved[k]) for k in ("tables", "files")}  # JSON made them lists
            return StageResult(**{**saved, **tuples}), True
    except (OSError, ValueError, KeyError, TypeError):
        pass  # no record, or one from another version of this code: run
    result = run()
    record = {"key": key, "outputs": _outputs(paths, stage), "result": asdict(result)}
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(path, json.dumps(record, default=str))
    return result, False

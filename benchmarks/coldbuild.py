"""A cold build of a real corpus, end to end, and what a first run prints.

    python -m benchmarks coldbuild [--corpus DIR]     (default ../shared/realdocs/financebench-dev)

One cold build on a fresh data dir, as `evalset build` runs it (textlayer backend, appearance
embedder, default settings, in process). Reported: pages, wall seconds, pages/s end to end
(goal >= 20), seconds per step and baseline_scores' share of the wall time (goal <= 0.15). Then
one no-change rebuild on the same data dir (a scheduled refresh of an unchanged corpus): its
wall time against the cold build's (goal <= 0.10) and the work it redid (goal: none).

Also: the lines `evalset build` prints on the sample corpus when its output is not a terminal
(a child process, stdout and stderr piped; goal <= 40), on a fresh data dir.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from benchmarks._util import bench_root, materialize_build, quick

DEFAULT_CORPUS = (
    Path(__file__).resolve().parents[1].parent / "shared" / "realdocs" / "financebench-dev"
)


def printed_lines(corpus: Path | None = None) -> int:
    from evalset_pipeline.core.paths import default_corpus_dir

    data_dir = Path(tempfile.mkdtemp(prefix="coldbuild-cli-", dir=bench_root()))
    exe = Path(sys.executable).with_name("evalset")
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    try:
        done = subprocess.run(
            [
                str(exe),
                "build",
                "--data-dir",
                str(data_dir),
                "--corpus",
                str(corpus or default_corpus_dir()),
            ],
            capture_output=True,
            text=True,
            env=env,
            check=True,
        )
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    return len((done.stdout + done.stderr).splitlines())


def run(corpus: str | Path | None = None) -> dict[str, Any]:
    import logging

    logging.getLogger("dagster").setLevel(logging.WARNING)
    from evalset_pipeline.core.paths import default_corpus_dir

    given = corpus is not None
    corpus = Path(corpus or os.environ.get("EVALSET_COLDBUILD_CORPUS") or DEFAULT_CORPUS).resolve()
    if not given and (quick() or not corpus.is_dir()):
        corpus = Path(default_corpus_dir()).resolve()
    data_dir = Path(tempfile.mkdtemp(prefix="coldbuild-", dir=bench_root()))
    try:
        cold = materialize_build(data_dir, corpus)
        # The scheduled refresh of an unchanged corpus: the same build again on the same data dir.
        rebuild = materialize_build(data_dir, corpus)
    finally:
        shutil.rmtree(data_dir, ignore_errors=True)
    baseline = cold["steps_s"].get("baseline_scores", 0.0)
    return {
        "name": "coldbuild",
        "corpus": corpus.name,
        "pages": cold["pages"],
        "wall_s": round(cold["wall_s"], 2),
        "pages_per_s": round(cold["pages"] / cold["wall_s"], 2),
        "pages_per_s_goal": 20,
        "baseline_scores_s": round(baseline, 2),
        "baseline_share": round(baseline / cold["wall_s"], 3),
        "baseline_share_goal": 0.15,
        "ratio": round(baseline / cold["wall_s"], 3),
        "steps_s": {k: round(v, 2) for k, v in cold["steps_s"].items()},
        "rebuild_s": round(rebuild["wall_s"], 2),
        "rebuild_ratio": round(rebuild["wall_s"] / cold["wall_s"], 3),
        "rebuild_ratio_goal": 0.10,
        "rebuild_work": {k: rebuild[k] for k in ("rendered", "embedded", "model_calls")},
        "rebuild_steps_s": {k: round(v, 2) for k, v in rebuild["steps_s"].items()},
        "printed_lines_sample": printed_lines(corpus if quick() else None),
        "printed_lines_goal": 40,
        "timing": "one cold build on a fresh data dir, in process, textlayer + appearance, default settings",
    }

"""A no-change rebuild of the sample corpus against its cold build.

Both are `dg.materialize(all_assets, resources=...)` in this process, as `evalset build` runs
them (textlayer backend, appearance embedder, default settings, data/sample_corpus). Per round:
a cold build on a fresh data dir, then REBUILDS no-change rebuilds on it. Goals: the rebuild
renders nothing, embeds nothing, calls no model, publishes no new version, and its wall time is
at most 10% of the cold build's (ratio = rebuild / cold, goal <= 0.10).

Also reported: seconds per asset (from the run's STEP_SUCCESS events) for the best cold and the
best rebuild, and the rest of the wall time (Dagster's own run/step overhead). With --subprocess
(or EVALSET_BENCH_SUBPROCESS=1) one more pair is timed as `evalset build --json` child
processes, interpreter and import start-up included.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._util import bench_root, materialize_build, quick, summary

ROUNDS = 2  # cold builds
REBUILDS = 3  # no-change rebuilds after each cold build


def _quiet_dagster() -> None:
    import logging

    logging.getLogger("dagster").setLevel(logging.WARNING)


def _cli_build(data_dir: Path, corpus: Path) -> float:
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    exe = Path(sys.executable).with_name("evalset")
    cmd = [str(exe)] if exe.exists() else [sys.executable, "-m", "evalset_pipeline.cli.main"]
    t0 = time.perf_counter()
    subprocess.run(
        cmd + ["build", "--json", "--data-dir", str(data_dir), "--corpus", str(corpus)],
        env=env,
        check=True,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return time.perf_counter() - t0


def run(
    corpus: str | Path | None = None,
    rounds: int = ROUNDS,
    rebuilds: int = REBUILDS,
    sample_size: int = 80,
    subprocess_pair: bool | None = None,
) -> dict[str, Any]:
    from evalset_pipeline.core.paths import default_corpus_dir

    _quiet_dagster()
    corpus = Path(corpus or default_corpus_dir()).resolve()
    if quick():
        rounds, rebuilds = 1, 2
    if subprocess_pair is None:
        subprocess_pair = os.environ.get("EVALSET_BENCH_SUBPROCESS", "") not in ("", "0")
    colds: list[dict[str, Any]] = []
    rebuilt: list[dict[str, Any]] = []
    for _ in range(rounds):
        data_dir = Path(tempfile.mkdtemp(prefix="rebuild-", dir=bench_root()))
        try:
            cold = materialize_build(data_dir, corpus, sample_size=sample_size)
            colds.append(cold)
            for _ in range(rebuilds):
                r = materialize_build(data_dir, corpus, sample_size=sample_size)
                r["versions_before"] = cold["versions"]
                rebuilt.append(r)
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
    best_cold = min(colds, key=lambda c: c["wall_s"])
    best_re = min(rebuilt, key=lambda c: c["wall_s"])
    cold_s = [c["wall_s"] for c in colds]
    re_s = [r["wall_s"] for r in rebuilt]
    zero = {
        "renders": sum(r["rendered"] for r in rebuilt),
        "embeddings": sum(r["embedded"] for r in rebuilt),
        "model_calls": sum(r["model_calls"] for r in rebuilt),
        "new_versions": sum(bool(r["new_version"]) for r in rebuilt)
        + sum((r["versions"] or 0) - (r["versions_before"] or 0) for r in rebuilt),
    }
    out: dict[str, Any] = {
        "name": "rebuild",
        "pages": best_cold["pages"],
        "cold": summary(cold_s),
        "rebuild": summary(re_s),
        "ratio": round(min(re_s) / min(cold_s), 3),
        "ratio_median": round(sorted(re_s)[len(re_s) // 2] / sorted(cold_s)[len(cold_s) // 2], 3),
        "goal": 0.10,
        "rebuild_work": zero,
        "rebuild_work_goal": "all zero",
        # issue 17: the headline baseline's share of a cold build (goal <= 0.15)
        "baseline_share_of_cold": round(
            best_cold["steps_s"].get("baseline_scores", 0.0) / best_cold["wall_s"], 3
        ),
        "baseline_share_goal": 0.15,
        "cold_steps_s": {k: round(v, 3) for k, v in best_cold["steps_s"].items()},
        "rebuild_steps_s": {k: round(v, 3) for k, v in best_re["steps_s"].items()},
        "rebuild_dagster_overhead_s": round(best_re["wall_s"] - best_re["steps_total_s"], 3),
        "cold_dagster_overhead_s": round(best_cold["wall_s"] - best_cold["steps_total_s"], 3),
        "timing": f"{rounds} cold build(s) on fresh data dirs, {rebuilds} no-change rebuilds after each, in process "
        "(dg.materialize as `evalset build` runs it); ratio = best rebuild / best cold",
    }
    if subprocess_pair:
        data_dir = Path(tempfile.mkdtemp(prefix="rebuild-cli-", dir=bench_root()))
        try:
            c = _cli_build(data_dir, corpus)
            r = min(_cli_build(data_dir, corpus) for _ in range(2))
        finally:
            shutil.rmtree(data_dir, ignore_errors=True)
        out["cli"] = {"cold_s": round(c, 3), "rebuild_s": round(r, 3), "ratio": round(r / c, 3)}
    return out

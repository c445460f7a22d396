"""Shared benchmark helpers: interleaved timing, process-tree memory, cached corpora, in-process builds.

Scratch space (generated corpora, throwaway data directories) lives under `bench_root()`:
$EVALSET_BENCH_DIR, else <tmp>/evalset-bench. Generated corpora are kept there between runs
(a 20,000-page corpus takes minutes to draw); data directories are deleted after each run.

`python -m benchmarks._util build --data-dir D --corpus C [--sample-size N] [--out FILE]` runs one
in-process Dagster build and writes its timings as JSON: the scale benchmark runs it as a child
process so that the memory it measures is the build's alone.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

from evalset_pipeline.core.pipeline.graph import STAGES as GRAPH_STAGES

QUICK_ENV = "EVALSET_BENCH_QUICK"


def quick() -> bool:
    """Smoke-check sizes instead of the real ones (`python -m benchmarks --quick` sets this)."""
    return os.environ.get(QUICK_ENV, "") not in ("", "0", "false", "no")


def bench_root() -> Path:
    root = Path(
        os.environ.get("EVALSET_BENCH_DIR") or Path(tempfile.gettempdir()) / "evalset-bench"
    )
    root.mkdir(parents=True, exist_ok=True)
    return root


# --- timing ------------------------------------------------------------------------------------


def cpu_seconds() -> float:
    """User + system CPU seconds of this process and of its finished (reaped) children so far:
    pool workers count once their pool has shut down. Far less sensitive than wall time to other
    people's load on a shared machine, so benchmarks report it beside the wall-clock figures."""
    import resource

    me, kids = (
        resource.getrusage(resource.RUSAGE_SELF),
        resource.getrusage(resource.RUSAGE_CHILDREN),
    )
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def interleaved(
    fns: dict[str, Callable[[], Any]], repeats: int, cpu: dict[str, list[float]] | None = None
) -> dict[str, list[float]]:
    """Wall seconds per call of each function, alternating between them every round, so that a
    burst of load from other processes on this shared machine hits every side alike. CPU seconds
    per call (see cpu_seconds) go into `cpu` when given."""
    times: dict[str, list[float]] = {name: [] for name in fns}
    for _ in range(repeats):
        for name, fn in fns.items():
            c0, t0 = cpu_seconds(), time.perf_counter()
            fn()
            times[name].append(time.perf_counter() - t0)
            if cpu is not None:
                cpu.setdefault(name, []).append(cpu_seconds() - c0)
    return times


def summary(samples: list[float]) -> dict[str, float]:
    return {
        "best_s": round(min(samples), 4),
        "median_s": round(statistics.median(samples), 4),
        "runs_s": [round(s, 3) for s in samples],
    }


# --- memory ------------------------------------------------------------------------------------


class TreeMemory:
    """Poll the resident memory of a process and all its descendants from a background thread.

    peak_rss_mb: the largest sum of RSS over the tree seen at one poll (counts pages shared by
    forked workers once per process, so it overstates); peak_pss_mb: the same with PSS (shared
    pages split between the processes sharing them: the honest total); peak_process_rss_mb: the
    largest single process.
    """

    def __init__(self, pid: int | None = None, interval: float = 0.2, timeline: bool = False):
        import psutil

        self._psutil = psutil
        self.root = psutil.Process(pid or os.getpid())
        self.interval = interval
        self.peak_rss = 0
        self.peak_pss = 0
        self.peak_process = 0
        self.peak_processes = 0
        self.timeline: list[tuple[float, int]] | None = (
            [] if timeline else None
        )  # (epoch s, tree RSS bytes)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _poll(self) -> None:
        psutil = self._psutil
        try:
            procs = [self.root] + self.root.children(recursive=True)
        except psutil.Error:
            return
        rss = pss = 0
        alive = 0
        for p in procs:
            try:
                info = p.memory_full_info()
            except psutil.Error:
                continue
            alive += 1
            rss += info.rss
            pss += getattr(info, "pss", info.rss)
            self.peak_process = max(self.peak_process, info.rss)
        self.peak_rss = max(self.peak_rss, rss)
        if self.timeline is not None:
            self.timeline.append((time.time(), rss))
        self.peak_pss = max(self.peak_pss, pss)
        self.peak_processes = max(self.peak_processes, alive)

    def _run(self) -> None:
        while not self._stop.is_set():
            self._poll()
            self._stop.wait(self.interval)

    def __enter__(self) -> TreeMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self._stop.set()
        self._thread.join()

    def peak_by_window(self, windows: dict[str, tuple[float, float]]) -> dict[str, float]:
        """Peak tree RSS (MB) seen while each (start, end) epoch window was open."""
        out = {}
        for name, (start, end) in windows.items():
            seen = [rss for t, rss in self.timeline or () if start <= t <= end]
            if seen:
                out[name] = round(max(seen) / (1024 * 1024), 1)
        return out

    def as_dict(self) -> dict[str, float]:
        mb = 1024 * 1024
        return {
            "peak_rss_mb": round(self.peak_rss / mb, 1),
            "peak_pss_mb": round(self.peak_pss / mb, 1),
            "peak_process_rss_mb": round(self.peak_process / mb, 1),
            "peak_processes": self.peak_processes,
        }


# --- corpora -----------------------------------------------------------------------------------


def _draw(doc_plan: Any) -> tuple[str, bytes]:
    from evalset_pipeline.samplekit.sample_corpus import render_document

    return doc_plan.path, render_document(doc_plan)


def cached_corpus(
    entities: int, periods: int, seed: int = 7, workers: int | None = None
) -> tuple[Path, int]:
    """(folder, pages) of the sample corpus with these arguments, drawn once (both cores) and kept.

    Same output as `generate_sample_corpus(out, entities=..., periods=...)`, only drawn in parallel.
    """
    from evalset_pipeline.core.atomic import write_bytes_atomic
    from evalset_pipeline.samplekit.sample_corpus import plan_sample_corpus, sidecar_csv

    out = bench_root() / "corpora" / f"e{entities}_p{periods}_s{seed}"
    done = out / ".complete.json"
    if done.exists():
        return out, json.loads(done.read_text())["pages"]
    plan = plan_sample_corpus(entities=entities, periods=periods, seed=seed)
    with ProcessPoolExecutor(max_workers=workers or os.cpu_count() or 1) as pool:
        for path, data in pool.map(_draw, plan.documents, chunksize=4):
            write_bytes_atomic(out / path, data)
    write_bytes_atomic(out / "metadata.csv", sidecar_csv(plan).encode("utf-8"))
    pages = sum(len(d.pages) for d in plan.documents)
    done.write_text(json.dumps({"documents": len(plan.documents), "pages": pages}))
    return out, pages


# --- builds ------------------------------------------------------------------------------------

STAGES = tuple(
    s for s in GRAPH_STAGES if s != "baseline_scores"
)  # every stage but the scores group
MODEL_STAGES = ("candidate_questions", "validated_questions", "candidate_labels")


def materialize_build(
    data_dir: str | Path,
    corpus_dir: str | Path,
    *,
    sample_size: int = 80,
    embedder: str = "appearance",
    workers: int = 0,
    memory: TreeMemory | None = None,
) -> dict[str, Any]:
    """One build exactly as `evalset build` runs it (dg.materialize, in process), and what it did.

    Returns wall seconds of the materialize call, seconds per step from the run's STEP_SUCCESS
    events, and the counters that say whether anything was redone. With `memory` (a running
    TreeMemory that keeps a timeline), also the peak RSS seen during each step.
    """
    import dagster as dg

    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    resources = {
        "settings": PipelineSettings(
            data_dir=str(data_dir),
            corpus_dir=str(corpus_dir),
            sample_size=sample_size,
            workers=workers,
        ),
        "vlm": VLMResource(backend="textlayer"),
        "embedder": EmbedderResource(model=embedder),
    }
    instance = dg.DagsterInstance.ephemeral()
    t0 = time.perf_counter()
    result = dg.materialize(all_assets, resources=resources, raise_on_error=True, instance=instance)
    wall = time.perf_counter() - t0
    steps: dict[str, float] = {}
    for event in result.all_events:
        if event.is_step_success:
            steps[event.step_key] = event.event_specific_data.duration_ms / 1000.0

    def meta(node: str, key: str) -> Any:
        mats = result.asset_materializations_for_node(node)
        if not mats or key not in mats[-1].metadata:
            return None
        return mats[-1].metadata[key].value

    extra: dict[str, Any] = {}
    if memory is not None:
        windows: dict[str, list[float]] = {}
        for record in instance.all_logs(result.run_id):
            ev = record.dagster_event
            if ev is not None and ev.step_key and (ev.is_step_start or ev.is_step_success):
                windows.setdefault(ev.step_key, [record.timestamp, record.timestamp])[1] = (
                    record.timestamp
                )
        extra["peak_rss_by_step_mb"] = memory.peak_by_window(
            {k: (a, b) for k, (a, b) in windows.items()}
        )
    return {
        **extra,
        "wall_s": wall,
        "steps_s": steps,
        "steps_total_s": sum(steps.values()),
        "pages": meta("page_renders", "pages"),
        "rendered": meta("page_renders", "rendered"),
        "embedded": meta("page_embeddings", "embedded"),
        "model_calls": sum(meta(s, "model_calls") or 0 for s in MODEL_STAGES),
        "model_calls_by_stage": {s: meta(s, "model_calls") for s in MODEL_STAGES},
        "new_version": bool(meta("golden_set", "new_version")),
        "versions": _count_versions(data_dir),
    }


def _count_versions(data_dir: str | Path) -> int | None:
    try:
        from evalset_pipeline.core.golden.reader import list_golden_sets

        return len(list_golden_sets(data_dir))
    except Exception:  # reader API is another module's; the count is informative only
        return None


def build_in_child(
    data_dir: Path,
    corpus_dir: Path,
    *,
    sample_size: int,
    embedder: str = "appearance",
    interval: float = 0.25,
) -> dict[str, Any]:
    """Run `materialize_build` in a fresh Python process; add its wall time (start-up included)
    and the peak memory of its whole process tree (render and embed workers included)."""
    import subprocess

    out = data_dir.parent / f"{data_dir.name}.result.json"
    cmd = [
        sys.executable,
        "-m",
        "benchmarks._util",
        "build",
        "--data-dir",
        str(data_dir),
        "--corpus",
        str(corpus_dir),
        "--sample-size",
        str(sample_size),
        "--embedder",
        embedder,
        "--out",
        str(out),
    ]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1"}
    root = Path(__file__).resolve().parent.parent
    t0 = time.perf_counter()
    proc = subprocess.Popen(
        cmd, cwd=root, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE
    )
    with TreeMemory(proc.pid, interval) as mem:
        _, err = proc.communicate()
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        raise RuntimeError(
            f"build failed (rc {proc.returncode}): {err.decode(errors='replace')[-3000:]}"
        )
    result = json.loads(out.read_text())
    out.unlink(missing_ok=True)
    return {**result, "process_wall_s": wall, **mem.as_dict()}


def _main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(prog="python -m benchmarks._util")
    sub = p.add_subparsers(dest="cmd", required=True)
    b = sub.add_parser("build", help="one in-process build; timings as JSON")
    b.add_argument("--data-dir", required=True)
    b.add_argument("--corpus", required=True)
    b.add_argument("--sample-size", type=int, default=80)
    b.add_argument("--embedder", default="appearance")
    b.add_argument("--out", default=None)
    args = p.parse_args(argv)
    import logging

    logging.getLogger("dagster").setLevel(logging.WARNING)
    with TreeMemory(interval=0.25, timeline=True) as memory:
        result = materialize_build(
            args.data_dir,
            args.corpus,
            sample_size=args.sample_size,
            embedder=args.embedder,
            memory=memory,
        )
    text = json.dumps(result)
    if args.out:
        Path(args.out).write_text(text)
    else:
        print(text)
    return 0


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))

"""Render memory against page count: peak RSS of the renderer's parent and workers on a 250-page
and a 5,000-page document (one shared font, written directly; 12 dpi, 10,000-pixel budget).

The test suite used to assert these bounds (`< 48 MB` growth); memory on a shared machine is a
measurement, so it lives here, with the goal beside it. Each size renders in a fresh child
process, so one size's peak cannot hide inside the other's.

Headline: growth_mb = parent peak after 5,000 pages - after 250 (goal < 48: 20x the pages, (almost)
no more memory); workers_mb = the workers' peak (goal < 400).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from benchmarks._util import bench_root, quick

SHORT, LONG = 250, 5000
GROWTH_GOAL_MB, WORKERS_GOAL_MB = 48, 400

_MEMORY = """
import json, resource, sys
from evalset_pipeline.core.corpus.documents import scan_corpus
from evalset_pipeline.core.render.pages import RenderSettings, render_corpus
def peak(who): return resource.getrusage(who).ru_maxrss // 1024
settings = RenderSettings(dpi=12, max_pixels=10_000)
out = {"baseline": peak(resource.RUSAGE_SELF)}
for name in ("short", "long"):
    root, data = sys.argv[1] + "/" + name, sys.argv[2] + "/" + name
    scan = scan_corpus(root)
    r = render_corpus(scan.documents, root, data, data + "/renders", settings, workers=2)
    out[name] = {"pages": len(r.pages), "rejected": len(r.rejected), "self_mb": peak(resource.RUSAGE_SELF),
                 "workers_mb": peak(resource.RUSAGE_CHILDREN)}
print(json.dumps(out))
"""


def run(short: int = SHORT, long: int | None = None) -> dict[str, Any]:
    from evalset_pipeline_tests.support.bad_corpus import long_pdf

    long = long or (2 * short if quick() else LONG)
    root = Path(tempfile.mkdtemp(dir=bench_root(), prefix="render-memory-"))
    long_pdf(root / "short/short.pdf", pages=short)
    long_pdf(root / "long/long.pdf", pages=long)
    fast = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None  # many small files: tmpfs
    with tempfile.TemporaryDirectory(dir=fast) as data:
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _MEMORY, str(root), data],
            capture_output=True,
            text=True,
            check=True,
        )
        wall = time.perf_counter() - t0
    m = json.loads(done.stdout)
    growth = m["long"]["self_mb"] - m["short"]["self_mb"]
    return {
        "name": "render_memory",
        "pages": [m["short"]["pages"], m["long"]["pages"]],
        "rejected": m["long"]["rejected"],
        "baseline_mb": m["baseline"],
        "self_mb": [m["short"]["self_mb"], m["long"]["self_mb"]],
        "growth_mb": growth,
        "workers_mb": m["long"]["workers_mb"],
        "goal_met": growth < GROWTH_GOAL_MB and m["long"]["workers_mb"] < WORKERS_GOAL_MB,
        "wall_s": round(wall, 1),
        "ratio": round(growth / GROWTH_GOAL_MB, 3),
    }

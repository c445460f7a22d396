"""Throughput of the `openai` backend: 1,000 judge calls at 16 in flight against a local server
that takes 200 ms per call. Ideal: 1000 / 16 x 0.2 s = 12.5 s; the ratio ideal / measured shows
what the client, the thread pool and the HTTP round trips cost on top of the model's own latency.

`ratio` is OpenAIBackend.judge on the 1,000 calls (threads -> the openai client -> HTTP on
127.0.0.1 -> the fake server, evalset_pipeline_tests/support/fake_vlm_server.py, in its own
process as a model server would be; it answers from a real page of the sample corpus, sent as a
PNG with every request). `through_call_cache` repeats it the way the pipeline makes the calls,
through CachedBackend: chunks of 64, each stored in DuckDB before the next starts, so every
chunk waits for its slowest call.

    python -m benchmarks vlm
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

CALLS = 1000
IN_FLIGHT = 16
LATENCY_S = 0.2


def _page(tmp: Path):
    """One real page of the generated sample corpus, rendered as the pipeline renders it."""
    import pymupdf

    from evalset_pipeline.core.judging.base import PageView
    from evalset_pipeline.core.pagetext.layer import text_layer_of
    from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

    generate_sample_corpus(tmp / "corpus", entities=1, periods=1)
    pdf = sorted((tmp / "corpus").rglob("*.pdf"))[0]
    with pymupdf.open(pdf) as doc:
        page = doc.load_page(min(1, doc.page_count - 1))
        png = page.get_pixmap(matrix=pymupdf.Matrix(96 / 72, 96 / 72), alpha=False).tobytes("png")
        layer = text_layer_of(page)
    (tmp / "page.png").write_bytes(png)
    (tmp / "page.json").write_text(json.dumps(layer), encoding="utf-8")
    return PageView(
        "bench-page", tmp / "page.png", tmp / "page.json", hashlib.sha256(png).hexdigest()
    )


def run() -> dict:
    from evalset_pipeline.core.vlm.cache import CachedBackend, CallCache
    from evalset_pipeline.core.vlm.openai_backend import OpenAIBackend

    with tempfile.TemporaryDirectory() as d:
        tmp = Path(d)
        page = _page(tmp)
        server = subprocess.Popen(
            [
                sys.executable,
                "-m",
                "evalset_pipeline_tests.support.fake_vlm_server",
                "--latency",
                str(LATENCY_S),
                "--page",
                str(page.image_path),
            ],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).resolve().parent.parent,
        )
        try:
            url = server.stdout.readline().strip()
            if not url.startswith("http://127.0.0.1:"):
                raise RuntimeError(f"the fake server did not start (said {url!r})")
            # A variable that is never set: no real key is ever sent to the local server.
            backend = OpenAIBackend(
                "fake-vlm",
                base_url=url,
                max_in_flight=IN_FLIGHT,
                api_key_env="EVALSET_BENCH_NO_KEY",
            )
            pairs = [(f"What was the revenue of segment {i}?", page) for i in range(CALLS)]
            start = time.perf_counter()
            results = backend.judge(pairs)
            seconds = time.perf_counter() - start
            assert len(results) == CALLS and all(r.usage is not None for r in results)

            cache = CallCache(tmp / "calls.duckdb")
            cached = CachedBackend(backend, cache)
            pairs = [(f"What was the operating income of segment {i}?", page) for i in range(CALLS)]
            start = time.perf_counter()
            results = cached.judge(pairs)
            cached_seconds = time.perf_counter() - start
            ledger = cache.ledger()
            cache.close()
            stats = json.loads(
                urllib.request.urlopen(url.removesuffix("/v1") + "/fake/stats", timeout=10).read()
            )
        finally:
            server.stdin.close()
            server.wait(timeout=10)
        assert len(results) == CALLS and stats["requests"] == 2 * CALLS and ledger["calls"] == CALLS
        peak = stats["max_in_flight"]
        png_kb = page.image_path.stat().st_size / 1024
    ideal = CALLS / IN_FLIGHT * LATENCY_S
    return {
        "name": "vlm",
        "calls": CALLS,
        "in_flight": IN_FLIGHT,
        "latency_per_call_s": LATENCY_S,
        "seconds": round(seconds, 3),
        "ideal_seconds": round(ideal, 3),
        "ratio": round(ideal / seconds, 3),
        "goal": ">= 0.8",
        "through_call_cache": {
            "seconds": round(cached_seconds, 3),
            "ratio": round(ideal / cached_seconds, 3),
            "chunk": cached.chunk,
        },
        "peak_in_flight_seen_by_server": peak,
        "page_png_kb": round(png_kb, 1),
        "path": "OpenAIBackend -> openai client -> HTTP 127.0.0.1 -> fake server process",
    }


if __name__ == "__main__":
    print(json.dumps(run()))

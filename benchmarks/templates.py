"""Template discovery at corpus scale: `discover_templates` on 400,000 synthetic filing pages.

Issue 13's goal: template discovery on 400,000 pages in under 10 minutes and under 8 GB on the
2-core / 24 GB development machine. This times the real entry point,
`evalset_pipeline.core.index.template_discovery.discover_templates(unit_ids, named, appearance,
shapes, seed=...)`, exactly as the `template_groups` stage calls it when no page has a metadata
template (the build-without-sidecar case, the one that clusters).

Data (generated here, seeded, nothing downloaded): N_PAGES pages in documents of 50-300 pages,
appearance vectors of `appearance.DIM` (848, the offline vector's size). Each document is a
sequence of blocks drawn in order, like a filing:

  prose      narrative sections. All prose pages LOOK alike (one shared appearance centre plus
             noise: the same cosine spread as a visual template's pages), but carry a section
             heading from a vocabulary of N_HEADINGS headings (2-5 made-up words each, Zipf
             popularity). A document uses a Zipf-weighted subset of the vocabulary in the
             vocabulary's order; a section is one heading page followed by continuation pages whose
             heading is "" (the stage carries the heading over): about 65% of prose pages.
             Ground-truth kind: the section heading.
  visual     charts / tables / covers: N_VISUAL_TEMPLATES templates, each with a tight appearance
             cluster (centre x 3 + small offsets + noise, as benchmarks/mining.py) and 1-3 title
             variants; a document uses a few templates (Zipf popularity). Kind: the template.
  statement  primary statements (balance_sheet, income_statement, ...): `PageShape.statement`
             set, one to three pages each, once or twice per document. Kind: the statement.

Reported (one JSON line): wall seconds of the discover_templates call, peak RSS of the process
while it runs (sampled every 10 ms from a thread; nothing subtracted: the inputs already held
are part of it and their size is reported apart as input_mb / rss_before_mb), the time spent in
each step of the method (cluster_embeddings on the appearance vectors, structure_vectors, the
heading split, the singleton join), template count, largest template share, single-page template
share, and the adjusted Rand index against the ground-truth kinds (overall and per page kind).
ratio = wall seconds / 600 (goal <= 1.0).

`--quick` (EVALSET_BENCH_QUICK=1): 20,000 pages, well under a minute.
"""

from __future__ import annotations

import os
import resource
import threading
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
import psutil

from benchmarks._util import quick

N_PAGES = 400_000
QUICK_PAGES = 20_000
N_VISUAL_TEMPLATES = 2_000
N_HEADINGS = 3_000
N_WORDS = 1_500
CONTINUE_P = (
    0.35  # a section ends after each prose page with this chance: mean 2.9 pages, 65% continuations
)
STATEMENTS = ("balance_sheet", "income_statement", "comprehensive_income", "cash_flows", "equity")
SEED = 13
GOAL_S = 600.0
GOAL_RSS_MB = 8 * 1024.0

_SYLLABLES = [c + v for c in "bdfgklmnprstvz" for v in "aeiou"]


def _words(rng: np.random.Generator, n: int) -> list[str]:
    """`n` distinct made-up lowercase words (no stop word, no measure word)."""
    out: dict[str, None] = {}
    while len(out) < n:
        k = int(rng.integers(2, 4))
        out["".join(_SYLLABLES[i] for i in rng.integers(0, len(_SYLLABLES), k))] = None
    return list(out)


def _zipf(n: int, s: float = 1.05) -> np.ndarray:
    w = 1.0 / np.arange(1, n + 1) ** s
    return w / w.sum()


def make_data(
    n: int = N_PAGES,
    seed: int = SEED,
    dim: int | None = None,
    visual_templates: int = N_VISUAL_TEMPLATES,
    headings: int = N_HEADINGS,
) -> dict[str, Any]:
    """Pages in document order: ids, PageShapes, appearance (n, dim) float32 and true kinds."""
    from evalset_pipeline.core.index import appearance
    from evalset_pipeline.core.index.template_discovery import PageShape

    dim = dim or appearance.DIM
    rng = np.random.default_rng(seed)
    vocab = _words(rng, N_WORDS)
    word_p = _zipf(len(vocab), 0.9)

    def phrase(lo: int, hi: int) -> str:
        k = int(rng.integers(lo, hi + 1))
        return " ".join(vocab[i] for i in rng.choice(len(vocab), k, replace=False, p=word_p))

    heading_vocab = list(dict.fromkeys(phrase(2, 5) for _ in range(headings * 2)))[:headings]
    heading_p = _zipf(len(heading_vocab))
    titles = [
        [phrase(2, 4) for _ in range(int(rng.integers(1, 4)))] for _ in range(visual_templates)
    ]
    # (layout, numeric share range) per visual template: chart, table or cover.
    styles = [
        (("mixed", 0.3, 0.6), ("tabular", 0.5, 0.85), ("sparse", 0.0, 0.1))[i]
        for i in rng.choice(3, visual_templates, p=(0.55, 0.35, 0.10))
    ]
    template_p = _zipf(visual_templates, 0.8)

    kind = np.empty(n, np.int8)  # 0 prose, 1 visual, 2 statement
    group = np.empty(
        n, np.int64
    )  # prose: heading index; visual: template; statement: statement index
    doc_of = np.empty(n, np.int64)
    shapes: list[Any] = []
    i, doc = 0, 0
    while i < n:
        length = min(int(rng.integers(50, 301)), n - i)
        sections = np.sort(
            rng.choice(
                len(heading_vocab),
                min(len(heading_vocab), max(4, length // 3)),
                replace=False,
                p=heading_p,
            )
        )
        templates = rng.choice(
            visual_templates, int(rng.integers(3, 13)), replace=False, p=template_p
        )
        statement_at = set(
            rng.choice(max(1, len(sections)), int(rng.integers(1, 3)), replace=False).tolist()
        )
        name = f"doc{doc:05d}"
        page = 0

        def add(
            k: int,
            g: int,
            heading: str,
            layout: str,
            share: float,
            statement: str = "",
            length: int = length,
            doc: int = doc,
            name: str = name,
        ) -> None:  # bound to this document
            nonlocal i, page
            if page >= length:
                return
            kind[i], group[i], doc_of[i] = k, g, doc
            shapes.append(PageShape(name, page + 1, heading, layout, round(share, 3), statement))
            i += 1
            page += 1

        s = 0
        while page < length:
            h = int(sections[s % len(sections)])
            add(0, h, heading_vocab[h], "prose", float(rng.uniform(0.0, 0.08)))
            for _ in range(int(rng.geometric(CONTINUE_P)) - 1):  # continuation pages: ~65% of prose
                add(0, h, "", "prose", float(rng.uniform(0.0, 0.08)))
            if rng.random() < 0.45:  # a run of figure pages inside the section
                for _ in range(int(rng.integers(1, 5))):
                    t = int(templates[rng.integers(0, len(templates))])
                    layout, lo, hi = styles[t]
                    add(
                        1,
                        t,
                        titles[t][rng.integers(0, len(titles[t]))],
                        layout,
                        float(rng.uniform(lo, hi)),
                    )
            if s in statement_at:
                for st in range(len(STATEMENTS)):
                    for p in range(int(rng.integers(1, 4))):
                        add(
                            2,
                            st,
                            "" if p else f"consolidated {STATEMENTS[st].replace('_', ' ')}",
                            "tabular",
                            float(rng.uniform(0.55, 0.85)),
                            STATEMENTS[st],
                        )
            s += 1
        doc += 1

    # Appearance: centre x 3 (+ a small per-document offset for prose and statements: a filer's
    # house style) + unit noise, normalised. Siblings sit near cosine 0.9, other kinds near 0.
    centres_v = rng.standard_normal((visual_templates, dim), dtype=np.float32)
    centre_p = rng.standard_normal(dim, dtype=np.float32)
    centres_s = rng.standard_normal((len(STATEMENTS), dim), dtype=np.float32)
    style = rng.standard_normal((doc, dim), dtype=np.float32)
    emb = np.empty((n, dim), np.float32)
    step = 25_000
    for a in range(0, n, step):
        b = min(n, a + step)
        k, g = kind[a:b], group[a:b]
        v = rng.standard_normal((b - a, dim), dtype=np.float32)
        v += 0.4 * style[doc_of[a:b]] * (k != 1)[:, None]
        v[k == 0] += 3.0 * centre_p
        v[k == 1] += 3.0 * centres_v[g[k == 1]]
        v[k == 2] += 3.0 * centres_s[g[k == 2]]
        v /= np.linalg.norm(v, axis=1, keepdims=True)
        emb[a:b] = v
    truth = np.where(kind == 0, group, np.where(kind == 1, 1_000_000 + group, 2_000_000 + group))
    return {
        "unit_ids": [f"u{j:07d}" for j in range(n)],
        "shapes": shapes,
        "appearance": emb,
        "kind": kind,
        "truth": truth,
        "documents": doc,
        "heading_vocab": len(heading_vocab),
    }


class _PeakRSS:
    """Peak resident set size of this process while the block runs, sampled every `interval` s."""

    def __init__(self, interval: float = 0.01) -> None:
        self.interval = interval
        self.before = self.peak = 0
        self._stop = threading.Event()
        self._proc = psutil.Process()

    def __enter__(self) -> _PeakRSS:
        self.before = self.peak = self._proc.memory_info().rss
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        return self

    def _run(self) -> None:
        while not self._stop.wait(self.interval):
            self.peak = max(self.peak, self._proc.memory_info().rss)

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.peak = max(self.peak, self._proc.memory_info().rss)


@contextmanager
def _step_timers() -> Iterator[dict[str, list[float]]]:
    """Seconds per call of the method's steps, by wrapping the names the entry point looks up.

    `cluster_embeddings` is timed where templates.py calls it: its first call clusters the
    appearance vectors; later calls are the heading split's (also inside `split_by_heading_s`)."""
    from evalset_pipeline.core.index import template_discovery as td
    from evalset_pipeline.core.index import templates as tp

    spent: dict[str, list[float]] = {}
    patched = [
        (td, "structure_vectors"),
        (td, "_heading_vectors"),
        (tp, "cluster_embeddings"),
        (tp, "_split_by_heading"),
        (tp, "_join_singletons"),
    ]
    originals = [getattr(m, name) for m, name in patched]

    def wrap(name: str, fn: Any) -> Any:
        def timed(*a: Any, **kw: Any) -> Any:
            t0 = time.perf_counter()
            try:
                return fn(*a, **kw)
            finally:
                spent.setdefault(name, []).append(time.perf_counter() - t0)

        return timed

    for (m, name), fn in zip(patched, originals, strict=False):
        setattr(m, name, wrap(name, fn))
    try:
        yield spent
    finally:
        for (m, name), fn in zip(patched, originals, strict=False):
            setattr(m, name, fn)


def _steps(spent: dict[str, list[float]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    clusters = spent.get("cluster_embeddings", [])
    if clusters:
        out["cluster_appearance_s"] = round(clusters[0], 2)
        out["heading_split_clusterings"] = len(clusters) - 1
        out["heading_split_clustering_s"] = round(sum(clusters[1:]), 2)
    for name in ("_heading_vectors", "structure_vectors", "_split_by_heading", "_join_singletons"):
        if name in spent:
            out[name.lstrip("_") + "_s"] = round(sum(spent[name]), 2)
    return out


def _shares(template_ids: list[str]) -> dict[str, Any]:
    sizes = Counter(template_ids)
    n = len(template_ids)
    single = sum(1 for s in sizes.values() if s == 1)
    largest_name, largest = max(sizes.items(), key=lambda kv: (kv[1], kv[0]))
    return {
        "templates": len(sizes),
        "largest_template": largest_name,
        "largest_template_share": round(largest / n, 4),
        "single_page_templates": single,
        "single_page_template_share": round(single / len(sizes), 4),
        "pages_in_single_page_templates_share": round(single / n, 4),
    }


def run(n: int | str | None = None, seed: int | str = SEED) -> dict[str, Any]:
    from evalset_pipeline.core.index.clustering import adjusted_rand_index
    from evalset_pipeline.core.index.template_discovery import discover_templates

    n = int(n) if n else (QUICK_PAGES if quick() else N_PAGES)
    seed = int(seed)
    t0 = time.perf_counter()
    d = make_data(n, seed)
    generate_s = time.perf_counter() - t0
    named = [""] * n  # no sidecar: every page is clustered
    input_mb = d["appearance"].nbytes / 2**20

    with _step_timers() as spent, _PeakRSS() as mem:
        c0 = time.process_time()
        t1 = time.perf_counter()
        groups = discover_templates(d["unit_ids"], named, d["appearance"], d["shapes"], seed=seed)
        wall = time.perf_counter() - t1
        cpu = time.process_time() - c0

    assigned = [a.template_id for a in groups.assignments]
    truth, kind = d["truth"], d["kind"]
    _, pred = np.unique(np.asarray(assigned, dtype=object).astype(str), return_inverse=True)
    ari_by_kind = {}
    for k, label in enumerate(("prose", "visual", "statement")):
        rows = np.flatnonzero(kind == k)
        ari_by_kind[label] = (
            round(adjusted_rand_index(truth[rows], pred[rows]), 4) if rows.size else None
        )
    c = groups.clustering
    summary = groups.summary()
    return {
        "name": "templates",
        "pages": n,
        "documents": d["documents"],
        "dim": int(d["appearance"].shape[1]),
        "page_kinds": {
            "prose": int((kind == 0).sum()),
            "visual": int((kind == 1).sum()),
            "statement": int((kind == 2).sum()),
        },
        "true_kinds": int(np.unique(truth).size),
        "heading_vocabulary": d["heading_vocab"],
        "cpu_count": os.cpu_count(),
        "generate_s": round(generate_s, 1),
        "seconds": round(wall, 1),
        "cpu_s": round(cpu, 1),
        "peak_rss_mb": round(mem.peak / 2**20, 1),
        "rss_before_mb": round(mem.before / 2**20, 1),
        "input_mb": round(input_mb, 1),
        "process_max_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
        "steps_s": _steps(spent),
        "clustering": None
        if c is None
        else {
            "method": c.method,
            "units": c.units,
            "threshold": c.threshold,
            "clusters_before_refinement": summary["clustering"]["clusters"],
        },
        "sources": summary["sources"],
        **_shares(assigned),
        "ari": round(adjusted_rand_index(truth, pred), 4),
        "ari_by_kind": ari_by_kind,
        "ratio": round(wall / GOAL_S, 4),
        "goal": {
            "seconds": GOAL_S,
            "peak_rss_mb": GOAL_RSS_MB,
            "ratio_at_most": 1.0,
            "met": bool(wall <= GOAL_S and mem.peak / 2**20 <= GOAL_RSS_MB),
        },
        "notes": (
            "ratio = discover_templates wall seconds / 600 (issue 13: 400,000 pages in < 10 min and "
            "< 8 GB). peak_rss_mb: this process while discover_templates runs, inputs included "
            "(rss_before_mb is the process just before the call, input_mb the appearance array). "
            "ari: against the true kinds (prose: section heading; visual: template; statement: "
            "statement type); steps_s: time inside each step (heading_split_clustering_s is "
            "also inside split_by_heading_s)."
        ),
    }


if __name__ == "__main__":  # python -m benchmarks.templates [PAGES]
    import json
    import sys

    print(json.dumps(run(int(sys.argv[1]) if len(sys.argv) > 1 else None), indent=1))

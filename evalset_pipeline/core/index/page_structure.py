"""Structure vectors: what kind of page this is, from its title block and layout, beside how it looks.

A thumbnail says little about a filing's pages: every prose page of every report looks alike,
so clustering appearance alone puts a whole report's narrative in one template. What tells
"the same kind of page" apart is its heading and how figures and sentences fill it. Each page
gets three parts, each L2-normalised, then weighted and concatenated:

  heading     hashed words and word pairs of its normalised heading (`page_subject`), with the
              measure words removed ("revenue by segment" and "operating income by segment" are
              one kind of page showing two measures: the metric axis, not the template, tells them
              apart). A page without a heading continues the one before it in its document.
  layout      tabular / prose / mixed / sparse, and the share of figures among its words
  appearance  the render's appearance vector (offline default, or an image model's)

Weights: heading 0.62, appearance 0.6, layout 0.5 (squared: 0.38 / 0.36 / 0.25). Two pages that
differ only in heading land near cosine 0.6, two that share a heading near 0.9 or above, so the
silhouette-chosen threshold separates kinds of pages rather than pages of one look.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence

import numpy as np

from evalset_pipeline.core.pagetext.page_reader import METRIC_SYNONYMS

__all__ = [
    "HEADING_DIM",
    "heading_key",
    "heading_vector",
    "structure_vectors",
    "carried_headings",
    "LAYOUTS",
]

HEADING_DIM = 256
LAYOUTS = ("tabular", "prose", "mixed", "sparse")
WEIGHTS = {"heading": 0.45, "appearance": 0.7, "layout": 0.55}
_MEASURE_WORDS = re.compile(
    r"(?<![\w])(?:"
    + "|".join(
        sorted(
            (re.escape(f) for forms in METRIC_SYNONYMS.values() for f in forms),
            key=len,
            reverse=True,
        )
    )
    + r")(?![\w])",
    re.I,
)
_STOP = {
    "and",
    "of",
    "the",
    "for",
    "to",
    "in",
    "a",
    "an",
    "on",
    "by",
    "as",
    "at",
    "our",
    "its",
    "with",
}


def _bucket(token: str) -> int:
    return (
        int.from_bytes(hashlib.blake2b(token.encode("utf-8"), digest_size=4).digest(), "little")
        % HEADING_DIM
    )


def heading_key(heading: str) -> str:
    """A normalised heading without its measure words: what kind of page, not which measure."""
    return " ".join(w for w in _MEASURE_WORDS.sub(" ", heading).split() if w not in _STOP)


def heading_vector(heading: str) -> np.ndarray:
    """Hashed words and word pairs of a normalised heading, measure words removed; zeros when empty."""
    words = heading_key(heading).split()
    v = np.zeros(HEADING_DIM, dtype=np.float32)
    for w in words:
        v[_bucket(w)] += 1.0
    for a, b in zip(words, words[1:], strict=False):
        v[_bucket(a + " " + b)] += 0.5
    n = float(np.linalg.norm(v))
    return v / n if n else v


def carried_headings(headings: Sequence[str], documents: Sequence[str]) -> list[str]:
    """Each page's heading, or the last heading before it in the same document (a continuation)."""
    out, last, last_doc = [], "", None
    for heading, doc in zip(headings, documents, strict=False):
        if doc != last_doc:
            last, last_doc = "", doc
        if heading:
            last = heading
        out.append(last)
    return out


def _unit(x: np.ndarray) -> np.ndarray:
    norms = np.linalg.norm(x, axis=1, keepdims=True)
    return x / np.where(norms > 0, norms, 1.0)


def structure_vectors(
    appearance: np.ndarray, profiles: Sequence[Mapping[str, object] | None]
) -> np.ndarray:
    """(n, d) page vectors for template discovery; `profiles[i]` holds heading/layout/numeric_share
    (None: no profile, the page is placed by appearance alone)."""
    # Scale (issue 13, benchmarks/templates.py): the same values as concatenating the three
    # weighted parts of all pages at once, but each distinct heading is hashed once (a corpus
    # repeats its headings: 400,000 pages carry a few thousand) and the parts are built 16,384
    # rows at a time into the one output array, not as five whole-corpus temporaries (about
    # 6 GB beside the 1.8 GB result at 400,000 pages).
    n = len(profiles)
    appearance = np.asarray(appearance, dtype=np.float32)
    vectors: dict[str, np.ndarray] = {}
    out = np.empty((n, HEADING_DIM + appearance.shape[1] + len(LAYOUTS) + 1), dtype=np.float32)
    step = 16_384
    for a in range(0, n, step):
        b = min(n, a + step)
        heading = np.zeros((b - a, HEADING_DIM), dtype=np.float32)
        layout = np.zeros((b - a, len(LAYOUTS) + 1), dtype=np.float32)
        for i, p in enumerate(profiles[a:b]):
            if not p:
                continue
            h = str(p.get("heading") or "")
            if h not in vectors:
                vectors[h] = heading_vector(h)
            heading[i] = vectors[h]
            kind = str(p.get("layout") or "")
            if kind in LAYOUTS:
                layout[i, LAYOUTS.index(kind)] = 1.0
            share = p.get("numeric_share")
            layout[i, -1] = float(share) if isinstance(share, (int, float, str)) and share else 0.0
        parts = [
            WEIGHTS["heading"] * heading,
            WEIGHTS["appearance"] * _unit(appearance[a:b]),
            WEIGHTS["layout"] * _unit(layout),
        ]
        out[a:b] = _unit(np.concatenate(parts, axis=1))
    return out

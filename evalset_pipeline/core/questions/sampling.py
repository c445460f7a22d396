"""Which pages get a question: a seeded sample, stratified by template.

Stratifying keeps a rare template from vanishing in the sample; the seed makes the sample
reproducible (same corpus, same seed, same pages).
"""
from __future__ import annotations

from collections import defaultdict
from typing import Sequence

import numpy as np


def stratified_sample(unit_ids: Sequence[str], strata: Sequence[str], size: int, seed: int) -> list[str]:
    """Proportional allocation (largest remainder), at least one per stratum while size allows."""
    by_stratum: dict[str, list[str]] = defaultdict(list)
    for unit, stratum in sorted(zip(unit_ids, strata)):
        by_stratum[stratum].append(unit)
    total = sum(len(v) for v in by_stratum.values())
    if size >= total:
        return sorted(u for v in by_stratum.values() for u in v)
    names = sorted(by_stratum)
    exact = {s: size * len(by_stratum[s]) / total for s in names}
    alloc = {s: min(len(by_stratum[s]), max(1, int(exact[s]))) for s in names}
    # Hand out (or take back) the remainder by largest fractional part, deterministically.
    by_remainder = sorted(names, key=lambda s: (-(exact[s] - int(exact[s])), s))
    i = 0
    while sum(alloc.values()) < size and i < 10 * len(names):
        s = by_remainder[i % len(names)]
        if alloc[s] < len(by_stratum[s]):
            alloc[s] += 1
        i += 1
    # The one-per-stratum floor can overshoot: take back from the largest allocations.
    while sum(alloc.values()) > size:
        s = max((s for s in names if alloc[s] > 1), key=lambda s: (alloc[s], s), default=None)
        if s is None:
            break
        alloc[s] -= 1
    rng = np.random.default_rng(seed)
    chosen: list[str] = []
    for s in names:
        members = by_stratum[s]
        pick = rng.permutation(len(members))[: alloc[s]]
        chosen.extend(members[j] for j in pick)
    return sorted(chosen)

"""Which pages get a question: a seeded sample, stratified by template, spread across documents.

Stratifying keeps a rare template from vanishing in the sample; spreading each template's share
across documents keeps one long file from taking most of the slots (inside a template, every
document gives one page before any gives a second); the seed makes the sample reproducible
(same corpus, same seed, same pages). The sample never exceeds `size`: with more templates than
slots, a seeded draw (weighted by template size) decides which templates get their one page.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence

import numpy as np


def _allocate(sizes: dict[str, int], size: int, rng: np.random.Generator) -> dict[str, int]:
    """Pages per stratum: proportional (largest remainder), one per stratum while slots allow."""
    names = sorted(sizes)
    total = sum(sizes.values())
    if len(names) >= size:
        weights = np.array([sizes[s] for s in names], dtype=np.float64)
        picked = rng.choice(len(names), size=size, replace=False, p=weights / weights.sum())
        return {names[i]: 1 for i in sorted(picked.tolist())}
    exact = {s: size * sizes[s] / total for s in names}
    alloc = {s: min(sizes[s], max(1, int(exact[s]))) for s in names}
    by_remainder = sorted(names, key=lambda s: (-(exact[s] - int(exact[s])), s))
    i = 0
    while sum(alloc.values()) < size and i < 10 * len(names) + size:
        s = by_remainder[i % len(names)]
        if alloc[s] < sizes[s]:
            alloc[s] += 1
        i += 1
    while (
        sum(alloc.values()) > size
    ):  # the one-per-stratum floor overshot: take back from the largest
        s = max((s for s in names if alloc[s] > 1), key=lambda s: (alloc[s], s))
        alloc[s] -= 1
    return alloc


def _spread(
    members: list[str], groups: dict[str, str], count: int, rng: np.random.Generator
) -> list[str]:
    """`count` members, one per group (document) in a seeded order before any group gives a second."""
    by_group: dict[str, list[str]] = defaultdict(list)
    for m in members:
        by_group[groups.get(m, m)].append(m)
    queues = [[by_group[g][j] for j in rng.permutation(len(by_group[g]))] for g in sorted(by_group)]
    order = rng.permutation(len(queues))
    out: list[str] = []
    depth = 0
    while len(out) < count:
        for q in order:
            if depth < len(queues[q]) and len(out) < count:
                out.append(queues[q][depth])
        depth += 1
    return out


def stratified_sample(
    unit_ids: Sequence[str],
    strata: Sequence[str],
    size: int,
    seed: int,
    groups: Sequence[str] | None = None,
) -> list[str]:
    """At most `size` units: proportional per stratum, spread over `groups` (e.g. documents) inside one."""
    by_stratum: dict[str, list[str]] = defaultdict(list)
    for unit, stratum in sorted(zip(unit_ids, strata, strict=False)):
        by_stratum[stratum].append(unit)
    total = sum(len(v) for v in by_stratum.values())
    if size >= total:
        return sorted(u for v in by_stratum.values() for u in v)
    if size <= 0:
        return []
    group_of = dict(zip(unit_ids, groups, strict=False)) if groups is not None else {}
    rng = np.random.default_rng(seed)
    alloc = _allocate({s: len(v) for s, v in by_stratum.items()}, size, rng)
    chosen: list[str] = []
    for s in sorted(alloc):
        chosen.extend(_spread(by_stratum[s], group_of, alloc[s], rng))
    return sorted(chosen)

"""Evidence siblings: pages of *another* template that carry the same axis values as the gold.

The chart, the table and the commentary of one quarter often state the same fact. They are not
distractors (they do not look like the gold) and they may well be sufficient: a retriever that
returns the table for a question written on the chart is right. Labelling them (role `pooled`)
keeps scoring from counting such hits as misses.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping, Sequence


def evidence_siblings(
    golds: Sequence[str],
    values: Mapping[str, Mapping[str, str]],  # unit -> axis -> value
    templates: Mapping[str, str],  # unit -> template id
    axes: Sequence[str],
) -> dict[str, list[str]]:
    """gold -> units with every configured axis equal (and known) but a different template."""
    by_key: dict[tuple[str, ...], list[str]] = defaultdict(list)
    for unit, v in values.items():
        key = tuple(v.get(a, "") for a in axes)
        if all(key):
            by_key[key].append(unit)
    out: dict[str, list[str]] = {}
    for gold in golds:
        key = tuple(values.get(gold, {}).get(a, "") for a in axes)
        if not all(key):
            out[gold] = []
            continue
        out[gold] = sorted(
            u for u in by_key[key] if u != gold and templates.get(u, "") != templates.get(gold, "")
        )
    return out

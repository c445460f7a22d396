"""The vocabulary a golden set speaks, defined once: candidate labels, their grades, and slices.

Every layer uses these words (the judge writes labels, golden tables store them, scoring turns
them into gains), so they sit at the bottom, below every stage package.
"""

from __future__ import annotations

from typing import Final, Literal

# Three-way label on every (question, candidate page) pair.
Label = Literal["sufficient", "supporting", "irrelevant"]
LABELS: Final[tuple[Label, ...]] = ("sufficient", "supporting", "irrelevant")

# Graded labels and their linear gains (nDCG gain = grade). Unjudged units get no grade.
GRADES: Final[dict[str, int]] = {"sufficient": 2, "supporting": 1, "irrelevant": 0}
SUFFICIENT: Final[int] = GRADES["sufficient"]
SUPPORTING: Final[int] = GRADES["supporting"]

# What describes a page (sidecar columns, page_metadata, golden_units): its visual template and
# the axes a distractor may differ on.
PAGE_FIELDS: Final[tuple[str, ...]] = (
    "template_id",
    "entity",
    "metric",
    "period",
    "revision",
    "language",
)

# Slices of a golden set, scored and reported separately, in display order.
SLICES: Final[tuple[str, ...]] = ("main", "underspecified", "regression")


# What happens to a question a distractor can still answer: its own slice, or out of the set.
Underspecified = Literal["slice", "drop"]


def underspecified_policy(value: str) -> Underspecified:
    """A configured policy, checked: a typo must not silently keep or drop every such question."""
    if value == "slice":
        return "slice"
    if value == "drop":
        return "drop"
    raise ValueError(f"underspecified must be 'slice' or 'drop', not {value!r}")

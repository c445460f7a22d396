"""Development vs held-out human labels, split deterministically by item.

* **development**: the only labels prompt exemplars (few-shot examples, rubric wording checks)
  may come from (`dev_exemplars`).
* **held-out**: the only labels judge quality is measured on (`core/review/report.py`).

The split is a pure function of the item id (sha256 with a fixed salt), so every labelled pair of
one question lands on the same side (a question's wording and gold page cannot leak from the
exemplars into the test), it never changes when more labels arrive, and nobody can move an item
by re-running anything. Changing `DEV_FRACTION` or the salt would move items across the line and
invalidate the held-out set for every exemplar already chosen: don't, or start a new salt and
re-select exemplars.
"""

from __future__ import annotations

import hashlib
from collections import defaultdict
from collections.abc import Iterable
from typing import Any

from evalset_pipeline.core.review.store import PairReview

SPLIT_SALT = "evalset-review-split/v1"
DEV_FRACTION = 0.3
DEV, HELDOUT = "dev", "heldout"


def split_of(item_id: str, dev_fraction: float = DEV_FRACTION, salt: str = SPLIT_SALT) -> str:
    h = int.from_bytes(hashlib.sha256(f"{salt}:{item_id}".encode()).digest()[:8], "big")
    return DEV if h / 2**64 < dev_fraction else HELDOUT


def split_info(dev_fraction: float = DEV_FRACTION) -> dict[str, Any]:
    return {
        "by": "sha256(salt:item_id)",
        "salt": SPLIT_SALT,
        "dev_fraction": dev_fraction,
        "dev_use": "prompt exemplars only",
        "heldout_use": "judge validation only",
    }


def dev_exemplars(
    reviews: Iterable[PairReview], per_class: int = 2, dev_fraction: float = DEV_FRACTION
) -> list[dict[str, Any]]:
    """Human-labelled pairs from the development split only, up to `per_class` per label.

    Balanced per class (a rare class is represented), one pair per item at most so examples are
    not near-duplicates of one question, deterministic order (by a hash of the key).
    """
    pool: dict[str, list[PairReview]] = defaultdict(list)
    for r in reviews:
        if r.label is None or split_of(r.key.item_id, dev_fraction) != DEV:
            continue
        pool[r.label].append(r)
    out: list[dict[str, Any]] = []
    used_items: set[str] = set()
    for label in sorted(pool):
        ranked = sorted(pool[label], key=lambda r: hashlib.sha256(repr(r.key).encode()).hexdigest())
        taken = 0
        for r in ranked:
            if taken >= per_class:
                break
            if r.key.item_id in used_items:
                continue
            used_items.add(r.key.item_id)
            taken += 1
            out.append(
                {
                    "item_id": r.key.item_id,
                    "unit_id": r.key.unit_id,
                    "question": r.question,
                    "render_hash": r.render_hash,
                    "label": label,
                    "source": r.source,
                    "split": DEV,
                    "rationale": r.rationale(),
                }
            )
    return out

"""Everything a format writer needs, gathered once: the pages, the queries and qrels per slice.

Ids are the golden set's own: query id = `item_id`, corpus id = `unit_id`, in every format, so a
run written with exported ids is a run `evalset score` reads as it is.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any

from evalset_pipeline.core.exports._common import ExportError, UnitPayload, split_name
from evalset_pipeline.core.exports.relevance import QrelsRow, RelevancePolicy
from evalset_pipeline.core.golden.model import GoldenSet


@dataclass(frozen=True)
class ExportData:
    golden: GoldenSet
    units: list[UnitPayload]  # sorted by unit id
    qrels: dict[str, list[QrelsRow]]  # slice -> rows with score > 0
    policy: RelevancePolicy
    scope: str  # "build" | "referenced"
    n_referenced: int

    def __post_init__(self) -> None:
        units = {u.unit_id for u in self.units}
        items = set(self.golden.items.column("item_id").to_pylist())
        # BEIR's evaluator drops results whose doc id equals the query id (ignore_identical_ids).
        clash = sorted(units & items)
        if clash:
            raise ExportError(
                f"item ids equal to unit ids would be dropped by BEIR's evaluator: {clash[:5]}"
            )
        outside = sorted({u for rows in self.qrels.values() for _, u, _ in rows} - units)
        if outside:
            raise ExportError(
                f"{len(outside)} judged unit(s) are not in the exported corpus: {outside[:5]}"
            )

    @property
    def slices(self) -> list[str]:
        """Slices of the version, main first (each becomes one split)."""
        return list(self.qrels)

    def split(self, slice_name: str) -> str:
        return split_name(slice_name)

    @cached_property
    def _items(self) -> list[dict[str, Any]]:
        return [
            {k: v for k, v in r.items() if k != "version_id"} for r in self.golden.items.to_pylist()
        ]

    def items(self) -> list[dict[str, Any]]:
        return list(self._items)

    def queries(self, slice_name: str) -> list[dict[str, Any]]:
        """Items of the slice that have a relevant unit under the policy.

        The others are left out everywhere, as `evalset score` leaves them out of every metric
        (zero-relevant policy): a tool that kept them would average in a zero nobody can beat.
        """
        with_rows = {q for q, _, _ in self.qrels[slice_name]}
        return [i for i in self.items() if i["slice"] == slice_name and i["item_id"] in with_rows]

    def counts(self) -> dict[str, Any]:
        per_slice = {}
        for s in self.slices:
            n_items = sum(1 for i in self.items() if i["slice"] == s)
            n_queries = len(self.queries(s))
            per_slice[s] = {
                "split": self.split(s),
                "items": n_items,
                "queries": n_queries,
                "left_out_no_relevant": n_items - n_queries,
                "qrels": len(self.qrels[s]),
            }
        return {
            "corpus": len(self.units),
            "corpus_referenced": self.n_referenced,
            "slices": per_slice,
        }

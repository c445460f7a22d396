"""The relevance policy of an export: which judged units a qrels row marks relevant, and how much.

External tools (BEIR, pytrec_eval, ranx, MTEB, vidore-benchmark) count every qrels score >= 1 as
relevant unless told otherwise. So the default export is **binary**: relevant = labelled
sufficient, score 1, the same as `evalset score`'s defaults (`--relevance sufficient --gain
binary`); supporting and irrelevant units get no row. `graded` (`--gain graded`, the name
`evalset score` uses too) writes the scorer's own grades (sufficient 2, supporting 1), which
matches `evalset score --gain graded` when the tool is told the relevance level (trec_eval `-l 2`,
pytrec_eval `relevance_level=2`).

The qrels come from the scorer's own `Qrels` (same de-duplication, same label check), and the
grades from `scoring/conventions.GRADES`: one source for both.
"""

from __future__ import annotations

from dataclasses import dataclass

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.scoring.conventions import SLICES, SUFFICIENT
from evalset_pipeline.core.scoring.qrels import qrels_from_golden

QrelsRow = tuple[str, str, int]  # (item id, unit id, score)


@dataclass(frozen=True)
class RelevancePolicy:
    graded: bool = False

    @property
    def name(self) -> str:
        return "graded" if self.graded else "binary"

    def score(self, grade: int) -> int:
        """The qrels score of a judged grade; 0 means no row is written."""
        if self.graded:
            return max(int(grade), 0)
        return 1 if grade >= SUFFICIENT else 0

    @property
    def tool_relevance_level(self) -> int:
        """The level to give trec_eval (`-l`) / pytrec_eval so that relevant = sufficient."""
        return SUFFICIENT if self.graded else 1

    @property
    def evalset_score_flags(self) -> str:
        """`evalset score` flags that compute what a tool computes from this export by default."""
        # Tools count every score >= 1 as relevant: binary export = sufficient only, nDCG binary
        # (evalset score's defaults); graded export = sufficient or supporting, nDCG graded.
        return "" if not self.graded else "--gain graded --relevance supporting"


def export_qrels(golden: GoldenSet, policy: RelevancePolicy) -> dict[str, list[QrelsRow]]:
    """Per slice (every slice of the version, possibly empty): sorted qrels rows with score > 0."""
    qrels = qrels_from_golden(golden)
    item_ids = qrels.item_ids.to_pylist()
    out: dict[str, list[QrelsRow]] = {s: [] for s in SLICES if s in set(qrels.slices.tolist())}
    for i, unit, grade in zip(
        qrels.j_item.tolist(), qrels.j_unit.to_pylist(), qrels.j_grade.tolist(), strict=False
    ):
        score = policy.score(grade)
        if score > 0:
            out[str(qrels.slices[i])].append((item_ids[i], unit, score))
    return {s: sorted(rows) for s, rows in out.items()}

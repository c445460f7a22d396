"""Score a `vidore` export with vidore-benchmark 5.0.0's BEIR evaluator (runs in .venv-vidore).

    python vidore_eval.py EXPORT_DIR OUT_JSON SPLIT [SPLIT ...]

Two stand-in retrievers, no model weights: an image retriever (`use_visual_embedding=True`, so
the evaluator feeds it the `image` column, decoded to PIL) that embeds pixels, and a text
retriever (`use_visual_embedding=False`: the `text_description` column) that embeds hashed
words. Each writes, per split, the evaluator's metrics and the run they were computed from, so
the caller can score the same run with `evalset score`.

Every passage vector carries one extra coordinate that is unique to its content and every query
weighs it the same, so no two pages tie for a query: ties would be broken differently by
pytrec_eval (doc id descending) and evalset (unit id ascending), and this is a parity check.
"""

from __future__ import annotations

import hashlib
import json
import sys
from typing import Any

import torch
from datasets import load_dataset
from vidore_benchmark.evaluation.vidore_evaluators import ViDoReEvaluatorBEIR
from vidore_benchmark.retrievers.base_vision_retriever import BaseVisionRetriever

DIM = 32


def _unique(content: bytes) -> float:
    return int.from_bytes(hashlib.sha256(content).digest()[:4], "big") / 2**32 * 1e-3


def _words(text: str) -> torch.Tensor:
    v = torch.zeros(DIM + 1)
    for word in text.lower().split():
        v[int.from_bytes(hashlib.sha256(word.encode()).digest()[:4], "big") % DIM] += 1.0
    v[:DIM] = v[:DIM] / max(float(v[:DIM].norm()), 1e-9)
    return v


class _StandIn(BaseVisionRetriever):
    def forward_queries(self, queries: Any, batch_size: int, **kwargs: Any) -> torch.Tensor:
        out = torch.stack([_words(q) for q in queries])
        out[:, DIM] = 1.0
        return out

    def get_scores(
        self, query_embeddings: Any, passage_embeddings: Any, batch_size: int | None = None
    ) -> torch.Tensor:
        q = torch.stack(list(query_embeddings)).double()
        p = torch.stack(list(passage_embeddings)).double()
        return q @ p.T


class ImageStandIn(_StandIn):
    def __init__(self) -> None:
        super().__init__(use_visual_embedding=True)

    def forward_passages(self, passages: Any, batch_size: int, **kwargs: Any) -> torch.Tensor:
        rows: list[torch.Tensor] = []
        for image in passages:
            pixels = torch.tensor(
                list(image.convert("L").resize((4, 4)).tobytes()), dtype=torch.float64
            )
            v = torch.zeros(DIM + 1, dtype=torch.float64)
            v[:16] = pixels / 255.0
            v[DIM] = _unique(image.tobytes())
            rows.append(v.float())
        return torch.stack(rows)


class TextStandIn(_StandIn):
    def __init__(self) -> None:
        super().__init__(use_visual_embedding=False)

    def forward_passages(self, passages: Any, batch_size: int, **kwargs: Any) -> torch.Tensor:
        rows = []
        for text in passages:
            v = _words(text)
            v[DIM] = _unique(text.encode())
            rows.append(v)
        return torch.stack(rows)


def main(export_dir: str, out_json: str, splits: list[str]) -> None:
    report: dict[str, Any] = {}
    for split in splits:
        ds = {c: load_dataset(export_dir, c, split=split) for c in ("corpus", "queries", "qrels")}
        report[split] = {}
        for name, retriever in (("image", ImageStandIn()), ("text", TextStandIn())):
            evaluator = ViDoReEvaluatorBEIR(retriever)
            metrics = evaluator.evaluate_dataset(ds, batch_query=4, batch_passage=4)
            queries = retriever.forward_queries(ds["queries"]["query"], batch_size=4)
            passages = retriever.forward_passages(
                ds["corpus"][evaluator.passage_column], batch_size=4
            )
            scores = retriever.get_scores(queries, passages)
            run = [
                [qid, cid, float(scores[i, j])]
                for i, qid in enumerate(ds["queries"]["query-id"])
                for j, cid in enumerate(ds["corpus"]["corpus-id"])
            ]
            report[split][name] = {
                "passage_column": evaluator.passage_column,
                "metrics": metrics,
                "run": run,
            }
    with open(out_json, "w", encoding="utf-8") as f:
        json.dump(report, f)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], sys.argv[3:])

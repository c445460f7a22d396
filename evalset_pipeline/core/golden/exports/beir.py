"""BEIR layout, loadable by `beir.datasets.data_loader.GenericDataLoader(out).load("test")`.

corpus.jsonl       {"_id": unit, "title": first text line, "text": text layer, "image": path, "metadata"}
queries.jsonl      {"_id": item, "text": question, "metadata"}
qrels/test.tsv     main slice; graded: sufficient = 2, supporting = 1 (irrelevant omitted, as BEIR expects)
qrels/<slice>.tsv  the other slices (underspecified, regression) when present
images/            one PNG per distinct render
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from evalset_pipeline.core.golden.exports._common import SCORES, UnitPayload, split_name, write_images, write_jsonl
from evalset_pipeline.core.golden.model import GoldenSet


def export(golden: GoldenSet, out_dir: Path, units: dict[str, UnitPayload]) -> dict[str, Any]:
    write_images(units, out_dir)
    write_jsonl(
        out_dir / "corpus.jsonl",
        [
            {"_id": u.unit_id, "title": u.title, "text": u.text, "image": u.image_name, "metadata": u.metadata}
            for u in units.values()
        ],
    )
    items = golden.items.to_pylist()
    write_jsonl(
        out_dir / "queries.jsonl",
        [
            {
                "_id": i["item_id"],
                "text": i["question"],
                "metadata": {"slice": i["slice"], "answer": i["answer"], "language": i["language"]},
            }
            for i in items
        ],
    )
    split_of = {i["item_id"]: split_name(i["slice"]) for i in items}
    qrels: dict[str, list[tuple[str, str, int]]] = {}
    for j in golden.judgments.to_pylist():
        score = SCORES[j["label"]]
        if score > 0:
            qrels.setdefault(split_of[j["item_id"]], []).append((j["item_id"], j["unit_id"], score))
    (out_dir / "qrels").mkdir(exist_ok=True)
    for split, rows in sorted(qrels.items()):
        # Same dialect as GenericDataLoader's csv.reader, so odd ids round-trip.
        with open(out_dir / "qrels" / f"{split}.tsv", "w", encoding="utf-8", newline="") as f:
            writer = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
            writer.writerow(["query-id", "corpus-id", "score"])
            writer.writerows(sorted(rows))
    return {"corpus": len(units), "queries": len(items), "qrels": {s: len(r) for s, r in sorted(qrels.items())}}

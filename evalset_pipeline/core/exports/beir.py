"""BEIR layout, loadable by `beir.datasets.data_loader.GenericDataLoader(out).load(split)`.

corpus.jsonl       {"_id": unit id, "title": first text line, "text": text layer, "image": path, "metadata"}
queries.jsonl      {"_id": item id, "text": question, "metadata": {slice, answer, language}}
qrels/<split>.tsv  one per slice (`test` = main, `underspecified`, `regression`), scores per the policy
images/            one PNG per distinct render
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any

from evalset_pipeline.core.exports._common import corpus_record, write_images, write_jsonl
from evalset_pipeline.core.exports.data import ExportData


def export(data: ExportData, out_dir: Path) -> dict[str, Any]:
    images = write_images(data.units, out_dir)
    write_jsonl(
        out_dir / "corpus.jsonl",
        (corpus_record(u, images[u.unit_id], "_id") for u in data.units),
    )
    queries = [q for s in data.slices for q in data.queries(s)]
    write_jsonl(
        out_dir / "queries.jsonl",
        (
            {
                "_id": q["item_id"],
                "text": q["question"],
                "metadata": {
                    "slice": q["slice"],
                    "answer": q.get("answer"),
                    "language": q.get("language"),
                },
            }
            for q in queries
        ),
    )
    (out_dir / "qrels").mkdir(exist_ok=True)
    for slice_name in data.slices:
        # Same dialect as GenericDataLoader's csv.reader, so odd ids round-trip.
        with open(
            out_dir / "qrels" / f"{data.split(slice_name)}.tsv", "w", encoding="utf-8", newline=""
        ) as f:
            writer = csv.writer(f, delimiter="\t", quoting=csv.QUOTE_MINIMAL, lineterminator="\n")
            writer.writerow(["query-id", "corpus-id", "score"])
            writer.writerows(data.qrels[slice_name])
    return {
        "files": [
            "corpus.jsonl",
            "queries.jsonl",
            *(f"qrels/{data.split(s)}.tsv" for s in data.slices),
            "images/",
        ]
    }

"""`python -m benchmarks._read_items DATA_DIR [N] [--seed S] [--full]`: print N seeded kept main
items of the latest golden set for reading by hand (../shared/READING.md): question, answer, gold
page, every judged page of its pool with its role, axis or sources, label, rationale and (for
table questions) the figure that page prints for the asked row and period; then every page of the
corpus that prints the answer for its row and period (core/evidence/completeness.py), judged or
not. `--full` also prints each page's whole text layer. A new `--seed` gives a fresh sample
(READING.md: read a fresh sample after a change; seed 40 is the sample earlier notes read)."""

from __future__ import annotations

import argparse
import random
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from dataclasses import replace

    from evalset_pipeline.core.evidence.completeness import answering_cells
    from evalset_pipeline.core.evidence.figures import answer_figure
    from evalset_pipeline.core.evidence.index import EvidenceIndex
    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.pagetext.layer import read_text_layer
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.reader.table_questions import (
        judge_table_question,
        parse_table_question,
        read_table_page,
    )
    from evalset_pipeline.core.tables import read_table

    p = argparse.ArgumentParser(prog="python -m benchmarks._read_items")
    p.add_argument("data_dir", type=Path)
    p.add_argument("n", type=int, nargs="?", default=40)
    p.add_argument("--seed", type=int, default=40)
    p.add_argument("--full", action="store_true", help="print every page's whole text layer")
    args = p.parse_args(argv)
    data = args.data_dir
    gs = load_golden_set("latest", data)
    units = {u["unit_id"]: u for u in gs.units.to_pylist()}
    items = [i for i in gs.items.to_pylist() if i["slice"] == "main"]
    judged = gs.judgments.to_pylist()
    tables = data / "artifacts" / "tables"
    index = EvidenceIndex.read(DataPaths.at(data))
    renders = {r["unit_id"]: r for r in read_table(tables / "page_renders.parquet").to_pylist()}

    def where(u: str) -> str:
        x = units.get(u)
        if x is None:
            r = renders[u]
            return f"{Path(r['document_path']).name} p{r['page_number']} (not in the version)"
        return (
            f"{Path(x['document_path']).name} p{x['page_number']} [{x['template_id']}] "
            f"entity={x['entity']!r} period={x['period']} subject={x['metric']!r}"
        )

    def text(u: str) -> str:
        path = units[u]["text_path"] if u in units else renders[u]["text_path"]
        return str(read_text_layer(data / path).get("text") or "")

    for k, item in enumerate(random.Random(args.seed).sample(items, min(args.n, len(items))), 1):
        gold = item["gold_unit_id"]
        print(f"\n#{k} Q: {item['question']}\n   A: {item['answer']}\n   gold {where(gold)}")
        if args.full:
            print("   | " + text(gold).replace("\n", "\n   | "))
        q = parse_table_question(item["question"])
        mine = [j for j in judged if j["item_id"] == item["item_id"] and j["role"] != "gold"]
        for j in mine:
            prints = ""
            if q is not None:
                layer = read_text_layer(data / units[j["unit_id"]]["text_path"])
                cell = replace(q, entity="", revision="")
                prints = f" prints={judge_table_question(cell, read_table_page(layer)).answer}"
            print(
                f"   {j['role']:10s} {j['axis']:24s} {j['label']:11s} {where(j['unit_id'])}{prints}"
                f"\n{'':16s}{j['rationale'][:160]}"
            )
            if args.full:
                print("      | " + text(j["unit_id"]).replace("\n", "\n      | "))
        figure = answer_figure(item["answer"])
        if figure is not None and figure.specific:
            golds = index.matching_cells(gold, figure)
            seen = {j["unit_id"] for j in mine}
            for c in answering_cells(index, figure, golds, {gold}):
                mark = "judged" if c.unit_id in seen else "NOT JUDGED"
                print(f"   answers {mark:10s} {where(c.unit_id)}: {c.where()}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

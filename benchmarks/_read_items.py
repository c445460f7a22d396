"""`python -m benchmarks._read_items DATA_DIR [N]`: print N seeded kept main items of the latest golden
set for reading by hand: question, answer, gold page, and every distractor and pooled page with its
role, axis, label, and (for table questions) the figure that page prints for the asked row and period.
Pooled pages labelled irrelevant are left out (they are evidence siblings with nothing to say)."""

from __future__ import annotations

import random
import sys
from pathlib import Path


def main(argv: list[str]) -> int:
    from dataclasses import replace

    from evalset_pipeline.core.golden.reader import load_golden_set
    from evalset_pipeline.core.pagetext.layer import read_text_layer
    from evalset_pipeline.core.vlm.table_questions import (
        judge_table_question,
        parse_table_question,
        read_table_page,
    )

    data = Path(argv[0])
    n = int(argv[1]) if len(argv) > 1 else 40
    gs = load_golden_set("latest", data)
    units = {u["unit_id"]: u for u in gs.units.to_pylist()}
    items = [i for i in gs.items.to_pylist() if i["slice"] == "main"]
    judged = gs.judgments.to_pylist()

    def where(u: str) -> str:
        x = units[u]
        return (
            f"{Path(x['document_path']).name} p{x['page_number']} [{x['template_id']}] entity={x['entity']!r} "
            f"period={x['period']} subject={x['metric']!r}"
        )

    for k, item in enumerate(random.Random(40).sample(items, min(n, len(items))), 1):
        print(
            f"\n#{k} Q: {item['question']}\n   A: {item['answer']}\n   gold {where(item['gold_unit_id'])}"
        )
        q = parse_table_question(item["question"])
        for j in judged:
            if (
                j["item_id"] != item["item_id"]
                or j["role"] == "gold"
                or (j["role"] == "pooled" and j["label"] == "irrelevant")
            ):
                continue
            prints = ""
            if q is not None:
                layer = read_text_layer(data / units[j["unit_id"]]["text_path"])
                cell = replace(q, entity="", revision="")
                prints = f" prints={judge_table_question(cell, read_table_page(layer)).answer}"
            print(
                f"   {j['role']:10s} {j['axis']:11s} {j['label']:11s} {where(j['unit_id'])}{prints}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

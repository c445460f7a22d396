"""A small published golden set for review tests (no pipeline run), optionally with hostile text."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa

from evalset_pipeline.core.golden.model import GoldenSet
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline_tests.core.golden.golden_synth import make_draft

JUDGE = {"backend": "textlayer", "model": "textlayer-v1", "prompts": {"label": "lbl0001"}}
HOSTILE_Q = 'Revenue </script><script>window.__xss="q"</script> & <b>bold</b>?'
HOSTILE_TEXT = "<img src=x onerror=window.__xss=1> </pre></details><h1>page</h1>"
FORMULA_ANSWER = '=HYPERLINK("http://x")'


def publish_small_golden(
    data_dir: Path, n_items: int = 10, hostile: bool = False, templates: int = 1, variant: int = 0
) -> GoldenSet:
    """n_items questions (gold + 2 distractors each) over 8 units, published; returns the version."""
    draft = make_draft(data_dir, n_items=n_items, n_units=8, variant=variant)
    items = draft.items.to_pylist()
    units = draft.units.to_pylist()
    for k, u in enumerate(units):
        u["template_id"] = f"t-{k % templates}"
    for k, i in enumerate(items):
        i["qualified_axes"] = "period" if k % 2 else ""
    if hostile:
        items[0]["question"] = HOSTILE_Q
        items[0]["answer"] = FORMULA_ANSWER
        layer = data_dir / units[0]["text_path"]
        layer.write_text(
            json.dumps({"text": HOSTILE_TEXT, "words": [], "width": 4, "height": 4}),
            encoding="utf-8",
        )
    draft.items = pa.Table.from_pylist(items)
    draft.units = pa.Table.from_pylist(units)
    draft.provenance = dict(JUDGE)
    result = publish_golden_set(DataPaths(data_dir), draft)
    return load_golden_set(result.version_id, data_dir)

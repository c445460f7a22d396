"""A rebuild after one PDF was added does only that PDF's work.

Build a small corpus without one document, add it (with its sidecar rows), rebuild: exactly that
document's pages are rendered and embedded, and every model call the rebuild makes concerns an
item that is new or whose pool changed (the added pages print what it asks, or rank among its
baselines' top pages); the rest comes from content-addressed artifacts and the call cache.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import dagster as dg
import duckdb
import pymupdf
import pytest

from evalset_pipeline.core.tables import read_rows
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus, plan_sample_corpus

MODEL_STAGES = ("candidate_questions", "validated_questions", "candidate_labels")
GOLDEN_LINEAGE = dg.AssetSelection.assets("golden_set").upstream()


def ledger_keys(data_dir: Path) -> dict[str, tuple[str, str, str]]:
    """key -> (task, image_hash, question) of every call on the ledger."""
    with duckdb.connect(str(data_dir / "cache" / "model_calls.duckdb"), read_only=True) as con:
        return {
            k: (t, h, q)
            for k, t, h, q in con.execute(
                "SELECT key, task, image_hash, question FROM model_calls"
            ).fetchall()
        }


def tables(data_dir: Path) -> dict[str, list[dict]]:
    t = data_dir / "artifacts" / "tables"
    return {
        name: read_rows(t / f"{name}.parquet")
        for name in (
            "page_renders",
            "gold_sample",
            "hard_negatives",
            "item_pools",
            "candidate_labels",
            "validated_questions",
        )
    }


def build(corpus: Path, data_dir: Path) -> dg.ExecuteInProcessResult:
    resources = {
        "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(corpus), workers=2),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    # Corpus to golden set with its checks (downstream reports are not what this test is about).
    result = dg.materialize(all_assets, resources=resources, selection=GOLDEN_LINEAGE)
    assert result.success
    return result


def meta(result: dg.ExecuteInProcessResult, node: str, key: str):
    return result.asset_materializations_for_node(node)[-1].metadata[key].value


@pytest.fixture(scope="module")
def rebuilt(tmp_path_factory):
    full = tmp_path_factory.mktemp("full_corpus")
    generate_sample_corpus(full, entities=2, periods=3)
    plan = plan_sample_corpus(entities=2, periods=3)
    added = next(
        d for d in reversed(plan.documents) if d.revision == "original"
    ).path  # the newest quarter, 2nd entity
    corpus = tmp_path_factory.mktemp("corpus")
    shutil.copytree(full, corpus, dirs_exist_ok=True)
    (corpus / added).unlink()
    sidecar = (full / "metadata.csv").read_text().splitlines(keepends=True)
    (corpus / "metadata.csv").write_text(
        "".join(line for line in sidecar if not line.startswith(added + ","))
    )

    data_dir = tmp_path_factory.mktemp("data")
    first = build(corpus, data_dir)
    before = {"calls": ledger_keys(data_dir), **tables(data_dir)}

    shutil.copy(full / added, corpus / added)
    shutil.copy(full / "metadata.csv", corpus / "metadata.csv")
    second = build(corpus, data_dir)
    after = {"calls": ledger_keys(data_dir), **tables(data_dir)}
    with pymupdf.open(corpus / added) as doc:
        pages = doc.page_count
    return added, pages, first, second, before, after


def test_only_the_added_pdf_is_rendered_and_embedded(rebuilt):
    added, pages, first, second, before, after = rebuilt
    assert pages == 10
    assert meta(second, "page_renders", "rendered") == pages
    assert meta(second, "page_renders", "reused") == len(before["page_renders"])
    assert meta(second, "page_embeddings", "embedded") == pages
    new_units = {p["unit_id"] for p in after["page_renders"]} - {
        p["unit_id"] for p in before["page_renders"]
    }
    assert len(new_units) == pages
    assert {p["document_path"] for p in after["page_renders"] if p["unit_id"] in new_units} == {
        added
    }
    assert meta(first, "page_renders", "rendered") == len(before["page_renders"])


def test_model_calls_only_for_new_or_changed_items(rebuilt):
    added, pages, first, second, before, after = rebuilt
    new_calls = {k: v for k, v in after["calls"].items() if k not in before["calls"]}
    reported = sum(meta(second, s, "model_calls") for s in MODEL_STAGES)
    assert reported == len(new_calls) > 0

    def pools(rows):
        out: dict[str, set[str]] = {}
        for r in rows:
            out.setdefault(r["gold_unit_id"], set()).add(r["unit_id"])
        return out

    p0, p1 = pools(before["item_pools"]), pools(after["item_pools"])
    s0 = {r["unit_id"] for r in before["gold_sample"]}
    s1 = {r["unit_id"] for r in after["gold_sample"]}
    changed = {u for u in s1 if u not in s0 or p1.get(u) != p0.get(u)}
    unchanged = s1 - changed
    assert changed and unchanged

    render_hash = {p["unit_id"]: p["render_hash"] for p in after["page_renders"]}
    new_pages = {p["unit_id"] for p in after["page_renders"] if p["document_path"] == added}
    item_gold = {v["item_id"]: v["gold_unit_id"] for v in after["validated_questions"]}
    involved = set(new_pages)
    for u in changed:
        involved |= {u} | p1.get(u, set())
    involved |= {
        lab["unit_id"]
        for lab in after["candidate_labels"]
        if item_gold.get(lab["item_id"]) in changed
    }
    allowed = {render_hash[u] for u in involved}
    strays = [(t, h[:12], q) for t, h, q in new_calls.values() if h and h not in allowed]
    assert not strays, f"calls about pages of unchanged items: {strays[:5]}"

    # Questions are written once per page: only for gold pages sampled for the first time.
    writes = sum(1 for t, _, _ in new_calls.values() if t == "write")
    assert writes == len(s1 - s0) > 0
    # Most of the set came from the cache.
    first_calls = sum(meta(first, s, "model_calls") for s in MODEL_STAGES)
    print(
        f"items: {len(changed)} new or changed, {len(unchanged)} unchanged; calls: first build {first_calls}, "
        f"rebuild {len(new_calls)}"
    )
    assert len(new_calls) < first_calls / 2, (len(new_calls), first_calls)
    hits = sum(meta(second, s, "cache_hits") for s in MODEL_STAGES)
    assert hits > len(new_calls)

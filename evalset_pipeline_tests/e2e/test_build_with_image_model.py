"""Through Dagster with an image model configured: the index is built from CLIP vectors of the renders.

The embedder resource gets the tiny random CLIP folder (`tiny_clip` fixture) and nothing else; the
corpus has no metadata.csv, so `template_groups` must cluster. With an image model it clusters on
those page vectors; the offline appearance fallback (used for text models) must not run at all.
Only the index assets are materialized (documents -> page_renders/page_metadata -> page_embeddings
-> template_groups): the golden set itself is covered by the other e2e tests.
"""

from __future__ import annotations

import dagster as dg
import pytest

from evalset_pipeline.core.index.embeddings import EmbedderSpec, EmbeddingStore
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.tables import read_rows
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus
from evalset_pipeline_tests.support.tiny_clip import DIM

INDEX = ["documents", "page_renders", "page_metadata", "page_embeddings", "template_groups"]


def _meta(result: dg.ExecuteInProcessResult, asset: str) -> dict:
    return {
        k: v.value for k, v in result.asset_materializations_for_node(asset)[-1].metadata.items()
    }


@pytest.fixture(scope="module")
def built(tiny_clip, tmp_path_factory):
    corpus = tmp_path_factory.mktemp("corpus")
    generate_sample_corpus(corpus, entities=1, periods=2)
    (corpus / "metadata.csv").unlink()
    data_dir = tmp_path_factory.mktemp("data")
    resources = {
        "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(corpus), workers=1),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(model=str(tiny_clip)),
    }
    result = dg.materialize(all_assets, resources=resources, selection=INDEX)
    assert result.success
    return DataPaths.at(data_dir), resources, result


def test_page_embeddings_come_from_the_configured_image_model(built, tiny_clip):
    paths, _, result = built
    model_id = f"st:{tiny_clip}:image"
    embedded = _meta(result, "page_embeddings")
    assert embedded["model_id"] == model_id and embedded["dim"] == DIM
    assert embedded["embedded"] == embedded["pages"] > 10
    assert {r["model_id"] for r in read_rows(paths.table("page_embeddings"))} == {model_id}


def test_templates_are_clustered_on_the_image_vectors_not_the_appearance_fallback(built, tiny_clip):
    paths, _, result = built
    templates = _meta(result, "template_groups")
    assert templates["clustering"]["vectors"] == f"st:{tiny_clip}:image"
    assert (
        sum(templates["clustering"]["cluster_sizes"]) == _meta(result, "page_embeddings")["pages"]
    )
    assert {g["source"] for g in read_rows(paths.table("template_groups"))} == {"cluster"}
    # The fallback writes an appearance store under the embeddings root; it never ran.
    assert not EmbeddingStore(paths.embeddings, EmbedderSpec()).dir.exists()


def test_a_rebuild_embeds_nothing(built):
    _, resources, first = built
    again = dg.materialize(all_assets, resources=resources, selection=["page_embeddings"])
    assert again.success
    meta = _meta(again, "page_embeddings")
    assert meta["embedded"] == 0 and meta["cached"] == _meta(first, "page_embeddings")["pages"]

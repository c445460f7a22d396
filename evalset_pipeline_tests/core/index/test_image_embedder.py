"""The image-model path: a CLIP folder is one setting away and embeds the page renders, offline.

The model is the tiny random CLIP from `evalset_pipeline_tests/support/tiny_clip.py` (session
fixture `tiny_clip`), loaded through the project's own loader (`EmbedderSpec(model=<folder>)` ->
`embed_pages`), so the code path a real CLIP/SigLIP takes runs here. Random weights say nothing
about quality; what is checked is the plumbing: dimension, normalisation, determinism, the cache
keyed by (model id, render hash), and that the pixels are read, not the text layer.
"""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from evalset_pipeline.core.index import embeddings
from evalset_pipeline.core.index.embeddings import (
    EmbedderSpec,
    EmbeddingStore,
    EmbedInput,
    embed_pages,
    encode_texts_cached,
)
from evalset_pipeline.core.render.pages import PageRender
from evalset_pipeline_tests.core.index.rendered_corpus import Rendered, rendered
from evalset_pipeline_tests.support.tiny_clip import DIM

# Mostly-white pages land near each other under random weights (cosine 0.85 to 0.99), so "different" is judged
# against float noise: a repeat agrees to NOISE, different pages differ by far more than 100x that.
NOISE = 1e-6


@pytest.fixture(scope="module")
def pages(small_corpus, tmp_path_factory):
    return rendered(small_corpus, tmp_path_factory.mktemp("rendered"))


def _distinct_pages(pages: Rendered, n: int) -> list[PageRender]:
    """`n` pages with pairwise different renders and text layers (one per template where possible)."""
    chosen, renders, texts = [], set(), set()
    for p in pages.pages:
        text = json.loads((pages.data_dir / p.text_path).read_text())["text"]
        if p.render_hash not in renders and text not in texts:
            chosen.append(p)
            renders.add(p.render_hash)
            texts.add(text)
        if len(chosen) == n:
            return chosen
    raise AssertionError("the sample corpus has fewer distinct pages than the test needs")


def test_a_local_clip_folder_is_an_image_model_and_its_id_names_the_folder(tiny_clip):
    spec = EmbedderSpec(str(tiny_clip))
    assert spec.resolved_modality == "image"
    assert spec.model_id == f"st:{tiny_clip}:image"
    # Another folder (even with the same weights) or the other modality is another model: another store.
    assert EmbedderSpec(str(tiny_clip) + "-legacy").store_name != spec.store_name
    assert EmbedderSpec(str(tiny_clip), modality="text").store_name != spec.store_name


def test_clip_vectors_are_normalised_deterministic_and_cached_by_model_and_render(
    pages, tiny_clip, tmp_path, monkeypatch
):
    spec = EmbedderSpec(str(tiny_clip), batch_size=4)
    inputs = pages.embed_inputs(_distinct_pages(pages, 6))
    vectors, computed = embed_pages(spec, inputs, tmp_path / "store")
    assert computed == 6
    assert vectors.shape == (6, DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    gaps = np.abs(vectors[:, None, :] - vectors[None, :, :]).max(axis=2)
    assert (
        gaps[~np.eye(6, dtype=bool)].min() > NOISE * 100
    )  # six different pages, six different vectors
    # The store records which model made its rows.
    store = EmbeddingStore(tmp_path / "store", spec)
    assert json.loads((store.dir / "model.json").read_text()) == {"model_id": spec.model_id}

    # A second load of the model into a fresh store gives the same vectors.
    again, computed = embed_pages(spec, inputs, tmp_path / "fresh")
    assert computed == 6
    np.testing.assert_allclose(again, vectors, atol=NOISE)

    # Cached by render hash: a rebuild computes nothing and does not even load the model.
    def no_model(name):
        raise AssertionError(f"model {name} loaded although every page is cached")

    monkeypatch.setattr(embeddings, "load_sentence_transformer", no_model)
    cached, computed = embed_pages(spec, inputs[::-1], tmp_path / "store")
    assert computed == 0
    np.testing.assert_array_equal(cached, vectors[::-1])
    monkeypatch.undo()

    # Keyed by model too: the same weights under another path are another model id and are computed
    # afresh in the same store root, not served from this model's rows.
    copy = tmp_path / "copy-of-tiny-clip"
    shutil.copytree(tiny_clip, copy)
    other, computed = embed_pages(EmbedderSpec(str(copy)), inputs, tmp_path / "store")
    assert computed == 6
    np.testing.assert_allclose(other, vectors, atol=NOISE)


def test_clip_encodes_the_page_image_not_the_text_layer(pages, tiny_clip, tmp_path):
    a, b = _distinct_pages(pages, 2)
    root = pages.data_dir
    # Hand-made inputs (fresh render hashes, so nothing is cached): same text with other pixels,
    # and same pixels with other text.
    base = EmbedInput(
        "a-pixels-a-text", root / a.render_path, root / a.text_path, root / a.thumb_path
    )
    other_pixels = EmbedInput(
        "b-pixels-a-text", root / b.render_path, root / a.text_path, root / a.thumb_path
    )
    other_text = EmbedInput(
        "a-pixels-b-text", root / a.render_path, root / b.text_path, root / b.thumb_path
    )
    v, computed = embed_pages(
        EmbedderSpec(str(tiny_clip)), [base, other_pixels, other_text], tmp_path / "image"
    )
    assert computed == 3
    assert np.abs(v[1] - v[0]).max() > NOISE * 100  # other pixels, same text: another vector
    np.testing.assert_allclose(v[2], v[0], atol=NOISE)  # same pixels, other text: the same vector

    # The same model told to read text does the opposite, so the check above can tell them apart.
    t, _ = embed_pages(
        EmbedderSpec(str(tiny_clip), modality="text"),
        [base, other_pixels, other_text],
        tmp_path / "text",
    )
    np.testing.assert_allclose(t[1], t[0], atol=NOISE)
    assert np.abs(t[2] - t[0]).max() > NOISE * 100


def test_the_published_sentence_transformers_clip_layout_loads_the_same_model(
    pages, tiny_clip, tmp_path
):
    """clip-ViT-B-32 and friends name the legacy `sentence_transformers.models.CLIPModel` module."""
    inputs = pages.embed_inputs(_distinct_pages(pages, 3))
    legacy = tiny_clip.with_name(tiny_clip.name + "-legacy")
    assert "CLIPModel" in (legacy / "modules.json").read_text()
    old, _ = embed_pages(EmbedderSpec(str(legacy)), inputs, tmp_path)
    new, _ = embed_pages(EmbedderSpec(str(tiny_clip)), inputs, tmp_path)
    assert old.shape == (3, DIM)
    np.testing.assert_allclose(old, new, atol=NOISE)


def test_an_image_model_whose_name_hides_it_is_not_silently_used_on_the_text_layer(
    pages, tiny_clip, tmp_path
):
    """'auto' decides from the name; a CLIP under a neutral name must be configured, not guessed wrong."""
    hidden = tmp_path / "vision-encoder"
    shutil.copytree(tiny_clip, hidden)
    inputs = pages.embed_inputs(pages.pages[:2])
    assert EmbedderSpec(str(hidden)).resolved_modality == "text"
    with pytest.raises(ValueError, match="modality='image'"):
        embed_pages(EmbedderSpec(str(hidden)), inputs, tmp_path / "store")
    vectors, computed = embed_pages(
        EmbedderSpec(str(hidden), modality="image"), inputs, tmp_path / "store"
    )
    assert computed == 2 and vectors.shape == (2, DIM)


def test_questions_embed_through_the_clip_text_tower_into_the_page_space(tiny_clip, tmp_path):
    """The `appearance` baseline embeds questions with the page model: CLIP's text side, same space."""
    texts = [
        "What was revenue in 2023?",
        "Operating margin, restated",
        "x" * 400,
    ]  # the last is truncated
    vectors = encode_texts_cached(str(tiny_clip), texts, tmp_path)
    assert vectors.shape == (3, DIM)
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert np.abs(vectors[0] - vectors[1]).max() > NOISE * 100

"""Shared fixtures: small generated corpora, built once per session where tests only read them."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """A 2-period sample corpus (about 100 pages) with its metadata sidecar."""
    from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

    out = tmp_path_factory.mktemp("corpus")
    generate_sample_corpus(out, entities=5, periods=2)
    return out


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory) -> Path:
    """A random CLIP as a sentence-transformers folder (`<tmp>/tiny-clip`, and `tiny-clip-legacy` in
    the old CLIPModel layout), built offline: the image-model path runs without a hub download."""
    from evalset_pipeline_tests.support.tiny_clip import build_tiny_clip

    return build_tiny_clip(tmp_path_factory.mktemp("models") / "tiny-clip", legacy=True)

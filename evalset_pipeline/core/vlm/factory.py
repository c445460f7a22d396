"""Pick and build the question writer / judge backend from plain settings. Never falls back."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.vlm.base import TASKS, VLMBackend
from evalset_pipeline.core.vlm.cache import CachedBackend, CallCache, Prices

BACKENDS = ("textlayer", "openai")


@dataclass(frozen=True)
class VLMConfig:
    backend: str = "textlayer"
    model: str = ""  # required for openai
    base_url: str | None = None  # None: OPENAI_BASE_URL, else the OpenAI API
    api_key_env: str = "OPENAI_API_KEY"  # the name of the variable, never its value
    max_in_flight: int = 16
    image_max_side: int = 1600
    timeout_s: float = 60.0
    max_retries: int = 5
    prices: Prices = field(default_factory=Prices)


def make_backend(config: VLMConfig) -> VLMBackend:
    if config.backend == "textlayer":
        from evalset_pipeline.core.vlm.textlayer import TextLayerBackend

        return TextLayerBackend()
    if config.backend == "openai":
        from evalset_pipeline.core.vlm.openai_backend import OpenAIBackend

        return OpenAIBackend.from_config(config)
    raise ValueError(f"unknown VLM backend {config.backend!r}; choose one of {', '.join(BACKENDS)}")


def backend_identity(backend: VLMBackend) -> dict[str, Any]:
    """What produced the labels: goes into the config fingerprint and the golden set's provenance."""
    return {
        "backend": backend.name,
        "model": backend.model,
        "prompts": {t: backend.prompt_hash(t) for t in TASKS},
    }


def open_cached_backend(config: VLMConfig, paths: DataPaths) -> CachedBackend:
    # Each chunk waits for its slowest call before it is stored; chunks several times the
    # in-flight limit keep the endpoint busy while still bounding what a crash can lose.
    chunk = max(64, 8 * config.max_in_flight)
    return CachedBackend(
        make_backend(config), CallCache(paths.cache_db), config.prices, chunk=chunk
    )

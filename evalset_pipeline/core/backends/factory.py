"""Pick and build the question writer / judge backend from plain settings. Never falls back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from evalset_pipeline.core.judging.base import TASKS, VLMBackend
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.settings import nested, setting
from evalset_pipeline.core.vlm.cache import CachedBackend, CallCache, Prices

BACKENDS = ("textlayer", "openai")


@dataclass(frozen=True)
class VLMConfig:
    """The model backend's settings, declared once: the Dagster `vlm` resource and the `--vlm`
    family of flags are generated from these fields (core/settings.py)."""

    backend: str = setting(
        "textlayer",
        help="Question writer and judge: textlayer (offline) or openai (any OpenAI-compatible endpoint)",
        choices=BACKENDS,
    )
    model: str = setting("", help="Model name; required for openai")
    base_url: str | None = setting(
        None, help="OpenAI-compatible endpoint; unset: $OPENAI_BASE_URL, else the OpenAI API"
    )
    api_key_env: str = setting(
        "OPENAI_API_KEY",
        help="Name of the environment variable that holds the API key (never the key itself)",
    )
    max_in_flight: int = setting(16, help="Model calls in flight at once")
    image_max_side: int = setting(
        1600, help="Longer side, in pixels, a page image is downscaled to before it is sent"
    )
    timeout_s: float = setting(60.0, help="Seconds a model call may take before it is retried")
    max_retries: int = setting(
        5, help="Retries of a call that timed out or met a 429/5xx, with backoff"
    )
    unanswerable_every: int = setting(
        0,
        help="textlayer only: one question in N deliberately asks what its page does not state, "
        "a test that validation drops it (0: never; `evalset build` on the bundled sample corpus: "
        "the sample's own setting, 10)",
    )
    prices: Prices = nested(
        Prices,
        rename={"input_per_mtok": "input_usd_per_mtok", "output_per_mtok": "output_usd_per_mtok"},
    )


def make_backend(config: VLMConfig) -> VLMBackend:
    if config.backend == "textlayer":
        from evalset_pipeline.core.reader.textlayer import TextLayerBackend

        return TextLayerBackend(unanswerable_every=config.unanswerable_every)
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

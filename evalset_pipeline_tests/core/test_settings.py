"""Settings declared once (core/settings.py): flattening, building from flat values, and the
build knobs, whose fingerprint must not move when the declaration does."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from evalset_pipeline.core.backends.factory import VLMConfig
from evalset_pipeline.core.pipeline.context import BuildConfig, config_fingerprint_of
from evalset_pipeline.core.pipeline.settings import BuildSettings
from evalset_pipeline.core.render.pages import RenderSettings
from evalset_pipeline.core.settings import from_flat, setting, settings_of, to_flat
from evalset_pipeline.core.vlm.cache import Prices

# What golden sets built with the default knobs were fingerprinted with; never edit to make a
# test pass: a change here moves every existing golden set's config fingerprint. (It moved once,
# on purpose, when pooling added `pool_depth`: CHANGELOG.md, "Every page that answers".)
DEFAULT_KNOBS = {
    "seed": 13,
    "sample_size": 80,
    "negatives_per_axis": 2,
    "pool_depth": 10,
    "axes": ("period", "metric", "entity"),
    "max_rewrites": 2,
    "underspecified": "slice",
    "render": {"dpi": 96, "max_pixels": 4_000_000},
}
DEFAULT_FINGERPRINT = "3938e4b8c8fafc94"  # config_fingerprint_of(DEFAULT_KNOBS, "appearance", ...)

LAUNCHPAD = [
    "data_dir",
    "corpus_dir",
    "follow_symlinks",
    "seed",
    "sample_size",
    "negatives_per_axis",
    "pool_depth",
    "axes",
    "max_rewrites",
    "underspecified",
    "render_dpi",
    "max_pixels",
    "workers",
    "baseline_retrievers",
]


def test_the_knobs_of_the_defaults_are_pinned():
    knobs = BuildConfig().knobs()
    assert knobs == DEFAULT_KNOBS
    assert config_fingerprint_of(knobs, "appearance", {"backend": "textlayer"}) == (
        DEFAULT_FINGERPRINT
    )
    # built from flat values, as the launchpad and the CLI give them (lists, not tuples)
    flat = to_flat(BuildSettings())
    assert from_flat(BuildSettings, flat).build.knobs() == DEFAULT_KNOBS


def test_build_settings_flatten_to_the_launchpad_names_in_order():
    assert [s.name for s in settings_of(BuildSettings)] == LAUNCHPAD
    render = {s.name: s.path for s in settings_of(BuildSettings)}
    assert render["render_dpi"] == ("build", "render", "dpi")
    assert render["max_pixels"] == ("build", "render", "max_pixels")
    assert all(s.help for s in settings_of(BuildSettings))


def test_nested_defaults_are_the_nested_class_own():
    by_name = {s.name: s.default_value() for s in settings_of(BuildSettings)}
    assert (by_name["render_dpi"], by_name["max_pixels"]) == (
        RenderSettings().dpi,
        RenderSettings().max_pixels,
    )
    vlm = {s.name: s.default_value() for s in settings_of(VLMConfig)}
    assert (vlm["input_usd_per_mtok"], vlm["output_usd_per_mtok"]) == (0.0, 0.0)


def test_from_flat_fills_nested_values_and_keeps_the_other_defaults():
    s = from_flat(BuildSettings, {"render_dpi": 150, "axes": ["period"], "seed": 7})
    assert s.build.render == RenderSettings(dpi=150)
    assert s.build.axes == ("period",) and s.build.seed == 7
    assert s.build.sample_size == BuildConfig().sample_size
    config = from_flat(VLMConfig, {"input_usd_per_mtok": 2.5, "backend": "openai"})
    assert config.prices == Prices(2.5, 0.0) and config.backend == "openai"
    assert to_flat(config)["input_usd_per_mtok"] == 2.5


def test_unknown_settings_and_bad_values_are_refused():
    with pytest.raises(TypeError, match="no setting render"):
        from_flat(BuildSettings, {"render": 1})
    with pytest.raises(ValueError, match="'slice' or 'drop'"):
        from_flat(BuildSettings, {"underspecified": "keep"})


def test_a_field_without_help_is_refused():
    @dataclass
    class Bare:
        ok: int = setting(1, help="fine")
        bare: int = 2

    with pytest.raises(TypeError, match="Bare.bare"):
        settings_of(Bare)

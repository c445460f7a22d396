"""The `settings` and `vlm` resources are generated from core's declarations: the launchpad
shows the same names, defaults and descriptions, and gives back the same core settings."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.backends.factory import VLMConfig
from evalset_pipeline.core.index.embeddings import EmbedderSpec
from evalset_pipeline.core.pipeline.settings import BuildSettings
from evalset_pipeline.core.settings import settings_of, to_flat
from evalset_pipeline.core.vlm.cache import Prices
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline_tests.core.test_settings import DEFAULT_KNOBS, LAUNCHPAD

CASES = [
    (PipelineSettings, BuildSettings),
    (VLMResource, VLMConfig),
    (EmbedderResource, EmbedderSpec),
]


@pytest.mark.parametrize(("resource", "source"), CASES)
def test_fields_have_the_names_defaults_and_descriptions_core_declares(resource, source):
    declared = settings_of(source)
    fields = resource().get_resource_definition().config_schema.config_type.fields
    assert list(fields) == [s.name for s in declared]
    defaults = to_flat(source())
    for s in declared:
        assert fields[s.name].description == s.help, s.name
        assert not fields[s.name].is_required, s.name
        assert getattr(resource(), s.name) == defaults[s.name], s.name
        if fields[s.name].default_provided:  # lists and computed paths are filled in by pydantic
            assert fields[s.name].default_value == defaults[s.name], s.name


def test_launchpad_names_are_unchanged():
    assert list(PipelineSettings.model_fields) == LAUNCHPAD
    assert list(EmbedderResource.model_fields) == ["model", "modality", "batch_size"]
    assert list(VLMResource.model_fields) == [
        "backend",
        "model",
        "base_url",
        "api_key_env",
        "max_in_flight",
        "image_max_side",
        "timeout_s",
        "max_retries",
        "unanswerable_every",
        "input_usd_per_mtok",
        "output_usd_per_mtok",
    ]


def test_resources_give_back_core_settings():
    settings = PipelineSettings(data_dir="d", corpus_dir="c", render_dpi=150, axes=["period"])
    config = settings.build_config()
    assert config.render.dpi == 150 and config.axes == ("period",) and config.corpus_dir == "c"
    assert settings.build_settings().data_dir == "d"
    assert PipelineSettings().build_config().knobs() == DEFAULT_KNOBS
    vlm = VLMResource(backend="openai", model="m", input_usd_per_mtok=2.5).config()
    assert vlm == VLMConfig(backend="openai", model="m", prices=Prices(2.5, 0.0))
    assert EmbedderResource(model="x", batch_size=4).spec() == EmbedderSpec("x", "auto", 4)


def test_a_bad_policy_fails_naming_the_value():
    with pytest.raises(ValueError, match="'keep'"):
        PipelineSettings(underspecified="keep").build_config()

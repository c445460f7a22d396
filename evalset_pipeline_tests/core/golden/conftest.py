"""Fixtures for golden-set storage tests: a fresh data directory and a draft factory."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest

from evalset_pipeline.core.golden.model import GoldenSetDraft
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline_tests.core.golden.golden_synth import make_draft


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    return d


@pytest.fixture
def paths(data_dir: Path) -> DataPaths:
    return DataPaths(data_dir)


@pytest.fixture
def draft(data_dir: Path) -> Callable[..., GoldenSetDraft]:
    def factory(**kwargs: object) -> GoldenSetDraft:
        return make_draft(data_dir, **kwargs)

    return factory

"""Shared fixtures (small generated corpora, the one golden-set build fixture, Chromium) and the
test tiers.

Tiers (markers registered in pyproject.toml, `--strict-markers`), assigned here so test files
need not carry them:
  browser  requests the `chromium` fixture (Chromium + chromedriver; fails in CI without them)
  e2e      under e2e/: the CLI or Dagster in subprocesses, servers, the second venv
  build    requests `golden_build` (an in-process golden-set build), or its module says so
           with `pytestmark = pytest.mark.build` (a test that materializes assets itself)
  slow     under fuzz/ or benchmarks/ (fuzzing, benchmark smoke runs), or loads a torch model
           (requests `tiny_clip`, or says so with `@pytest.mark.slow`)
  unit     none of the above: `make test-fast` (`pytest -m unit`)
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

TESTS = Path(__file__).resolve().parent
TIER_BY_FOLDER = {"e2e": "e2e", "fuzz": "slow", "benchmarks": "slow"}
TIER_BY_FIXTURE = {"golden_build": "build", "chromium": "browser", "tiny_clip": "slow"}
NOT_UNIT = ("build", "e2e", "browser", "slow")


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        folder = Path(str(item.path)).resolve().relative_to(TESTS).parts[0]
        if tier := TIER_BY_FOLDER.get(folder):
            item.add_marker(tier)
        for fixture in set(getattr(item, "fixturenames", ())) & set(TIER_BY_FIXTURE):
            item.add_marker(TIER_BY_FIXTURE[fixture])
        if not any(item.get_closest_marker(m) for m in NOT_UNIT):
            item.add_marker("unit")


@pytest.fixture(scope="session")
def small_corpus(tmp_path_factory) -> Path:
    """A 2-period sample corpus (about 100 pages) with its metadata sidecar."""
    from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

    out = tmp_path_factory.mktemp("corpus")
    generate_sample_corpus(out, entities=5, periods=2)
    return out


@pytest.fixture(scope="session")
def golden_build(tmp_path_factory):
    """Every golden-set build a test runs (support/builds.py); requesting it marks the test `build`."""
    from evalset_pipeline_tests.support.builds import GoldenBuilds

    return GoldenBuilds(tmp_path_factory)


@pytest.fixture(scope="session")
def chromium():
    """Chromium and chromedriver, or a failure in CI (CI=true) / a skip saying why elsewhere;
    requesting it marks the test `browser`."""
    from evalset_pipeline_tests.support.browser import require_chromium

    return require_chromium()


@pytest.fixture(scope="session")
def tiny_clip(tmp_path_factory) -> Path:
    """A random CLIP as a sentence-transformers folder (`<tmp>/tiny-clip`, and `tiny-clip-legacy` in
    the old CLIPModel layout), built offline: the image-model path runs without a hub download."""
    from evalset_pipeline_tests.support.tiny_clip import build_tiny_clip

    return build_tiny_clip(tmp_path_factory.mktemp("models") / "tiny-clip", legacy=True)

"""The one way a test builds a golden set: the `golden_build` fixture (conftest.py) hands out a
`GoldenBuilds`, and requesting it is what puts a test in the `build` tier.

Three builds, each a session-wide one where tests only read the result:
  * `materialize(corpus, data_dir, **settings)`: one in-process Dagster build on the offline
    backends (textlayer writer, the bundled text embedder), the `scores` group left out unless
    `selection` says otherwise;
  * `small()`: the sample generator's 2 entities x 2 periods built once (the import tests' set);
  * `scored(corpus)`: every asset of `corpus`, checks and `baseline_scores` included, once (the
    scoring tests' build; `copy_built` gives a test a private copy to publish into);
  * `bad_corpus()`: the hostile corpus of support/bad_corpus.py through `evalset build --json`
    (in process, `cli.main.main`), once, with the Dagster result captured for asset metadata.
"""

from __future__ import annotations

import contextlib
import io
import json
import shutil
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dagster as dg
import pytest

from evalset_pipeline_tests.support.bad_corpus import BadCorpus, build_bad_corpus

SMALL_AXES = ["period", "metric", "entity", "revision"]  # the restated deck is a revision sibling


@dataclass(frozen=True)
class ScoredBuild:
    data_dir: Path
    baseline_scores: dict[str, Any]  # metadata of the baseline_scores materialization
    golden_version: str  # what golden_set recorded


def copy_built(built: ScoredBuild, tmp_path: Path) -> Path:
    """A private copy of the built data directory, for tests that publish versions."""
    out = tmp_path / "data"
    shutil.copytree(built.data_dir, out)
    return out


@dataclass
class BadBuild:
    corpus: BadCorpus
    data_dir: Path
    rc: int
    summary: dict  # `evalset build --json` output
    stderr: str
    result: Any  # the Dagster result of the CLI's in-process job run (asset metadata)


class GoldenBuilds:
    def __init__(self, tmp_path_factory: pytest.TempPathFactory) -> None:
        self._tmp = tmp_path_factory
        self._small: tuple[Path, Path] | None = None
        self._scored: ScoredBuild | None = None
        self._bad: BadBuild | None = None

    def materialize(
        self,
        corpus: Path,
        data_dir: Path,
        *,
        selection: Any = None,
        raise_on_error: bool = True,
        resources: dict[str, Any] | None = None,
        **settings: Any,
    ) -> dg.ExecuteInProcessResult:
        """Materialize every asset but the scores (or `selection`); with `raise_on_error` a
        failed run fails the test, naming the failed steps."""
        from evalset_pipeline.definitions import all_assets
        from evalset_pipeline.defs.resources import (
            EmbedderResource,
            PipelineSettings,
            VLMResource,
        )

        res: dict[str, Any] = {
            "settings": PipelineSettings(
                data_dir=str(data_dir), corpus_dir=str(corpus), **settings
            ),
            "vlm": VLMResource(),
            "embedder": EmbedderResource(),
            **(resources or {}),
        }
        if selection is None:
            selection = dg.AssetSelection.all() - dg.AssetSelection.groups("scores")
        result = dg.materialize(
            all_assets, resources=res, selection=selection, raise_on_error=False
        )
        if raise_on_error:
            assert result.success, [e.message for e in result.all_events if e.is_step_failure]
        return result

    def small(self) -> tuple[Path, Path]:
        """(corpus, data dir) of a finished 2x2 sample build that published one golden version."""
        if self._small is None:
            from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus

            corpus = self._tmp.mktemp("corpus")
            generate_sample_corpus(corpus, entities=2, periods=2)
            data = self._tmp.mktemp("data")
            self.materialize(corpus, data, workers=1, sample_size=12, axes=SMALL_AXES)
            self._small = corpus, data
        return self._small

    def scored(self, corpus: Path) -> ScoredBuild:
        """`corpus` (the session's `small_corpus`) with every asset materialized once."""
        if self._scored is None:
            data_dir = self._tmp.mktemp("scoring_data")
            result = self.materialize(
                corpus, data_dir, selection=dg.AssetSelection.all(), workers=1
            )
            meta = {
                k: v.value
                for k, v in result.asset_materializations_for_node("baseline_scores")[
                    -1
                ].metadata.items()
            }
            golden = result.asset_materializations_for_node("golden_set")[-1].metadata["version_id"]
            self._scored = ScoredBuild(data_dir, meta, str(golden.value))
        return self._scored

    def bad_corpus(self) -> BadBuild:
        """The bad corpus generated and built through `evalset build --json` once per session."""
        if self._bad is None:
            base = self._tmp.mktemp("bad-input")
            corpus = build_bad_corpus(base / "corpus")
            data_dir = base / "data"
            rc, out, err, result = run_cli_build(
                ["--corpus", str(corpus.root), "--data-dir", str(data_dir), "--json"]
                + ["--workers", "2"]
            )
            summary = json.loads(out) if rc == 0 else {}
            self._bad = BadBuild(corpus, data_dir, rc, summary, err, result)
        return self._bad


def run_cli_build(args: Sequence[str]) -> tuple[int, str, str, Any]:
    """`evalset build ARGS` in process: (exit code, stdout, stderr, the Dagster result or None)."""
    from evalset_pipeline.cli.main import main

    captured: list = []
    real = dg.JobDefinition.execute_in_process

    def capture(self, *a, **kw):  # the CLI runs the build job in process
        captured.append(real(self, *a, **kw))
        return captured[-1]

    out, err = io.StringIO(), io.StringIO()
    with (
        pytest.MonkeyPatch.context() as mp,
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        mp.setattr(dg.JobDefinition, "execute_in_process", capture)
        rc = main(["build", *args])
    return rc, out.getvalue(), err.getvalue(), captured[-1] if captured else None

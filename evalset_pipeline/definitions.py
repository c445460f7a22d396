"""The Definitions the workspace loads: the asset graph, its checks, resources, job, schedule and sensor.

`all_assets` holds the assets *and* their checks, so everything that materializes it
(`evalset build`, `dg.materialize(all_assets, ...)`, the tests) runs the blocking gates before
`golden_set` publishes. Nothing here keeps state in the process: resources read their settings
(EVALSET_DATA_DIR, EVALSET_CORPUS_DIR, ...) and every asset reads its inputs from files.
"""

from __future__ import annotations

import dagster as dg

from evalset_pipeline.core.environment import environment
from evalset_pipeline.defs.assets import corpus, golden, index, negatives, questions, scores
from evalset_pipeline.defs.checks import all_checks
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.defs.schedules import build_golden_set_job, golden_set_refresh
from evalset_pipeline.defs.sensors import corpus_changed

all_assets = [
    *dg.load_assets_from_modules([corpus, index, negatives, questions, golden, scores]),
    *all_checks,
]


def build_executor(kind: str | None = None) -> dg.ExecutorDefinition:
    """The executor every job here uses; EVALSET_EXECUTOR picks it when the code location loads.

    multiprocess (default): two cores, two steps at a time (page_metadata and page_embeddings
    overlap; render and embed use every core inside their own step). EVALSET_MAX_CONCURRENT
    overrides the 2.
    k8s: one Kubernetes pod per step through dagster-k8s's `k8s_job_executor` (installed in the
    deployment image, not a dependency of this package); see docs/scaling.md and deploy/k8s/.
    Model steps are capped across runs either way by the `vlm_endpoint` concurrency pool.
    """
    kind = kind or environment().executor
    if kind == "k8s":
        from dagster_k8s import k8s_job_executor

        return k8s_job_executor
    if kind != "multiprocess":
        raise ValueError(f"EVALSET_EXECUTOR={kind!r}: expected 'multiprocess' or 'k8s'")
    return dg.multiprocess_executor.configured({"max_concurrent": environment().max_concurrent})


executor = build_executor()


def default_resources() -> dict[str, object]:
    return {"settings": PipelineSettings(), "vlm": VLMResource(), "embedder": EmbedderResource()}


defs = dg.Definitions(
    assets=[corpus.corpus_files, corpus.corpus_sidecar, *all_assets],
    jobs=[build_golden_set_job],
    schedules=[golden_set_refresh],
    sensors=[corpus_changed],
    resources=default_resources(),
    executor=executor,
)

__all__ = ["defs", "all_assets", "all_checks", "build_golden_set_job", "default_resources"]

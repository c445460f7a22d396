"""Pooling: the runs' unjudged top-k are judged once and published as a new golden version."""

from __future__ import annotations

import pyarrow.compute as pc
import pytest

from evalset_pipeline.core.backends.factory import VLMConfig, open_cached_backend
from evalset_pipeline.core.golden.reader import list_golden_sets, load_golden_set
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.scoring.baselines import baseline_run
from evalset_pipeline.core.scoring.metrics import score_run
from evalset_pipeline.core.scoring.pooling import pool_runs, top_pairs
from evalset_pipeline.core.scoring.qrels import qrels_from_golden
from evalset_pipeline.core.scoring.report import summarize
from evalset_pipeline.core.scoring.runs import run_from_columns
from evalset_pipeline_tests.support.builds import copy_built

DEPTH = 5  # a reported cutoff (conventions.KS), so judged@DEPTH exists


@pytest.fixture()
def data(small_corpus, golden_build, tmp_path):
    return copy_built(golden_build.scored(small_corpus), tmp_path)


def _judged(golden) -> set[tuple[str, str]]:
    j = golden.judgments
    return set(zip(j.column("item_id").to_pylist(), j.column("unit_id").to_pylist(), strict=False))


def test_top_pairs_follow_the_declared_order_and_skip_repeats_and_strangers():
    run = run_from_columns(
        ["a", "a", "a", "a", "b", "x"],
        ["u2", "u1", "u1", "u3", "u9", "u1"],
        [0.5, 0.5, 0.4, 0.1, 1.0, 1.0],
    )
    import pyarrow as pa

    q, units, unknown = top_pairs(run, pa.array(["a", "b"]), depth=2)
    assert list(zip(q.tolist(), units, strict=False)) == [
        (0, "u1"),
        (0, "u2"),
        (1, "u9"),
    ]  # tie: unit id ascending
    assert unknown == 1


def test_pool_add_judges_new_units_publishes_a_version_and_is_idempotent(data):
    paths = DataPaths.at(data)
    parent = load_golden_set("latest", data)
    run = baseline_run(paths, parent.items, "random", depth=20)
    before = summarize(score_run(qrels_from_golden(parent), run))["main"].metrics

    def opener():
        return open_cached_backend(VLMConfig(), paths)

    result = pool_runs(paths, parent, [run], opener, depth=DEPTH)
    assert result.created and result.added > 0 and result.parent_version == parent.version_id
    assert result.considered == result.already_judged + result.added + result.unknown_units
    child = load_golden_set("latest", data)
    assert child.version_id == result.version_id != parent.version_id
    assert child.info["parent_version"] == parent.version_id
    assert child.info["config_fingerprint"] == parent.info["config_fingerprint"]
    assert child.info["corpus_fingerprint"] == parent.info["corpus_fingerprint"]
    assert child.items.drop_columns(["version_id"]).equals(
        parent.items.drop_columns(["version_id"])
    )

    # The new judgments: role pooled, labelled by the model, exactly the unjudged top-k pairs.
    new = _judged(child) - _judged(parent)
    assert len(new) == result.added
    pooled = child.judgments.filter(pc.equal(child.judgments.column("role"), "pooled"))
    rows = {(r["item_id"], r["unit_id"]): r for r in pooled.to_pylist()}
    assert new <= set(rows)
    assert all(rows[p]["label_source"] == "model" and rows[p]["label"] for p in new)
    assert sum(result.by_label.values()) == result.added
    assert set(child.units.column("unit_id").to_pylist()) >= {u for _, u in new}
    record = child.info["provenance"]["pooling"][-1]
    assert (
        record["runs"] == ["baseline-random"]
        and record["added"] == result.added
        and record["depth"] == DEPTH
    )

    # Every unit of the run's top DEPTH is judged now: judged@k is complete to that depth.
    after = summarize(score_run(qrels_from_golden(child), run))["main"].metrics
    assert after[f"judged@{DEPTH}"] == pytest.approx(1.0)
    assert before[f"judged@{DEPTH}"] < 1.0

    # Again: nothing new, same version, nothing published; from the parent again: same content, same id.
    again = pool_runs(paths, child, [run], opener, depth=DEPTH)
    assert not again.created and again.added == 0 and again.version_id == child.version_id
    replay = pool_runs(paths, parent, [run], opener, depth=DEPTH)
    assert replay.version_id == child.version_id and not replay.created
    assert (
        replay.model_calls == 0 and replay.cache_hits == result.added
    )  # labels reused from the cache
    assert len(list_golden_sets(data)) == 2

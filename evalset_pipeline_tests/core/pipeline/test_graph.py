"""The stage graph: every read has a producer upstream of its reader, reads are enforced, and code
versions cover the whole import closure."""

from __future__ import annotations

from pathlib import Path

import pytest

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.pipeline import graph


def test_every_read_has_a_producer_that_runs_earlier():
    order = [*graph.EXTERNAL, *graph.STAGES]
    for stage, reads in graph.READS.items():
        for name in reads:
            assert name in graph.PRODUCER, (stage, name)
            producer = graph.PRODUCER[name]
            assert order.index(producer) <= order.index(stage), (stage, name, producer)
    assert graph.upstream("golden_set")[-1] == "candidate_labels"
    assert "golden_set" not in graph.upstream("golden_set")  # a stage is never its own upstream


def test_stage_paths_refuse_undeclared_tables_and_allow_declared_ones(tmp_path):
    paths = graph.stage_paths(tmp_path, "hard_negatives")
    assert isinstance(paths, DataPaths)
    assert (
        paths.table("page_metadata") == tmp_path / "artifacts" / "tables" / "page_metadata.parquet"
    )
    assert paths.table("comparative_pages").name == "comparative_pages.parquet"  # its own output
    with pytest.raises(
        graph.UndeclaredRead, match=r"READS\['hard_negatives'\].*candidate_labels is upstream"
    ):
        paths.table("candidate_labels")
    golden = graph.stage_paths(tmp_path, "golden_set")
    assert golden.table_file("corpus_manifest.json").name == "corpus_manifest.json"
    assert golden.table_file("candidate_labels.calls.json").name == "candidate_labels.calls.json"
    with pytest.raises(graph.UndeclaredRead):
        golden.table_file("gold_sample.calls.json")


def _rel(paths: list[Path]) -> set[str]:
    return {p.relative_to(graph.PACKAGE_DIR).as_posix() for p in paths}


def test_the_import_closure_finds_what_hand_kept_lists_missed():
    golden = _rel(graph.import_closure(graph.STAGE_MODULES["golden_set"]))
    assert "core/review/apply.py" in golden  # imported inside a function: it overrides labels
    scores = _rel(graph.import_closure(graph.STAGE_MODULES["baseline_scores"]))
    assert {"core/scoring/conventions.py", "core/scoring/runs.py", "core/scoring/bm25.py"} <= scores
    labels = _rel(graph.import_closure(graph.STAGE_MODULES["candidate_labels"]))
    assert "core/vlm/cache.py" in labels and "core/pipeline/model_calls.py" in labels
    assert "core/scoring/headline.py" not in labels  # only what is imported


def test_prompt_files_are_part_of_the_model_stages_code_version(tmp_path, monkeypatch):
    prompts = sorted((graph.PACKAGE_DIR / "core" / "vlm" / "prompts").glob("*.md"))
    assert prompts
    files = graph._data_files(graph.import_closure(graph.STAGE_MODULES["candidate_questions"]))
    assert set(prompts) <= set(files)
    # editing one changes the version (on a copy of the package, never the real one)
    import shutil

    copy = tmp_path / graph.PACKAGE
    shutil.copytree(graph.PACKAGE_DIR, copy, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(graph, "PACKAGE_DIR", copy)
    graph.code_version.cache_clear()
    try:
        before = graph.code_version("candidate_questions"), graph.code_version("page_renders")
        (copy / "core" / "vlm" / "prompts" / prompts[0].name).write_text(
            "changed", encoding="utf-8"
        )
        graph.code_version.cache_clear()
        after = graph.code_version("candidate_questions"), graph.code_version("page_renders")
    finally:
        graph.code_version.cache_clear()
    assert after[0] != before[0] and after[1] == before[1]

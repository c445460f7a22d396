"""A stage whose inputs did not change is not run again; any change to them, or to its outputs,
runs it (core/pipeline/memo.py, on `page_metadata` over a small drawn corpus)."""

from __future__ import annotations

import pytest

from evalset_pipeline.core.pipeline.context import BuildConfig, StageContext
from evalset_pipeline.core.pipeline.documents import build_documents
from evalset_pipeline.core.pipeline.graph import stage_paths
from evalset_pipeline.core.pipeline.memo import memo_path
from evalset_pipeline.core.pipeline.page_metadata import build_page_metadata_table
from evalset_pipeline.core.pipeline.page_renders import build_page_renders
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus


def _ctx(data, corpus, stage: str, **knobs) -> StageContext:
    return StageContext(
        paths=stage_paths(data, stage),
        config=BuildConfig(corpus_dir=str(corpus), workers=1, **knobs),
    )


@pytest.fixture()
def built(tmp_path):
    corpus, data = tmp_path / "corpus", tmp_path / "data"
    generate_sample_corpus(corpus, entities=1, periods=2)
    build_documents(_ctx(data, corpus, "documents"))
    build_page_renders(_ctx(data, corpus, "page_renders"))
    first = build_page_metadata_table(_ctx(data, corpus, "page_metadata"))
    return corpus, data, first


def _runs(data, corpus, **knobs) -> bool:
    """Did page_metadata run (rather than reuse its last result)?"""
    record = memo_path(stage_paths(data, "page_metadata"), "page_metadata")
    before = record.stat().st_mtime_ns
    build_page_metadata_table(_ctx(data, corpus, "page_metadata", **knobs))
    return record.stat().st_mtime_ns != before


def test_unchanged_inputs_reuse_the_last_result(built):
    corpus, data, first = built
    ctx = _ctx(data, corpus, "page_metadata")
    again = build_page_metadata_table(ctx)
    assert again.metrics == first.metrics and again.tables == first.tables
    assert not _runs(data, corpus)


def test_a_sidecar_edit_runs_it(built):
    corpus, data, _ = built
    sidecar = corpus / "metadata.csv"
    lines = sidecar.read_text(encoding="utf-8").splitlines()
    sidecar.write_text("\n".join(lines[:-1]) + "\n", encoding="utf-8")  # one page less described
    assert _runs(data, corpus)
    assert not _runs(data, corpus)  # and is reused again after


def test_a_deleted_or_edited_output_runs_it(built):
    corpus, data, _ = built
    paths = stage_paths(data, "page_metadata")
    paths.table("page_profiles").unlink()
    assert _runs(data, corpus)
    assert paths.table("page_profiles").exists()
    paths.table("document_facts").write_bytes(b"not a table")
    assert _runs(data, corpus)


def test_other_knobs_or_a_lost_record_run_it(built):
    corpus, data, _ = built
    assert _runs(data, corpus, seed=14)
    memo_path(stage_paths(data, "page_metadata"), "page_metadata").write_text("{", encoding="utf-8")
    assert _runs(data, corpus)

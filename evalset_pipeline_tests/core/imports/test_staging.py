"""A large import's rows staged on disk publish as the version the same rows in memory would."""

from __future__ import annotations

import pyarrow as pa
import pytest

from evalset_pipeline.core.golden.errors import InvalidDraft
from evalset_pipeline.core.golden.publish import prepare_draft, publish_prepared
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.golden.validate import normalise_table
from evalset_pipeline.core.imports.staging import STAGING_PREFIX, staging
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline_tests.core.golden.golden_synth import make_draft


def _tricky(draft):
    """Questions whose encodings sort differently from their text: a prefix, a quote, non-ASCII."""
    items = draft.items.to_pylist()
    words = ["Q", "Q 2", 'Q "quoted"', "Qé ünï 한국어", "Q\ttab", "Q\\slash"]
    for i, item in enumerate(items):
        item["question"] = words[i % len(words)] + f" {i}"
    draft.items = pa.Table.from_pylist(items, schema=draft.items.schema)
    return draft


def _stage(paths, draft):
    with staging(paths) as staged:
        for name, table in (("golden_items", draft.items), ("golden_judgments", draft.judgments)):
            rows = table.to_pylist()
            staged.add(name, rows[: len(rows) // 2])  # in two batches, out of order
            staged.add(name, rows[len(rows) // 2 :])
        units = normalise_table("golden_units", draft.units)
        version = staged.prepare(
            draft.corpus, draft.config_fingerprint, units, draft.funnel, draft.provenance
        )
        result = publish_prepared(paths, version)
    return version, result


def test_staged_rows_get_the_in_memory_version_id_and_snapshot(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    paths = DataPaths(data)
    draft = _tricky(make_draft(data, n_items=40))
    expected = prepare_draft(draft)
    version, result = _stage(paths, draft)
    assert version.version_id == expected.version_id == result.version_id
    assert (version.n_items, version.slices) == (expected.n_items, expected.slices)
    got = load_golden_set(result.version_id, data)  # checksums verified on read
    assert got.items.num_rows == draft.items.num_rows
    assert sorted(got.judgments.column("item_id").to_pylist()) == sorted(
        draft.judgments.column("item_id").to_pylist()
    )
    assert not list(data.glob(f"{STAGING_PREFIX}*"))  # the staging area is gone


def test_staged_rows_are_checked_like_a_draft(tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    draft = make_draft(data)
    judgments = draft.judgments.to_pylist()
    judgments[0]["label"] = "maybe"
    draft.judgments = pa.Table.from_pylist(judgments + judgments[:1], schema=draft.judgments.schema)
    with pytest.raises(InvalidDraft) as err:
        _stage(DataPaths(data), draft)
    assert "unknown label: ['maybe']" in str(err.value)
    assert "duplicate (item_id, unit_id)" in str(err.value)
    assert not (data / "golden" / "versions").exists() or not any(
        (data / "golden" / "versions").iterdir()
    )

"""Issue 30: a version published without moving latest (what `evalset import` does), and a
publish killed before its indexes caught up, which `golden verify` reports as a lag (exit 0),
not as corruption."""

from __future__ import annotations

import signal
import subprocess
import sys
from pathlib import Path

import duckdb
import pytest

from evalset_pipeline import load_golden_set
from evalset_pipeline.cli.main import main
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.golden.reader import imported_versions, publish_history
from evalset_pipeline.core.golden.verify import verify_golden
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline_tests.core.golden.golden_synth import child_env
from evalset_pipeline_tests.core.golden.test_golden_concurrency import PUBLISHER


def _import_draft(draft, variant: int):
    d = draft(variant=variant)
    d.provenance = {**d.provenance, "kind": "import", "source": "bench"}
    return d


def _sql_latest(data_dir: Path) -> str:
    db = data_dir / "golden" / "evalsets_read.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        return str(con.execute("SELECT version_id FROM latest_golden_set").fetchone()[0])


def test_a_version_published_off_latest_leaves_latest_alone(data_dir: Path, draft):
    paths = DataPaths(data_dir)
    built = publish_golden_set(paths, draft(variant=0))
    imported = publish_golden_set(paths, _import_draft(draft, 1), make_latest=False)
    assert imported.created and not imported.is_latest and not imported.latest_moved
    assert load_golden_set("latest", data_dir).version_id == built.version_id
    assert _sql_latest(data_dir) == built.version_id
    assert [e["version_id"] for e in publish_history(data_dir)] == [built.version_id]
    assert [i["version_id"] for i in imported_versions(data_dir)] == [imported.version_id]
    assert load_golden_set(imported.version_id, data_dir).info["seq"] == 2  # readable by id
    assert verify_golden(paths).ok and not verify_golden(paths).lags
    # the next build publishes on top: latest is the build's, the import is still there by id
    nxt = publish_golden_set(paths, draft(variant=2))
    assert load_golden_set("latest", data_dir).version_id == nxt.version_id
    assert nxt.parent_version == built.version_id


def test_an_import_alone_is_never_backfilled_into_latest(data_dir: Path, draft):
    """An import published before any build version: no event, no LATEST; a later import does not
    make the first one latest by backfilling history."""
    paths = DataPaths(data_dir)
    first = publish_golden_set(paths, _import_draft(draft, 1), make_latest=False)
    publish_golden_set(paths, _import_draft(draft, 2), make_latest=False)
    assert publish_history(data_dir) == []
    assert not (data_dir / "golden" / "LATEST").exists()
    assert load_golden_set(first.version_id, data_dir).version_id == first.version_id
    db = data_dir / "golden" / "evalsets_read.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:  # SQL agrees: nothing is latest
        assert con.execute("SELECT count(*) FROM latest_golden_set").fetchone() == (0,)
        assert con.execute("SELECT count(*) FROM golden_sets").fetchone() == (2,)
    assert verify_golden(paths).ok


@pytest.mark.e2e  # a publishing subprocess killed mid-way
@pytest.mark.parametrize("phase", ["renamed", "committed", "reader_db_swapped"])
def test_an_interrupted_publish_is_a_lag_not_corruption(data_dir: Path, draft, phase, capsys):
    publish_golden_set(DataPaths(data_dir), draft())
    child = subprocess.Popen(
        [sys.executable, "-c", PUBLISHER, str(data_dir), "1", "1", phase],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=child_env(),
    )
    child.communicate(timeout=120)
    assert child.returncode == -signal.SIGKILL
    report = verify_golden(DataPaths(data_dir))
    assert report.ok and report.lags, (report.problems, report.lags)
    assert main(["golden", "verify", "--data-dir", str(data_dir)]) == 0
    out = capsys.readouterr().out
    assert "LAG " in out and "the next publish catches them up" in out
    publish_golden_set(DataPaths(data_dir), draft(variant=5))  # the next publish repairs it
    report = verify_golden(DataPaths(data_dir))
    assert report.ok and not report.lags

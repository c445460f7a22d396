"""`connect_golden_sql`: a read-only connection to the reader copy, opened again when a connect
straddled a publish's swap (DuckDB opens the file three times while connecting; a swap between
two of them hands it one file's header and another's blocks). The race itself takes a swap
inside a connect, microseconds wide: `test_golden_concurrency` runs it for real with a publisher
and readers in tight loops; here the straddled connect's IO error is injected once, the only
way to make it happen on every run."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from evalset_pipeline import connect_golden_sql
from evalset_pipeline.core.golden import sql_reader
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.paths import DataPaths

pytestmark = pytest.mark.unit


def test_a_connect_reads_the_latest_version(data_dir: Path, draft):
    info = publish_golden_set(DataPaths(data_dir), draft())
    con = connect_golden_sql(data_dir)
    try:
        assert (
            con.execute("SELECT version_id FROM latest_golden_set").fetchone()[0] == info.version_id
        )
    finally:
        con.close()


def test_a_connect_that_straddled_a_swap_is_opened_again(data_dir: Path, draft, monkeypatch):
    publish_golden_set(DataPaths(data_dir), draft())
    real, calls = duckdb.connect, []

    def straddled_once(*args, **kwargs):
        calls.append(args)
        if len(calls) == 1:
            raise duckdb.IOException(
                'IO Error: Could not read enough bytes from file "evalsets_read.duckdb"'
            )
        return real(*args, **kwargs)

    monkeypatch.setattr(sql_reader.duckdb, "connect", straddled_once)
    con = connect_golden_sql(data_dir)
    con.close()
    assert len(calls) == 2


def test_a_missing_reader_copy_is_named(tmp_path: Path):
    with pytest.raises(FileNotFoundError, match="evalsets_read.duckdb: no reader copy yet"):
        connect_golden_sql(tmp_path)

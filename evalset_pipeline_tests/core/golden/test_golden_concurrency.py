"""Readers during rebuilds, and publishers killed with SIGKILL.

- One child process publishes new versions back to back while this process reads "latest"
  through the Python API and a second child reads it through SQL on the reader copy, both in
  tight loops for the whole time: zero errors, every read a complete version.
- A publishing child is SIGKILLed at each named phase and at random moments (several seeds):
  no partial version is visible through the API or SQL, and the next publish repairs everything.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from evalset_pipeline import list_golden_sets, load_golden_set
from evalset_pipeline.core.golden.layout import GoldenLayout
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline_tests.core.golden.golden_synth import child_env

pytestmark = pytest.mark.e2e  # publishers and readers in subprocesses, killed at random

JUDGMENTS_PER_ITEM = 3  # golden_synth: gold + two distractors

# Publishes variant k with 6 + k % 5 items, so a read mixing two versions would show.
PUBLISHER = """
import sys, time, os
from pathlib import Path
from evalset_pipeline_tests.core.golden.golden_synth import make_draft
from evalset_pipeline.core.golden import publish
from evalset_pipeline.core.paths import DataPaths
data, first, last = Path(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
crash_at = sys.argv[4] if len(sys.argv) > 4 else ""
if crash_at:
    publish._PHASE_HOOK = lambda phase: os.kill(os.getpid(), 9) if phase == crash_at else None
drafts = [make_draft(data, variant=k, n_items=6 + k % 5) for k in range(first, last + 1)]
print("ready", flush=True)
for draft in drafts:
    publish.publish_golden_set(DataPaths(data), draft)
print("done", flush=True)
"""

SQL_READER = """
import json, sys, time, duckdb
from pathlib import Path
from evalset_pipeline import connect_golden_sql
data, stop, out = Path(sys.argv[1]), Path(sys.argv[2]), Path(sys.argv[3])
reads, errors, seen = 0, [], set()
while not stop.exists():
    try:
        con = connect_golden_sql(data)
        try:
            vid, n_items, items, judgments = con.execute(
                "SELECT (SELECT version_id FROM latest_golden_set), (SELECT n_items FROM latest_golden_set),"
                " (SELECT count(*) FROM latest_golden_items), (SELECT count(*) FROM latest_golden_judgments)"
            ).fetchone()
        finally:
            con.close()
        if items != n_items or judgments != 3 * n_items:
            errors.append(f"incomplete {vid}: {items} items / {judgments} judgments, row says {n_items}")
        seen.add(vid)
        reads += 1
    except Exception as exc:
        errors.append(repr(exc))
out.write_text(json.dumps({"reads": reads, "errors": errors[:20], "n_errors": len(errors), "versions": sorted(seen)}))
"""


def _spawn(code: str, *args: object) -> subprocess.Popen:
    return subprocess.Popen(
        [sys.executable, "-c", code, *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=child_env(),
    )


def _assert_complete(golden) -> None:
    assert golden.items.num_rows == golden.info["n_items"]
    assert golden.judgments.num_rows == JUDGMENTS_PER_ITEM * golden.info["n_items"]


def test_readers_never_fail_during_rebuilds(data_dir: Path, draft, tmp_path: Path):
    n_versions = 12
    publish_golden_set(DataPaths(data_dir), draft())
    assert GoldenLayout(DataPaths(data_dir)).reader_db.exists()
    stop, sql_out = tmp_path / "stop", tmp_path / "sql.json"
    # the reader connects as the SQL contract says (docs/golden_sets.md): `connect_golden_sql`
    sql_reader = _spawn(SQL_READER, data_dir, stop, sql_out)
    publisher = _spawn(PUBLISHER, data_dir, 1, n_versions)
    assert publisher.stdout.readline().strip() == "ready"
    api_reads, api_errors, api_seen = 0, [], set()
    try:
        while publisher.poll() is None:
            try:
                golden = load_golden_set(data_dir=data_dir)
                _assert_complete(golden)
                api_seen.add(golden.version_id)
                api_reads += 1
            except Exception as exc:  # noqa: BLE001 - any failure at all is what this test counts
                api_errors.append(repr(exc))
    finally:
        stop.touch()
        sql_reader.wait(timeout=30)
    out, err = publisher.communicate()
    assert publisher.returncode == 0, err
    sql = json.loads(sql_out.read_text())
    print(
        f"api reads={api_reads} versions={len(api_seen)}; sql reads={sql['reads']} versions={len(sql['versions'])}"
    )
    assert api_errors == [] and sql["n_errors"] == 0, (api_errors[:5], sql["errors"])
    # The reads really overlapped the rebuilds: several versions went by under both readers.
    assert api_reads > 20 and len(api_seen) >= 3, (api_reads, len(api_seen))
    assert sql["reads"] > 20 and len(sql["versions"]) >= 3, sql
    assert len(list_golden_sets(data_dir)) == n_versions + 1
    assert load_golden_set(data_dir=data_dir).info["seq"] == n_versions + 1


def _assert_consistent(data_dir: Path) -> set[str]:
    """Everything a reader can reach is a complete version; returns the versions on disk."""
    paths, layout = DataPaths(data_dir), GoldenLayout(DataPaths(data_dir))
    versions = {v["version_id"] for v in list_golden_sets(data_dir)}
    for version_id in versions:
        _assert_complete(load_golden_set(version_id, data_dir))
    latest = load_golden_set(data_dir=data_dir)
    _assert_complete(latest)
    for db in (layout.reader_db, paths.warehouse):  # the child is dead, so the warehouse is free
        con = duckdb.connect(str(db), read_only=True)
        try:
            rows = con.execute(
                "SELECT s.version_id, s.n_items, "
                "(SELECT count(*) FROM golden_items i WHERE i.version_id = s.version_id),"
                " (SELECT count(*) FROM golden_judgments j WHERE j.version_id = s.version_id) FROM golden_sets s"
            ).fetchall()
        finally:
            con.close()
        for version_id, n_items, items, judgments in rows:
            assert version_id in versions, f"{db.name} has {version_id} without a snapshot"
            assert (items, judgments) == (n_items, JUDGMENTS_PER_ITEM * n_items), (
                f"partial {version_id} in {db.name}"
            )
    return versions


def _assert_repaired(data_dir: Path, draft, variant: int) -> None:
    before = _assert_consistent(data_dir)
    result = publish_golden_set(
        DataPaths(data_dir), draft(variant=variant, n_items=6 + variant % 5)
    )
    layout = GoldenLayout(DataPaths(data_dir))
    after = _assert_consistent(data_dir)
    seqs = sorted(v["seq"] for v in list_golden_sets(data_dir))
    assert result.created and after == before | {result.version_id}
    assert seqs == list(range(1, len(after) + 1)) and result.seq == seqs[-1]
    latest = layout.read_latest()
    assert (latest["version_id"], latest["seq"]) == (result.version_id, result.seq)
    assert not list(layout.root.glob(".tmp-*"))
    for db in (layout.reader_db, DataPaths(data_dir).warehouse):
        con = duckdb.connect(str(db), read_only=True)
        assert {r[0] for r in con.execute("SELECT version_id FROM golden_sets").fetchall()} == after
        assert (
            con.execute("SELECT version_id FROM latest_golden_set").fetchone()[0]
            == result.version_id
        )
        con.close()


@pytest.mark.parametrize(
    "phase", ["snapshot_written", "renamed", "committed", "reader_db_swapped", "latest_swapped"]
)
def test_sigkill_at_each_phase(data_dir: Path, draft, phase: str):
    publish_golden_set(DataPaths(data_dir), draft())
    child = _spawn(PUBLISHER, data_dir, 1, 1, phase)
    child.communicate(timeout=60)
    assert child.returncode == -signal.SIGKILL
    visible = {v["version_id"] for v in list_golden_sets(data_dir)}
    assert len(visible) == (
        1 if phase == "snapshot_written" else 2
    )  # the rename is the commit point
    _assert_repaired(data_dir, draft, variant=2)


@pytest.mark.parametrize("seed", [1, 2, 3, 4])
def test_sigkill_at_random_moments(data_dir: Path, draft, seed: int):
    publish_golden_set(DataPaths(data_dir), draft())
    child = _spawn(PUBLISHER, data_dir, 1, 40)
    assert child.stdout.readline().strip() == "ready"
    time.sleep(random.Random(seed).uniform(0.0, 1.5))
    os.kill(child.pid, signal.SIGKILL)
    child.communicate(timeout=30)
    assert child.returncode == -signal.SIGKILL  # it was still publishing when killed
    _assert_repaired(data_dir, draft, variant=100 + seed)

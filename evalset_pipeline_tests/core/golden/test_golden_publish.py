"""Version identity, immutability, checksums, reconciliation after crashes, lock handling."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from pathlib import Path

import duckdb
import pyarrow as pa
import pytest

from evalset_pipeline import load_golden_set
from evalset_pipeline.core.golden import publish as publish_mod
from evalset_pipeline.core.golden.errors import (
    GoldenSetCorrupt,
    GoldenSetLocked,
    GoldenSetNotFound,
    InvalidDraft,
    InvalidVersionId,
)
from evalset_pipeline.core.golden.layout import GoldenLayout
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.golden.reader import list_golden_sets
from evalset_pipeline_tests.core.golden.golden_synth import child_env


def _warehouse_rows(paths) -> list[tuple]:
    con = duckdb.connect(str(paths.warehouse), read_only=True)
    try:
        return con.execute(
            "SELECT version_id, seq, parent_version, n_items FROM golden_sets ORDER BY seq"
        ).fetchall()
    finally:
        con.close()


def test_same_inputs_same_version_and_no_new_row(paths, draft):
    first = publish_golden_set(paths, draft())
    # Provenance (call counts) and corpus scan time differ on a cached rebuild: same version.
    again = draft(provenance={"calls": 0, "cached": True})
    again.items = again.items.take(
        list(reversed(range(again.items.num_rows)))
    )  # row order is irrelevant
    second = publish_golden_set(paths, again)
    assert first.created and not second.created
    assert second.version_id == first.version_id and second.seq == first.seq == 1
    assert first.version_id.startswith("gs-") and len(first.version_id) == 19
    assert len(_warehouse_rows(paths)) == 1
    assert [v["version_id"] for v in list_golden_sets(paths.root)] == [first.version_id]


def _set(table: pa.Table, name: str, value: str) -> pa.Table:
    return table.set_column(
        table.schema.get_field_index(name), name, pa.array([value] * table.num_rows)
    )


@pytest.mark.parametrize(
    "change",
    [
        lambda d: setattr(d, "config_fingerprint", "config-fp-2"),
        lambda d: setattr(d, "corpus", dataclasses.replace(d.corpus, fingerprint="corpus-fp-2")),
        lambda d: setattr(d, "judgments", _set(d.judgments, "label", "sufficient")),
        lambda d: setattr(d, "units", _set(d.units, "entity", "Other")),
    ],
    ids=["config", "corpus", "labels", "units"],
)
def test_identity_covers_config_corpus_labels_units(paths, draft, change):
    base = publish_golden_set(paths, draft())
    changed = draft()
    change(changed)
    result = publish_golden_set(paths, changed)
    assert result.created and result.version_id != base.version_id
    assert result.seq == 2 and result.parent_version == base.version_id


def test_versions_chain_and_latest_pointer(paths, draft):
    r1 = publish_golden_set(paths, draft())
    r2 = publish_golden_set(paths, draft(variant=1, n_items=7))
    layout = GoldenLayout(paths)
    assert layout.read_latest() == {"version_id": r2.version_id, "seq": 2, "event": 2}
    golden = load_golden_set(data_dir=paths.root, verify_fingerprint=True)
    assert golden.version_id == r2.version_id
    assert golden.info["parent_version"] == r1.version_id and golden.info["seq"] == 2
    assert golden.info["n_items"] == golden.items.num_rows == 7
    assert golden.info["corpus_pages"] == 8 and golden.info["funnel"]["kept"] == 7
    assert golden.items.schema.names[0] == "version_id" and set(
        golden.items.column("version_id").to_pylist()
    ) == {r2.version_id}
    # Re-publishing the older content (inputs reverted) moves LATEST back: latest = the current inputs.
    again = publish_golden_set(paths, draft())
    assert (again.version_id, again.created, again.is_latest, again.seq, again.event) == (
        r1.version_id,
        False,
        True,
        1,
        3,
    )
    assert layout.read_latest() == {"version_id": r1.version_id, "seq": 1, "event": 3}
    manifest = json.loads((r2.snapshot_dir / "manifest.json").read_text())
    assert set(manifest["files"]) == {"items.parquet", "judgments.parquet", "units.parquet"}


def test_corrupt_snapshot_file_is_named(paths, draft):
    result = publish_golden_set(paths, draft())
    target = result.snapshot_dir / "judgments.parquet"
    target.chmod(0o644)
    data = bytearray(target.read_bytes())
    data[len(data) // 2] ^= 0xFF
    target.write_bytes(bytes(data))
    with pytest.raises(GoldenSetCorrupt, match="judgments.parquet"):
        load_golden_set(result.version_id, paths.root)


def test_verify_fingerprint_catches_content_rewritten_with_matching_checksums(paths, draft):
    import pyarrow.parquet as pq

    from evalset_pipeline.core.hashing import sha256_file

    result = publish_golden_set(paths, draft())
    items_path, manifest_path = (
        result.snapshot_dir / "items.parquet",
        result.snapshot_dir / "manifest.json",
    )
    items = pq.read_table(items_path)
    tampered = items.set_column(
        items.schema.get_field_index("answer"), "answer", pa.array(["42"] * items.num_rows)
    )
    for p in (items_path, manifest_path):
        p.chmod(0o644)
    pq.write_table(tampered, items_path)
    manifest = json.loads(manifest_path.read_text())
    manifest["files"]["items.parquet"]["sha256"] = sha256_file(items_path)
    manifest_path.write_text(json.dumps(manifest))
    with pytest.raises(
        GoldenSetCorrupt, match="its own checksum"
    ):  # a careless edit is caught by the manifest
        load_golden_set(result.version_id, paths.root)
    from evalset_pipeline.core.golden.snapshot import manifest_hash

    manifest["manifest_sha256"] = manifest_hash(manifest)  # a careful one re-signs it too
    manifest_path.write_text(json.dumps(manifest))
    load_golden_set(result.version_id, paths.root)  # checksums alone cannot tell
    with pytest.raises(GoldenSetCorrupt, match="hashes to"):
        load_golden_set(result.version_id, paths.root, verify_fingerprint=True)


def test_not_found_lists_versions_and_ids_are_validated(paths, draft):
    with pytest.raises(GoldenSetNotFound, match="no golden set has been published"):
        load_golden_set(data_dir=paths.root)
    result = publish_golden_set(paths, draft())
    with pytest.raises(GoldenSetNotFound, match=result.version_id):
        load_golden_set("gs-0000000000000000", paths.root)
    for bad in ("../../etc", "gs-../x", "GS-ABC", ""):
        with pytest.raises(InvalidVersionId):
            load_golden_set(bad, paths.root)
    assert load_golden_set(result.version_id[:8], paths.root).version_id == result.version_id


def test_invalid_draft_is_rejected_before_anything_is_written(paths, draft):
    bad = draft()
    bad.judgments = _set(bad.judgments, "label", "maybe")
    with pytest.raises(InvalidDraft, match="unknown label"):
        publish_golden_set(paths, bad)
    missing = draft()
    missing.items = missing.items.drop_columns(["answer"])
    with pytest.raises(InvalidDraft, match="missing columns"):
        publish_golden_set(paths, missing)
    assert not GoldenLayout(paths).versions.exists()


def test_reconcile_repairs_every_crash_state(paths, draft):
    """Simulate what a SIGKILL leaves at each step; the next publish repairs it."""
    r1 = publish_golden_set(paths, draft())
    layout = GoldenLayout(paths)

    # Killed between rename and the DuckDB commit: snapshot without rows, LATEST and reader copy stale.
    def crash_after_rename(phase: str) -> None:
        if phase == "renamed":
            raise KeyboardInterrupt  # stands in for SIGKILL at this point (no cleanup code runs for it)

    publish_mod._PHASE_HOOK = crash_after_rename
    try:
        with pytest.raises(KeyboardInterrupt):
            publish_golden_set(paths, draft(variant=1))
    finally:
        publish_mod._PHASE_HOOK = None
    (layout.root / ".tmp-deadbeef").mkdir()  # a half-written snapshot of a killed publisher
    assert [r[0] for r in _warehouse_rows(paths)] == [r1.version_id]
    assert load_golden_set(data_dir=paths.root).version_id == r1.version_id  # readers still see v1
    r3 = publish_golden_set(paths, draft(variant=2))
    rows = _warehouse_rows(paths)
    # v2 was committed but never became latest (killed before its publish event): v3's parent is v1.
    assert (
        [r[1] for r in rows] == [1, 2, 3]
        and rows[2][0] == r3.version_id
        and rows[2][2] == r1.version_id
    )
    assert layout.read_latest() == {
        "version_id": r3.version_id,
        "seq": 3,
        "event": 2,
    }  # v2 was never latest
    assert not list(layout.root.glob(".tmp-*"))
    sql = duckdb.connect(str(layout.reader_db), read_only=True)
    assert sql.execute("SELECT count(*) FROM golden_sets").fetchone()[0] == 3
    sql.close()


def test_deleted_warehouse_and_reader_copy_are_rebuilt_from_snapshots(paths, draft):
    publish_golden_set(paths, draft())
    r2 = publish_golden_set(paths, draft(variant=1))
    layout = GoldenLayout(paths)
    paths.warehouse.unlink()
    layout.reader_db.unlink()
    again = publish_golden_set(paths, draft(variant=1))
    assert not again.created and [r[0] for r in _warehouse_rows(paths)][-1] == r2.version_id
    sql = duckdb.connect(str(layout.reader_db), read_only=True)
    assert sql.execute("SELECT version_id FROM latest_golden_set").fetchone()[0] == r2.version_id
    sql.close()


_HOLD = """
import sys, time, duckdb
con = duckdb.connect(sys.argv[1], read_only=True)
print("held", flush=True)
time.sleep(float(sys.argv[2]))
"""


def _hold_warehouse(path: Path, seconds: float) -> subprocess.Popen:
    proc = subprocess.Popen(
        [sys.executable, "-c", _HOLD, str(path), str(seconds)],
        stdout=subprocess.PIPE,
        text=True,
        env=child_env(),
    )
    assert proc.stdout.readline().strip() == "held"
    return proc


def test_a_reader_holding_the_warehouse_delays_a_publish_briefly_and_never_fails_it(paths, draft):
    """Issue 16 #8: a long-lived read-only session on evalsets.duckdb used to fail the build after
    ~127 s. Now the publish waits at most warehouse_wait_s, publishes, and the warehouse catches up."""
    r1 = publish_golden_set(paths, draft())
    holder = _hold_warehouse(paths.warehouse, 600)  # holds until killed below
    try:
        r2 = publish_golden_set(paths, draft(variant=1), warehouse_wait_s=0.5)
        # Ordered by events, not timed: the publish returned while the reader still held the file.
        assert holder.poll() is None
    finally:
        holder.kill()
        holder.wait()
    assert r2.created and r2.is_latest
    [warning] = r2.warnings
    assert (
        "evalsets_read.duckdb" in warning and "next publish" in warning
    )  # says where readers belong
    assert load_golden_set(data_dir=paths.root).version_id == r2.version_id
    layout = GoldenLayout(paths)
    with duckdb.connect(str(layout.reader_db), read_only=True) as sql:
        assert (
            sql.execute("SELECT version_id FROM latest_golden_set").fetchone()[0] == r2.version_id
        )
    assert [r[0] for r in _warehouse_rows(paths)] == [
        r1.version_id
    ]  # behind, until the next publish
    again = publish_golden_set(paths, draft(variant=1))
    assert not again.created and not again.warnings
    assert [r[0] for r in _warehouse_rows(paths)] == [r1.version_id, r2.version_id]
    with duckdb.connect(str(paths.warehouse), read_only=True) as con:
        assert (
            con.execute("SELECT version_id FROM latest_golden_set").fetchone()[0] == r2.version_id
        )
    # The publish lock itself still fails clearly when held too long.
    import fcntl
    import os as _os

    fd = _os.open(layout.publish_lock, _os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        with pytest.raises(GoldenSetLocked, match="is a build still running"):
            publish_golden_set(paths, draft(variant=2), lock_timeout_s=0.3)
    finally:
        _os.close(fd)


def test_package_import_is_light():
    code = (
        "import sys, evalset_pipeline\n"
        "assert 'pyarrow' not in sys.modules and 'duckdb' not in sys.modules\n"
        "from evalset_pipeline import load_golden_set\n"
        "bad = [m for m in ('dagster', 'torch', 'duckdb') if m in sys.modules]\n"
        "assert not bad, bad\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, env=child_env())

"""Issue 16 #4: a flipped byte in the latest manifest must not split "latest" or reuse a seq."""

from __future__ import annotations

import contextlib
import io
import json
import os

import dagster as dg
import duckdb
import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline.core.golden.errors import GoldenSetCorrupt
from evalset_pipeline.core.golden.layout import GoldenLayout
from evalset_pipeline.core.golden.publish import publish_golden_set
from evalset_pipeline.core.golden.reader import list_golden_sets, load_golden_set


def _flip(path, offset: int) -> None:
    os.chmod(path, 0o644)
    data = bytearray(path.read_bytes())
    data[offset] ^= 0x01  # one bit: '3' -> '2', 'a' -> '`', often still valid JSON
    path.write_bytes(bytes(data))


def _cli(*argv: str) -> tuple[int, str]:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(out):
        rc = main(list(argv))
    return rc, out.getvalue()


@pytest.mark.parametrize(
    "where", ["seq digit (still valid JSON)", "a structural byte (invalid JSON)"]
)
def test_a_corrupt_latest_manifest_is_loud_and_never_reuses_a_seq(paths, draft, where):
    for variant in range(3):
        last = publish_golden_set(paths, draft(variant=variant))
    manifest = last.snapshot_dir / "manifest.json"
    text = manifest.read_text()
    offset = text.index('"seq": 3') + len('"seq": ') if where.startswith("seq") else text.index("{")
    _flip(manifest, offset)

    # Publishing refuses instead of handing out seq 3 again.
    with pytest.raises(GoldenSetCorrupt, match=f"refusing to publish.*{last.version_id}"):
        publish_golden_set(paths, draft(variant=7))
    with duckdb.connect(str(paths.warehouse), read_only=True) as con:
        seqs = [s for (s,) in con.execute("SELECT seq FROM golden_sets ORDER BY seq").fetchall()]
    assert seqs == [1, 2, 3]
    # Listed, not dropped; the Python reader says so rather than reading something else.
    listing = {r["version_id"]: r for r in list_golden_sets(paths.root)}
    assert (
        len(listing) == 3
        and listing[last.version_id]["corrupt"]
        and listing[last.version_id]["is_latest"]
    )
    with pytest.raises(GoldenSetCorrupt):
        load_golden_set("latest", paths.root)
    # `evalset golden verify` names it and exits 1.
    rc, out = _cli("golden", "verify", "--data-dir", str(paths.root))
    assert rc == 1 and f"CORRUPT {last.version_id}" in out, out
    # The asset check reports it (ERROR) in the UI.
    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    result = dg.materialize(
        all_assets,
        selection=dg.AssetSelection.checks(
            dg.AssetCheckKey(dg.AssetKey("golden_set"), "golden_set_snapshots_intact")
        ),
        resources={
            "settings": PipelineSettings(data_dir=str(paths.root)),
            "vlm": VLMResource(),
            "embedder": EmbedderResource(),
        },
        raise_on_error=False,
    )
    [check] = result.get_asset_check_evaluations()
    assert not check.passed and last.version_id in check.description

    # Repair: the data files still hash to the version id, so the manifest is rebuilt from the warehouse.
    rc, out = _cli("golden", "verify", "--repair", "--data-dir", str(paths.root))
    assert (
        rc == 0
        and "manifest rewritten" in out
        and "byte-identical to the published manifest" in out
    ), out
    assert (
        load_golden_set("latest", paths.root, verify_fingerprint=True).version_id == last.version_id
    )
    new = publish_golden_set(paths, draft(variant=7))
    assert new.seq == 4
    with duckdb.connect(str(GoldenLayout(paths).reader_db), read_only=True) as con:
        assert con.execute("SELECT version_id, seq FROM latest_golden_set").fetchall() == [
            (new.version_id, 4)
        ]
    assert load_golden_set("latest", paths.root).version_id == new.version_id


def test_seq_stays_monotonic_when_a_snapshot_directory_is_gone(paths, draft):
    """The warehouse remembers every seq it gave out, even for a snapshot that was removed."""
    import shutil

    publish_golden_set(paths, draft())
    gone = publish_golden_set(paths, draft(variant=1))
    shutil.rmtree(gone.snapshot_dir)  # an operator moved it aside
    for p in GoldenLayout(paths).publishes.glob("*.json"):
        if json.loads(p.read_text())["version_id"] == gone.version_id:
            p.unlink()
    assert publish_golden_set(paths, draft(variant=2)).seq == 3

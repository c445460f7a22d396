"""Issue 16 #1 and #5 with a real model server, real Dagster runs on a persistent instance
(DAGSTER_HOME: run storage, event log, compute logs) and the real `dagster` CLI in its own process.

#1: a model that calls every page an answer is blocked by the gates; `dagster asset materialize
--select golden_set` afterwards must not publish those tables anyway.
#5: an endpoint that echoes the Authorization header into every reply: the key must appear in
no file written (data dir and DAGSTER_HOME: run storage, event log, compute logs).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import dagster as dg
import duckdb
import pyarrow.parquet as pq
import pytest

from evalset_pipeline.core.judging.base import BatchError, PageView
from evalset_pipeline.core.vlm.openai_backend import OpenAIBackend
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus
from evalset_pipeline_tests.support.fake_vlm_server import FakeVLMServer, PageIndex

REPO = Path(__file__).resolve().parents[2]
DAGSTER = str(Path(sys.executable).with_name("dagster"))
KEY = "sk-issue16-ECHOED-SECRET-4242"
KEY_ENV = "EVALSET_TEST_ECHO_KEY"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("corpus_attacks")
    generate_sample_corpus(out, entities=1, periods=2)
    return out


def _dagster(
    select: str, data: Path, corpus: Path, home: Path, vlm: dict | None
) -> subprocess.CompletedProcess:
    home.mkdir(exist_ok=True)
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "EVALSET_DATA_DIR": str(data),
        "EVALSET_CORPUS_DIR": str(corpus),
        "HF_HUB_OFFLINE": "1",
        KEY_ENV: KEY,
    }
    cmd = [
        DAGSTER,
        "asset",
        "materialize",
        "-m",
        "evalset_pipeline.definitions",
        "--select",
        select,
    ]
    if vlm:
        cmd += ["--config-json", json.dumps({"resources": {"vlm": {"config": vlm}}})]
    return subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=400)


def _openai(url: str) -> dict:
    return {"backend": "openai", "model": "fake-vlm", "base_url": url, "api_key_env": KEY_ENV}


def _materialize(
    data: Path, corpus: Path, home: Path, url: str, monkeypatch
) -> dg.ExecuteInProcessResult:
    """A whole build through Dagster on a persistent instance (in process: one process per step
    on 2 shared cores would take minutes)."""
    from evalset_pipeline.definitions import all_assets
    from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource

    monkeypatch.setenv(KEY_ENV, KEY)
    home.mkdir(exist_ok=True)
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    resources = {
        "settings": PipelineSettings(data_dir=str(data), corpus_dir=str(corpus), workers=2),
        "vlm": VLMResource(**_openai(url)),
        "embedder": EmbedderResource(),
    }
    with dg.DagsterInstance.from_config(str(home)) as instance:
        return dg.materialize(
            all_assets, resources=resources, instance=instance, raise_on_error=False
        )


def test_gates_hold_when_golden_set_is_launched_alone(corpus, tmp_path, monkeypatch):
    data, home = tmp_path / "data", tmp_path / "home"
    with FakeVLMServer(PageIndex(data), yes_man=True) as server:
        full = _materialize(data, corpus, home, server.url, monkeypatch)
    assert not full.success
    failed = {e.check_name for e in full.get_asset_check_evaluations() if not e.passed}
    assert (
        "candidate_labels_min_kept_items" in failed
    )  # everything answers: nothing survives as main
    assert not (data / "golden" / "versions").exists()
    alone = _dagster("golden_set", data, corpus, home, None)  # default resources: textlayer
    log = alone.stdout + alone.stderr
    assert alone.returncode != 0
    assert "refusing to publish" in log and "failed the blocking gates" in log, log[-3000:]
    assert not (data / "golden" / "versions").exists() and not (data / "golden" / "LATEST").exists()


def test_an_echoed_api_key_is_persisted_nowhere(corpus, tmp_path, monkeypatch, capfd):
    data, home = tmp_path / "data", tmp_path / "home"
    with FakeVLMServer(PageIndex(data), echo_auth=True) as server:
        target: list = []

        def first_label_call(
            info,
        ) -> bool:  # that call and its repair: it fails for good, a BatchError
            key = (info.image_hash, info.inputs.get("question"))
            target[:] = target or [key]
            return key == target[0]

        server.inject("malformed", 2, task="label", repairs=True, when=first_label_call)
        failed = _materialize(data, corpus, home, server.url, monkeypatch)
        server.clear_faults()
        run = _materialize(data, corpus, home, server.url, monkeypatch)  # resumes, publishes
        assert server.authorizations == {f"Bearer {KEY}"}
    assert not failed.success and run.success
    assert any(
        "calls to" in (e.step_failure_data.error.cause or e.step_failure_data.error).message
        for e in failed.all_events
        if e.is_step_failure
    )
    printed = capfd.readouterr()
    assert KEY not in printed.out + printed.err
    judgments = next((data / "golden" / "versions").glob("*/judgments.parquet"))
    assert "[redacted]" in json.dumps(
        pq.read_table(judgments).column("rationale").to_pylist()
    )  # it was echoed
    needle = KEY.encode()
    scanned = 0
    for root in (data, home):
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            scanned += 1
            assert needle not in path.read_bytes(), path
            if path.suffix == ".duckdb":
                with duckdb.connect(str(path), read_only=True) as con:
                    for (table,) in con.execute(
                        "SELECT table_name FROM information_schema.tables"
                    ).fetchall():
                        rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
                        assert KEY not in json.dumps(rows, default=str), (path, table)
    assert scanned > 50
    assert any((home / "storage").rglob("*.db")) or any(home.rglob("*.db")), (
        "run storage was scanned"
    )


def test_raw_replies_in_a_batch_error_are_redacted(tmp_path, monkeypatch):
    monkeypatch.setenv(KEY_ENV, KEY)
    png, text = tmp_path / "p.png", tmp_path / "p.json"
    from PIL import Image

    Image.new("RGB", (8, 8)).save(png)
    text.write_text(json.dumps({"text": "x", "words": [], "width": 8, "height": 8}))
    with FakeVLMServer(PageIndex(), echo_auth=True) as server:
        server.inject("malformed", None, repairs=True)
        backend = OpenAIBackend("fake-vlm", base_url=server.url, api_key_env=KEY_ENV, max_retries=0)
        with pytest.raises(BatchError) as info:
            backend.judge([("what?", PageView("u", png, text, "h"))])
    err = info.value
    assert err.failures
    assert (
        KEY not in str(err)
        and KEY not in err.failures[0].raw
        and "[redacted]" in err.failures[0].raw
    )

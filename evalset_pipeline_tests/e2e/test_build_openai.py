"""`evalset build --vlm openai` end to end, against a local OpenAI-compatible server.

The server (evalset_pipeline_tests/support/fake_vlm_server.py) gets what a real VLM gets, the
prompt and the page PNG, and answers from that page. The build goes through Dagster, the real
openai client and real sockets; the server counts every request and injects faults.
"""

from __future__ import annotations

import contextlib
import io
import json
from pathlib import Path

import dagster as dg
import duckdb
import pyarrow.parquet as pq
import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.vlm.prompt_files import load_prompt
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline_tests.support.fake_vlm_server import (
    FakeVLMServer,
    PageIndex,
    dead_endpoint_url,
)

KEY = "sk-test-DO-NOT-LEAK-1234"
KEY_ENV = "EVALSET_TEST_VLM_KEY"
TASKS = ("write", "judge", "label", "qualify")


def cli_build(
    corpus: Path, data_dir: Path, base_url: str, *extra: str
) -> tuple[int, dict | None, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        rc = main(
            [
                "build",
                "--corpus",
                str(corpus),
                "--data-dir",
                str(data_dir),
                "--vlm",
                "openai",
                "--model",
                "fake-vlm",
                "--base-url",
                base_url,
                "--api-key-env",
                KEY_ENV,
                "--sample-size",
                "20",
                "--workers",
                "2",
                "--json",
                *extra,
            ]
        )
    return rc, (json.loads(out.getvalue()) if rc == 0 else None), out.getvalue() + err.getvalue()


def materialize(
    corpus: Path, data_dir: Path, vlm: VLMResource, **settings
) -> dg.ExecuteInProcessResult:
    resources = {
        "settings": PipelineSettings(
            data_dir=str(data_dir), corpus_dir=str(corpus), workers=2, sample_size=20, **settings
        ),
        "vlm": vlm,
        "embedder": EmbedderResource(),
    }
    return dg.materialize(all_assets, resources=resources, raise_on_error=False)


def failure_messages(result: dg.ExecuteInProcessResult) -> str:
    """Each failed step's error and its causes (Dagster wraps what the step raised)."""
    out = []
    for event in result.all_events:
        err = event.step_failure_data.error if event.is_step_failure else None
        while err is not None:
            out.append(err.message)
            err = err.cause
    return "\n".join(out)


def ledger(data_dir: Path, sql: str) -> list[tuple]:
    with duckdb.connect(str(data_dir / "cache" / "model_calls.duckdb"), read_only=True) as con:
        return con.execute(sql).fetchall()


@pytest.fixture(scope="module")
def env():
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv(KEY_ENV, KEY)
        mp.delenv("OPENAI_API_KEY", raising=False)
        mp.delenv("OPENAI_BASE_URL", raising=False)
        yield mp


@pytest.fixture(scope="module")
def data_dir(tmp_path_factory) -> Path:
    return tmp_path_factory.mktemp("data_openai")


@pytest.fixture(scope="module")
def server(env, data_dir):
    with FakeVLMServer(PageIndex(data_dir)) as srv:
        yield srv


@pytest.fixture(scope="module")
def first_build(small_corpus, data_dir, server):
    """The first build, through transient faults: rate limits, 5xx, a dropped connection, bad JSON."""
    for kind, times in (("429", 3), ("500", 1), ("503", 1), ("disconnect", 1)):
        server.inject(kind, times)
    server.inject("malformed", 1, task="judge")
    rc, summary, log = cli_build(small_corpus, data_dir, server.url)
    assert rc == 0, log[-3000:]
    server.clear_faults()
    return summary, server.count()


def test_a_full_build_through_the_endpoint_survives_transient_faults(first_build, server, data_dir):
    summary, requests = first_build
    assert server.faults_served() == {"429": 3, "500": 1, "503": 1, "disconnect": 1, "malformed": 1}
    assert summary["new_version"] and summary["by_slice"].get("main", 0) >= 5
    assert summary["funnel"]["qualified"] > 0, "validation did real work through the model"
    by_task = server.by_task()
    assert set(by_task) == set(TASKS)
    # One ledger row per call: a faulted request was asked again (the malformed reply by its repair).
    faults = sum(server.faults_served().values())
    repairs = sum(1 for r in server.requests if r.repair)
    rows = ledger(data_dir, "SELECT count(*) FROM model_calls")[0][0]
    assert repairs == 1 and rows == requests - faults
    assert ledger(data_dir, "SELECT count(*) FROM model_call_failures")[0][0] == 0
    assert {b for (b,) in ledger(data_dir, "SELECT DISTINCT backend FROM model_calls")} == {
        "openai"
    }

    gs = load_golden_set("latest", data_dir)
    prov = gs.info["provenance"]
    assert (prov["backend"], prov["model"]) == ("openai", "fake-vlm")
    assert prov["prompts"] == {t: load_prompt(t).hash for t in TASKS}
    assert sum(prov["calls_this_build"].values()) == rows
    assert prov["tokens"]["prompt"] > 1000 * by_task["judge"]  # page images were sent
    prompt_tokens, completion_tokens = ledger(
        data_dir, "SELECT sum(prompt_tokens), sum(completion_tokens) FROM model_calls"
    )[0]
    assert prov["tokens"] == {"prompt": prompt_tokens, "completion": completion_tokens}
    labels = {j["label"] for j in gs.judgments.to_pylist()}
    assert labels <= {"sufficient", "supporting", "irrelevant"}


def test_a_rebuild_with_nothing_changed_sends_no_request(
    first_build, small_corpus, data_dir, server
):
    summary, _ = first_build
    before = server.count()
    rc, again, log = cli_build(small_corpus, data_dir, server.url)
    assert rc == 0, log[-3000:]
    assert server.count() == before
    assert again["version_id"] == summary["version_id"] and not again["new_version"]


def test_an_endpoint_that_keeps_failing_fails_the_build_naming_it(
    first_build, small_corpus, data_dir, server
):
    server.inject("503", None)
    try:
        rc, _, log = cli_build(
            small_corpus, data_dir, server.url, "--seed", "5"
        )  # new sample: calls needed
    finally:
        server.clear_faults()
    assert rc == 1
    # The CLI's own last word, not only Dagster's log: the endpoint, the last error, no fallback.
    line = next(x for x in log.splitlines() if x.startswith("error in candidate_questions:"))
    assert f"VLM endpoint {server.url}" in line and "503" in line and "Nothing falls back" in line
    assert {b for (b,) in ledger(data_dir, "SELECT DISTINCT backend FROM model_calls")} == {
        "openai"
    }


def test_a_dead_endpoint_fails_the_run_with_no_fallback(first_build, small_corpus, data_dir):
    url = dead_endpoint_url()
    before = load_golden_set("latest", data_dir).version_id
    vlm = VLMResource(
        backend="openai", model="fake-vlm", base_url=url, api_key_env=KEY_ENV, max_retries=1
    )
    result = materialize(small_corpus, data_dir, vlm, seed=6)
    assert not result.success
    message = failure_messages(result)
    assert f"VLM endpoint {url}" in message and "cannot connect" in message
    assert {b for (b,) in ledger(data_dir, "SELECT DISTINCT backend FROM model_calls")} == {
        "openai"
    }
    assert load_golden_set("latest", data_dir).version_id == before


def test_a_run_that_dies_midway_resumes_where_it_stopped(
    first_build, small_corpus, data_dir, server
):
    """Through Dagster run config, with prices: the endpoint dies after 60 requests, then recovers."""
    vlm = VLMResource(
        backend="openai",
        model="fake-vlm",
        base_url=server.url,
        api_key_env=KEY_ENV,
        max_retries=1,
        input_usd_per_mtok=2.5,
        output_usd_per_mtok=10.0,
    )
    rows0 = ledger(data_dir, "SELECT count(*) FROM model_calls")[0][0]
    start = server.count()
    server.inject("503", None, when=lambda r: r.n > start + 60)
    try:
        failed = materialize(small_corpus, data_dir, vlm, seed=7)
    finally:
        server.clear_faults()
    assert not failed.success and server.url in failure_messages(failed)
    rows1 = ledger(data_dir, "SELECT count(*) FROM model_calls")[0][0]
    assert rows1 - rows0 == 60  # everything answered before the endpoint died was kept

    asked = server.count()
    resumed = materialize(small_corpus, data_dir, vlm, seed=7)
    assert resumed.success
    rows2 = ledger(data_dir, "SELECT count(*) FROM model_calls")[0][0]
    assert server.count() - asked == rows2 - rows1  # only what was missing was asked
    prov = load_golden_set("latest", data_dir).info["provenance"]
    kept = sum(
        1 for i in load_golden_set("latest", data_dir).items.to_pylist() if i["slice"] == "main"
    )
    expected = (prov["tokens"]["prompt"] * 2.5 + prov["tokens"]["completion"] * 10.0) / 1e6
    calls_used = sum(prov["calls_this_build"].values()) + sum(
        prov["cache_hits_this_build"].values()
    )
    assert calls_used > 0 and kept > 0
    # Calls priced before this run (the first build's, at 0 USD) are shared and cost what they cost then.
    assert 0 < prov["cost_usd"] <= expected + 1e-6
    assert prov["cost_per_kept_item_usd"] == pytest.approx(prov["cost_usd"] / kept, abs=1e-6)


def test_the_api_key_is_written_nowhere(first_build, data_dir, server):
    """Every file the builds wrote, read the way it is stored: bytes, Parquet values, DuckDB values."""
    assert server.authorizations == {f"Bearer {KEY}"}  # it was used...
    needle = KEY.encode()
    scanned = 0
    for path in sorted(p for p in data_dir.rglob("*") if p.is_file()):
        scanned += 1
        assert needle not in path.read_bytes(), path
        if path.suffix == ".parquet":
            assert KEY not in json.dumps(pq.read_table(path).to_pylist(), default=str), path
        elif path.suffix == ".duckdb":
            with duckdb.connect(str(path), read_only=True) as con:
                tables = con.execute("SELECT table_name FROM information_schema.tables").fetchall()
                for (table,) in tables:
                    rows = con.execute(f'SELECT * FROM "{table}"').fetchall()
                    assert KEY not in json.dumps(rows, default=str), (path, table)
    assert scanned > 50


def test_golden_set_alone_takes_provenance_from_what_produced_the_rows(
    first_build, small_corpus, data_dir
):
    """Issue 16 #1: publishing alone with default resources (textlayer) must not relabel openai rows."""
    summary, _ = first_build
    resources = {
        "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(small_corpus)),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    latest = load_golden_set("latest", data_dir).version_id
    result = dg.materialize(all_assets, resources=resources, selection=["golden_set"])
    assert result.success
    gs = load_golden_set("latest", data_dir)
    assert gs.version_id == latest  # same rows, same producer: same version
    assert (gs.info["provenance"]["backend"], gs.info["provenance"]["model"]) == (
        "openai",
        "fake-vlm",
    )

"""The real UI: dagster-webserver on a free localhost port, queried over GraphQL and loaded in Chromium.

Daemon-less (DefaultRunCoordinator launches runs at once). A golden set is built first with
`evalset build` into the data directory's own instance (`<data>/dagster_home`, what `make run`
then `make ui` use), so the UI has its history to show; then one asset is launched through
GraphQL and waited for. The browser test loads the asset graph and the
golden_set page (whose Markdown preview inlines thumbnails as data URIs) and screenshots both.
(`dagster asset materialize` on the command line, with an asset and its check, is covered in
evalset_pipeline_tests/defs/test_materialize_alone.py.)
Set EVALSET_SCREENSHOT_DIR to keep the screenshots (docs/img/asset_graph.png came from there).
"""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus
from evalset_pipeline_tests.support.fake_vlm_server import free_port

REPO = Path(__file__).resolve().parents[2]
LOCATION = "evalset_pipeline.definitions"
TEST_INSTANCE = """
run_coordinator:
  module: dagster.core.run_coordinator
  class: DefaultRunCoordinator
telemetry:
  enabled: false
nux:
  enabled: false
"""


class Server:
    def __init__(self, url: str, proc: subprocess.Popen, log: Path, data_dir: Path):
        self.url, self.proc, self.log, self.data_dir = url, proc, log, data_dir

    def graphql(self, query: str, variables: dict | None = None) -> dict:
        body = json.dumps({"query": query, "variables": variables or {}}).encode()
        req = urllib.request.Request(
            f"{self.url}/graphql", body, {"Content-Type": "application/json"}
        )
        with urllib.request.urlopen(req, timeout=60) as resp:
            out = json.loads(resp.read())
        assert "errors" not in out, out["errors"]
        return out["data"]


def _wait_until(predicate, timeout: float, what: str, log: Path | None = None):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            value = predicate()
            if value:
                return value
        except (urllib.error.URLError, ConnectionError, OSError):
            pass
        time.sleep(0.5)
    tail = log.read_text()[-3000:] if log and log.exists() else ""
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}\n{tail}")


REPOS = """{ repositoriesOrError { ... on RepositoryConnection { nodes { name location { name }
  schedules { name cronSchedule scheduleState { status } }
  sensors { name sensorState { status } } } } } }"""


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    root = tmp_path_factory.mktemp("ui")
    data_dir, corpus = root / "data", root / "corpus"
    home = (
        data_dir / "dagster_home"
    )  # the instance `evalset build` records into (and `make ui` shows)
    home.mkdir(parents=True)
    (home / "dagster.yaml").write_text(
        TEST_INSTANCE
    )  # kept: the CLI copies deploy/dagster.yaml only when missing
    generate_sample_corpus(corpus, entities=1, periods=2)
    # History for the UI: one full build from the command line, as `make run` does.
    from evalset_pipeline.cli.main import main

    assert (
        main(
            [
                "build",
                "--corpus",
                str(corpus),
                "--data-dir",
                str(data_dir),
                "--workers",
                "2",
                "--json",
            ]
        )
        == 0
    )

    port = free_port()
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "EVALSET_DATA_DIR": str(data_dir),
        "EVALSET_CORPUS_DIR": str(corpus),
        "HF_HUB_OFFLINE": "1",
        "DAGSTER_DISABLE_TELEMETRY": "1",
    }
    log = root / "webserver.log"
    webserver = Path(sys.executable).with_name("dagster-webserver")
    with open(log, "wb") as out:
        proc = subprocess.Popen(
            [str(webserver), "-m", LOCATION, "-h", "127.0.0.1", "-p", str(port)],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    srv = Server(f"http://127.0.0.1:{port}", proc, log, data_dir)
    try:
        _wait_until(
            lambda: urllib.request.urlopen(f"{srv.url}/server_info", timeout=5).status == 200,
            120,
            "the webserver",
            log,
        )
        _wait_until(
            lambda: srv.graphql(REPOS)["repositoriesOrError"].get("nodes"),
            120,
            "the code location",
            log,
        )
        yield srv
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=10)
        try:  # the code server and run workers it started share its session
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass


MATERIALIZED = """{ assetNodes { assetKey { path } isMaterializable
  assetMaterializations(limit: 1) { runId timestamp } } }"""


def test_after_a_cli_build_every_materializable_asset_shows_a_materialization(server):
    nodes = server.graphql(MATERIALIZED)["assetNodes"]
    materializable = [n for n in nodes if n["isMaterializable"]]
    assert len(materializable) >= 12
    missing = [n["assetKey"]["path"][-1] for n in materializable if not n["assetMaterializations"]]
    assert missing == [], f"never materialized in the UI: {missing}"


def test_graphql_serves_the_asset_graph_checks_schedule_and_sensor(server):
    nodes = server.graphql("""{ assetNodes { assetKey { path } groupName isMaterializable
        dependencyKeys { path } assetChecksOrError { ... on AssetChecks { checks { name blocking } } } } }""")[
        "assetNodes"
    ]
    by_name = {n["assetKey"]["path"][-1]: n for n in nodes}
    assert {"documents", "page_renders", "hard_negatives", "candidate_labels", "golden_set"} <= set(
        by_name
    )
    assert by_name["golden_set"]["groupName"] == "golden"
    # every table golden_set reads is a declared upstream (core/pipeline/graph.py)
    from evalset_pipeline.core.pipeline.graph import upstream

    assert sorted(d["path"][-1] for d in by_name["golden_set"]["dependencyKeys"]) == sorted(
        upstream("golden_set")
    )
    assert not by_name["corpus_files"]["isMaterializable"]
    checks = {
        c["name"]: c["blocking"]
        for c in by_name["candidate_labels"]["assetChecksOrError"]["checks"]
    }
    gates = [
        "candidate_labels_distractor_coverage",
        "candidate_labels_gold_sufficient",
        "candidate_labels_min_kept_items",
        "candidate_labels_no_sufficient_distractor",
    ]
    assert {name: checks.get(name) for name in gates} == dict.fromkeys(gates, True)
    fresh = {
        c["name"]: c["blocking"] for c in by_name["golden_set"]["assetChecksOrError"]["checks"]
    }
    assert fresh.get("golden_set_fresh") is False

    repo = server.graphql(REPOS)["repositoriesOrError"]["nodes"][0]
    schedules = {s["name"]: s for s in repo["schedules"]}
    assert schedules["golden_set_refresh"]["cronSchedule"] == os.environ.get(
        "EVALSET_REFRESH_CRON", "0 3 * * *"
    )
    assert (
        schedules["golden_set_refresh"]["scheduleState"]["status"] == "STOPPED"
    )  # off until switched on
    assert {s["name"]: s["sensorState"]["status"] for s in repo["sensors"]}[
        "corpus_changed"
    ] == "STOPPED"


def test_launching_one_asset_runs_it_from_its_persisted_upstream(server):
    repo = server.graphql(REPOS)["repositoriesOrError"]["nodes"][0]
    launched = server.graphql(
        """mutation($p: ExecutionParams!) { launchPipelineExecution(executionParams: $p) {
             __typename ... on LaunchRunSuccess { run { runId } } ... on PythonError { message }
             ... on RunConfigValidationInvalid { errors { message } } } }""",
        {
            "p": {
                "selector": {
                    "repositoryLocationName": repo["location"]["name"],
                    "repositoryName": repo["name"],
                    "pipelineName": "__ASSET_JOB",
                    "assetSelection": [{"path": ["gold_sample"]}],
                },
                "runConfigData": {},
            }
        },
    )["launchPipelineExecution"]
    assert launched["__typename"] == "LaunchRunSuccess", launched
    run_id = launched["run"]["runId"]

    def finished():
        status = server.graphql(
            "query($id: ID!) { runOrError(runId: $id) { ... on Run { status } } }", {"id": run_id}
        )["runOrError"]["status"]
        return status if status in ("SUCCESS", "FAILURE", "CANCELED") else None

    assert _wait_until(finished, 240, f"run {run_id}", server.log) == "SUCCESS"
    asset = server.graphql("""{ assetOrError(assetKey: {path: ["gold_sample"]}) { ... on Asset {
        assetMaterializations(limit: 1) { runId metadataEntries { label } } } } }""")[
        "assetOrError"
    ]
    latest = asset["assetMaterializations"][0]
    assert latest["runId"] == run_id and "sampled" in {
        m["label"] for m in latest["metadataEntries"]
    }


# --- the browser -------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def browser(chromium):
    """Through the one requirement (conftest `chromium`): fails in CI without Chromium."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = chromium.binary
    profile = tempfile.mkdtemp(prefix="chromium-profile-")
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-dev-shm-usage",
        "--window-size=2400,2900",
        "--force-device-scale-factor=1",
        f"--user-data-dir={profile}",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(chromium.driver), options=options)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


DIALOG_OPACITY = """let e = document.querySelector("img[alt='gold']");
    while (e && !(e.getAttribute('role') === 'dialog' || /dialog/i.test(String(e.className)))) e = e.parentElement;
    return e ? getComputedStyle(e).opacity : null"""


def _settled(browser, script: str):
    """A predicate for _wait_until: `script`'s value once two reads in a row agree (an animation
    has ended), instead of sleeping for however long it usually takes."""
    seen: list = []

    def same_twice():
        now = browser.execute_script(script)
        settled = bool(seen) and now is not None and now == seen[-1]
        seen.append(now)
        return now if settled else None

    return same_twice


def _screenshot_dir(tmp_path: Path) -> Path:
    keep = os.environ.get("EVALSET_SCREENSHOT_DIR")
    out = Path(keep) if keep else tmp_path
    out.mkdir(parents=True, exist_ok=True)
    return out


def _save_png(browser, path: Path, box: list[float] | None = None, margin: int = 10) -> Path:
    """Screenshot, cropped to `box` (CSS pixels: left, top, right, bottom), as a small 64-colour PNG."""
    from PIL import Image

    image = Image.open(io.BytesIO(browser.get_screenshot_as_png()))
    if box:
        scale = browser.execute_script("return window.devicePixelRatio")
        left, top, right, bottom = box
        image = image.crop(
            (
                int((left - margin) * scale),
                int((top - margin) * scale),
                int((right + margin) * scale),
                int((bottom + margin) * scale),
            )
        )
    image.convert("RGB").quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(
        path, optimize=True
    )
    return path


GRAPH_BOX = """const svg = Array.from(document.querySelectorAll('svg')).find(s => s.getBoundingClientRect().width > 400);
  if (!svg) return null;
  let b = [1e9, 1e9, 0, 0];
  for (const e of svg.querySelectorAll('foreignObject')) {
    const r = e.getBoundingClientRect();
    if (r.width < 5) continue;
    b = [Math.min(b[0], r.left), Math.min(b[1], r.top), Math.max(b[2], r.right), Math.max(b[3], r.bottom)];
  }
  return b[2] > 0 ? b : null;"""


def test_the_asset_graph_page_renders_in_chromium(server, browser, tmp_path):
    nodes = server.graphql("{ assetNodes { assetKey { path } groupName } }")["assetNodes"]
    groups = sorted({n["groupName"] for n in nodes})
    # Every group expanded (the UI's own URL state), so the picture shows each asset.
    browser.get(
        f"{server.url}/asset-groups?expanded=" + ",".join(f"global@global:{g}" for g in groups)
    )
    names = [
        n["assetKey"]["path"][-1] for n in nodes if len(n["assetKey"]["path"][-1]) <= 14
    ]  # long names are elided
    text = lambda: browser.execute_script("return document.body.innerText")  # noqa: E731
    zoom_out = """const b = Array.from(document.querySelectorAll('[class*=zoomSliderContainer] button'));
        if (b.length) { b[b.length - 1].click(); return true; } return false;"""

    def every_node_shown() -> bool:
        # The true graph (every table a stage reads is an edge) is taller than the window: zoom
        # out a step at a time until every node is laid out on screen.
        if all(n in text() for n in names):
            return True
        browser.execute_script(zoom_out)
        return False  # _wait_until polls again after its pause

    try:
        _wait_until(every_node_shown, 90, "every asset node in the graph", server.log)
    except AssertionError as exc:
        _save_png(browser, tmp_path / "asset_graph_failed.png")
        raise AssertionError(
            f"{exc}\nmissing: {[n for n in names if n not in text()]}; page: {tmp_path}"
        ) from None
    _wait_until(_settled(browser, GRAPH_BOX), 30, "the zoom-to-fit to settle", server.log)
    browser.execute_script(
        "document.querySelectorAll('[class*=zoomSliderContainer]').forEach(e => e.style.visibility = 'hidden')"
    )
    box = browser.execute_script(GRAPH_BOX)
    assert box and box[2] - box[0] > 600, box
    shot = _save_png(browser, _screenshot_dir(tmp_path) / "asset_graph.png", box)
    assert shot.stat().st_size > 5_000


def test_the_golden_set_preview_shows_pages_large_enough_to_compare(server, browser, tmp_path):
    browser.get(f"{server.url}/assets/golden_set")
    # Long Markdown metadata opens in a dialog: the row's "[Show Markdown]" link.
    link = "//tr[.//*[normalize-space(text())='preview']]//a[contains(., 'Show Markdown')]"
    _wait_until(
        lambda: browser.find_elements("xpath", link), 90, "the preview metadata entry", server.log
    )[0].click()
    images = """return Array.from(document.querySelectorAll('img'))
        .filter(i => (i.getAttribute('src') || '').startsWith('data:image/jpeg;base64,'))
        .map(i => [i.alt, i.complete, i.naturalWidth, i.getBoundingClientRect().width])"""
    shown = _wait_until(
        lambda: [i for i in browser.execute_script(images) if i[1] and i[2] > 0],
        30,
        "data-URI thumbnails in the preview dialog",
        server.log,
    )
    alts = [alt for alt, _, _, _ in shown]
    assert alts.count("gold") >= 3 and sum(a.endswith("distractor") for a in alts) >= 3
    # large enough to tell a gold page from its look-alikes: decoded at 280 px, drawn at 240 px or more
    assert all(natural >= 240 and drawn >= 240 for _, _, natural, drawn in shown), shown
    _wait_until(
        _settled(browser, DIALOG_OPACITY), 30, "the dialog to fade in", server.log
    )  # opacity stops changing
    dialog = browser.execute_script("""let e = document.querySelector("img[alt='gold']");
        while (e && !(e.getAttribute('role') === 'dialog' || /dialog/i.test(String(e.className)))) e = e.parentElement;
        if (!e) return null; const r = e.getBoundingClientRect();
        return [Math.max(r.left, 0), Math.max(r.top, 0), Math.min(r.right, innerWidth), Math.min(r.bottom, innerHeight)]""")
    _save_png(browser, _screenshot_dir(tmp_path) / "golden_set_preview.png", dialog, margin=0)

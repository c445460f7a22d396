"""Retake docs/img/ in a real browser, the way a new user gets there: `make run`, then `make ui`.

    python -m evalset_pipeline_tests.support.screenshots [--out docs/img] [--corpus data/sample_corpus]

Builds the corpus with `evalset build` into a temporary data directory (its own dagster_home,
from deploy/dagster.yaml), starts `make ui` on it, then loads the asset graph and the golden_set
preview in headless Chromium with the browser test's own steps (e2e/test_webserver.py), saving
asset_graph.png and golden_set_preview.png. Ctrl-C's the UI's process group at the end.
"""

from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def main(argv: list[str] | None = None) -> int:
    from evalset_pipeline_tests.e2e import test_webserver as web
    from evalset_pipeline_tests.support.fake_vlm_server import free_port
    from evalset_pipeline_tests.support.make_ui import start_make_ui

    p = argparse.ArgumentParser()
    p.add_argument("--out", type=Path, default=REPO / "docs" / "img")
    p.add_argument("--corpus", type=Path, default=REPO / "data" / "sample_corpus")
    args = p.parse_args(argv)
    root = Path(tempfile.mkdtemp(prefix="evalset-shots-"))
    data = root / "data"
    evalset = str(Path(sys.executable).with_name("evalset"))
    subprocess.run(
        [evalset, "build", "--corpus", str(args.corpus), "--data-dir", str(data)], check=True
    )  # make run
    port = free_port()
    log = root / "ui.log"
    env = {
        **os.environ,
        "EVALSET_DATA_DIR": str(data),
        "EVALSET_CORPUS_DIR": str(args.corpus.resolve()),
    }
    ui = start_make_ui(port, env, log)
    server = web.Server(f"http://127.0.0.1:{port}", ui, log, data)
    try:
        web._wait_until(
            lambda: urllib.request.urlopen(f"{server.url}/server_info", timeout=5).status == 200,
            180,
            "make ui",
            log,
        )
        web._wait_until(
            lambda: server.graphql(web.REPOS)["repositoriesOrError"].get("nodes"),
            180,
            "the code location",
            log,
        )
        web.test_after_a_cli_build_every_materializable_asset_shows_a_materialization(server)
        os.environ["EVALSET_SCREENSHOT_DIR"] = str(args.out)
        browser_fixture = web.browser.__wrapped__()
        driver = next(browser_fixture)
        try:
            web.test_the_asset_graph_page_renders_in_chromium(server, driver, root)
            web.test_the_golden_set_preview_shows_pages_large_enough_to_compare(
                server, driver, root
            )
        finally:
            next(browser_fixture, None)
    finally:
        os.killpg(ui.pid, signal.SIGINT)
        ui.wait(timeout=90)
        time.sleep(1)
    print(f"saved {args.out / 'asset_graph.png'} and {args.out / 'golden_set_preview.png'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

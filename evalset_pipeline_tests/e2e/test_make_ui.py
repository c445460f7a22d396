"""`make ui` stops cleanly on Ctrl-C: SIGINT to its process group (what a terminal sends) shuts
Dagster's services down, ends make by that SIGINT (a shell shows 130, the Ctrl-C convention; no
error, no traceback) and leaves none of the processes `dagster dev` started."""

from __future__ import annotations

import os
import re
import shutil
import signal
import subprocess
import time
import urllib.request

import pytest

from evalset_pipeline_tests.support.fake_vlm_server import free_port
from evalset_pipeline_tests.support.make_ui import start_make_ui

# A gRPC core log line at INFO level: "I1203 13:47:53.445879    1080 chttp2_transport.cc:1403] …"
_GRPC_INFO = re.compile(r"^I\d{4} \d{2}:\d{2}:\d{2}\.\d+\s+\d+ \S+\.cc:\d+\]")


def _group(pgid: int) -> list[str]:
    out = subprocess.run(
        ["ps", "-o", "pid=,cmd=", "-g", str(pgid)], capture_output=True, text=True
    ).stdout
    return [line.strip() for line in out.splitlines() if line.strip()]


def _live(pgid: int) -> list[str]:
    """The group's processes still running. An exited one that its (already gone) parent left
    for init to reap shows as "<defunct>" until then; in a container whose first process never
    reaps, that is forever: it runs nothing and holds nothing, so it is not left behind."""
    return [p for p in _group(pgid) if not p.endswith("<defunct>")]


def _wait_until_gone(pgid: int, bound_s: float = 120) -> list[str]:
    """Wait for the group's last live process to exit (the event), polling; the bound only ends
    a wait that would otherwise never end, and is far beyond any clean shutdown."""
    deadline = time.monotonic() + bound_s
    while (left := _live(pgid)) and time.monotonic() < deadline:
        time.sleep(0.5)
    return left


@pytest.mark.skipif(shutil.which("make") is None, reason="needs make")
def test_make_ui_stops_cleanly_on_ctrl_c(tmp_path):
    port = free_port()
    env = {
        **os.environ,
        "EVALSET_DATA_DIR": str(tmp_path / "data"),
        "DAGSTER_DISABLE_TELEMETRY": "1",
    }
    log = tmp_path / "ui.log"
    proc = start_make_ui(port, env, log)
    try:
        deadline = time.monotonic() + 180
        while time.monotonic() < deadline:
            try:
                if (
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/server_info", timeout=5).status
                    == 200
                ):
                    break
            except OSError:
                time.sleep(1)
        else:
            raise AssertionError("the UI did not come up\n" + log.read_text()[-3000:])
        assert (
            len(_group(proc.pid)) >= 3
        )  # make's child dagster dev, webserver, daemon, code server
        os.killpg(proc.pid, signal.SIGINT)
        rc = proc.wait(timeout=90)
        left = _wait_until_gone(proc.pid)
        text = log.read_text()
        assert rc in (0, -signal.SIGINT), text[-3000:]
        # gRPC's own INFO lines ("I1203 13:47:53.44 ... Got goaway ... Error code: 2; Debug Text:
        # Server shutdown") report the code server closing its channel as asked: not an error.
        ours = "\n".join(ln for ln in text.splitlines() if not _GRPC_INFO.match(ln))
        assert (
            "Dagster services shut down." in text
            and "Traceback" not in text
            and "Error" not in ours
        ), text[-3000:]
        assert left == [], left
        assert (tmp_path / "data" / "dagster_home" / "dagster.yaml").exists()
    finally:
        if proc.poll() is None or _group(proc.pid):
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

"""Start `make ui` as a terminal would: its own process group, SIGINT at its default, output to a
log, and never a reinstall of the shared environment (used by the Ctrl-C test and the screenshot
retake)."""

from __future__ import annotations

import signal
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _default_signals() -> None:
    # A terminal's foreground job has SIGINT at its default; a background job of a non-interactive
    # shell inherits it ignored, which would make Ctrl-C do nothing for the wrong reason.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def start_make_ui(port: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    with open(log, "wb") as out:
        # -o .venv/.installed: never reinstall the (shared) environment from a test
        return subprocess.Popen(
            ["make", "-o", ".venv/.installed", "ui", f"UI_PORT={port}"],
            cwd=REPO,
            env=env,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            preexec_fn=_default_signals,
        )

"""Finding Chromium for the browser tests: in CI a missing browser fails, elsewhere it skips.

CI (CI=true, set by `.ci/run`) installs Chromium before the suite (`make browser`), so a browser
test that cannot find it there points at a broken CI image, not at an optional extra: it fails.
On a developer machine without Chromium the test skips and says how to get it.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass

import pytest

INSTALL_HINT = "Debian/Ubuntu: apt-get install chromium chromium-driver (or `make browser` as root)"


@dataclass(frozen=True)
class Chromium:
    binary: str
    driver: str


def in_ci() -> bool:
    return os.environ.get("CI", "").strip().lower() not in ("", "0", "false", "no")


def find_chromium() -> Chromium | None:
    binary = (
        shutil.which("chromium")
        or shutil.which("chromium-browser")
        or shutil.which("google-chrome")
    )
    driver = shutil.which("chromedriver")
    return Chromium(binary, driver) if binary and driver else None


def require_chromium() -> Chromium:
    """The browser and its driver, or a failure (CI) / a skip that says why (elsewhere)."""
    found = find_chromium()
    if found is not None:
        return found
    message = f"Chromium and chromedriver are not installed ({INSTALL_HINT})"
    if in_ci():
        pytest.fail(f"{message}; CI must install them before the suite", pytrace=False)
    pytest.skip(f"{message}; skipped on this machine, it would fail in CI")

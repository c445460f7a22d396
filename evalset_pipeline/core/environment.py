"""The `EVALSET_*` environment variables, declared once and read in one place.

Each is a field of `EnvironmentSettings` (core/settings.py's `setting()`: default and help), named
`EVALSET_` + the field name in capitals. `environment()` reads them all and checks each value,
naming the variable when one cannot be used; callers ask it instead of `os.environ`. It reads
the environment on every call: the Dagster code location, a schedule built in a test, and a
subprocess each see the environment of their own moment.

`python -m evalset_pipeline.core.environment` prints the table that README "Settings" shows.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from evalset_pipeline.core.settings import Setting, from_flat, setting, settings_of

PREFIX = "EVALSET_"
_TRUE, _FALSE = ("1", "true", "yes", "on"), ("0", "false", "no", "off")


@dataclass(frozen=True)
class EnvironmentSettings:
    data_dir: str = setting(
        "data",
        help="Data directory: artifacts, golden sets, caches, the CLI's Dagster instance; what "
        "`--data-dir` and the `data_dir` setting default to",
    )
    corpus_dir: str = setting(
        "data/sample_corpus",
        help="Corpus folder `--corpus` and the `corpus_dir` setting default to",
    )
    executor: str = setting(
        "multiprocess",
        help="Executor of every job, chosen when the code location loads: multiprocess, or k8s "
        "(one pod per step; docs/scaling.md)",
        choices=("multiprocess", "k8s"),
    )
    max_concurrent: int = setting(
        2, help="Steps the multiprocess executor runs at once (render and embed use every core)"
    )
    max_runtime_s: int = setting(
        21600,
        help="`dagster/max_runtime` of a build run in seconds (6 h), enforced by the daemon when "
        "run monitoring is on (deploy/dagster.yaml)",
    )
    refresh_cron: str = setting(
        "0 3 * * *", help="Cron of the scheduled refresh (nightly at 03:00)"
    )
    refresh_timezone: str = setting("UTC", help="Timezone of the refresh cron")
    refresh_skip_baseline: bool = setting(
        False, help="Scheduled refreshes leave baseline_scores out (1/true)"
    )
    sensor_interval_s: int = setting(
        60, help="Seconds between two polls of the corpus_changed sensor"
    )
    min_kept_items: int = setting(
        10,
        help="Launchpad default of the candidate_labels_gates checks: fewer main-slice items is a "
        "WARN, none an ERROR",
    )
    max_rejected_share: float = setting(
        0.2,
        help="Launchpad default of the documents_rejected_share check: the largest acceptable "
        "share of PDFs that could not be used",
    )
    warehouse_wait_s: float = setting(
        10.0,
        help="Seconds a publish waits for a reader holding evalsets.duckdb before it publishes "
        "anyway and lets the warehouse catch up on the next publish",
    )
    cache_wait_s: float = setting(
        30.0, help="Seconds a build waits for another process holding the model-call cache"
    )


def env_name(s: Setting) -> str:
    return PREFIX + s.name.upper()


def environment(environ: Mapping[str, str] | None = None) -> EnvironmentSettings:
    """Every `EVALSET_*` setting as the environment holds it now (unset or empty: the default)."""
    env = os.environ if environ is None else environ
    values = {
        s.name: _parse(s, env[env_name(s)])
        for s in settings_of(EnvironmentSettings)
        if env.get(env_name(s), "").strip()
    }
    return from_flat(EnvironmentSettings, values)


def _parse(s: Setting, raw: str) -> Any:
    text = raw.strip()
    if s.type is bool:
        if text.lower() in _TRUE + _FALSE:
            return text.lower() in _TRUE
        raise ValueError(f"{env_name(s)}={raw!r}: expected 1 or 0 (true/false)")
    if s.choices and text not in s.choices:
        raise ValueError(f"{env_name(s)}={raw!r}: expected {' or '.join(map(repr, s.choices))}")
    try:
        return s.type(text)
    except ValueError:
        raise ValueError(f"{env_name(s)}={raw!r}: expected a number ({s.type.__name__})") from None


def markdown_table() -> str:
    """The variables as a Markdown table (README "Settings"), from the declaration above."""
    rows = ["| variable | default | what it sets |", "|---|---|---|"]
    for s in settings_of(EnvironmentSettings):
        default = s.default_value()
        shown = ("1" if default else "0") if s.type is bool else str(default)
        rows.append(f"| `{env_name(s)}` | `{shown}` | {s.help} |")
    return "\n".join(rows)


if __name__ == "__main__":
    print(markdown_table())

"""`evalset build`: run the `build_golden_set` job in this process, recorded in the data
directory's Dagster instance (the one `make ui` shows), and report what was done.

Quiet by default: a live progress display in a terminal, nothing but the summary otherwise;
`--verbose` / `--log-level` bring Dagster's events back. Expected failures are one sentence (or
one paragraph for blocked gates), never a stack trace.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import sys
from pathlib import Path

from evalset_pipeline.cli.common import add_vlm_options, vlm_config, vlm_flags_error
from evalset_pipeline.cli.flags import add_setting_flags, flag_values
from evalset_pipeline.core.index.embeddings import EmbedderSpec
from evalset_pipeline.core.paths import default_corpus_dir, default_data_dir
from evalset_pipeline.core.pipeline.settings import BuildSettings
from evalset_pipeline.core.questions.funnel import FUNNEL_ORDER
from evalset_pipeline.core.redact import redact
from evalset_pipeline.core.settings import from_flat, to_flat

# BuildSettings' settings as flags (core/pipeline/settings.py); the corpus has always been `--corpus`.
BUILD_FLAGS = {"corpus_dir": "--corpus"}
EMBEDDER_FLAGS = {
    "model": "--embedder",
    "modality": "--embedder-modality",
    "batch_size": "--embed-batch-size",
}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("build", help="Build (or confirm) the golden set for a corpus")
    add_setting_flags(p, BuildSettings, BUILD_FLAGS)
    add_vlm_options(p)
    # Not given: the bundled sample corpus's own setting, 0 for any --corpus (_run_config).
    p.set_defaults(unanswerable_every=None)
    add_setting_flags(p, EmbedderSpec, EMBEDDER_FLAGS)
    p.add_argument("--json", action="store_true", help="Print the summary as JSON")
    p.add_argument(
        "--verbose",
        action="store_true",
        help="Print Dagster's events (DEBUG) instead of the progress display",
    )
    p.add_argument(
        "--log-level",
        default=None,
        choices=["DEBUG", "INFO", "WARNING", "ERROR", "CRITICAL"],
        help="Print Dagster's events from this level on (default: none; --verbose = DEBUG)",
    )
    p.add_argument(
        "--wait",
        action="store_true",
        help="If another build holds the data directory, wait for it (default: fail at once, naming it)",
    )
    p.set_defaults(func=run)


EXIT_BUSY = 3  # another build holds the data directory
_REMOTE = re.compile(
    r"^[A-Za-z][A-Za-z0-9+.-]*:/"
)  # s3://, gs://, https://, … (also as Path turned it: s3:/…)


def corpus_problem(corpus: str) -> str | None:
    """Why `corpus` cannot be built from, in one sentence, or None."""
    if _REMOTE.match(corpus):
        return f"{corpus}: remote corpora are not supported; mount or sync it to a local folder and pass that"
    if not Path(corpus).is_dir():
        return f"corpus folder {corpus} does not exist"
    if not has_pdfs(Path(corpus)):
        return f"no PDFs under {corpus} (looked for *.pdf in every sub-folder); nothing to build"
    return None


def run(args: argparse.Namespace) -> int:
    from evalset_pipeline.core.buildlock import BuildLocked, build_lock
    from evalset_pipeline.core.paths import DataPaths

    data_dir = args.data_dir or default_data_dir()
    corpus = str(args.corpus or default_corpus_dir())
    if problem := corpus_problem(corpus) or vlm_flags_error(args):
        print(f"error: {problem}", file=sys.stderr)
        return 2
    # Taken before Dagster is even imported, so a second build learns at once who holds the directory.
    try:
        with build_lock(
            DataPaths.at(data_dir),
            Path(corpus).resolve(),
            wait=args.wait,
            on_wait=lambda who: print(f"waiting: {who}", file=sys.stderr, flush=True),
        ):
            return _build(args, Path(data_dir), Path(corpus))
    except BuildLocked as exc:
        print(f"error: {exc}", file=sys.stderr)
        return EXIT_BUSY


def has_pdfs(root: Path) -> bool:
    for _, _, files in os.walk(root):
        if any(f.lower().endswith(".pdf") for f in files):
            return True
    return False


def _log_level(args: argparse.Namespace) -> str:
    return args.log_level or ("DEBUG" if args.verbose else "CRITICAL")


def _run_config(args: argparse.Namespace, data_dir: Path, corpus: Path) -> dict:
    """Resource config of this build: what the launchpad would hold for the same run (no secret:
    the API key's variable name only)."""
    settings = from_flat(
        BuildSettings,
        {
            **flag_values(args, BuildSettings, BUILD_FLAGS),
            "data_dir": str(data_dir),
            "corpus_dir": str(corpus),
        },
    )
    if args.unanswerable_every is None:  # deliberately unanswerable questions: the sample's only
        from evalset_pipeline.samplekit.sample_corpus import UNANSWERABLE_EVERY

        args.unanswerable_every = UNANSWERABLE_EVERY if args.corpus is None else 0
    vlm = to_flat(vlm_config(args))
    embedder = from_flat(EmbedderSpec, flag_values(args, EmbedderSpec, EMBEDDER_FLAGS))
    return {
        "resources": {
            "settings": {"config": to_flat(settings)},
            "vlm": {"config": {k: v for k, v in vlm.items() if v is not None}},
            "embedder": {"config": to_flat(embedder)},
        },
        "loggers": {"console": {"config": {"log_level": _log_level(args)}}},
    }


@contextlib.contextmanager
def _quiet(level: str):
    """Below --log-level, Dagster's own Python loggers and warnings stay silent too."""
    import logging
    import warnings

    names = ("dagster", "alembic", "httpx")
    before = {n: logging.getLogger(n).level for n in names}
    for n in names:
        logging.getLogger(n).setLevel(
            max(logging.getLevelName(level), logging.WARNING) if level != "DEBUG" else logging.DEBUG
        )
    with warnings.catch_warnings():
        if level == "CRITICAL":
            warnings.simplefilter("ignore")
        try:
            yield
        finally:
            for n, lvl in before.items():
                logging.getLogger(n).setLevel(lvl)


def _build(args: argparse.Namespace, data_dir: Path, corpus: Path) -> int:
    from evalset_pipeline.cli.build_summary import collect_summary, print_summary
    from evalset_pipeline.core import progress

    level = _log_level(args)
    with _quiet(level):
        from evalset_pipeline.definitions import defs
        from evalset_pipeline.defs.external import report_to_instance
        from evalset_pipeline.defs.instance import LAUNCHER_TAG, fail_dead_cli_runs, open_instance
        from evalset_pipeline.defs.schedules import DATA_DIR_TAG

        instance = open_instance(data_dir)
        try:
            fail_dead_cli_runs(instance)
            report_to_instance(
                instance, str(corpus), str(data_dir), follow_symlinks=bool(args.follow_symlinks)
            )
            job = defs.resolve_job_def("build_golden_set")
            show = sys.stderr.isatty() and not args.json and level == "CRITICAL"
            sink = None
            if show:
                from evalset_pipeline.cli.build_progress import BuildProgress

                sink = BuildProgress()
            with (
                progress.showing(sink) if sink else contextlib.nullcontext(),
                sink or contextlib.nullcontext(),
            ):
                result = job.execute_in_process(
                    run_config=_run_config(args, data_dir, corpus),
                    instance=instance,
                    raise_on_error=False,
                    tags={
                        LAUNCHER_TAG: "cli",
                        DATA_DIR_TAG: str(data_dir.resolve()),
                        "evalset/trigger": "cli",
                    },
                )
            checks = check_outcomes(result)
            if not result.success:
                _print_failure(result, checks, data_dir)
                return 1
            summary = collect_summary(result, instance, checks, data_dir)
        finally:
            instance.dispose()
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    else:
        print_summary(summary)
    return 0


def _print_failure(result, checks: list[dict], data_dir: Path) -> None:
    for event in result.all_events:
        if event.is_step_failure and event.step_key != "candidate_labels_gates":
            print(
                f"error in {event.step_key}: {redact(step_error(event.step_failure_data.error))}",
                file=sys.stderr,
            )
    blocked = [c for c in checks if not c["passed"] and c["severity"] == "ERROR"]
    if blocked:
        print(gates_paragraph(blocked, _funnel(data_dir)), file=sys.stderr)


# Dagster's wrappers around what a step raised; the first error below them is ours, and ours say
# what to do (GoldenSetLocked, ModelCallCacheLocked, GatesNotPassed, ...): never dig past it.
_WRAPPERS = ("Dagster",)


def step_error(err) -> str:
    while (
        err is not None
        and err.cause is not None
        and err.cls_name
        and err.cls_name.startswith(_WRAPPERS)
    ):
        err = err.cause
    if err is None:
        return "failed"
    text = err.message.strip()
    # SerializableErrorInfo.message reads "module.Class: text"; keep the class name only.
    head, sep, rest = text.partition(": ")
    return f"{head.rsplit('.', 1)[-1]}: {rest}" if sep and "." in head and " " not in head else text


def check_outcomes(result) -> list[dict]:
    out = []
    for ev in result.get_asset_check_evaluations():
        out.append(
            {
                "name": ev.check_name,
                "passed": ev.passed,
                "severity": ev.severity.value if ev.severity else "ERROR",
                "description": (ev.description or "").strip(),
            }
        )
    return out


def _funnel(data_dir: Path) -> dict:
    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.questions.funnel import FunnelRow, summarize
    from evalset_pipeline.core.tables import read_rows

    path = DataPaths.at(data_dir).table("funnel")
    return summarize([FunnelRow(**r) for r in read_rows(path)]) if path.exists() else {}


def gates_paragraph(blocked: list[dict], funnel: dict) -> str:
    """One paragraph: what blocked publishing, and the funnel that led there."""
    why = "; ".join(f"{c['description']} ({c['name']})" for c in blocked)
    counts = ", ".join(f"{k} {funnel[k]}" for k in FUNNEL_ORDER if k in funnel) or "not available"
    reasons = "; ".join(f"{r}: {n}" for r, n in (funnel.get("dropped_reasons") or {}).items())
    return (
        f"error: no golden set was published, because the blocking gates failed: {why}. "
        f"Funnel: {counts}" + (f" (dropped: {reasons})" if reasons else "") + ". "
        "The previous version, if any, is still the latest. See `evalset documents --rejected`, the "
        "funnel above and docs/dagster.md (checks) for what each gate means."
    )

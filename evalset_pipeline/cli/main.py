"""`evalset …`: each command group lives in its own module and registers its subcommands."""

from __future__ import annotations

import argparse
import importlib
import sys

# Each module exposes `register(subparsers)`; a subcommand stores its handler in `func`.
COMMAND_MODULES = [
    "evalset_pipeline.cli.build",
    "evalset_pipeline.cli.sample_corpus",
    "evalset_pipeline.cli.golden",
    "evalset_pipeline.cli.documents",  # the corpus as taken in: documents, or --rejected ones
    "evalset_pipeline.cli.score",
    "evalset_pipeline.cli.baseline",  # scoring: built-in baseline runs
    "evalset_pipeline.cli.report",  # scoring: the headline report
    "evalset_pipeline.cli.pool",  # scoring: pooling runs into new judgments
    "evalset_pipeline.cli.review",  # people in the loop: review packets, human labels, agreement
    "evalset_pipeline.cli.regression",  # people in the loop: the regression slice's records
    "evalset_pipeline.cli.import_set",  # `evalset import`: an external benchmark, hardened
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalset",
        description="Build and use golden evaluation sets for visual document retrieval.",
    )
    sub = parser.add_subparsers(dest="command", required=True)
    for name in COMMAND_MODULES:
        importlib.import_module(name).register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    rc = args.func(args)
    return int(rc or 0)


if __name__ == "__main__":
    sys.exit(main())

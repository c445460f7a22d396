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
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="evalset", description="Build and use golden evaluation sets for visual document retrieval."
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

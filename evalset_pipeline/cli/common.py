"""Options and helpers several `evalset` commands share, so each is spelled (and fixed) once."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from evalset_pipeline.cli.flags import add_setting_flags, flag_values
from evalset_pipeline.core.settings import from_flat

if TYPE_CHECKING:
    from evalset_pipeline.core.backends.factory import VLMConfig

# Exit code of a command whose input (golden version, run file, data directory) is unusable.
INPUT_ERROR = 1


def retrieval_failure(exc: Exception, retriever: str) -> int:
    """Say why a command that runs a built-in retriever could not, and return its exit code:
    the retriever's own when it refused (REFUSED, e.g. no index for it), else INPUT_ERROR."""
    from evalset_pipeline.core.scoring.baselines import BaselineUnavailable

    if isinstance(exc, BaselineUnavailable):
        print(f"REFUSED: --retriever {retriever}: {exc}", file=sys.stderr)
        return exc.exit_code
    print(f"error: {exc}", file=sys.stderr)
    return INPUT_ERROR


def add_data_dir(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--data-dir",
        type=Path,
        default=None,
        metavar="DIR",
        help="data directory (default: $EVALSET_DATA_DIR or data/)",
    )


def add_golden(p: argparse.ArgumentParser, help: str = "golden version (default: latest)") -> None:
    p.add_argument("--golden", default="latest", metavar="latest|VERSION", help=help)


# VLMConfig's settings as flags; the backend has always been `--vlm`.
VLM_FLAGS = {"backend": "--vlm"}


def add_vlm_options(p: argparse.ArgumentParser) -> None:
    """The model backend flags of `evalset build`, reused wherever the judge is called; one per
    VLMConfig setting (core/backends/factory.py)."""
    from evalset_pipeline.core.backends.factory import VLMConfig

    add_setting_flags(p, VLMConfig, VLM_FLAGS)


def vlm_config(args: argparse.Namespace) -> VLMConfig:
    """The VLMConfig the flags above describe."""
    from evalset_pipeline.core.backends.factory import VLMConfig

    return from_flat(VLMConfig, flag_values(args, VLMConfig, VLM_FLAGS))


def vlm_flags_error(args: argparse.Namespace) -> str | None:
    if args.vlm == "openai" and not args.model:
        return "--vlm openai needs --model"
    return None


def json_safe(obj: Any) -> Any:
    """JSON has no NaN: undefined numbers are written as null."""
    if isinstance(obj, float) and not math.isfinite(obj):
        return None
    if isinstance(obj, dict):
        return {k: json_safe(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [json_safe(v) for v in obj]
    return obj

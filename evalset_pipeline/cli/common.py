"""Options and helpers several `evalset` commands share, so each is spelled (and fixed) once."""

from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path
from typing import Any

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


def add_vlm_options(p: argparse.ArgumentParser) -> None:
    """The model backend flags of `evalset build`, reused wherever the judge is called."""
    p.add_argument(
        "--vlm",
        choices=["textlayer", "openai"],
        default="textlayer",
        help="question writer and judge",
    )
    p.add_argument("--model", default="", help="model name for --vlm openai")
    p.add_argument(
        "--base-url",
        default=None,
        help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL or OpenAI)",
    )
    p.add_argument(
        "--api-key-env",
        default="OPENAI_API_KEY",
        help="environment variable that holds the API key",
    )
    p.add_argument("--max-in-flight", type=int, default=16)
    p.add_argument(
        "--input-usd-per-mtok",
        type=float,
        default=0.0,
        help="price of prompt tokens, for the cost ledger",
    )
    p.add_argument(
        "--output-usd-per-mtok",
        type=float,
        default=0.0,
        help="price of completion tokens, for the cost ledger",
    )


def vlm_kwargs(args: argparse.Namespace) -> dict[str, Any]:
    """Field values for VLMConfig / VLMResource from the flags above (prices apart)."""
    return {
        "backend": args.vlm,
        "model": args.model,
        "base_url": args.base_url,
        "api_key_env": args.api_key_env,
        "max_in_flight": args.max_in_flight,
    }


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

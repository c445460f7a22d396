"""`python -m benchmarks NAME`: run benchmarks/NAME.py's `run()`, print one JSON line, keep the result.

Each benchmark module exposes `run() -> dict`; the dict is printed as one JSON line and written
to benchmarks/results/<name>.json (ignored by git) so successive runs can be compared.
"""
from __future__ import annotations

import importlib
import json
import sys
from pathlib import Path


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    if len(argv) != 1:
        print("usage: python -m benchmarks NAME   (NAME = a module in benchmarks/, e.g. score)", file=sys.stderr)
        return 2
    name = argv[0]
    result = importlib.import_module(f"benchmarks.{name}").run()
    line = json.dumps(result, sort_keys=True)
    print(line)
    out = Path(__file__).resolve().parent / "results" / f"{name}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(line + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())

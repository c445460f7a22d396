"""`python -m benchmarks [NAME ...] [--quick] [--OPTION VALUE ...]`: run benchmarks, print one JSON
line each, keep the results.

Each benchmark is a module benchmarks/NAME.py exposing `run() -> dict`. With no NAME every
benchmark present runs, in the fixed order of ORDER (then any other module, alphabetically);
with NAMEs only those run. Each result is printed as one JSON line (its name, the measured
values and its `ratio`) and written to benchmarks/results/NAME.json (ignored by git), so
successive runs can be compared.

  --quick   smoke-check sizes (sets EVALSET_BENCH_QUICK=1; modules that have a long real size,
            e.g. scale, read it)
  --OPTION VALUE   passed to the named benchmark's run() as a keyword (e.g. `realdocs --corpus DIR`);
            only for benchmarks that take it

A benchmark that raises prints {"name": ..., "error": ...} and the command exits 1 after the rest.
"""

from __future__ import annotations

import importlib
import json
import os
import sys
import time
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
ORDER = ("render", "embed", "mining", "vlm", "score", "rebuild", "scale")


def available() -> list[str]:
    present = {p.stem for p in HERE.glob("*.py") if not p.stem.startswith("_")}
    return [n for n in ORDER if n in present] + sorted(present - set(ORDER))


def run_one(name: str, options: dict[str, str] | None = None) -> tuple[dict, bool]:
    t0 = time.perf_counter()
    try:
        result = dict(importlib.import_module(f"benchmarks.{name}").run(**(options or {})))
        ok = True
    except Exception as exc:  # one broken benchmark must not hide the others' figures
        traceback.print_exc(file=sys.stderr)
        result, ok = {"name": name, "error": f"{type(exc).__name__}: {exc}"}, False
    result.setdefault("name", name)
    result["bench_wall_s"] = round(time.perf_counter() - t0, 1)
    return result, ok


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    options: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(argv):
        a = argv[i]
        if (
            a.startswith("--")
            and a not in ("--quick", "--help")
            and i + 1 < len(argv)
            and not argv[i + 1].startswith("--")
        ):
            options[a[2:].replace("-", "_")] = argv[i + 1]
            i += 2
            continue
        rest.append(a)
        i += 1
    names = [a for a in rest if not a.startswith("-")]
    flags = [a for a in rest if a.startswith("-")]
    if any(f in ("-h", "--help") for f in flags):
        print(__doc__.strip())
        print("\navailable: " + " ".join(available()))
        return 0
    unknown = [f for f in flags if f != "--quick"]
    if unknown:
        print(
            f"unknown option(s): {' '.join(unknown)}   "
            "(usage: python -m benchmarks [NAME ...] [--quick] [--OPTION VALUE])",
            file=sys.stderr,
        )
        return 2
    if "--quick" in flags:
        os.environ["EVALSET_BENCH_QUICK"] = "1"
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    missing = [n for n in names if n not in available()]
    if missing:
        print(
            f"no such benchmark: {' '.join(missing)}   (available: {' '.join(available())})",
            file=sys.stderr,
        )
        return 2
    if options and len(names) != 1:
        print("options (--OPTION VALUE) need exactly one benchmark NAME", file=sys.stderr)
        return 2
    failed = 0
    for name in names or available():
        result, ok = run_one(name, options)
        failed += not ok
        line = json.dumps(result, sort_keys=True, default=str)
        print(line, flush=True)
        if ok:
            out = HERE / "results" / f"{name}.json"
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(line + "\n", encoding="utf-8")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""`python -m benchmarks duplicates`: repeated blocks of code in the package and the benchmarks.

pylint's `symilar` (the engine of its duplicate-code check) compares every pair of files, with
comments, docstrings, imports and signatures ignored, and reports each block of at least
MIN_LINES lines that appears in two places. Blocks made only of argparse declarations (one
`add_argument` per option, repeated by commands that share options) are counted apart: they
are declarations, not logic. `python -m benchmarks.duplicates` prints the blocks and exits 1 when
any other block is found (`make lint` runs it).
"""

from __future__ import annotations

import re
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCOPE = ("evalset_pipeline", "benchmarks")
MIN_LINES = 4  # pylint's own default for duplicate-code
_HEADER = re.compile(r"^(\d+) similar lines in (\d+) files$")
_PLACE = re.compile(r"^==(.+):\[(\d+):(\d+)\]$")
# A line of argparse boilerplate: a declaration call, one of its keyword/string continuations, or
# the `return parser` that ends a block of them.
_ARGPARSE = re.compile(
    r"(add_argument|add_parser|add_subparsers|add_mutually_exclusive_group|add_argument_group|set_defaults)\("
    r"|^\s*(\w+=|[\"'fr]+[\"']|\)|\],?$|\}\)?,?$|return \w+$)"
)


@dataclass(frozen=True)
class Block:
    lines: int
    places: tuple[str, ...]  # "path:[start:end]"
    code: tuple[str, ...]

    @property
    def argparse_boilerplate(self) -> bool:
        code = [line for line in self.code if line.strip()]
        return (
            bool(code)
            and any("add_argument(" in line for line in code)
            and all(_ARGPARSE.search(line) for line in code)
        )


def source_files(root: Path = ROOT) -> list[Path]:
    return sorted(
        p for scope in SCOPE for p in (root / scope).rglob("*.py") if "__pycache__" not in p.parts
    )


def find_blocks(files: list[Path], min_lines: int = MIN_LINES, root: Path = ROOT) -> list[Block]:
    """Run symilar (a console script of pylint, installed beside this interpreter) and parse its report."""
    symilar = Path(sys.executable).with_name("symilar")
    cmd = [
        str(symilar),
        "-d",
        str(min_lines),
        "--ignore-comments",
        "--ignore-docstrings",
        "--ignore-imports",
        "--ignore-signatures",
        *map(str, files),
    ]
    out = subprocess.run(cmd, capture_output=True, text=True, check=False).stdout
    blocks: list[Block] = []
    lines: int | None = None
    places: list[str] = []
    code: list[str] = []

    def close() -> None:
        if lines is not None:
            blocks.append(Block(lines, tuple(places), tuple(code)))

    for raw in out.splitlines():
        header, place = _HEADER.match(raw), _PLACE.match(raw)
        if header:
            close()
            lines, places, code = int(header[1]), [], []
        elif place and lines is not None:
            places.append(f"{Path(place[1]).resolve().relative_to(root)}:[{place[2]}:{place[3]}]")
        elif raw.startswith("TOTAL lines="):
            close()
            lines = None
        elif lines is not None and raw.startswith("   "):
            code.append(raw[3:])
    if lines is not None:
        close()
    return blocks


def run() -> dict[str, object]:
    files = source_files()
    blocks = find_blocks(files)
    logic = [b for b in blocks if not b.argparse_boilerplate]
    return {
        "name": "duplicates",
        "files": len(files),
        "min_lines": MIN_LINES,
        "repeated_blocks": len(logic),
        "repeated_lines": sum(b.lines for b in logic),
        "argparse_blocks": len(blocks) - len(logic),
        "blocks": [{"lines": b.lines, "places": list(b.places)} for b in logic],
        "ratio": float(len(logic)),
    }


def main() -> int:
    result = run()
    for block in result["blocks"]:  # type: ignore[attr-defined]
        print(f"{block['lines']} repeated lines: " + "  ".join(block["places"]))
    print(
        f"duplicates: {result['repeated_blocks']} repeated block(s) of >= {MIN_LINES} lines in "
        f"{result['files']} files ({result['argparse_blocks']} argparse-only block(s) allowed)"
    )
    return 1 if result["repeated_blocks"] else 0


if __name__ == "__main__":
    raise SystemExit(main())

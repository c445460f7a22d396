"""The package's own source: which modules a module imports, transitively.

A hash of code must cover every module that code runs, and a hand-kept list of modules forgets
the one added last. So the list is derived: `import_closure` parses the imports of a module (at
any depth, function-level ones included) and follows them inside the package. Stage code
versions (`pipeline/graph.py`) and the offline reader's rules hash (`reader/textlayer.py`) both
use it; it sits in the bottom row so that any layer may.
"""

from __future__ import annotations

import ast
from functools import cache
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parents[1]  # evalset_pipeline/
PACKAGE = PACKAGE_DIR.name


def _module_file(module: str, root: Path) -> Path | None:
    rel = Path(*module.split(".")[1:])
    for candidate in (root / rel.with_suffix(".py"), root / rel / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _module_name(path: Path, root: Path) -> str:
    rel = path.relative_to(root).with_suffix("")
    parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
    return ".".join((PACKAGE, *parts))


def _imports(path: Path, root: Path) -> frozenset[str]:
    """Package modules `path` imports, anywhere in the file (function-level imports included)."""
    return _imports_of(path, root, path.stat().st_mtime_ns)


@cache
def _imports_of(
    path: Path, root: Path, mtime_ns: int
) -> frozenset[str]:  # parsed once per file version, not per caller
    name = _module_name(path, root)
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            found |= {a.name for a in node.names}
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                anchor = package.split(".")[: len(package.split(".")) - node.level + 1]
                base = ".".join([*anchor, *([base] if base else [])])
            found.add(base)
            found |= {f"{base}.{a.name}" for a in node.names}  # `from pkg import module`
    return frozenset(m for m in found if m == PACKAGE or m.startswith(PACKAGE + "."))


def import_closure(module: str, root: Path = PACKAGE_DIR) -> list[Path]:
    """Source files of `module` and every package module it imports, transitively (parents'
    __init__ too). `root` is the package folder to read them from (a copy, in tests)."""
    seen: dict[str, Path] = {}
    todo = [module]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _module_file(name, root)
        if path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        todo += [
            ".".join(parts[:i]) for i in range(2, len(parts))
        ]  # importing a.b.c runs a.b's __init__
        todo += sorted(_imports(path, root))
    return sorted(seen.values())


__all__ = ["PACKAGE", "PACKAGE_DIR", "import_closure"]

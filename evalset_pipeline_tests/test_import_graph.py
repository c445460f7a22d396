"""No import cycle inside evalset_pipeline: not between modules, not between core's packages.

import-linter (`make lint`) holds the declared layer order; this test holds the weaker rule that
survives any re-layering (nothing imports, directly or not, something that imports it back),
and it counts imports made inside functions too, which is how a cycle usually hides.
"""

from __future__ import annotations

import sys
import textwrap
from pathlib import Path

import grimp
import networkx as nx
import pytest

PACKAGE = "evalset_pipeline"


def import_cycles(package: str, depth: int | None = None) -> list[list[str]]:
    """Every import cycle in `package` (strongly connected groups of more than one node), with
    modules folded to their first `depth` name parts when given (package-level cycles)."""
    graph = grimp.build_graph(package, cache_dir=None)
    edges = nx.DiGraph()
    for importer in graph.modules:
        for imported in graph.find_modules_directly_imported_by(importer):
            a, b = (".".join(m.split(".")[:depth]) if depth else m for m in (importer, imported))
            if a != b:
                edges.add_edge(a, b)
    return sorted(
        sorted(group) for group in nx.strongly_connected_components(edges) if len(group) > 1
    )


def test_no_module_imports_itself_back() -> None:
    assert import_cycles(PACKAGE) == []


def test_no_package_of_core_imports_itself_back() -> None:
    # evalset_pipeline.core.<package>: a loop through several packages is a cycle too, even when
    # no single pair of modules forms one.
    assert import_cycles(PACKAGE, depth=3) == []


def test_a_cycle_hidden_in_a_function_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The check itself can fail: a package whose second module imports the first inside a
    function (the usual dodge) is reported, at module and package level."""
    root = tmp_path / "loopy"
    for sub in ("a", "b"):
        (root / sub).mkdir(parents=True)
        (root / sub / "__init__.py").write_text("")
    (root / "__init__.py").write_text("")
    (root / "a" / "one.py").write_text("from loopy.b.two import g\n\ndef f():\n    return g()\n")
    (root / "b" / "two.py").write_text(
        textwrap.dedent("""
        def g():
            from loopy.a.one import f  # local: one imports two
            return f
    """)
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delitem(sys.modules, "loopy", raising=False)
    assert import_cycles("loopy") == [["loopy.a.one", "loopy.b.two"]]
    assert import_cycles("loopy", depth=2) == [["loopy.a", "loopy.b"]]

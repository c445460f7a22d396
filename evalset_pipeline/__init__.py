"""Golden evaluation sets for visual document retrieval.

Downstream code needs only::

    from evalset_pipeline import load_golden_set
    golden = load_golden_set("latest")   # items, judgments, units as pyarrow tables

Imports are lazy so `import evalset_pipeline` stays cheap (no dagster, torch or even pyarrow).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evalset_pipeline.core.golden.errors import GoldenSetCorrupt, GoldenSetNotFound
    from evalset_pipeline.core.golden.model import GoldenSet
    from evalset_pipeline.core.golden.reader import list_golden_sets, load_golden_set
    from evalset_pipeline.core.golden.sql_reader import connect_golden_sql

__all__ = [
    "load_golden_set",
    "list_golden_sets",
    "connect_golden_sql",
    "GoldenSet",
    "GoldenSetNotFound",
    "GoldenSetCorrupt",
]

_LAZY = {
    "load_golden_set": "evalset_pipeline.core.golden.reader",
    "list_golden_sets": "evalset_pipeline.core.golden.reader",
    "connect_golden_sql": "evalset_pipeline.core.golden.sql_reader",
    "GoldenSet": "evalset_pipeline.core.golden.model",
    "GoldenSetNotFound": "evalset_pipeline.core.golden.errors",
    "GoldenSetCorrupt": "evalset_pipeline.core.golden.errors",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'evalset_pipeline' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # cache: later lookups skip __getattr__
    return value


def __dir__() -> list[str]:
    return sorted(list(globals()) + __all__)

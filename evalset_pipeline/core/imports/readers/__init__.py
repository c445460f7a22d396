"""One reader per external format; each returns a `SourceSet` and never raises on a bad row."""

from __future__ import annotations

from pathlib import Path

from evalset_pipeline.core.imports.records import FORMATS, ImportFormatError, SourceSet

__all__ = ["read_source"]


def read_source(
    fmt: str,
    path: str | Path,
    *,
    source: str = "",
    mapping: str | Path | None = None,
    splits: tuple[str, ...] = (),
) -> SourceSet:
    """Read `path` as `fmt` (beir | vidore | mteb | jsonl). `mapping`: a CSV `corpus_id,document,page`
    for corpora whose rows do not say which document page they are; `splits`: only these splits."""
    path = Path(path)
    if not path.exists():
        raise ImportFormatError(f"{path} does not exist")
    name = source or (path.parent.name if path.is_file() else path.name)
    if fmt == "jsonl":
        from evalset_pipeline.core.imports.readers.jsonl import read_jsonl

        return read_jsonl(path, name)
    if fmt == "beir":
        from evalset_pipeline.core.imports.readers.beir import read_beir

        return read_beir(path, name, mapping=mapping, splits=splits)
    if fmt in ("vidore", "mteb"):
        from evalset_pipeline.core.imports.readers.parquet import read_parquet_set

        return read_parquet_set(path, name, fmt, mapping=mapping, splits=splits)
    raise ImportFormatError(f"unknown import format {fmt!r}; choose one of {', '.join(FORMATS)}")

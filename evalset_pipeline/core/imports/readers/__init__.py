"""One reader per external format; each returns a `SourceSet` and never raises on a bad row."""

from __future__ import annotations

from pathlib import Path

from evalset_pipeline.core.imports.records import (
    DEFAULT_MAX_ROWS,
    FORMATS,
    ImportFormatError,
    SourceSet,
)
from evalset_pipeline.core.inputfile import InputFileError, check_dir, check_file

__all__ = ["read_source"]


def read_source(
    fmt: str,
    path: str | Path,
    *,
    source: str = "",
    mapping: str | Path | None = None,
    splits: tuple[str, ...] = (),
    max_rows: int = DEFAULT_MAX_ROWS,
) -> SourceSet:
    """Read `path` as `fmt` (beir | vidore | mteb | jsonl). `mapping`: a CSV `corpus_id,document,page`
    for corpora whose rows do not say which document page they are; `splits`: only these splits;
    `max_rows`: refuse (ImportFormatError, before judging anything) an input with more questions."""
    path = Path(path)
    # Kind first: a FIFO would block open() forever, a loop or a directory would end in an OSError.
    try:
        if fmt == "jsonl":
            check_file(path, "JSONL file")
        else:
            check_dir(path, f"{fmt} folder")
    except InputFileError as exc:
        raise ImportFormatError(str(exc)) from None
    name = source or (path.parent.name if fmt == "jsonl" else path.name)
    if fmt == "jsonl":
        from evalset_pipeline.core.imports.readers.jsonl import read_jsonl

        read = read_jsonl(path, name, max_rows=max_rows)
        if read.rows == 0:
            raise ImportFormatError(f"{path} holds no rows (the file is empty or blank)")
        return read
    if fmt == "beir":
        from evalset_pipeline.core.imports.readers.beir import read_beir

        return read_beir(path, name, mapping=mapping, splits=splits, max_rows=max_rows)
    if fmt in ("vidore", "mteb"):
        from evalset_pipeline.core.imports.readers.parquet import read_parquet_set

        return read_parquet_set(path, name, fmt, mapping=mapping, splits=splits, max_rows=max_rows)
    raise ImportFormatError(f"unknown import format {fmt!r}; choose one of {', '.join(FORMATS)}")

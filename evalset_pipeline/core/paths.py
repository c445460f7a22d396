"""Where everything lives under the data directory (one place, so nothing guesses a path)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from evalset_pipeline.core.environment import environment


def default_data_dir() -> Path:
    return Path(environment().data_dir)


def default_corpus_dir() -> Path:
    return Path(environment().corpus_dir)


@dataclass(frozen=True)
class DataPaths:
    """Layout of the data directory.

    artifacts/  content-addressed renders, text layers, embeddings and working tables (Parquet)
    cache/      the model-call cache and ledger (its own DuckDB file, so long model steps never
                hold the golden-set database's write lock)
    golden/     immutable per-version Parquet snapshots plus the atomically swapped LATEST pointer
    evalsets.duckdb   golden-set tables and views for SQL readers
    """

    root: Path

    @classmethod
    def at(cls, root: str | Path | None = None) -> DataPaths:
        return cls(Path(root) if root is not None else default_data_dir())

    @property
    def artifacts(self) -> Path:
        return self.root / "artifacts"

    @property
    def renders(self) -> Path:
        return self.artifacts / "renders"

    @property
    def embeddings(self) -> Path:
        return self.artifacts / "embeddings"

    @property
    def tables(self) -> Path:
        return self.artifacts / "tables"

    def table(self, name: str) -> Path:
        return self.tables / f"{name}.parquet"

    def table_file(self, filename: str) -> Path:
        """A stage's file beside its tables (`corpus_manifest.json`, `page_embeddings.npy`,
        `<stage>.calls.json`); named through here so a stage's reads can be checked (pipeline/graph.py)."""
        return self.tables / filename

    @property
    def cache_db(self) -> Path:
        return self.root / "cache" / "model_calls.duckdb"

    @property
    def golden(self) -> Path:
        return self.root / "golden"

    @property
    def warehouse(self) -> Path:
        return self.root / "evalsets.duckdb"

    @property
    def build_lock(self) -> Path:
        return self.root / ".build.lock"

    @property
    def build_holders(self) -> Path:
        return self.root / ".build.holders"

    @property
    def regressions(self) -> Path:
        return self.root / "regressions"

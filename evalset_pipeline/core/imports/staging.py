"""An import's judged rows, staged on disk in DuckDB as they are judged, and published from there.

An import of 1M questions makes ~1M item rows and ~6M judgment rows. Held in Python (and then
sorted, fingerprinted and written by pyarrow) that was ~12 GB; staged here, memory does not grow
with the rows: each judged batch is appended to a DuckDB file with each row's canonical encoding,
and at publish DuckDB checks the draft contract in SQL, streams the sorted encodings into the
version id (the same id `compute_version_id` gives the same content) and writes the snapshot's
Parquet files itself (`PreparedVersion`). DuckDB spills its sorts to the staging directory.

The staging directory lives in the data directory (`.import-staging-*`) and is removed when the
import ends, published or not; one a killed import left is removed by the next import, which holds
the data directory's lock. Nothing under golden/ is written before `publish_prepared`, so a crash
while staging publishes nothing.
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import duckdb
import pyarrow as pa

from evalset_pipeline.core.corpus.manifest import CorpusManifest
from evalset_pipeline.core.golden.errors import InvalidDraft
from evalset_pipeline.core.golden.fingerprint import (
    TABLE_ORDER,
    canonical_row,
    content_columns,
    version_id_of,
)
from evalset_pipeline.core.golden.publish import PreparedVersion
from evalset_pipeline.core.golden.schema import ROLES
from evalset_pipeline.core.golden.snapshot import (
    FILES,
    seal_table_file,
    with_version_id,
    write_table_file,
)
from evalset_pipeline.core.golden.validate import REQUIRED_NON_NULL, SORT_KEYS
from evalset_pipeline.core.labels import LABELS, SLICES
from evalset_pipeline.core.paths import DataPaths

STAGING_PREFIX = ".import-staging-"
STAGED = ("golden_items", "golden_judgments")  # golden_units is one row per page: kept in memory
# DuckDB's own memory for the staged tables (sorts beyond it spill to disk): with Python's share
# the import stays well under the 2 GB goal.
DUCKDB_MEMORY = "512MB"
HASH_CHUNK_ROWS = 50_000


def remove_leftovers(paths: DataPaths) -> None:
    """Staging directories of imports that were killed; call only while holding the data lock."""
    for leftover in paths.root.glob(f"{STAGING_PREFIX}*"):
        shutil.rmtree(leftover, ignore_errors=True)


class ImportStaging:
    """Staged item and judgment rows (content columns plus each row's canonical encoding)."""

    def __init__(self, directory: Path):
        self.directory = directory
        self.con = duckdb.connect(str(directory / "staging.duckdb"))
        self.con.execute(f"SET memory_limit = '{DUCKDB_MEMORY}'")
        self.con.execute(f"SET temp_directory = '{_quoted(directory / 'spill')}'")
        self.con.execute("SET preserve_insertion_order = false")
        for name in STAGED:
            cols = ", ".join(f'"{c}" VARCHAR' for c in content_columns(name))
            self.con.execute(f"CREATE TABLE {name} ({cols}, canon VARCHAR)")

    def add(self, name: str, rows: Sequence[dict[str, Any]]) -> None:
        """Append rows (dicts with the table's content columns) to a staged table."""
        if not rows:
            return
        columns = content_columns(name)
        values = {c: [r[c] for r in rows] for c in columns}
        canon = [canonical_row(list(row)) for row in zip(*values.values(), strict=True)]
        batch = pa.table(
            {**{c: pa.array(v, pa.string()) for c, v in values.items()}, "canon": canon}
        )
        self.con.register("_batch", batch)
        try:
            self.con.execute(f"INSERT INTO {name} SELECT * FROM _batch")
        finally:
            self.con.unregister("_batch")

    def _count(self, sql: str) -> int:
        row = self.con.execute(sql).fetchone()
        return int(row[0]) if row else 0

    def _examples(self, sql: str) -> list[Any]:
        return [r[0] for r in self.con.execute(sql + " LIMIT 5").fetchall()]

    def check(self, unit_ids: set[str]) -> None:
        """The draft contract of `validate.normalise_draft`, in SQL; raises InvalidDraft."""
        self.con.register("_units", pa.table({"unit_id": sorted(unit_ids)}))
        problems: list[str] = []
        for name in STAGED:
            for column in REQUIRED_NON_NULL[name]:
                nulls = self._count(f'SELECT count(*) FROM {name} WHERE "{column}" IS NULL')
                if nulls:
                    problems.append(f"{name}.{column}: {nulls} null value(s)")

        def outside(column: str, table: str, allowed: Sequence[str]) -> str:
            listed = ", ".join("'" + a.replace("'", "''") + "'" for a in allowed)
            return f"SELECT DISTINCT {column} FROM {table} WHERE {column} NOT IN ({listed})"

        checks = [
            (
                "golden_items: duplicate item_id",
                "SELECT item_id FROM golden_items GROUP BY 1 HAVING count(*) > 1",
            ),
            (
                "golden_judgments: duplicate (item_id, unit_id)",
                "SELECT item_id || ' ' || unit_id FROM golden_judgments GROUP BY item_id, unit_id "
                "HAVING count(*) > 1",
            ),
            ("golden_items: unknown slice", outside("slice", "golden_items", SLICES)),
            ("golden_judgments: unknown role", outside("role", "golden_judgments", ROLES)),
            ("golden_judgments: unknown label", outside("label", "golden_judgments", LABELS)),
            (
                "golden_judgments: item_id not in items",
                "SELECT DISTINCT item_id FROM golden_judgments "
                "WHERE item_id NOT IN (SELECT item_id FROM golden_items)",
            ),
            (
                "golden_judgments: unit_id not in units",
                "SELECT DISTINCT unit_id FROM golden_judgments "
                "WHERE unit_id NOT IN (SELECT unit_id FROM _units)",
            ),
            (
                "golden_items: gold_unit_id not in units",
                "SELECT DISTINCT gold_unit_id FROM golden_items "
                "WHERE gold_unit_id NOT IN (SELECT unit_id FROM _units)",
            ),
        ]
        problems += [f"{what}: {ex}" for what, sql in checks if (ex := self._examples(sql))]
        self.con.unregister("_units")
        if problems:
            raise InvalidDraft("golden-set draft rejected:\n  - " + "\n  - ".join(problems))

    def _sorted_canon(self, name: str) -> Iterator[list[str]]:
        cursor = self.con.cursor()  # its own result, so counts can run between chunks
        try:
            reader = cursor.sql(f"SELECT canon FROM {name} ORDER BY canon").to_arrow_reader(
                HASH_CHUNK_ROWS
            )
            for batch in reader:
                yield batch.column(0).to_pylist()
        finally:
            cursor.close()

    def version_id(self, corpus_fingerprint: str, config_fingerprint: str, units: pa.Table) -> str:
        unit_rows = sorted(
            canonical_row(list(row))
            for row in zip(
                *(units.column(c).to_pylist() for c in content_columns("golden_units")),
                strict=True,
            )
        )
        sections = [
            (name, self._count(f"SELECT count(*) FROM {name}"), self._sorted_canon(name))
            for name in TABLE_ORDER
            if name in STAGED
        ] + [("golden_units", len(unit_rows), iter([unit_rows]))]
        return version_id_of(corpus_fingerprint, config_fingerprint, sections)

    def _copy(self, name: str, path: Path, version_id: str) -> dict[str, Any]:
        cols = ", ".join(f'"{c}"' for c in content_columns(name))
        order = ", ".join(SORT_KEYS[name])
        self.con.execute(
            f"COPY (SELECT '{_quoted(version_id)}' AS version_id, {cols} FROM {name} "
            f"ORDER BY {order}) TO '{_quoted(path)}' (FORMAT PARQUET, COMPRESSION ZSTD)"
        )
        return seal_table_file(path, name, self._count(f"SELECT count(*) FROM {name}"))

    def prepare(
        self,
        corpus: CorpusManifest,
        config_fingerprint: str,
        units: pa.Table,
        funnel: dict[str, Any],
        provenance: dict[str, Any],
    ) -> PreparedVersion:
        """The staged rows as a version to publish (`units`: normalised, without version_id)."""
        self.check(set(units.column("unit_id").to_pylist()))
        version_id = self.version_id(corpus.fingerprint, config_fingerprint, units)
        versioned_units = with_version_id("golden_units", units, version_id)

        def write_files(directory: Path, _: str) -> dict[str, dict[str, Any]]:
            directory.mkdir(parents=True)
            files = {
                FILES[name]: self._copy(name, directory / FILES[name], version_id)
                for name in STAGED
            }
            path = directory / FILES["golden_units"]
            files[FILES["golden_units"]] = write_table_file(path, "golden_units", versioned_units)
            return files

        def warehouse_tables(snapshot: Path) -> dict[str, pa.Table | Path]:
            tables: dict[str, pa.Table | Path] = {n: snapshot / FILES[n] for n in STAGED}
            tables["golden_units"] = versioned_units
            return tables

        slices = dict(
            self.con.execute("SELECT slice, count(*) FROM golden_items GROUP BY 1").fetchall()
        )
        return PreparedVersion(
            version_id,
            corpus,
            config_fingerprint,
            funnel,
            provenance,
            self._count("SELECT count(*) FROM golden_items"),
            {str(k): int(v) for k, v in slices.items()},
            write_files,
            warehouse_tables,
        )

    def close(self) -> None:
        self.con.close()


def _quoted(value: object) -> str:
    return str(value).replace("'", "''")


@contextmanager
def staging(paths: DataPaths) -> Iterator[ImportStaging]:
    """A fresh staging area in the data directory, removed on the way out whatever happens."""
    directory = Path(tempfile.mkdtemp(prefix=STAGING_PREFIX, dir=paths.root))
    staged: ImportStaging | None = None
    try:
        staged = ImportStaging(directory)
        yield staged
    finally:
        if staged is not None:
            staged.close()
        shutil.rmtree(directory, ignore_errors=True)

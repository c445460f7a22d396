"""The storage contract's version moves with its schemas, and the changelog says so."""

from __future__ import annotations

import re
from pathlib import Path

import pyarrow as pa

from evalset_pipeline.core.golden import schema

# Fingerprint of each released contract version. A schema change must add a line here with a new
# CONTRACT_VERSION and a CHANGELOG.md entry saying what changed for readers.
RELEASED = {
    1: "e94554c39bfafe28b762618d15539519494f7d8d0cd0c6b58b4c2209e071abbc",
}
CHANGELOG = Path(__file__).resolve().parents[3] / "CHANGELOG.md"


def test_the_schemas_are_those_of_the_declared_contract_version() -> None:
    assert schema.CONTRACT_VERSION in RELEASED, (
        "a new contract version needs its fingerprint recorded here"
    )
    assert schema.contract_fingerprint() == RELEASED[schema.CONTRACT_VERSION], (
        "a golden-set schema changed: bump CONTRACT_VERSION in core/golden/schema.py, record its "
        "fingerprint in RELEASED and describe the change in CHANGELOG.md"
    )


def test_the_changelog_names_the_current_contract_version() -> None:
    versions = {
        int(v) for v in re.findall(r"storage contract (\d+)", CHANGELOG.read_text(encoding="utf-8"))
    }
    assert schema.CONTRACT_VERSION in versions


def test_a_changed_column_changes_the_fingerprint(monkeypatch) -> None:
    before = schema.contract_fingerprint()
    widened = pa.schema([*schema.GOLDEN_UNITS, pa.field("extra", pa.string())])
    monkeypatch.setitem(schema.CONTRACT_SCHEMAS, "golden_units", widened)
    assert schema.contract_fingerprint() != before

"""Per-page profile: what the axes do not hold: what kind of page it is and which periods it prints.

Written beside `page_metadata` by the same stage: templates are drawn from `statement`,
`layout` and `heading`; mining reads `printed_periods` to tell a comparative column (another
page that prints the gold's period, so it may answer the question) from a period distractor.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

import pyarrow as pa

__all__ = ["PageProfile", "SCHEMA"]

SCHEMA = pa.schema(
    [
        ("unit_id", pa.string()),
        ("document_sha256", pa.string()),
        ("page_number", pa.int64()),
        ("statement", pa.string()),
        ("statement_source", pa.string()),
        ("heading", pa.string()),
        ("heading_text", pa.string()),
        ("layout", pa.string()),
        ("numeric_share", pa.float64()),
        ("period_end", pa.string()),
        ("period_kind", pa.string()),
        ("printed_periods", pa.list_(pa.string())),
        ("skip_reason", pa.string()),
        ("basis", pa.string()),
        ("section", pa.string()),
    ]
)


@dataclass(frozen=True)
class PageProfile:
    unit_id: str
    document_sha256: str
    page_number: int
    statement: str = ""
    statement_source: str = ""
    heading: str = ""
    heading_text: str = ""
    layout: str = ""
    numeric_share: float = 0.0
    period_end: str = ""
    period_kind: str = ""
    printed_periods: list[str] = field(default_factory=list)
    skip_reason: str = (
        ""  # why the page offers nothing to ask (metadata/unaskable.py), "" when it may
    )
    # consolidated | separate: the statements' basis the page belongs to (its title or section,
    # `metadata.statement_basis`), "" where its document holds one basis only
    basis: str = ""
    # the PDF outline's innermost heading over the page (`corpus.outline`), "" without one
    section: str = ""

    def to_row(self) -> dict:
        return asdict(self)

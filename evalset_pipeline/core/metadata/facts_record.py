"""One document's facts as stored in the `document_facts` table: what was read, from where, how
sure, and what disagrees with the filer's other documents."""

from __future__ import annotations

from dataclasses import asdict, dataclass

import pyarrow as pa

from evalset_pipeline.core.judging.base import PageContext

__all__ = ["DocumentFacts", "SCHEMA"]

SCHEMA = pa.schema(
    [
        ("document_sha256", pa.string()),
        ("path", pa.string()),
        ("entity", pa.string()),
        ("entity_source", pa.string()),
        ("entity_confidence", pa.float64()),
        ("entity_as_printed", pa.string()),
        ("filer_ids", pa.list_(pa.string())),
        ("aliases", pa.list_(pa.string())),
        ("form", pa.string()),
        ("period", pa.string()),
        ("period_kind", pa.string()),
        ("period_end", pa.string()),
        ("period_source", pa.string()),
        ("period_confidence", pa.float64()),
        ("fiscal_year_end_month", pa.int64()),
        ("calendar_source", pa.string()),
        ("calendar_confidence", pa.float64()),
        ("subject", pa.string()),
        ("subject_kind", pa.string()),
        ("subject_source", pa.string()),
        ("conflicts", pa.list_(pa.string())),
        ("flags", pa.list_(pa.string())),
        ("unit", pa.string()),
    ]
)


@dataclass(frozen=True)
class DocumentFacts:
    document_sha256: str
    path: str
    entity: str = ""
    entity_source: str = (
        ""  # cover-label | pdf-author | ticker | legal-name | running-header | corpus | ""
    )
    entity_confidence: float = 0.0
    entity_as_printed: str = ""
    # identifiers the cover prints ("sec-file:0-15175", `filer_identity.read_filer_ids`), and the
    # other names of the document's filer (a renamed registrant's earlier or later name)
    filer_ids: tuple[str, ...] = ()
    aliases: tuple[str, ...] = ()
    form: str = ""
    period: str = ""  # canonical fiscal label (2023-Q2, 2023, 2023-H1, 2023-06)
    period_kind: str = ""
    period_end: str = ""  # ISO date, "" when the document prints none
    period_source: str = ""  # cover | spans | label | ""
    period_confidence: float = 0.0
    fiscal_year_end_month: int = 12
    calendar_source: str = "default"  # cover | stated | spans | guess | filer | default
    calendar_confidence: float = 0.2
    # what the cover says the document is about (`document_subject`): a budget sheet's program
    # "청년일자리창출지원(1043-301)", a brief's topic; the noun a question names it by (사업 | 과제 |
    # 보고서), and where it was read (label:사업명 | cover-title)
    subject: str = ""
    subject_kind: str = ""
    subject_source: str = ""
    # facts that disagree with the filer's other documents (the page is not sampled until a sidecar
    # row settles it), and facts read with low confidence; each one sentence
    conflicts: tuple[str, ...] = ()
    flags: tuple[str, ...] = ()
    # the money unit the document's unit lines agree on ("KRW millions"), "" where they do not
    unit: str = ""

    def to_row(self) -> dict:
        row = asdict(self)
        for name in _LISTS:
            row[name] = list(getattr(self, name))
        return row

    @classmethod
    def from_row(cls, row: dict) -> DocumentFacts:
        known = {k: v for k, v in row.items() if k in cls.__dataclass_fields__}
        for name in _LISTS:
            known[name] = tuple(known.get(name) or ())
        return cls(**known)

    def page_context(self) -> PageContext:
        """What a backend is shown beside each of the document's pages."""
        return PageContext(
            self.entity,
            self.form,
            self.period,
            self.period_end,
            self.aliases,
            subject=self.subject,
            subject_kind=self.subject_kind,
            unit=self.unit,
        )


_LISTS = ("filer_ids", "aliases", "conflicts", "flags")

"""The one-cell question as the judge reads it back, in either language's grammar."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date

__all__ = ["TableQuestion"]


@dataclass(frozen=True)
class TableQuestion:
    label: str
    parent: str
    months: int | None  # 3/6/9/12, None for "as of" (an instant) or a bare fiscal year
    end: date | None
    year: int | None
    entity: str = ""
    revision: str = ""
    measure: str = (
        ""  # the sub-column asked ("Fair Value" of "December 31, 2018 Fair Value"), "" for none
    )
    language: str = "en"
    # consolidated | separate: the statements asked (a filing printing both prints the row twice)
    basis: str = ""
    # what the document is about, named where sheets of one layout print the same rows for other
    # programs ("청년일자리창출지원(1043-301)"), and the noun naming it (사업 | 과제 | 보고서)
    subject: str = ""
    subject_kind: str = ""

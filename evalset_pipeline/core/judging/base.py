"""The one interface every question writer / judge backend implements.

A backend is what a vision-language model would be: it sees one page (its render and its
text layer) at a time and never the corpus metadata. Two implementations exist: `textlayer`
(offline, deterministic) and `openai` (any OpenAI-compatible endpoint).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

from evalset_pipeline.core.labels import LABELS as LABELS
from evalset_pipeline.core.labels import Label

TASKS = ("write", "judge", "label", "qualify")


@dataclass(frozen=True)
class CallUsage:
    """What one model call cost; backends that call nothing leave it None."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    latency_s: float = 0.0


@dataclass(frozen=True)
class PageContext:
    """The document a page belongs to, as a retriever's index shows it beside the page: its
    registrant, form and reporting period (read once per document, `metadata.document_facts`).
    A statement page that does not print the company name still answers a question naming it."""

    entity: str = ""
    form: str = ""
    period: str = ""  # canonical fiscal label, e.g. 2023-Q3
    period_end: str = ""  # ISO date
    # the filer's other names (one filer under two names: `metadata.filer_identity`): a question
    # naming any of them is about this page's company
    aliases: tuple[str, ...] = ()
    # consolidated | separate: the statements' basis of this page (`metadata.statement_basis`),
    # "" where its document prints one basis only. A page fact: `pipeline.pages.page_view` sets it.
    basis: str = ""
    # the heading the page sits under in the PDF's outline ("Corporate & Investment Bank",
    # `corpus.outline`), "" without one: a segment's pages often print only "Selected metrics"
    section: str = ""
    # what the document is about as its cover says (`metadata.document_subject`): the program of a
    # budget sheet ("청년일자리창출지원(1043-301)"), a brief's topic; and the noun naming it (사업 |
    # 과제 | 보고서). Sheets of one layout print the same rows for other programs.
    subject: str = ""
    subject_kind: str = ""
    # the money unit every unit line of the document states ("KRW millions" of a budget sheet's
    # "(단위 : 백만원)"), "" where they disagree or state none: a table printed without its own
    # unit line is in it (`metadata.document_facts`, `reader.table_page.dated_page`)
    unit: str = ""

    @property
    def names(self) -> tuple[str, ...]:
        """The registrant's name as the document prints it, then its other names."""
        return tuple(n for n in (self.entity, *self.aliases) if n)

    def same_filer(self, other: PageContext) -> bool:
        """Two documents of one filer: one's name is the other's name or one of its aliases
        (names are spelt one way per corpus, `metadata.document_facts.reconcile`)."""
        return bool(set(self.names) & set(other.names))

    def as_dict(self) -> dict[str, str | list[str]]:
        # aliases, basis, section and subject only when there are some: a context without any keys its cache
        # entries and evidence as before
        return {
            "registrant": self.entity,
            "form": self.form,
            "fiscal_period": self.period,
            "period_end": self.period_end,
            **({"registrant_aliases": list(self.aliases)} if self.aliases else {}),
            **({"basis": self.basis} if self.basis else {}),
            **({"section": self.section} if self.section else {}),
            **({"subject": self.subject} if self.subject else {}),
            **({"unit": self.unit} if self.unit else {}),
        }


@dataclass(frozen=True)
class PageView:
    """Everything a backend may look at for one page."""

    unit_id: str
    image_path: Path  # PNG render
    text_path: (
        Path  # JSON text layer written by the render stage ({"text", "words", "width", "height"})
    )
    image_hash: str  # sha256 of the PNG, part of every cache key
    context: PageContext | None = (
        None  # the page's document; part of the judge's and labeller's cache keys
    )

    def context_key(self) -> dict[str, str | list[str]] | None:
        return self.context.as_dict() if self.context else None


@dataclass(frozen=True)
class WrittenQuestion:
    question: str
    answer: str
    language: str  # ISO 639-1, e.g. "en", "ko"
    usage: CallUsage | None = field(default=None, compare=False)


@dataclass(frozen=True)
class Judgment:
    """Does this page answer the question, and with what answer."""

    answers: bool
    answer: str | None = None
    reason: str = ""
    usage: CallUsage | None = field(default=None, compare=False)


@dataclass(frozen=True)
class LabelResult:
    label: Label
    rationale: str = ""
    usage: CallUsage | None = field(default=None, compare=False)


class Rewrite(str):
    """A rewritten question (`qualify`'s result): a plain `str` that also carries what the call cost.

    Being a `str`, it goes wherever a question goes (and backends that call nothing may return
    plain strings); the call cache reads `usage` the same way it does for the dataclasses above.
    """

    usage: CallUsage | None

    def __new__(cls, text: str, usage: CallUsage | None = None) -> Rewrite:
        obj = super().__new__(cls, text)
        obj.usage = usage
        return obj

    @property
    def text(self) -> str:
        return str(self)


@dataclass(frozen=True)
class CallFailure:
    """One request of a batch that failed for good (after retries, and one repair for bad output)."""

    index: int  # position in the batch
    error: (
        str  # why, without secrets: "invalid reply after one repair attempt: ...", "refused: ..."
    )
    raw: str = ""  # what the model replied, verbatim (JSON list of attempts), for the ledger
    usage: CallUsage | None = None  # tokens a failed call still spent


class BatchError(RuntimeError):
    """A backend could not complete a batch. It raises this only after every request it started has
    finished, handing over what did complete (`results`: batch index -> result) so the call cache
    keeps it (a rerun then asks only for the rest), and what failed (`failures`) for the ledger.
    A failed call is never returned as a result, so it is never cached as one.
    """

    def __init__(
        self,
        message: str,
        results: dict[int, object] | None = None,
        failures: Sequence[CallFailure] = (),
    ):
        from evalset_pipeline.core.redact import redact

        super().__init__(redact(message))  # it quotes raw replies, and Dagster stores the message
        self.results = dict(results or {})
        self.failures = list(failures)


class EndpointError(BatchError):
    """The endpoint itself kept failing (connection, timeout, 429, 5xx after retries; auth, not found).
    The message names the endpoint and the last error. Nothing falls back to another backend."""


@dataclass(frozen=True)
class Qualifiers:
    """The gold page's values on the axes where an answering distractor differs."""

    values: dict[str, str] = field(default_factory=dict)  # axis -> gold value (canonical)
    language: str = "en"


class VLMBackend(Protocol):
    name: str  # "textlayer" | "openai"
    model: str

    def prompt_hash(self, task: str) -> str:
        """Hash of the prompt (or rule set) used for a task; recorded with every result."""

    def write_questions(self, pages: Sequence[PageView]) -> list[WrittenQuestion | None]:
        """One question per page, or None when the page offers nothing to ask."""

    def judge(self, pairs: Sequence[tuple[str, PageView]]) -> list[Judgment]:
        """For each (question, page): does the page alone answer it?"""

    def label(self, triples: Sequence[tuple[str, str, PageView]]) -> list[LabelResult]:
        """For each (question, reference answer, page): sufficient / supporting / irrelevant."""

    def qualify(self, items: Sequence[tuple[str, Qualifiers]]) -> list[str]:
        """Rewrite each question so it names the gold's values on the given axes (a `Rewrite`
        where a model call was made, so its usage reaches the ledger)."""

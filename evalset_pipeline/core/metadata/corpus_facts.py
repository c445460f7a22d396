"""Read a whole corpus once: document facts first, then every page in its document's context.

Order matters: a page inherits its document's registrant and reporting period (most pages print
neither), and a statement page's continuation needs the page before it, so pages are read per
document, in page order, after the corpus-wide reconciliation of entities and fiscal calendars.

A page keeps what it states itself where its document says nothing (a document with no
reporting period, a slide deck without a cover): those values come from `extraction`, the
page-only reader.
"""

from __future__ import annotations

from collections import Counter, defaultdict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from evalset_pipeline.core.corpus.outline import OutlineEntry, page_paths, page_sections
from evalset_pipeline.core.metadata.document_facts import (
    DocumentFacts,
    extract_document_facts,
    reconcile,
)
from evalset_pipeline.core.metadata.extraction import (
    ORIGINAL,
    RESTATED,
    extract_fields,
    restated_in,
)
from evalset_pipeline.core.metadata.page_profile import PageProfile
from evalset_pipeline.core.metadata.page_subject import (
    PageLine,
    line_counts,
    line_key,
    page_lines,
    read_subjects,
    running_lines,
)
from evalset_pipeline.core.metadata.reporting_period import printed_periods
from evalset_pipeline.core.metadata.unaskable import skip_reason
from evalset_pipeline.core.pagetext.fiscal import FiscalCalendar
from evalset_pipeline.core.pagetext.page_reader import language_of
from evalset_pipeline.core.pagetext.periods import period_kind
from evalset_pipeline.core.render.pages import PageRender

__all__ = ["CorpusFacts", "read_corpus_facts"]


@dataclass
class CorpusFacts:
    documents: list[DocumentFacts]
    fields: dict[str, dict[str, str]]  # unit -> axis values read off the page in its document
    sources: dict[str, dict[str, str]]  # unit -> axis -> where the value came from
    profiles: list[PageProfile]
    # axis -> pages whose value is the page's own because its document states none (entity, period)
    fallbacks: dict[str, int] = field(default_factory=dict)


def _running_header(lines: Sequence[Sequence[PageLine]], counts: Counter[str]) -> str:
    """The top line repeated on most pages, as printed (a fallback name for the document's entity)."""
    running = running_lines(lines, min_share=0.5, counts=counts)
    for page in lines:
        for line in page[:3]:
            if (
                line_key(line.text) in running
                and any(c.isalpha() for c in line.text)
                and len(line.text) <= 80
            ):
                return line.text.strip()
    return ""


def read_corpus_facts(
    pages: Sequence[PageRender],
    documents: Mapping[str, tuple[str, str]],
    load_layer: Callable[[PageRender], dict[str, Any]],
    outlines: Mapping[str, Sequence[OutlineEntry]] | None = None,
) -> CorpusFacts:
    """`documents`: sha256 -> (title, author) from the PDF metadata; `load_layer`: a page's text
    layer; `outlines`: sha256 -> the PDF's bookmarks, where it has some (`corpus.outline`)."""
    by_doc: dict[str, list[PageRender]] = defaultdict(list)
    for page in pages:
        by_doc[page.document_sha256].append(page)
    layers: dict[str, list[dict[str, Any]]] = {}
    lines: dict[str, list[list[PageLine]]] = {}
    counts: dict[str, Counter[str]] = {}
    facts: list[DocumentFacts] = []
    for sha, doc_pages in sorted(by_doc.items()):
        doc_pages.sort(key=lambda p: p.page_number)
        layers[sha] = [load_layer(p) for p in doc_pages]
        lines[sha] = [page_lines(layer) for layer in layers[sha]]
        counts[sha] = line_counts(lines[sha])
        title, author = documents.get(sha, ("", ""))
        texts = [str(layer.get("text") or "") for layer in layers[sha]]
        facts.append(
            extract_document_facts(
                sha,
                doc_pages[0].document_path,
                texts,
                title=title or "",
                author=author or "",
                running_header=_running_header(lines[sha], counts[sha]),
                cover_lines=lines[sha][:2],
                running=running_lines(lines[sha], counts=counts[sha]),
            )
        )
    facts = reconcile(facts)
    by_sha = {f.document_sha256: f for f in facts}
    fields: dict[str, dict[str, str]] = {}
    sources: dict[str, dict[str, str]] = {}
    profiles: list[PageProfile] = []
    fallbacks = {"entity": 0, "period": 0}
    for sha, doc_pages in sorted(by_doc.items()):
        doc = by_sha[sha]
        title, author = documents.get(sha, ("", ""))
        calendar = FiscalCalendar(doc.fiscal_year_end_month)
        outline = (outlines or {}).get(sha, ())
        last = max(p.page_number for p in doc_pages)
        paths = page_paths(outline, last) if outline else []
        headings = [paths[p.page_number - 1] for p in doc_pages] if paths else None
        sections = page_sections(outline, last) if outline else []
        subjects = read_subjects(layers[sha], doc.entity, lines[sha], counts[sha], headings)
        for page, layer, subject, page_lines_ in zip(
            doc_pages, layers[sha], subjects, lines[sha], strict=False
        ):
            text = str(layer.get("text") or "")
            # The page-only reader is the costly part; it is needed only where the document is silent.
            needs_page = not (doc.entity and doc.period) or (
                not subject.subject and subject.layout != "sparse"
            )
            own = (
                extract_fields(layer, title or "", author or "")
                if needs_page
                else (
                    {
                        "revision": RESTATED if restated_in(text, title or "") else ORIGINAL,
                        "language": language_of(text),
                    }
                    if text.strip()
                    else {}
                )
            )
            values, where = {}, {}
            for name, value in own.items():
                if value:
                    values[name], where[name] = value, "extracted"
            fallbacks["entity"] += bool(not doc.entity and values.get("entity"))
            fallbacks["period"] += bool(not doc.period and values.get("period"))
            if doc.entity:
                values["entity"], where["entity"] = doc.entity, "extracted"
            if doc.period:
                values["period"], where["period"] = doc.period, "extracted"
            # The metric axis is the page's subject: the statement, a measure its heading names, else its
            # heading; a sparse page (cover, divider) has no subject beyond what the page reader saw.
            subject_value = subject.statement or (
                subject.subject if subject.layout != "sparse" else ""
            )
            if subject_value:
                values["metric"], where["metric"] = subject_value, "extracted"
            fields[page.unit_id], sources[page.unit_id] = values, where
            profiles.append(
                PageProfile(
                    page.unit_id,
                    sha,
                    page.page_number,
                    subject.statement,
                    subject.statement_source,
                    subject.heading,
                    subject.heading_text,
                    subject.layout,
                    subject.numeric_share,
                    doc.period_end,
                    period_kind(values.get("period", "")),
                    printed_periods(
                        str(layer.get("text") or ""), calendar, doc.period, doc.period_end
                    ),
                    skip_reason(page_lines_, subject, page.page_number),
                    subject.basis,
                    sections[page.page_number - 1] if sections else "",
                )
            )
    return CorpusFacts(facts, fields, sources, profiles, fallbacks)

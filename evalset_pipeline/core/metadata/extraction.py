"""Axis values read off the page itself, for pages the sidecar says nothing about.

Honest by construction: an extractor sees one page's text layer plus its PDF's own metadata
(title, author, from the `documents` table) and never the sidecar. The page is read with
`vlm.page_reader.read_page`, the same reader the offline question writer uses.

  period    the page's reporting period: the first period in its running header or title block
            (where decks say what the page is about), else the first period anywhere on the page,
            else one in the PDF title; always canonical (2024-Q3, 2024-H1, 2024), so "FY24 Q3",
            "Q3 2024", "quarter ended September 30, 2024", "2024-09-30" and "2024년 3분기" agree
  metric    the metric the page title names (canonical key: revenue, operating income, ...);
            empty on covers
  entity    the PDF's author when the page itself prints that name (confirmation that the author
            field names the reporting entity, not a person or a tool), else the page's running
            header (first entity-like fragment), else the author
  revision  `restated` when the page or its PDF title says restated/restatement, else `original`
  language  ko / en from the script of the text
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from evalset_pipeline.core.pagetext.layer import load_text_layer
from evalset_pipeline.core.pagetext.page_reader import PageFacts, language_of, read_page
from evalset_pipeline.core.pagetext.periods import parse_periods
from evalset_pipeline.core.pagetext.text import clean_text
from evalset_pipeline.core.render.pages import PageRender

ORIGINAL, RESTATED = "original", "restated"
_RESTATED = re.compile(r"\brestated\b|\brestatement\b|정정|재작성", re.I)


def restated_in(page_text: str, document_title: str = "") -> bool:
    """The page or its PDF title says restated / restatement."""
    return bool(_RESTATED.search(page_text) or _RESTATED.search(document_title))


def period_of(facts: PageFacts, document_title: str = "") -> str:
    if facts.reporting_periods:
        return facts.reporting_periods[0]
    if facts.periods:
        return facts.periods[0]
    found = parse_periods(document_title)
    return found[0] if found else ""


def entity_of(facts: PageFacts, author: str = "", document_title: str = "") -> str:
    author = author.strip()
    if author and clean_text(author, casefold=True) in clean_text(facts.text, casefold=True):
        return author
    title = clean_text(document_title, casefold=True)
    for candidate in facts.entity_candidates:
        if (
            title
            and clean_text(candidate, casefold=True)
            and title.startswith(clean_text(candidate, casefold=True))
        ):
            return candidate  # the header name the PDF title starts with ("Acme Group Q3 2024 results")
    if facts.entity_candidates:
        return facts.entity_candidates[0]
    return author


def extract_fields(layer: Mapping[str, Any], title: str = "", author: str = "") -> dict[str, str]:
    """Axis values of one page from its text layer and its PDF's title/author; {} for a page without text."""
    text = str(layer.get("text") or "")
    if not text.strip():
        return {}
    facts = read_page(dict(layer))
    restated = facts.restated or bool(_RESTATED.search(title))
    return {
        "period": period_of(facts, title),
        "metric": facts.metric or "",
        "entity": entity_of(facts, author, title),
        "revision": RESTATED if restated else ORIGINAL,
        "language": language_of(text),
    }


class TextLayerExtractor:
    """Reads only the page's text layer and its PDF's own metadata (never the sidecar).

    `documents` maps document sha256 -> (title, author); without it, only the page is read.
    """

    def __init__(
        self, data_dir: str | Path, documents: Mapping[str, tuple[str, str]] | None = None
    ):
        self.data_dir = Path(data_dir)
        self.documents = dict(documents or {})

    def __call__(self, page: PageRender) -> dict[str, str]:
        layer = load_text_layer(str(self.data_dir / page.text_path))
        title, author = self.documents.get(page.document_sha256, ("", ""))
        return extract_fields(layer, title or "", author or "")

"""Axis values read off the page (text layer + PDF title/author), checked against the generator's plan."""

from __future__ import annotations

from collections import Counter

import pytest

from evalset_pipeline.core.metadata.extraction import (
    ORIGINAL,
    RESTATED,
    TextLayerExtractor,
    extract_fields,
)
from evalset_pipeline.core.metadata.page_metadata import build_page_metadata
from evalset_pipeline.core.metadata.sidecar import Sidecar
from evalset_pipeline.samplekit.sample_corpus import PERIOD_SPELLINGS, corpus_periods
from evalset_pipeline_tests.core.index.rendered_corpus import rendered

FIELDS = ("period", "metric", "entity", "revision", "language")


@pytest.fixture(scope="module")
def pages(small_corpus, tmp_path_factory):
    return rendered(small_corpus, tmp_path_factory.mktemp("rendered"))


def _extractor(pages) -> TextLayerExtractor:
    return TextLayerExtractor(
        pages.data_dir, {d.document_sha256: (d.title, d.author) for d in pages.documents}
    )


def test_every_field_of_every_sample_page_matches_the_generator(pages):
    extract = _extractor(pages)
    wrong = Counter()
    for page in pages.pages:
        got, truth = extract(page), pages.truth(page)
        for f in FIELDS:
            if got.get(f, "") != getattr(truth, f):
                wrong[f] += 1
    assert not wrong, wrong
    assert {pages.truth(p).revision for p in pages.pages} == {ORIGINAL, RESTATED}


def test_without_pdf_metadata_the_page_header_still_names_the_entity(pages):
    extract = TextLayerExtractor(pages.data_dir)  # no title/author known
    for page in pages.pages:
        assert extract(page)["entity"] == pages.truth(page).entity


def _layer(header_left: str, header_right: str, title: str, body: str = "") -> dict:
    """A text layer the way text_layer_of writes it: words with boxes, a running header and a title."""
    words = []

    def line(text: str, x: float, y: float, size: float, block: int) -> None:
        cx = x
        for i, w in enumerate(text.split()):
            width = size * 0.55 * len(w)
            words.append([cx, y - size, cx + width, y, w, block, 0, i])
            cx += width + size * 0.3

    line(header_left, 40, 28, 10, 0)
    line(header_right, 800, 28, 10, 1)
    line(title, 40, 78, 22, 2)
    if body:
        line(body, 80, 300, 14, 3)
    text = "\n".join(t for t in (header_left, header_right, title, body) if t)
    return {"text": text, "words": words, "width": 960.0, "height": 540.0}


@pytest.mark.parametrize("style", sorted(PERIOD_SPELLINGS))
def test_every_period_spelling_of_the_generator_round_trips_to_its_canonical_form(style):
    for period in corpus_periods(6):
        spelled = PERIOD_SPELLINGS[style](period)
        got = extract_fields(_layer("Acme Group", spelled, "Revenue by segment"))
        assert got["period"] == period, (style, spelled, got)


def test_period_comes_from_the_header_not_from_a_prior_year_column_in_the_body():
    layer = _layer(
        "Acme Group",
        "Q3 2024",
        "Revenue by segment: current vs prior year",
        "Cloud Q3 2023 412.0 398.1",
    )
    assert extract_fields(layer)["period"] == "2024-Q3"


def test_period_falls_back_to_the_pdf_title():
    layer = _layer("Acme Group", "", "Revenue by segment")
    assert extract_fields(layer)["period"] == ""
    assert extract_fields(layer, title="Acme Group Q3 2024 results")["period"] == "2024-Q3"


def test_entity_prefers_a_pdf_author_the_page_prints_and_ignores_one_it_does_not():
    layer = _layer("Acme Group", "FY24 Q3", "Revenue by segment")
    assert extract_fields(layer, author="Acme Group")["entity"] == "Acme Group"
    assert extract_fields(layer, author="Jane Doe (IR team)")["entity"] == "Acme Group"
    bare = {"text": "Revenue 2024", "words": [], "width": 960.0, "height": 540.0}
    assert extract_fields(bare, author="Acme Group")["entity"] == "Acme Group"


def test_metric_comes_from_the_title_and_revision_from_restated_wording():
    layer = _layer("Acme Group", "FY24 Q3", "Operating income by segment (restated)")
    got = extract_fields(layer)
    assert (got["metric"], got["revision"]) == ("operating income", RESTATED)
    assert (
        extract_fields(_layer("Acme Group", "FY24 Q3", "Headcount by segment"))["revision"]
        == ORIGINAL
    )
    assert (
        extract_fields(
            _layer("Acme Group", "FY24 Q3", "Headcount by segment"), title="Acme Q3 (restated)"
        )["revision"]
        == RESTATED
    )
    assert (
        extract_fields(_layer("한빛전자", "2024년 3분기", "부문별 영업이익"))["metric"]
        == "operating income"
    )


def test_a_page_without_text_yields_nothing():
    assert extract_fields({"text": "  ", "words": []}) == {}


def test_sidecar_values_always_win_and_every_field_records_its_source(pages):
    page = pages.pages[1]
    sidecar = Sidecar(
        rows={
            (page.document_path, page.page_number): {
                "entity": "ACME (sidecar)",
                "template_id": "bar",
            }
        }
    )
    meta = {m.unit_id: m for m in build_page_metadata(pages.pages[:3], sidecar, _extractor(pages))}
    m = meta[page.unit_id]
    assert (m.get("entity"), m.sources["entity"]) == ("ACME (sidecar)", "sidecar")
    assert (m.get("template_id"), m.sources["template_id"]) == ("bar", "sidecar")
    assert m.sources["period"] == m.sources["metric"] == m.sources["revision"] == "extracted"
    other = meta[pages.pages[2].unit_id]
    assert other.sources["entity"] == "extracted" and "template_id" not in other.sources

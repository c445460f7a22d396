"""page_reader reads every generated page back to the generator's own figures (the oracle)."""

from __future__ import annotations

import json

import pymupdf
import pytest

from evalset_pipeline.core.pagetext.layer import text_layer_of
from evalset_pipeline.core.pagetext.page_reader import (
    language_of,
    metric_of,
    parse_number,
    read_page,
)
from evalset_pipeline.samplekit.sample_corpus import (
    PageRecord,
    plan_sample_corpus,
    render_document,
)

KIND = {"cover": "cover", "segment_bar": "chart", "kpi_table": "table", "commentary": "prose"}


@pytest.fixture(scope="module")
def pages() -> list[tuple[PageRecord, dict]]:
    """(ground truth, text layer) for every page of a 5-entity, 2-period corpus, drawn in memory."""
    plan = plan_sample_corpus(entities=5, periods=2)
    out: list[tuple[PageRecord, dict]] = []
    for doc_plan in plan.documents:
        with pymupdf.open(stream=render_document(doc_plan), filetype="pdf") as pdf:
            for rec, page in zip(doc_plan.pages, pdf, strict=False):
                out.append((rec, text_layer_of(page)))
    return out


def test_text_layer_shape(pages: list[tuple[PageRecord, dict]]) -> None:
    _, layer = pages[1]
    assert set(layer) == {"text", "words", "width", "height"}
    assert json.loads(json.dumps(layer, ensure_ascii=False)) == layer
    assert all(len(w) == 8 and isinstance(w[4], str) for w in layer["words"])


def test_every_page_reads_back_to_ground_truth(pages: list[tuple[PageRecord, dict]]) -> None:
    for rec, layer in pages:
        facts = read_page(layer)
        where = (rec.document, rec.page)
        assert facts.kind == KIND[rec.template_id], where
        assert facts.language == rec.language, where
        assert facts.entity == rec.entity, where
        assert facts.metric == (rec.metric or None), where
        assert facts.reporting_periods == (rec.period,), where
        assert facts.restated == (rec.revision == "restated"), where
        if rec.template_id == "cover":
            assert facts.series == {}
            continue
        assert list(facts.series) == [f.segment for f in rec.figures], where
        assert [v.value for v in facts.series.values()] == [f.current for f in rec.figures], where
        assert all(
            v.display.replace(",", "").startswith(str(v.value).rstrip("0").rstrip(".")[:3])
            for v in facts.series.values()
        )
        if rec.template_id == "kpi_table":
            assert [v.value for v in facts.prior.values()] == [f.prior for f in rec.figures], where
            assert [v.value for v in facts.yoy.values()] == [f.yoy for f in rec.figures], where
            assert facts.total is None  # the table prints no total row
        if rec.template_id == "commentary":
            assert facts.total is not None and facts.total.value == rec.total, where
            assert facts.total_yoy is not None and facts.total_yoy.value == rec.total_yoy, where
            assert [v.value for v in facts.yoy.values()] == [f.yoy for f in rec.figures], where
        if rec.template_id == "segment_bar":
            assert facts.total is None and facts.yoy == {}


def test_units_and_display(pages: list[tuple[PageRecord, dict]]) -> None:
    by_key = {
        (r.entity, r.template_id, r.metric, r.period, r.revision): read_page(layer)
        for r, layer in pages
    }
    acme = by_key[("Acme Group", "segment_bar", "revenue", "2024-Q3", "original")]
    assert acme.unit == "USD m" and all(v.display.endswith(" USD m") for v in acme.series.values())
    heads = by_key[("Acme Group", "kpi_table", "headcount", "2024-Q3", "original")]
    assert all(v.display.endswith(" employees") for v in heads.series.values())
    ko = by_key[("한빛전자", "segment_bar", "revenue", "2024-Q3", "original")]
    assert ko.unit == "억원" and all(v.display.endswith("억원") for v in ko.series.values())
    assert list(ko.series) == ["반도체", "가전", "모바일", "디스플레이"]
    assert ko.title == "부문별 매출"


def test_table_reports_the_prior_year_column_but_is_about_the_current_quarter(pages) -> None:
    rec, layer = next(
        (r, lay) for r, lay in pages if r.template_id == "kpi_table" and r.period == "2024-Q3"
    )
    facts = read_page(layer)
    assert set(facts.periods) == {"2024-Q3", "2023-Q3"}
    assert facts.reporting_periods == ("2024-Q3",)


@pytest.mark.parametrize(
    "layer",
    [
        {},
        {"text": "", "words": [], "width": 0, "height": 0},
        {"text": "x", "words": [[1, 2, 3]], "width": 100, "height": 100},
        {"text": "x", "words": [["a", "b", "c", "d", "w", 0, 0, 0]], "width": 100, "height": 100},
        {"words": None},
        "not a dict",
    ],
)
def test_never_crashes_on_malformed_layers(layer) -> None:
    facts = read_page(layer)  # type: ignore[arg-type]
    assert facts.kind == "other" and facts.series == {}


def test_real_world_like_pages_do_not_crash() -> None:
    doc = pymupdf.open()
    page = doc.new_page()
    page.insert_text((72, 72), "NOTES TO THE CONSOLIDATED FINANCIAL STATEMENTS", fontsize=14)
    body = (
        "The Company is subject to legal proceedings arising in the ordinary course of business. "
        "Management does not expect the outcome of these matters to have a material adverse effect. "
    ) * 6
    page.insert_textbox(pymupdf.Rect(72, 100, 520, 700), body, fontsize=10)
    layers = [text_layer_of(page)]
    page = doc.new_page()
    page.insert_text((72, 72), "Signature page", fontsize=12)
    page.insert_text((72, 400), "12   34   56", fontsize=8)
    layers.append(text_layer_of(page))
    for layer in layers:
        facts = read_page(layer)
        assert facts.kind in {"prose", "other", "cover"}
        assert facts.series == {}
        assert facts.metric is None


def test_helpers() -> None:
    assert metric_of("Operating profit by division") == "operating income"
    assert metric_of("Net sales grew") == "revenue"
    assert metric_of("부문별 임직원 수") == "headcount"
    assert metric_of("Signature page") is None
    assert parse_number("1,234.5") == 1234.5
    assert parse_number("+8.3%") == 8.3
    assert parse_number("(12.0)") == -12.0
    assert parse_number("Cloud") is None
    assert language_of("한빛전자 2024년 3분기 매출 3Q") == "ko"
    assert language_of("Acme Group Q3 2024") == "en"


def test_a_horizontal_bar_chart_reads_as_a_chart_with_its_title_naming_who_and_when(
    tmp_path,
) -> None:
    """Values printed beside the bars' ends share no column; the title's fragments are the
    measure, the company and the quarter, and the measure is no entity."""
    import pymupdf

    from evalset_pipeline.core.metadata.page_subject import page_lines, read_subjects
    from evalset_pipeline.core.pagetext.layer import text_layer_of
    from evalset_pipeline_tests.support.chart_reviews import REVIEWERS, write_chart_reviews

    [path, *_] = write_chart_reviews(tmp_path, ((2024, 3),))
    with pymupdf.open(path) as doc:
        layer = text_layer_of(doc[0])
    facts = read_page(layer)
    reviewer = REVIEWERS[0]
    assert facts.kind == "chart" and facts.metric == "revenue"
    assert facts.series["Cloud"].value == reviewer.value("Net revenue", "Cloud", 2024, 3)
    assert len(facts.series) == 5
    assert facts.entity == reviewer.name and facts.periods == ("2024-Q3",)
    # fewer than 25 words, but it states figures: not "sparse" (too little to ask about)
    assert len(layer["text"].split()) < 25
    [subject] = read_subjects([layer])
    assert subject.layout == "tabular" and subject.subject == "revenue"
    blank = {"words": [[50, 60, 120, 70, "Appendix", 0, 0, 0]], "height": 792, "width": 612}
    assert read_subjects([blank])[0].layout == "sparse" and page_lines(blank)

"""End to end on chart-heavy quarterly reviews in a style this project never drew (horizontal bars,
the value beside each bar, a title "Net revenue by segment | Contoso Ltd. | Q3 2024", fewer than
25 words a page, no cover): charts are asked again. A page is too little to ask about only when
it states no figure, never for being short; the title names the chart's measure, company and
quarter, its labels the series; every kept answer is the drawn figure or segment."""

from __future__ import annotations

import re

import pytest

from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.tables import read_rows
from evalset_pipeline_tests.support.chart_reviews import (
    MEASURES,
    REVIEWERS,
    SEGMENTS,
    write_chart_reviews,
)

QUARTERS = ((2024, 1), (2024, 2), (2024, 3))


@pytest.fixture(scope="module")
def built(tmp_path_factory, golden_build):
    corpus = tmp_path_factory.mktemp("chart_reviews")
    write_chart_reviews(corpus, QUARTERS)
    data_dir = tmp_path_factory.mktemp("data")
    golden_build.materialize(corpus, data_dir, sample_size=40)
    return data_dir, load_golden_set("latest", data_dir=data_dir)


def _drawn(document_path: str, page: int) -> tuple[object, str, int, int]:
    slug, year, q = re.search(r"([a-z]+)_(\d{4})_q(\d)_review\.pdf$", document_path).groups()
    reviewer = next(r for r in REVIEWERS if r.slug == slug)
    return reviewer, MEASURES[page - 1], int(year), int(q)


def test_short_chart_pages_are_sampled_and_asked(built):
    data_dir, golden = built
    profiles = read_rows(data_dir / "artifacts" / "tables" / "page_profiles.parquet")
    # no chart page is "too little to ask about", not even a document's first page
    assert {p["layout"] for p in profiles} <= {"tabular", "mixed"}
    assert not [p for p in profiles if p["skip_reason"]]
    written = read_rows(data_dir / "artifacts" / "tables" / "candidate_questions.parquet")
    assert "too little text to ask about" not in {r["skip_reason"] for r in written}
    main = [i for i in golden.items.to_pylist() if i["slice"] == "main"]
    assert len(main) >= 8, [r["question"] or r["skip_reason"] for r in written]


def test_each_kept_question_names_the_company_and_quarter_and_its_answer_is_drawn(built):
    _, golden = built
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    main = [i for i in golden.items.to_pylist() if i["slice"] == "main"]
    for item in main:
        unit = units[item["gold_unit_id"]]
        reviewer, measure, year, q = _drawn(unit["document_path"], unit["page_number"])
        # the page's facts come from its title: the company, the quarter, the measure
        assert (unit["entity"], unit["period"]) == (reviewer.name, f"{year}-Q{q}")
        assert unit["metric"] in measure.lower()
        figures = {reviewer.value(measure, s, year, q) for s in SEGMENTS}
        answer = item["answer"]
        if answer in SEGMENTS:
            assert answer in item["question"] or "segment had the" in item["question"]
        elif "total" not in item["question"]:
            assert int(answer.replace(",", "")) in figures, item
        # another company's or quarter's chart looks the same: the question must say whose and when
        assert reviewer.name in item["question"] and f"Q{q} {year}" in item["question"], item

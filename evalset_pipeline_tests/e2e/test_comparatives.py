"""End to end: a later filing's comparative column is another sufficient page, not a distractor.

Five consecutive quarters (2023-Q3 .. 2024-Q3): the 2024-Q3 tables print 2023-Q3 in their
prior-year column with the same figures as the 2023-Q3 pages. For a 2023-Q3 gold, the 2024-Q3
page of the same entity and measure is a period candidate that prints the gold's period, so it
must leave the negatives and be judged as evidence: sufficient (role `pooled`) when it states the
gold's answer, and never a period distractor.
"""

from __future__ import annotations

import pytest

from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.tables import read_rows
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus, plan_sample_corpus
from evalset_pipeline_tests.e2e.oracle import truth_by_unit

ENTITIES, PERIODS = 3, 5


@pytest.fixture(scope="module")
def built(tmp_path_factory, golden_build):
    corpus = tmp_path_factory.mktemp("comparative_corpus")
    generate_sample_corpus(corpus, entities=ENTITIES, periods=PERIODS)
    data_dir = tmp_path_factory.mktemp("data")
    golden_build.materialize(corpus, data_dir, sample_size=1000)
    paths = DataPaths.at(data_dir)
    truth = truth_by_unit(
        plan_sample_corpus(entities=ENTITIES, periods=PERIODS),
        read_rows(paths.table("page_renders")),
    )
    return paths, truth, data_dir


def test_pages_printing_the_gold_period_are_comparatives_not_negatives(built):
    paths, truth, _ = built
    comparatives = read_rows(paths.table("comparative_pages"))
    assert comparatives, "no comparative found although 2024-Q3 tables print 2023-Q3"
    for c in comparatives:
        gold, page = truth[c["unit_id"]], truth[c["comparative_unit_id"]]
        assert gold.period == "2023-Q3" and page.period == "2024-Q3", (gold, page)
        assert (gold.entity, gold.metric, gold.template_id) == (
            page.entity,
            page.metric,
            page.template_id,
        )
    pairs = {(c["unit_id"], c["comparative_unit_id"]) for c in comparatives}
    negatives = read_rows(paths.table("hard_negatives"))
    assert not pairs & {(n["unit_id"], n["negative_unit_id"]) for n in negatives}
    # Every 2023-Q3 table that has a 2024-Q3 sibling found it (none slipped through as a period negative).
    for n in negatives:
        if n["axis"] == "period":
            gold, neg = truth[n["unit_id"]], truth[n["negative_unit_id"]]
            assert not (
                gold.template_id == "kpi_table"
                and gold.period == "2023-Q3"
                and neg.period == "2024-Q3"
            )


def test_a_comparative_that_states_the_answer_is_a_sufficient_pooled_page(built):
    paths, truth, data_dir = built
    # The comparative is found by the evidence index too (it prints the gold's figure for the
    # gold's row and quarter), so its axis lists every source that found it.
    labels = [
        lab
        for lab in read_rows(paths.table("candidate_labels"))
        if {"comparative", "revision"} & set(lab["axis"].split(","))
    ]
    items = {v["item_id"]: v for v in read_rows(paths.table("validated_questions"))}
    sufficient = [lab for lab in labels if lab["label"] == "sufficient"]
    assert sufficient, labels
    for lab in sufficient:
        assert lab["role"] == "pooled" and "comparative" in lab["axis"].split(",")
        item, page = items[lab["item_id"]], truth[lab["unit_id"]]
        # The answer is the gold's figure, and the comparative page prints it as its prior-year value.
        priors = {f.segment: f.prior for f in page.figures}
        assert any(
            f"{v:,.1f}" in item["answer"] or f"{v:,.0f}" in item["answer"] for v in priors.values()
        ), item
    # Nothing of the kind is ever a distractor of the main slice with a sufficient label.
    golden = load_golden_set("latest", data_dir=data_dir)
    judged = golden.judgments.to_pylist()
    assert not [
        j
        for j in judged
        if j["role"] == "distractor"
        and j["label"] == "sufficient"
        and j["item_id"] in {i["item_id"] for i in golden.items.to_pylist() if i["slice"] == "main"}
    ]
    assert {
        (j["item_id"], j["unit_id"])
        for j in judged
        if j["role"] == "pooled" and j["label"] == "sufficient"
    } >= {(lab["item_id"], lab["unit_id"]) for lab in sufficient}


def test_documents_facts_view_lists_every_document_with_its_sources(built, capsys):
    import json

    from evalset_pipeline.cli.main import main

    _, _, data_dir = built
    assert main(["documents", "--facts", "--json", "--data-dir", str(data_dir)]) == 0
    rows = json.loads(capsys.readouterr().out)
    assert len(rows) == ENTITIES * PERIODS + (
        1 if ENTITIES >= 1 else 0
    )  # + Acme's restated Q2 document
    assert all(
        r["entity"] and r["entity_source"] == "pdf-author" and r["period"] and r["period_source"]
        for r in rows
    )
    assert main(["documents", "--facts", "--rejected", "--data-dir", str(data_dir)]) == 2

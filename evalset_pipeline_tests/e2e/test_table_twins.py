"""End to end up to `hard_negatives` on two filers' 10-Qs over four quarters
(support/quarterly_filings.py): a table page's distractors are the same table one axis away.

- period: the same table of the same filer in another quarter that does not print the gold's
  quarter (the next year's report prints it as a comparative: evidence, never a negative)
- entity: the other filer's same table for the same quarter
- no boilerplate page (contents, certification) is anyone's distractor, although they look
  alike across every report
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import dagster as dg
import pytest

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.tables import read_rows
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline_tests.support.quarterly_filings import (
    BOILERPLATE_PAGES,
    FILERS,
    QUARTERS,
    TABLE_PAGES,
    DrawnPageTruth,
    page_truth,
    write_quarterly_filings,
)


@pytest.fixture(scope="module")
def mined(tmp_path_factory):
    corpus = tmp_path_factory.mktemp("quarterly_filings")
    write_quarterly_filings(corpus)
    data_dir = tmp_path_factory.mktemp("data")
    result = dg.materialize(
        all_assets,
        resources={
            "settings": PipelineSettings(data_dir=str(data_dir), corpus_dir=str(corpus)),
            "vlm": VLMResource(),
            "embedder": EmbedderResource(),
        },
        selection=dg.AssetSelection.assets("hard_negatives").upstream(),
    )
    assert result.success
    paths = DataPaths.at(data_dir)
    truth = {
        r["unit_id"]: page_truth(Path(r["document_path"]).name, r["page_number"])
        for r in read_rows(paths.table("page_renders"))
    }
    negatives: dict[str, list[dict]] = defaultdict(list)
    for n in read_rows(paths.table("hard_negatives")):
        negatives[n["unit_id"]].append(n)
    comparatives = read_rows(paths.table("comparative_pages"))
    return truth, negatives, comparatives


def _tables(truth: dict[str, DrawnPageTruth]) -> list[str]:
    units = [u for u, t in truth.items() if t.page in TABLE_PAGES]
    assert len(units) == len(FILERS) * len(QUARTERS) * len(TABLE_PAGES)
    return units


def test_a_table_pages_period_distractor_is_its_table_in_a_quarter_it_does_not_print(mined):
    truth, negatives, _ = mined
    for unit in _tables(truth):
        gold = truth[unit]
        period = [truth[n["negative_unit_id"]] for n in negatives[unit] if n["axis"] == "period"]
        assert period, (gold, negatives[unit])
        for page in period:
            assert (page.filer, page.page) == (gold.filer, gold.page), (gold, page)
            assert (page.year, page.quarter) != (gold.year, gold.quarter)
            assert (gold.year, gold.quarter) not in page.printed_quarters, (gold, page)


def test_the_next_years_report_is_evidence_not_a_period_distractor(mined):
    truth, _, comparatives = mined
    found = {(truth[c["unit_id"]], truth[c["comparative_unit_id"]]) for c in comparatives}
    for gold, page in found:
        assert (page.filer, page.page) == (gold.filer, gold.page)
        assert (gold.year, gold.quarter) in page.printed_quarters
    # the MD&A table whose row was renamed is still found as the same table a year later
    assert {g.page for g, _ in found} == set(TABLE_PAGES), found


def test_a_table_pages_entity_distractor_is_the_other_filers_same_table(mined):
    truth, negatives, _ = mined
    for unit in _tables(truth):
        gold = truth[unit]
        entity = [truth[n["negative_unit_id"]] for n in negatives[unit] if n["axis"] == "entity"]
        assert entity, (gold, negatives[unit])
        for page in entity:
            assert page.filer != gold.filer
            assert (page.year, page.quarter, page.page) == (gold.year, gold.quarter, gold.page)


def test_no_boilerplate_page_is_a_distractor(mined):
    truth, negatives, _ = mined
    for unit, found in negatives.items():
        for n in found:
            assert truth[n["negative_unit_id"]].page not in BOILERPLATE_PAGES, (truth[unit], n)

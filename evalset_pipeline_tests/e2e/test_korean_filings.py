"""End to end on Korean annual reports drawn as DART files them (not the sample generator's
format): every kept question is asked in Korean about one printed figure (a table cell, or a
sentence of the prose page), its answer is the filer's figure for that row and period, the next
year's filing that prints the asked year in its comparative column is pooled evidence and never
a distractor, and another filer's statement is ruled out by naming the gold's filer."""

from __future__ import annotations

import re
from datetime import date

import pytest

from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.reader.table_questions import parse_table_question
from evalset_pipeline_tests.support.korean_filings import FILERS, Filer, write_korean_filings

YEARS = (2022, 2023, 2024)


@pytest.fixture(scope="module")
def golden(tmp_path_factory, golden_build):
    corpus = tmp_path_factory.mktemp("korean_filings")
    write_korean_filings(corpus, YEARS)
    data_dir = tmp_path_factory.mktemp("data")
    golden_build.materialize(corpus, data_dir, sample_size=40)
    return load_golden_set("latest", data_dir=data_dir)


def _filer_and_year(document_path: str) -> tuple[Filer, int]:
    slug, year = re.search(r"([a-z]+)_(\d{4})_annual_report\.pdf$", document_path).groups()
    return next(f for f in FILERS if f.slug == slug), int(year)


def _truth(filer: Filer, label: str, asked: date) -> str:
    """The filer's figure for a row at the asked year, from the generator, as answered."""
    if label == "임직원 수":  # the prose page's sentence: people, counted in 명 as it says
        return f"{filer.employees(asked.year):,} 명"
    for figures in (filer.income, filer.balance, filer.inventory):
        row = figures(asked.year)
        if label in row:
            return f"{row[label]:,} 백만원"  # the unit as the statements print it
    raise AssertionError(f"no row {label!r} in the generated statements")


def test_every_kept_question_is_korean_and_its_answer_is_the_filers_figure(golden):
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    main = [i for i in golden.items.to_pylist() if i["slice"] == "main"]
    assert len(main) >= 12, [i["question"] for i in golden.items.to_pylist()]
    for item in main:
        assert item["language"] == "ko"
        asked = parse_table_question(item["question"])
        assert asked is not None and asked.language == "ko", item["question"]
        assert asked.end is not None
        filer, year = _filer_and_year(units[item["gold_unit_id"]]["document_path"])
        assert asked.end.year == year  # the gold filing's own period
        assert item["answer"] == _truth(filer, asked.label, asked.end), item
    # The prose page's headcount is asked too: prose is read, not only tables.
    assert any(parse_table_question(i["question"]).label == "임직원 수" for i in main)


def test_comparatives_are_pooled_evidence_and_other_filers_are_ruled_out_by_name(golden):
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    items = {i["item_id"]: i for i in golden.items.to_pylist() if i["slice"] == "main"}
    judged = [j for j in golden.judgments.to_pylist() if j["item_id"] in items]
    assert not [j for j in judged if j["role"] == "distractor" and j["label"] == "sufficient"]
    sufficient: dict[str, set[tuple[Filer, int]]] = {}
    for j in judged:
        if j["role"] == "pooled" and j["label"] == "sufficient":
            sufficient.setdefault(j["item_id"], set()).add(
                _filer_and_year(units[j["unit_id"]]["document_path"])
            )
    assert sufficient, "the next year's filing prints the asked year: it should be pooled evidence"
    for item_id, item in items.items():
        gold_filer, gold_year = _filer_and_year(units[item["gold_unit_id"]]["document_path"])
        # only the next year's filing prints the asked year again, and it always answers
        assert sufficient.get(item_id, set()) <= {(gold_filer, gold_year + 1)}, item["question"]
        label = parse_table_question(item["question"]).label
        if gold_year + 1 in YEARS and label != "임직원 수":
            assert (gold_filer, gold_year + 1) in sufficient.get(item_id, set()), item["question"]
    for j in judged:
        if j["role"] == "distractor" and j["axis"] == "entity":
            item = items[j["item_id"]]
            gold_filer, _ = _filer_and_year(units[item["gold_unit_id"]]["document_path"])
            assert item["question"].startswith(f"{gold_filer.name}의 "), item["question"]

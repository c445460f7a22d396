"""End to end on annual reports of two filers over three years (support/annual_reports.py), where
one figure is printed on many pages: next year's comparative columns, an MD&A table, a five-year
summary. Every page that answers is judged sufficient, the page that prints the same number for
an unrelated row is judged irrelevant as a coincidence, the exported qrels hold every sufficient
page, `report completeness` finds nothing unjudged, and every question names its company."""

from __future__ import annotations

import csv
import json
from collections import defaultdict
from pathlib import Path

import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.reader.table_questions import parse_table_question
from evalset_pipeline_tests.support.annual_reports import (
    FILERS,
    NOTE,
    Filer,
    answering_pages,
    figure_of,
    write_annual_reports,
)


@pytest.fixture(scope="module")
def built(tmp_path_factory, golden_build):
    corpus = tmp_path_factory.mktemp("annual_reports")
    write_annual_reports(corpus)
    data_dir = tmp_path_factory.mktemp("data")
    golden_build.materialize(corpus, data_dir, sample_size=40)
    return data_dir, load_golden_set("latest", data_dir=data_dir)


def _page(unit: dict) -> tuple[str, int]:
    return Path(unit["document_path"]).name, unit["page_number"]


def _filer(name: str) -> Filer:
    return next(f for f in FILERS if name.startswith(f.slug))


def _asked(item: dict) -> tuple[str, int]:
    q = parse_table_question(item["question"])
    assert q is not None, item["question"]
    return q.label, q.year or q.end.year


def _main(golden) -> list[dict]:
    main_items = [i for i in golden.items.to_pylist() if i["slice"] == "main"]
    assert len(main_items) >= 15, [i["question"] for i in golden.items.to_pylist()]
    return main_items


def test_every_page_that_prints_the_answer_is_sufficient_and_no_other(built):
    _, golden = built
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    sufficient = defaultdict(set)
    for j in golden.judgments.to_pylist():
        if j["label"] == "sufficient":
            sufficient[j["item_id"]].add(_page(units[j["unit_id"]]))
    repeated = 0
    for item in _main(golden):
        gold_file, _ = _page(units[item["gold_unit_id"]])
        filer = _filer(gold_file)
        label, year = _asked(item)
        assert item["answer"].startswith(f"{figure_of(filer, label, year):,}"), item
        truth = answering_pages(filer, label, year)
        assert sufficient[item["item_id"]] == truth, item["question"]
        repeated += len(truth) > 1
    assert repeated >= 10  # most answers are printed on several pages: the pool found them all


def test_the_same_number_for_an_unrelated_row_is_a_coincidence(built):
    _, golden = built
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    items = {i["item_id"]: i for i in _main(golden)}
    coincidences = [
        j
        for j in golden.judgments.to_pylist()
        if j["item_id"] in items
        and _asked(items[j["item_id"]])[0] == "Operating income"
        and _page(units[j["unit_id"]])[1] == NOTE
        and _filer(_page(units[j["unit_id"]])[0])
        == _filer(_page(units[items[j["item_id"]]["gold_unit_id"]])[0])
        and "figure" in j["axis"]
    ]
    assert coincidences, "the note's land row prints the year's operating income: it must be judged"
    for j in coincidences:
        assert j["role"] == "pooled" and j["label"] == "irrelevant", j
        assert j["rationale"].startswith("coincidence: prints it as Land and buildings"), j


def test_every_question_names_its_company_and_the_rival_filers_rows_only_support(built):
    _, golden = built
    units = {u["unit_id"]: u for u in golden.units.to_pylist()}
    items = {i["item_id"]: i for i in _main(golden)}
    for item in items.values():
        filer = _filer(_page(units[item["gold_unit_id"]])[0])
        assert parse_table_question(item["question"]).entity == filer.name, item["question"]
        assert "entity" in item["qualified_axes"]
    # the writer asked without the company; naming it was what told the filers apart
    assert any(i["original_question"] != i["question"] for i in items.values())
    for j in golden.judgments.to_pylist():
        if j["item_id"] not in items:
            continue
        gold = _filer(_page(units[items[j["item_id"]]["gold_unit_id"]])[0])
        if _filer(_page(units[j["unit_id"]])[0]) != gold:
            assert j["label"] != "sufficient", j  # another company's figure never answers


def test_exported_qrels_hold_every_sufficient_page(built, tmp_path):
    data_dir, golden = built
    out = tmp_path / "beir"
    assert (
        main(
            ["golden", "export", "--format", "beir", "--out", str(out), "--data-dir", str(data_dir)]
        )
        == 0
    )
    with (out / "qrels" / "test.tsv").open(encoding="utf-8") as fh:
        qrels = {(r["query-id"], r["corpus-id"]) for r in csv.DictReader(fh, delimiter="\t")}
    main_ids = {i["item_id"] for i in _main(golden)}
    sufficient = {
        (j["item_id"], j["unit_id"])
        for j in golden.judgments.to_pylist()
        if j["label"] == "sufficient" and j["item_id"] in main_ids
    }
    assert sufficient and qrels == sufficient


def test_report_completeness_finds_nothing_unjudged(built, capsys):
    data_dir, _ = built
    assert main(["report", "completeness", "--data-dir", str(data_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["unjudged_pages"] == 0
    assert report["checkable"] >= 15 and report["other_answering_pages"] >= 15


def test_the_answer_evidence_judge_finds_no_unjudged_page_either(built, capsys):
    data_dir, _ = built
    assert main(["report", "completeness", "--judge", "--data-dir", str(data_dir), "--json"]) == 0
    audit = json.loads(capsys.readouterr().out)["evidence_judge"]
    assert audit["items"] >= 15 and audit["items_answered_elsewhere"] >= 10
    assert audit["unjudged_pages"] == 0, audit["unjudged"][:3]

"""`evalset baseline` → `evalset score`, `evalset report headline`, `evalset pool add`, in process."""

from __future__ import annotations

import json

import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline_tests.support.builds import copy_built


@pytest.fixture(scope="module")
def built(small_corpus, golden_build):
    return golden_build.scored(small_corpus)


def test_baseline_then_score_works_out_of_the_box(built, tmp_path, capsys):
    run = tmp_path / "run.trec"
    assert (
        main(
            [
                "baseline",
                "--retriever",
                "text",
                "--out",
                str(run),
                "--data-dir",
                str(built.data_dir),
                "--depth",
                "50",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["score", str(run), "--data-dir", str(built.data_dir), "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["run"]["name"] == "baseline-text"
    assert report["run"]["corpus_fingerprint"] == report["golden"]["corpus_fingerprint"]
    assert not [w for w in report["warnings"] if "fingerprint" in w or "CORPUS" in w], report[
        "warnings"
    ]
    assert report["counts"]["main"]["n_scored_without_results"] == 0
    assert 0.0 < report["slices"]["main"]["sufficient@5"] <= 1.0


def test_appearance_baseline_is_refused_with_a_reason(built, tmp_path, capsys):
    code = main(
        [
            "baseline",
            "--retriever",
            "appearance",
            "--out",
            str(tmp_path / "a.trec"),
            "--data-dir",
            str(built.data_dir),
        ]
    )
    assert code == 2
    assert "REFUSED" in capsys.readouterr().err
    assert not (tmp_path / "a.trec").exists()


def test_report_headline_prints_both_columns_with_their_denominators(built, capsys):
    assert (
        main(
            [
                "report",
                "headline",
                "--retriever",
                "random",
                "--data-dir",
                str(built.data_dir),
                "--json",
            ]
        )
        == 0
    )
    report = json.loads(capsys.readouterr().out)
    cols = report["columns"]
    assert cols["random"]["n"] == report["funnel"]["written"]
    assert cols["hard"]["n_items"] == report["funnel"]["kept"]
    assert set(cols["random"]["metrics"]) == {"top@1", "top@5"}
    assert {"sufficient@1", "sufficient@5", "supporting_only@5"} <= set(cols["hard"]["metrics"])
    assert (
        main(["report", "headline", "--retriever", "random", "--data-dir", str(built.data_dir)])
        == 0
    )
    assert "random negatives" in capsys.readouterr().out


def test_pool_add_cli_publishes_once(built, tmp_path, capsys):
    data = copy_built(built, tmp_path)
    run = tmp_path / "r.jsonl"
    assert (
        main(
            [
                "baseline",
                "--retriever",
                "random",
                "--out",
                str(run),
                "--data-dir",
                str(data),
                "--depth",
                "5",
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert main(["pool", "add", str(run), "--depth", "3", "--data-dir", str(data), "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["created"] and first["added"] > 0
    assert main(["pool", "add", str(run), "--depth", "3", "--data-dir", str(data), "--json"]) == 0
    second = json.loads(capsys.readouterr().out)
    assert (
        second["version_id"] == first["version_id"]
        and not second["created"]
        and second["added"] == 0
    )
    assert main(["pool", "add", str(tmp_path / "missing.trec"), "--data-dir", str(data)]) == 1

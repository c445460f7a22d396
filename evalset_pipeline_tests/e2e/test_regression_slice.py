"""A production failure becomes a regression item, human labels beat model labels, both in the next version."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import dagster as dg
import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline.samplekit.sample_corpus import generate_sample_corpus


def _build(corpus: Path, data: Path) -> dg.ExecuteInProcessResult:
    resources = {
        "settings": PipelineSettings(
            data_dir=str(data), corpus_dir=str(corpus), workers=1, sample_size=12
        ),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    result = dg.materialize(all_assets, resources=resources, raise_on_error=False)
    assert result.success, [e.message for e in result.all_events if e.is_step_failure]
    return result


@pytest.fixture(scope="module")
def tiny(tmp_path_factory) -> tuple[Path, Path]:
    corpus = tmp_path_factory.mktemp("tiny_corpus")
    generate_sample_corpus(corpus, entities=2, periods=2)
    data = tmp_path_factory.mktemp("tiny_data")
    _build(corpus, data)
    return corpus, data


def test_regression_item_and_human_labels_reach_the_next_version_and_scoring(
    tiny, tmp_path, capsys
):
    corpus, data = tiny
    v1 = load_golden_set("latest", data)
    assert v1.info["n_regression"] == 0
    assert v1.info["provenance"]["labels_by_source"]["human"] == 0
    assert "not measured yet" in v1.info["provenance"]["model_human_agreement"]["statement"]
    units = {u["unit_id"]: u for u in v1.units.to_pylist()}
    item = next(
        i
        for i in v1.items.to_pylist()
        if i["slice"] == "main"
        and i["language"] == "en"
        and i["original_question"] != i["question"]
    )
    gold = units[item["gold_unit_id"]]

    # A user asked the unqualified question and got the wrong quarter; the ticket names the page.
    question = item["original_question"]
    assert (
        main(
            [
                "regression",
                "add",
                "--data-dir",
                str(data),
                "--question",
                question,
                "--document",
                Path(gold["document_path"]).name,
                "--page",
                str(gold["page_number"]),
                "--note",
                "ticket 7: got last quarter",
                "--json",
            ]
        )
        == 0
    )
    added = json.loads(capsys.readouterr().out)
    assert added["record"]["document"] == gold["document_path"]  # normalised to the corpus path

    # One annotator reviews one question; one label disagrees with the model.
    pk = tmp_path / "pk"
    assert (
        main(
            [
                "review",
                "export",
                "--data-dir",
                str(data),
                "--out",
                str(pk),
                "--sample",
                "1",
                "--slots",
                "A",
                "--overlap",
                "0",
            ]
        )
        == 0
    )
    with open(pk / "sheet_A.csv", encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    flip = {"sufficient": "supporting", "supporting": "irrelevant", "irrelevant": "supporting"}
    changed = next(r for r in rows if r["role"] != "gold")
    for r in rows:
        r["human_label"] = flip[r["model_label"]] if r is changed else r["model_label"]
    with open(tmp_path / "filled.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    assert (
        main(
            [
                "review",
                "import",
                str(tmp_path / "filled.csv"),
                "--annotator",
                "alice",
                "--data-dir",
                str(data),
            ]
        )
        == 0
    )
    capsys.readouterr()

    _build(corpus, data)
    v2 = load_golden_set("latest", data)
    assert v2.version_id != v1.version_id and v2.info["n_regression"] == 1
    assert v2.info["funnel"]["regression"] == {
        "records": 1,
        "added": 1,
        "unresolved": 0,
        "duplicates": 0,
        "invalid": 0,
    }
    reg = [i for i in v2.items.to_pylist() if i["slice"] == "regression"]
    assert len(reg) == 1 and reg[0]["item_id"] == added["item_id"]
    assert (
        reg[0]["question"] == question and reg[0]["original_question"] == question
    )  # never rewritten
    assert (
        reg[0]["gold_unit_id"] == gold["unit_id"] and reg[0]["answer"]
    )  # answer read off the gold page
    js = [j for j in v2.judgments.to_pylist() if j["item_id"] == reg[0]["item_id"]]
    g = next(j for j in js if j["role"] == "gold")
    assert (g["label"], g["label_source"]) == ("sufficient", "human") and "ticket 7" in g[
        "rationale"
    ]
    distractors = [j for j in js if j["role"] == "distractor"]
    assert distractors and all(j["label_source"] == "model" for j in distractors)
    negatives = {
        j["unit_id"]
        for j in v1.judgments.to_pylist()
        if j["item_id"] == item["item_id"] and j["role"] == "distractor"
    }
    assert {j["unit_id"] for j in distractors} == negatives  # the gold page's mined hard negatives

    by_key = {(j["item_id"], j["unit_id"]): j for j in v2.judgments.to_pylist()}
    mine = by_key[(changed["item_id"], changed["unit_id"])]
    assert (mine["label"], mine["label_source"]) == (flip[changed["model_label"]], "human")
    prov = v2.info["provenance"]
    assert prov["labels_by_source"] == {
        "model": v2.judgments.num_rows - len(rows) - 1,
        "human": len(rows) + 1,
        "adjudicated": 0,
    }
    mha = prov["model_human_agreement"]
    assert mha["pre_labelled_by_model"] and mha["human_labels"]["resolved"] == len(rows)
    assert (
        mha["judge"]["backend"] == "textlayer"
        and mha["judge"]["label_prompt"] == prov["prompts"]["label"]
    )
    assert mha["statement"].startswith("Candidate labels were pre-labelled by the model textlayer/")

    # Scored separately: the regression slice is its own summary.
    from evalset_pipeline.core.scoring.metrics import score_run
    from evalset_pipeline.core.scoring.qrels import qrels_from_golden
    from evalset_pipeline.core.scoring.report import summarize
    from evalset_pipeline.core.scoring.runs import run_from_columns

    golds = [(j["item_id"], j["unit_id"]) for j in v2.judgments.to_pylist() if j["role"] == "gold"]
    run = run_from_columns([q for q, _ in golds], [u for _, u in golds], [1.0] * len(golds))
    summary = summarize(score_run(qrels_from_golden(v2), run))
    assert summary["regression"].n_items == 1 and summary["regression"].n_scored == 1
    assert summary["main"].n_items == v2.info["n_main"]
    assert any(
        v == 1.0 for k, v in summary["regression"].metrics.items() if k.startswith("sufficient")
    )

    # Nothing changed: same version, no model call, no new row.
    again = _build(corpus, data)
    assert load_golden_set("latest", data).version_id == v2.version_id
    assert (
        again.asset_materializations_for_node("validated_questions")[-1]
        .metadata["model_calls"]
        .value
        == 0
    )

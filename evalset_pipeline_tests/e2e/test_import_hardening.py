"""An imported benchmark through the pipeline: a planted question that a one-axis sibling answers is found,
the report measures it, and a BEIR export of this project round-trips through `evalset import`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline.core.exports import export_golden_set
from evalset_pipeline.core.golden.reader import load_golden_set
from evalset_pipeline.core.imports.records import imported_item_id
from evalset_pipeline.samplekit.sample_corpus import format_value, plan_sample_corpus


@pytest.fixture(scope="module")
def built(golden_build) -> tuple[Path, Path]:
    return golden_build.small()


def _planted() -> list[dict]:
    """Three questions on the original revenue table of the restated quarter, in a benchmark's own words."""
    plan = plan_sample_corpus(entities=2, periods=2)
    restated = next(d for d in plan.documents if d.revision == "restated")
    period = restated.pages[0].period
    original = next(
        d
        for d in plan.documents
        if d.revision == "original"
        and d.entity.name == restated.entity.name
        and d.pages[0].period == period
    )
    table = next(
        r for r in original.pages if r.template_id == "kpi_table" and r.metric == "revenue"
    )
    after = {
        f.segment: f.current
        for f in next(r for r in restated.pages if r.template_id == "kpi_table").figures
    }
    same = next(
        f for f in table.figures if after[f.segment] == f.current
    )  # the restatement left it alone
    moved = next(f for f in table.figures if after[f.segment] != f.current)
    year, q = period.split("-")
    when = f"{q} {year}"
    value = lambda v: format_value(v, "revenue", "en")  # noqa: E731
    doc = Path(original.path).name
    return [
        {
            "id": "same",
            "question": f"What was {same.segment} revenue in {when} for {table.entity}?",
            "answer": value(same.current),
            "document": doc,
            "evidence_pages": [table.page],
        },
        {
            "id": "moved",
            "question": f"What was {moved.segment} revenue in {when} for {table.entity}?",
            "answer": value(moved.current),
            "document": doc,
            "evidence_pages": [table.page],
        },
        {
            "id": "sum",
            "question": f"What was the combined revenue of {same.segment} and {moved.segment} in {when}?",
            "answer": value(same.current + moved.current),
            "document": doc,
            "evidence_pages": [table.page],
        },
        {
            "id": "bad",
            "question": "Which page?",
            "answer": "1",
            "document": doc,
            "evidence_pages": [99],
        },
    ]


def test_a_question_a_sibling_answers_is_found_and_reported(built, tmp_path, capsys):
    _, data = built
    path = tmp_path / "bench" / "questions.jsonl"
    path.parent.mkdir()
    path.write_text("\n".join(json.dumps(r) for r in _planted()) + "\n", encoding="utf-8")
    assert main(["import", "jsonl", str(path), "--data-dir", str(data), "--json"]) == 0
    out, err = capsys.readouterr()
    summary = json.loads(out)
    assert summary["imported"] == 3 and summary["source"] == "bench"
    assert (
        "questions.jsonl:4:" in err and "not 99" in err
    )  # the bad row, named, and the others imported

    gs = load_golden_set(summary["version_id"], data)
    prov = gs.info["provenance"]["items"]
    same, moved, total = (prov[imported_item_id(i)] for i in ("same", "moved", "sum"))
    assert same["status"] == "sibling_answers" and set(same["answering"].values()) == {"revision"}
    assert moved["status"] == "kept" and moved["gold"] == {next(iter(moved["gold"])): "sufficient"}
    assert total["status"] == "gold_not_sufficient" and total["printed"] is False
    items = {i["item_id"]: i for i in gs.items.to_pylist()}
    assert items[imported_item_id("same")]["slice"] == "underspecified"
    assert (
        items[imported_item_id("moved")]["question"] == _planted()[1]["question"]
    )  # never rewritten
    golds = [j for j in gs.judgments.to_pylist() if j["role"] == "gold"]
    assert {(j["label"], j["label_source"]) for j in golds} == {("sufficient", "human")}
    answering = [
        j
        for j in gs.judgments.to_pylist()
        if j["item_id"] == imported_item_id("same")
        and j["role"] == "distractor"
        and j["label"] == "sufficient"
    ]
    assert [j["axis"] for j in answering] == ["revision"]  # so the underspecified item accepts it

    html = tmp_path / "report.html"
    assert (
        main(
            [
                "report",
                "hardening",
                "--data-dir",
                str(data),
                "--golden",
                summary["version_id"],
                "--json",
                "--html",
                str(html),
                "--retriever",
                "random",
            ]
        )
        == 0
    )  # seeded, no model to load
    report = json.loads(capsys.readouterr().out)
    revision = report["siblings"]["all"]["per_axis"]["revision"]
    assert (
        revision["k"] == 1
        and revision["n"] == 3
        and 0 < revision["ci95"][0] < 1 / 3 < revision["ci95"][1]
    )
    assert report["siblings"]["all"]["per_axis"]["any"]["k"] == 1
    jv = report["judge_validation"]
    assert (
        jv["printed"]["k"] == 2 and jv["printed"]["n"] == 2
    )  # both printed answers: gold found sufficient
    assert jv["computed"]["n"] == 1 and jv["gold_not_sufficient"]["k"] == 1
    assert jv["confusion"]["matrix"][0][0] == 2 and jv["confusion"]["classes"] == [
        "sufficient",
        "supporting",
        "irrelevant",
    ]
    rows = {(r["qrels"], r["slice"]): r for r in report["before_after"]["rows"]}
    assert (
        rows[("original qrels", "all")]["n"] == 3 and rows[("hardened", "underspecified")]["n"] == 1
    )
    # the hardened underspecified item accepts the restated page too: never scores below the original qrels
    assert 0.0 <= rows[("original qrels", "all")]["sufficient@10"] <= 1.0
    page = html.read_text(encoding="utf-8")
    assert "<table>" in page and "revision" in page and summary["version_id"] in page

    # the same import again: the same version, nothing new
    assert main(["import", "jsonl", str(path), "--data-dir", str(data), "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["version_id"] == summary["version_id"]


def test_a_beir_export_of_this_project_round_trips(built, tmp_path, capsys):
    _, data = built
    gs = next(load_golden_set(v, data) for v in _build_versions(data))
    out = tmp_path / "beir"
    export_golden_set(gs, "beir", out)
    assert main(["import", "beir", str(out), "--data-dir", str(data), "--json"]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["issues"] == []
    imported = load_golden_set(summary["version_id"], data)
    prov = imported.info["provenance"]["items"]
    exported_qrels: dict[str, set[str]] = {}
    for split in (out / "qrels").glob("*.tsv"):
        for line in split.read_text().splitlines()[1:]:
            q, u, _ = line.split("\t")
            exported_qrels.setdefault(q, set()).add(u)
    by_original = {prov[i["item_id"]]["original_id"]: i for i in imported.items.to_pylist()}
    original = {i["item_id"]: i for i in gs.items.to_pylist()}
    assert set(by_original) == set(exported_qrels)  # same items ...
    for qid, item in by_original.items():
        assert (item["question"], item["answer"]) == (
            original[qid]["question"],
            original[qid]["answer"],
        )
    golds: dict[str, set[str]] = {}
    for j in imported.judgments.to_pylist():
        if j["role"] == "gold":
            golds.setdefault(prov[j["item_id"]]["original_id"], set()).add(j["unit_id"])
    assert golds == exported_qrels  # ... and the same qrels


def _build_versions(data: Path) -> list[str]:
    """Versions the build published (not imports), newest first."""

    out = []
    for v in sorted((data / "golden" / "versions").iterdir(), reverse=True):
        gs = load_golden_set(v.name, data)
        if (gs.info.get("provenance") or {}).get("kind") != "import":
            out.append(v.name)
    assert out, "the build published no version"
    return out

"""`evalset review …` and `evalset regression …` through the real command line parser."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evalset_pipeline.cli.main import main
from evalset_pipeline_tests.core.review.review_synth import publish_small_golden


def fill(src: Path, dst: Path, choose, column: str = "human_label") -> list[dict]:
    with open(src, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    for k, r in enumerate(rows):
        r[column] = choose(k, r)
    with open(dst, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return rows


def out_json(capsys) -> dict:
    return json.loads(capsys.readouterr().out)


def test_review_commands_end_to_end(tmp_path, capsys):
    d = tmp_path / "data"
    d.mkdir()
    publish_small_golden(d, n_items=6, templates=2)
    dd = ["--data-dir", str(d)]
    pk = tmp_path / "pk"
    assert (
        main(
            [
                "review",
                "export",
                *dd,
                "--out",
                str(pk),
                "--sample",
                "4",
                "--overlap",
                "0.5",
                "--json",
            ]
        )
        == 0
    )
    manifest = out_json(capsys)
    assert len(manifest["double_annotated"]) == 2 and set(manifest["files"]) == {"A", "B"}
    assert json.loads((pk / "manifest.json").read_text())["packet_id"] == manifest["packet_id"]

    rows = fill(pk / "sheet_A.csv", tmp_path / "a.csv", lambda k, r: r["model_label"])
    shared = next(r for r in rows if r["item_id"] in manifest["double_annotated"])
    fill(
        pk / "sheet_B.csv",
        tmp_path / "b.csv",
        lambda k, r: (
            "irrelevant"
            if (r["item_id"], r["unit_id"]) == (shared["item_id"], shared["unit_id"])
            and r["model_label"] != "irrelevant"
            else (
                "sufficient"
                if (r["item_id"], r["unit_id"]) == (shared["item_id"], shared["unit_id"])
                else r["model_label"]
            )
        ),
    )
    assert main(["review", "import", str(tmp_path / "a.csv"), "--annotator", "alice", *dd]) == 0
    assert "stored" in capsys.readouterr().out
    assert main(["review", "import", str(tmp_path / "b.csv"), "--annotator", "bob", *dd]) == 0
    assert "1 of them disagree" in capsys.readouterr().out
    assert main(["review", "import", str(tmp_path / "b.csv"), "--annotator", "bob", *dd]) == 0
    assert "already imported" in capsys.readouterr().out

    assert main(["review", "conflicts", *dd, "--json", "--out", str(tmp_path / "adj.csv")]) == 0
    conflicts = out_json(capsys)["conflicts"]
    assert [(c["item_id"], c["unit_id"]) for c in conflicts] == [
        (shared["item_id"], shared["unit_id"])
    ]
    assert conflicts[0]["page"].endswith(" p." + shared["page"].rsplit("p.", 1)[1])
    fill(
        tmp_path / "adj.csv",
        tmp_path / "adj_done.csv",
        lambda k, r: "supporting",
        column="adjudicated_label",
    )
    assert (
        main(["review", "import", str(tmp_path / "adj_done.csv"), "--annotator", "carol", *dd]) == 0
    )
    assert "stored 1 adjudicated labels" in capsys.readouterr().out
    assert main(["review", "conflicts", *dd]) == 0
    assert "no open conflicts" in capsys.readouterr().out

    assert (
        main(
            [
                "review",
                "adjudicate",
                shared["item_id"],
                shared["unit_id"],
                "suff",
                "--by",
                "dave",
                *dd,
            ]
        )
        == 0
    )
    assert "adjudicated" in capsys.readouterr().out

    assert main(["review", "status", *dd, "--json"]) == 0
    st = out_json(capsys)
    assert st["labels_by_annotator"]["alice"] == len(rows) and st["double_annotated_pairs"] >= 1

    assert main(["review", "agreement", *dd, "--json"]) == 0
    rep = out_json(capsys)
    assert rep["model_labels_from"] == "recorded"  # no model-call ledger in this data dir
    (section,) = rep["judges"]
    assert section["current"] and section["judge"] == {
        "backend": "textlayer",
        "model": "textlayer-v1",
        "label_prompt": "lbl0001",
    }
    assert rep["inter_annotator"]["annotator_pairs"][0]["annotators"] == ["alice", "bob"]
    assert main(["review", "agreement", *dd]) == 0
    text = capsys.readouterr().out
    assert "inter-annotator agreement" in text and "alice vs bob" in text

    assert main(["review", "exemplars", *dd, "--json"]) == 0
    assert isinstance(out_json(capsys), list)

    # A second export leaves out what was reviewed.
    assert (
        main(["review", "export", *dd, "--out", str(tmp_path / "pk2"), "--sample", "10", "--json"])
        == 0
    )
    second = out_json(capsys)
    first_items = {i for s in manifest["slots"].values() for i in s}
    assert not first_items & {i for s in second["slots"].values() for i in s}
    assert second["skipped_reviewed_items"] == len(first_items)


def test_review_errors_are_one_line(tmp_path, capsys):
    d = tmp_path / "data"
    d.mkdir()
    dd = ["--data-dir", str(d)]
    assert main(["review", "export", *dd, "--out", str(tmp_path / "pk")]) == 1
    assert "no golden set" in capsys.readouterr().err
    publish_small_golden(d, n_items=2)
    assert main(["review", "export", *dd, "--out", str(tmp_path / "pk"), "--sample", "2"]) == 0
    capsys.readouterr()
    fill(tmp_path / "pk" / "sheet_A.csv", tmp_path / "bad.csv", lambda k, r: "perhaps")
    assert main(["review", "import", str(tmp_path / "bad.csv"), "--annotator", "x", *dd]) == 1
    err = capsys.readouterr().err
    assert "nothing imported" in err and "'perhaps' is not a label" in err
    assert main(["review", "adjudicate", "nope", "nope", "sufficient", "--by", "x", *dd]) == 1
    assert "neither reviewed nor a candidate" in capsys.readouterr().err
    assert main(["review", "agreement", *dd]) == 0
    assert "no human labels yet" in capsys.readouterr().out


def _pdf(path: Path, pages: int) -> None:
    import pymupdf

    path.parent.mkdir(parents=True, exist_ok=True)
    doc = pymupdf.open()
    for _ in range(pages):
        doc.new_page()
    doc.save(path)
    doc.close()


def test_regression_add_and_list(tmp_path, capsys):
    d, corpus = tmp_path / "data", tmp_path / "corpus"
    _pdf(corpus / "acme" / "q3.pdf", 3)
    dd = ["--data-dir", str(d), "--corpus", str(corpus)]
    assert (
        main(
            [
                "regression",
                "add",
                *dd,
                "--question",
                "what did acme make in q3",
                "--document",
                "acme/q3.pdf",
                "--page",
                "2",
                "--note",
                "ticket 1",
                "--json",
            ]
        )
        == 0
    )
    added = out_json(capsys)
    assert (
        added["added"] and added["item_id"].startswith("r-") and "checked against" in added["check"]
    )
    assert (
        main(
            [
                "regression",
                "add",
                *dd,
                "--question",
                "what did acme make in q3",
                "--document",
                "./acme/q3.pdf",
                "--page",
                "2",
            ]
        )
        == 0
    )
    assert "already recorded" in capsys.readouterr().out
    assert (
        main(
            [
                "regression",
                "add",
                *dd,
                "--question",
                "x",
                "--document",
                "acme/q3.pdf",
                "--page",
                "7",
            ]
        )
        == 1
    )
    assert "has 3 pages, not 7" in capsys.readouterr().err
    assert (
        main(
            [
                "regression",
                "add",
                *dd,
                "--question",
                "x",
                "--document",
                "../etc/passwd",
                "--page",
                "1",
            ]
        )
        == 1
    )
    assert "not a file under" in capsys.readouterr().err
    assert (
        main(
            [
                "regression",
                "add",
                *dd,
                "--question",
                "x",
                "--document",
                "gone.pdf",
                "--page",
                "1",
                "--force",
            ]
        )
        == 0
    )
    capsys.readouterr()
    lines = (d / "regressions" / "regressions.jsonl").read_text(encoding="utf-8").splitlines()
    assert len(lines) == 2 and json.loads(lines[0])["document"] == "acme/q3.pdf"
    assert main(["regression", "list", "--data-dir", str(d), "--json"]) == 0
    listed = out_json(capsys)
    assert (
        listed["summary"]["records"] == 2 and listed["summary"]["unresolved"] == 2
    )  # no build has scanned it yet


@pytest.mark.parametrize("argv", [["review", "--help"], ["regression", "--help"]])
def test_help(argv, capsys):
    with pytest.raises(SystemExit) as exc:
        main(argv)
    assert exc.value.code == 0

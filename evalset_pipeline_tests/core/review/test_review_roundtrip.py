"""Export a packet, fill its sheets as two annotators, import, find the conflict, adjudicate, apply."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from evalset_pipeline.core.paths import DataPaths
from evalset_pipeline.core.review.apply import apply_reviews
from evalset_pipeline.core.review.packets import PacketError, export_packets, select_items
from evalset_pipeline.core.review.sheets import (
    SheetError,
    adjudicate,
    import_sheet,
    normalize_label,
)
from evalset_pipeline.core.review.store import ReviewStore, conflicts, question_sha, status
from evalset_pipeline_tests.core.review.review_synth import (
    FORMULA_ANSWER,
    HOSTILE_Q,
    publish_small_golden,
)

FLIP = {"sufficient": "supporting", "supporting": "irrelevant", "irrelevant": "sufficient"}


def fill(src: Path, dst: Path, choose) -> list[dict]:
    with open(src, encoding="utf-8-sig", newline="") as f:
        rows = list(csv.DictReader(f))
    for k, r in enumerate(rows):
        r["human_label"] = choose(k, r)
    with open(dst, "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    return rows


@pytest.fixture
def data_dir(tmp_path: Path) -> Path:
    d = tmp_path / "data"
    d.mkdir()
    return d


def test_round_trip_two_annotators_conflict_adjudication_and_apply(data_dir, tmp_path):
    golden = publish_small_golden(data_dir, n_items=10)
    paths = DataPaths(data_dir)
    m = export_packets(golden, tmp_path / "pk", sample=6, overlap=0.5, slots=("A", "B"), seed=3)
    assert len(m["double_annotated"]) == 3
    a_items, b_items = set(m["slots"]["A"]), set(m["slots"]["B"])
    assert set(m["double_annotated"]) == a_items & b_items
    assert len(a_items | b_items) == 6
    assert (tmp_path / "pk" / "packet_A.html").is_file() and (
        tmp_path / "pk" / "index.html"
    ).is_file()
    assert len(list((tmp_path / "pk" / "images").iterdir())) >= 1

    # Alice agrees with the model everywhere; Bob too, except on one double-annotated pair.
    rows_a = fill(
        tmp_path / "pk" / "sheet_A.csv", tmp_path / "a.csv", lambda k, r: r["model_label"]
    )
    target = next(
        r for r in rows_a if r["item_id"] in m["double_annotated"] and r["role"] == "distractor"
    )
    fill(
        tmp_path / "pk" / "sheet_B.csv",
        tmp_path / "b.csv",
        lambda k, r: (
            FLIP[r["model_label"]]
            if (r["item_id"], r["unit_id"]) == (target["item_id"], target["unit_id"])
            else r["model_label"]
        ),
    )
    ra = import_sheet(paths, tmp_path / "a.csv", "alice")
    assert ra.created and ra.labelled == len(rows_a) and not ra.conflicts
    rb = import_sheet(paths, tmp_path / "b.csv", "bob")
    assert rb.created and len(rb.conflicts) == 1
    again = import_sheet(paths, tmp_path / "a.csv", "alice")
    assert (
        not again.created and again.stored == ra.stored
    )  # same sheet, same annotator: stored once

    reviews = ReviewStore(paths).reviews()
    open_ = conflicts(reviews)
    assert [(c.key.item_id, c.key.unit_id) for c in open_] == [
        (target["item_id"], target["unit_id"])
    ]
    assert open_[0].label is None and open_[0].source is None
    s = status(reviews)
    assert s["by_state"] == {"agreed": s["pairs"] - 1, "conflict": 1}
    assert s["labels_by_annotator"]["alice"] == len(rows_a)

    # Both annotators' labels are kept (nothing overwritten); the adjudicated label wins.
    key, _ = adjudicate(
        paths, target["item_id"], target["unit_id"], "supporting", by="carol", note="axis differs"
    )
    reviews = ReviewStore(paths).reviews()
    settled = reviews[key]
    assert (
        settled.state == "adjudicated"
        and settled.label == "supporting"
        and settled.source == "adjudicated"
    )
    assert set(settled.by_annotator) == {"alice", "bob"}
    assert not conflicts(reviews)

    # The next version's judgments: human labels over model labels, counted by source.
    items, judgments = golden.items.to_pylist(), golden.judgments.to_pylist()
    for j in judgments:  # pretend the model now says "irrelevant" everywhere: humans must win
        j["label"] = "irrelevant"
    out = apply_reviews(
        paths,
        items,
        judgments,
        {"backend": "textlayer", "model": "textlayer-v1", "prompts": {"label": "lbl0001"}},
    )
    by_key = {(j["item_id"], j["unit_id"]): j for j in out.judgments}
    assert by_key[(target["item_id"], target["unit_id"])]["label"] == "supporting"
    assert by_key[(target["item_id"], target["unit_id"])]["label_source"] == "adjudicated"
    reviewed = {(k.item_id, k.unit_id) for k in reviews}
    assert out.labels_by_source == {
        "model": len(judgments) - len(reviewed),
        "human": len(reviewed) - 1,
        "adjudicated": 1,
    }
    for (i, u), j in by_key.items():
        if (i, u) not in reviewed:
            assert j["label_source"] == "model" and j["label"] == "irrelevant"
    agreement = out.agreement
    assert (
        agreement["pre_labelled_by_model"] is True
        and agreement["judge"]["label_prompt"] == "lbl0001"
    )
    assert agreement["human_labels"]["resolved"] == len(reviewed)
    assert agreement["dev_labels"] + agreement["heldout_labels"] == len(reviewed)
    assert "pre-labelled by the model textlayer/textlayer-v1" in agreement["statement"]
    if agreement["heldout_scored"]:
        t = agreement["three_class"]
        assert t["n"] == agreement["heldout_scored"]
        # The model said irrelevant everywhere; humans mostly did not.
        assert sum(row[2] for row in t["matrix"]) == t["n"]
    assert agreement["inter_annotator"]["double_annotated_pairs"] == sum(
        1 for r in rows_a if r["item_id"] in m["double_annotated"]
    )


def test_a_revised_sheet_replaces_only_that_annotators_label(data_dir, tmp_path):
    golden = publish_small_golden(data_dir, n_items=4)
    paths = DataPaths(data_dir)
    export_packets(golden, tmp_path / "pk", sample=4, overlap=1.0, slots=("A", "B"), seed=1)
    rows = fill(
        tmp_path / "pk" / "sheet_A.csv",
        tmp_path / "a1.csv",
        lambda k, r: "supporting" if k == 0 else "",
    )
    import_sheet(paths, tmp_path / "a1.csv", "alice")
    fill(
        tmp_path / "pk" / "sheet_B.csv",
        tmp_path / "b1.csv",
        lambda k, r: "supporting" if k == 0 else "",
    )
    import_sheet(paths, tmp_path / "b1.csv", "bob")
    fill(
        tmp_path / "pk" / "sheet_A.csv",
        tmp_path / "a2.csv",
        lambda k, r: "sufficient" if k == 0 else "",
    )
    res = import_sheet(paths, tmp_path / "a2.csv", "alice")
    assert res.created and len(res.conflicts) == 1
    key = next(iter(ReviewStore(paths).reviews()))
    review = ReviewStore(paths).reviews()[key]
    assert review.human_labels == {"alice": "sufficient", "bob": "supporting"}
    assert (review.key.item_id, review.key.unit_id) == (rows[0]["item_id"], rows[0]["unit_id"])
    assert len(list(ReviewStore(paths).labels_dir.glob("*.parquet"))) == 3  # every batch kept


def test_bad_sheets_are_rejected_whole(data_dir, tmp_path):
    golden = publish_small_golden(data_dir, n_items=4)
    paths = DataPaths(data_dir)
    export_packets(golden, tmp_path / "pk", sample=4, overlap=0.0, slots=("A",), seed=1)
    fill(
        tmp_path / "pk" / "sheet_A.csv",
        tmp_path / "bad.csv",
        lambda k, r: "maybe" if k == 2 else "sufficient",
    )
    with pytest.raises(SheetError, match="row 4: 'maybe' is not a label"):
        import_sheet(paths, tmp_path / "bad.csv", "alice")
    assert ReviewStore(paths).is_empty()

    rows = fill(tmp_path / "pk" / "sheet_A.csv", tmp_path / "ok.csv", lambda k, r: "2")
    rows[1]["unit_id"] = "doc9:p9"
    rows[2]["question_sha"] = "0000000000000000"
    rows.append(dict(rows[0], human_label="irrelevant"))
    with open(tmp_path / "mixed.csv", "w", encoding="utf-8", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0]))
        w.writeheader()
        w.writerows(rows)
    with pytest.raises(SheetError) as err:
        import_sheet(paths, tmp_path / "mixed.csv", "alice")
    text = str(err.value)
    assert (
        "3 problem(s)" in text
        and "not a candidate" in text
        and "question_sha" in text
        and "labelled both" in text
    )
    assert ReviewStore(paths).is_empty()

    (tmp_path / "cols.csv").write_text("item_id,label\nx,sufficient\n", encoding="utf-8")
    with pytest.raises(SheetError, match="missing column"):
        import_sheet(paths, tmp_path / "cols.csv", "alice")

    # JSONL sheets work the same way; grades and short forms are labels.
    jl = tmp_path / "s.jsonl"
    jl.write_text(
        "\n".join(json.dumps({**r, "human_label": "supp"}) for r in rows[:1]) + "\n",
        encoding="utf-8",
    )
    assert import_sheet(paths, jl, "dana").labelled == 1
    assert [normalize_label(x) for x in ("2", " Suff ", "1", "irr", "")] == [
        "sufficient",
        "sufficient",
        "supporting",
        "irrelevant",
        None,
    ]


def test_adjudication_sheet_round_trip(data_dir, tmp_path):
    from evalset_pipeline.core.review.sheets import (
        ADJUDICATION_COLUMNS,
        adjudication_rows,
        write_csv,
    )

    golden = publish_small_golden(data_dir, n_items=3)
    paths = DataPaths(data_dir)
    export_packets(golden, tmp_path / "pk", sample=3, overlap=1.0, slots=("A", "B"), seed=1)
    fill(tmp_path / "pk" / "sheet_A.csv", tmp_path / "a.csv", lambda k, r: "sufficient")
    fill(
        tmp_path / "pk" / "sheet_B.csv",
        tmp_path / "b.csv",
        lambda k, r: "irrelevant" if k < 2 else "sufficient",
    )
    import_sheet(paths, tmp_path / "a.csv", "alice")
    import_sheet(paths, tmp_path / "b.csv", "bob")
    open_ = conflicts(ReviewStore(paths).reviews())
    assert len(open_) == 2
    rows = adjudication_rows(open_)
    assert all(r["annotator_labels"] == "alice=sufficient; bob=irrelevant" for r in rows)
    rows[0]["adjudicated_label"] = "supporting"  # the second stays open
    write_csv(tmp_path / "adj.csv", ADJUDICATION_COLUMNS, rows)
    res = import_sheet(paths, tmp_path / "adj.csv", "carol")
    assert res.kind == "adjudications" and res.labelled == 1 and res.blank == 1
    reviews = ReviewStore(paths).reviews()
    assert len(conflicts(reviews)) == 1
    settled = [r for r in reviews.values() if r.state == "adjudicated"]
    assert len(settled) == 1 and settled[0].label == "supporting"
    assert "adjudicated by carol" in settled[0].rationale()


def test_labels_for_another_wording_are_stale_not_applied(data_dir, tmp_path):
    golden = publish_small_golden(data_dir, n_items=3)
    paths = DataPaths(data_dir)
    export_packets(golden, tmp_path / "pk", sample=3, overlap=0.0, slots=("A",), seed=1)
    fill(tmp_path / "pk" / "sheet_A.csv", tmp_path / "a.csv", lambda k, r: "irrelevant")
    import_sheet(paths, tmp_path / "a.csv", "alice")
    items = golden.items.to_pylist()
    items[0]["question"] += " (reworded)"
    out = apply_reviews(
        paths, items, golden.judgments.to_pylist(), {"backend": "b", "model": "m", "prompts": {}}
    )
    n0 = sum(1 for j in golden.judgments.to_pylist() if j["item_id"] == items[0]["item_id"])
    assert out.review["stale_question"] == n0
    assert out.labels_by_source["human"] == golden.judgments.num_rows - n0
    assert all(
        j["label_source"] == "model" for j in out.judgments if j["item_id"] == items[0]["item_id"]
    )


def test_no_human_labels_says_so(data_dir):
    golden = publish_small_golden(data_dir, n_items=2)
    out = apply_reviews(
        DataPaths(data_dir),
        golden.items.to_pylist(),
        golden.judgments.to_pylist(),
        {"backend": "textlayer", "model": "textlayer-v1", "prompts": {"label": "x"}},
    )
    assert out.labels_by_source == {
        "model": golden.judgments.num_rows,
        "human": 0,
        "adjudicated": 0,
    }
    assert "not measured yet" in out.agreement["statement"]
    assert "three_class" not in out.agreement


def test_packet_escapes_everything_and_guards_spreadsheets(data_dir, tmp_path):
    golden = publish_small_golden(data_dir, n_items=3, hostile=True)
    m = export_packets(golden, tmp_path / "pk", sample=3, overlap=0.0, slots=("A",), seed=1)
    page = (tmp_path / "pk" / "packet_A.html").read_text(encoding="utf-8")
    assert "<script>window" not in page and "<img src=x" not in page and "<h1>page</h1>" not in page
    assert (
        "&lt;/script&gt;&lt;script&gt;window.__xss=&quot;q&quot;&lt;/script&gt;" in page
    )  # shown, as text
    assert "&lt;img src=x onerror=window.__xss=1&gt;" in page
    assert (
        page.count("<script") == 3 and page.count("</script>") == 3
    )  # 2 JSON blocks + the packet's own code
    blob = page.split('<script type="application/json" id="sheet-rows">')[1].split("</script>")[0]
    rows = json.loads(blob)
    assert rows[0]["question"] == HOSTILE_Q and rows[0]["answer"] == "'" + FORMULA_ANSWER
    with open(tmp_path / "pk" / "sheet_A.csv", encoding="utf-8", newline="") as f:
        first = next(csv.DictReader(f))
    assert first["answer"] == "'" + FORMULA_ANSWER  # a spreadsheet shows it, never runs it
    assert m["files"]["A"]["items"] == 3


def test_embedded_packet_is_one_file(data_dir, tmp_path):
    golden = publish_small_golden(data_dir, n_items=2)
    export_packets(
        golden, tmp_path / "pk", sample=2, overlap=0.0, slots=("A",), seed=1, embed=True, blind=True
    )
    page = (tmp_path / "pk" / "packet_A.html").read_text(encoding="utf-8")
    assert "data:image/png;base64," in page and not (tmp_path / "pk" / "images").exists()
    assert 'class="model"' not in page and "blind review" in page  # blind: no model label shown
    with open(tmp_path / "pk" / "sheet_A.csv", encoding="utf-8", newline="") as f:
        assert all(r["model_label"] == "" for r in csv.DictReader(f))
    with pytest.raises(PacketError, match="not empty"):
        export_packets(golden, tmp_path / "pk", sample=2)


def test_sampling_is_stratified_seeded_and_overlapping():
    items = [
        {
            "item_id": f"i{k:02d}",
            "slice": "regression" if k == 0 else "main",
            "gold_unit_id": f"u{k}",
            "qualified_axes": "period" if k % 2 else "",
        }
        for k in range(30)
    ]
    templates = {f"u{k}": f"t{k % 3}" for k in range(30)}
    a = select_items(items, templates, 8, seed=5, overlap=0.25, slots=["A", "B"])
    assert a == select_items(items, templates, 8, seed=5, overlap=0.25, slots=["A", "B"])
    chosen = set(a.slots["A"]) | set(a.slots["B"])
    assert (
        len(chosen) == 8 and "i00" in chosen
    )  # the lone regression item is its own stratum: never left out
    assert len(a.overlap) == 2 and set(a.overlap) == set(a.slots["A"]) & set(a.slots["B"])
    assert abs(len(a.slots["A"]) - len(a.slots["B"])) <= 1
    assert sum(a.strata.values()) == 8 and len(a.strata) >= 6
    b = select_items(items, templates, 8, seed=6, overlap=0.25, slots=["A", "B"])
    assert b.slots != a.slots
    one = select_items(items, templates, 100, seed=5, overlap=0.5, slots=["solo"])
    assert len(one.slots["solo"]) == 30 and one.overlap == []
    with pytest.raises(PacketError):
        select_items(items, templates, 5, seed=1, overlap=1.5, slots=["A"])


def test_question_sha_is_stable():
    assert question_sha("What?") == question_sha("What?") != question_sha("What? ")

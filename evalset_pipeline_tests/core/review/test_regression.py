"""Regression records: parsing, resolving to corpus pages, stable ids, appending."""

from __future__ import annotations

import json

import pytest

from evalset_pipeline.core.review.regression import (
    CorpusIndex,
    RegressionError,
    append_record,
    detect_language,
    new_record,
    parse_record,
    read_records,
    regression_items,
)

DOCS = [
    {
        "document_sha256": "aa" * 32,
        "path": "acme/acme_2024-Q3.pdf",
        "paths": ["acme/acme_2024-Q3.pdf", "copy/acme_2024-Q3.pdf"],
        "page_count": 3,
    },
    {
        "document_sha256": "bb" * 32,
        "path": "beta/report.pdf",
        "paths": ["beta/report.pdf"],
        "page_count": 2,
    },
    {
        "document_sha256": "cc" * 32,
        "path": "gamma/report.pdf",
        "paths": ["gamma/report.pdf"],
        "page_count": 2,
    },
]
PAGES = [
    {
        "unit_id": f"{d['document_sha256'][:4]}-p{p}",
        "document_sha256": d["document_sha256"],
        "document_path": d["path"],
        "page_number": p,
    }
    for d in DOCS
    for p in range(1, d["page_count"] + 1)
]


@pytest.fixture
def index() -> CorpusIndex:
    return CorpusIndex(DOCS, PAGES)


def test_resolve_by_path_name_or_sha(index):
    assert index.resolve("acme/acme_2024-Q3.pdf", 2) == ("aaaa-p2", "")
    assert index.resolve("./copy/acme_2024-Q3.pdf", 1) == (
        "aaaa-p1",
        "",
    )  # a duplicate's other path
    assert index.resolve("acme_2024-Q3.pdf", 3) == ("aaaa-p3", "")  # unique file name
    assert index.resolve("bbbbbbbbbb", 1) == ("bbbb-p1", "")  # sha256 prefix
    unit, why = index.resolve("report.pdf", 1)
    assert unit is None and "2 documents" in why
    unit, why = index.resolve("acme/acme_2024-Q3.pdf", 9)
    assert unit is None and "has 3 pages, not 9" in why
    unit, why = index.resolve("nope.pdf", 1)
    assert unit is None and "not in the corpus" in why


def test_records_become_regression_items_never_rewritten(tmp_path, index):
    d = tmp_path / "regressions"
    d.mkdir()
    recs = [
        {
            "question": "  what did acme make in q3?? ",
            "document": "acme/acme_2024-Q3.pdf",
            "page": 2,
            "note": "T-1",
        },
        {
            "question": "what did acme make in q3??",
            "document": "acme/acme_2024-Q3.pdf",
            "page": 2,
        },  # duplicate
        {"question": "beta revenue", "document": "beta/report.pdf", "page": 5},  # page not there
        {
            "question": "한빛전자 반도체 매출",
            "document": "gamma/report.pdf",
            "page": 1,
            "answer": "1,234",
        },
    ]
    (d / "a.jsonl").write_text(
        "\n".join(json.dumps(r, ensure_ascii=False) for r in recs) + "\n\n{not json\n",
        encoding="utf-8",
    )
    (d / "b.jsonl").write_text(
        json.dumps({"question": "", "document": "x", "page": 1}) + "\n", encoding="utf-8"
    )
    items, rows, summary = regression_items(d, index)
    assert [v.question for v in items] == ["what did acme make in q3??", "한빛전자 반도체 매출"]
    assert all(
        v.slice == "regression" and v.question == v.original_question and not v.qualified_axes
        for v in items
    )
    assert items[0].gold_unit_id == "aaaa-p2" and items[0].acceptable == ["aaaa-p2"]
    assert items[1].answer == "1,234" and items[1].language == "ko" and items[0].language == "en"
    assert summary == {
        **summary,
        "records": 6,
        "added": 2,
        "duplicates": 1,
        "unresolved": 1,
        "invalid": 2,
    }
    # Ids come from the record itself: same record, same item, in every build.
    again, _, _ = regression_items(d, index)
    assert [v.item_id for v in again] == [v.item_id for v in items] and items[0].item_id.startswith(
        "r-"
    )
    assert {r["status"] for r in rows} == {"added", "duplicate", "unresolved", "invalid"}
    # An id a sampled item already has is not reused.
    taken, _, s2 = regression_items(d, index, taken=[items[0].item_id])
    assert s2["added"] == 1 and s2["duplicates"] == 2


def test_judge_supplies_missing_answers(tmp_path, index):
    from types import SimpleNamespace

    from evalset_pipeline.core.paths import DataPaths
    from evalset_pipeline.core.review.regression import add_regression_items

    paths = DataPaths(tmp_path)
    paths.regressions.mkdir(parents=True)
    (paths.regressions / "r.jsonl").write_text(
        json.dumps({"question": "q one", "document": "beta/report.pdf", "page": 1})
        + "\n"
        + json.dumps({"question": "q two", "document": "beta/report.pdf", "page": 2})
        + "\n",
        encoding="utf-8",
    )
    pages = [
        dict(
            p,
            render_path=f"r/{p['unit_id']}.png",
            text_path=f"r/{p['unit_id']}.json",
            render_hash=p["unit_id"] * 4,
        )
        for p in PAGES
    ]
    asked = []

    def judge(pairs):
        asked.extend(pairs)
        return [
            SimpleNamespace(answers=True, answer="42", reason=""),
            SimpleNamespace(answers=False, answer=None, reason="no such figure"),
        ]

    import evalset_pipeline.core.review.regression as reg

    orig = reg.corpus_index
    reg.corpus_index = lambda p, pg=None: index  # the fixture corpus, not tables on disk
    try:
        items, summary = add_regression_items(paths, pages, [], judge=judge)
    finally:
        reg.corpus_index = orig
    assert [q for q, _ in asked] == ["q one", "q two"] and asked[0][1].unit_id == "bbbb-p1"
    assert [v.answer for v in items] == ["42", ""]  # kept even when the judge finds nothing
    assert summary["gold_not_answering"] == 1
    assert paths.table(reg.TABLE).exists()


def test_append_keeps_one_record_a_line(tmp_path):
    d = tmp_path / "regressions"
    d.mkdir()
    (d / "regressions.jsonl").write_text(
        '{"question": "a", "document": "x.pdf", "page": 1}', encoding="utf-8"
    )  # no newline
    rec = new_record(
        'what is "this"\nreally', "acme/acme_2024-Q3.pdf", 2, note="n", date="2024-11-02"
    )
    append_record(d, rec)
    append_record(d, new_record("b", "x.pdf", 3))
    records, problems = read_records(d)
    assert not problems and [r.question for r in records] == ["a", 'what is "this"\nreally', "b"]
    assert records[1].date == "2024-11-02" and records[2].date  # default: today
    with pytest.raises(RegressionError):
        append_record(d, rec, file="../evil.jsonl")
    for bad in (
        {"question": "q", "document": "d", "page": 0},
        {"question": "q", "document": "d", "page": "x"},
        {"question": "q", "document": "", "page": 1},
        ["not", "an", "object"],
    ):
        with pytest.raises(RegressionError):
            parse_record(bad)


def test_detect_language():
    assert detect_language("한빛전자 매출") == "ko"
    assert detect_language("売上はいくらですか") == "ja"
    assert detect_language("营业收入") == "zh"
    assert detect_language("What was revenue?") == "en"

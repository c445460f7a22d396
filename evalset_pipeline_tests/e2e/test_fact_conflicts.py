"""End to end on a filer whose documents disagree: two quarterly reports that come out as one
fiscal quarter for different period ends. `evalset documents --facts` flags the conflict on both,
`page_metadata` counts it, their pages are not sampled, and a sidecar row giving a page's period
settles that page; the filer's annual report and its other quarter are sampled as before."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg

from evalset_pipeline.cli.build_summary import _meta, print_summary
from evalset_pipeline.cli.main import main
from evalset_pipeline.core.metadata.conflict_hold import HELD_REASON
from evalset_pipeline.core.tables import read_rows
from evalset_pipeline.definitions import all_assets
from evalset_pipeline.defs.resources import EmbedderResource, PipelineSettings, VLMResource
from evalset_pipeline_tests.core.metadata.drawn import draw_pdf

BODY = ["Amber plc makes packaging, and it says so in sentences long enough to read as prose."] * 6


def _statement(ended: str, prior: str) -> list:
    rows = [(f"Line item {i}", f"{1000 + 37 * i:,}", f"{900 + 31 * i:,}") for i in range(14)]
    return [
        "CONSOLIDATED STATEMENTS OF INCOME",
        ("", "Three Months Ended"),
        ("", ended, prior),
        *rows,
    ]


def _filing(path: Path, form: str, ended: str, prior: str) -> None:
    kind = "fiscal year" if form == "10-K" else "quarterly period"
    cover = [
        f"FORM {form}",
        f"For the {kind} ended {ended}",
        "AMBER PLC",
        "(Exact name of registrant as specified in its charter)",
    ]
    draw_pdf(path, [cover, BODY, _statement(ended, prior), _statement(ended, prior)])


def _write_corpus(corpus: Path) -> None:
    corpus.mkdir(parents=True, exist_ok=True)
    _filing(corpus / "amber_10k.pdf", "10-K", "June 30, 2023", "June 30, 2022")
    _filing(corpus / "amber_q1.pdf", "10-Q", "September 30, 2022", "September 30, 2021")
    # two reports of one fiscal quarter (October to December) for different ends: a conflict
    _filing(corpus / "amber_a.pdf", "10-Q", "October 31, 2022", "October 31, 2021")
    _filing(corpus / "amber_b.pdf", "10-Q", "November 30, 2022", "November 30, 2021")


def _build_to_sample(corpus: Path, data_dir: Path) -> dict:
    """Build up to the gold sample (no questions: nothing here needs them); `page_metadata`'s
    materialization metadata back."""
    resources = {
        "settings": PipelineSettings(
            data_dir=str(data_dir), corpus_dir=str(corpus), sample_size=40
        ),
        "vlm": VLMResource(),
        "embedder": EmbedderResource(),
    }
    result = dg.materialize(
        all_assets,
        resources=resources,
        selection=dg.AssetSelection.assets("gold_sample").upstream(),
    )
    assert result.success
    return _meta(result, "page_metadata")


def _held_and_sampled(data_dir: Path) -> tuple[set[str], set[str]]:
    tables = data_dir / "artifacts" / "tables"
    paths = {r["unit_id"]: r["document_path"] for r in read_rows(tables / "page_renders.parquet")}
    held = {
        paths[p["unit_id"]]
        for p in read_rows(tables / "page_profiles.parquet")
        if p["skip_reason"] == HELD_REASON
    }
    sampled = {paths[r["unit_id"]] for r in read_rows(tables / "gold_sample.parquet")}
    return held, sampled


def test_conflicting_documents_are_flagged_held_out_and_settled_by_the_sidecar(
    tmp_path, capsys, monkeypatch
):
    corpus, data_dir = tmp_path / "corpus", tmp_path / "data"
    _write_corpus(corpus)
    counts = _build_to_sample(corpus, data_dir)
    assert counts["documents_with_conflicts"] == 2 and counts["pages_held_for_conflicts"] == 4
    assert len(counts["conflicts"]) == 2

    assert main(["documents", "--facts", "--json", "--data-dir", str(data_dir)]) == 0
    rows = {r["path"]: r for r in json.loads(capsys.readouterr().out)}
    assert {p: r["period"] for p, r in rows.items()} == {
        "amber_10k.pdf": "2023",
        "amber_q1.pdf": "2023-Q1",
        "amber_a.pdf": "2023-Q2",
        "amber_b.pdf": "2023-Q2",
    }
    assert [p for p, r in sorted(rows.items()) if r["conflicts"]] == ["amber_a.pdf", "amber_b.pdf"]
    assert "amber_b.pdf" in rows["amber_a.pdf"]["conflicts"][0]
    monkeypatch.setenv("COLUMNS", "400")  # one line per row: the words are not folded
    assert main(["documents", "--facts", "--data-dir", str(data_dir)]) == 0
    shown = capsys.readouterr().out
    assert "CONFLICT" in shown and "2 documents with conflicts" in shown

    held, sampled = _held_and_sampled(data_dir)
    assert held == {"amber_a.pdf", "amber_b.pdf"}
    assert not held & sampled and {"amber_10k.pdf", "amber_q1.pdf"} <= sampled

    # A person who knows settles amber_a.pdf's statement pages: those pages may be sampled again.
    (corpus / "metadata.csv").write_text(
        "document,page,period\namber_a.pdf,3,2023-Q2\namber_a.pdf,4,2023-Q2\n", encoding="utf-8"
    )
    _build_to_sample(corpus, data_dir)
    held, sampled = _held_and_sampled(data_dir)
    assert held == {"amber_b.pdf"}  # amber_a's other pages offer nothing to ask anyway
    profiles = read_rows(data_dir / "artifacts" / "tables" / "page_profiles.parquet")
    renders = {
        r["unit_id"]: (r["document_path"], r["page_number"])
        for r in read_rows(data_dir / "artifacts" / "tables" / "page_renders.parquet")
    }
    settled = {renders[p["unit_id"]]: p["skip_reason"] for p in profiles}
    assert settled[("amber_a.pdf", 3)] == settled[("amber_a.pdf", 4)] == ""
    assert settled[("amber_b.pdf", 3)] == HELD_REASON
    assert "amber_a.pdf" in sampled and "amber_b.pdf" not in sampled


def test_the_build_summary_counts_conflicts_and_low_confidence_facts(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "400")
    done = {
        "pages_rendered": 0,
        "pages_render_reused": 0,
        "pages_embedded": 0,
        "pages_embedding_reused": 0,
        "model_calls": 0,
        "cache_hits": 0,
        "backend": "textlayer",
        "model": "",
        "tokens": {"prompt": 0, "completion": 0},
        "cost_usd": 0.0,
    }
    summary = {
        "version_id": "gs-x",
        "new_version": True,
        "seq": 1,
        "items": 0,
        "by_slice": {},
        "corpus": {"documents": 4, "pages": 16, "fingerprint": "f" * 16},
        "done": done,
        "seconds": {},
        "funnel": {},
        "rejected_documents": [],
        "facts": {
            "documents_with_conflicts": 2,
            "documents_with_low_confidence": 1,
            "pages_held_for_conflicts": 4,
            "conflicts": [],
        },
        "stored_at": {"duckdb": "d", "snapshot": "s", "dagster_home": "h", "run_id": "r" * 8},
    }
    print_summary(summary)
    out = capsys.readouterr().out
    assert "document facts: 2 documents with conflicts (4 pages not sampled" in out
    assert "1 with low-confidence facts" in out
    summary["facts"] = {k: 0 for k in summary["facts"]}
    print_summary(summary)
    assert "document facts" not in capsys.readouterr().out  # nothing to say, no line
